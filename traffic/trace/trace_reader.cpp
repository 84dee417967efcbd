// Trace readers: block reads, in-place line parsing. The formats and their sources are described
// in trace_reader.h.
#include "traffic/trace/trace_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <utility>

namespace famsim {
namespace {

// Hex digit value, or kNotHex.
constexpr std::uint8_t kNotHex = 0xff;
constexpr std::array<std::uint8_t, 256> make_hex_table() {
  std::array<std::uint8_t, 256> t{};
  for (auto& v : t) v = kNotHex;
  for (int c = '0'; c <= '9'; ++c) t[c] = static_cast<std::uint8_t>(c - '0');
  for (int c = 'a'; c <= 'f'; ++c) t[c] = static_cast<std::uint8_t>(c - 'a' + 10);
  for (int c = 'A'; c <= 'F'; ++c) t[c] = static_cast<std::uint8_t>(c - 'A' + 10);
  return t;
}
constexpr std::array<std::uint8_t, 256> kHex = make_hex_table();

inline std::uint8_t hex_value(char c) { return kHex[static_cast<unsigned char>(c)]; }
inline bool is_blank(char c) { return c == ' ' || c == '\t'; }
inline bool at_token_end(const char* p, const char* end) { return p == end || is_blank(*p); }

inline const char* skip_blanks(const char* p, const char* end) {
  while (p != end && is_blank(*p)) ++p;
  return p;
}

inline const char* token_end(const char* p, const char* end) {
  while (p != end && !is_blank(*p)) ++p;
  return p;
}

inline bool has_hex_prefix(const char* p, const char* end) {
  return end - p >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
}

inline bool token_is(const char* p, const char* e, std::string_view word) {
  return static_cast<std::size_t>(e - p) == word.size() &&
         std::memcmp(p, word.data(), word.size()) == 0;
}

// Outcome of reading one number that must make up a whole token.
enum class NumberStatus { kOk, kMalformed, kTooLarge };

// Hex digits from p up to the end of the token. At least one digit; at most 64 significant bits.
NumberStatus parse_hex_token(const char*& p, const char* end, std::uint64_t& value) {
  const char* q = p;
  std::uint64_t v = 0;
  bool too_large = false;
  for (; q != end; ++q) {
    const std::uint8_t d = hex_value(*q);
    if (d == kNotHex) break;
    if (v >> 60) too_large = true;
    v = (v << 4) | d;
  }
  if (q == p || !at_token_end(q, end)) return NumberStatus::kMalformed;
  if (too_large) return NumberStatus::kTooLarge;
  value = v;
  p = q;
  return NumberStatus::kOk;
}

// Decimal digits making up the whole token, fitting in T.
template <typename T>
NumberStatus parse_dec_token(const char*& p, const char* end, T& value) {
  if (p == end || *p < '0' || *p > '9') return NumberStatus::kMalformed;
  const auto [q, ec] = std::from_chars(p, end, value);
  if (!at_token_end(q, end)) return NumberStatus::kMalformed;
  if (ec == std::errc::result_out_of_range) return NumberStatus::kTooLarge;
  p = q;
  return NumberStatus::kOk;
}

// The offending text for an error message: the token at p, quoted, shortened and made printable.
std::string quote_token(const char* p, const char* end) {
  constexpr std::size_t kMaxShown = 40;
  const char* e = token_end(p, end);
  if (e == p) return "end of line";
  std::string s = "\"";
  for (const char* c = p; c != e && s.size() <= kMaxShown; ++c) {
    const unsigned char u = static_cast<unsigned char>(*c);
    if (u >= 0x20 && u < 0x7f) {
      s += *c;
    } else {
      static const char kDigits[] = "0123456789abcdef";
      s += "\\x";
      s += kDigits[u >> 4];
      s += kDigits[u & 0xf];
    }
  }
  if (static_cast<std::size_t>(e - p) > kMaxShown) s += "...";
  s += '"';
  return s;
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::optional<TraceFormat> parse_trace_format(std::string_view name) {
  if (name == "ramulator") return TraceFormat::kRamulator;
  if (name == "dramsim3") return TraceFormat::kDramsim3;
  if (name == "dramsys") return TraceFormat::kDramsys;
  return std::nullopt;
}

const char* to_string(TraceFormat format) {
  switch (format) {
    case TraceFormat::kRamulator:
      return "ramulator";
    case TraceFormat::kDramsim3:
      return "dramsim3";
    case TraceFormat::kDramsys:
      return "dramsys";
  }
  return "?";
}

TraceReader::TraceReader(const std::string& path, TraceFormat format, std::size_t block_bytes)
    : path_(path), format_(format), block_bytes_(block_bytes == 0 ? 1 : block_bytes) {
  relative_time_ = format_ == TraceFormat::kDramsys && ends_with(path_, ".rstl");
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) {
    throw TraceError(path_ + ": cannot open (" + std::strerror(errno) +
                     "); expected a readable trace file");
  }
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || S_ISDIR(st.st_mode)) {
    close_file();
    throw TraceError(path_ + ": is a directory; expected a trace file");
  }
  ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  buffer_.resize(block_bytes_);
}

TraceReader::~TraceReader() { close_file(); }

TraceReader::TraceReader(TraceReader&& other) noexcept
    : path_(std::move(other.path_)),
      format_(other.format_),
      relative_time_(other.relative_time_),
      fd_(std::exchange(other.fd_, -1)),
      block_bytes_(other.block_bytes_),
      buffer_(std::move(other.buffer_)),
      pos_(other.pos_),
      end_(other.end_),
      eof_(other.eof_),
      line_(other.line_),
      records_(other.records_),
      last_time_(other.last_time_) {}

TraceReader& TraceReader::operator=(TraceReader&& other) noexcept {
  if (this != &other) {
    close_file();
    path_ = std::move(other.path_);
    format_ = other.format_;
    relative_time_ = other.relative_time_;
    fd_ = std::exchange(other.fd_, -1);
    block_bytes_ = other.block_bytes_;
    buffer_ = std::move(other.buffer_);
    pos_ = other.pos_;
    end_ = other.end_;
    eof_ = other.eof_;
    line_ = other.line_;
    records_ = other.records_;
    last_time_ = other.last_time_;
  }
  return *this;
}

void TraceReader::close_file() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void TraceReader::rewind() {
  if (::lseek(fd_, 0, SEEK_SET) != 0) {
    throw TraceError(path_ + ": cannot rewind (" + std::strerror(errno) +
                     "); expected a seekable trace file");
  }
  pos_ = end_ = 0;
  eof_ = false;
  line_ = 0;
  records_ = 0;
  last_time_ = 0;
}

void TraceReader::fail(const std::string& what) const {
  throw TraceError(path_ + ":" + std::to_string(line_) + ": " + what);
}

// Keeps the unread tail, moved to the front, and reads more behind it; sets eof_ at the end.
void TraceReader::refill() {
  const std::size_t kept = end_ - pos_;
  if (kept != 0 && pos_ != 0) std::memmove(buffer_.data(), buffer_.data() + pos_, kept);
  pos_ = 0;
  end_ = kept;
  if (kept == buffer_.size()) {
    // The line in hand fills the whole buffer: grow it, within reason.
    if (buffer_.size() >= kMaxLineBytes) {
      ++line_;  // the error names the line that is too long
      fail("line longer than " + std::to_string(kMaxLineBytes) +
           " bytes; expected one request per line");
    }
    buffer_.resize(std::min(buffer_.size() * 2, kMaxLineBytes));
  }
  const std::size_t want = std::min(block_bytes_, buffer_.size() - end_);
  ssize_t got;
  do {
    got = ::read(fd_, buffer_.data() + end_, want);
  } while (got < 0 && errno == EINTR);
  if (got < 0) {
    throw TraceError(path_ + ": read failed (" + std::strerror(errno) +
                     "); expected a readable trace file");
  }
  end_ += static_cast<std::size_t>(got);
  if (got == 0) eof_ = true;
}

bool TraceReader::next_line(const char*& begin, const char*& end) {
  for (;;) {
    const char* base = buffer_.data();
    const char* p = base + pos_;
    const char* e = base + end_;
    if (const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(e - p))) {
      begin = p;
      end = static_cast<const char*>(nl);
      pos_ = static_cast<std::size_t>(end - base) + 1;
      return true;
    }
    if (!eof_) {
      refill();  // moves the unread tail to the front: p and e are stale now
      continue;
    }
    if (p == e) return false;
    begin = p;  // the last line has no newline
    end = e;
    pos_ = end_;
    return true;
  }
}

bool TraceReader::next(TraceRecord& record) {
  const char* b;
  const char* e;
  while (next_line(b, e)) {
    ++line_;
    if (e != b && e[-1] == '\r') --e;  // CRLF
    LineKind kind;
    switch (format_) {
      case TraceFormat::kRamulator:
        kind = parse_ramulator(b, e, record);
        break;
      case TraceFormat::kDramsim3:
        kind = parse_dramsim3(b, e, record);
        break;
      default:
        kind = parse_dramsys(b, e, record);
        break;
    }
    if (kind == LineKind::kRecord) {
      if (record.has_time && !record.relative_time) check_time(record.time);
      ++records_;
      return true;
    }
  }
  if (records_ == 0) {
    throw TraceError(path_ + ": no requests in the trace; expected at least one request line");
  }
  return false;
}

void TraceReader::check_time(std::uint64_t time) {
  if (time < last_time_) {
    fail("timestamp " + std::to_string(time) + " is earlier than the previous request's " +
         std::to_string(last_time_) + "; expected timestamps that never decrease");
  }
  last_time_ = time;
}

// [ws] ("LD" | "ST") ws ADDRESS [ws], ADDRESS = 0x HEX | DEC.
TraceReader::LineKind TraceReader::parse_ramulator(const char* p, const char* end,
                                                   TraceRecord& r) const {
  p = skip_blanks(p, end);
  if (p == end) return LineKind::kSkip;
  const char* word_end = token_end(p, end);
  r = TraceRecord{};
  if (token_is(p, word_end, "LD")) {
    r.write = false;
  } else if (token_is(p, word_end, "ST")) {
    r.write = true;
  } else {
    fail("unknown command " + quote_token(p, end) + "; expected LD or ST");
  }
  p = skip_blanks(word_end, end);
  if (p == end) fail("missing address after the command; expected LD|ST ADDRESS");
  const char* start = p;
  NumberStatus s;
  if (has_hex_prefix(p, end)) {
    p += 2;
    s = parse_hex_token(p, end, r.address);
  } else {
    s = parse_dec_token(p, end, r.address);
  }
  if (s == NumberStatus::kMalformed) {
    fail("malformed address " + quote_token(start, end) +
         "; expected 0x followed by hex digits, or a decimal number");
  }
  if (s == NumberStatus::kTooLarge) {
    fail("address " + quote_token(start, end) + " does not fit in 64 bits");
  }
  p = skip_blanks(p, end);
  if (p != end) {
    fail("unexpected " + quote_token(p, end) + " after the address; expected end of line");
  }
  return LineKind::kRecord;
}

// [ws] ADDRESS ws WORD ws CYCLE [ws].
TraceReader::LineKind TraceReader::parse_dramsim3(const char* p, const char* end,
                                                  TraceRecord& r) const {
  p = skip_blanks(p, end);
  if (p == end) return LineKind::kSkip;
  r = TraceRecord{};
  r.has_time = true;
  const char* start = p;
  if (has_hex_prefix(p, end)) p += 2;
  const NumberStatus s = parse_hex_token(p, end, r.address);
  if (s == NumberStatus::kMalformed) {
    fail("malformed address " + quote_token(start, end) + "; expected a hex address (0x optional)");
  }
  if (s == NumberStatus::kTooLarge) {
    fail("address " + quote_token(start, end) + " does not fit in 64 bits");
  }

  p = skip_blanks(p, end);
  if (p == end) fail("missing command after the address; expected ADDRESS READ|WRITE CYCLE");
  const char* word_end = token_end(p, end);
  // Write words from DRAMsim3 common.cc; read words from DRAMSim2's k6 traces and DRAMsim3.
  if (token_is(p, word_end, "READ") || token_is(p, word_end, "read") ||
      token_is(p, word_end, "P_MEM_RD") || token_is(p, word_end, "P_FETCH") ||
      token_is(p, word_end, "P_LOCK_RD") || token_is(p, word_end, "P_LOCK_WR")) {
    r.write = false;
  } else if (token_is(p, word_end, "WRITE") || token_is(p, word_end, "write") ||
             token_is(p, word_end, "P_MEM_WR") || token_is(p, word_end, "BOFF")) {
    r.write = true;
  } else {
    fail("unknown command " + quote_token(p, end) +
         "; expected READ, WRITE, read, write, P_MEM_RD, P_MEM_WR, P_FETCH, P_LOCK_RD, "
         "P_LOCK_WR or BOFF");
  }

  p = skip_blanks(word_end, end);
  if (p == end) fail("missing cycle after the command; expected ADDRESS READ|WRITE CYCLE");
  start = p;
  const NumberStatus c = parse_dec_token(p, end, r.time);
  if (c == NumberStatus::kMalformed) {
    fail("malformed cycle " + quote_token(start, end) + "; expected a decimal number");
  }
  if (c == NumberStatus::kTooLarge) {
    fail("cycle " + quote_token(start, end) + " does not fit in 64 bits");
  }
  p = skip_blanks(p, end);
  if (p != end) {
    fail("unexpected " + quote_token(p, end) + " after the cycle; expected end of line");
  }
  return LineKind::kRecord;
}

// [ws] CYCLE ":" ws ["(" LENGTH ")" ws] ("read" | "write") ws ADDRESS [ws DATA] [ws].
TraceReader::LineKind TraceReader::parse_dramsys(const char* p, const char* end,
                                                 TraceRecord& r) const {
  p = skip_blanks(p, end);
  if (p == end || *p == '#') return LineKind::kSkip;
  r = TraceRecord{};
  r.has_time = true;
  r.relative_time = relative_time_;

  // CYCLE ':' (the colon ends the number, so the token rule does not apply here).
  const char* start = p;
  const char* q = p;
  while (q != end && *q >= '0' && *q <= '9') ++q;
  if (q == p || q == end || *q != ':' || !at_token_end(q + 1, end)) {
    fail("malformed timestamp " + quote_token(start, end) +
         "; expected CYCLE: followed by a space, e.g. \"31: read 0x400140\"");
  }
  if (std::from_chars(p, q, r.time).ec == std::errc::result_out_of_range) {
    fail("timestamp " + quote_token(start, end) + " does not fit in 64 bits");
  }
  p = skip_blanks(q + 1, end);
  if (p == end) fail("missing command after the timestamp; expected read or write");

  if (*p == '(') {
    start = p;
    const char* close = p + 1;
    while (close != end && *close >= '0' && *close <= '9') ++close;
    if (close == p + 1 || close == end || *close != ')' || !at_token_end(close + 1, end)) {
      fail("malformed length " + quote_token(start, end) +
           "; expected (BYTES) followed by a space, e.g. \"(64)\"");
    }
    const auto [ptr, ec] = std::from_chars(p + 1, close, r.length);
    (void)ptr;
    if (ec == std::errc::result_out_of_range || r.length == 0) {
      fail("length " + quote_token(start, end) + " out of range; expected 1 to 4294967295 bytes");
    }
    p = skip_blanks(close + 1, end);
    if (p == end) fail("missing command after the length; expected read or write");
  }

  const char* word_end = token_end(p, end);
  if (token_is(p, word_end, "read")) {
    r.write = false;
  } else if (token_is(p, word_end, "write")) {
    r.write = true;
  } else {
    fail("unknown command " + quote_token(p, end) + "; expected read or write");
  }

  p = skip_blanks(word_end, end);
  if (p == end) fail("missing address after the command; expected CYCLE: read|write ADDRESS");
  start = p;
  if (has_hex_prefix(p, end)) p += 2;
  const NumberStatus s = parse_hex_token(p, end, r.address);
  if (s == NumberStatus::kMalformed) {
    fail("malformed address " + quote_token(start, end) + "; expected a hex address (0x optional)");
  }
  if (s == NumberStatus::kTooLarge) {
    fail("address " + quote_token(start, end) + " does not fit in 64 bits");
  }

  p = skip_blanks(p, end);
  if (p == end) return LineKind::kRecord;
  if (!r.write) {
    fail("unexpected " + quote_token(p, end) +
         " after the address of a read; expected end of line");
  }
  // Write data: 0x and two hex digits per byte.
  start = p;
  if (!has_hex_prefix(p, end)) {
    fail("malformed write data " + quote_token(start, end) +
         "; expected 0x followed by two hex digits per byte");
  }
  const char* digits = p + 2;
  q = digits;
  while (q != end && hex_value(*q) != kNotHex) ++q;
  const std::size_t n = static_cast<std::size_t>(q - digits);
  if (n == 0 || n % 2 != 0 || !at_token_end(q, end)) {
    fail("malformed write data " + quote_token(start, end) +
         "; expected 0x followed by two hex digits per byte");
  }
  r.data_bytes = static_cast<unsigned>(n / 2);
  if (r.length != 0 && r.data_bytes != r.length) {
    fail("write data holds " + std::to_string(r.data_bytes) + " bytes but the length is " +
         std::to_string(r.length) + "; expected as many data bytes as the length");
  }
  p = skip_blanks(q, end);
  if (p != end) {
    fail("unexpected " + quote_token(p, end) + " after the write data; expected end of line");
  }
  return LineKind::kRecord;
}

}  // namespace famsim
