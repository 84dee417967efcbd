// Statistics: latency histograms and the component registry that stats.json is built from.
//
// Blocks keep their own plain counters (no lookups on the hot path). At the end of a run the
// registry asks every registered Component for a report: the three keys every component has
// (`bytes`, `utilization`, `backpressure_ns`) plus block-specific extras. Names are the blocks'
// hierarchical SystemC names, which are stable keys in stats.json.
#pragma once

#include "models/core/log.h"
#include "models/core/request.h"

#include <boost/histogram.hpp>
#include <nlohmann/json.hpp>
#include <systemc>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace famsim {

// Latency distribution with exact count, mean, min and max, and percentiles from a log-spaced
// Boost.Histogram (4000 bins over 0.1 ns .. 100 ms, each bin 0.52% wide; values outside land in
// the under/overflow bins and percentiles there are clamped to the exact min/max).
class LatencyHistogram {
 public:
  LatencyHistogram() = default;

  void add_ps(std::uint64_t v) { add_ps(v, bin_of_ps(v)); }
  // The bin a value falls in, the same in every LatencyHistogram: worked out once (a lookup in a
  // table of the bins' edges), it adds one sample to several histograms.
  static int bin_of_ps(std::uint64_t v);
  void add_ps(std::uint64_t v, int bin) {
    if (!hist_) allocate();
    ++(*hist_)[bin];  // unchecked: bin_of_ps gives -1 (underflow) .. kBins (overflow)
    ++count_;
    sum_ps_ += v;
    if (v < min_ps_) min_ps_ = v;
    if (v > max_ps_) max_ps_ = v;
  }
  void merge(const LatencyHistogram& other);

  std::uint64_t count() const { return count_; }
  double mean_ns() const;
  double min_ns() const;
  double max_ns() const;
  // q in [0, 1]; 0 gives min, 1 gives max.
  double percentile_ns(double q) const;

  // {count, mean, min, p50, p90, p99, p999, max}, all in ns.
  nlohmann::json to_json() const;
  // The non-empty bins, {upper_ns: [...], count: [...]} in increasing order: a latency CDF.
  nlohmann::json bins_json() const;

 private:
  using Axis = boost::histogram::axis::regular<double, boost::histogram::axis::transform::log>;
  using Hist =
      boost::histogram::histogram<std::tuple<Axis>,
                                  boost::histogram::storage_adaptor<std::vector<std::uint64_t>>>;
  // Allocated on the first sample: a platform has thousands of mostly idle blocks (every HBM
  // pseudo-channel of every GPU), and the bins are 32 KiB.
  void allocate();
  std::unique_ptr<Hist> hist_;
  std::uint64_t count_ = 0;
  std::uint64_t sum_ps_ = 0;
  std::uint64_t min_ps_ = UINT64_MAX;
  std::uint64_t max_ps_ = 0;
};

// How late an open-loop initiator (one that replays a trace's timestamps) issued its requests.
// A request's issue lag is its issue time minus the time its trace line asked for, counted from
// the initiator's first clock edge at or after that time: a timestamp between two edges waits for
// the next one, which is the initiator's clock, not lag. Lag is the platform not keeping up with
// the trace (the outstanding window full, a port holding back the request, one request per port
// per cycle), and latency is measured from issue: a lagging run's latencies leave the lag out.
class IssueLag {
 public:
  // A lag of at least this much is worth saying in the summary: about one memory access. A few
  // requests stamped at the same instant leave one issue cycle of lag each, which is not.
  static constexpr std::uint64_t kMaterialPs = 100'000;

  // A request its trace asked for at due_ps (due_edge_ps: the initiator's first edge at or after
  // it) was issued at issue_ps.
  void add(std::uint64_t due_ps, std::uint64_t due_edge_ps, std::uint64_t issue_ps) {
    const std::uint64_t lag = issue_ps > due_edge_ps ? issue_ps - due_edge_ps : 0;
    lag_.add_ps(lag);
    if (lag > 0) ++late_;
    if (due_ps > last_due_ps_) last_due_ps_ = due_ps;
  }
  void merge(const IssueLag& other);

  std::uint64_t requests() const { return lag_.count(); }
  std::uint64_t late() const { return late_; }
  // The largest lag is at least kMaterialPs.
  bool material() const;
  // {requests, late (lag > 0), mean_ns, p99_ns, max_ns, last_timestamp_ns}.
  nlohmann::json to_json() const;
  // "the platform fell behind the trace by up to X us (...): latencies are from issue, not from
  // the trace timestamp".
  std::string sentence() const;

 private:
  LatencyHistogram lag_;
  std::uint64_t late_ = 0;
  std::uint64_t last_due_ps_ = 0;
};

// The span of simulated time a report covers: from the first request issued to the end of the
// run (the last completion, or sim.max_time_ns). Rates and utilisations are over this window, so
// idle time before a workload starts does not dilute them.
struct ReportWindow {
  std::uint64_t start_ps = 0;
  std::uint64_t end_ps = 0;
  std::uint64_t duration_ps() const { return end_ps > start_ps ? end_ps - start_ps : 0; }
  double seconds() const { return static_cast<double>(duration_ps()) * 1e-12; }
};

// What completed requests to one class of target moved and how long they took (atomics count
// as reads, as everywhere in the summary).
struct TargetTraffic {
  std::uint64_t read_bytes = 0;
  std::uint64_t write_bytes = 0;
  LatencyHistogram read_latency;
  LatencyHistogram write_latency;

  // A completed request (its latency's bin: LatencyHistogram::bin_of_ps).
  void add(bool write, std::uint32_t bytes, std::uint64_t latency_ps, int bin) {
    if (write) {
      write_latency.add_ps(latency_ps, bin);
      write_bytes += bytes;
    } else {
      read_latency.add_ps(latency_ps, bin);
      read_bytes += bytes;
    }
  }
  void merge(const TargetTraffic& other);
  // {read_bytes, write_bytes, read_bandwidth_gbps, write_bandwidth_gbps, bandwidth_gbps} over
  // `window` (GB/s = 1e9 bytes per simulated second, as the summary's), and with `latency`
  // latency_ns (all requests), read_latency_ns and write_latency_ns as LatencyHistogram::to_json.
  nlohmann::json to_json(const ReportWindow& window, bool latency) const;
};

// One resource of a component, for the bottleneck analysis (models/core/bottleneck.h): a server
// with a configured bandwidth (a link direction's wire, a switch output port, a DRAM channel's
// data bus) or a pool of slots (a tag pool, a request queue, an outstanding-request window).
struct ResourceUse {
  enum class Type : std::uint8_t { kBandwidth, kSlots };
  std::string name;  // within its component: "response wire", "tags (port 3)", "read queue"
  Type type = Type::kBandwidth;
  double utilization = 0;  // busy fraction (bandwidth) or mean occupancy over capacity (slots)
  double capacity = 0;     // configured GB/s (bandwidth) or slots
  double used = 0;         // achieved GB/s on the wire (bandwidth) or mean occupied slots
  // A server whose work is not bytes (a DRAM rank's activates): the unit of `capacity` and
  // `used` in place of GB/s, and what it means when it limits (said after the limiter sentence).
  std::string unit;
  std::string advice;
  // A full pool that more slots would not relieve (the advice says why): the analysis then gives
  // its Little's-law bound but no slot count to reach the analytic bound.
  bool more_slots_help = true;
  // An initiator's pool whose slots come out of another of its windows (a GPU's collectives
  // window, within its max_outstanding): its requests count in flight, its slots not again.
  bool within_other_window = false;
  double backpressure_ns = 0;  // time it held back its upstream, where the block tracks it
  nlohmann::json occupancy;    // OccupancyGauge::to_json of a slot pool, else null
  // The pool is taken by responses on their way back (a switch's response-plane input buffer, a
  // link's response-VC credits), so it sits after the memory on a request's round trip.
  bool response_path = false;
  // Where on the way to the memory the pool is entered, when its block's kind does not say it
  // (bottleneck.h path_depth): a link's pools sit just before the block the link feeds. -1: the
  // kind's.
  double path_depth = -1;
  // A link's wire, and the VC credits that pace traffic on it: the components at the wire's ends,
  // the way its data goes (a wire is named for the transactions its side starts, so a peer GPU's
  // responses go out on its "request wire"). Empty for every other resource.
  std::string from, to;
  // A server that is another view of a slot pool of its block (a link VC's credit round trip, of
  // the VC's credits): the pool's name. The pool full behind it is not held back by it; it is it.
  std::string view_of;
  // A pool that is the queue of a server of its block (a link VC's transmit queue, of its wire):
  // the server's name. The starved-server rule (bottleneck.cpp) reads a server's own queues by
  // it; a block without it (a DRAM channel) has every request-side pool as its server's queue.
  std::string feeds;
  // The share of the time a server could work at all (a DRAM data bus under all-bank refresh:
  // 1 - tRFC / tREFI, its channel dark the rest); the starved-server rule judges how busy it was
  // against this, not against the whole window. 1: always.
  double available = 1;
  // A figure of the whole run with no running counter behind it (a DRAM channel's busiest bank,
  // a different bank from one span to the next): the per-phase analysis has no probe for it.
  bool whole_run_only = false;
};

// What a component says about itself at the end of a run.
struct ComponentReport {
  double bytes = 0;            // payload bytes that passed through (or were served)
  double utilization = 0;      // busy fraction of its limiting resource, 0..1
  double backpressure_ns = 0;  // total time it held back a neighbour's BEGIN_REQ/BEGIN_RESP
  nlohmann::json extra = nlohmann::json::object();
  std::vector<ResourceUse> resources;  // what can limit it; empty for blocks with none
};

class OccupancyGauge;

// A resource's running total of work, for the per-phase analysis (models/core/phases.h): the
// resource as its block's report gives it (`use`: name, type, capacity, unit, where it sits; the
// figures of use are left at 0) and its work done so far, read from the block's own counters, in
// units that `scale` turns into resource x ps: busy ps of a server, level x ps of a pool. Its
// utilisation over a span is the work done in the span over (span x `servers`): 1 for a server,
// the slots of a pool.
struct ResourceProbe {
  ResourceUse use;
  double servers = 1;
  // The work: a counter, or a pool's gauge (its time integral, its clock ticking every `tick_fs`),
  // or else what `work(t)` returns for a sample at t ps; times `scale`.
  const std::uint64_t* counter = nullptr;
  const OccupancyGauge* gauge = nullptr;
  std::uint64_t tick_fs = 1000;
  std::function<std::uint64_t(std::uint64_t t_ps)> work;
  double scale = 1;
  // Where it sits, when only the run's traffic says (a mesh's credit pools: how far along the
  // routes of their packets); null when use.path_depth does. Asked at the end of the run.
  std::function<double()> depth;
};

// A resource with the component that owns it, as the registry collects them.
struct ResourceRecord {
  std::string component;
  BlockKind kind = BlockKind::kOther;
  ResourceUse use;
};

class ComponentRegistry;

// Base of every famsim block: registration, block id and kind, end-of-run report, and what it
// still holds (for the conservation check). Each block states its kind (BlockKind): a crossbar
// is a switch, a NoC or a memory hub depending on where the platform builder puts it.
class Component {
 public:
  Component(ComponentRegistry& registry, std::string name, BlockKind kind);
  virtual ~Component();
  Component(const Component&) = delete;
  Component& operator=(const Component&) = delete;

  const std::string& component_name() const { return name_; }
  BlockId block_id() const { return id_; }
  BlockKind kind() const { return BlockRegistry::kind(id_); }

  virtual void report(ComponentReport& r, const ReportWindow& window) const = 0;
  // Every resource the block's report can list, as probes of its running work (ResourceProbe),
  // in any order; a block with none adds none. The probes read the block's counters when called,
  // so they live as long as the block.
  virtual void probes(std::vector<ResourceProbe>& out) const { (void)out; }
  // Requests and responses this block still holds (queued, in flight inside it, or held).
  virtual std::size_t occupancy() const = 0;

  // The block's log (models/core/log.h); its level is set from sim.log after elaboration.
  ModuleLog& log() { return log_; }
  const ModuleLog& log() const { return log_; }

 private:
  ModuleLog log_;
  ComponentRegistry& registry_;
  std::string name_;
  BlockId id_;
};

class ComponentRegistry {
 public:
  const std::vector<Component*>& components() const { return components_; }
  // Every component's report keyed by name; each resource is also appended to `resources`
  // (when given) and listed under the component's `resources` key. A resource that a report and
  // its block's probes describe differently (an internal fault: the whole-run and the per-phase
  // verdicts would name different things) is a line appended to `mismatches`, so the run still
  // writes its results and fails after; without `mismatches`, std::logic_error.
  nlohmann::json report_all(const ReportWindow& window,
                            std::vector<ResourceRecord>* resources = nullptr,
                            std::vector<std::string>* mismatches = nullptr) const;

 private:
  friend class Component;
  std::vector<Component*> components_;
};

// Utilisation helper: busy time over the window, clamped to [0, 1].
double busy_fraction(std::uint64_t busy_ps, const ReportWindow& window, double resources = 1);
// Mean of a quantity from its time integral (sum of value x ps) over the window.
double window_mean(std::uint64_t integral, const ReportWindow& window);

}  // namespace famsim
