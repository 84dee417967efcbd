// Link: one point-to-point fabric link between two blocks (GPU <-> switch, switch <-> device, or
// GPU <-> device when there is no switch). First cut; the fabric issue replaces the message
// framing below with flits, credits per virtual channel and replay.
//
// Ports
//   up    target socket: requests in from the upstream block, responses back to it
//   down  initiator socket: requests on to the downstream block, responses in from it
//
// Parameters (LinkParams)
//   lanes, lane_gbps, encoding_efficiency   bandwidth per direction = lanes x lane_gbps x eff / 8
//   GB/s latency_ns                              PHY + FEC + propagation, added after serialisation
//   header_bytes                            bytes each message adds on the wire (a read request or
//   a
//                                           write completion is a header only; write requests and
//                                           read responses carry header + data)
//   buffer_entries                          messages per direction the link holds, from acceptance
//                                           until the far end accepts them (the credit pool)
//
// Timing per direction: a message accepted at t starts serialising at max(t, wire free), takes
// wire_bytes / bandwidth on the wire, and reaches the far end latency_ns after its last byte.
// Requests and responses travel on separate directions with separate buffers, so a response is
// never queued behind a request.
//
// Statistics: bytes (payload), utilization (busier direction), backpressure_ns, per-direction
// utilisation, wire bytes and wire efficiency.
#pragma once

#include "models/core/clock.h"
#include "models/core/ports.h"
#include "models/core/ring.h"
#include "models/core/sim_context.h"
#include "models/core/wakeup.h"

#include <systemc>

namespace famsim {

struct LinkParams {
  unsigned lanes = 2;
  double lane_gbps = 106.25;
  double encoding_efficiency = 100.0 / 106.25;
  double latency_ns = 10.0;
  unsigned header_bytes = 16;
  unsigned buffer_entries = 32;

  double bandwidth_gbps() const { return lanes * lane_gbps * encoding_efficiency / 8.0; }
};

class Link : public sc_core::sc_module, public Component {
 public:
  TargetPort<Link> up;
  InitiatorPort<Link> down;

  Link(sc_core::sc_module_name name, SimContext& ctx, const LinkParams& params);

  Sync fw(unsigned port, Payload& p, Phase& phase, sc_core::sc_time& t);
  Sync bw(unsigned port, Payload& p, Phase& phase, sc_core::sc_time& t);

  void report(ComponentReport& r, const ReportWindow& window) const override;
  std::size_t occupancy() const override;

 private:
  struct InFlight {
    Payload* payload = nullptr;
    std::uint64_t arrive_ps = 0;
  };
  struct Direction {
    Ring<InFlight> queue;
    HoldSlot hold;
    bool far_end_busy = false;  // sent on, waiting for the far end's END phase
    std::uint64_t wire_free_ps = 0;
    std::uint64_t busy_ps = 0;
    std::uint64_t payload_bytes = 0;
    std::uint64_t wire_bytes = 0;
    std::uint64_t messages = 0;
    std::uint64_t backpressure_ps = 0;
    std::uint64_t ser_cache_bytes[2] = {~std::uint64_t{0}, ~std::uint64_t{0}};
    std::uint64_t ser_cache_ps[2] = {0, 0};
  };

  friend class Wakeup;  // runs behaviour()
  void behaviour();
  void enqueue(Direction& d, Payload& p, std::uint64_t now_ps, bool is_request);
  // Hands on every message that has arrived; returns when the next one arrives.
  std::uint64_t drain(Direction& d, bool is_request, std::uint64_t now_ps);

  LinkParams params_;
  double bandwidth_gbps_;
  std::uint64_t latency_ps_;
  Direction req_;
  Direction resp_;
  Wakeup wake_;
};

}  // namespace famsim
