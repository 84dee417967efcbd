#include "models/gpu/gpu.h"

#include "models/core/time_text.h"
#include "traffic/pattern.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace famsim {

Gpu::Gpu(sc_core::sc_module_name name, SimContext& ctx, unsigned index, const GpuParams& params,
         unsigned fabric_ports, const LocalMemoryRoute& local, const AddressSpace& vmm)
    : sc_core::sc_module(name),
      Component(ctx.registry, this->name(), BlockKind::kGpu),
      Initiator(&ctx.memories),
      ctx_(ctx),
      index_(index),
      params_(params),
      clock_(params.clock_mhz),
      local_route_(local),
      vmm_(vmm),
      fabric_spread_(std::max(1u, fabric_ports), params.request_bytes,
                     AddressMap::spreading_select(std::max(1u, fabric_ports))),
      fabric_ready_ps_(fabric_ports, 0),
      local_ready_ps_(local.size ? local.map.channels() : 0, 0),
      port_issues_(params.port_issue_binds() ? fabric_ports : 0, 0),
      completions_(params.max_outstanding),
      wake_("wake", ctx.scheduler(), this, &Wakeup::call_behaviour<Gpu>) {
  outstanding_.set_capacity(params.max_outstanding);
  for (unsigned i = 0; i < fabric_ports; ++i) {
    fabric_.push_back(
        std::make_unique<InitiatorPort<Gpu>>(("fabric" + std::to_string(i)).c_str(), *this, i));
  }
  const unsigned channels = local.size ? local.map.channels() : 0;
  for (unsigned c = 0; c < channels; ++c) {
    // Local ports are numbered after the fabric ports.
    local_.push_back(std::make_unique<InitiatorPort<Gpu>>(("local" + std::to_string(c)).c_str(),
                                                          *this, fabric_ports + c));
  }
  SC_HAS_PROCESS(Gpu);
  SC_METHOD(behaviour);
  sensitive << wake_.event();
  // Runs once at initialisation to start the streams.
}

void Gpu::add_stream(const StreamConfig& cfg, unsigned stream_index,
                     std::unique_ptr<AccessSource> source, const std::vector<unsigned>& deps) {
  Stream s;
  s.cfg = &cfg;
  s.index = stream_index;
  s.owned = std::move(source);
  s.source = s.owned.get();
  // A source released by something other than this GPU's completions (a tensor-parallel group's
  // barrier) is asked again at the GPU's first edge after the release.
  s.source->set_waker(
      [this](std::uint64_t t_ps) { wake_.at(clock_.edge_after_ps(t_ps), famsim::now_ps()); });
  // Dependencies name earlier workload streams; keep them as indices into streams_.
  for (unsigned d : deps) s.deps.push_back(local_stream_.at(d));
  if (local_stream_.size() <= stream_index) local_stream_.resize(stream_index + 1, 0);
  const auto at = static_cast<unsigned>(streams_.size());
  local_stream_[stream_index] = at;
  AccessSource* side = s.source->side_lane();
  if (side) s.lane = at + 1;
  streams_.push_back(std::move(s));
  if (side) {
    Stream lane;
    lane.cfg = &cfg;
    lane.index = stream_index;
    lane.source = side;
    lane.lane_of = at;
    streams_.push_back(std::move(lane));
  }
  // The window the GPU can fill: its own, or less when its streams' own caps add up to less
  // (a stream of max_outstanding 64 on a GPU of 1024 keeps 64 in flight, and the window it
  // fills is those 64, not 1024; side lanes are not in it). Streams that run one after another
  // count as if together: an upper bound.
  std::uint64_t streams_cap = 0, lanes_cap = 0;
  for (const Stream& st : streams_)
    (st.lane_of == kNoLane ? streams_cap : lanes_cap) += st.cfg->max_outstanding;
  outstanding_.set_capacity(std::min<std::uint64_t>(params_.max_outstanding, streams_cap));
  lanes_.set_capacity(std::min<std::uint64_t>(params_.max_outstanding, lanes_cap));
}

void Gpu::set_peers(std::vector<PeerMemoryRoute> peers) {
  std::sort(peers.begin(), peers.end(), [](const PeerMemoryRoute& a, const PeerMemoryRoute& b) {
    return a.memory.base < b.memory.base;
  });
  for (std::size_t i = 0; i < peers.size(); ++i) {
    const LocalMemoryRoute& m = peers[i].memory;
    if (m.size == 0 || (i > 0 && peers[i - 1].memory.base + peers[i - 1].memory.size > m.base)) {
      throw std::logic_error(std::string(name()) + ": empty or overlapping peer memory ranges");
    }
  }
  peers_ = std::move(peers);
  peers_lo_ = peers_.empty() ? 0 : peers_.front().memory.base;
  peers_hi_ = peers_.empty() ? 0 : peers_.back().memory.base + peers_.back().memory.size;
}

unsigned Gpu::find_peer(std::uint64_t pa) const {
  if (pa < peers_lo_ || pa >= peers_hi_) return kNoPeer;  // device memory: one comparison pair
  // The last range starting at or below pa.
  const auto it =
      std::upper_bound(peers_.begin(), peers_.end(), pa,
                       [](std::uint64_t a, const PeerMemoryRoute& r) { return a < r.memory.base; });
  const PeerMemoryRoute& r = *(it - 1);
  return pa - r.memory.base < r.memory.size ? static_cast<unsigned>(it - 1 - peers_.begin())
                                            : kNoPeer;
}

void Gpu::start_streams(std::uint64_t now_ps) {
  for (Stream& s : streams_) {
    if (s.started || s.lane_of != kNoLane) continue;  // a side lane starts with its stream
    std::uint64_t earliest = static_cast<std::uint64_t>(std::llround(s.cfg->start_ns * 1000.0));
    bool deps_done = true;
    std::uint64_t deps_finish = 0;
    for (unsigned d : s.deps) {
      deps_done = deps_done && streams_[d].finished;
      deps_finish = std::max(deps_finish, streams_[d].finish_ps);
    }
    if (!deps_done) continue;
    if (!s.deps.empty()) {
      // The compute gap between dependent phases.
      earliest = std::max(
          earliest, deps_finish + static_cast<std::uint64_t>(std::llround(s.cfg->gap_ns * 1000.0)));
    }
    if (now_ps < earliest) {
      wake_.at(earliest);
      continue;
    }
    s.started = true;
    s.start_ps = now_ps;
    if (s.cfg->duration_ns > 0) {
      s.stop_ps = now_ps + static_cast<std::uint64_t>(std::llround(s.cfg->duration_ns * 1000.0));
    }
    if (s.lane != kNoLane) {
      Stream& lane = streams_[s.lane];
      lane.started = true;
      lane.start_ps = s.start_ps;
      lane.stop_ps = s.stop_ps;
    }
  }
}

bool Gpu::fault(Stream& s, AddressSpace::Fault f, std::uint64_t now_ps) {
  const std::string what = fmt::format(
      "{}: stream '{}' {} virtual address 0x{:x} at {} ns: {}", name(), s.cfg->name,
      s.write ? "writes" : "reads", s.va, ns_of_ps(now_ps),
      f == AddressSpace::Fault::kUnmapped ? "the page is not mapped"
                                          : "the GPU has no permission for this access");
  if (count_faults_) {
    ++(f == AddressSpace::Fault::kUnmapped ? faults_unmapped_ : faults_permission_);
    ++s.faults;
    if (first_fault_.empty()) first_fault_ = what;
    // The request is dropped: its bytes count as done for the source.
    s.source->completed(s.phase, s.len, now_ps);
    return true;
  }
  // Stopping: an input error, named by the stream that faulted (the counted report above keeps
  // the bare text, which does not depend on where the workload file is).
  if (!ctx_.input_error) ctx_.input_error = s.cfg->where + ": " + what;
  ctx_.stop();
  return false;
}

// Makes the stream's next request ready (translated and routed): kReady. kNone when the stream
// has no request now (its source waits or is done) or a fault stopped the run; kFaulted when the
// request faulted and was counted and dropped (it used the issue slot).
Gpu::Prepared Gpu::prepare(Stream& s, std::uint64_t now_ps) {
  if (s.have_request) return Prepared::kReady;
  if (s.exhausted) return Prepared::kNone;
  if (!s.have_access) {
    if (s.wait_ps != Wakeup::kNever && now_ps < s.wait_ps) return Prepared::kNone;
    s.wait_ps = Wakeup::kNever;
    if (now_ps >= s.stop_ps) {
      s.exhausted = true;
      s.source->stopped(now_ps);
      return Prepared::kNone;
    }
    std::uint64_t wake = AccessSource::kNever;
    AccessSource::State st;
    try {
      st = s.source->next(now_ps, s.access, wake);
    } catch (const std::exception& e) {
      // A trace line that cannot be replayed: an input error, as at elaboration.
      if (!ctx_.input_error) ctx_.input_error = e.what();
      ctx_.stop();
      s.exhausted = true;
      return Prepared::kNone;
    }
    if (st == AccessSource::State::kDone) {
      s.exhausted = true;
      // The side lane lives as long as its source: done with it (its rounds have all completed).
      if (s.lane != kNoLane) streams_[s.lane].exhausted = true;
      sources_end_ps_ = std::max(sources_end_ps_, s.source->work_end_ps());
      return Prepared::kNone;
    }
    if (st == AccessSource::State::kWait) {
      if (wake == AccessSource::kNever && s.lane != kNoLane && streams_[s.lane].exhausted &&
          s.outstanding == 0) {
        // Its side lane was cut short by the duration: what the source waits for (its phase's
        // collectives) will not come. The stream ends as its lane did.
        s.exhausted = true;
        s.source->stopped(now_ps);
        return Prepared::kNone;
      }
      if (wake != AccessSource::kNever && wake >= s.stop_ps) {
        // The next access (a paced one, after a compute time, at a timestamp) would come after
        // the stream's duration: the one before was its last. The stream ends when that one
        // completes, not after waiting out the time to one it will never issue.
        s.exhausted = true;
        s.source->stopped(now_ps);
        return Prepared::kNone;
      }
      if (wake != AccessSource::kNever && wake > kMaxSimTimePs) {
        // The source's next access (a pacing rate, a compute time, a timestamp) lies past the
        // longest simulated time: an input error naming the stream, not a bare time limit.
        if (!ctx_.input_error) {
          ctx_.input_error = fmt::format(
              "{}: stream '{}' on {} would issue its next access at {:.6g} s, past 2^48 ps "
              "(281 s), the longest famsim represents; expected a workload that issues within it "
              "(check its rates, compute times and sizes)",
              s.cfg->where, s.cfg->name, name(), static_cast<double>(wake) * 1e-12);
        }
        ctx_.stop();
        s.exhausted = true;
        return Prepared::kNone;
      }
      s.wait_ps = wake;
      return Prepared::kNone;
    }
    s.have_access = true;
    s.split_done = 0;
  }
  s.va = s.access.va + s.split_done;
  s.len = std::min(params_.request_bytes, s.access.bytes - s.split_done);
  s.write = s.access.write;
  s.phase = s.access.phase;
  s.due_ps = s.access.due_ps;
  s.split_done += s.len;
  if (s.split_done >= s.access.bytes) s.have_access = false;

  const AddressSpace::Fault f = vmm_.translate(index_, s.va, s.write, s.pa);
  if (f != AddressSpace::Fault::kNone) {
    if (fault(s, f, now_ps)) return Prepared::kFaulted;
    s.exhausted = true;
    return Prepared::kNone;
  }
  if (local_route_.size && s.pa - local_route_.base < local_route_.size) {
    s.to_local = true;
    s.peer = kNoPeer;
    s.port = local_route_.map.decode(s.pa - local_route_.base).channel;
  } else {
    if (fabric_.empty()) {
      throw std::logic_error(std::string(name()) + ": address outside local memory and no fabric");
    }
    s.to_local = false;
    s.port = fabric_spread_.decode(s.pa).channel;
    s.peer = find_peer(s.pa);
  }
  s.have_request = true;
  return Prepared::kReady;
}

bool Gpu::try_issue(Stream& s, std::uint64_t now_ps) {
  if (!s.started || s.outstanding >= s.cfg->max_outstanding) return false;
  const Prepared prep = prepare(s, now_ps);
  if (prep == Prepared::kFaulted) return true;  // a dropped request takes its issue slot
  if (prep == Prepared::kNone) return false;
  std::vector<std::uint64_t>& ready = s.to_local ? local_ready_ps_ : fabric_ready_ps_;
  if (ready[s.port] > now_ps) return false;

  Payload& p = ctx_.pool.allocate();
  p.acquire();
  p.set_command(s.write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  p.set_address(s.pa);
  p.set_data_length(s.len);
  p.set_streaming_width(s.len);
  RequestExt& e = ext_of(p);
  // Ids are per GPU (GPU index in the top bits), so they do not depend on the order in which GPUs
  // issuing at the same instant run.
  e.id = (static_cast<std::uint64_t>(index_) << 40) | next_id_++;
  e.gpu = static_cast<std::uint16_t>(index_);
  e.stream = static_cast<std::uint16_t>(s.index);
  e.phase = s.phase;
  e.virtual_address = s.va;
  e.physical_address = s.pa;
  e.issue_ps = now_ps;
  e.outstanding = true;
  e.write = s.write;
  e.length = s.len;
  if (s.cfg->atomic != AtomicOp::kNone) {
    e.atomic = s.cfg->atomic;
    e.atomic_operand = s.cfg->atomic_operand;
    e.atomic_compare = s.cfg->atomic_compare;
    ++atomics_;
  }
  e.dest_gpu = RequestExt::kNoGpu;
  e.target_class = TargetClass::kDevice;
  if (s.to_local) {
    const AddressMap::Decoded d = local_route_.map.decode(s.pa - local_route_.base);
    e.channel = d.channel;
    e.channel_address = d.channel_address;
    e.target_class = TargetClass::kLocalHbm;
  } else if (s.peer != kNoPeer) {
    const PeerMemoryRoute& peer = peers_[s.peer];
    const AddressMap::Decoded d = peer.memory.map.decode(s.pa - peer.memory.base);
    e.dest_gpu = static_cast<std::uint16_t>(peer.gpu);
    e.target_class = TargetClass::kPeerGpu;
    e.channel = d.channel;
    e.channel_address = d.channel_address;
    ++peer_requests_;
  }
  if (s.write) fill_pattern(p.get_data_ptr(), s.len, s.va, s.cfg->data_seed);
  e.enter(block_id(), 0, now_ps);

  s.have_request = false;
  ++s.outstanding;
  change_outstanding(s, +1, now_ps);
  if (s.due_ps != Access::kUntimed) {
    const std::uint64_t due_edge = clock_.edge_ps(s.due_ps);
    s.issue_lag.add(s.due_ps, due_edge, now_ps);
    issue_lag_.add(s.due_ps, due_edge, now_ps);
  }
  count_issue(s.len, now_ps);
  ++s.requests;
  s.bytes += s.len;

  if (!port_issues_.empty() && !s.to_local) ++port_issues_[s.port];
  InitiatorPort<Gpu>& port = s.to_local ? *local_[s.port] : *fabric_[s.port];
  // A port takes one request per cycle; one that holds it back takes the next after END_REQ.
  ready[s.port] = port.send_req(p) ? now_ps + clock_.period_ps() : Wakeup::kNever;
  p.release();
  return true;
}

Sync Gpu::bw(unsigned port, Payload& p, Phase& phase, sc_core::sc_time&) {
  const std::uint64_t now = now_ps();
  if (phase == tlm::BEGIN_RESP) {
    RequestExt& e = ext_of(p);
    e.resp_enter(now);
    completions_.push_back(&p);
    // complete() reads these at the next edge, lines of the payload no hop on the way touched
    // (with thousands of requests in flight, out of the cache since the request was issued): the
    // payload's response status and memory manager, the hop records past the first line (the
    // breakdown) and the initiator's fields (issue time, stream). Fetched from here on, they
    // cost complete() no wait (famsim bench: 2-5 % less time, tests/bench/ab_speed.sh).
    const char* payload = reinterpret_cast<const char*>(&p);
    __builtin_prefetch(payload);
    __builtin_prefetch(payload + 64);
    __builtin_prefetch(&e.hops[4]);
    __builtin_prefetch(&e.service_start_ps);
    // Completions are booked with their arrival time; the GPU acts on them at the next edge.
    wake_.at(clock_.edge_after_ps(now), now);
    return accept_now(p, phase, tlm::END_RESP);
  }
  if (phase == tlm::END_REQ) {
    // The port takes the next request from the next edge on.
    const std::uint64_t ready = clock_.edge_after_ps(now);
    if (port < fabric_.size()) {
      fabric_ready_ps_[port] = ready;
    } else {
      local_ready_ps_[port - fabric_.size()] = ready;
    }
    wake_.at(ready, now);
    return tlm::TLM_ACCEPTED;
  }
  protocol_error(name(), phase, "a GPU port");
}

bool Gpu::all_streams_finished() const {
  for (const Stream& s : streams_) {
    if (!s.finished) return false;
  }
  return true;
}

void Gpu::change_outstanding(const Stream& s, int delta, std::uint64_t now_ps) {
  OccupancyGauge& g = s.lane_of == kNoLane ? outstanding_ : lanes_;
  g.set(static_cast<std::uint64_t>(static_cast<std::int64_t>(g.level()) + delta), now_ps);
}

void Gpu::note_data_mismatch(const Payload& p, std::uint64_t arrived_ps, std::uint64_t seed) {
  if (first_data_mismatches().size() == kMismatchesKept) {
    count_data_mismatch();  // its details are not kept: not worked out
    return;
  }
  const RequestExt& e = ext_of(p);
  DataMismatch m;
  m.id = e.id;
  m.gpu = e.gpu;
  m.virtual_address = e.virtual_address;
  m.physical_address = e.physical_address;
  m.bytes = e.length;
  m.complete_ps = arrived_ps;
  const unsigned char* data = p.get_data_ptr();
  bool first = true;
  for_each_pattern_byte(e.length, e.virtual_address, seed, [&](unsigned i, unsigned char v) {
    if (data[i] == v) return;
    ++m.wrong_bytes;
    if (!first) return;
    first = false;
    m.first_wrong_offset = i;
    m.expected = v;
    m.read = data[i];
  });
  count_data_mismatch(m);
}

void Gpu::complete(Payload& p, std::uint64_t now_ps) {
  RequestExt& e = ext_of(p);
  const std::uint64_t arrived_ps = e.hops[0].resp_in_ps();
  if (!e.outstanding) {
    count_duplicate_response();
    p.release();
    return;
  }
  e.outstanding = false;
  const unsigned si = local_stream_[e.stream];
  // A side lane's requests carry its tag; a stream without a lane has none of them.
  Stream& s =
      streams_[e.phase == Access::kSideLaneTag && streams_[si].lane != kNoLane ? streams_[si].lane
                                                                               : si];
  const unsigned len = e.length;
  const std::size_t memory =
      count_completion(e.target_class, e.write, e.physical_address, len, arrived_ps - e.issue_ps);
  if (!e.write && s.cfg->verify_reads &&
      count_pattern_mismatches(p.get_data_ptr(), len, e.virtual_address, s.cfg->data_seed) != 0) {
    note_data_mismatch(p, arrived_ps, s.cfg->data_seed);
  }
  count_response(len, p.get_response_status() == tlm::TLM_OK_RESPONSE, arrived_ps);
  ctx_.record_completion(e, arrived_ps, p.get_response_status(), memory, p.get_data_ptr());
  s.source->completed(e.phase, len, arrived_ps, now_ps);
  --s.outstanding;
  change_outstanding(s, -1, now_ps);
  p.release();
}

void Gpu::behaviour() {
  wake_.fired();
  const std::uint64_t now_ps = famsim::now_ps();
  const std::uint64_t edge = clock_.edge_ps(now_ps);
  if (edge != now_ps || edge == last_issue_edge_) {
    // Decisions happen once per edge, on what arrived before it.
    wake_.at(edge != now_ps ? edge : edge + clock_.period_ps(), now_ps);
    return;
  }
  last_issue_edge_ = edge;
  while (!completions_.empty() && ext_of(*completions_.front()).hops[0].resp_in_ps() < now_ps) {
    Payload* p = completions_.front();
    completions_.pop_front();
    complete(*p, now_ps);
  }
  const std::uint64_t next_edge = now_ps + clock_.period_ps();
  std::uint64_t next = completions_.empty() ? Wakeup::kNever : next_edge;
  start_streams(now_ps);

  unsigned slots = params_.issue_width;
  const unsigned n = static_cast<unsigned>(streams_.size());
  bool progress = true;
  while (slots > 0 && progress && in_flight() < params_.max_outstanding && !ctx_.input_error) {
    progress = false;
    unsigned i = rr_next_;
    for (unsigned k = 0; k < n && slots > 0 && in_flight() < params_.max_outstanding; ++k) {
      Stream& s = streams_[i];
      if (++i == n) i = 0;
      if (try_issue(s, now_ps)) {
        --slots;
        progress = true;
      }
    }
    if (++rr_next_ >= n) rr_next_ = 0;
  }
  for (Stream& st : streams_) {
    // Streams that ran dry with nothing in flight are finished; their dependents may start on
    // the next edge.
    // A stream's own finish waits for its side lane's to end too (a stream cut short by its
    // duration may have some of its requests in flight, or one waiting for its port).
    const Stream* lane = st.lane != kNoLane ? &streams_[st.lane] : nullptr;
    if (st.started && !st.finished && st.exhausted && st.outstanding == 0 && !st.have_request &&
        (!lane || (lane->exhausted && lane->outstanding == 0 && !lane->have_request))) {
      st.finished = true;
      st.finish_ps = now_ps;
      next = next_edge;
    }
    // A source waiting for a time (pacing, compute, a timestamp).
    if (!st.exhausted && !st.have_request && st.wait_ps != Wakeup::kNever && st.wait_ps > now_ps) {
      next = std::min(next, clock_.edge_ps(st.wait_ps));
    }
    // A request waiting for a port that is free again from a later edge.
    if (st.have_request) {
      const std::uint64_t ready = (st.to_local ? local_ready_ps_ : fabric_ready_ps_)[st.port];
      if (ready != Wakeup::kNever && ready > now_ps) next = std::min(next, ready);
    }
  }
  // Used every slot: more may go out next cycle. Otherwise a completion, an END_REQ, a port
  // coming free or a stream start time wakes us.
  if (slots == 0) next = next_edge;
  wake_.at(next, now_ps);
}

namespace {

// A fabric port's issue rate as a resource: one request per GPU cycle.
ResourceUse port_issue_use(unsigned port, const GpuParams& p) {
  ResourceUse u;
  u.name = fmt::format("fabric port {} issue", port);
  u.capacity = p.port_issue_gbps();
  u.advice = fmt::format(
      "A GPU fabric port starts one request per GPU cycle: {} B at {:g} MHz is {:.2f} GB/s, less "
      "than its link's {:.2f}. Raise gpus.clock_mhz or gpus.request_bytes, or give the GPU more "
      "links.",
      p.request_bytes, Clock(p.clock_mhz).mhz(), p.port_issue_gbps(), p.fabric_link_gbps);
  return u;
}

}  // namespace

// The side lanes' window as a resource (a group's collectives).
constexpr const char* kLanesWindow = "collectives window";

void Gpu::probes(std::vector<ResourceProbe>& out) const {
  out.push_back(pool_probe("outstanding window", outstanding_));
  if (lanes_.capacity() > 0) {
    out.push_back(pool_probe(kLanesWindow, lanes_));
    out.back().use.within_other_window = true;  // as in report()
  }
  for (unsigned i = 0; i < port_issues_.size(); ++i) {
    ResourceProbe issue;
    issue.use = port_issue_use(i, params_);
    issue.counter = &port_issues_[i];
    issue.scale = static_cast<double>(clock_.period_ps());  // each request takes its port a cycle
    out.push_back(std::move(issue));
  }
}

void Gpu::report(ComponentReport& r, const ReportWindow& window) const {
  const TargetTraffic total = total_traffic();
  const std::uint64_t read_bytes = total.read_bytes;
  const std::uint64_t write_bytes = total.write_bytes;
  r.bytes = static_cast<double>(read_bytes + write_bytes);
  // The GPU's limiting resource here is its outstanding-request window.
  const double mean_outstanding = outstanding_.mean(window);
  r.utilization = outstanding_.mean_fraction(window);
  r.extra["mean_outstanding"] = mean_outstanding;
  r.extra["outstanding_occupancy"] = outstanding_.to_json(window);
  if (issued() > 0) {
    r.resources.push_back(slot_pool("outstanding window", outstanding_, window));
    if (outstanding_.capacity() < params_.max_outstanding) {
      r.resources.back().advice = fmt::format(
          "The window is the {} requests its streams' own max_outstanding allow in all, below "
          "the GPU's {} (gpus.max_outstanding): raise the streams' max_outstanding.",
          outstanding_.capacity(), params_.max_outstanding);
    }
    if (lanes_.capacity() > 0) {
      r.resources.push_back(slot_pool(kLanesWindow, lanes_, window));
      r.resources.back().advice =
          "The collectives' writes (a group's all-reduce or all-to-all rounds) in flight, each "
          "stream's up to its max_outstanding within the GPU's gpus.max_outstanding: raise the "
          "stream's max_outstanding.";
      r.resources.back().within_other_window = true;
    }
  }
  for (unsigned i = 0; i < port_issues_.size() && window.duration_ps() > 0; ++i) {
    if (port_issues_[i] == 0) continue;
    ResourceUse u = port_issue_use(i, params_);
    u.utilization = std::min(1.0, static_cast<double>(port_issues_[i] * clock_.period_ps()) /
                                      static_cast<double>(window.duration_ps()));
    u.used = u.utilization * u.capacity;
    r.resources.push_back(std::move(u));
  }
  r.backpressure_ns = 0;
  const double secs = window.seconds();
  r.extra["requests_issued"] = issued();
  r.extra["requests_completed"] = completed();
  r.extra["peer_requests"] = peer_requests_;
  r.extra["atomics"] = atomics_;
  r.extra["read_bytes"] = read_bytes;
  r.extra["write_bytes"] = write_bytes;
  r.extra["read_bandwidth_gbps"] = secs > 0 ? read_bytes / secs * 1e-9 : 0.0;
  r.extra["write_bandwidth_gbps"] = secs > 0 ? write_bytes / secs * 1e-9 : 0.0;
  nlohmann::json by_target = nlohmann::json::object();
  for (TargetClass c : kAllTargetClasses) {
    // A GPU's requests go to these three; a trace player's standalone memory is not among them.
    if (c != TargetClass::kStandaloneMemory) {
      by_target[to_string(c)] = traffic(c).to_json(window, false);
    }
  }
  r.extra["read_latency_ns"] = total.read_latency.to_json();
  r.extra["write_latency_ns"] = total.write_latency.to_json();
  r.extra["by_target"] = by_target;
  r.extra["data_mismatches"] = data_mismatches();
  if (issue_lag_.requests() > 0) r.extra["issue_lag"] = issue_lag_.to_json();
  nlohmann::json streams = nlohmann::json::object();
  for (const Stream& s : streams_) {
    if (s.lane_of != kNoLane) continue;  // reported with its stream
    const Stream* lane = s.lane != kNoLane ? &streams_[s.lane] : nullptr;
    streams[s.cfg->name] = {{"requests", s.requests + (lane ? lane->requests : 0)},
                            {"bytes", s.bytes + (lane ? lane->bytes : 0)},
                            {"finished", s.finished},
                            {"start_ns", static_cast<double>(s.start_ps) * 1e-3},
                            {"finish_ns", static_cast<double>(s.finish_ps) * 1e-3}};
    if (const std::uint64_t faults = s.faults + (lane ? lane->faults : 0))
      streams[s.cfg->name]["faults"] = faults;
    if (s.issue_lag.requests() > 0) streams[s.cfg->name]["issue_lag"] = s.issue_lag.to_json();
    nlohmann::json g = s.source->report();
    if (!g.empty()) streams[s.cfg->name]["generator"] = std::move(g);
  }
  if (count_faults_) {
    r.extra["faults_unmapped"] = faults_unmapped_;
    r.extra["faults_permission"] = faults_permission_;
    if (!first_fault_.empty()) r.extra["first_fault"] = first_fault_;
  }
  r.extra["streams"] = streams;
}

std::uint64_t Gpu::phases_ended(unsigned stream_index, std::uint64_t now_ps) const {
  for (const Stream& s : streams_) {
    if (s.index == stream_index && s.lane_of == kNoLane) return s.source->phases_ended(now_ps);
  }
  return 0;
}

}  // namespace famsim
