#include "traffic/trace/trace_lines.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace famsim {

namespace detail {

TraceLines::TraceLines(const std::string& path, std::size_t block_bytes, std::size_t max_line_bytes)
    : path_(path),
      block_bytes_(std::clamp<std::size_t>(block_bytes, 1, max_line_bytes)),
      max_line_bytes_(max_line_bytes) {
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) {
    throw TraceError(path_ + ": cannot open (" + std::strerror(errno) +
                     "); expected a readable trace file");
  }
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    const int error = errno;
    close_file();
    throw TraceError(path_ + ": cannot stat (" + std::strerror(error) +
                     "); expected a readable trace file");
  }
  if (S_ISDIR(st.st_mode)) {
    close_file();
    throw TraceError(path_ + ": is a directory; expected a trace file");
  }
  (void)::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);  // a hint (fails on a pipe): harmless
  buffer_.resize(block_bytes_ + kPadding);
  buffer_[0] = '\n';
}

TraceLines::~TraceLines() { close_file(); }

TraceLines::TraceLines(TraceLines&& other) noexcept
    : path_(std::move(other.path_)),
      fd_(std::exchange(other.fd_, -1)),
      block_bytes_(other.block_bytes_),
      max_line_bytes_(other.max_line_bytes_),
      buffer_(std::move(other.buffer_)),
      pos_(other.pos_),
      end_(other.end_),
      eof_(other.eof_),
      line_(other.line_) {}

TraceLines& TraceLines::operator=(TraceLines&& other) noexcept {
  if (this != &other) {
    close_file();
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
    block_bytes_ = other.block_bytes_;
    max_line_bytes_ = other.max_line_bytes_;
    buffer_ = std::move(other.buffer_);
    pos_ = other.pos_;
    end_ = other.end_;
    eof_ = other.eof_;
    line_ = other.line_;
  }
  return *this;
}

void TraceLines::close_file() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void TraceLines::rewind() {
  if (::lseek(fd_, 0, SEEK_SET) != 0) {
    throw TraceError(path_ + ": cannot rewind (" + std::strerror(errno) +
                     "); expected a seekable trace file");
  }
  pos_ = end_ = 0;
  eof_ = false;
  line_ = 0;
}

void TraceLines::fail(const std::string& what) const {
  throw TraceError(path_ + ":" + std::to_string(line_) + ": " + what);
}

// Keeps the unread tail, moved to the front, and reads more behind it; sets eof_ at the end. The
// byte after the data is always the sentinel '\n'.
void TraceLines::refill() {
  const std::size_t kept = end_ - pos_;
  if (kept != 0 && pos_ != 0) std::memmove(buffer_.data(), buffer_.data() + pos_, kept);
  pos_ = 0;
  end_ = kept;
  std::size_t capacity = buffer_.size() - kPadding;
  if (kept == capacity) {
    // The line in hand fills the whole buffer: grow it, up to the longest line plus its '\n'.
    if (capacity > max_line_bytes_) {
      ++line_;  // the error names the line that is too long
      fail("line longer than " + std::to_string(max_line_bytes_) +
           " bytes; expected one record per line");
    }
    capacity = std::min(capacity * 2, max_line_bytes_ + 1);
    buffer_.resize(capacity + kPadding);
  }
  const std::size_t want = std::min(block_bytes_, capacity - end_);
  ssize_t got;
  do {
    got = ::read(fd_, buffer_.data() + end_, want);
  } while (got < 0 && errno == EINTR);
  if (got < 0) {
    throw TraceError(path_ + ": read failed (" + std::strerror(errno) +
                     "); expected a readable trace file");
  }
  end_ += static_cast<std::size_t>(got);
  buffer_[end_] = '\n';
  if (got == 0) eof_ = true;
}

bool TraceLines::next(const char*& begin, const char*& end) {
  for (;;) {
    const char* base = buffer_.data();
    const char* p = base + pos_;
    const char* e = base + end_;
    if (const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(e - p))) {
      begin = p;
      end = static_cast<const char*>(nl);
      pos_ = static_cast<std::size_t>(end - base) + 1;
    } else if (!eof_) {
      refill();  // moves the unread tail to the front: p and e are stale now
      continue;
    } else if (p == e) {
      return false;
    } else {
      begin = p;  // the last line has no newline
      end = e;
      pos_ = end_;
    }
    ++line_;
    if (end != begin && end[-1] == '\r') --end;  // CRLF
    return true;
  }
}

std::string quote(const char* p, const char* e) {
  constexpr std::size_t kMaxShown = 40;
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

std::string quote_token(const char* p, const char* end) {
  const char* e = token_end(p, end);
  return e == p ? std::string("end of line") : quote(p, e);
}

}  // namespace detail

}  // namespace famsim
