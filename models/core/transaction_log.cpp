#include "models/core/transaction_log.h"

#include "models/core/clock.h"
#include "models/core/hash.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <string_view>
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
  forget_lines();
}

void TransactionLog::forget_lines() {
  instant_.clear();
  lines_of_instant_.clear();
  owed_.clear();
  waiting_.clear();
  waiting_first_ = 0;
  waiting_text_.clear();
  waiting_text_used_ = 0;
}

void TransactionLog::write_failed() const {
  throw std::runtime_error("cannot write transaction log " + path_ + ": " + std::strerror(errno));
}

void TransactionLog::open(const std::string& path, bool data_hash) {
  path_ = path;
  file_ = std::fopen(path.c_str(), "w");
  if (!file_) {
    write_failed();
  }
  data_hash_ = data_hash;
  buffer_.clear();
  fmt::format_to(std::back_inserter(buffer_), "{}{}{}\n", kHeader, data_hash ? "," : "",
                 data_hash ? kDataHashColumn : "");
  lines_ = 0;
  forget_lines();
}

void TransactionLog::emit(const char* text, const Text& t, std::uint64_t service_start_ps,
                          std::uint64_t memory_done_ps) {
  auto time = [this](std::uint64_t ps) {
    if (ps == kUnknown) {
      buffer_.push_back('-');
    } else {
      fmt::format_to(std::back_inserter(buffer_), "{}", ps);
    }
  };
  buffer_.append(text + t.begin, text + t.hole1);
  time(service_start_ps);
  buffer_.append(text + t.hole1, text + t.hole2);
  time(memory_done_ps);
  buffer_.append(text + t.hole2, text + t.end);
}

void TransactionLog::resolve(const Owed& o, bool write, std::uint64_t& service_start_ps,
                             std::uint64_t& memory_done_ps) {
  // A posted write's service starts at its first DRAM command (its acceptance is what the
  // requester saw); an atomic's at its read's, unless its write-back went first.
  if (write) {
    service_start_ps = o.first_command_ps;
  } else if (o.first_command_ps != kUnknown) {
    service_start_ps = std::min(service_start_ps, o.first_command_ps);
  }
  memory_done_ps = o.parts == 0 ? std::max(memory_done_ps, o.done_ps) : kUnknown;
}

void TransactionLog::end_instant() {
  if (lines_of_instant_.size() > 1) {
    std::sort(lines_of_instant_.begin(), lines_of_instant_.end(), [](const Line& a, const Line& b) {
      return a.complete_ps != b.complete_ps ? a.complete_ps < b.complete_ps : a.id < b.id;
    });
  }
  for (const Line& l : lines_of_instant_) {
    std::uint64_t service = l.service_start_ps, done = l.memory_done_ps;
    bool ready = true;
    if (l.tracked) {
      const auto it = owed_.find(l.id);
      if (it->second.parts == 0) {
        resolve(it->second, l.write, service, done);
        owed_.erase(it);
      } else {
        ready = false;
        it->second.line = waiting_first_ + waiting_.size();
      }
    }
    if (ready && waiting_.empty()) {
      emit(instant_.data(), l.text, service, done);
      continue;
    }
    // Behind a line that waits (or waiting itself): its text moves to waiting_text_.
    const std::size_t at = waiting_text_.size();
    waiting_text_.append(instant_.data() + l.text.begin, instant_.data() + l.text.end);
    const std::size_t shift = at - l.text.begin;
    waiting_.push_back(
        {{l.text.begin + shift, l.text.hole1 + shift, l.text.hole2 + shift, l.text.end + shift},
         service,
         done,
         l.write,
         ready});
  }
  instant_.clear();
  lines_of_instant_.clear();
  if (buffer_.size() >= kFlushBytes) flush();
}

void TransactionLog::write_ready() {
  while (!waiting_.empty() && waiting_.front().ready) {
    const Waiting& w = waiting_.front();
    emit(waiting_text_.data(), w.text, w.service_start_ps, w.memory_done_ps);
    waiting_text_used_ = w.text.end;
    waiting_.pop_front();
    ++waiting_first_;
  }
  if (waiting_.empty()) {
    waiting_text_.clear();
    waiting_text_used_ = 0;
  } else if (waiting_text_used_ >= kFlushBytes && 2 * waiting_text_used_ >= waiting_text_.size()) {
    // Drop the text already written, so a long wait holds only the lines still waiting.
    const std::size_t used = waiting_text_used_;
    std::memmove(waiting_text_.data(), waiting_text_.data() + used, waiting_text_.size() - used);
    waiting_text_.resize(waiting_text_.size() - used);
    for (Waiting& w : waiting_) {
      w.text.begin -= used;
      w.text.hole1 -= used;
      w.text.hole2 -= used;
      w.text.end -= used;
    }
    waiting_text_used_ = 0;
  }
  if (buffer_.size() >= kFlushBytes) flush();
}

void TransactionLog::expect_memory_done(std::uint64_t id) {
  if (file_) ++owed_[id].parts;
}

void TransactionLog::memory_done(std::uint64_t id, std::uint64_t first_command_ps,
                                 std::uint64_t done_ps) {
  if (!file_) return;
  const auto it = owed_.find(id);
  if (it == owed_.end() || it->second.parts == 0) return;
  Owed& o = it->second;
  o.first_command_ps = std::min(o.first_command_ps, first_command_ps);
  o.done_ps = std::max(o.done_ps, done_ps);
  if (--o.parts != 0 || o.line == kUnknown) return;
  // Its line is waiting: complete it, and write what no longer waits.
  Waiting& w = waiting_[o.line - waiting_first_];
  resolve(o, w.write, w.service_start_ps, w.memory_done_ps);
  w.ready = true;
  owed_.erase(it);
  write_ready();
}

void TransactionLog::record(const RequestExt& e, std::uint64_t arrival_ps, int status,
                            const unsigned char* data) {
  if (!file_) return;
  // Records come in simulated-time order; one at a later time closes the instant before it.
  const std::uint64_t now = now_ps();
  if (now != instant_ps_) end_instant();
  instant_ps_ = now;
  Text t;
  t.begin = instant_.size();
  const BlockId initiator = e.hops[0].block();
  const HopRecord& target = e.hops[e.hop_count - 1];
  fmt::format_to(std::back_inserter(instant_), "{},{},{},{},{},0x{:x},0x{:x},{},0x{:x},{},", e.id,
                 BlockRegistry::name(initiator), e.stream, op_name(e), e.length, e.virtual_address,
                 e.physical_address, BlockRegistry::name(target.block()), e.channel_address,
                 e.issue_ps);
  t.hole1 = instant_.size();
  fmt::format_to(std::back_inserter(instant_), ",{},{},", arrival_ps, arrival_ps - e.issue_ps);
  if (status == 1) {
    fmt::format_to(std::back_inserter(instant_), "ok,");
  } else {
    fmt::format_to(std::back_inserter(instant_), "status {},", status);
  }
  t.hole2 = instant_.size();
  if (data_hash_) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), e.length);
    fmt::format_to(std::back_inserter(instant_), ",{:016x}", fnv1a(bytes));
  }
  instant_.push_back('\n');
  t.end = instant_.size();
  // The target's record holds when its response was ready: the end of a read's data, a write's
  // on completion, a posted write's acceptance (then its DRAM completion comes later).
  const bool tracked = !owed_.empty() && owed_.count(e.id) != 0;
  lines_of_instant_.push_back(
      {arrival_ps, e.id, t, e.service_start_ps, target.resp_in_ps(), e.write, tracked});
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
  // A run cut short by sim.max_time_ns: posted writes the DRAM had not written yet are written
  // with what is known ("-" for the rest).
  for (Waiting& w : waiting_) w.ready = true;
  for (auto& [id, o] : owed_) {
    if (o.line == kUnknown) continue;
    Waiting& w = waiting_[o.line - waiting_first_];
    resolve(o, w.write, w.service_start_ps, w.memory_done_ps);
  }
  owed_.clear();
  write_ready();
  flush();
  const int rc = std::fclose(file_);
  file_ = nullptr;
  if (rc != 0) {
    write_failed();
  }
}

}  // namespace famsim
