// Trace readers: each format parsed from hand-written files to records worked out by hand, every
// error class naming file and line, line-ending and block-boundary cases, rewind.
#include "traffic/trace/trace_reader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace famsim {
namespace {

// A trace file in the test temp directory, removed when the test ends. The name carries the test
// name and the process id: ctest runs tests in parallel processes.
class TempTrace {
 public:
  TempTrace(const std::string& content, const std::string& extension = ".trace") {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = ::testing::TempDir() + "famsim_" + info->test_suite_name() + "_" + info->name() + "_" +
            std::to_string(::getpid()) + "_" + std::to_string(counter_++) + extension;
    std::ofstream out(path_, std::ios::binary);
    out << content;
  }
  ~TempTrace() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  static inline int counter_ = 0;
  std::string path_;
};

TraceRecord untimed(std::uint64_t address, bool write) {
  TraceRecord r;
  r.address = address;
  r.write = write;
  return r;
}

TraceRecord timed(std::uint64_t time, std::uint64_t address, bool write, unsigned length = 0,
                  unsigned data_bytes = 0, bool relative = false) {
  TraceRecord r;
  r.address = address;
  r.write = write;
  r.has_time = true;
  r.relative_time = relative;
  r.time = time;
  r.length = length;
  r.data_bytes = data_bytes;
  return r;
}

bool same(const TraceRecord& a, const TraceRecord& b) {
  return a.address == b.address && a.write == b.write && a.has_time == b.has_time &&
         a.relative_time == b.relative_time && a.time == b.time && a.length == b.length &&
         a.data_bytes == b.data_bytes;
}

std::string show(const TraceRecord& r) {
  char text[200];
  std::snprintf(text, sizeof text, "{0x%llx %s has_time=%d rel=%d time=%llu len=%u data=%u}",
                static_cast<unsigned long long>(r.address), r.write ? "W" : "R", r.has_time,
                r.relative_time, static_cast<unsigned long long>(r.time), r.length, r.data_bytes);
  return text;
}

std::vector<TraceRecord> read_all(TraceReader& reader) {
  std::vector<TraceRecord> out;
  TraceRecord r;
  while (reader.next(r)) out.push_back(r);
  return out;
}

std::vector<TraceRecord> read_all(const std::string& path, TraceFormat format,
                                  std::size_t block_bytes = TraceReader::kDefaultBlockBytes) {
  TraceReader reader(path, format, block_bytes);
  return read_all(reader);
}

void expect_records(const std::vector<TraceRecord>& got, const std::vector<TraceRecord>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_TRUE(same(got[i], want[i]))
        << "record " << i << ": got " << show(got[i]) << ", want " << show(want[i]);
  }
}

// Reads until the reader throws; returns the message (empty if it never threw).
std::string error_of(const std::string& path, TraceFormat format) {
  try {
    TraceReader reader(path, format);
    TraceRecord r;
    while (reader.next(r)) {
    }
  } catch (const TraceError& e) {
    return e.what();
  }
  return "";
}

// The error names FILE:LINE and carries the given words.
void expect_error(const std::string& content, TraceFormat format, int line,
                  const std::string& words, const std::string& extension = ".trace") {
  TempTrace t(content, extension);
  const std::string msg = error_of(t.path(), format);
  const std::string where = t.path() + ":" + std::to_string(line) + ": ";
  EXPECT_EQ(msg.rfind(where, 0), 0u) << "message \"" << msg << "\" should start with " << where;
  EXPECT_NE(msg.find(words), std::string::npos) << "message \"" << msg << "\" lacks " << words;
}

TEST(TraceReader, FormatNames) {
  EXPECT_EQ(parse_trace_format("ramulator"), TraceFormat::kRamulator);
  EXPECT_EQ(parse_trace_format("dramsim3"), TraceFormat::kDramsim3);
  EXPECT_EQ(parse_trace_format("dramsys"), TraceFormat::kDramsys);
  EXPECT_FALSE(parse_trace_format("DRAMSys").has_value());
  EXPECT_FALSE(parse_trace_format("").has_value());
  EXPECT_STREQ(to_string(TraceFormat::kDramsim3), "dramsim3");
}

TEST(TraceReader, RamulatorRecords) {
  TempTrace t(
      "LD 0x10\n"
      "ST 0X1f\n"
      "LD 4096\n"
      "\n"
      "  ST\t0xFFFFFFFFFFFFFFFF  \n"
      "LD 0\n");
  TraceReader reader(t.path(), TraceFormat::kRamulator);
  EXPECT_EQ(reader.line(), 0u);
  TraceRecord r;
  ASSERT_TRUE(reader.next(r));
  EXPECT_EQ(reader.line(), 1u);
  expect_records(read_all(reader), {untimed(0x1f, true), untimed(4096, false),
                                    untimed(0xffffffffffffffffULL, true), untimed(0, false)});
  EXPECT_EQ(reader.line(), 6u);  // the blank line 4 counts
}

TEST(TraceReader, Dramsim3Records) {
  // Multiple spaces between fields, as in DRAMsim3's tests/example.trace.
  TempTrace t(
      "0x1FF96FC0 READ   160\n"
      "0x2000d600 WRITE  165\n"
      "2000A340 P_MEM_RD 165\n"
      "0x40 P_MEM_WR 200\n"
      "0x80 read 201\n"
      "0xc0 write 202\n"
      "0x100 P_FETCH 203\n"
      "0x140 BOFF 204\n"
      "0x180 P_LOCK_RD 205\n"
      "0x1c0 P_LOCK_WR 206\n");
  expect_records(read_all(t.path(), TraceFormat::kDramsim3),
                 {timed(160, 0x1ff96fc0, false), timed(165, 0x2000d600, true),
                  timed(165, 0x2000a340, false), timed(200, 0x40, true), timed(201, 0x80, false),
                  timed(202, 0xc0, true), timed(203, 0x100, false), timed(204, 0x140, true),
                  timed(205, 0x180, false), timed(206, 0x1c0, false)});
}

TEST(TraceReader, DramsysRecords) {
  // The syntax example of DRAMSys configs/README.md, with comments, a blank line and a length.
  TempTrace t(
      "# Comment lines begin with #\n"
      "# cycle: [(length)] command hex-address [hex-data]\n"
      "31: read 0x400140\n"
      "33: read 0x400160\n"
      "\n"
      "56: write 0x7fff8000 0x0123456789abcdef\n"
      "81: (128) read 0x400180\n"
      "  81:\t(4) write 400200 0xDEADBEEF\n"
      "   # an indented comment\n"
      "90: write 0x0\n",
      ".stl");
  TraceReader reader(t.path(), TraceFormat::kDramsys);
  EXPECT_FALSE(reader.relative_time());
  expect_records(
      read_all(reader),
      {timed(31, 0x400140, false), timed(33, 0x400160, false), timed(56, 0x7fff8000, true, 0, 8),
       timed(81, 0x400180, false, 128), timed(81, 0x400200, true, 4, 4), timed(90, 0, true)});
  EXPECT_EQ(reader.line(), 10u);
}

TEST(TraceReader, DramsysRelativeTimestampsMayDecrease) {
  // The .rstl example of DRAMSys configs/README.md: delays after the previous request.
  TempTrace t(
      "31: read 0x400140\n"
      "2: (512) read 0x400160\n"
      "23: write 0x7fff8000\n"
      "10: read 0x400180\n",
      ".rstl");
  TraceReader reader(t.path(), TraceFormat::kDramsys);
  EXPECT_TRUE(reader.relative_time());
  expect_records(read_all(reader),
                 {timed(31, 0x400140, false, 0, 0, true), timed(2, 0x400160, false, 512, 0, true),
                  timed(23, 0x7fff8000, true, 0, 0, true), timed(10, 0x400180, false, 0, 0, true)});
}

TEST(TraceReader, HexAddressesOfEveryLength) {
  // The hex parser works eight characters at a time; std::stoull checks it for every digit count,
  // both letter cases, leading zeros and a read-write word that follows right after the address.
  const std::string digits = "0123456789abcdefABCDEF";
  std::string text;
  std::vector<TraceRecord> want;
  for (std::size_t n = 1; n <= 20; ++n) {
    for (std::size_t start = 0; start < digits.size(); start += 5) {
      std::string hex;
      for (std::size_t i = 0; i < n; ++i) hex += digits[(start + 7 * i) % digits.size()];
      if (n > 16) hex.replace(0, n - 16, n - 16, '0');  // more than 16 digits: leading zeros
      text += "0x" + hex + " READ 1\n";
      want.push_back(timed(1, std::stoull(hex, nullptr, 16), false));
    }
  }
  TempTrace t(text);
  expect_records(read_all(t.path(), TraceFormat::kDramsim3), want);
}

TEST(TraceReader, HexDigitBoundaries) {
  // Characters just outside '0'-'9', 'a'-'f', 'A'-'F', and '0' with the high bit set (0xb0).
  for (const char* bad : {"/", ":", "@", "G", "`", "g", "\xb0", "\xc1"}) {
    for (int at = 0; at < 18; at += 3) {
      std::string hex(static_cast<std::size_t>(at), '7');
      hex += bad;
      SCOPED_TRACE(hex);
      expect_error("0x" + hex + "1 READ 1\n", TraceFormat::kDramsim3, 1, "malformed address");
    }
  }
}

TEST(TraceReader, DecimalNumbersAtTheLimits) {
  // 2^64 - 1 = 18446744073709551615 (20 digits); 2^32 - 1 = 4294967295.
  TempTrace d3(
      "0x1 READ 999999999\n"
      "0x2 READ 1000000000\n"
      "0x3 READ 9999999999999999999\n"
      "0x4 READ 00000000000000000000000018446744073709551615\n");
  expect_records(
      read_all(d3.path(), TraceFormat::kDramsim3),
      {timed(999999999, 1, false), timed(1000000000, 2, false),
       timed(9999999999999999999ULL, 3, false), timed(18446744073709551615ULL, 4, false)});
  TempTrace sys("18446744073709551615: (4294967295) read 0x10\n", ".stl");
  expect_records(read_all(sys.path(), TraceFormat::kDramsys),
                 {timed(18446744073709551615ULL, 0x10, false, 4294967295u)});
  expect_error("0x1 READ 18446744073709551616\n", TraceFormat::kDramsim3, 1,
               "cycle \"18446744073709551616\" does not fit in 64 bits");
  expect_error("18446744073709551616: read 0x10\n", TraceFormat::kDramsys, 1,
               "does not fit in 64 bits", ".stl");
  expect_error("1: (4294967296) read 0x10\n", TraceFormat::kDramsys, 1, "out of range", ".stl");
}

TEST(TraceReader, CrlfLineEndings) {
  TempTrace ram("LD 0x40\r\nST 0x80\r\n\r\n");
  expect_records(read_all(ram.path(), TraceFormat::kRamulator),
                 {untimed(0x40, false), untimed(0x80, true)});
  TempTrace d3("0x40 READ 1\r\n0x80 WRITE 2\r\n");
  expect_records(read_all(d3.path(), TraceFormat::kDramsim3),
                 {timed(1, 0x40, false), timed(2, 0x80, true)});
  TempTrace sys("# c\r\n1: write 0x40 0xabcd\r\n2: read 0x80\r\n", ".stl");
  expect_records(read_all(sys.path(), TraceFormat::kDramsys),
                 {timed(1, 0x40, true, 0, 2), timed(2, 0x80, false)});
}

TEST(TraceReader, LastLineWithoutNewline) {
  TempTrace ram("LD 0x40\nST 123");
  expect_records(read_all(ram.path(), TraceFormat::kRamulator),
                 {untimed(0x40, false), untimed(123, true)});
  TempTrace d3("0x40 READ 1\n0x80 WRITE 2");
  expect_records(read_all(d3.path(), TraceFormat::kDramsim3),
                 {timed(1, 0x40, false), timed(2, 0x80, true)});
  TempTrace sys("1: read 0x40\n2: write 0x80 0x00ff", ".stl");
  expect_records(read_all(sys.path(), TraceFormat::kDramsys),
                 {timed(1, 0x40, false), timed(2, 0x80, true, 0, 2)});
  TempTrace crlf("LD 0x40\r\nST 0x80\r");  // CR but no LF at the very end
  expect_records(read_all(crlf.path(), TraceFormat::kRamulator),
                 {untimed(0x40, false), untimed(0x80, true)});
}

TEST(TraceReader, RecordsStraddleReadBlocks) {
  // A 64-byte write (data line of 150 characters) and short lines, read 7 bytes at a time: every
  // line crosses at least one block boundary and the long one outgrows the first buffer.
  const std::string data = "0x" + std::string(128, 'a');
  const std::string text = "10: read 0x1000\n20: (64) write 0x2000 " + data +
                           "\n# comment longer than one block\n30: read 0x3000\r\n40: read 0x4";
  TempTrace t(text, ".stl");
  const std::vector<TraceRecord> want = {timed(10, 0x1000, false), timed(20, 0x2000, true, 64, 64),
                                         timed(30, 0x3000, false), timed(40, 0x4, false)};
  for (std::size_t block : {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{16},
                            std::size_t{64}, text.size(), TraceReader::kDefaultBlockBytes}) {
    SCOPED_TRACE("block " + std::to_string(block));
    expect_records(read_all(t.path(), TraceFormat::kDramsys, block), want);
  }
}

TEST(TraceReader, RewindStartsAgain) {
  TempTrace t("0x40 READ 5\n0x80 WRITE 9\n");
  TraceReader reader(t.path(), TraceFormat::kDramsim3, 4);
  const std::vector<TraceRecord> want = {timed(5, 0x40, false), timed(9, 0x80, true)};
  expect_records(read_all(reader), want);
  TraceRecord r;
  EXPECT_FALSE(reader.next(r));  // stays at the end
  reader.rewind();
  EXPECT_EQ(reader.line(), 0u);
  // The timestamps start again at 5 after 9: no "decreasing" error across a rewind.
  expect_records(read_all(reader), want);
  // Rewind in the middle of the file.
  reader.rewind();
  ASSERT_TRUE(reader.next(r));
  reader.rewind();
  expect_records(read_all(reader), want);
}

TEST(TraceReader, MoveKeepsPosition) {
  TempTrace t("LD 0x1\nLD 0x2\nLD 0x3\n");
  TraceReader a(t.path(), TraceFormat::kRamulator, 3);
  TraceRecord r;
  ASSERT_TRUE(a.next(r));
  TraceReader b(std::move(a));
  expect_records(read_all(b), {untimed(2, false), untimed(3, false)});
  EXPECT_EQ(b.line(), 3u);
}

TEST(TraceReader, UnreadableFile) {
  const std::string missing =
      ::testing::TempDir() + "famsim_no_such_trace_" + std::to_string(::getpid()) + ".trace";
  try {
    TraceReader reader(missing, TraceFormat::kRamulator);
    FAIL() << "opening a missing file should throw";
  } catch (const TraceError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind(missing + ": cannot open", 0), 0u) << msg;
  }
  EXPECT_THROW(TraceReader(::testing::TempDir(), TraceFormat::kRamulator), TraceError);
}

TEST(TraceReader, EmptyTraceIsAnError) {
  TempTrace empty("");
  EXPECT_NE(error_of(empty.path(), TraceFormat::kRamulator).find("no requests"), std::string::npos);
  TempTrace only_comments("# nothing\n\n", ".stl");
  const std::string msg = error_of(only_comments.path(), TraceFormat::kDramsys);
  EXPECT_EQ(msg.rfind(only_comments.path() + ": no requests", 0), 0u) << msg;
}

TEST(TraceReader, UnknownCommandWord) {
  expect_error("LD 0x1\nLOAD 0x2\n", TraceFormat::kRamulator, 2, "unknown command \"LOAD\"");
  expect_error("ld 0x1\n", TraceFormat::kRamulator, 1, "expected LD or ST");
  expect_error("# comment\n", TraceFormat::kRamulator, 1, "unknown command \"#\"");
  expect_error("0x1 READ 1\n0x2 RD 2\n", TraceFormat::kDramsim3, 2, "unknown command \"RD\"");
  expect_error("0x1 Write 1\n", TraceFormat::kDramsim3, 1, "unknown command \"Write\"");
  expect_error("#c\n1: READ 0x1\n", TraceFormat::kDramsys, 2, "expected read or write", ".stl");
  expect_error("1: (8)read 0x1\n", TraceFormat::kDramsys, 1, "malformed length", ".stl");
}

// A first request line in another format names that format: every line of a trace given with
// the wrong format (or none: ramulator is the default) fails alike, and its own error does not
// say why. A later line, or one no format reads, gets no such hint.
TEST(TraceReader, FirstLineInAnotherFormatNamesIt) {
  expect_error("0x40 READ 10\n", TraceFormat::kRamulator, 1,
               "unknown command \"0x40\"; expected LD or ST; the line is a request of the "
               "dramsim3 format, not of ramulator: expected --trace-format dramsim3");
  expect_error("LD 0x40\n", TraceFormat::kDramsys, 1,
               "the line is a request of the ramulator format, not of dramsys", ".stl");
  expect_error("10: write 0x40\n", TraceFormat::kDramsim3, 1,
               "the line is a request of the dramsys format, not of dramsim3");
  TempTrace later("LD 0x40\n0x40 READ 10\n");
  EXPECT_EQ(error_of(later.path(), TraceFormat::kRamulator).find("is a request of"),
            std::string::npos);
  TempTrace none("LOAD 0x40\n");
  EXPECT_EQ(error_of(none.path(), TraceFormat::kRamulator).find("is a request of"),
            std::string::npos);
}

TEST(TraceReader, MalformedNumbers) {
  expect_error("LD 0x\n", TraceFormat::kRamulator, 1, "malformed address \"0x\"");
  expect_error("LD 0x12g4\n", TraceFormat::kRamulator, 1, "malformed address \"0x12g4\"");
  expect_error("LD 12ab\n", TraceFormat::kRamulator, 1, "malformed address \"12ab\"");
  expect_error("LD -5\n", TraceFormat::kRamulator, 1, "malformed address");
  expect_error("LD 0x10000000000000000\n", TraceFormat::kRamulator, 1, "does not fit in 64 bits");
  expect_error("LD 18446744073709551616\n", TraceFormat::kRamulator, 1, "does not fit in 64 bits");
  expect_error("0xZZ READ 1\n", TraceFormat::kDramsim3, 1, "malformed address \"0xZZ\"");
  expect_error("0x10 READ 1x\n", TraceFormat::kDramsim3, 1, "malformed cycle \"1x\"");
  expect_error("0x10 READ 0x5\n", TraceFormat::kDramsim3, 1, "malformed cycle");
  expect_error("1: read 0xq\n", TraceFormat::kDramsys, 1, "malformed address", ".stl");
  expect_error("x1: read 0x10\n", TraceFormat::kDramsys, 1, "malformed timestamp", ".stl");
  expect_error("1 : read 0x10\n", TraceFormat::kDramsys, 1, "malformed timestamp", ".stl");
  expect_error("1:read 0x10\n", TraceFormat::kDramsys, 1, "malformed timestamp", ".stl");
  expect_error("1: (0) read 0x10\n", TraceFormat::kDramsys, 1, "length \"(0)\"", ".stl");
  expect_error("1: (64 read 0x10\n", TraceFormat::kDramsys, 1, "malformed length", ".stl");
  expect_error("1: write 0x10 0xabc\n", TraceFormat::kDramsys, 1, "malformed write data", ".stl");
  expect_error("1: write 0x10 abcd\n", TraceFormat::kDramsys, 1, "malformed write data", ".stl");
  expect_error("1: (4) write 0x10 0xabcd\n", TraceFormat::kDramsys, 1,
               "write data holds 2 bytes but the length is 4", ".stl");
}

TEST(TraceReader, MissingField) {
  expect_error("LD\n", TraceFormat::kRamulator, 1, "missing address");
  expect_error("LD 0x1\nST   \n", TraceFormat::kRamulator, 2, "missing address");
  expect_error("0x10\n", TraceFormat::kDramsim3, 1, "missing command");
  expect_error("0x10 READ\n", TraceFormat::kDramsim3, 1, "missing cycle");
  expect_error("5:\n", TraceFormat::kDramsys, 1, "missing command", ".stl");
  expect_error("5: (64)\n", TraceFormat::kDramsys, 1, "missing command", ".stl");
  expect_error("5: write\n", TraceFormat::kDramsys, 1, "missing address", ".stl");
  expect_error("read 0x10\n", TraceFormat::kDramsys, 1, "malformed timestamp", ".stl");
}

TEST(TraceReader, TrailingGarbage) {
  expect_error("LD 0x10 extra\n", TraceFormat::kRamulator, 1, "unexpected \"extra\"");
  expect_error("LD 0x10 # comment\n", TraceFormat::kRamulator, 1, "unexpected \"#\"");
  expect_error("0x10 READ 5 7\n", TraceFormat::kDramsim3, 1, "unexpected \"7\"");
  expect_error("1: read 0x10 0xff\n", TraceFormat::kDramsys, 1, "after the address of a read",
               ".stl");
  expect_error("1: write 0x10 0xff 0xee\n", TraceFormat::kDramsys, 1, "after the write data",
               ".stl");
  expect_error(std::string("LD 0x10\nST 0x20\0\n", 17), TraceFormat::kRamulator, 2,
               "malformed address \"0x20\\x00\"");
}

TEST(TraceReader, DecreasingTimestamp) {
  expect_error("0x1 READ 10\n0x2 READ 10\n0x3 READ 9\n", TraceFormat::kDramsim3, 3,
               "timestamp 9 is earlier than the previous request's 10");
  expect_error("5: read 0x1\n# c\n4: read 0x2\n", TraceFormat::kDramsys, 3,
               "expected timestamps that never decrease", ".stl");
}

TEST(TraceReader, LineLongerThanLimit) {
  std::string text = "LD 0x1\nLD 0x" + std::string(TraceReader::kMaxLineBytes, '0') + "\n";
  TempTrace t(text);
  const std::string msg = error_of(t.path(), TraceFormat::kRamulator);
  EXPECT_EQ(msg.rfind(t.path() + ":2: line longer than", 0), 0u) << msg;
}

// scripts/make_trace.py with the given arguments into a temp file; the file's path.
std::string make_trace(const std::string& args, const std::string& extension) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  static int counter = 0;
  const std::string out = ::testing::TempDir() + "famsim_" + info->name() + "_" +
                          std::to_string(::getpid()) + "_" + std::to_string(counter++) + extension;
  const std::string cmd =
      "python3 " + std::string(FAMSIM_SOURCE_DIR) + "/scripts/make_trace.py " + args + " -o " + out;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return out;
}

TEST(TraceReader, MakeTraceScriptWritesWhatTheReadersRead) {
  // Sequential addresses wrap after 256 / 64 = 4 slots from 0x1000; cycle i is floor(i * 3 / 2).
  const std::string common =
      "--pattern sequential --requests 6 --stride-bytes 64 --address-bytes 256 "
      "--base-address 0x1000 ";
  const std::vector<std::uint64_t> addr = {0x1000, 0x1040, 0x1080, 0x10c0, 0x1000, 0x1040};
  const std::vector<std::uint64_t> cycle = {0, 1, 3, 4, 6, 7};

  const std::string ram = make_trace("--format ramulator --read-fraction 1 " + common, ".trace");
  std::vector<TraceRecord> want;
  for (std::uint64_t a : addr) want.push_back(untimed(a, false));
  expect_records(read_all(ram, TraceFormat::kRamulator), want);

  const std::string d3 = make_trace(
      "--format dramsim3 --read-fraction 0 --cycles-per-request 3/2 " + common, ".trace");
  want.clear();
  for (std::size_t i = 0; i < addr.size(); ++i) want.push_back(timed(cycle[i], addr[i], true));
  expect_records(read_all(d3, TraceFormat::kDramsim3), want);

  const std::string sys =
      make_trace("--format dramsys --read-fraction 1 --cycles-per-request 1.5 " + common, ".stl");
  want.clear();
  for (std::size_t i = 0; i < addr.size(); ++i) want.push_back(timed(cycle[i], addr[i], false));
  expect_records(read_all(sys, TraceFormat::kDramsys), want);

  for (const std::string& f : {ram, d3, sys}) std::remove(f.c_str());
}

TEST(TraceReader, MakeTraceScriptIsSeeded) {
  const std::string common =
      "--format dramsim3 --pattern random --requests 2000 --stride-bytes 128 "
      "--address-bytes 1MiB --base-address 0x40000000 --read-fraction 0.75 ";
  const std::string a = make_trace(common + "--seed 5", ".trace");
  const std::string b = make_trace(common + "--seed 5", ".trace");
  const std::string c = make_trace(common + "--seed 6", ".trace");
  const auto ra = read_all(a, TraceFormat::kDramsim3);
  const auto rb = read_all(b, TraceFormat::kDramsim3);
  const auto rc = read_all(c, TraceFormat::kDramsim3);
  ASSERT_EQ(ra.size(), 2000u);
  expect_records(rb, ra);  // same seed, same trace
  std::size_t same_address = 0, writes = 0;
  for (std::size_t i = 0; i < ra.size(); ++i) {
    EXPECT_EQ(ra[i].time, i);
    EXPECT_EQ(ra[i].address % 128, 0u);
    EXPECT_GE(ra[i].address, 0x40000000u);
    EXPECT_LT(ra[i].address, 0x40000000u + (1u << 20));
    same_address += ra[i].address == rc[i].address;
    writes += ra[i].write;
  }
  // Another seed: 8192 slots, so two independent draws agree with probability 1/8192.
  EXPECT_LT(same_address, 20u);
  // 500 writes expected (binomial sd ~19): a wide band that only a broken draw leaves.
  EXPECT_GT(writes, 400u);
  EXPECT_LT(writes, 600u);
  for (const std::string& f : {a, b, c}) std::remove(f.c_str());
}

}  // namespace
}  // namespace famsim
