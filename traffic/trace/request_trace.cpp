// Request-trace readers: block reads, one JSON object per line through nlohmann's SAX interface
// (no document tree per line), the timed format parsed in place. The formats and their sources
// are described in request_trace.h.
#include "traffic/trace/request_trace.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <limits>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

namespace famsim {
namespace {

using detail::at_token_end;
using detail::hex_value;
using detail::is_blank;
using detail::is_digit;
using detail::kNotHex;
using detail::quote;
using detail::quote_token;
using detail::skip_blanks;
using detail::token_end;

std::string format_ms(double ms) {
  char text[32];
  const auto res = std::to_chars(text, text + sizeof text, ms);  // shortest exact form
  return std::string(text, res.ptr);
}

// Picoseconds as nanoseconds with up to three decimals: 1250500 -> "1250.5".
std::string format_ns(std::uint64_t ps) {
  std::string s = std::to_string(ps / 1000);
  unsigned frac = static_cast<unsigned>(ps % 1000);
  if (frac != 0) {
    char digits[4] = {static_cast<char>('0' + frac / 100), static_cast<char>('0' + frac / 10 % 10),
                      static_cast<char>('0' + frac % 10), '\0'};
    std::size_t n = 3;
    while (digits[n - 1] == '0') --n;
    s += '.';
    s.append(digits, n);
  }
  return s;
}

// ---------------------------------------------------------------------------------------------
// Mooncake: one JSON object per line, turned into a record by SAX events.

enum class MooncakeKey : unsigned {
  kTimestamp = 0,
  kInputLength = 1,
  kOutputLength = 2,
  kHashIds = 3,
  kOther = 4
};
constexpr const char* kMooncakeKeyNames[] = {"timestamp", "input_length", "output_length",
                                             "hash_ids"};
constexpr const char* kMooncakeExpected[] = {
    "expected a number >= 0", "expected an integer >= 1 and at most 1073741824 (2^30 tokens)",
    "expected an integer >= 0", "expected an array of integers >= 0"};

MooncakeKey mooncake_key(std::string_view k) {
  for (unsigned i = 0; i < 4; ++i) {
    if (k == kMooncakeKeyNames[i]) return static_cast<MooncakeKey>(i);
  }
  return MooncakeKey::kOther;
}

// nlohmann::json SAX handler for one line. Depth 0 is outside the top-level value, 1 inside the
// top-level object, 2 and more inside one of its values. Values of unknown keys are skipped at
// any depth. A handler that finds a problem stores the message and returns false, which stops
// the parse.
class MooncakeLineSax {
 public:
  using json = nlohmann::json;

  explicit MooncakeLineSax(MooncakeRecord& r) : r_(r) {}

  const std::string& error() const { return error_; }

  // The key that is missing, or nullptr if all four were given.
  const char* missing_key() const {
    for (unsigned i = 0; i < 4; ++i) {
      if ((seen_ & (1u << i)) == 0) return kMooncakeKeyNames[i];
    }
    return nullptr;
  }

  bool null() { return other_value("null"); }
  bool boolean(bool v) { return other_value(v ? "true" : "false"); }
  bool string(json::string_t& v) {
    return other_value("a string " + quote(v.data(), v.data() + v.size()));
  }
  bool binary(json::binary_t&) { return other_value("binary"); }  // never from JSON text

  bool number_unsigned(json::number_unsigned_t v) {
    if (in_hash_ids()) {
      r_.hash_ids.push_back(v);
      return true;
    }
    if (depth_ != 1) return depth_ > 1 || top_level("a number");
    switch (key_) {
      case MooncakeKey::kTimestamp:
        r_.timestamp_ms = static_cast<double>(v);
        return true;
      case MooncakeKey::kInputLength:
        if (v == 0) return bad_value("0");
        if (v > kMaxTokens) return bad_value(std::to_string(v));
        r_.input_length = v;
        return true;
      case MooncakeKey::kOutputLength:
        r_.output_length = v;
        return true;
      case MooncakeKey::kHashIds:
        return bad_value(std::to_string(v));
      default:
        return true;
    }
  }

  // nlohmann reports negative integers here (non-negative ones go to number_unsigned).
  bool number_integer(json::number_integer_t v) {
    if (v >= 0) return number_unsigned(static_cast<json::number_unsigned_t>(v));
    if (in_hash_ids()) return bad_hash_id(std::to_string(v));
    if (depth_ != 1) return depth_ > 1 || top_level("a number");
    return key_ == MooncakeKey::kOther || bad_value(std::to_string(v));
  }

  // A fraction or exponent, or an integer too large for 64 bits (nlohmann reads those as floats).
  bool number_float(json::number_float_t v, const json::string_t& text) {
    const std::string shown = float_text(text);
    if (in_hash_ids()) return bad_hash_id(shown);
    if (depth_ != 1) return depth_ > 1 || top_level("a number");
    if (key_ == MooncakeKey::kTimestamp && v >= 0) {
      r_.timestamp_ms = v + 0.0;  // -0.0 becomes 0
      return true;
    }
    return key_ == MooncakeKey::kOther || bad_value(shown);
  }

  bool start_object(std::size_t) {
    if (depth_ == 0) {
      depth_ = 1;
      return true;
    }
    if (in_hash_ids()) return bad_hash_id("an object");
    if (depth_ == 1 && key_ != MooncakeKey::kOther) return bad_value("an object");
    ++depth_;
    return true;
  }
  bool end_object() {
    --depth_;
    return true;
  }

  bool start_array(std::size_t) {
    if (depth_ == 0) return top_level("an array");
    if (in_hash_ids()) return bad_hash_id("an array");
    if (depth_ == 1 && key_ == MooncakeKey::kHashIds) {
      hash_ids_open_ = true;
    } else if (depth_ == 1 && key_ != MooncakeKey::kOther) {
      return bad_value("an array");
    }
    ++depth_;
    return true;
  }
  bool end_array() {
    if (in_hash_ids()) hash_ids_open_ = false;
    --depth_;
    return true;
  }

  bool key(json::string_t& k) {
    if (depth_ != 1) return true;  // a key inside an ignored value
    key_ = mooncake_key(k);
    if (key_ == MooncakeKey::kOther) return true;
    const unsigned bit = 1u << static_cast<unsigned>(key_);
    if ((seen_ & bit) != 0) {
      error_ = "duplicate key \"" + k + "\"; expected each key once";
      return false;
    }
    seen_ |= bit;
    return true;
  }

  bool parse_error(std::size_t, const std::string&, const nlohmann::json::exception& ex) {
    // "[json.exception.parse_error.101] parse error at line 1, column 12: syntax error ..." ->
    // "column 12: syntax error ...": the line is ours to name.
    std::string_view what = ex.what();
    if (const auto column = what.find("column "); column != std::string_view::npos) {
      what.remove_prefix(column);
    } else if (const auto bracket = what.find("] "); bracket != std::string_view::npos) {
      what.remove_prefix(bracket + 2);
    }
    error_ = "not valid JSON (" + std::string(what) + "); expected one JSON object per line";
    return false;
  }

 private:
  bool in_hash_ids() const { return hash_ids_open_ && depth_ == 2; }

  // null, true, false or a string: never a valid value of a known key.
  bool other_value(const std::string& shown) {
    if (in_hash_ids()) return bad_hash_id(shown);
    if (depth_ != 1) return depth_ > 1 || top_level(shown);
    return key_ == MooncakeKey::kOther || bad_value(shown);
  }

  bool top_level(const std::string& shown) {
    error_ = "not a JSON object but " + shown + "; expected one JSON object per line";
    return false;
  }

  bool bad_value(const std::string& shown) {
    const auto k = static_cast<unsigned>(key_);
    error_ = std::string(kMooncakeKeyNames[k]) + " is " + shown + "; " + kMooncakeExpected[k];
    return false;
  }

  bool bad_hash_id(const std::string& shown) {
    error_ = "hash_ids[" + std::to_string(r_.hash_ids.size()) + "] is " + shown +
             "; expected an integer >= 0";
    return false;
  }

  // A float token as written (JSON number syntax: printable); an integer too large for 64 bits
  // says so.
  static std::string float_text(const std::string& text) {
    constexpr std::size_t kMaxShown = 40;
    const bool integral =
        std::all_of(text.begin(), text.end(), [](char c) { return is_digit(c) || c == '-'; });
    std::string shown = text.size() > kMaxShown ? text.substr(0, kMaxShown) + "..." : text;
    return integral ? shown + " (more than 64 bits)" : shown;
  }

  MooncakeRecord& r_;
  std::string error_;
  int depth_ = 0;
  MooncakeKey key_ = MooncakeKey::kOther;
  bool hash_ids_open_ = false;
  unsigned seen_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Timed access trace.

constexpr const char* kTimedFields = "expected TIME_NS GPU OP ADDRESS SIZE";

// [ws] TIME ws GPU ws OP ws ADDRESS ws SIZE [ws], or a blank or comment line (returns false).
bool parse_timed_line(const char* p, const char* end, TimedAccess& a,
                      const detail::TraceLines& lines) {
  p = skip_blanks(p);
  if (p == end || *p == '#') return false;

  // TIME = DEC ["." DEC], ns -> ps rounded to the nearest.
  const char* start = p;
  std::uint64_t ns = 0;
  std::from_chars_result res = std::from_chars(p, end, ns);
  const char* q = res.ptr;
  bool malformed = res.ec == std::errc::invalid_argument;
  std::uint64_t frac_ps = 0;
  if (!malformed && *q == '.') {
    const char* f = q + 1;
    const char* digits = f;
    for (int i = 0; i < 3; ++i) {
      frac_ps *= 10;
      if (is_digit(*f)) frac_ps += static_cast<unsigned>(*f++ - '0');
    }
    if (is_digit(*f) && *f >= '5') ++frac_ps;  // the fourth decimal rounds: half a ps rounds up
    while (is_digit(*f)) ++f;
    malformed = f == digits;
    q = f;
  }
  if (malformed || !at_token_end(q, end)) {
    lines.fail("malformed time " + quote_token(start, end) +
               "; expected nanoseconds, digits with an optional fraction (e.g. 1250 or 1250.5)");
  }
  if (res.ec == std::errc::result_out_of_range || __builtin_mul_overflow(ns, 1000u, &a.time_ps) ||
      __builtin_add_overflow(a.time_ps, frac_ps, &a.time_ps)) {
    lines.fail("time " + quote_token(start, end) + " too large; expected at most " +
               format_ns(std::numeric_limits<std::uint64_t>::max()) + " ns");
  }

  // GPU = DEC, fitting in unsigned.
  p = skip_blanks(q);
  if (p == end) lines.fail(std::string("missing GPU after the time; ") + kTimedFields);
  start = p;
  res = std::from_chars(p, end, a.gpu);
  q = res.ptr;
  if (res.ec == std::errc::invalid_argument || !at_token_end(q, end)) {
    lines.fail("gpu " + quote_token(start, end) + " is not a number; expected a decimal GPU index");
  }
  if (res.ec == std::errc::result_out_of_range) {
    lines.fail("gpu " + quote_token(start, end) + " too large; expected a GPU index below " +
               std::to_string(std::uint64_t{std::numeric_limits<unsigned>::max()} + 1));
  }

  // OP = R | W | r | w.
  p = skip_blanks(q);
  if (p == end) lines.fail(std::string("missing OP after the GPU; ") + kTimedFields);
  if ((*p == 'R' || *p == 'r') && at_token_end(p + 1, end)) {
    a.write = false;
  } else if ((*p == 'W' || *p == 'w') && at_token_end(p + 1, end)) {
    a.write = true;
  } else {
    lines.fail("unknown op " + quote_token(p, end) + "; expected R or W (or r, w)");
  }

  // ADDRESS = 0x HEX, at most 64 bits.
  p = skip_blanks(p + 1);
  if (p == end) lines.fail(std::string("missing ADDRESS after the op; ") + kTimedFields);
  start = p;
  if (end - p < 2 || p[0] != '0' || (p[1] != 'x' && p[1] != 'X')) {
    lines.fail("malformed address " + quote_token(start, end) +
               "; expected 0x followed by hex digits");
  }
  q = p + 2;
  std::uint64_t va = 0;
  unsigned significant = 0;
  for (std::uint8_t d; (d = hex_value(*q)) != kNotHex; ++q) {
    if (significant != 0 || d != 0) ++significant;
    va = (va << 4) | d;
  }
  if (q == p + 2 || !at_token_end(q, end)) {
    lines.fail("malformed address " + quote_token(start, end) +
               "; expected 0x followed by hex digits");
  }
  if (significant > 16) {
    lines.fail("address " + quote_token(start, end) + " does not fit in 64 bits");
  }
  a.va = va;

  // SIZE = DEC, 1 .. 2^31.
  p = skip_blanks(q);
  if (p == end) lines.fail(std::string("missing SIZE after the address; ") + kTimedFields);
  start = p;
  std::uint64_t bytes = 0;
  res = std::from_chars(p, end, bytes);
  q = res.ptr;
  if (res.ec == std::errc::invalid_argument || !at_token_end(q, end)) {
    lines.fail("malformed size " + quote_token(start, end) +
               "; expected a decimal number of bytes");
  }
  if (res.ec == std::errc::result_out_of_range || bytes == 0 ||
      bytes > TimedTraceReader::kMaxAccessBytes) {
    lines.fail("size " + quote_token(start, end) + " out of range; expected 1 to " +
               std::to_string(TimedTraceReader::kMaxAccessBytes) + " bytes");
  }
  a.bytes = static_cast<std::uint32_t>(bytes);

  p = skip_blanks(q);
  if (p != end) {
    lines.fail("unexpected " + quote_token(p, end) + " after the size; expected end of line");
  }
  return true;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// MooncakeReader

MooncakeReader::MooncakeReader(const std::string& path, std::size_t block_bytes)
    : lines_(path, block_bytes, kMaxLineBytes) {}

bool MooncakeReader::next(MooncakeRecord& r) {
  const char* b;
  const char* e;
  while (lines_.next(b, e)) {
    if (skip_blanks(b) == e) continue;
    r.timestamp_ms = 0;
    r.input_length = 0;
    r.output_length = 0;
    r.hash_ids.clear();  // keeps the capacity
    r.line = lines_.line();
    MooncakeLineSax sax(r);
    if (!nlohmann::json::sax_parse(b, e, &sax)) {
      lines_.fail(sax.error().empty() ? "not valid JSON; expected one JSON object per line"
                                      : sax.error());
    }
    if (const char* missing = sax.missing_key()) {
      lines_.fail(std::string("missing key \"") + missing +
                  "\"; expected an object with timestamp, input_length, output_length and "
                  "hash_ids");
    }
    if (r.timestamp_ms < last_timestamp_ms_) {
      lines_.fail("timestamp " + format_ms(r.timestamp_ms) + " ms is earlier than the previous " +
                  "request's " + format_ms(last_timestamp_ms_) +
                  " ms; expected timestamps that never decrease");
    }
    last_timestamp_ms_ = r.timestamp_ms;
    return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// TimedTraceReader

TimedTraceReader::TimedTraceReader(const std::string& path, std::size_t block_bytes)
    : lines_(path, block_bytes, kMaxLineBytes) {}

bool TimedTraceReader::next(TimedAccess& a) {
  const char* b;
  const char* e;
  while (lines_.next(b, e)) {
    if (!parse_timed_line(b, e, a, lines_)) continue;
    a.line = lines_.line();
    if (a.time_ps < last_time_ps_) {
      lines_.fail("time " + format_ns(a.time_ps) + " ns is earlier than the previous access's " +
                  format_ns(last_time_ps_) + " ns; expected times that never decrease");
    }
    last_time_ps_ = a.time_ps;
    return true;
  }
  return false;
}

}  // namespace famsim
