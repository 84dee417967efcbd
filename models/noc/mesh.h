// Mesh: a 2D mesh network-on-chip of cols x rows routers, the alternative to the crossbar between
// a device's port logic and its memory controllers (devices.N.noc, kind: mesh). Same sockets as
// the crossbar: requests come in on up[i] (fabric port i) and leave on down[j] (memory controller
// j); responses the other way.
//
// Ports
//   up[i]    target sockets: fabric port i's requests in, its responses out; attached to the
//            router at port_nodes[i]
//   down[j]  initiator sockets: requests out to memory controller j, its responses in; attached
//            to the router at controller_nodes[j]
//
// Structure. Two physically separate networks of the same shape: requests (ports -> controllers)
// and responses (controllers -> ports). A response never shares a buffer or a link with a
// request, so no response waits behind a request and protocol deadlock cannot happen
// (Dally & Towles, "Principles and Practices of Interconnection Networks", 2004, section 14.1.5).
// In each network every router has an input and an output per mesh neighbour (east, west, south,
// north), one injection input per endpoint attached to its node that sends into this network,
// and one ejection output per endpoint attached that receives from it. Several endpoints may share
// a node (each has its own injection and ejection channel).
//
// Parameters (MeshParams; YAML keys of devices.N.noc with kind: mesh)
//   dims [cols, rows]      routers in x and y (models/noc/mesh_routing.h for coordinates)
//   clock_mhz              router and link clock; every decision lands on an edge of it
//   router_cycles          router pipeline (route compute, VC and switch allocation), >= 1: a
//                          packet whose head reaches a router input at t (an edge) competes for
//                          its output from t + router_cycles cycles
//   link_cycles            wire latency between neighbouring routers, cycles (>= 0)
//   link_bytes             link width: one flit per cycle. A message with D data bytes is a
//                          packet of 1 header flit + ceil(D / link_bytes) data flits (requests
//                          carry write data, responses read data)
//   vcs                    virtual channels per router input (and per injection channel)
//   vc_buffer_flits        buffer per virtual channel, flits; must hold the largest packet
//   credit_return_cycles   (default 1, >= 1) from a packet's tail flit leaving a router's input
//                          buffer to its credits being usable by the upstream router
//   port_nodes, controller_nodes  [x, y] of each fabric port / memory controller; defaults in
//                          mesh_routing.h (ports along the west edge, controllers spread)
//
// Flow control: virtual cut-through with credits (Dally & Towles section 13.2). The upstream
// router keeps a credit count per downstream virtual channel, in flits. A packet is sent on a
// link only when a downstream VC has credits for the whole packet; that VC is then chosen (the one
// with the most credits, ties to the lower index), its credits taken, and they come back
// credit_return_cycles after the packet's tail leaves that buffer. Injection channels are the same
// buffers filled from the socket: a message that finds no VC with room for its packet is held and
// END_REQ (END_RESP on the response network) is withheld until room frees. A message offered at
// an edge sees the room as it was before that edge's grants, and a held message is offered room
// again at each later edge (before its allocation), so neither depends on whether the message
// came before or after the edge's allocation in the instant's order of events. Ejection channels
// hold vcs x vc_buffer_flits flits; a packet is ejected only into room, and a message that the
// memory controller (or port logic) does not take at once (END_REQ withheld) keeps the channel
// busy until it does: the backpressure reaches the sources through the credits. Room freed
// because the far end took a message back at t is usable from the first edge after t.
//
// Allocation, once at each clock edge for each router with a packet waiting: every input VC whose
// head packet is ready requests the output XY routing gives it (computed one hop ahead); each
// output that is free (its link not busy with an earlier packet's flits) picks among its requesters
// round-robin, skipping inputs already granted at this edge and packets with no downstream VC
// that has room. Outputs are served from a rotating first one. A granted packet holds its input's
// read port and its output link for `flits` cycles.
//
// Timing (all on edges of the clock, T = 1 / clock_mhz, R = router_cycles, L = link_cycles):
//   a message taken from a socket at t competes at the source router from edge(t) + R T, where
//   edge(t) is the first edge at or after t; a packet granted at edge E has its head at the next
//   router at E + L T and competes there from E + (L + R) T; at the destination router it is
//   granted the ejection output at E and handed to the endpoint at E + F T (its F flits moved).
//   Zero-load latency over H hops = edge(t) - t + ((H + 1) R + H L + F) T.
// A message moves whole between blocks; inside the mesh its flits are modelled by the link and
// input occupancy (F cycles) and the flit credits, not one event per flit.
//
// Wake-ups: the block wakes only when something is due (a packet becoming ready, a link or input
// freeing, credits returning, a delivery, a neighbour's END phase); an idle mesh is never woken.
//
// Statistics (components.<name>)
//   bytes, utilization (flits per cycle on the busiest directed link), backpressure_ns (injection
//   channels holding back a socket's message), requests, responses (packets delivered per
//   network), flits (link flits, both networks), mean_hops, mean_link_utilization,
//   link_bandwidth_gbps (link_bytes x clock), dims, bisection_bound_flits_per_node (uniform XY
//   traffic, models/noc/mesh_routing.h), busiest_link {network, from, to, flits_per_cycle},
//   links.request / links.response: per directed link {from, to, flits, flits_per_cycle},
//   router_stall_ns: per node (row-major), time packets at that router waited past the edge they
//   became ready (for credits, a busy output or input, or lost arbitration), both networks;
//   stall_ns: their sum.
// Resources (bottleneck report): each mesh link that carried flits (bandwidth) and, as slot pools,
// each injection channel, each router input as the credits of the link feeding it (taken at a
// grant, back when the credit return arrives) and each ejection channel, ordered by where a
// message meets them (bottleneck.h noc_pool_depth). A pool counts the room for whole largest
// packets in use (set_room), so it reads full once no such packet fits.
#pragma once

#include "models/core/clock.h"
#include "models/core/occupancy.h"
#include "models/core/ports.h"
#include "models/core/ring.h"
#include "models/core/sim_context.h"
#include "models/core/wakeup.h"
#include "models/noc/arbiter.h"
#include "models/noc/mesh_routing.h"
#include "models/noc/routing.h"

#include <systemc>

#include <memory>
#include <string>
#include <vector>

namespace famsim {

struct MeshParams {
  unsigned cols = 4;
  unsigned rows = 4;
  double clock_mhz = 1500;
  unsigned router_cycles = 2;
  unsigned link_cycles = 1;
  unsigned link_bytes = 64;
  unsigned vcs = 4;
  unsigned vc_buffer_flits = 8;
  unsigned credit_return_cycles = 1;
  // Derived, not a key: the data of the largest packet the platform sends through the mesh (a
  // write or a read response of the request size, or of the interleave granule when the port
  // logic splits requests at it), bytes. The buffers' slot pools count room in whole such packets.
  unsigned largest_packet_bytes = 0;
  std::vector<MeshCoord> port_nodes;        // empty: default_port_nodes
  std::vector<MeshCoord> controller_nodes;  // empty: default_controller_nodes
};

class Mesh : public sc_core::sc_module, public Component {
 public:
  // Throws std::invalid_argument for parameters the configuration reader should have refused
  // (placement, zero sizes, router_cycles or credit_return_cycles of 0).
  Mesh(sc_core::sc_module_name name, SimContext& ctx, const MeshParams& params, unsigned up_ports,
       unsigned down_ports, std::unique_ptr<Routing> routing);

  TargetPort<Mesh>& up(unsigned i) { return *up_[i]; }
  InitiatorPort<Mesh>& down(unsigned j) { return *down_[j]; }
  unsigned up_ports() const { return static_cast<unsigned>(up_.size()); }
  unsigned down_ports() const { return static_cast<unsigned>(down_.size()); }
  const MeshParams& params() const { return params_; }  // placement resolved
  const MeshTopology& topology() const { return topo_; }
  const Clock& clock() const { return clock_; }

  Sync fw(unsigned port, Payload& p, Phase& phase, sc_core::sc_time& t);
  Sync bw(unsigned port, Payload& p, Phase& phase, sc_core::sc_time& t);

  void report(ComponentReport& r, const ReportWindow& window) const override;
  void probes(std::vector<ResourceProbe>& out) const override;
  std::size_t occupancy() const override;

 private:
  static constexpr unsigned kNone = ~0U;
  struct Packet {
    Payload* payload = nullptr;
    std::uint64_t ready_ps = 0;  // competes at its current router from this edge
    unsigned out = 0;            // output it requests at its current router
    unsigned dest_node = 0;
    unsigned dest_endpoint = 0;
    unsigned flits = 1;
    unsigned bytes = 0;
    std::uint16_t hop = 0;        // mesh links crossed so far
    std::uint16_t path_hops = 0;  // mesh links its route crosses in all
  };
  struct VcBuffer {
    Ring<Packet> q;
    unsigned free_flits = 0;  // injection channels only (mesh inputs: the upstream's credits)
    // Injection channels: the room freed by grants at edge freed_at_ps. A message offered at
    // that same instant does not see it (see inject()).
    std::uint64_t freed_at_ps = ~std::uint64_t{0};
    unsigned freed_flits = 0;
  };
  struct Input {
    unsigned router = 0;
    unsigned first_vc = 0;             // index of its VC 0 in Network::vc
    unsigned upstream_output = kNone;  // kNone: an injection channel
    unsigned endpoint = kNone;         // injection channels: the socket index
    std::uint64_t busy_until_ps = 0;   // read port busy with a packet's flits
    HoldSlot hold;                     // injection channels
    std::uint64_t backpressure_ps = 0;
    OccupancyGauge fill;  // injection channels: its VCs' room in use (set_room)
  };
  struct CreditReturn {
    std::uint64_t at_ps = 0;
    unsigned vc = 0;
    unsigned flits = 0;
  };
  struct Staged {  // a packet moving into an endpoint
    Payload* payload = nullptr;
    std::uint64_t deliver_ps = 0;
    unsigned flits = 0;
  };
  struct Output {
    unsigned router = 0;
    MeshDir dir = MeshDir::kLocal;
    unsigned downstream_input = kNone;  // kNone: an ejection output
    unsigned endpoint = kNone;          // ejection outputs: the socket index
    std::uint64_t free_at_ps = 0;
    std::vector<unsigned> credits;  // per downstream VC (ejection: one, the channel's room)
    Ring<CreditReturn> returns;
    RequestSet requesters;  // router-local input VC slots asking for it at this edge
    RoundRobinArbiter arbiter;
    // Ejection outputs: packets moving into the endpoint, and whether it still holds the last.
    Ring<Staged> staged;
    bool far_end_busy = false;
    std::uint64_t far_end_took_ps = ~std::uint64_t{0};  // the far end's last END phase
    // Statistics.
    std::uint64_t flits_sent = 0;
    std::uint64_t packets = 0;
    std::uint64_t bytes = 0;
    // The downstream buffer's room in use (set_room): credits taken and not yet back.
    OccupancyGauge taken;
    // Where the link sits on the routes that crossed it: links crossed before it and route
    // lengths, summed over its packets.
    std::uint64_t hops_before = 0;
    std::uint64_t route_hops = 0;
  };
  struct Router {
    std::vector<unsigned> inputs;   // network input indices; slot = position x vcs + vc
    std::vector<unsigned> outputs;  // network output indices
    unsigned dir_output[kMeshDirs] = {kNone, kNone, kNone, kNone};
    unsigned waiting = 0;  // packets in its input buffers
    unsigned first_output = 0;
    std::vector<unsigned> requested;  // scratch: outputs with requesters at this edge
    std::vector<bool> input_granted;  // scratch
    std::uint64_t stall_ps = 0;
  };
  struct Network {
    bool is_request = true;
    std::vector<Router> routers;
    std::vector<Input> in;
    std::vector<VcBuffer> vc;
    std::vector<Output> out;
    std::vector<unsigned> injection;       // per source endpoint: its input
    std::vector<unsigned> ejection;        // per destination endpoint: its output
    std::vector<unsigned> source_node;     // per source endpoint
    std::vector<unsigned> dest_node;       // per destination endpoint
    std::vector<unsigned> ejections_busy;  // scratch
    std::uint64_t hops = 0;
    std::uint64_t delivered = 0;
    unsigned held = 0;  // injection channels holding a message back
  };

  void build(Network& net, bool is_request, const std::vector<MeshCoord>& sources,
             const std::vector<MeshCoord>& dests);
  // The packet for a message entering `net` from source endpoint `src` (routing decided here).
  Packet classify(const Network& net, Payload& p, std::uint64_t ready_ps) const;
  unsigned output_for(const Network& net, unsigned router, const Packet& pk) const;
  // Puts `p` into a VC of injection input `in` with room, or returns false. The room is as at
  // the start of the instant: room that grants freed at this very edge is offered from the next
  // one, so whether a message offered at an edge came before or after that edge's allocation
  // (the order of the instant's events) changes neither whether it is taken nor its VC.
  bool inject(Network& net, unsigned src, Payload& p, std::uint64_t now_ps);
  // Holds `p` at source `src`'s injection channel (no VC has room for it).
  Sync hold(Network& net, unsigned src, Payload& p, std::uint64_t now_ps);
  // Offers the messages held at injection channels again (at an edge, before allocation).
  void retry_held(Network& net, std::uint64_t edge_ps);
  void allocate(Network& net, unsigned router, std::uint64_t edge_ps);
  void grant(Network& net, unsigned router, unsigned slot, unsigned o, unsigned dvc,
             std::uint64_t edge_ps);
  // A buffer as a slot pool counts, in flits, the room a largest packet (F flits) could use that
  // is in use: a VC of B flits takes floor(B / F) such packets, so it is full once it cannot take
  // another, whatever the size of what fills it. One VC going from `before` to `after` free flits.
  void set_room(OccupancyGauge& g, unsigned before, unsigned after, std::uint64_t at_ps) const {
    const std::int64_t f = largest_flits_;
    const std::int64_t change = (before / f - after / f) * f;
    g.set(static_cast<std::uint64_t>(static_cast<std::int64_t>(g.level()) + change), at_ps);
  }
  // That room when empty: `flits` of buffer rounded down to whole largest packets.
  unsigned usable(unsigned flits) const { return flits / largest_flits_ * largest_flits_; }
  // Credits of output `o` that are back by `at_ps` become usable.
  void collect_returns(Output& o, std::uint64_t at_ps);
  // A downstream VC of output `o` with credits for packet `pk`, or kNone.
  unsigned pick_vc(const Network& net, Output& o, const Packet& pk, std::uint64_t edge_ps);
  void deliver(Network& net, std::uint64_t now_ps);
  // Something may change at edge `at_ps` (>= now): wake then.
  void due(std::uint64_t at_ps);
  MeshDir route(unsigned at_node, unsigned dest_node) const {
    return static_cast<MeshDir>(route_[at_node * topo_.nodes() + dest_node]);
  }
  friend class Wakeup;
  void behaviour();
  double link_gbps() const { return params_.link_bytes * clock_.mhz() * 1e-3; }
  // Output o's room in use downstream as of t_ps: its gauge with the credits back before t counted
  // back from the time they arrive (the output collects them only when it next sends).
  OccupancyGauge taken_at(const Output& o, std::uint64_t t_ps) const;
  // "request link (0,1)->(1,1)": a router-to-router output as a resource; with `what` "VC
  // credits" in place of "link", its credits.
  std::string link_name(const Network& net, const Output& o, const char* what = "link") const;
  // The share of its packets' routes crossed before output o's link, to its middle (where its
  // credits sit among the NoC's pools, noc_pool_depth).
  static double route_fraction(const Output& o);
  void report_links(const Network& net, nlohmann::json& j, double cycles, double& busiest,
                    nlohmann::json& busiest_link, double& sum, std::size_t& count) const;

  MeshParams params_;
  unsigned largest_flits_ = 1;  // the largest packet, flits (message_flits of its data)
  MeshTopology topo_;
  Clock clock_;
  std::unique_ptr<Routing> routing_;
  std::vector<std::unique_ptr<TargetPort<Mesh>>> up_;
  std::vector<std::unique_ptr<InitiatorPort<Mesh>>> down_;
  Network req_;
  Network resp_;
  // The edges at which something may change, as a bitmap over a window of cycles (a power of
  // two longer than anything is scheduled ahead: a packet's flits + link + router + credit
  // return cycles), so marking and finding the next one cost a few word operations.
  std::vector<std::uint64_t> due_bits_;
  std::uint64_t due_mask_ = 0;  // window - 1, in cycles
  std::uint64_t due_count_ = 0;
  bool in_behaviour_ = false;
  std::uint64_t allocated_edge_ps_ = ~std::uint64_t{0};  // allocation runs once per edge
  std::vector<std::uint8_t> route_;  // XY output direction, [at node x nodes + dest node]
  Wakeup wake_;
};

}  // namespace famsim
