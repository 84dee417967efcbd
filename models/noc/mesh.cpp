#include "models/noc/mesh.h"

#include "models/core/bottleneck.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace famsim {

namespace {
std::string where(const char* block, const std::string& what) {
  return std::string(block) + ": " + what;
}
}  // namespace

Mesh::Mesh(sc_core::sc_module_name name, SimContext& ctx, const MeshParams& params,
           unsigned up_ports, unsigned down_ports, std::unique_ptr<Routing> routing)
    : sc_core::sc_module(name),
      Component(ctx.registry, this->name(), BlockKind::kNoc),
      params_(params),
      topo_(params.cols, params.rows),
      clock_(params.clock_mhz),
      routing_(std::move(routing)),
      wake_("wake", ctx.scheduler(), this, &Wakeup::call_behaviour<Mesh>) {
  if (params_.router_cycles == 0 || params_.credit_return_cycles == 0 || params_.vcs == 0 ||
      params_.vc_buffer_flits == 0 || params_.link_bytes == 0) {
    throw std::invalid_argument(where(this->name(),
                                      "router_cycles, credit_return_cycles, vcs, vc_buffer_flits "
                                      "and link_bytes must be at least 1"));
  }
  largest_flits_ = message_flits(params_.largest_packet_bytes, params_.link_bytes);
  if (largest_flits_ > params_.vc_buffer_flits) {
    throw std::invalid_argument(where(this->name(), "the largest packet does not fit a VC buffer"));
  }
  if (params_.port_nodes.empty()) params_.port_nodes = default_port_nodes(topo_, up_ports);
  if (params_.controller_nodes.empty()) {
    params_.controller_nodes = default_controller_nodes(topo_, down_ports);
  }
  if (auto e = check_placement(topo_, params_.port_nodes, up_ports)) {
    throw std::invalid_argument(where(this->name(), "port_nodes: " + *e));
  }
  if (auto e = check_placement(topo_, params_.controller_nodes, down_ports)) {
    throw std::invalid_argument(where(this->name(), "controller_nodes: " + *e));
  }
  for (unsigned i = 0; i < up_ports; ++i) {
    up_.push_back(std::make_unique<TargetPort<Mesh>>(("up" + std::to_string(i)).c_str(), *this, i));
  }
  for (unsigned j = 0; j < down_ports; ++j) {
    down_.push_back(
        std::make_unique<InitiatorPort<Mesh>>(("down" + std::to_string(j)).c_str(), *this, j));
  }
  build(req_, true, params_.port_nodes, params_.controller_nodes);
  build(resp_, false, params_.controller_nodes, params_.port_nodes);
  // Lookahead: a packet of up to vc_buffer_flits flits, its link and router, or its credits.
  const std::uint64_t span = params_.vc_buffer_flits + params_.link_cycles + params_.router_cycles +
                             params_.credit_return_cycles + 2;
  std::uint64_t window = 64;
  while (window <= span) window *= 2;
  due_mask_ = window - 1;
  due_bits_.assign(window / 64, 0);
  route_.resize(std::size_t{topo_.nodes()} * topo_.nodes());
  for (unsigned a = 0; a < topo_.nodes(); ++a) {
    for (unsigned d = 0; d < topo_.nodes(); ++d) {
      route_[std::size_t{a} * topo_.nodes() + d] =
          static_cast<std::uint8_t>(topo_.xy_route({a}, {d}));
    }
  }
  SC_HAS_PROCESS(Mesh);
  SC_METHOD(behaviour);
  sensitive << wake_.event();
  dont_initialize();
}

void Mesh::build(Network& net, bool is_request, const std::vector<MeshCoord>& sources,
                 const std::vector<MeshCoord>& dests) {
  net.is_request = is_request;
  const unsigned nodes = topo_.nodes();
  const unsigned vcs = params_.vcs;
  net.routers.resize(nodes);
  auto add_input = [&](unsigned router, unsigned endpoint) {
    Input in;
    in.router = router;
    in.first_vc = static_cast<unsigned>(net.vc.size());
    in.endpoint = endpoint;
    if (endpoint != kNone) in.fill.set_capacity(vcs * usable(params_.vc_buffer_flits));
    for (unsigned v = 0; v < vcs; ++v) {
      VcBuffer b;
      b.q.set_capacity(params_.vc_buffer_flits);  // a packet has at least one flit
      b.free_flits = params_.vc_buffer_flits;
      net.vc.push_back(std::move(b));
    }
    net.in.push_back(std::move(in));
    net.routers[router].inputs.push_back(static_cast<unsigned>(net.in.size() - 1));
    return static_cast<unsigned>(net.in.size() - 1);
  };
  auto add_output = [&](unsigned router, MeshDir dir, unsigned endpoint) {
    Output o;
    o.router = router;
    o.dir = dir;
    o.endpoint = endpoint;
    const bool eject = dir == MeshDir::kLocal;
    // An ejection channel holds as much as a router input (vcs x vc_buffer_flits flits).
    o.credits.assign(eject ? 1 : vcs,
                     eject ? vcs * params_.vc_buffer_flits : params_.vc_buffer_flits);
    o.taken.set_capacity(o.credits.size() * usable(o.credits[0]));
    o.returns.set_capacity(vcs * params_.vc_buffer_flits);
    if (eject) o.staged.set_capacity(vcs * params_.vc_buffer_flits);
    net.out.push_back(std::move(o));
    net.routers[router].outputs.push_back(static_cast<unsigned>(net.out.size() - 1));
    return static_cast<unsigned>(net.out.size() - 1);
  };
  // Mesh links: output (n, d) feeds input (neighbour, opposite(d)).
  std::vector<unsigned> mesh_in(nodes * kMeshDirs, kNone);
  for (unsigned n = 0; n < nodes; ++n) {
    for (unsigned d = 0; d < kMeshDirs; ++d) {
      if (!topo_.neighbour({n}, static_cast<MeshDir>(d))) continue;
      net.routers[n].dir_output[d] = add_output(n, static_cast<MeshDir>(d), kNone);
      mesh_in[n * kMeshDirs + d] = add_input(n, kNone);  // from the neighbour in direction d
    }
  }
  for (unsigned n = 0; n < nodes; ++n) {
    for (unsigned d = 0; d < kMeshDirs; ++d) {
      const unsigned o = net.routers[n].dir_output[d];
      if (o == kNone) continue;
      const MeshNode nb = *topo_.neighbour({n}, static_cast<MeshDir>(d));
      const unsigned back = static_cast<unsigned>(opposite(static_cast<MeshDir>(d)));
      const unsigned i = mesh_in[nb.index * kMeshDirs + back];
      net.out[o].downstream_input = i;
      net.in[i].upstream_output = o;
    }
  }
  for (unsigned s = 0; s < sources.size(); ++s) {
    const unsigned n = topo_.node(sources[s]).index;
    net.source_node.push_back(n);
    net.injection.push_back(add_input(n, s));
  }
  for (unsigned d = 0; d < dests.size(); ++d) {
    const unsigned n = topo_.node(dests[d]).index;
    net.dest_node.push_back(n);
    net.ejection.push_back(add_output(n, MeshDir::kLocal, d));
  }
  for (Router& r : net.routers) {
    const unsigned slots = static_cast<unsigned>(r.inputs.size()) * vcs;
    for (unsigned o : r.outputs) net.out[o].requesters = RequestSet(slots);
    r.requested.reserve(r.outputs.size());
    r.input_granted.assign(r.inputs.size(), false);
  }
  net.ejections_busy.reserve(net.ejection.size());
}

Mesh::Packet Mesh::classify(const Network& net, Payload& p, std::uint64_t ready_ps) const {
  const RequestExt& e = ext_of(p);
  Packet pk;
  pk.payload = &p;
  pk.ready_ps = ready_ps;
  pk.dest_endpoint = net.is_request ? routing_->route(e) : e.hops[e.resp_cursor].in_port();
  if (pk.dest_endpoint >= net.dest_node.size()) {
    throw std::logic_error(where(name(), "request " + std::to_string(e.id) + " routed to port " +
                                             std::to_string(pk.dest_endpoint) + " of " +
                                             std::to_string(net.dest_node.size())));
  }
  pk.dest_node = net.dest_node[pk.dest_endpoint];
  pk.bytes = net.is_request ? request_data_bytes(e) : response_data_bytes(e);
  pk.flits = message_flits(pk.bytes, params_.link_bytes);
  if (pk.flits > params_.vc_buffer_flits) {
    throw std::logic_error(where(name(), "a packet of " + std::to_string(pk.flits) +
                                             " flits does not fit a VC buffer of " +
                                             std::to_string(params_.vc_buffer_flits)));
  }
  return pk;
}

unsigned Mesh::output_for(const Network& net, unsigned router, const Packet& pk) const {
  const MeshDir d = route(router, pk.dest_node);
  if (d == MeshDir::kLocal) return net.ejection[pk.dest_endpoint];
  return net.routers[router].dir_output[static_cast<unsigned>(d)];
}

bool Mesh::inject(Network& net, unsigned src, Payload& p, std::uint64_t now_ps) {
  Input& in = net.in[net.injection[src]];
  const std::uint64_t ready = clock_.edge_ps(now_ps) + params_.router_cycles * clock_.period_ps();
  Packet pk = classify(net, p, ready);
  pk.path_hops = static_cast<std::uint16_t>(topo_.hops({in.router}, {pk.dest_node}));
  // As on the links (pick_vc): the VC of the packet's output at this router when it has room,
  // else the VC with the most room that takes the whole packet (ties to the lower index).
  pk.out = output_for(net, in.router, pk);
  const unsigned preferred = static_cast<unsigned>(route(in.router, pk.dest_node)) % params_.vcs;
  auto room = [&](unsigned v) {
    const VcBuffer& b = net.vc[in.first_vc + v];
    return b.free_flits - (b.freed_at_ps == now_ps ? b.freed_flits : 0);
  };
  unsigned best = kNone;
  if (room(preferred) >= pk.flits) {
    best = preferred;
  } else {
    for (unsigned v = 0; v < params_.vcs; ++v) {
      if (room(v) >= pk.flits && (best == kNone || room(v) > room(best))) best = v;
    }
  }
  if (best == kNone) return false;
  VcBuffer& b = net.vc[in.first_vc + best];
  set_room(in.fill, b.free_flits, b.free_flits - pk.flits, now_ps);
  b.free_flits -= pk.flits;
  b.q.push_back(pk);
  ++net.routers[in.router].waiting;
  due(ready);
  return true;
}

Sync Mesh::fw(unsigned port, Payload& p, Phase& phase, sc_core::sc_time&) {
  const std::uint64_t now = now_ps();
  if (phase == tlm::BEGIN_REQ) {
    ext_of(p).enter(block_id(), static_cast<std::uint16_t>(port), now);
    if (!inject(req_, port, p, now)) return hold(req_, port, p, now);
    return accept_now(p, phase, tlm::END_REQ);
  }
  if (phase == tlm::END_RESP) {
    Output& o = resp_.out[resp_.ejection[port]];
    o.far_end_busy = false;
    o.far_end_took_ps = now;
    wake_.asap();
    return tlm::TLM_ACCEPTED;
  }
  protocol_error(name(), phase, "an upstream port");
}

Sync Mesh::bw(unsigned port, Payload& p, Phase& phase, sc_core::sc_time&) {
  const std::uint64_t now = now_ps();
  if (phase == tlm::BEGIN_RESP) {
    ext_of(p).resp_enter(now);
    if (!inject(resp_, port, p, now)) return hold(resp_, port, p, now);
    return accept_now(p, phase, tlm::END_RESP);
  }
  if (phase == tlm::END_REQ) {
    Output& o = req_.out[req_.ejection[port]];
    o.far_end_busy = false;
    o.far_end_took_ps = now;
    wake_.asap();
    return tlm::TLM_ACCEPTED;
  }
  protocol_error(name(), phase, "a downstream port");
}

Sync Mesh::hold(Network& net, unsigned src, Payload& p, std::uint64_t now_ps) {
  ++net.held;
  due(clock_.edge_after_ps(now_ps));  // offered again from the next edge on
  return net.in[net.injection[src]].hold.hold(p, now_ps);
}

void Mesh::retry_held(Network& net, std::uint64_t edge_ps) {
  for (unsigned src = 0; net.held > 0 && src < net.injection.size(); ++src) {
    Input& in = net.in[net.injection[src]];
    if (in.hold.empty() || !inject(net, src, *in.hold.held, edge_ps)) continue;
    --net.held;
    Payload& p = in.hold.take(edge_ps, in.backpressure_ps);  // the VC keeps the hold's reference
    if (net.is_request) {
      up_[src]->send_end_req(p);
    } else {
      down_[src]->send_end_resp(p);
    }
  }
}

void Mesh::due(std::uint64_t at_ps) {
  // From a socket call the block must be woken; inside the behaviour its last step does that.
  if (!in_behaviour_) wake_.at(at_ps);
  const std::uint64_t cycle = clock_.edge_number(at_ps);
  if (cycle - clock_.edge_number(now_ps()) > due_mask_) {
    throw std::logic_error(where(name(), "a wake-up beyond the look-ahead window"));
  }
  std::uint64_t& word = due_bits_[(cycle & due_mask_) >> 6];
  const std::uint64_t bit = std::uint64_t{1} << (cycle & 63);
  if (!(word & bit)) ++due_count_;
  word |= bit;
}

void Mesh::collect_returns(Output& o, std::uint64_t at_ps) {
  while (!o.returns.empty() && o.returns.front().at_ps <= at_ps) {
    const CreditReturn& c = o.returns.front();
    // Accounted when they came back, not when collected (the gauge keeps the order: every grant
    // and delivery on this output collects first).
    set_room(o.taken, o.credits[c.vc], o.credits[c.vc] + c.flits, c.at_ps);
    o.credits[c.vc] += c.flits;
    o.returns.pop_front();
  }
}

unsigned Mesh::pick_vc(const Network& net, Output& o, const Packet& pk, std::uint64_t edge_ps) {
  collect_returns(o, edge_ps);
  const unsigned flits = pk.flits;
  if (o.downstream_input != kNone) {
    // The VC of the packet's output at the next router, when it has room: packets for different
    // outputs there then wait in different VCs and do not block each other.
    const unsigned next =
        static_cast<unsigned>(route(net.in[o.downstream_input].router, pk.dest_node));
    const unsigned preferred = next % static_cast<unsigned>(o.credits.size());
    if (o.credits[preferred] >= flits) return preferred;
  }
  unsigned best = kNone;
  for (unsigned v = 0; v < o.credits.size(); ++v) {
    if (o.credits[v] >= flits && (best == kNone || o.credits[v] > o.credits[best])) best = v;
  }
  return best;
}

void Mesh::allocate(Network& net, unsigned r, std::uint64_t edge_ps) {
  Router& router = net.routers[r];
  const unsigned vcs = params_.vcs;
  // Requests: each ready head asks for its output when that output could take it now.
  router.requested.clear();
  for (unsigned k = 0; k < router.inputs.size(); ++k) {
    const Input& in = net.in[router.inputs[k]];
    router.input_granted[k] = false;
    if (in.busy_until_ps > edge_ps) continue;
    for (unsigned v = 0; v < vcs; ++v) {
      const VcBuffer& b = net.vc[in.first_vc + v];
      if (b.q.empty() || b.q.front().ready_ps > edge_ps) continue;
      const Packet& h = b.q.front();
      Output& o = net.out[h.out];
      if (o.free_at_ps > edge_ps) continue;
      if (pick_vc(net, o, h, edge_ps) == kNone) continue;
      if (!o.requesters.any()) router.requested.push_back(h.out);
      o.requesters.set(k * vcs + v);
    }
  }
  if (router.requested.empty()) return;
  // Grants: outputs from a rotating first one, each round-robin among the inputs not yet granted.
  std::sort(router.requested.begin(), router.requested.end());
  const std::size_t n = router.requested.size();
  const std::size_t first = router.first_output++ % n;
  for (std::size_t j = 0; j < n; ++j) {
    const unsigned oi = router.requested[(first + j) % n];
    Output& o = net.out[oi];
    RequestSet& req = o.requesters;
    for (unsigned s = req.next_at_or_after(0); s < req.size(); s = req.next_at_or_after(s + 1)) {
      if (router.input_granted[s / vcs]) req.clear(s);
    }
    if (req.any()) {
      const unsigned slot = o.arbiter.pick(req);
      const Packet& h = net.vc[net.in[router.inputs[slot / vcs]].first_vc + slot % vcs].q.front();
      grant(net, r, slot, oi, pick_vc(net, o, h, edge_ps), edge_ps);
      router.input_granted[slot / vcs] = true;
    }
    req.reset();
  }
}

void Mesh::grant(Network& net, unsigned r, unsigned slot, unsigned oi, unsigned dvc,
                 std::uint64_t edge_ps) {
  Router& router = net.routers[r];
  const unsigned vcs = params_.vcs;
  const unsigned ii = router.inputs[slot / vcs];
  Input& in = net.in[ii];
  const unsigned v = slot % vcs;
  VcBuffer& b = net.vc[in.first_vc + v];
  Packet pk = b.q.front();
  b.q.pop_front();
  --router.waiting;
  router.stall_ps += edge_ps - pk.ready_ps;
  const std::uint64_t period = clock_.period_ps();
  const std::uint64_t tail_gone = edge_ps + pk.flits * period;
  in.busy_until_ps = tail_gone;
  Output& o = net.out[oi];
  o.free_at_ps = tail_gone;
  o.flits_sent += pk.flits;
  ++o.packets;
  o.bytes += pk.bytes;
  set_room(o.taken, o.credits[dvc], o.credits[dvc] - pk.flits, edge_ps);
  o.credits[dvc] -= pk.flits;
  due(tail_gone);

  // The packet's buffer space goes back: as credits to the upstream router, or to the socket.
  if (in.upstream_output != kNone) {
    const std::uint64_t at = edge_ps + (pk.flits - 1 + params_.credit_return_cycles) * period;
    net.out[in.upstream_output].returns.push_back({at, v, pk.flits});
    due(at);
  } else {
    set_room(in.fill, b.free_flits, b.free_flits + pk.flits, edge_ps);
    b.free_flits += pk.flits;
    if (b.freed_at_ps != edge_ps) {
      b.freed_at_ps = edge_ps;
      b.freed_flits = 0;
    }
    b.freed_flits += pk.flits;
    // A message held for lack of room is offered the room from the next edge (retry_held()).
    if (!in.hold.empty()) due(edge_ps + period);
  }

  if (o.downstream_input == kNone) {
    // Ejection: the endpoint has the message once all its flits have moved.
    ++net.delivered;
    o.staged.push_back({pk.payload, tail_gone, pk.flits});
    return;
  }
  ++net.hops;
  o.hops_before += pk.hop;
  o.route_hops += pk.path_hops;
  ++pk.hop;
  const Input& din = net.in[o.downstream_input];
  pk.ready_ps = edge_ps + (params_.link_cycles + params_.router_cycles) * period;
  pk.out = output_for(net, din.router, pk);
  net.vc[din.first_vc + dvc].q.push_back(pk);
  ++net.routers[din.router].waiting;
  due(pk.ready_ps);
}

void Mesh::deliver(Network& net, std::uint64_t now_ps) {
  for (unsigned oi : net.ejection) {
    Output& o = net.out[oi];
    // Room made because the far end took a message back (END phase) at now_ps is an input like
    // any other: usable from the first edge after it, whatever the order of the instant's events.
    // Room made by a delivery at this block's own edge is usable at that edge's allocation.
    const bool far_end_took = o.far_end_took_ps == now_ps;
    const std::uint64_t usable_ps =
        far_end_took ? clock_.edge_after_ps(now_ps) : clock_.edge_ps(now_ps);
    bool freed = false;
    collect_returns(o, now_ps);
    while (!o.far_end_busy && !o.staged.empty() && o.staged.front().deliver_ps <= now_ps) {
      const Staged s = o.staged.front();
      o.staged.pop_front();
      if (far_end_took) {
        o.returns.push_back({usable_ps, 0, s.flits});
      } else {
        set_room(o.taken, o.credits[0], o.credits[0] + s.flits, now_ps);
        o.credits[0] += s.flits;
      }
      freed = true;
      const bool taken = net.is_request ? down_[o.endpoint]->send_req(*s.payload)
                                        : up_[o.endpoint]->send_resp(*s.payload);
      o.far_end_busy = !taken;
      s.payload->release();
    }
    if (freed) due(usable_ps);
  }
}

void Mesh::behaviour() {
  wake_.fired();
  in_behaviour_ = true;
  const std::uint64_t now = now_ps();
  deliver(req_, now);
  deliver(resp_, now);
  const bool edge = clock_.on_edge(now);
  // Allocation once per edge: the block can wake again at an edge it has allocated (a far end's
  // END phase at that instant, after this block ran); a second allocation would let that
  // instant's order of events decide grants.
  if (edge && now != allocated_edge_ps_) {
    allocated_edge_ps_ = now;
    for (Network* net : {&req_, &resp_}) {
      retry_held(*net, now);
      for (unsigned r = 0; r < net->routers.size(); ++r) {
        if (net->routers[r].waiting) allocate(*net, r, now);
      }
    }
  }
  in_behaviour_ = false;
  // What was due at this edge has been handled (deliveries before allocation, so room they made
  // was seen by this edge's allocation). Wake at the next edge marked due.
  const std::uint64_t period = clock_.period_ps();
  std::uint64_t cycle = now / period;
  if (edge) {
    std::uint64_t& word = due_bits_[(cycle & due_mask_) >> 6];
    const std::uint64_t bit = std::uint64_t{1} << (cycle & 63);
    if (word & bit) --due_count_;
    word &= ~bit;
  }
  if (due_count_ == 0) return;
  for (std::uint64_t n = 0; n <= due_mask_; n += 64) {
    // The window's bits from `cycle` on, a word at a time.
    const std::uint64_t c = cycle + n;
    const std::uint64_t w = due_bits_[(c & due_mask_) >> 6];
    const unsigned shift = static_cast<unsigned>(c & 63);
    std::uint64_t bits = w >> shift;
    if (shift) bits |= due_bits_[((c + 64) & due_mask_) >> 6] << (64 - shift);
    if (bits) {
      wake_.at((c + static_cast<std::uint64_t>(__builtin_ctzll(bits))) * period, now);
      return;
    }
  }
}

void Mesh::report_links(const Network& net, nlohmann::json& j, double cycles, double& busiest,
                        nlohmann::json& busiest_link, double& sum, std::size_t& count) const {
  j = nlohmann::json::array();
  for (const Output& o : net.out) {
    if (o.downstream_input == kNone) continue;
    const MeshCoord from = topo_.coord({o.router});
    const MeshCoord to = topo_.coord(*topo_.neighbour({o.router}, o.dir));
    const double u = cycles > 0 ? static_cast<double>(o.flits_sent) / cycles : 0.0;
    nlohmann::json l = {{"from", {from.x, from.y}},
                        {"to", {to.x, to.y}},
                        {"flits", o.flits_sent},
                        {"flits_per_cycle", u}};
    sum += u;
    ++count;
    if (u > busiest || busiest_link.is_null()) {
      busiest = u;
      busiest_link = l;
      busiest_link["network"] = net.is_request ? "request" : "response";
    }
    j.push_back(std::move(l));
  }
}

void Mesh::report(ComponentReport& r, const ReportWindow& window) const {
  const double cycles =
      static_cast<double>(window.duration_ps()) / static_cast<double>(clock_.period_ps());
  double busiest = 0;
  double sum = 0;
  std::size_t count = 0;
  nlohmann::json busiest_link;
  nlohmann::json links = nlohmann::json::object();
  report_links(req_, links["request"], cycles, busiest, busiest_link, sum, count);
  report_links(resp_, links["response"], cycles, busiest, busiest_link, sum, count);
  double bytes = 0;
  std::uint64_t backpressure = 0;
  std::uint64_t flits = 0;
  for (const Network* net : {&req_, &resp_}) {
    for (const Output& o : net->out) {
      if (o.downstream_input == kNone) {
        bytes += static_cast<double>(o.bytes);
      } else {
        flits += o.flits_sent;
      }
    }
    for (const Input& in : net->in) backpressure += in.backpressure_ps;
  }
  nlohmann::json stall = nlohmann::json::array();
  double stall_total = 0;
  for (unsigned n = 0; n < topo_.nodes(); ++n) {
    const double ns =
        static_cast<double>(req_.routers[n].stall_ps + resp_.routers[n].stall_ps) * 1e-3;
    stall.push_back(ns);
    stall_total += ns;
  }
  const std::uint64_t packets = req_.delivered + resp_.delivered;
  r.bytes = bytes;
  r.utilization = std::min(1.0, busiest);
  r.backpressure_ns = static_cast<double>(backpressure) * 1e-3;
  r.extra["requests"] = req_.delivered;
  r.extra["responses"] = resp_.delivered;
  r.extra["flits"] = flits;
  r.extra["mean_hops"] =
      packets ? static_cast<double>(req_.hops + resp_.hops) / static_cast<double>(packets) : 0.0;
  r.extra["mean_link_utilization"] = count ? sum / static_cast<double>(count) : 0.0;
  r.extra["link_bandwidth_gbps"] = link_gbps();
  r.extra["dims"] = {topo_.cols(), topo_.rows()};
  r.extra["bisection_bound_flits_per_node"] = uniform_saturation_flits_per_node(topo_, 1.0, 1.0);
  r.extra["busiest_link"] = busiest_link;
  r.extra["links"] = std::move(links);
  r.extra["router_stall_ns"] = std::move(stall);
  r.extra["stall_ns"] = stall_total;
  // Resources: every router-to-router link that carried flits, per network.
  for (const Network* net : {&req_, &resp_}) {
    for (const Output& o : net->out) {
      if (o.downstream_input == kNone || o.flits_sent == 0) continue;
      ResourceUse u;
      u.name = link_name(*net, o);
      u.utilization = cycles > 0 ? std::min(1.0, static_cast<double>(o.flits_sent) / cycles) : 0.0;
      u.capacity = link_gbps();
      u.used = u.utilization * link_gbps();
      r.resources.push_back(std::move(u));
    }
  }
  // Slot pools (flits), in the order a message meets them: its injection channel, the buffer of
  // each router input it is sent into (the credits of the link feeding it), its ejection channel.
  for (const Network* net : {&req_, &resp_}) {
    const bool responses = !net->is_request;
    const char* dir = responses ? "response" : "request";
    auto add = [&](ResourceUse u, double fraction) {
      u.response_path = responses;
      u.path_depth = noc_pool_depth(fraction, responses);
      r.resources.push_back(std::move(u));
    };
    for (unsigned s = 0; s < net->injection.size(); ++s) {
      const Input& in = net->in[net->injection[s]];
      if (in.fill.max() == 0) continue;
      ResourceUse u = slot_pool(
          fmt::format("{} injection buffer ({} {})", dir, responses ? "controller" : "port", s),
          in.fill, window);
      u.backpressure_ns = static_cast<double>(in.backpressure_ps) * 1e-3;
      add(std::move(u), 0.0);
    }
    for (const Output& o : net->out) {
      if (o.packets == 0) continue;
      // Credits on their way back when the window ends count as back from when they arrive.
      const OccupancyGauge taken = taken_at(o, window.end_ps);
      if (o.downstream_input == kNone) {
        add(slot_pool(fmt::format("{} ejection buffer ({} {})", dir,
                                  responses ? "port" : "controller", o.endpoint),
                      taken, window),
            1.0);
        continue;
      }
      add(slot_pool(link_name(*net, o, "VC credits"), taken, window), route_fraction(o));
    }
  }
}

OccupancyGauge Mesh::taken_at(const Output& o, std::uint64_t t_ps) const {
  OccupancyGauge taken = o.taken;
  std::vector<unsigned> credits = o.credits;
  for (std::size_t k = 0; k < o.returns.size() && o.returns[k].at_ps < t_ps; ++k) {
    const CreditReturn& c = o.returns[k];
    set_room(taken, credits[c.vc], credits[c.vc] + c.flits, c.at_ps);
    credits[c.vc] += c.flits;
  }
  return taken;
}

std::string Mesh::link_name(const Network& net, const Output& o, const char* what) const {
  const MeshCoord from = topo_.coord({o.router});
  const MeshCoord to = topo_.coord(*topo_.neighbour({o.router}, o.dir));
  return fmt::format("{} {} ({},{})->({},{})", net.is_request ? "request" : "response", what,
                     from.x, from.y, to.x, to.y);
}

double Mesh::route_fraction(const Output& o) {
  return o.route_hops
             ? (static_cast<double>(o.hops_before) + 0.5 * static_cast<double>(o.packets)) /
                   static_cast<double>(o.route_hops)
             : 0.5;
}

void Mesh::probes(std::vector<ResourceProbe>& out) const {
  const double period = static_cast<double>(clock_.period_ps());
  for (const Network* net : {&req_, &resp_}) {
    for (const Output& o : net->out) {
      if (o.downstream_input == kNone) continue;
      ResourceProbe u;
      u.use.name = link_name(*net, o);
      u.use.capacity = link_gbps();
      u.counter = &o.flits_sent;  // one flit per cycle at most
      u.scale = period;
      out.push_back(std::move(u));
    }
  }
  for (const Network* net : {&req_, &resp_}) {
    const bool responses = !net->is_request;
    const char* dir = responses ? "response" : "request";
    auto add = [&](ResourceProbe p, double fraction) {
      p.use.response_path = responses;
      p.use.path_depth = noc_pool_depth(fraction, responses);
      out.push_back(std::move(p));
    };
    for (unsigned s = 0; s < net->injection.size(); ++s) {
      add(pool_probe(
              fmt::format("{} injection buffer ({} {})", dir, responses ? "controller" : "port", s),
              net->in[net->injection[s]].fill),
          0.0);
    }
    for (const Output& o : net->out) {
      // Credits back but not yet collected count as back from when they arrive (taken_at).
      auto taken = [this, &o](ResourceProbe p) {
        p.gauge = nullptr;
        p.work = [this, &o](std::uint64_t t) { return taken_at(o, t).integral_to(t); };
        return p;
      };
      if (o.downstream_input == kNone) {
        add(taken(pool_probe(fmt::format("{} ejection buffer ({} {})", dir,
                                         responses ? "port" : "controller", o.endpoint),
                             o.taken)),
            1.0);
        continue;
      }
      ResourceProbe p = taken(pool_probe(link_name(*net, o, "VC credits"), o.taken));
      const Output* op = &o;
      p.depth = [op, responses] { return noc_pool_depth(route_fraction(*op), responses); };
      add(std::move(p), 0.5);
    }
  }
}

std::size_t Mesh::occupancy() const {
  std::size_t n = 0;
  for (const Network* net : {&req_, &resp_}) {
    for (const VcBuffer& b : net->vc) n += b.q.size();
    for (const Input& in : net->in) n += in.hold.empty() ? 0 : 1;
    for (const Output& o : net->out) n += o.staged.size();
  }
  return n;
}

}  // namespace famsim
