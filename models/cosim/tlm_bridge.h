// TlmBridge: the way into famsim for a foreign TLM-2.0 initiator (co-simulation).
//
// A CPU, DMA engine or accelerator model written to the IEEE 1666-2011 base protocol knows nothing
// of famsim's payload pool or its request extension (models/core/request.h), which every famsim
// block reads. The bridge takes the foreign initiator's generic payloads on a plain target socket,
// carries each through famsim as a pooled payload of its own (command, address, data and the
// extension, filled in as a GPU fills it), and answers the foreign payload with the data and
// response status that came back. It speaks both styles of the base protocol:
//   nb_transport_fw  approximately timed, four phases. A BEGIN_REQ takes effect at
//                    sc_time_stamp() + its annotated delay. END_REQ follows when the bridge had a
//                    slot free (max_outstanding) and the famsim block behind it took the request:
//                    that block's backpressure reaches the initiator, which may send nothing more
//                    until then (exclusion rule). BEGIN_RESP goes out as famsim's answer arrives,
//                    one at a time: the next waits for the initiator's END_RESP (or its
//                    TLM_COMPLETED, or TLM_UPDATED with END_RESP, on return). Phases other than
//                    the base protocol's four are ignorable (ignorable_phase.h): one the
//                    initiator sends is answered TLM_ACCEPTED, one it returns with TLM_UPDATED is
//                    taken as TLM_ACCEPTED; either way the bridge does nothing else with it but
//                    count it.
//   b_transport      loosely timed initiators: the call waits out its annotated delay, then the
//                    answer through the same approximately timed path, and returns with a zero
//                    delay (the time has passed). It waits, so the caller must be an SC_THREAD;
//                    several threads may call at once, up to max_outstanding in flight. Its
//                    answer goes back as it arrives, not behind an nb_transport answer waiting
//                    for its END_RESP: the exclusion rules are nb_transport's hand-shake, and
//                    another thread is another initiator to them.
// The bridge takes no time itself: a request enters famsim at the instant it takes effect and its
// answer leaves at the instant it arrives. No DMI: get_direct_mem_ptr answers false, with the
// denial's access (read and write) and range (every address) set, so the initiator need not ask
// again. Every access through the bridge is timed, apart from debug transport: transport_dbg
// (loading an image before the run, looking at results after it) goes to the function
// set_debug_access() gave (ExpansionDevice::debug_access: the backing stores, no time), for a
// read or write wholly inside the window; otherwise it answers 0 bytes. Byte enables and a
// streaming width count only in a payload whose gp_option is TLM_FULL_PAYLOAD (IEEE 1666-2011:
// with the default TLM_MIN_PAYLOAD the initiator sets only command, address, data pointer and
// length, and a payload used again may carry a stale byte-enable pointer): such an access with
// byte enables, or a streaming width under its length, answers 0 bytes too, and the bridge sets
// gp_option to TLM_FULL_PAYLOAD_ACCEPTED, for it took those attributes into account.
//
// Atomics: a read carrying a TlmAtomic extension (models/cosim/tlm_atomic.h: fetch-add or
// compare-and-swap of a 4 or 8 B little-endian word) enters famsim as an atomic request
// (RequestExt::atomic), which the device executes at its memory channel as it does a GPU's; the
// response's data is the word's old value.
//
// What famsim cannot carry never enters famsim and is answered at once: BEGIN_REQ returns
// TLM_COMPLETED, b_transport returns without waiting. Only while a BEGIN_RESP is open (the
// initiator has not ended it) does such a BEGIN_REQ get TLM_ACCEPTED instead, for TLM_COMPLETED
// would imply a second response at once (the response exclusion rule): END_REQ follows as for
// any request (a slot holds it), and its BEGIN_RESP after the open response has ended, through
// the same path as famsim's answers. The response status it gets:
//   TLM_ADDRESS_ERROR_RESPONSE      an access not wholly inside the window (below), after
//                                   address_offset is added
//   TLM_BYTE_ENABLE_ERROR_RESPONSE  byte enables (famsim's memories write whole requests)
//   TLM_BURST_ERROR_RESPONSE        a streaming width under the data length, a data length
//                                   of 0, or one above the payload pool's data size (SimContext's
//                                   max_data_bytes); an atomic (above) of other than 4 or 8 B
//   TLM_COMMAND_ERROR_RESPONSE      an atomic on a command other than a read
//   TLM_ADDRESS_ERROR_RESPONSE      also an atomic's word not at a multiple of its length from
//                                   window_base
//   TLM_OK_RESPONSE                 TLM_IGNORE_COMMAND (nothing to do)
// The first request refused for each reason (outside the window; byte enables; a length of 0;
// above max_data_bytes; a streaming width under the length; each of the three for atomics) is
// reported as a warning
// (SC_REPORT_WARNING with the bridge's name as its message type, at famsim's warning log level,
// models/core/log.h) naming the request and why, for an initiator may not look at response
// statuses; later ones are only counted (answered_at_once).
//
// A run that ends with requests still in the bridge (occupancy() above 0: in famsim unanswered,
// answered and waiting to go back, a BEGIN_RESP waiting for its END_RESP, a BEGIN_REQ not yet
// taken; or a b_transport call not returned, holding no slot: in its annotated delay, waiting for
// a slot, or answered and about to return) is reported the same way, once, with how many are in
// each state and the first of them: the initiator did not have, or did not finish taking, every
// answer, and the usual causes (sc_start() with a time limit
// that ended the run first, an initiator that never sends END_RESP) are easy to overlook. The end
// of the run is SystemC's end_of_simulation(), which the Accellera kernel (2.3.4) calls only when
// sc_stop() ended the simulation, not when sc_start() returned at its time limit or for want of
// events, or else the bridge's destruction, the last point at which nothing can continue the run.
//
// Time under the famsim kernel (models/core/wakeup.h), which runs ahead of sc_time_stamp(): a call
// from the initiator brings famsim's local time up to the initiator's (Scheduler::sync_to_systemc);
// a call the bridge makes to the initiator from inside famsim's run-ahead carries the local time
// offset as its annotated delay, as every famsim call to a module outside famsim does (ports.h),
// and ends the run-ahead there (Scheduler::yield), so the initiator can act at that time before
// famsim goes on. An initiator that acts before a call's annotated delay has passed (no payload
// event queue) is taken at famsim's local time. Under the systemc kernel both are plain SystemC
// time.
//
// Ports
//   in    target socket: the foreign initiator binds its initiator socket here
//   out   initiator socket to a famsim block's target socket: a device port (PortLogic::fabric),
//         a link's `up`, a memory channel
//
// Parameters (TlmBridgeParams)
//   max_outstanding  requests in flight through the bridge at most (its slots; each holds one
//                    foreign payload and famsim's copy of it from BEGIN_REQ to BEGIN_RESP, or
//                    only the foreign payload of a request refused while a response was open)
//   address_offset   added to a foreign address to give the famsim physical address (an
//                    initiator that sees the device at 0 while famsim places it at pa_base)
//   window_base, window_bytes   the famsim physical addresses the block behind the bridge
//                    serves: an access outside gets an address error instead of a famsim
//                    internal error (a device's port logic checks its range as an invariant)
//   source           RequestExt::gpu of its requests: a device's port logic orders responses per
//                    source (in_order); request ids are source << 40 | sequence number, as a
//                    GPU's, so give each bridge a source no GPU or other bridge of the run has
//   target_class     the kind of memory its traffic counts as in the summaries
//
// Statistics (ComponentReport): bytes, utilization (mean of its slots in use), backpressure_ns
// (time foreign requests waited for END_REQ after taking effect: the bridge's slots or famsim's
// backpressure), requests (those that entered famsim), answered_at_once (requests the bridge
// answered itself, never entering famsim, by response status: TLM_ADDRESS_ERROR_RESPONSE and the
// other errors above, and TLM_IGNORE_COMMAND, answered TLM_OK_RESPONSE, under that name; at once
// unless a response was open), mean_outstanding, bandwidth_gbps, read_latency_ns and
// write_latency_ns (from a request taking effect to its answer arriving at the bridge), atomics
// (TlmAtomic requests that entered famsim, counted among the reads),
// ignored_phases (ignorable phases the initiator sent or returned); the slots are a resource of the
// bottleneck analysis, as a GPU's outstanding window.
#pragma once

#include "models/core/initiator.h"
#include "models/core/occupancy.h"
#include "models/core/ports.h"
#include "models/core/ring.h"
#include "models/core/sim_context.h"
#include "models/core/wakeup.h"
#include "models/cosim/foreign_time.h"

#include <systemc>
#include <tlm>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace famsim {

struct TlmBridgeParams {
  unsigned max_outstanding = 16;
  std::uint64_t address_offset = 0;
  std::uint64_t window_base = 0;
  std::uint64_t window_bytes = 0;
  std::uint16_t source = 0;
  TargetClass target_class = TargetClass::kDevice;
};

class TlmBridge : public sc_core::sc_module, public Component, public Initiator {
 public:
  tlm::tlm_target_socket<> in;
  InitiatorPort<TlmBridge> out;

  // std::invalid_argument if max_outstanding is 0 or the window is empty.
  TlmBridge(sc_core::sc_module_name name, SimContext& ctx, const TlmBridgeParams& params);
  ~TlmBridge() override;

  // Where transport_dbg goes: reads or writes `len` bytes at famsim physical address `pa`,
  // returns the bytes done. Unset: transport_dbg answers 0.
  using DebugAccess = std::function<std::uint64_t(bool write, std::uint64_t pa, unsigned char* data,
                                                  std::uint64_t len)>;
  void set_debug_access(DebugAccess f) { debug_access_ = std::move(f); }
  const TlmBridgeParams& params() const { return params_; }

  // famsim's side (`out`).
  Sync bw(unsigned port, Payload& p, Phase& phase, sc_core::sc_time& t);

  void report(ComponentReport& r, const ReportWindow& window) const override;
  void probes(std::vector<ResourceProbe>& out) const override;
  std::size_t occupancy() const override;

  // Nothing in flight: what the foreign initiator sent has been answered (the bridge cannot know
  // whether it will send more).
  bool finished() const override { return occupancy() == 0; }
  // Requests the bridge answered itself, never entering famsim: those answered_at_once counts
  // (the errors and TLM_IGNORE_COMMAND).
  std::uint64_t refused() const;

 protected:
  // The end of the run (after sc_stop()): warns of requests still in the bridge.
  void end_of_simulation() override;

 private:
  static constexpr std::uint32_t kNoSlot = ~0u;

  // The foreign initiator's side (`in`).
  struct Fw : tlm::tlm_fw_transport_if<> {
    explicit Fw(TlmBridge& b) : bridge(b) {}
    Sync nb_transport_fw(Payload& p, Phase& phase, sc_core::sc_time& t) override {
      return bridge.foreign_fw(p, phase, t);
    }
    void b_transport(Payload& p, sc_core::sc_time& t) override { bridge.foreign_b_transport(p, t); }
    bool get_direct_mem_ptr(Payload&, tlm::tlm_dmi& dmi) override { return deny_dmi(dmi); }
    unsigned int transport_dbg(Payload& p) override { return bridge.foreign_dbg(p); }
    TlmBridge& bridge;
  };

  // What a foreign request asked for, copied: the end-of-run warning names it, when the
  // initiator may have let go of (or destroyed) the payload.
  struct Asked {
    tlm::tlm_command command = tlm::TLM_IGNORE_COMMAND;
    std::uint64_t address = 0;
    unsigned length = 0;
    static Asked of(const Payload& p) {
      return {p.get_command(), p.get_address(), p.get_data_length()};
    }
  };

  // One request in flight: the foreign payload and famsim's (none for a request refused while a
  // response was open, which waits in its slot for its turn to be answered).
  struct Slot {
    Payload* foreign = nullptr;
    Payload* ours = nullptr;
    // b_transport's: the event its caller waits on (the caller's own, so that a slot used again
    // at once cannot wake the previous caller's successor).
    sc_core::sc_event* done = nullptr;
    bool answered = false;  // famsim's answer arrived
    Asked asked;
    std::uint64_t order = 0;  // slots taken before it
  };

  Sync foreign_fw(Payload& p, Phase& phase, sc_core::sc_time& t);
  void foreign_b_transport(Payload& p, sc_core::sc_time& t);
  unsigned foreign_dbg(Payload& p);
  // Fills in a DMI denial and returns false.
  static bool deny_dmi(tlm::tlm_dmi& dmi);
  // Whether [address + address_offset, + len) lies in the window; its famsim address in `pa`.
  bool in_window(const Payload& p, std::uint64_t& pa) const;
  // Why admissible() refused a request with an error (a bit of warned_ each).
  enum class Refusal : std::uint8_t {
    kOutsideWindow,
    kByteEnables,
    kNoData,
    kTooLong,
    kStreaming,
    kAtomicNotRead,    // a TlmAtomic on a command other than a read
    kAtomicLength,     // ... of a length other than 4 or 8 B
    kAtomicAlignment,  // ... at an address not a multiple of its length from window_base
  };
  // What famsim cannot carry: sets the payload's error status and returns false. The first
  // refusal for each reason is reported as a warning (an initiator that ignores response
  // statuses would otherwise carry on unaware).
  bool admissible(Payload& p);
  void warn_refused(const Payload& p, std::uint64_t pa, Refusal why) const;
  // The end-of-run warning, if anything is still in the bridge and it was not given yet.
  void warn_in_flight();
  // Takes a free slot for `foreign`.
  std::uint32_t take_slot(Payload& foreign, sc_core::sc_event* done, std::uint64_t now);
  // Builds famsim's payload for the request in slot `s`, issued at `now`.
  void enter_famsim(std::uint32_t s, std::uint64_t now);
  // Hands back the answers that may go now.
  void hand_back(std::uint64_t now);
  // famsim's answer in slot `s` arrived: copies it to the foreign payload and counts it.
  void complete(std::uint32_t s, std::uint64_t now);
  void free_slot(std::uint32_t s, std::uint64_t now);
  // Tells the foreign initiator END_REQ for its pending request.
  void end_foreign_request(std::uint64_t now);
  friend class Wakeup;  // runs behaviour()
  void behaviour();

  SimContext& ctx_;
  ForeignTime time_;
  TlmBridgeParams params_;
  DebugAccess debug_access_;
  Fw fw_;
  std::vector<Slot> slots_;
  Ring<std::uint32_t> free_;
  Ring<std::uint32_t> to_issue_;  // slots waiting for the famsim block, in arrival order
  // Slots whose answer is ready, for behaviour() to hand back: nb_transport's (in arrival order,
  // one BEGIN_RESP at a time) and b_transport's (at once).
  Ring<std::uint32_t> answered_;
  Ring<std::uint32_t> blocking_answered_;
  // The nb_transport request the initiator sent and has not had END_REQ for: at most one
  // (exclusion rule). It takes a slot when its time has come and one is free.
  Payload* pending_ = nullptr;
  Asked pending_asked_;
  bool pending_refused_ = false;  // admissible() refused it (while a response was open)
  std::uint64_t pending_at_ps_ = 0;
  std::uint32_t pending_slot_ = kNoSlot;
  // The slot whose request the famsim block holds (TLM_ACCEPTED, END_REQ to come).
  std::uint32_t held_slot_ = kNoSlot;
  bool end_req_arrived_ = false;  // its END_REQ came (bw); behaviour() goes on
  // A BEGIN_RESP the initiator has not ended yet, and when the next may go (its END_RESP's time).
  Payload* responding_ = nullptr;
  Asked responding_asked_;
  std::uint64_t respond_from_ps_ = 0;
  // b_transport callers waiting for a free slot.
  unsigned waiting_for_slot_ = 0;
  // b_transport calls in the bridge, from taking effect (admissible) until they return.
  std::size_t blocking_calls_ = 0;
  sc_core::sc_event slot_freed_;
  Wakeup wake_;

  OccupancyGauge outstanding_;
  std::uint64_t next_seq_ = 0;
  std::uint64_t slots_taken_ = 0;
  std::uint64_t backpressure_ps_ = 0;
  std::uint64_t ignored_phases_ = 0;
  std::uint64_t atomics_ = 0;                     // TlmAtomic requests that entered famsim
  std::map<std::string, std::uint64_t> refused_;  // by response status; rare, so a map
  unsigned warned_ = 0;                           // the Refusal reasons warned about
  bool warned_in_flight_ = false;
};

}  // namespace famsim
