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

// The annotated delay of a port's calls to its bound peer (see above).
class PeerDelay {
 public:
  // The socket interfaces of famsim's ports derive from this: a peer that is one of them is a
  // famsim block.
  struct FamsimSide {};

  template <class Interface>
  sc_core::sc_time operator()(Interface* peer) {
    if (peer_ == Peer::kFamsim) return sc_core::sc_time();
    return not_famsim_yet(peer);
  }

 private:
  enum class Peer : std::uint8_t { kUnknown, kFamsim, kForeign };
  // The first call (by then elaboration has bound the port for good) and every call to a foreign
  // peer.
  [[gnu::noinline]] sc_core::sc_time not_famsim_yet(sc_core::sc_interface* peer) {
    if (peer_ == Peer::kUnknown) {
      peer_ = dynamic_cast<FamsimSide*>(peer) ? Peer::kFamsim : Peer::kForeign;
      if (peer_ == Peer::kFamsim) return sc_core::sc_time();
    }
    return local_time_offset();
  }
  Peer peer_ = Peer::kUnknown;
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
    tlm::tlm_bw_transport_if<>* peer = (*this).operator->();
    sc_core::sc_time t = delay_(peer);
    const Sync r = peer->nb_transport_bw(p, phase, t);
    if (r == tlm::TLM_COMPLETED || (r == tlm::TLM_UPDATED && phase == tlm::END_RESP)) return true;
    if (r == tlm::TLM_ACCEPTED) return false;
    SC_REPORT_FATAL(this->name(), "upstream answered BEGIN_RESP with an unsupported phase");
    return false;
  }
  // Tells upstream a held request now has a buffer entry.
  void send_end_req(Payload& p) {
    Phase phase = tlm::END_REQ;
    tlm::tlm_bw_transport_if<>* peer = (*this).operator->();
    sc_core::sc_time t = delay_(peer);
    peer->nb_transport_bw(p, phase, t);
  }

 private:
  struct Fw : tlm::tlm_fw_transport_if<>, PeerDelay::FamsimSide {
    Fw(Owner& o, unsigned i) : owner(o), index(i) {}
    Sync nb_transport_fw(Payload& p, Phase& phase, sc_core::sc_time& t) override {
      return owner.fw(index, p, phase, t);
    }
    void b_transport(Payload&, sc_core::sc_time&) override {
      SC_REPORT_ERROR("famsim", "famsim blocks implement the approximately-timed protocol only");
    }
    bool get_direct_mem_ptr(Payload&, tlm::tlm_dmi&) override { return false; }
    unsigned int transport_dbg(Payload&) override { return 0; }
    Owner& owner;
    unsigned index;
  } fw_;
  PeerDelay delay_;
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
    tlm::tlm_fw_transport_if<>* peer = (*this).operator->();
    sc_core::sc_time t = delay_(peer);
    const Sync r = peer->nb_transport_fw(p, phase, t);
    if (r == tlm::TLM_UPDATED && phase == tlm::END_REQ) return true;
    if (r == tlm::TLM_ACCEPTED) return false;
    SC_REPORT_FATAL(this->name(), "downstream answered BEGIN_REQ with an unsupported phase");
    return false;
  }
  // Tells downstream a held response now has a buffer entry.
  void send_end_resp(Payload& p) {
    Phase phase = tlm::END_RESP;
    tlm::tlm_fw_transport_if<>* peer = (*this).operator->();
    sc_core::sc_time t = delay_(peer);
    peer->nb_transport_fw(p, phase, t);
  }

 private:
  struct Bw : tlm::tlm_bw_transport_if<>, PeerDelay::FamsimSide {
    Bw(Owner& o, unsigned i) : owner(o), index(i) {}
    Sync nb_transport_bw(Payload& p, Phase& phase, sc_core::sc_time& t) override {
      return owner.bw(index, p, phase, t);
    }
    void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}
    Owner& owner;
    unsigned index;
  } bw_;
  PeerDelay delay_;
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
