// Sockets and the hand-shake every famsim hop follows (ARCHITECTURE.md, "Protocol between blocks").
//
// Forward: upstream sends BEGIN_REQ. The block answers END_REQ only when the request holds a buffer
// entry: at once (TLM_UPDATED, phase END_REQ) when there is room, otherwise it returns
// TLM_ACCEPTED, keeps the request in a one-entry hold slot and sends END_REQ when room frees.
// Upstream sends nothing more on that socket until END_REQ: that is the backpressure.
// Return: downstream sends BEGIN_RESP; END_RESP follows the same rule.
//
// A block calls its neighbour at the simulated time the event happens, so timestamps are exact
// and no PEQ is needed. famsim blocks read the time from now_ps() and never the annotated delay,
// so a port passes zero to a famsim block; to any other peer (a foreign TLM module) it passes
// local_time_offset(): zero under the systemc kernel, the decoupling offset under the famsim
// kernel (models/core/wakeup.h). Working the offset out for every call was a SystemC call (it
// builds each new sc_time out of line) about 290 k times in famsim bench.
//
// Sockets dispatch straight to the owning block's fw()/bw() with the socket's index (one virtual
// call, no callback tables), so one block can own any number of ports.
#pragma once

#include "models/core/clock.h"
#include "models/core/request.h"

#include <systemc>
#include <tlm>

#include <cstdint>
#include <string>

namespace famsim {

using Phase = tlm::tlm_phase;
using Sync = tlm::tlm_sync_enum;

// How a port calls its bound peer. A famsim peer (one of the sockets below) is called straight:
// the peer's socket interface records, at construction, its owning block, its index and a
// function that calls the owner's fw() or bw(), and the port copies them at its first call (by
// then elaboration has bound the port for good). A call then reads that copy, in the port's own
// cache line, and nothing else before the owner: not the SystemC port's interface pointer, the
// peer's interface object and its virtual table, each a line that thousands of requests in
// flight had evicted (they took about 50 of the some 860 L1-data misses a request of famsim
// bench, cachegrind). The annotated delay is zero, as it is for every famsim peer (see above). A
// foreign peer is called through its interface with local_time_offset().
class PeerCall {
 public:
  using Call = Sync (*)(void* owner, unsigned index, Payload& p, Phase& phase, sc_core::sc_time& t);
  // The socket interfaces of famsim's ports derive from this: a peer that is one of them is a
  // famsim block.
  struct FamsimSide {
    void* owner;
    unsigned index;
    Call call;
  };

  // Calls the bound peer; `peer` gives its interface (the SystemC port's operator->) for the
  // first call and for a foreign peer, `call` calls that interface with an annotated delay.
  template <class GetPeer, class CallInterface>
  Sync operator()(Payload& p, Phase& phase, GetPeer peer, CallInterface call) {
    if (side_.call) {
      sc_core::sc_time t;
      return side_.call(side_.owner, side_.index, p, phase, t);
    }
    return not_famsim_yet(p, phase, peer, call);
  }

 private:
  // The first call and every call to a foreign peer.
  template <class GetPeer, class CallInterface>
  [[gnu::noinline]] Sync not_famsim_yet(Payload& p, Phase& phase, GetPeer peer,
                                        CallInterface call) {
    auto* interface = peer();
    if (!foreign_) {
      if (const auto* side = dynamic_cast<const FamsimSide*>(interface)) {
        side_ = *side;
        sc_core::sc_time t;
        return side_.call(side_.owner, side_.index, p, phase, t);
      }
      foreign_ = true;
    }
    sc_core::sc_time t = local_time_offset();
    return call(interface, p, phase, t);
  }
  FamsimSide side_{nullptr, 0, nullptr};
  bool foreign_ = false;
};

// An upstream-facing socket: requests come in (fw), responses go out (bw).
template <class Owner>
class TargetPort : public tlm::tlm_target_socket<> {
 public:
  TargetPort(const char* name, Owner& owner, unsigned index)
      : tlm::tlm_target_socket<>(name), fw_(owner, index) {
    this->bind(fw_);
  }

  // Sends BEGIN_RESP upstream; true if upstream took it at once.
  bool send_resp(Payload& p) {
    Phase phase = tlm::BEGIN_RESP;
    const Sync r = call_bw(p, phase);
    if (r == tlm::TLM_COMPLETED || (r == tlm::TLM_UPDATED && phase == tlm::END_RESP)) return true;
    if (r == tlm::TLM_ACCEPTED) return false;
    SC_REPORT_FATAL(this->name(), "upstream answered BEGIN_RESP with an unsupported phase");
    return false;
  }
  // Tells upstream a held request now has a buffer entry.
  void send_end_req(Payload& p) {
    Phase phase = tlm::END_REQ;
    call_bw(p, phase);
  }

 private:
  Sync call_bw(Payload& p, Phase& phase) {
    return peer_(
        p, phase, [this] { return (*this).operator->(); },
        [](tlm::tlm_bw_transport_if<>* i, Payload& q, Phase& ph, sc_core::sc_time& t) {
          return i->nb_transport_bw(q, ph, t);
        });
  }

  // The owner and index are FamsimSide's, which famsim peers copy.
  struct Fw : tlm::tlm_fw_transport_if<>, PeerCall::FamsimSide {
    Fw(Owner& o, unsigned i) : PeerCall::FamsimSide{&o, i, &call_fw} {}
    static Sync call_fw(void* o, unsigned i, Payload& p, Phase& phase, sc_core::sc_time& t) {
      return static_cast<Owner*>(o)->fw(i, p, phase, t);
    }
    Sync nb_transport_fw(Payload& p, Phase& phase, sc_core::sc_time& t) override {
      return call_fw(owner, index, p, phase, t);
    }
    void b_transport(Payload&, sc_core::sc_time&) override {
      SC_REPORT_ERROR("famsim", "famsim blocks implement the approximately-timed protocol only");
    }
    bool get_direct_mem_ptr(Payload&, tlm::tlm_dmi&) override { return false; }
    unsigned int transport_dbg(Payload&) override { return 0; }
  } fw_;
  PeerCall peer_;
};

// A downstream-facing socket: requests go out (fw), responses come in (bw).
template <class Owner>
class InitiatorPort : public tlm::tlm_initiator_socket<> {
 public:
  InitiatorPort(const char* name, Owner& owner, unsigned index)
      : tlm::tlm_initiator_socket<>(name), bw_(owner, index) {
    this->bind(bw_);
  }

  // Sends BEGIN_REQ downstream; true if downstream accepted it at once.
  bool send_req(Payload& p) {
    Phase phase = tlm::BEGIN_REQ;
    const Sync r = call_fw(p, phase);
    if (r == tlm::TLM_UPDATED && phase == tlm::END_REQ) return true;
    if (r == tlm::TLM_ACCEPTED) return false;
    SC_REPORT_FATAL(this->name(), "downstream answered BEGIN_REQ with an unsupported phase");
    return false;
  }
  // Tells downstream a held response now has a buffer entry.
  void send_end_resp(Payload& p) {
    Phase phase = tlm::END_RESP;
    call_fw(p, phase);
  }

 private:
  Sync call_fw(Payload& p, Phase& phase) {
    return peer_(
        p, phase, [this] { return (*this).operator->(); },
        [](tlm::tlm_fw_transport_if<>* i, Payload& q, Phase& ph, sc_core::sc_time& t) {
          return i->nb_transport_fw(q, ph, t);
        });
  }

  // The owner and index are FamsimSide's, which famsim peers copy.
  struct Bw : tlm::tlm_bw_transport_if<>, PeerCall::FamsimSide {
    Bw(Owner& o, unsigned i) : PeerCall::FamsimSide{&o, i, &call_bw} {}
    static Sync call_bw(void* o, unsigned i, Payload& p, Phase& phase, sc_core::sc_time& t) {
      return static_cast<Owner*>(o)->bw(i, p, phase, t);
    }
    Sync nb_transport_bw(Payload& p, Phase& phase, sc_core::sc_time& t) override {
      return call_bw(owner, index, p, phase, t);
    }
    void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}
  } bw_;
  PeerCall peer_;
};

// One-entry hold slot for a message (request or response) that arrived while the block had no
// room. Measures the time the block spent backpressuring its neighbour.
struct HoldSlot {
  Payload* held = nullptr;
  std::uint64_t since_ps = 0;

  bool empty() const { return held == nullptr; }
  Sync hold(Payload& p, std::uint64_t now_ps) {
    p.acquire();
    held = &p;
    since_ps = now_ps;
    return tlm::TLM_ACCEPTED;
  }
  // Takes the held message out (the caller now owns the reference acquired at hold()) and adds
  // the time it waited to `backpressure_ps`.
  Payload& take(std::uint64_t now_ps, std::uint64_t& backpressure_ps) {
    Payload& p = *held;
    backpressure_ps += now_ps - since_ps;
    held = nullptr;
    return p;
  }
};

// Accepts a message at once: the block takes a reference and answers with the END phase.
inline Sync accept_now(Payload& p, Phase& phase, const Phase& end_phase) {
  p.acquire();
  phase = end_phase;
  return tlm::TLM_UPDATED;
}

// Reports a phase a block does not expect on a socket: a protocol violation by a neighbour.
[[noreturn]] inline void protocol_error(const char* block, const Phase& phase, const char* where) {
  std::string msg = std::string("unexpected phase ") + phase.get_name() + " on " + where;
  SC_REPORT_FATAL(block, msg.c_str());
  std::abort();
}

}  // namespace famsim
