#include "models/core/transaction_log.h"

#include "models/core/clock.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <stdexcept>

namespace famsim {

namespace {

constexpr std::size_t kFlushBytes = std::size_t{1} << 20;

const char* op_name(const RequestExt& e) {
  switch (e.atomic) {
    case AtomicOp::kFetchAdd:
      return "fetch_add";
    case AtomicOp::kCompareSwap:
      return "compare_swap";
    case AtomicOp::kNone:
      break;
  }
  return e.write ? "write" : "read";
}

}  // namespace

TransactionLog::~TransactionLog() { close_quietly(); }

void TransactionLog::close_quietly() {
  if (file_) std::fclose(file_);
  file_ = nullptr;
  buffer_.clear();
  instant_.clear();
  lines_of_instant_.clear();
}

void TransactionLog::write_failed() const {
  throw std::runtime_error("cannot write transaction log " + path_ + ": " + std::strerror(errno));
}

void TransactionLog::open(const std::string& path) {
  path_ = path;
  file_ = std::fopen(path.c_str(), "w");
  if (!file_) {
    write_failed();
  }
  buffer_.clear();
  fmt::format_to(std::back_inserter(buffer_), "{}\n", kHeader);
  lines_ = 0;
  instant_.clear();
  lines_of_instant_.clear();
}

void TransactionLog::end_instant() {
  if (lines_of_instant_.size() > 1) {
    std::sort(lines_of_instant_.begin(), lines_of_instant_.end(), [](const Line& a, const Line& b) {
      return a.complete_ps != b.complete_ps ? a.complete_ps < b.complete_ps : a.id < b.id;
    });
  }
  for (const Line& l : lines_of_instant_) {
    buffer_.append(instant_.data() + l.begin, instant_.data() + l.end);
  }
  instant_.clear();
  lines_of_instant_.clear();
  if (buffer_.size() >= kFlushBytes) flush();
}

void TransactionLog::record(const RequestExt& e, std::uint64_t arrival_ps, int status) {
  if (!file_) return;
  // Records come in simulated-time order; one at a later time closes the instant before it.
  const std::uint64_t now = now_ps();
  if (now != instant_ps_) end_instant();
  instant_ps_ = now;
  const std::size_t begin = instant_.size();
  const BlockId initiator = e.hops[0].block();
  const BlockId target = e.hops[e.hop_count - 1].block();
  fmt::format_to(std::back_inserter(instant_), "{},{},{},{},{},0x{:x},0x{:x},{},0x{:x},", e.id,
                 BlockRegistry::name(initiator), e.stream, op_name(e), e.length, e.virtual_address,
                 e.physical_address, BlockRegistry::name(target), e.channel_address);
  fmt::format_to(std::back_inserter(instant_), "{},{},{},{},", e.issue_ps, e.service_start_ps,
                 arrival_ps, arrival_ps - e.issue_ps);
  if (status == 1) {
    fmt::format_to(std::back_inserter(instant_), "ok\n");
  } else {
    fmt::format_to(std::back_inserter(instant_), "status {}\n", status);
  }
  lines_of_instant_.push_back({arrival_ps, e.id, begin, instant_.size()});
  ++lines_;
}

void TransactionLog::flush() {
  if (buffer_.size() != 0 &&
      std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) {
    write_failed();
  }
  buffer_.clear();
}

void TransactionLog::close() {
  if (!file_) return;
  end_instant();
  flush();
  const int rc = std::fclose(file_);
  file_ = nullptr;
  if (rc != 0) {
    write_failed();
  }
}

}  // namespace famsim
