// Trace readers: block reads, in-place line parsing. The formats and their sources are described
// in trace_reader.h.
#include "traffic/trace/trace_reader.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <limits>
#include <utility>

namespace famsim {
namespace {

using detail::at_token_end;
using detail::hex_value;
using detail::is_blank;
using detail::is_digit;
using detail::kNotHex;
using detail::quote_token;
using detail::skip_blanks;
using detail::token_end;

// Behind the sentinel that ends a line the buffer holds at least kPadding - 1 more bytes
// (TraceLines), so a few bytes past end may be read (hex_run).
inline bool has_hex_prefix(const char* p, const char* end) {
  return end - p >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
}

inline bool token_is(const char* p, std::size_t n, std::string_view word) {
  return n == word.size() && std::memcmp(p, word.data(), word.size()) == 0;
}

// Whether the token at p is word, without first scanning for the token's end. The comparison may
// read past end (within the padding) but cannot match there: the byte at end is '\n' or '\r'.
inline bool starts_token(const char* p, const char* end, std::string_view word) {
  return std::memcmp(p, word.data(), word.size()) == 0 && at_token_end(p + word.size(), end);
}

// Outcome of reading one number that must make up a whole token.
enum class NumberStatus { kOk, kMalformed, kTooLarge };

// Significant digits of [p, q) once leading zeros are dropped.
inline std::size_t significant_digits(const char* p, const char* q) {
  while (p != q && *p == '0') ++p;
  return static_cast<std::size_t>(q - p);
}

// Number of hex digits at p, and their value (the low 64 bits of it). Scalar: any run length.
inline std::size_t hex_run_scalar(const char* p, std::uint64_t& value) {
  const char* q = p;
  std::uint64_t v = 0;
  for (std::uint8_t d; (d = hex_value(*q)) != kNotHex; ++q) v = (v << 4) | d;
  value = v;
  return static_cast<std::size_t>(q - p);
}

#if defined(__SIZEOF_INT128__) && defined(__BYTE_ORDER__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
// Eight characters at a time, without a branch per digit: random addresses vary in length, and a
// per-digit loop mispredicts its exit on most lines. Reads 17 bytes at p; the reader keeps
// kPadding bytes behind its data for this.
constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
constexpr std::uint64_t kHigh = 0x8080808080808080ULL;

// High bit of each byte set where lo <= byte <= hi (ASCII bounds); never for bytes >= 0x80.
inline std::uint64_t bytes_in_range(std::uint64_t x, unsigned lo, unsigned hi) {
  const std::uint64_t low7 = x & ~kHigh;
  const std::uint64_t at_least_lo = low7 + kOnes * (0x80 - lo);  // no carry: sum <= 0xff
  const std::uint64_t above_hi = low7 + kOnes * (0x7f - hi);
  return at_least_lo & ~above_hi & ~x & kHigh;
}

inline std::uint64_t hex_digit_bytes(std::uint64_t x) {
  return bytes_in_range(x, '0', '9') | bytes_in_range(x | kOnes * 0x20, 'a', 'f');
}

// Digit values of eight characters: '0'-'9' have bit 6 clear, letters have it set.
inline std::uint64_t nibbles(std::uint64_t x) {
  return (x & kOnes * 0x0f) + ((x >> 6) & kOnes) * 9;
}

// Eight byte-wide nibbles, most significant byte first, into one 32-bit number.
inline std::uint64_t pack_nibbles(std::uint64_t x) {
  x = (x | (x >> 4)) & 0x00ff00ff00ff00ffULL;
  x = (x | (x >> 8)) & 0x0000ffff0000ffffULL;
  return (x | (x >> 16)) & 0x00000000ffffffffULL;
}

inline std::size_t hex_run(const char* p, std::uint64_t& value) {
  std::uint64_t a, b;
  std::memcpy(&a, p, 8);
  std::memcpy(&b, p + 8, 8);
  const std::uint64_t stop_a = ~hex_digit_bytes(a) & kHigh;
  const std::uint64_t stop_b = ~hex_digit_bytes(b) & kHigh;
  const std::size_t n = stop_a != 0   ? static_cast<std::size_t>(__builtin_ctzll(stop_a)) / 8
                        : stop_b != 0 ? 8 + static_cast<std::size_t>(__builtin_ctzll(stop_b)) / 8
                                      : 16;
  if (n == 0) return 0;
  if (n == 16 && hex_value(p[16]) != kNotHex) return hex_run_scalar(p, value);
  // Digit i at byte 15 - i of a 128-bit word; shifting leaves the n digits in the low n bytes.
  unsigned __int128 w = (static_cast<unsigned __int128>(__builtin_bswap64(nibbles(a))) << 64) |
                        __builtin_bswap64(nibbles(b));
  w >>= 8 * (16 - n);
  value = (pack_nibbles(static_cast<std::uint64_t>(w >> 64)) << 32) |
          pack_nibbles(static_cast<std::uint64_t>(w));
  return n;
}
#else
inline std::size_t hex_run(const char* p, std::uint64_t& value) { return hex_run_scalar(p, value); }
#endif

// Hex digits from p up to the end of the token: at least one, at most 64 significant bits.
inline NumberStatus parse_hex_token(const char*& p, const char* end, std::uint64_t& value) {
  std::uint64_t v;
  const std::size_t n = hex_run(p, v);
  const char* q = p + n;
  if (n == 0 || !at_token_end(q, end)) return NumberStatus::kMalformed;
  if (n > 16 && significant_digits(p, q) > 16) return NumberStatus::kTooLarge;
  value = v;
  p = q;
  return NumberStatus::kOk;
}

// Decimal digits from p; q is left on the first non-digit. At least one digit, fitting in T.
template <typename T>
inline NumberStatus parse_dec_digits(const char* p, const char*& q, T& value) {
  q = p;
  std::uint64_t v = 0;
  for (; is_digit(*q); ++q) v = v * 10 + static_cast<unsigned>(*q - '0');
  if (q == p) return NumberStatus::kMalformed;
  // Up to digits10 digits always fit (9 for 32 bits, 19 for 64); more are checked exactly.
  if (q - p > std::numeric_limits<T>::digits10) {
    T exact{};
    if (std::from_chars(p, q, exact).ec == std::errc::result_out_of_range) {
      return NumberStatus::kTooLarge;
    }
    value = exact;
    return NumberStatus::kOk;
  }
  value = static_cast<T>(v);
  return NumberStatus::kOk;
}

// Decimal digits making up the whole token, fitting in 64 bits.
inline NumberStatus parse_dec_token(const char*& p, const char* end, std::uint64_t& value) {
  const char* q;
  std::uint64_t v = 0;
  const NumberStatus s = parse_dec_digits(p, q, v);
  if (s == NumberStatus::kMalformed || !at_token_end(q, end)) return NumberStatus::kMalformed;
  if (s == NumberStatus::kOk) {
    value = v;
    p = q;
  }
  return s;
}

// The direction a DRAMsim3 command word stands for. Write words: DRAMsim3 common.cc; read words:
// DRAMsim3 ("READ") and DRAMSim2's k6 traces (TraceBasedSim.cpp parseTraceFileLine).
enum class Direction { kRead, kWrite, kUnknown };
inline Direction dramsim3_word(const char* p, std::size_t n) {
  switch (n) {
    case 4:
      if (token_is(p, n, "READ") || token_is(p, n, "read")) return Direction::kRead;
      if (token_is(p, n, "BOFF")) return Direction::kWrite;
      break;
    case 5:
      if (token_is(p, n, "WRITE") || token_is(p, n, "write")) return Direction::kWrite;
      break;
    case 7:
      if (token_is(p, n, "P_FETCH")) return Direction::kRead;
      break;
    case 8:
      if (token_is(p, n, "P_MEM_RD")) return Direction::kRead;
      if (token_is(p, n, "P_MEM_WR")) return Direction::kWrite;
      break;
    case 9:
      if (token_is(p, n, "P_LOCK_RD") || token_is(p, n, "P_LOCK_WR")) return Direction::kRead;
      break;
    default:
      break;
  }
  return Direction::kUnknown;
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
    : lines_(path, block_bytes, kMaxLineBytes), format_(format) {
  relative_time_ = format_ == TraceFormat::kDramsys && ends_with(path, ".rstl");
}

void TraceReader::rewind() {
  lines_.rewind();
  records_ = 0;
  last_time_ = 0;
}

bool TraceReader::next(TraceRecord& record) {
  const char* b;
  const char* e;
  while (lines_.next(b, e)) {
    LineKind kind;
    try {
      kind = parse(format_, b, e, record);
    } catch (const TraceError& error) {
      // A first request line in another format is a trace given with the wrong --trace-format,
      // or none (ramulator is the default): every line would fail alike, and the line's own
      // error ("unknown command "0x40"; expected LD or ST") does not say so.
      const std::optional<TraceFormat> other = records_ == 0 ? other_format_of(b, e) : std::nullopt;
      if (!other) throw;
      throw TraceError(std::string(error.what()) + "; the line is a request of the " +
                       to_string(*other) + " format, not of " + to_string(format_) +
                       ": expected --trace-format " + to_string(*other) +
                       " (trace_player.format) for this trace");
    }
    if (kind == LineKind::kRecord) {
      if (record.has_time && !record.relative_time) {
        if (record.time < last_time_) time_went_back(record.time);
        last_time_ = record.time;
      }
      ++records_;
      return true;
    }
  }
  if (records_ == 0) {
    throw TraceError(path() + ": no requests in the trace; expected at least one request line");
  }
  return false;
}

void TraceReader::time_went_back(std::uint64_t time) const {
  fail("timestamp " + std::to_string(time) + " is earlier than the previous request's " +
       std::to_string(last_time_) + "; expected timestamps that never decrease");
}

TraceReader::LineKind TraceReader::parse(TraceFormat format, const char* p, const char* end,
                                         TraceRecord& r) const {
  switch (format) {
    case TraceFormat::kRamulator:
      return parse_ramulator(p, end, r);
    case TraceFormat::kDramsim3:
      return parse_dramsim3(p, end, r);
    default:
      return parse_dramsys(p, end, r);
  }
}

std::optional<TraceFormat> TraceReader::other_format_of(const char* p, const char* end) const {
  for (TraceFormat f : {TraceFormat::kRamulator, TraceFormat::kDramsim3, TraceFormat::kDramsys}) {
    if (f == format_) continue;
    TraceRecord probe;
    try {
      if (parse(f, p, end, probe) == LineKind::kRecord) return f;
    } catch (const TraceError&) {
      // Not this one either.
    }
  }
  return std::nullopt;
}

// [ws] ("LD" | "ST") ws ADDRESS [ws], ADDRESS = 0x HEX | DEC.
TraceReader::LineKind TraceReader::parse_ramulator(const char* p, const char* end,
                                                   TraceRecord& r) const {
  p = skip_blanks(p);
  if (p == end) return LineKind::kSkip;
  r = TraceRecord{};
  if (starts_token(p, end, "LD")) {
    r.write = false;
  } else if (starts_token(p, end, "ST")) {
    r.write = true;
  } else {
    fail("unknown command " + quote_token(p, end) + "; expected LD or ST");
  }
  p = skip_blanks(p + 2);
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
  p = skip_blanks(p);
  if (p != end) {
    fail("unexpected " + quote_token(p, end) + " after the address; expected end of line");
  }
  return LineKind::kRecord;
}

// [ws] ADDRESS ws WORD ws CYCLE [ws].
TraceReader::LineKind TraceReader::parse_dramsim3(const char* p, const char* end,
                                                  TraceRecord& r) const {
  p = skip_blanks(p);
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

  p = skip_blanks(p);
  if (p == end) fail("missing command after the address; expected ADDRESS READ|WRITE CYCLE");
  const char* word_end;
  Direction d;
  if (starts_token(p, end, "READ")) {  // the common words first, without a scan for the end
    d = Direction::kRead;
    word_end = p + 4;
  } else if (starts_token(p, end, "WRITE")) {
    d = Direction::kWrite;
    word_end = p + 5;
  } else {
    word_end = token_end(p, end);
    d = dramsim3_word(p, static_cast<std::size_t>(word_end - p));
  }
  if (d == Direction::kUnknown) {
    fail("unknown command " + quote_token(p, end) +
         "; expected READ, WRITE, read, write, P_MEM_RD, P_MEM_WR, P_FETCH, P_LOCK_RD, "
         "P_LOCK_WR or BOFF");
  }
  r.write = d == Direction::kWrite;

  p = skip_blanks(word_end);
  if (p == end) fail("missing cycle after the command; expected ADDRESS READ|WRITE CYCLE");
  start = p;
  const NumberStatus c = parse_dec_token(p, end, r.time);
  if (c == NumberStatus::kMalformed) {
    fail("malformed cycle " + quote_token(start, end) + "; expected a decimal number");
  }
  if (c == NumberStatus::kTooLarge) {
    fail("cycle " + quote_token(start, end) + " does not fit in 64 bits");
  }
  p = skip_blanks(p);
  if (p != end) {
    fail("unexpected " + quote_token(p, end) + " after the cycle; expected end of line");
  }
  return LineKind::kRecord;
}

// [ws] CYCLE ":" ws ["(" LENGTH ")" ws] ("read" | "write") ws ADDRESS [ws DATA] [ws].
TraceReader::LineKind TraceReader::parse_dramsys(const char* p, const char* end,
                                                 TraceRecord& r) const {
  p = skip_blanks(p);
  if (p == end || *p == '#') return LineKind::kSkip;
  r = TraceRecord{};
  r.has_time = true;
  r.relative_time = relative_time_;

  // CYCLE ':' (the colon ends the number, so the token rule does not apply here).
  const char* start = p;
  const char* q;
  const NumberStatus t = parse_dec_digits(p, q, r.time);
  if (t == NumberStatus::kMalformed || *q != ':' || !at_token_end(q + 1, end)) {
    fail("malformed timestamp " + quote_token(start, end) +
         "; expected CYCLE: followed by a space, e.g. \"31: read 0x400140\"");
  }
  if (t == NumberStatus::kTooLarge) {
    fail("timestamp " + quote_token(start, end) + " does not fit in 64 bits");
  }
  p = skip_blanks(q + 1);
  if (p == end) fail("missing command after the timestamp; expected read or write");

  if (*p == '(') {
    start = p;
    const NumberStatus l = parse_dec_digits(p + 1, q, r.length);
    if (l == NumberStatus::kMalformed || *q != ')' || !at_token_end(q + 1, end)) {
      fail("malformed length " + quote_token(start, end) +
           "; expected (BYTES) followed by a space, e.g. \"(64)\"");
    }
    if (l == NumberStatus::kTooLarge || r.length == 0) {
      fail("length " + quote_token(start, end) + " out of range; expected 1 to 4294967295 bytes");
    }
    p = skip_blanks(q + 1);
    if (p == end) fail("missing command after the length; expected read or write");
  }

  if (starts_token(p, end, "read")) {
    r.write = false;
    p += 4;
  } else if (starts_token(p, end, "write")) {
    r.write = true;
    p += 5;
  } else {
    fail("unknown command " + quote_token(p, end) + "; expected read or write");
  }

  p = skip_blanks(p);
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

  p = skip_blanks(p);
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
  while (hex_value(*q) != kNotHex) ++q;
  const std::size_t n_digits = static_cast<std::size_t>(q - digits);
  if (n_digits == 0 || n_digits % 2 != 0 || !at_token_end(q, end)) {
    fail("malformed write data " + quote_token(start, end) +
         "; expected 0x followed by two hex digits per byte");
  }
  r.data_bytes = static_cast<unsigned>(n_digits / 2);
  if (r.length != 0 && r.data_bytes != r.length) {
    fail("write data holds " + std::to_string(r.data_bytes) + " bytes but the length is " +
         std::to_string(r.length) + "; expected as many data bytes as the length");
  }
  p = skip_blanks(q);
  if (p != end) {
    fail("unexpected " + quote_token(p, end) + " after the write data; expected end of line");
  }
  return LineKind::kRecord;
}

}  // namespace famsim
