// TlmMemoryBridge: a memory channel of famsim served by a foreign TLM-2.0 target (co-simulation).
//
// The mirror of TlmBridge (tlm_bridge.h): there a foreign initiator drives famsim's blocks, here
// famsim's blocks drive a foreign memory model written to the IEEE 1666-2011 base protocol (a
// DRAM simulator such as DRAMSys, a memory controller's RTL behind a transactor, a team's own
// SystemC memory). It takes the place of a DramController or IdealMemory behind a device's
// interconnect or a GPU's hub (`memory: {model: external}` in a platform file, which builds one
// bridge per channel), so the fabric, port logic and on-device network run against the foreign
// memory's timing. The foreign target sees plain generic payloads of the bridge's own (command,
// address, data, length, streaming width = length, no byte enables, no extensions) from a memory
// manager of the bridge's; famsim's payloads never leave famsim.
//
// Hand-shake, both sides approximately timed (four phases):
//   famsim side   BEGIN_REQ from the block in front is answered END_REQ only when the foreign
//                 target has taken the request (its END_REQ, or a BEGIN_RESP or TLM_COMPLETED
//                 that implies it) and a slot was free: the foreign memory's backpressure reaches
//                 famsim as a withheld END_REQ, as between famsim's own blocks. Responses go back
//                 as BEGIN_RESP in the order of the times the foreign target's answers take
//                 effect (sc_time_stamp() + annotated delay; equal times in the order it sent
//                 them, whatever the order of the requests), the next after the block in front
//                 took the last (END_RESP).
//   foreign side  one BEGIN_REQ at a time (exclusion rule), annotated with famsim's local time
//                 offset; the foreign target's BEGIN_RESP is taken at once (TLM_COMPLETED: the
//                 slot is its buffer), so the foreign target never waits for famsim. A target
//                 that answers BEGIN_REQ with TLM_UPDATED/BEGIN_RESP gets END_RESP at once (and
//                 may return TLM_COMPLETED or TLM_ACCEPTED to it). Phases other than the base
//                 protocol's four are ignorable (ignorable_phase.h): one the target sends is
//                 answered TLM_ACCEPTED, one it returns with TLM_UPDATED is taken as TLM_ACCEPTED;
//                 either way the bridge does nothing else with it but count it.
// The bridge takes no time itself: a request goes out at the instant it arrives (when nothing
// waits before it and no atomic holds the way, below) and its answer is ready at the instant the
// foreign BEGIN_RESP takes effect; an atomic's write-back goes out at the instant its read's
// BEGIN_RESP takes effect (when a payload is free).
// An LT-only target on a convenience socket (tlm_utils::simple_target_socket with only
// b_transport registered) works too: the socket turns the phases into a b_transport call.
//
// Addresses: the foreign target sees the channel's own address (RequestExt::channel_address: the
// device's or GPU's interleave already took the channel bits out, as a channel's controller sees
// it) plus address_offset.
//
// Atomics (famsim's extension, RequestExt::atomic: fetch-add or compare-and-swap on a naturally
// aligned 4 or 8 B little-endian word) have no command in the base protocol, so the bridge
// executes them on the foreign memory itself, as a memory-side atomic unit in front of a plain
// memory would:
//   1. a TLM_READ_COMMAND of the word (its length, at its address as any request's) goes out;
//      the block in front gets END_REQ when the foreign target took it, as for a read;
//   2. when its answer takes effect, OK, the bridge works out the new word (atomic_result,
//      models/memory/atomic.h, the arithmetic the device's own memories use) and, if it differs
//      from the old, sends a TLM_WRITE_COMMAND of it to the same address at that time. An
//      unchanged word (a compare-and-swap that missed, a fetch-add of 0) is not written back:
//      the memory holds the result already, and the write would only cost the foreign memory's
//      bandwidth (execute_atomic leaves the device's own backing stores alone then too, though
//      DramController's and IdealMemory's timing count a write-back burst for every atomic).
//      The write-back takes a payload of the pool, as a request does (it waits for one if the
//      target keeps them all); the atomic keeps the one slot it took for its read;
//   3. famsim's request is answered with the word's OLD value in its data and OK, as a
//      DramController or IdealMemory answers an atomic, when the write-back's answer takes effect
//      (with no write-back: the read's). Not already at the write-back's END_REQ, which would be
//      atomic too (the rule below), because a write-back the foreign memory then fails must reach
//      famsim as the atomic's status, not an OK for a word that was never stored. It costs the
//      atomic's latency one write's service, and its slot is held as long; the way is free for
//      other requests from the write-back's END_REQ on all the same.
//   A foreign error on the read or the write-back is famsim's answer with that status, as for any
//   request; a failed read is not written back.
//   Atomicity, the rule: from the atomic's read going out until its write-back has been taken by
//   the foreign target (its END_REQ, or an implied one), or until the read's answer took effect
//   when nothing is written back, the bridge sends nothing else to the foreign target. famsim's
//   next request waits with END_REQ withheld (real backpressure, counted in backpressure_ns), so
//   no access of famsim's can come between the read and the write-back. Its cost: while an
//   atomic is in that window the channel serves nothing else, even other addresses; requests sent
//   before the atomic are unaffected. Assumed of the foreign target, as of any memory: it keeps
//   the order of accesses to one address (a later read of the word sees the write-back taken
//   before it), whatever it reorders among different addresses. Another initiator that the
//   foreign memory has besides this bridge is not held back by the rule.
//
// Time under the famsim kernel (models/core/wakeup.h), as TlmBridge: a call to the foreign target
// carries famsim's local time offset as its annotated delay and ends the run-ahead there
// (Scheduler::yield); a call from it (its END_REQ, BEGIN_RESP, a payload given back) brings
// famsim's local time up to its own first (Scheduler::sync_to_systemc), and takes effect at
// sc_time_stamp() + its annotated delay.
//
// Ports
//   up    famsim target socket: the interconnect's channel output binds here (as a memory's `up`)
//   out   plain initiator socket: the foreign target binds its target socket here
//
// Parameters (TlmMemoryBridgeParams)
//   name             the foreign memory's name in reports ("DRAMSys DDR5-4800", say)
//   peak_gbps        its peak data bandwidth, GB/s, as its owner states it: famsim does not
//                    measure it, but its validate figures, utilisation and bottleneck analysis
//                    use it
//   max_outstanding  requests in the bridge at once (its slots: one from the moment a request
//                    goes out to the foreign target until its answer is taken by the block in
//                    front)
//   address_offset   added to the channel address to give the foreign address; a multiple of
//                    8 B, so that an atomic's word stays aligned (std::invalid_argument otherwise)
//
// Statistics (ComponentReport): bytes, utilization (achieved over peak bandwidth),
// backpressure_ns (time requests from the block in front waited for END_REQ: the bridge's slots,
// the foreign target's END_REQ or an atomic holding the way), requests (famsim's), reads, writes,
// read/write bytes (the foreign accesses made: an atomic is one read of its length and, when it
// changes the word, one write), atomics (famsim's atomics executed: their read went out, whether
// it failed or not), atomic_write_backs (of those, the ones written back), read_latency_ns and
// write_latency_ns (arrival at the bridge to the answer taken by the block in front, as a
// memory's), atomic_latency_ns (the same for atomics, apart: a read and a write-back in a row,
// which would skew the reads'; the device's own memories count theirs among reads, where an
// atomic costs about a read), mean_outstanding, answered_at_once.atomics (atomics the bridge
// answered itself; 0 since it executes them, kept as a stable key), ignored_phases (ignorable
// phases the target sent or returned); the slots are a resource of the bottleneck analysis, the
// data path at peak_gbps one, and, once an atomic ran, the atomics' hold on the way (whole run
// only: its share of the time, in M atomics/s), so that a run whose atomics keep the foreign
// memory from other requests names the hold, not a lightly used data path (requests it held back
// still count in backpressure_ns).
#pragma once

#include "models/core/ports.h"
#include "models/core/ring.h"
#include "models/core/occupancy.h"
#include "models/core/sim_context.h"
#include "models/core/wakeup.h"
#include "models/cosim/foreign_time.h"

#include <systemc>
#include <tlm>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace famsim {

struct TlmMemoryBridgeParams {
  std::string name = "external";
  double peak_gbps = 0;
  unsigned max_outstanding = 32;
  std::uint64_t address_offset = 0;
  // Where a platform file asked for it ("file:line: key.path"), for messages; empty otherwise.
  std::string config_location;
};

class TlmMemoryBridge : public sc_core::sc_module, public Component, tlm::tlm_mm_interface {
 public:
  TargetPort<TlmMemoryBridge> up;
  tlm::tlm_initiator_socket<> out;

  // `data_bytes`: the largest request famsim sends it (the payload pool's data size).
  // std::invalid_argument if max_outstanding is 0.
  TlmMemoryBridge(sc_core::sc_module_name name, SimContext& ctx,
                  const TlmMemoryBridgeParams& params, std::uint32_t data_bytes);
  ~TlmMemoryBridge() override;

  // famsim's side (`up`).
  Sync fw(unsigned port, Payload& p, Phase& phase, sc_core::sc_time& t);

  void report(ComponentReport& r, const ReportWindow& window) const override;
  void probes(std::vector<ResourceProbe>& out) const override;
  std::size_t occupancy() const override;

  const TlmMemoryBridgeParams& params() const { return params_; }
  // Payloads the foreign target has not given back (their reference count is above 0).
  unsigned foreign_in_use() const;
  // A debug access (transport_dbg, no time, no statistics) of `len` bytes at channel address `a`
  // (address_offset is added) in the foreign target. Returns the bytes it did.
  std::uint64_t debug_access(bool write, std::uint64_t a, unsigned char* data, std::uint64_t len);

 private:
  static constexpr std::uint32_t kNone = ~0u;

  // A payload of the bridge's own, and which of famsim's requests it carries.
  struct ForeignPayload : tlm::tlm_generic_payload {
    explicit ForeignPayload(tlm::tlm_mm_interface* mm) : tlm::tlm_generic_payload(mm) {}
    std::vector<unsigned char> data;
    Payload* ours = nullptr;
    std::uint64_t sent_ps = 0;
    bool request_ended = false;  // the foreign target took it (END_REQ or an implied one)
  };
  // An answer on its way back to the block in front.
  struct Answer {
    Payload* ours = nullptr;
    std::uint64_t ready_ps = 0;
  };

  struct Bw : tlm::tlm_bw_transport_if<> {
    explicit Bw(TlmMemoryBridge& b) : bridge(b) {}
    Sync nb_transport_bw(tlm::tlm_generic_payload& p, Phase& phase, sc_core::sc_time& t) override {
      return bridge.foreign_bw(static_cast<ForeignPayload&>(p), phase, t);
    }
    void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}
    TlmMemoryBridge& bridge;
  };

  Sync foreign_bw(ForeignPayload& f, Phase& phase, sc_core::sc_time& t);
  void free(tlm::tlm_generic_payload* p) override;  // tlm_mm_interface: a payload came back
  // Sends the pending request to the foreign target (an atomic's read, for an atomic).
  void send(std::uint64_t now);
  // Sends the held atomic's write-back of write_back_word_.
  void send_write_back(std::uint64_t now);
  // A free payload filled for a `write` or read of `ours`'s length at its address, counted in the
  // statistics and acquired.
  ForeignPayload& take_foreign(Payload& ours, bool write, std::uint64_t now);
  // Its BEGIN_REQ to the foreign target, and what the call's return says.
  void transmit(ForeignPayload& f, std::uint64_t now);
  // The atomic's hold ends at `at_ps` (its write-back taken, or its read answered without one).
  void end_hold(std::uint64_t at_ps);
  // The hold as a resource of the bottleneck analysis (a ComponentReport entry).
  void atomic_hold(ComponentReport& r, const ReportWindow& window) const;
  // The block in front gets END_REQ for the pending request once the foreign target took it.
  void end_request(std::uint64_t now);
  // The foreign target took the request in `f` at `at_ps`; its service (the per-hop breakdown's)
  // counts from `service_start_ps`.
  void request_taken(ForeignPayload& f, std::uint64_t at_ps, std::uint64_t service_start_ps);
  // Its answer took effect at `at_ps`: copies it into famsim's payload and queues it.
  void answered(ForeignPayload& f, std::uint64_t at_ps);
  // Puts the answer in `ours`, ready at `ready_ps`, among answers_ by that time (after those
  // ready at the same time).
  void queue_answer(Payload& ours, std::uint64_t ready_ps);
  friend class Wakeup;  // runs behaviour()
  void behaviour();

  TlmMemoryBridgeParams params_;
  ForeignTime time_;
  Bw bw_;
  std::vector<std::unique_ptr<ForeignPayload>> foreign_;
  Ring<ForeignPayload*> free_foreign_;
  Ring<Answer> answers_;  // by the time they took effect, then in the order the target answered
  // The request from the block in front that has not had END_REQ (at most one: exclusion rule),
  // since when, and the foreign payload carrying it once sent (null before).
  Payload* pending_ = nullptr;
  std::uint64_t pending_since_ps_ = 0;
  ForeignPayload* sending_ = nullptr;
  std::uint64_t end_req_ps_ = Wakeup::kNever;  // when the foreign target took it
  unsigned in_bridge_ = 0;                     // slots in use
  // The atomic holding the way (module comment: from its read going out to its write-back taken,
  // at most one), nothing going out before hold_until_ps_ (kNever while the atomic's read or
  // write-back is unanswered or untaken), and its write-back, due at write_back_ps_ (kNever: none
  // due) with the new word's bytes.
  Payload* atomic_ = nullptr;
  std::uint64_t hold_until_ps_ = 0;
  std::uint64_t hold_since_ps_ = 0;  // when the hold on now began (its read went out)
  std::uint64_t held_ps_ = 0;        // the ended holds' time, for the report
  std::uint64_t write_back_ps_ = Wakeup::kNever;
  unsigned char write_back_word_[8] = {};
  bool upstream_busy_ = false;                 // a BEGIN_RESP not yet taken by the block in front
  Wakeup wake_;

  OccupancyGauge outstanding_;
  std::uint64_t bytes_ = 0;  // sent to the foreign target, reads and writes
  std::uint64_t reads_ = 0;
  std::uint64_t writes_ = 0;
  std::uint64_t read_bytes_ = 0;
  std::uint64_t write_bytes_ = 0;
  std::uint64_t atomics_ = 0;
  std::uint64_t write_backs_ = 0;
  std::uint64_t ignored_phases_ = 0;
  std::uint64_t backpressure_ps_ = 0;
  LatencyHistogram read_latency_;
  LatencyHistogram write_latency_;
  LatencyHistogram atomic_latency_;
};

}  // namespace famsim
