// Request-trace readers: hand-written files read back to records worked out by hand, every error
// class naming file and line, lines straddling read blocks, and long streams through a FIFO in
// bounded memory (the reader never holds the file).
#include "traffic/trace/request_trace.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace famsim {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// A unique path in the test temp directory carrying the test name and the process id: ctest runs
// tests in parallel processes.
std::string temp_path(const std::string& extension) {
  static int counter = 0;
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return ::testing::TempDir() + "famsim_" + info->test_suite_name() + "_" + info->name() + "_" +
         std::to_string(::getpid()) + "_" + std::to_string(counter++) + extension;
}

// A trace file removed when the test ends.
class TempFile {
 public:
  explicit TempFile(const std::string& content, const std::string& extension = ".trace")
      : path_(temp_path(extension)) {
    std::ofstream out(path_, std::ios::binary);
    out << content;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

MooncakeRecord mooncake(double timestamp_ms, std::uint64_t input_length,
                        std::uint64_t output_length, std::vector<std::uint64_t> hash_ids,
                        std::uint64_t line) {
  MooncakeRecord r;
  r.timestamp_ms = timestamp_ms;
  r.input_length = input_length;
  r.output_length = output_length;
  r.hash_ids = std::move(hash_ids);
  r.line = line;
  return r;
}

std::vector<MooncakeRecord> read_mooncake(
    const std::string& path, std::size_t block_bytes = MooncakeReader::kDefaultBlockBytes) {
  MooncakeReader reader(path, block_bytes);
  std::vector<MooncakeRecord> out;
  MooncakeRecord r;
  while (reader.next(r)) out.push_back(r);
  return out;
}

void expect_records(const std::vector<MooncakeRecord>& got,
                    const std::vector<MooncakeRecord>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE("record " + std::to_string(i));
    EXPECT_EQ(got[i].timestamp_ms, want[i].timestamp_ms);
    EXPECT_EQ(got[i].input_length, want[i].input_length);
    EXPECT_EQ(got[i].output_length, want[i].output_length);
    EXPECT_EQ(got[i].hash_ids, want[i].hash_ids);
    EXPECT_EQ(got[i].line, want[i].line);
  }
}

TimedAccess access(std::uint64_t time_ps, unsigned gpu, bool write, std::uint64_t va,
                   std::uint32_t bytes, std::uint64_t line) {
  TimedAccess a;
  a.time_ps = time_ps;
  a.gpu = gpu;
  a.write = write;
  a.va = va;
  a.bytes = bytes;
  a.line = line;
  return a;
}

std::vector<TimedAccess> read_timed(
    const std::string& path, std::size_t block_bytes = TimedTraceReader::kDefaultBlockBytes) {
  TimedTraceReader reader(path, block_bytes);
  std::vector<TimedAccess> out;
  TimedAccess a;
  while (reader.next(a)) out.push_back(a);
  return out;
}

void expect_accesses(const std::vector<TimedAccess>& got, const std::vector<TimedAccess>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE("access " + std::to_string(i));
    EXPECT_EQ(got[i].time_ps, want[i].time_ps);
    EXPECT_EQ(got[i].gpu, want[i].gpu);
    EXPECT_EQ(got[i].write, want[i].write);
    EXPECT_EQ(got[i].va, want[i].va);
    EXPECT_EQ(got[i].bytes, want[i].bytes);
    EXPECT_EQ(got[i].line, want[i].line);
  }
}

// Reads until the reader throws; the message, or "" if it never threw.
template <typename Reader, typename Record>
std::string reader_error_of(const std::string& path) {
  try {
    Reader reader(path);
    Record r;
    while (reader.next(r)) {
    }
  } catch (const TraceError& e) {
    return e.what();
  }
  return "";
}

// The error starts with FILE:LINE: and carries the given words.
template <typename Reader, typename Record>
void expect_error(const std::string& content, int line, const std::string& words) {
  SCOPED_TRACE(content);
  TempFile t(content);
  const std::string msg = reader_error_of<Reader, Record>(t.path());
  EXPECT_THAT(msg, StartsWith(t.path() + ":" + std::to_string(line) + ": "));
  EXPECT_THAT(msg, HasSubstr(words));
}

void expect_mooncake_error(const std::string& content, int line, const std::string& words) {
  expect_error<MooncakeReader, MooncakeRecord>(content, line, words);
}

void expect_timed_error(const std::string& content, int line, const std::string& words) {
  expect_error<TimedTraceReader, TimedAccess>(content, line, words);
}

// A line of the Mooncake format with the given timestamp text and otherwise valid fields.
std::string mooncake_line(const std::string& timestamp) {
  return "{\"timestamp\": " + timestamp +
         ", \"input_length\": 600, \"output_length\": 2, \"hash_ids\": [1, 2]}\n";
}

// ---------------------------------------------------------------------------------------------
// Mooncake, well-formed

// Lines 1-2: the samples of kvcache-ai/Mooncake FAST25-release/README.md; then a fractional
// timestamp with keys in another order and an unknown key, an empty hash_ids, a blank line, CRLF
// and a last line without a newline.
const char* const kMooncakeSample =
    "{\"timestamp\": 27482, \"input_length\": 6955, \"output_length\": 52, \"hash_ids\": [46, 47, "
    "48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 2353, 2354]}\n"
    "{\"timestamp\": 30535, \"input_length\": 6472, \"output_length\": 26, \"hash_ids\": [46, 47, "
    "48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 2366]}\n"
    "  {\"hash_ids\":[0,18446744073709551615],\"output_length\":0,\"session\":\"a\","
    "\"input_length\":1024,\"timestamp\":30535.25}  \n"
    "\n"
    " \t \r\n"
    "{\"timestamp\": 3.6e6, \"input_length\": 1, \"output_length\": 7, \"hash_ids\": []}\r\n"
    "{\"timestamp\": 3600000, \"input_length\": 513, \"output_length\": 1, \"hash_ids\": [9, 10]}";

std::vector<MooncakeRecord> mooncake_sample_records() {
  return {
      mooncake(27482, 6955, 52, {46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 2353, 2354}, 1),
      mooncake(30535, 6472, 26, {46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 2366}, 2),
      mooncake(30535.25, 1024, 0, {0, 18446744073709551615ULL}, 3),
      mooncake(3600000, 1, 7, {}, 6),
      mooncake(3600000, 513, 1, {9, 10}, 7),
  };
}

TEST(MooncakeReader, RecordsAsWritten) {
  TempFile t(kMooncakeSample, ".jsonl");
  MooncakeReader reader(t.path());
  EXPECT_EQ(reader.path(), t.path());
  expect_records(read_mooncake(t.path()), mooncake_sample_records());
}

TEST(MooncakeReader, RecordsStraddleReadBlocks) {
  TempFile t(kMooncakeSample, ".jsonl");
  for (std::size_t block : {1, 2, 3, 7, 64}) {
    SCOPED_TRACE("block_bytes " + std::to_string(block));
    expect_records(read_mooncake(t.path(), block), mooncake_sample_records());
  }
}

TEST(MooncakeReader, HashIdStorageIsReused) {
  TempFile t(mooncake_line("1") +
             "{\"timestamp\": 2, \"input_length\": 2048, \"output_length\": 1, "
             "\"hash_ids\": [5, 6, 7, 8]}\n" +
             mooncake_line("3"));
  MooncakeReader reader(t.path());
  MooncakeRecord r;
  r.hash_ids.reserve(64);
  const std::uint64_t* storage = r.hash_ids.data();
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(reader.next(r));
    EXPECT_EQ(r.hash_ids.data(), storage) << "record " << i << " reallocated hash_ids";
  }
  EXPECT_EQ(r.hash_ids, (std::vector<std::uint64_t>{1, 2}));
  EXPECT_FALSE(reader.next(r));
}

TEST(MooncakeReader, UnknownKeysAreIgnoredWhateverTheirValue) {
  // Known key names inside an unknown key's value are not the record's fields.
  TempFile t(
      "{\"meta\": {\"timestamp\": -1, \"hash_ids\": \"x\", \"deep\": [[{\"input_length\": 0}]]},"
      " \"timestamp\": 5, \"input_length\": 9, \"output_length\": 3, \"hash_ids\": [4],"
      " \"tags\": [null, true, -2.5, \"s\"], \"timestamp_s\": -7}\n");
  expect_records(read_mooncake(t.path()), {mooncake(5, 9, 3, {4}, 1)});
}

TEST(MooncakeReader, EmptyFileHasNoRecords) {
  TempFile empty("", ".jsonl");
  EXPECT_TRUE(read_mooncake(empty.path()).empty());
  TempFile blank("\n  \n\r\n", ".jsonl");
  EXPECT_TRUE(read_mooncake(blank.path()).empty());
}

TEST(MooncakeReader, UnreadableFile) {
  const std::string missing = temp_path(".jsonl");
  try {
    MooncakeReader reader(missing);
    FAIL() << "opening a missing file should throw";
  } catch (const TraceError& e) {
    EXPECT_THAT(std::string(e.what()), StartsWith(missing + ": cannot open"));
  }
  EXPECT_THROW(MooncakeReader reader(::testing::TempDir()), TraceError);
}

// ---------------------------------------------------------------------------------------------
// Mooncake, malformed

TEST(MooncakeReader, BadJson) {
  const std::string ok = mooncake_line("1");
  expect_mooncake_error(ok + ok + "{\"timestamp\": 5, \"input_length\": 10,\n", 3,
                        "not valid JSON (column");
  expect_mooncake_error(ok + "{\"timestamp\": 5 \"input_length\": 10}\n", 2, "not valid JSON");
  expect_mooncake_error(ok + "{'timestamp': 5}\n", 2, "not valid JSON");
  // Text after the object, a comment, and a pretty-printed object (not one object per line).
  expect_mooncake_error(ok + "{\"timestamp\": 5} {}\n", 2, "not valid JSON");
  expect_mooncake_error("# a comment\n", 1, "not valid JSON");
  expect_mooncake_error("{\n  \"timestamp\": 0\n}\n", 1, "expected one JSON object per line");
  expect_mooncake_error(ok + "[1, 2]\n", 2, "not a JSON object but an array");
  expect_mooncake_error(ok + "7\n", 2, "not a JSON object but a number");
  expect_mooncake_error(ok + "null\n", 2, "not a JSON object but null");
  expect_mooncake_error(ok + "{\"timestamp\": 1e999}\n", 2, "not valid JSON");
}

TEST(MooncakeReader, MissingKey) {
  const std::string ok = mooncake_line("1");
  expect_mooncake_error(ok + ok + "{\"input_length\": 1, \"output_length\": 1, \"hash_ids\": []}\n",
                        3, "missing key \"timestamp\"");
  expect_mooncake_error("{\"timestamp\": 1, \"output_length\": 1, \"hash_ids\": []}\n", 1,
                        "missing key \"input_length\"; expected an object with timestamp, "
                        "input_length, output_length and hash_ids");
  expect_mooncake_error("{\"timestamp\": 1, \"input_length\": 1, \"hash_ids\": []}\n", 1,
                        "missing key \"output_length\"");
  expect_mooncake_error("{\"timestamp\": 1, \"input_length\": 1, \"output_length\": 1}\n", 1,
                        "missing key \"hash_ids\"");
  expect_mooncake_error("{}\n", 1, "missing key \"timestamp\"");
  // A misspelt key is an unknown key, so the real one is missing.
  expect_mooncake_error(
      "{\"timestamp\": 1, \"input_len\": 1, \"output_length\": 1, \"hash_ids\": []}\n", 1,
      "missing key \"input_length\"");
}

TEST(MooncakeReader, WrongType) {
  const std::string ok = mooncake_line("1");
  const std::string rest = ", \"output_length\": 2, \"hash_ids\": [1]}\n";
  expect_mooncake_error(ok + ok + "{\"timestamp\": \"5\", \"input_length\": 1" + rest, 3,
                        "timestamp is a string \"5\"; expected a number >= 0");
  expect_mooncake_error("{\"timestamp\": 5, \"input_length\": 10.5" + rest, 1,
                        "input_length is 10.5; expected an integer >= 1");
  expect_mooncake_error("{\"timestamp\": 5, \"input_length\": 1e3" + rest, 1,
                        "input_length is 1e3; expected an integer >= 1");
  expect_mooncake_error("{\"timestamp\": 5, \"input_length\": true" + rest, 1,
                        "input_length is true; expected an integer >= 1");
  expect_mooncake_error("{\"timestamp\": 5, \"input_length\": [1]" + rest, 1,
                        "input_length is an array");
  expect_mooncake_error(
      "{\"timestamp\": 5, \"input_length\": 1, \"output_length\": null, \"hash_ids\": []}\n", 1,
      "output_length is null; expected an integer >= 0");
  expect_mooncake_error(
      "{\"timestamp\": {}, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": []}\n", 1,
      "timestamp is an object; expected a number >= 0");
  const std::string head = "{\"timestamp\": 5, \"input_length\": 1, \"output_length\": 1, ";
  expect_mooncake_error(head + "\"hash_ids\": 5}\n", 1,
                        "hash_ids is 5; expected an array of integers >= 0");
  expect_mooncake_error(head + "\"hash_ids\": \"1,2\"}\n", 1, "hash_ids is a string \"1,2\"");
  expect_mooncake_error(head + "\"hash_ids\": {\"0\": 1}}\n", 1, "hash_ids is an object");
  expect_mooncake_error(head + "\"hash_ids\": [1, \"2\"]}\n", 1,
                        "hash_ids[1] is a string \"2\"; expected an integer >= 0");
  expect_mooncake_error(head + "\"hash_ids\": [1, 2, 2.5]}\n", 1, "hash_ids[2] is 2.5");
  expect_mooncake_error(head + "\"hash_ids\": [[1]]}\n", 1, "hash_ids[0] is an array");
  expect_mooncake_error(head + "\"hash_ids\": [null]}\n", 1, "hash_ids[0] is null");
}

TEST(MooncakeReader, NegativeOrZeroLength) {
  const std::string ok = mooncake_line("1");
  const std::string rest = ", \"output_length\": 2, \"hash_ids\": [1]}\n";
  expect_mooncake_error(ok + ok + "{\"timestamp\": 5, \"input_length\": -5" + rest, 3,
                        "input_length is -5; expected an integer >= 1");
  expect_mooncake_error("{\"timestamp\": 5, \"input_length\": 0" + rest, 1,
                        "input_length is 0; expected an integer >= 1");
  expect_mooncake_error(
      "{\"timestamp\": 5, \"input_length\": 1, \"output_length\": -1, \"hash_ids\": []}\n", 1,
      "output_length is -1; expected an integer >= 0");
  expect_mooncake_error(
      "{\"timestamp\": -1, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": []}\n", 1,
      "timestamp is -1; expected a number >= 0");
  expect_mooncake_error(
      "{\"timestamp\": -0.5, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": []}\n", 1,
      "timestamp is -0.5; expected a number >= 0");
  expect_mooncake_error(
      "{\"timestamp\": 0, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [3, -3]}\n", 1,
      "hash_ids[1] is -3; expected an integer >= 0");
  expect_mooncake_error(
      "{\"timestamp\": 0, \"input_length\": 18446744073709551616, \"output_length\": 1, "
      "\"hash_ids\": []}\n",
      1, "input_length is 18446744073709551616 (more than 64 bits); expected an integer >= 1");
}

// Past 2^30 tokens (the synthetic prompts' bound) a prompt is refused: 2^64 - 1 made the prefill
// generator's block count wrap to 0, a prompt that moved nothing.
TEST(MooncakeReader, InputLengthBound) {
  const std::string tail = ", \"output_length\": 1, \"hash_ids\": [1]}\n";
  expect_mooncake_error("{\"timestamp\": 0, \"input_length\": 1073741825" + tail, 1,
                        "input_length is 1073741825; expected an integer >= 1 and at most "
                        "1073741824 (2^30 tokens)");
  expect_mooncake_error("{\"timestamp\": 0, \"input_length\": 18446744073709551615" + tail, 1,
                        "input_length is 18446744073709551615");
  // The largest that fits.
  const TempFile t(
      "{\"timestamp\": 0, \"input_length\": 1073741824, \"output_length\": 1, "
      "\"hash_ids\": [3]}\n");
  expect_records(read_mooncake(t.path()), {mooncake(0, 1073741824, 1, {3}, 1)});
}

TEST(MooncakeReader, DuplicateKey) {
  expect_mooncake_error(
      "{\"timestamp\": 0, \"input_length\": 1, \"input_length\": 2, \"output_length\": 1, "
      "\"hash_ids\": []}\n",
      1, "duplicate key \"input_length\"; expected each key once");
}

TEST(MooncakeReader, DecreasingTimestamp) {
  expect_mooncake_error(mooncake_line("1000") + "\n" + mooncake_line("999.5"), 3,
                        "timestamp 999.5 ms is earlier than the previous request's 1000 ms; "
                        "expected timestamps that never decrease");
  // Equal timestamps are fine (simultaneous arrivals, as in the published traces).
  TempFile t(mooncake_line("7") + mooncake_line("7") + mooncake_line("7.0"));
  EXPECT_EQ(read_mooncake(t.path()).size(), 3u);
}

TEST(MooncakeReader, LineLongerThanLimit) {
  std::string text = mooncake_line("1") + "{\"timestamp\": 2, \"pad\": \"" +
                     std::string(MooncakeReader::kMaxLineBytes, 'x') + "\"}\n";
  TempFile t(text, ".jsonl");
  EXPECT_THAT((reader_error_of<MooncakeReader, MooncakeRecord>(t.path())),
              StartsWith(t.path() + ":2: line longer than 16777216 bytes"));
}

// ---------------------------------------------------------------------------------------------
// Timed access trace, well-formed

// Rounding of TIME to the nearest ps: .0004 ns = 0.4 ps rounds down, .0005 ns (half) up, and
// .9996 ns carries into the next ns. Comments, blank lines, tabs, lower-case ops, 0X, leading
// zeros, CRLF, the largest GPU index, address and size, and a last line without a newline.
const char* const kTimedSample =
    "# famsim timed access trace\n"
    "1250 0 R 0x7f0000001000 64\n"
    "\n"
    "  1250.0004\t3\tW\t0x10 128  \n"
    "1250.0005 1 r 0X00000000000000000abc 1\r\n"
    "   # indented comment\n"
    "1250.5 2 w 0xffffffffffffffff 2147483648\n"
    "1250.9996 4294967295 R 0x0 4096\n"
    "0001251 007 W 0xABCdef 32";

std::vector<TimedAccess> timed_sample_accesses() {
  return {
      access(1250000, 0, false, 0x7f0000001000, 64, 2),
      access(1250000, 3, true, 0x10, 128, 4),
      access(1250001, 1, false, 0xabc, 1, 5),
      access(1250500, 2, true, 0xffffffffffffffffULL, 2147483648u, 7),
      access(1251000, 4294967295u, false, 0, 4096, 8),
      access(1251000, 7, true, 0xabcdef, 32, 9),
  };
}

TEST(TimedTraceReader, AccessesAsWritten) {
  TempFile t(kTimedSample);
  TimedTraceReader reader(t.path());
  EXPECT_EQ(reader.path(), t.path());
  expect_accesses(read_timed(t.path()), timed_sample_accesses());
}

TEST(TimedTraceReader, RecordsStraddleReadBlocks) {
  TempFile t(kTimedSample);
  for (std::size_t block : {1, 2, 3, 7, 64}) {
    SCOPED_TRACE("block_bytes " + std::to_string(block));
    expect_accesses(read_timed(t.path(), block), timed_sample_accesses());
  }
}

TEST(TimedTraceReader, TimeLimits) {
  // 2^64 - 1 ps = 18446744073709551.615 ns is the latest time; one ps more does not fit.
  TempFile t("0 0 R 0x0 1\n18446744073709551.615 0 R 0x0 1\n");
  expect_accesses(read_timed(t.path()), {access(0, 0, false, 0, 1, 1),
                                         access(18446744073709551615ULL, 0, false, 0, 1, 2)});
  expect_timed_error("18446744073709551.6155 0 R 0x0 1\n", 1, "too large");
  expect_timed_error("18446744073709552 0 R 0x0 1\n", 1, "too large");
  expect_timed_error("99999999999999999999999 0 R 0x0 1\n", 1, "too large");
}

TEST(TimedTraceReader, EmptyFileHasNoAccesses) {
  TempFile empty("");
  EXPECT_TRUE(read_timed(empty.path()).empty());
  TempFile comments("# nothing\n\n  \t\r\n");
  EXPECT_TRUE(read_timed(comments.path()).empty());
}

TEST(TimedTraceReader, UnreadableFile) {
  const std::string missing = temp_path(".trace");
  try {
    TimedTraceReader reader(missing);
    FAIL() << "opening a missing file should throw";
  } catch (const TraceError& e) {
    EXPECT_THAT(std::string(e.what()), StartsWith(missing + ": cannot open"));
  }
  EXPECT_THROW(TimedTraceReader reader(::testing::TempDir()), TraceError);
}

// ---------------------------------------------------------------------------------------------
// Timed access trace, malformed

const std::string kTimedOk = "10 0 R 0x1000 64\n";

TEST(TimedTraceReader, BadOp) {
  expect_timed_error(kTimedOk + kTimedOk + "20 0 X 0x1000 64\n", 3,
                     "unknown op \"X\"; expected R or W");
  expect_timed_error("20 0 RD 0x1000 64\n", 1, "unknown op \"RD\"");
  expect_timed_error("20 0 read 0x1000 64\n", 1, "unknown op \"read\"");
  expect_timed_error("20 0 0x1000 64\n", 1, "unknown op \"0x1000\"");
}

TEST(TimedTraceReader, BadHex) {
  expect_timed_error(kTimedOk + kTimedOk + "20 0 R 0x12g4 64\n", 3,
                     "malformed address \"0x12g4\"; expected 0x followed by hex digits");
  expect_timed_error("20 0 R 0x 64\n", 1, "malformed address \"0x\"");
  expect_timed_error("20 0 R 1000 64\n", 1, "malformed address \"1000\"");
  expect_timed_error("20 0 R x1000 64\n", 1, "malformed address \"x1000\"");
  expect_timed_error("20 0 R -0x10 64\n", 1, "malformed address");
  expect_timed_error("20 0 R 0x10000000000000000 64\n", 1,
                     "address \"0x10000000000000000\" does not fit in 64 bits");
  // Leading zeros do not count against the 64 bits.
  TempFile t("20 0 R 0x00000000000000000001 64\n");
  EXPECT_EQ(read_timed(t.path()).at(0).va, 1u);
}

TEST(TimedTraceReader, SizeOutOfRange) {
  expect_timed_error(kTimedOk + kTimedOk + "20 0 R 0x1000 0\n", 3,
                     "size \"0\" out of range; expected 1 to 2147483648 bytes");
  expect_timed_error("20 0 R 0x1000 2147483649\n", 1, "size \"2147483649\" out of range");
  expect_timed_error("20 0 R 0x1000 99999999999999999999999\n", 1, "out of range");
  expect_timed_error("20 0 R 0x1000 -64\n", 1, "malformed size \"-64\"");
  expect_timed_error("20 0 R 0x1000 0x40\n", 1, "malformed size \"0x40\"");
  expect_timed_error("20 0 R 0x1000 64.0\n", 1, "malformed size \"64.0\"");
}

TEST(TimedTraceReader, MissingField) {
  expect_timed_error(kTimedOk + kTimedOk + "20 0 R 0x1000\n", 3,
                     "missing SIZE after the address; expected TIME_NS GPU OP ADDRESS SIZE");
  expect_timed_error("20 0 R\n", 1, "missing ADDRESS after the op");
  expect_timed_error("20 0 \t \n", 1, "missing OP after the GPU");
  expect_timed_error("20\n", 1, "missing GPU after the time");
  expect_timed_error("20 0 R 0x1000\r\n", 1, "missing SIZE");
}

TEST(TimedTraceReader, TrailingText) {
  expect_timed_error(kTimedOk + kTimedOk + "20 0 R 0x1000 64 extra\n", 3,
                     "unexpected \"extra\" after the size; expected end of line");
  expect_timed_error("20 0 R 0x1000 64 # comment\n", 1, "unexpected \"#\"");
  expect_timed_error("20 0 R 0x1000 64 128\n", 1, "unexpected \"128\"");
  expect_timed_error("20 0 R 0x1000 64x\n", 1, "malformed size \"64x\"");
  expect_timed_error(std::string("20 0 R 0x1000 64\0\n", 18), 1, "malformed size \"64\\x00\"");
}

TEST(TimedTraceReader, DecreasingTime) {
  expect_timed_error("10 0 R 0x0 1\n# c\n9.999 0 R 0x0 1\n", 3,
                     "time 9.999 ns is earlier than the previous access's 10 ns; expected times "
                     "that never decrease");
  // Compared after rounding: 9.9994 ns is 9999 ps, earlier; 9.9995 ns is 10000 ps, equal: fine.
  expect_timed_error("10 0 R 0x0 1\n10 1 R 0x0 1\n9.9994 0 R 0x0 1\n", 3,
                     "time 9.999 ns is earlier than the previous access's 10 ns");
  TempFile equal("10 0 R 0x0 1\n9.9995 1 W 0x0 1\n");
  expect_accesses(read_timed(equal.path()),
                  {access(10000, 0, false, 0, 1, 1), access(10000, 1, true, 0, 1, 2)});
}

TEST(TimedTraceReader, GpuNotANumber) {
  expect_timed_error(kTimedOk + kTimedOk + "20 g0 R 0x1000 64\n", 3,
                     "gpu \"g0\" is not a number; expected a decimal GPU index");
  expect_timed_error("20 -1 R 0x1000 64\n", 1, "gpu \"-1\" is not a number");
  expect_timed_error("20 1.5 R 0x1000 64\n", 1, "gpu \"1.5\" is not a number");
  expect_timed_error("20 0x1 R 0x1000 64\n", 1, "gpu \"0x1\" is not a number");
  expect_timed_error("20 4294967296 R 0x1000 64\n", 1,
                     "gpu \"4294967296\" too large; expected a GPU index below 4294967296");
}

TEST(TimedTraceReader, MalformedTime) {
  expect_timed_error(kTimedOk + kTimedOk + "2O 0 R 0x1000 64\n", 3,
                     "malformed time \"2O\"; expected nanoseconds");
  expect_timed_error("1250. 0 R 0x1000 64\n", 1, "malformed time \"1250.\"");
  expect_timed_error(".5 0 R 0x1000 64\n", 1, "malformed time \".5\"");
  expect_timed_error("-5 0 R 0x1000 64\n", 1, "malformed time \"-5\"");
  expect_timed_error("+5 0 R 0x1000 64\n", 1, "malformed time \"+5\"");
  expect_timed_error("1e3 0 R 0x1000 64\n", 1, "malformed time \"1e3\"");
  expect_timed_error("1.2.3 0 R 0x1000 64\n", 1, "malformed time \"1.2.3\"");
  expect_timed_error("R 0 0x1000 64\n", 1, "malformed time \"R\"");
}

// ---------------------------------------------------------------------------------------------
// Streams through a FIFO: the reader sees a file it cannot seek or size, and memory stays bounded
// however long the stream is.

std::uint64_t resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long long size = 0, resident = 0;
  const int n = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  return n == 2 ? resident * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)) : 0;
}

constexpr std::uint64_t kRssSlackBytes = std::uint64_t{64} << 20;

// A FIFO in the temp directory and a thread writing blocks into it. The writer stops early if the
// reader goes away (EPIPE; SIGPIPE is ignored meanwhile), and the destructor unblocks a writer
// still waiting for a reader to open the FIFO, so a failing test cannot hang.
class FifoWriter {
 public:
  // next_block(buffer) fills buffer with the next block and returns false when there is none.
  template <typename NextBlock>
  explicit FifoWriter(NextBlock next_block) : path_(temp_path(".fifo")) {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    ::sigaction(SIGPIPE, &ignore, &old_sigpipe_);
    if (::mkfifo(path_.c_str(), 0600) != 0) {
      ADD_FAILURE() << "mkfifo " << path_ << ": " << std::strerror(errno);
      return;
    }
    thread_ = std::thread([this, next_block]() mutable {
      const int fd = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
      if (fd < 0) return;
      (void)::fcntl(fd, F_SETPIPE_SZ, 1 << 20);  // fewer context switches; a hint
      std::string block;
      while (next_block(block)) {
        const char* p = block.data();
        std::size_t left = block.size();
        while (left != 0) {
          const ssize_t n = ::write(fd, p, left);
          if (n < 0 && errno == EINTR) continue;
          if (n <= 0) {
            ::close(fd);
            return;  // the reader has gone
          }
          p += n;
          left -= static_cast<std::size_t>(n);
          written_ += static_cast<std::uint64_t>(n);
        }
      }
      ::close(fd);
    });
  }

  ~FifoWriter() {
    if (thread_.joinable()) {
      // A writer still blocked in open() needs a reader to have come and gone.
      const int fd = ::open(path_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
      if (fd >= 0) ::close(fd);
      thread_.join();
    }
    std::remove(path_.c_str());
    ::sigaction(SIGPIPE, &old_sigpipe_, nullptr);
  }

  const std::string& path() const { return path_; }
  // Bytes written; read it only after join().
  std::uint64_t written() const { return written_; }
  void join() {
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::string path_;
  struct sigaction old_sigpipe_ {};
  std::thread thread_;
  std::uint64_t written_ = 0;
};

TEST(TimedTraceReader, StreamsOneGibibyteThroughAFifoInBoundedMemory) {
  // Every line is 32 bytes, "BBBBBIIII.F G O 0xAAAAAAAAAA SS\n": a block of 2048 lines is 64 KiB
  // and 16384 blocks are exactly 1 GiB. Line i of block b is at (b * 10000 + i).F ns, F = i % 10,
  // so times rise within and across blocks; only the five digits of b change between blocks.
  constexpr std::size_t kLineBytes = 32;
  constexpr std::size_t kLinesPerBlock = 2048;
  constexpr std::uint64_t kBlocks = (std::uint64_t{1} << 30) / (kLineBytes * kLinesPerBlock);
  static_assert(kBlocks * kLinesPerBlock * kLineBytes == std::uint64_t{1} << 30);
  static const char kOps[] = "RWrw";
  static const unsigned kSizes[] = {64, 32, 16, 99, 10, 48, 96, 80};

  std::string templ;
  std::uint64_t block_bytes = 0, block_va = 0, block_writes = 0, block_time_ps = 0;
  for (std::size_t i = 0; i < kLinesPerBlock; ++i) {
    const unsigned gpu = static_cast<unsigned>(i % 8);
    const char op = kOps[i % 4];
    const std::uint64_t va = (i * 0x9E3779B97F4A7C15ULL >> 20) & 0xffffffffffULL;  // 40 bits
    const unsigned size = kSizes[(i / 3) % 8];
    const char sep = i % 2 == 0 ? ' ' : '\t';
    char line[kLineBytes + 1];
    const int n =
        std::snprintf(line, sizeof line, "00000%04zu.%zu%c%u%c%c%c0x%010llx%c%u\n", i, i % 10, sep,
                      gpu, sep, op, sep, static_cast<unsigned long long>(va), sep, size);
    ASSERT_EQ(n, static_cast<int>(kLineBytes));
    templ.append(line, kLineBytes);
    block_bytes += size;
    block_va += va;
    block_writes += op == 'W' || op == 'w';
    block_time_ps += i * 1000 + (i % 10) * 100;  // the block's own part: b * 10^7 ps per line
  }

  const std::uint64_t rss_before = resident_bytes();
  ASSERT_GT(rss_before, 0u) << "/proc/self/statm unreadable";
  std::uint64_t count = 0, sum_bytes = 0, sum_va = 0, writes = 0, sum_time_ps = 0;
  std::uint64_t last_time_ps = 0, lines_in_order = 0;
  {
    std::uint64_t b = 0;
    FifoWriter writer([&templ, &b](std::string& block) {
      if (b == kBlocks) return false;
      if (block.empty()) block = templ;
      char digits[6];
      std::snprintf(digits, sizeof digits, "%05llu", static_cast<unsigned long long>(b));
      for (std::size_t i = 0; i < kLinesPerBlock; ++i)
        std::memcpy(&block[i * kLineBytes], digits, 5);
      ++b;
      return true;
    });
    TimedTraceReader reader(writer.path());
    TimedAccess a;
    while (reader.next(a)) {
      ++count;
      sum_bytes += a.bytes;
      sum_va += a.va;
      writes += a.write;
      sum_time_ps += a.time_ps;
      last_time_ps = a.time_ps;
      lines_in_order += a.line == count;
    }
    const std::uint64_t rss_after = resident_bytes();
    EXPECT_LT(rss_after, rss_before + kRssSlackBytes)
        << "resident set grew from " << rss_before << " to " << rss_after << " bytes";
    writer.join();
    EXPECT_EQ(writer.written(), std::uint64_t{1} << 30);
  }
  const std::uint64_t lines = kBlocks * kLinesPerBlock;
  EXPECT_EQ(count, lines);
  EXPECT_EQ(count, std::uint64_t{1} << 25);
  EXPECT_EQ(lines_in_order, lines);
  EXPECT_EQ(sum_bytes, block_bytes * kBlocks);
  EXPECT_EQ(sum_va, block_va * kBlocks);
  EXPECT_EQ(writes, block_writes * kBlocks);
  // Block b adds 2048 * b * 10^7 ps to its own part; sum over b = 0 .. kBlocks - 1.
  EXPECT_EQ(sum_time_ps, block_time_ps * kBlocks +
                             kLinesPerBlock * 10'000'000ULL * (kBlocks * (kBlocks - 1) / 2));
  EXPECT_EQ(last_time_ps, ((kBlocks - 1) * 10000 + 2047) * 1000 + 7 * 100);
}

TEST(MooncakeReader, Streams64MiBThroughAFifoInBoundedMemory) {
  // A block of 64 requests of 0 to 252 hash ids each (up to ~1.8 KiB a line, as a 128K-token
  // prompt), repeated with the timestamp's block digits changed, until 64 MiB have been written.
  // Request i of block b arrives at 10^9 + b * 1000 + i ms: ten digits "1BBBBBBIII" (JSON allows
  // no leading zeros, so the leading 1 keeps the width fixed).
  constexpr std::size_t kLinesPerBlock = 64;
  constexpr std::uint64_t kTargetBytes = std::uint64_t{64} << 20;
  std::string templ;
  std::vector<std::size_t> stamp_at;  // offset of each line's six block digits
  std::uint64_t block_input = 0, block_output = 0, block_ids = 0, block_id_sum = 0;
  std::uint64_t block_time = 0;
  for (std::size_t i = 0; i < kLinesPerBlock; ++i) {
    const std::size_t ids = (i * 37) % 253;
    const std::uint64_t input = ids == 0 ? 1 + i : ids * 512 - i;
    const std::uint64_t output = (i * 97) % 600;
    templ += "{\"timestamp\": ";
    stamp_at.push_back(templ.size() + 1);
    char stamp[16];
    std::snprintf(stamp, sizeof stamp, "1000000%03zu", i);
    templ += stamp;
    templ += ", \"input_length\": " + std::to_string(input) +
             ", \"output_length\": " + std::to_string(output);
    if (i % 5 == 0) templ += ", \"session\": {\"turn\": " + std::to_string(i) + "}";
    templ += ", \"hash_ids\": [";
    for (std::size_t j = 0; j < ids; ++j) {
      const std::uint64_t id = i * 100000 + j;
      templ += (j == 0 ? "" : ", ") + std::to_string(id);
      block_id_sum += id;
    }
    templ += "]}\n";
    block_input += input;
    block_output += output;
    block_ids += ids;
    block_time += i;
  }
  const std::uint64_t blocks = (kTargetBytes + templ.size() - 1) / templ.size();
  ASSERT_LT(blocks, 1000000u);  // six block digits

  const std::uint64_t rss_before = resident_bytes();
  ASSERT_GT(rss_before, 0u) << "/proc/self/statm unreadable";
  std::uint64_t count = 0, sum_input = 0, sum_output = 0, ids = 0, id_sum = 0;
  double sum_time = 0;
  {
    std::uint64_t b = 0;
    FifoWriter writer([&templ, &stamp_at, &b, blocks](std::string& block) {
      if (b == blocks) return false;
      if (block.empty()) block = templ;
      char digits[8];
      std::snprintf(digits, sizeof digits, "%06llu", static_cast<unsigned long long>(b));
      for (std::size_t at : stamp_at) std::memcpy(&block[at], digits, 6);
      ++b;
      return true;
    });
    MooncakeReader reader(writer.path());
    MooncakeRecord r;
    while (reader.next(r)) {
      ++count;
      sum_input += r.input_length;
      sum_output += r.output_length;
      ids += r.hash_ids.size();
      for (std::uint64_t id : r.hash_ids) id_sum += id;
      sum_time += r.timestamp_ms;
    }
    const std::uint64_t rss_after = resident_bytes();
    EXPECT_LT(rss_after, rss_before + kRssSlackBytes)
        << "resident set grew from " << rss_before << " to " << rss_after << " bytes";
    writer.join();
    EXPECT_EQ(writer.written(), blocks * templ.size());
    EXPECT_GE(writer.written(), kTargetBytes);
  }
  EXPECT_EQ(count, blocks * kLinesPerBlock);
  EXPECT_EQ(sum_input, block_input * blocks);
  EXPECT_EQ(sum_output, block_output * blocks);
  EXPECT_EQ(ids, block_ids * blocks);
  EXPECT_EQ(id_sum, block_id_sum * blocks);
  // Integers below 2^53 throughout: the double sum is exact.
  EXPECT_EQ(sum_time,
            static_cast<double>(kLinesPerBlock * blocks * 1'000'000'000ULL + block_time * blocks +
                                kLinesPerBlock * 1000 * (blocks * (blocks - 1) / 2)));
}

}  // namespace
}  // namespace famsim
