// Reading a text trace line by line in bounded memory, shared by every trace reader
// (trace_reader.h, request_trace.h). Pure C++, no SystemC.
#pragma once

#include "traffic/trace/trace_error.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace famsim {

namespace detail {

// The lines of a trace file, read in blocks into one buffer that grows only for a line longer
// than a block (up to a limit), so a trace of any size streams in bounded memory. The byte after
// every returned line is '\n', '\r' or a sentinel '\n' kept behind the data, followed by at
// least kPadding - 1 more bytes, so parsers may scan a character class without comparing against
// the end and may read a few bytes past it.
class TraceLines {
 public:
  // Throws TraceError "PATH: cannot open (...); expected a readable trace file" and the like.
  // block_bytes: how much one read() asks for (tests make it tiny so lines straddle blocks).
  TraceLines(const std::string& path, std::size_t block_bytes, std::size_t max_line_bytes);
  ~TraceLines();
  TraceLines(TraceLines&& other) noexcept;
  TraceLines& operator=(TraceLines&& other) noexcept;
  TraceLines(const TraceLines&) = delete;
  TraceLines& operator=(const TraceLines&) = delete;

  // The next line [begin, end), without its '\n' or a CR before it; false at the end of the file.
  // Throws TraceError for a line longer than max_line_bytes or a failed read.
  bool next(const char*& begin, const char*& end);

  // 1-based number of the line last returned (or named by an error); 0 before the first next().
  std::uint64_t line() const { return line_; }
  const std::string& path() const { return path_; }

  // Starts again from the first line (closed-loop replay of a short trace). Throws TraceError
  // for a file that cannot seek.
  void rewind();

  // Throws TraceError "PATH:LINE: what".
  [[noreturn]] void fail(const std::string& what) const;

  static constexpr std::size_t kPadding = 32;  // sentinel and read-ahead room behind the data

 private:
  void refill();
  void close_file();

  std::string path_;
  int fd_ = -1;
  std::size_t block_bytes_;
  std::size_t max_line_bytes_;
  std::vector<char> buffer_;
  std::size_t pos_ = 0;  // first unread byte in buffer_
  std::size_t end_ = 0;  // one past the last valid byte in buffer_
  bool eof_ = false;
  std::uint64_t line_ = 0;
};

// Character classes for the parsers. The byte at `end` of a line [p, end) from TraceLines::next
// is '\n' or '\r': never a blank, digit, hex digit or '.', so loops over those classes stop at end
// without comparing against it.
inline constexpr std::uint8_t kNotHex = 0xff;
inline constexpr std::array<std::uint8_t, 256> make_hex_table() {
  std::array<std::uint8_t, 256> t{};
  for (auto& v : t) v = kNotHex;
  for (int c = '0'; c <= '9'; ++c) t[c] = static_cast<std::uint8_t>(c - '0');
  for (int c = 'a'; c <= 'f'; ++c) t[c] = static_cast<std::uint8_t>(c - 'a' + 10);
  for (int c = 'A'; c <= 'F'; ++c) t[c] = static_cast<std::uint8_t>(c - 'A' + 10);
  return t;
}
inline constexpr std::array<std::uint8_t, 256> kHex = make_hex_table();

// Hex digit value, or kNotHex.
inline std::uint8_t hex_value(char c) { return kHex[static_cast<unsigned char>(c)]; }
inline bool is_digit(char c) { return static_cast<unsigned char>(c - '0') < 10; }
inline bool is_blank(char c) { return c == ' ' || c == '\t'; }
inline bool at_token_end(const char* p, const char* end) { return p == end || is_blank(*p); }

inline const char* skip_blanks(const char* p) {
  while (is_blank(*p)) ++p;
  return p;
}

inline const char* token_end(const char* p, const char* end) {
  while (p != end && !is_blank(*p)) ++p;
  return p;
}

// Text [p, e) for an error message, quoted, shortened and made printable.
std::string quote(const char* p, const char* e);

// The token at p, quoted; "end of line" if there is none.
std::string quote_token(const char* p, const char* end);

}  // namespace detail

}  // namespace famsim
