#include "models/core/stats.h"

#include "models/core/log_bins.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string_view>

namespace famsim {

namespace {
constexpr unsigned kBins = 4000;
constexpr double kLowNs = 0.1;
constexpr double kHighNs = 1e8;

// The bin of a latency in ps on LatencyHistogram's axis, by its logarithm: the definition, which
// BinTable tabulates.
int axis_bin_of_ps(std::uint64_t v) {
  static const boost::histogram::axis::regular<double, boost::histogram::axis::transform::log> axis(
      kBins, kLowNs, kHighNs);
  return axis.index(static_cast<double>(v) * 1e-3);
}

// axis_bin_of_ps without a logarithm, for the two samples every completed request adds (GPU and
// memory). The bin never decreases as v grows (between integers v the logarithm grows by far more
// than its rounding error), so it is given by the smallest v of each bin (start_). A log-linear
// bucket of v (LogLinearBins<7>, at most 0.8% wide) is at most two bins (0.52% wide) apart from
// its first value's: the lookup starts at that bin and steps up at most twice.
class BinTable {
 public:
  BinTable() {
    // start_[k]: the smallest v in bin k - 1 (k = 0: the underflow bin, from 0) or a later bin.
    const double log_span = std::log(kHighNs / kLowNs);
    start_[0] = 0;
    for (unsigned k = 1; k <= kBins + 1; ++k) {
      const int bin = static_cast<int>(k) - 1;
      const double guess = std::ceil(kLowNs * 1e3 * std::exp(log_span * bin / kBins));
      std::uint64_t v = std::max(start_[k - 1], static_cast<std::uint64_t>(guess));
      while (v > start_[k - 1] && axis_bin_of_ps(v - 1) >= bin) --v;
      while (axis_bin_of_ps(v) < bin) ++v;
      start_[k] = v;
    }
    for (unsigned c = 0; c < Coarse::kCount; ++c) {
      const auto lowest = static_cast<std::uint64_t>(Coarse::lower(c));
      first_[c] = static_cast<std::uint16_t>(axis_bin_of_ps(lowest) + 1);
    }
  }
  int bin(std::uint64_t v) const {
    unsigned k = first_[Coarse::index(v)];
    while (k <= kBins && v >= start_[k + 1]) ++k;
    return static_cast<int>(k) - 1;
  }

 private:
  using Coarse = LogLinearBins<7>;
  std::array<std::uint64_t, kBins + 2> start_;
  std::array<std::uint16_t, Coarse::kCount> first_;
};
// Built before main() (nothing bins a latency before then), so that bin_of_ps() is the lookup
// alone, without the test a function's static would need at every call.
const BinTable bin_table;
}  // namespace

int LatencyHistogram::bin_of_ps(std::uint64_t v) { return bin_table.bin(v); }

void LatencyHistogram::allocate() {
  hist_ = std::make_unique<Hist>(boost::histogram::make_histogram_with(
      std::vector<std::uint64_t>(), Axis(kBins, kLowNs, kHighNs)));
}

void LatencyHistogram::merge(const LatencyHistogram& o) {
  if (o.hist_) {
    if (!hist_) allocate();
    *hist_ += *o.hist_;
  }
  count_ += o.count_;
  sum_ps_ += o.sum_ps_;
  min_ps_ = std::min(min_ps_, o.min_ps_);
  max_ps_ = std::max(max_ps_, o.max_ps_);
}

double LatencyHistogram::mean_ns() const {
  return count_ == 0 ? 0.0 : static_cast<double>(sum_ps_) * 1e-3 / static_cast<double>(count_);
}
double LatencyHistogram::min_ns() const {
  return count_ == 0 ? 0.0 : static_cast<double>(min_ps_) * 1e-3;
}
double LatencyHistogram::max_ns() const { return static_cast<double>(max_ps_) * 1e-3; }

double LatencyHistogram::percentile_ns(double q) const {
  if (count_ == 0) return 0.0;
  const double lo = min_ns();
  const double hi = max_ns();
  if (q <= 0.0) return lo;
  if (q >= 1.0) return hi;
  // Rank of the wanted sample (1-based, nearest-rank definition), then the bin that holds it.
  const double rank = std::ceil(q * static_cast<double>(count_));
  double cum = 0;
  for (auto&& b : boost::histogram::indexed(*hist_, boost::histogram::coverage::all)) {
    const double n = static_cast<double>(*b);
    if (n == 0) continue;
    if (cum + n >= rank) {
      const int idx = b.index();
      if (idx < 0) return lo;
      if (idx >= static_cast<int>(kBins)) return hi;
      // Interpolate inside the bin in log space (the axis is log-spaced).
      const double a = b.bin().lower();
      const double z = b.bin().upper();
      const double frac = (rank - cum) / n;
      const double v = a * std::pow(z / a, frac);
      return std::clamp(v, lo, hi);
    }
    cum += n;
  }
  return hi;
}

nlohmann::json LatencyHistogram::to_json() const {
  return nlohmann::json{{"count", count_},
                        {"mean", mean_ns()},
                        {"min", min_ns()},
                        {"p50", percentile_ns(0.50)},
                        {"p90", percentile_ns(0.90)},
                        {"p99", percentile_ns(0.99)},
                        {"p999", percentile_ns(0.999)},
                        {"max", max_ns()}};
}

void IssueLag::merge(const IssueLag& o) {
  lag_.merge(o.lag_);
  late_ += o.late_;
  last_due_ps_ = std::max(last_due_ps_, o.last_due_ps_);
}

bool IssueLag::material() const {
  return lag_.count() > 0 && lag_.max_ns() * 1e3 >= static_cast<double>(kMaterialPs);
}

nlohmann::json IssueLag::to_json() const {
  return nlohmann::json{
      {"requests", lag_.count()},  {"late", late_},
      {"mean_ns", lag_.mean_ns()}, {"p99_ns", lag_.percentile_ns(0.99)},
      {"max_ns", lag_.max_ns()},   {"last_timestamp_ns", static_cast<double>(last_due_ps_) * 1e-3}};
}

std::string IssueLag::sentence() const {
  return fmt::format(
      "the platform fell behind the trace by up to {:.3g} us (mean {:.3g} us, p99 {:.3g} us; "
      "{} of {} requests issued late): latencies are from issue, not from the trace timestamp",
      lag_.max_ns() * 1e-3, lag_.mean_ns() * 1e-3, lag_.percentile_ns(0.99) * 1e-3, late_,
      lag_.count());
}

nlohmann::json LatencyHistogram::bins_json() const {
  nlohmann::json upper = nlohmann::json::array();
  nlohmann::json counts = nlohmann::json::array();
  if (hist_) {
    for (auto&& b : boost::histogram::indexed(*hist_, boost::histogram::coverage::all)) {
      if (*b == 0) continue;
      const int idx = b.index();
      // Under- and overflow: the smallest and largest values seen bound them.
      upper.push_back(idx < 0                          ? min_ns()
                      : idx >= static_cast<int>(kBins) ? max_ns()
                                                       : b.bin().upper());
      counts.push_back(static_cast<std::uint64_t>(*b));
    }
  }
  return {{"upper_ns", upper}, {"count", counts}};
}

void TargetTraffic::merge(const TargetTraffic& other) {
  read_bytes += other.read_bytes;
  write_bytes += other.write_bytes;
  read_latency.merge(other.read_latency);
  write_latency.merge(other.write_latency);
}

nlohmann::json TargetTraffic::to_json(const ReportWindow& window, bool latency) const {
  const double secs = window.seconds();
  const auto gbps = [&](std::uint64_t bytes) {
    return secs > 0 ? static_cast<double>(bytes) / secs * 1e-9 : 0.0;
  };
  nlohmann::json j = {{"read_bytes", read_bytes},
                      {"write_bytes", write_bytes},
                      {"read_bandwidth_gbps", gbps(read_bytes)},
                      {"write_bandwidth_gbps", gbps(write_bytes)},
                      {"bandwidth_gbps", gbps(read_bytes + write_bytes)}};
  if (latency) {
    LatencyHistogram all;
    all.merge(read_latency);
    all.merge(write_latency);
    j["latency_ns"] = all.to_json();
    j["read_latency_ns"] = read_latency.to_json();
    j["write_latency_ns"] = write_latency.to_json();
  }
  return j;
}

Component::Component(ComponentRegistry& registry, std::string name, BlockKind kind)
    : registry_(registry), name_(std::move(name)), id_(BlockRegistry::add(name_, kind)) {
  log_.set(name_, LogLevel::kWarning);
  registry_.components_.push_back(this);
}

Component::~Component() {
  auto& v = registry_.components_;
  v.erase(std::remove(v.begin(), v.end(), this), v.end());
}

namespace {

// A block names each resource twice: in its report and in its probes (the per-phase analysis's
// view of the same resource). Every resource the report lists must have a probe that describes it
// alike, or the whole-run and the per-phase verdicts would name different things. Checked on every
// run, so any run of any platform catches a block whose two lists drifted apart. The report may
// leave out resources it has probes for (an idle block lists none). Each difference is one line,
// "<block>: '<resource>': <what differs>", appended to `out`.
void check_probes_match(const Component& c, const ComponentReport& r,
                        std::vector<std::string>& out) {
  if (r.resources.empty()) return;
  std::vector<ResourceProbe> probes;
  c.probes(probes);
  auto fail = [&](std::string_view resource, const std::string& what) {
    out.push_back(fmt::format("{}: '{}': {}", c.component_name(), resource, what));
  };
  std::map<std::string_view, const ResourceProbe*> by_name;
  for (const ResourceProbe& p : probes) {
    if (!by_name.emplace(p.use.name, &p).second) fail(p.use.name, "two probes of that name");
  }
  auto type_name = [](ResourceUse::Type t) {
    return t == ResourceUse::Type::kBandwidth ? "bandwidth" : "slots";
  };
  auto side = [](bool response) { return response ? "response" : "request"; };
  for (const ResourceUse& u : r.resources) {
    const auto it = by_name.find(u.name);
    if (it == by_name.end()) {
      if (!u.whole_run_only) fail(u.name, "the report lists it, no probe does");
      continue;
    }
    if (u.whole_run_only) {
      fail(u.name, "the report marks it whole-run only, yet it has a probe");
      continue;
    }
    const ResourceUse& p = it->second->use;
    const double depth = it->second->depth ? it->second->depth() : p.path_depth;
    if (p.type != u.type) {
      fail(u.name, fmt::format("type {} in the report, {} in the probe", type_name(u.type),
                               type_name(p.type)));
    }
    if (p.capacity != u.capacity) {
      fail(u.name,
           fmt::format("capacity {} in the report, {} in the probe", u.capacity, p.capacity));
    }
    if (p.unit != u.unit) {
      fail(u.name, fmt::format("unit '{}' in the report, '{}' in the probe", u.unit, p.unit));
    }
    if (p.response_path != u.response_path) {
      fail(u.name, fmt::format("{} side in the report, {} side in the probe", side(u.response_path),
                               side(p.response_path)));
    }
    if (p.available != u.available) {
      fail(u.name, fmt::format("available {} of the time in the report, {} in the probe",
                               u.available, p.available));
    }
    if (p.feeds != u.feeds) {
      fail(u.name,
           fmt::format("queue of '{}' in the report, of '{}' in the probe", u.feeds, p.feeds));
    }
    if (depth != u.path_depth) {
      fail(u.name,
           fmt::format("path depth {} in the report, {} in the probe", u.path_depth, depth));
    }
  }
}

}  // namespace

nlohmann::json ComponentRegistry::report_all(const ReportWindow& window,
                                             std::vector<ResourceRecord>* resources,
                                             std::vector<std::string>* mismatches) const {
  nlohmann::json out = nlohmann::json::object();
  for (const Component* c : components_) {
    ComponentReport r;
    c->report(r, window);
    std::vector<std::string> found;
    check_probes_match(*c, r, found);
    if (!found.empty() && !mismatches) {
      throw std::logic_error(fmt::format(
          "its report and its per-phase probes describe a resource differently: {}", found[0]));
    }
    if (mismatches) mismatches->insert(mismatches->end(), found.begin(), found.end());
    nlohmann::json j = r.extra;
    j["bytes"] = r.bytes;
    j["utilization"] = r.utilization;
    j["backpressure_ns"] = r.backpressure_ns;
    if (!r.resources.empty()) {
      nlohmann::json list = nlohmann::json::array();
      for (ResourceUse& u : r.resources) {
        nlohmann::json e = {
            {"name", u.name},
            {"type", u.type == ResourceUse::Type::kBandwidth ? "bandwidth" : "slots"},
            {"utilization", u.utilization},
            {"capacity", u.capacity},
            {"used", u.used},
            {"backpressure_ns", u.backpressure_ns}};
        if (!u.occupancy.is_null()) e["occupancy"] = u.occupancy;
        if (!u.unit.empty()) e["unit"] = u.unit;
        list.push_back(std::move(e));
        if (resources) resources->push_back({c->component_name(), c->kind(), std::move(u)});
      }
      j["resources"] = std::move(list);
    }
    out[c->component_name()] = std::move(j);
  }
  return out;
}

double busy_fraction(std::uint64_t busy_ps, const ReportWindow& window, double resources) {
  if (window.duration_ps() == 0 || resources <= 0) return 0.0;
  const double f =
      static_cast<double>(busy_ps) / (static_cast<double>(window.duration_ps()) * resources);
  return std::clamp(f, 0.0, 1.0);
}

double window_mean(std::uint64_t integral, const ReportWindow& window) {
  return window.duration_ps() == 0
             ? 0.0
             : static_cast<double>(integral) / static_cast<double>(window.duration_ps());
}

}  // namespace famsim
