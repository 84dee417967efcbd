// A Link in isolation: a source of requests on one side and a sink that answers them on the
// other, both speaking famsim's 4-phase protocol (models/core/ports.h). Used by the link tests
// and the link benchmark. The source issues as fast as the link accepts (END_REQ), the sink
// accepts a request when its response queue has room, waits `service_ps`, and answers. Both check
// that every request is seen exactly once and that its data is intact: write data is a pattern of
// the request id (checked by the sink), read data a pattern of the address (checked by the
// source).
#pragma once

#include "models/core/ports.h"
#include "models/core/ring.h"
#include "models/core/sim_context.h"
#include "models/core/wakeup.h"

#include <systemc>

#include <cstdint>
#include <vector>

namespace famsim::test {

inline unsigned char write_pattern(std::uint64_t id, unsigned i) {
  return static_cast<unsigned char>(id * 131 + i * 7 + 1);
}
inline unsigned char read_pattern(std::uint64_t address, unsigned i) {
  return static_cast<unsigned char>((address >> 4) * 29 + i * 3 + 5);
}

class LinkSource : public sc_core::sc_module {
 public:
  InitiatorPort<LinkSource> out;

  LinkSource(sc_core::sc_module_name name, SimContext& ctx, bool write, unsigned bytes,
             std::uint64_t count, std::uint64_t id_base = 0)
      : sc_core::sc_module(name),
        out("out", *this, 0),
        ctx_(ctx),
        write_(write),
        bytes_(bytes),
        count_(count),
        id_base_(id_base),
        seen_(count, 0),
        wake_("wake", ctx.scheduler(), this, &Wakeup::call_behaviour<LinkSource>) {}

  // Starts issuing at `at_ps` (call before sc_start).
  void start(std::uint64_t at_ps) { wake_.at(at_ps, 0); }

  Sync bw(unsigned, Payload& p, Phase& phase, sc_core::sc_time&) {
    if (phase == tlm::END_REQ) {
      waiting_end_req_ = false;
      wake_.asap();
      return tlm::TLM_ACCEPTED;
    }
    if (phase != tlm::BEGIN_RESP) protocol_error(name(), phase, "the link");
    RequestExt& e = ext_of(p);
    const std::uint64_t k = e.id - id_base_;
    if (k >= count_ || seen_[k]++ != 0 || !e.outstanding) {
      ++duplicates;
    }
    e.outstanding = false;
    if (!write_) {
      const unsigned char* d = p.get_data_ptr();
      for (unsigned i = 0; i < bytes_; ++i) {
        if (d[i] != read_pattern(p.get_address(), i)) {
          ++data_errors;
          break;
        }
      }
    }
    ++completed;
    const std::uint64_t now = now_ps();
    if (completed == 1) first_completion_ps = now;
    last_completion_ps = now;
    p.release();
    return tlm::TLM_COMPLETED;
  }

  void behaviour() {
    wake_.fired();
    const std::uint64_t now = now_ps();
    while (!waiting_end_req_ && issued < count_) {
      Payload& p = ctx_.pool.allocate();
      p.acquire();
      p.set_command(write_ ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
      p.set_address(issued * 4096);
      p.set_data_length(bytes_);
      RequestExt& e = ext_of(p);
      e.write = write_;
      e.length = bytes_;
      e.physical_address = p.get_address();
      e.id = id_base_ + issued;
      e.issue_ps = now;
      e.outstanding = true;
      if (write_) {
        for (unsigned i = 0; i < bytes_; ++i) p.get_data_ptr()[i] = write_pattern(e.id, i);
      }
      ++issued;
      if (!out.send_req(p)) waiting_end_req_ = true;
    }
  }

  std::uint64_t issued = 0;
  std::uint64_t completed = 0;
  std::uint64_t duplicates = 0;
  std::uint64_t data_errors = 0;
  std::uint64_t first_completion_ps = 0;
  std::uint64_t last_completion_ps = 0;
  bool all_completed_once() const {
    for (std::uint8_t s : seen_) {
      if (s != 1) return false;
    }
    return duplicates == 0;
  }

 private:
  SimContext& ctx_;
  bool write_;
  unsigned bytes_;
  std::uint64_t count_;
  std::uint64_t id_base_;
  std::vector<std::uint8_t> seen_;
  bool waiting_end_req_ = false;
  Wakeup wake_;
};

class LinkSink : public sc_core::sc_module {
 public:
  TargetPort<LinkSink> in;

  // `expected`: requests it will see (ids id_base .. id_base + expected - 1), for the
  // exactly-once check. `accept_from_ps`: it takes no request before this time (a stalled
  // receiver).
  LinkSink(sc_core::sc_module_name name, SimContext& ctx, std::uint64_t expected,
           std::uint64_t id_base = 0, std::uint64_t service_ps = 0, unsigned queue = 64,
           std::uint64_t accept_from_ps = 0)
      : sc_core::sc_module(name),
        in("in", *this, 0),
        id_base_(id_base),
        service_ps_(service_ps),
        accept_from_ps_(accept_from_ps),
        seen_(expected, 0),
        wake_("wake", ctx.scheduler(), this, &Wakeup::call_behaviour<LinkSink>) {
    queue_.set_capacity(queue);
    arrivals.reserve(expected);
  }

  Sync fw(unsigned, Payload& p, Phase& phase, sc_core::sc_time&) {
    const std::uint64_t now = now_ps();
    if (phase == tlm::END_RESP) {
      resp_busy_ = false;
      wake_.asap();
      return tlm::TLM_ACCEPTED;
    }
    if (phase != tlm::BEGIN_REQ) protocol_error(name(), phase, "the link");
    if (queue_.full() || now < accept_from_ps_) {
      hold_.hold(p, now);
      wake_.at(std::max(now, accept_from_ps_), now);
      return tlm::TLM_ACCEPTED;
    }
    take(p, now);  // takes its own reference
    phase = tlm::END_REQ;
    return tlm::TLM_UPDATED;
  }

  void behaviour() {
    wake_.fired();
    const std::uint64_t now = now_ps();
    if (!hold_.empty() && !queue_.full() && now >= accept_from_ps_) {
      std::uint64_t ignored = 0;
      Payload& p = hold_.take(now, ignored);
      take(p, now);
      p.release();  // take() acquired its own reference
      in.send_end_req(p);
    }
    while (!resp_busy_ && !queue_.empty() && queue_.front().ready_ps <= now) {
      Payload& p = *queue_.front().payload;
      queue_.pop_front();
      p.set_response_status(tlm::TLM_OK_RESPONSE);
      const bool taken = in.send_resp(p);
      p.release();
      if (!taken) resp_busy_ = true;
      if (!hold_.empty() && now >= accept_from_ps_) wake_.asap();
    }
    if (!resp_busy_ && !queue_.empty()) wake_.at(queue_.front().ready_ps, now);
  }

  std::uint64_t received = 0;
  std::uint64_t bytes = 0;
  std::uint64_t duplicates = 0;
  std::uint64_t data_errors = 0;
  std::vector<std::uint64_t> arrivals;  // ps, in order
  bool all_seen_once() const {
    for (std::uint8_t s : seen_) {
      if (s != 1) return false;
    }
    return duplicates == 0;
  }

 private:
  struct Entry {
    Payload* payload = nullptr;
    std::uint64_t ready_ps = 0;
  };
  void take(Payload& p, std::uint64_t now) {
    p.acquire();
    RequestExt& e = ext_of(p);
    const std::uint64_t k = e.id - id_base_;
    if (k >= seen_.size() || seen_[k]++ != 0) ++duplicates;
    unsigned char* d = p.get_data_ptr();
    if (e.write) {
      for (unsigned i = 0; i < e.length; ++i) {
        if (d[i] != write_pattern(e.id, i)) {
          ++data_errors;
          break;
        }
      }
    } else {
      for (unsigned i = 0; i < e.length; ++i) d[i] = read_pattern(p.get_address(), i);
    }
    ++received;
    bytes += e.length;
    arrivals.push_back(now);
    queue_.push_back({&p, now + service_ps_});
    wake_.at(now + service_ps_, now);
  }

  std::uint64_t id_base_;
  std::uint64_t service_ps_;
  std::uint64_t accept_from_ps_;
  std::vector<std::uint8_t> seen_;
  Ring<Entry> queue_;
  HoldSlot hold_;
  bool resp_busy_ = false;
  Wakeup wake_;
};

// Steady-state rate of arrivals at a sink, bytes per ns (GB/s): from arrival `skip` to the last.
inline double steady_gbps(const LinkSink& s, unsigned bytes_each, std::size_t skip) {
  const auto& a = s.arrivals;
  if (a.size() <= skip + 1) return 0.0;
  const double n = static_cast<double>(a.size() - 1 - skip);
  return n * bytes_each * 1000.0 / static_cast<double>(a.back() - a[skip]);
}

}  // namespace famsim::test
