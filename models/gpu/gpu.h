// GPU initiator: turns its streams' accesses into fabric and local-memory requests.
//
// Ports
//   fabric(i)  initiator sockets to the GPU's fabric links
//   local(c)   initiator sockets to its local HBM channels (one controller per channel, reached
//              directly from the GPU's memory partitions, or through the GPU's memory hub where
//              peers' requests join them, on platforms with peer paths: platforms/builder.h)
//
// Parameters (GpuParams)
//   clock_mhz        issue decisions land on this clock's edges
//   request_bytes    accesses are split into requests of at most this size
//   max_outstanding  requests in flight over all streams (each stream also has its own cap)
//   issue_width      requests started per cycle at most
//   (a port starts one request per cycle, and the next after its END_REQ)
//
// Behaviour per clock edge (once per edge, on what arrived before it: completions and END_REQs
// that arrive at an edge count from the next one): streams take turns (round-robin), each issuing
// its next request if it is below its cap and the request's port is free; a request whose port is
// busy waits at the head of its stream. Each request is translated VA -> PA through the VMM address
// space and routed: an address in the GPU's own local range goes to local channel decode(pa),
// anything else to a fabric link chosen from pa in request_bytes granules (xor-folded for a
// power-of-two link count, modulo otherwise, as AddressMap does for channels). An address in a
// peer GPU's local range (the peer table, set_peers) is a peer request: it goes to a fabric link
// like any other, carrying the destination GPU (RequestExt::dest_gpu) for the switch and the
// channel decoded through the peer's memory interleave for its memory controller. Completions are
// taken at once (the outstanding cap reserves their room). Latency is measured from issue to the
// response's arrival.
//
// Each stream pulls its accesses from its AccessSource (traffic/source.h): an access pattern, an AI
// workload generator or a trace; a source's side lane (a group's collectives) is issued as a
// stream of its own, taking its turn with the others, and reported as part of its stream. A source
// may ask to wait (pacing, compute, timestamps); the GPU then wakes at that time, or at the next
// completion, which it reports back to the source. A stream with a duration issues nothing from
// start + duration_ns on: a wait that reaches that time ends the stream's issuing at once, and the
// stream finishes when its last request completes.
//
// Statistics: requests, bytes, peer requests, atomics, read/write latency histograms (atomics count
// as reads; each completion also goes into the simulation's breakdown by hop, SimContext), bytes
// and latency by where the request went (Initiator::traffic: its own HBM, a peer's, the
// expansion device, as routed above), data mismatches when verifying, faults (on_fault: count),
// per stream its requests, bytes, start and finish, its generator's own results and, for a stream
// replaying a trace's timestamps, its issue lag (IssueLag: how much later than the trace asked its
// requests went out).
#pragma once

#include "models/core/clock.h"
#include "models/core/initiator.h"
#include "models/core/occupancy.h"
#include "models/core/ports.h"
#include "models/core/ring.h"
#include "models/core/sim_context.h"
#include "models/core/wakeup.h"
#include "models/memory/address_map.h"
#include "traffic/source.h"
#include "traffic/workload_config.h"
#include "traffic/vmm.h"

#include <systemc>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace famsim {

struct GpuParams {
  double clock_mhz = 1980;
  unsigned request_bytes = 128;
  unsigned max_outstanding = 512;
  unsigned issue_width = 8;
  // Each fabric port's link, GB/s per direction (set by the configuration reader; 0: none). A
  // port starts one request per cycle: when request_bytes per cycle is less than the link
  // carries, that rate is a resource of the bottleneck analysis (port_issue_binds()).
  double fabric_link_gbps = 0;

  // The most a fabric port starts: one request of request_bytes per cycle, GB/s.
  double port_issue_gbps() const { return request_bytes * Clock(clock_mhz).mhz() * 1e-3; }
  bool port_issue_binds() const { return port_issue_gbps() < fabric_link_gbps; }
};

// The GPU's local memory as seen by its router.
struct LocalMemoryRoute {
  std::uint64_t base = 0;
  std::uint64_t size = 0;  // 0: no local memory
  AddressMap map;
};

// Another GPU's local memory, reached over the fabric (peer access).
struct PeerMemoryRoute {
  unsigned gpu = 0;
  LocalMemoryRoute memory;
};

class Gpu : public sc_core::sc_module, public Component, public Initiator {
 public:
  Gpu(sc_core::sc_module_name name, SimContext& ctx, unsigned index, const GpuParams& params,
      unsigned fabric_ports, const LocalMemoryRoute& local, const AddressSpace& vmm);

  // Adds a stream before the simulation starts: its configuration, the source of its accesses
  // (traffic/source.h); `deps` are workload indices of earlier streams that also run on this GPU.
  void add_stream(const StreamConfig& cfg, unsigned stream_index,
                  std::unique_ptr<AccessSource> source, const std::vector<unsigned>& deps);
  // Faults (an access to an unmapped page or without permission) stop the run with an error
  // (default), or are counted and the request dropped (workload on_fault: count); a dropped
  // request takes the issue slot it would have used.
  void count_faults(bool on) { count_faults_ = on; }

  // The peer table: the other GPUs' memories this GPU reaches over its fabric links (the
  // builder sets it on platforms with peer paths; without it every non-local address is
  // device memory). Before the simulation starts; the ranges must not overlap.
  void set_peers(std::vector<PeerMemoryRoute> peers);

  InitiatorPort<Gpu>& fabric(unsigned i) { return *fabric_[i]; }
  InitiatorPort<Gpu>& local(unsigned c) { return *local_[c]; }
  unsigned fabric_ports() const { return static_cast<unsigned>(fabric_.size()); }
  unsigned local_channels() const { return static_cast<unsigned>(local_.size()); }
  unsigned index() const { return index_; }

  Sync bw(unsigned port, Payload& p, Phase& phase, sc_core::sc_time& t);

  void report(ComponentReport& r, const ReportWindow& window) const override;
  void probes(std::vector<ResourceProbe>& out) const override;
  std::size_t occupancy() const override { return in_flight() + completions_.size(); }

  // Results, read by the simulation at the end (the counts: Initiator).
  std::uint64_t work_end_ps() const override {
    return std::max(last_completion_ps(), sources_end_ps_);
  }
  bool all_streams_finished() const;
  // Phases of workload stream `stream_index` whose compute has ended by now_ps on this GPU (0 if
  // the GPU does not run it, or its source has no phases): the progress line's count.
  std::uint64_t phases_ended(unsigned stream_index, std::uint64_t now_ps) const;
  bool finished() const override { return all_streams_finished() && issued() == completed(); }
  const IssueLag* issue_lag() const override {
    return issue_lag_.requests() > 0 ? &issue_lag_ : nullptr;
  }

 private:
  static constexpr unsigned kNoPeer = ~0U;
  static constexpr unsigned kNoLane = ~0U;
  struct Stream {
    const StreamConfig* cfg = nullptr;
    unsigned index = 0;  // in the workload
    std::unique_ptr<AccessSource> owned;
    AccessSource* source = nullptr;  // owned, or the side lane of the stream before it
    // The stream's side lane (AccessSource::side_lane), a Stream of its own in streams_ right
    // after it: its index there, or kNoLane. lane_of: the stream a side lane belongs to.
    unsigned lane = kNoLane;
    unsigned lane_of = kNoLane;
    std::vector<unsigned> deps;
    bool started = false;
    bool exhausted = false;
    bool finished = false;
    std::uint64_t start_ps = 0;
    std::uint64_t stop_ps = Wakeup::kNever;
    std::uint64_t finish_ps = 0;
    std::uint64_t wait_ps = Wakeup::kNever;  // the source has nothing before this time
    unsigned outstanding = 0;
    // The access being split into requests.
    bool have_access = false;
    Access access;
    std::uint32_t split_done = 0;
    // The next request, translated and routed, waiting for its port.
    bool have_request = false;
    std::uint64_t va = 0;
    std::uint64_t pa = 0;
    std::uint32_t len = 0;
    std::uint32_t phase = 0;
    std::uint64_t due_ps = Access::kUntimed;  // the trace's time for it (replay), else kUntimed
    bool write = false;
    bool to_local = false;
    unsigned peer = kNoPeer;  // index in peers_ of a peer request's target
    unsigned port = 0;
    // Statistics.
    std::uint64_t requests = 0;
    std::uint64_t bytes = 0;
    std::uint64_t faults = 0;
    IssueLag issue_lag;  // requests a trace's timestamps asked for (replay streams)
  };

  // Index in peers_ of the peer memory holding `pa`, or kNoPeer.
  unsigned find_peer(std::uint64_t pa) const;
  enum class Prepared { kReady, kNone, kFaulted };
  Prepared prepare(Stream& s, std::uint64_t now_ps);
  bool try_issue(Stream& s, std::uint64_t now_ps);
  void start_streams(std::uint64_t now_ps);
  // A verified read whose data differs from the pattern written there: counted, and its details
  // kept for the first few (Initiator::first_data_mismatches). Rare: out of complete()'s way.
  [[gnu::cold, gnu::noinline]] void note_data_mismatch(const Payload& p, std::uint64_t arrived_ps,
                                                       std::uint64_t seed);
  void complete(Payload& p, std::uint64_t now_ps);
  void change_outstanding(const Stream& s, int delta, std::uint64_t now_ps);
  // Requests in flight, against the GPU's max_outstanding: its streams' and their side lanes'.
  std::uint64_t in_flight() const { return outstanding_.level() + lanes_.level(); }
  // A fault: stops the run (false), or counts it and drops the request (true).
  bool fault(Stream& s, AddressSpace::Fault f, std::uint64_t now_ps);
  friend class Wakeup;  // runs behaviour()
  void behaviour();

  SimContext& ctx_;
  unsigned index_;
  GpuParams params_;
  Clock clock_;
  LocalMemoryRoute local_route_;
  const AddressSpace& vmm_;
  std::vector<std::unique_ptr<InitiatorPort<Gpu>>> fabric_;
  std::vector<std::unique_ptr<InitiatorPort<Gpu>>> local_;
  AddressMap fabric_spread_;            // physical address -> fabric link
  std::vector<PeerMemoryRoute> peers_;  // sorted by base
  std::uint64_t peers_lo_ = 0;          // [peers_lo_, peers_hi_) spans every peer range
  std::uint64_t peers_hi_ = 0;
  // Per port: the first time it can take a request (kNever while waiting for END_REQ).
  std::vector<std::uint64_t> fabric_ready_ps_;
  std::vector<std::uint64_t> local_ready_ps_;
  // Requests each fabric port started, each taking it for a cycle (counted when it can bind).
  std::vector<std::uint64_t> port_issues_;
  std::uint64_t last_issue_edge_ = Wakeup::kNever;
  std::vector<Stream> streams_;
  std::vector<unsigned> local_stream_;  // workload stream index -> index in streams_
  unsigned rr_next_ = 0;
  std::uint64_t next_id_ = 0;
  // The streams' requests in flight, of the window they can fill (max_outstanding, or their own
  // caps' sum): the GPU's window as a resource. Side lanes' requests (a group's collectives, a
  // round at a time) count in a window of their own, lanes_ (of their caps' sum), so that the
  // first reads as the fetches fill it; the GPU's max_outstanding caps both together
  // (in_flight()).
  OccupancyGauge outstanding_;
  OccupancyGauge lanes_;
  Ring<Payload*> completions_;
  Wakeup wake_;

  std::uint64_t peer_requests_ = 0;
  std::uint64_t atomics_ = 0;  // issued atomics (also counted as reads)
  bool count_faults_ = false;
  std::uint64_t faults_unmapped_ = 0;
  std::uint64_t faults_permission_ = 0;
  std::string first_fault_;
  // The latest work_end_ps() of the sources that ran to their end (not those a duration cut).
  std::uint64_t sources_end_ps_ = 0;
  IssueLag issue_lag_;  // over its streams
};

}  // namespace famsim
