#include "models/core/phases.h"

#include "models/core/bottleneck.h"
#include "models/core/initiator.h"

#include <fmt/format.h>

#include <algorithm>

namespace famsim {

void PhaseSampler::attach(const ComponentRegistry& registry,
                          std::vector<const Initiator*> initiators) {
  if (!enabled()) return;
  initiators_ = std::move(initiators);
  std::vector<ResourceProbe> probes;
  for (const Component* c : registry.components()) {
    probes.clear();
    c->probes(probes);
    for (ResourceProbe& p : probes) {
      hot_.push_back({p.counter, p.gauge, p.tick_fs, static_cast<std::uint32_t>(functions_.size()),
                      static_cast<float>(p.scale)});
      if (!p.counter && !p.gauge) functions_.push_back(std::move(p.work));
      owners_.push_back(c);
    }
  }
  last_.assign(hot_.size(), 0);
  rows_.reserve(kMaxWindows);
  bytes_.reserve(kMaxWindows);
  next_ps_ = window_ps_;
}

std::array<std::uint64_t, kTargetClasses> PhaseSampler::completed() const {
  std::array<std::uint64_t, kTargetClasses> bytes{};
  for (const Initiator* i : initiators_) {
    for (TargetClass c : kAllTargetClasses) {
      const TargetTraffic& t = i->traffic(c);
      bytes[static_cast<unsigned>(c)] += t.read_bytes + t.write_bytes;
    }
  }
  return bytes;
}

void PhaseSampler::sample() {
  const std::uint64_t b = next_ps_;
  for (const auto& f : catch_ups_) f(b);
  rows_.push_back(moved_since_last(b, [this](std::size_t i, std::uint64_t r) { last_[i] = r; }));
  const std::array<std::uint64_t, kTargetClasses> now = completed();
  bytes_.push_back(bytes_since_last(now));
  completed_last_ = now;
  last_ps_ = b;
  if (rows_.size() == kMaxWindows) coarsen();
  next_ps_ = b + window_ps_;
}

std::vector<double> PhaseSampler::windows_of(const Component& c,
                                             const std::string& resource) const {
  const auto first = std::find(owners_.begin(), owners_.end(), &c);
  if (first == owners_.end()) return {};
  std::vector<ResourceProbe> probes;
  c.probes(probes);
  std::size_t probe = hot_.size();
  for (std::size_t k = 0; k < probes.size(); ++k) {
    if (probes[k].use.name == resource)
      probe = static_cast<std::size_t>(first - owners_.begin()) + k;
  }
  if (probe == hot_.size()) return {};
  std::vector<double> work;
  for (const Row& row : rows_) {
    double w = 0;
    for (const auto& [i, v] : row) {
      if (i == probe) w += v;
    }
    work.push_back(w);
  }
  return work;
}

void PhaseSampler::coarsen() {
  // Only ever called with every row filled: rows 2k and 2k + 1 become row k, as wide as both.
  const std::size_t rows = rows_.size() / 2;
  for (std::size_t k = 0; k < rows; ++k) {
    const Row& x = rows_[2 * k];
    const Row& y = rows_[2 * k + 1];
    Row m;
    m.reserve(std::max(x.size(), y.size()));
    std::size_t i = 0, j = 0;
    while (i < x.size() || j < y.size()) {
      if (j == y.size() || (i < x.size() && x[i].first < y[j].first)) {
        m.push_back(x[i++]);
      } else if (i == x.size() || y[j].first < x[i].first) {
        m.push_back(y[j++]);
      } else {
        m.emplace_back(x[i].first, x[i].second + y[j].second);
        ++i;
        ++j;
      }
    }
    rows_[k] = std::move(m);
    for (unsigned t = 0; t < kTargetClasses; ++t)
      bytes_[k][t] = bytes_[2 * k][t] + bytes_[2 * k + 1][t];
  }
  rows_.resize(rows);
  bytes_.resize(rows);
  window_ps_ *= 2;
}

namespace {

// A span of simulated time and the work (of the resources that did any) and bytes in it.
struct Span {
  std::uint64_t start_ps = 0, end_ps = 0;
  std::vector<double> work;
  std::array<std::uint64_t, kTargetClasses> bytes{};
  std::size_t windows = 0;
  int key = -1;  // the window's limiter (its index among the resources), -1 for none
  void add(const Span& o) {
    end_ps = o.end_ps;
    for (std::size_t i = 0; i < work.size(); ++i) work[i] += o.work[i];
    for (unsigned t = 0; t < kTargetClasses; ++t) bytes[t] += o.bytes[t];
    windows += o.windows;
  }
  double seconds() const { return static_cast<double>(end_ps - start_ps) * 1e-12; }
  std::uint64_t total_bytes() const {
    std::uint64_t b = 0;
    for (std::uint64_t v : bytes) b += v;
    return b;
  }
};

}  // namespace

nlohmann::json PhaseSampler::analyze(const ReportWindow& window, double threshold,
                                     const std::function<void(ResourceRecord&)>& amend) const {
  nlohmann::json out = {{"window_ns", static_cast<double>(window_ps_) * 1e-3},
                        {"resources", hot_.size()}};
  const std::uint64_t start = window.start_ps, end = window.end_ps;
  if (!enabled() || end <= start) {
    out["windows"] = 0;
    out["phases"] = nlohmann::json::array();
    return out;
  }
  // The rest of the run after the last boundary sampled, as one more row.
  std::vector<Row> rows = rows_;
  std::vector<std::array<std::uint64_t, kTargetClasses>> bytes = bytes_;
  const std::uint64_t tail_end = std::max(end, last_ps_);
  rows.push_back(moved_since_last(tail_end, [](std::size_t, std::uint64_t) {}));
  bytes.push_back(bytes_since_last(completed()));
  // The resources that did any work (a resource that never worked limits nothing, and the
  // whole-run report leaves it out too), with their descriptions from their components.
  std::vector<int> slot(hot_.size(), -1);
  for (const Row& r : rows) {
    for (const auto& [i, w] : r) {
      if (w > 0 && slot[i] < 0) slot[i] = 0;
    }
  }
  std::vector<ResourceRecord> recs;
  std::vector<double> servers;
  std::vector<double> beyond;  // a pool's last change past the end, ps
  {
    // A component's probes are consecutive, in the order it gave them.
    std::vector<ResourceProbe> probes;
    const Component* owner = nullptr;
    std::size_t first = 0;
    bool asked = false;
    for (std::size_t i = 0; i < hot_.size(); ++i) {
      if (owners_[i] != owner) {
        owner = owners_[i];
        first = i;
        asked = false;
      }
      if (slot[i] < 0) continue;
      if (!asked) {
        probes.clear();
        owner->probes(probes);
        asked = true;
      }
      const ResourceProbe& p = probes[i - first];
      slot[i] = static_cast<int>(recs.size());
      recs.push_back({owner->component_name(), owner->kind(), p.use});
      if (p.depth) recs.back().use.path_depth = p.depth();
      if (amend) amend(recs.back());
      servers.push_back(p.servers);
      const Hot& h = hot_[i];
      const double last = h.gauge ? static_cast<double>(h.gauge->last_change()) *
                                        static_cast<double>(h.tick_fs) * 1e-3
                                  : 0.0;
      beyond.push_back(std::max(0.0, last - static_cast<double>(end)));
    }
  }
  // The windows within the report window: work after it closes (a DRAM controller draining
  // posted writes after the last answer) counts in the last.
  std::vector<Span> spans;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    Span s;
    s.start_ps = std::max(k * window_ps_, start);
    s.end_ps = std::min(k + 1 == rows.size() ? tail_end : (k + 1) * window_ps_, end);
    const bool after = k * window_ps_ >= end;
    if (!after && s.end_ps <= s.start_ps) continue;  // before the first request
    Span* into = &s;
    if (after) {
      if (spans.empty()) continue;
      into = &spans.back();
    } else {
      s.work.assign(recs.size(), 0.0);
      // The rest of the run counts as the windows it spans (more than one only when a run cut
      // off by sim.max_time_ns has no sample between its last event and its end).
      s.windows = std::max<std::size_t>(
          1, static_cast<std::size_t>((s.end_ps - k * window_ps_ + window_ps_ - 1) / window_ps_));
    }
    for (const auto& [i, w] : rows[k]) {
      if (slot[i] >= 0) into->work[static_cast<std::size_t>(slot[i])] += w;
    }
    for (unsigned t = 0; t < kTargetClasses; ++t) into->bytes[t] += bytes[k][t];
    if (!after) spans.push_back(std::move(s));
  }
  out["windows"] = spans.size();

  auto set_utilization = [&](const Span& s) {
    const double ps = static_cast<double>(s.end_ps - s.start_ps);
    for (std::size_t r = 0; r < recs.size(); ++r) {
      // A pool whose block accounted changes after the end (a DRAM queue draining posted writes)
      // is averaged up to its last change, as the report averages it (OccupancyGauge::covered).
      const double d = s.end_ps == end ? ps + beyond[r] : ps;
      const double u = servers[r] > 0 && d > 0 ? s.work[r] / (d * servers[r]) : 0.0;
      recs[r].use.utilization = std::clamp(u, 0.0, 1.0);
      recs[r].use.used = recs[r].use.utilization * recs[r].use.capacity;
    }
  };
  // Keyed by the limiter itself, not its class: two like resources saturated in turn (two devices
  // each read in its turn) are two phases, which their class would hide. Like resources that
  // trade the top place from window to window while saturated together are one phase again
  // below.
  for (Span& s : spans) {
    set_utilization(s);
    const ResourceRecord* l = find_limiter(recs, threshold);
    s.key = l ? static_cast<int>(l - recs.data()) : -1;
  }

  // Runs of windows with one limiter; a run of one window between others is a blip at the
  // analysis's resolution and joins the run before it (the first run, the one after it).
  std::vector<Span> phases;
  auto coalesce = [](std::vector<Span>& v) {
    std::vector<Span> m;
    for (Span& s : v) {
      if (!m.empty() && m.back().key == s.key) {
        m.back().add(s);
      } else {
        m.push_back(std::move(s));
      }
    }
    v = std::move(m);
  };
  phases = std::move(spans);
  coalesce(phases);
  for (bool changed = true; changed && phases.size() > 1;) {
    changed = false;
    for (std::size_t p = 0; p < phases.size(); ++p) {
      if (phases[p].windows > 1) continue;
      if (p > 0) {
        phases[p - 1].add(phases[p]);
      } else {
        Span first = std::move(phases[0]);
        first.key = phases[1].key;
        first.add(phases[1]);
        phases[1] = std::move(first);
      }
      phases.erase(phases.begin() + static_cast<std::ptrdiff_t>(p));
      coalesce(phases);
      changed = true;
      break;
    }
  }

  // Each phase analysed in full over its span. Two neighbours whose analyses name a limiter of
  // one class (or none) are one phase when their span together still does: merged, and analysed
  // again. (Two devices' channels each saturated in its half average half busy over both halves,
  // where the GPUs' windows, full all along, would be named instead.)
  std::vector<nlohmann::json> analyses;
  auto limiter_class = [](const nlohmann::json& a) {
    if (!a.contains("limiter")) return std::string();
    const nlohmann::json& l = a["limiter"];
    return resource_group(l["component"].get<std::string>(), l["resource"].get<std::string>());
  };
  std::vector<AchievedPart> parts;
  auto analyse = [&](const Span& s) {
    set_utilization(s);
    const double secs = s.seconds();
    parts.clear();
    for (TargetClass c : kAllTargetClasses) {
      const std::uint64_t b = s.bytes[static_cast<unsigned>(c)];
      if (b > 0) parts.push_back({label(c), static_cast<double>(b) / secs * 1e-9});
    }
    const double achieved = static_cast<double>(s.total_bytes()) / secs * 1e-9;
    return analyze_bottlenecks(recs, achieved, threshold, parts);
  };
  for (const Span& s : phases) analyses.push_back(analyse(s));
  for (std::size_t p = 1; p < phases.size();) {
    const std::string cls = limiter_class(analyses[p - 1]);
    if (cls != limiter_class(analyses[p])) {
      ++p;
      continue;
    }
    Span both = phases[p - 1];
    both.add(phases[p]);
    nlohmann::json a = analyse(both);
    if (limiter_class(a) != cls) {
      ++p;
      continue;
    }
    phases[p - 1] = std::move(both);
    phases.erase(phases.begin() + static_cast<std::ptrdiff_t>(p));
    analyses.erase(analyses.begin() + static_cast<std::ptrdiff_t>(p));
    analyses[p - 1] = std::move(a);
  }

  nlohmann::json list = nlohmann::json::array();
  for (std::size_t p = 0; p < phases.size(); ++p) {
    const Span& s = phases[p];
    const double secs = s.seconds();
    nlohmann::json by_target = nlohmann::json::object();
    for (TargetClass c : kAllTargetClasses) {
      const std::uint64_t b = s.bytes[static_cast<unsigned>(c)];
      if (b > 0) by_target[to_string(c)] = static_cast<double>(b) / secs * 1e-9;
    }
    const nlohmann::json& a = analyses[p];
    const double achieved = a["achieved_gbps"].get<double>();
    nlohmann::json e = {{"start_ns", static_cast<double>(s.start_ps) * 1e-3},
                        {"end_ns", static_cast<double>(s.end_ps) * 1e-3},
                        {"windows", s.windows},
                        {"achieved_gbps", achieved},
                        {"by_target_gbps", by_target},
                        {"limiter", nullptr},
                        {"sentence", a["sentence"]}};
    if (a.contains("limiter")) {
      const nlohmann::json& l = a["limiter"];
      e["limiter"] = {{"component", l["component"]},
                      {"resource", l["resource"]},
                      {"class", l["class"]},
                      {"utilization", l["utilization"]},
                      {"reason", l["reason"]}};
      if (l.contains("from")) {
        e["limiter"]["from"] = l["from"];
        e["limiter"]["to"] = l["to"];
      }
    }
    if (a.contains("analytic_bound_gbps")) e["analytic_bound_gbps"] = a["analytic_bound_gbps"];
    list.push_back(std::move(e));
  }
  out["phases"] = std::move(list);
  return out;
}

const nlohmann::json& changed_phases(const nlohmann::json& bottlenecks) {
  static const nlohmann::json none = nlohmann::json::array();
  if (!bottlenecks.contains("phases")) return none;
  const nlohmann::json& list = bottlenecks["phases"]["phases"];
  return list.size() > 1 ? list : none;
}

PhaseSamplerProcess::PhaseSamplerProcess(sc_core::sc_module_name name, PhaseSampler& sampler)
    : sc_core::sc_module(name), sampler_(sampler) {
  SC_HAS_PROCESS(PhaseSamplerProcess);
  SC_METHOD(step);
}

void PhaseSamplerProcess::step() {
  if (sc_core::sc_pending_activity_at_current_time()) {
    next_trigger(sc_core::SC_ZERO_TIME);
    return;
  }
  if (!sc_core::sc_pending_activity()) return;
  const std::uint64_t now = sc_core::sc_time_stamp().value();
  const std::uint64_t next_activity = now + sc_core::sc_time_to_pending_activity().value();
  const std::uint64_t boundary = sampler_.before(next_activity);
  if (sampler_.done()) return;
  // The next boundary is after the next activity: wake just before it, when every event before it
  // has run and no more can come before it unless something is pending then.
  next_trigger(sc_core::sc_time::from_value(boundary - 1 - now));
}

}  // namespace famsim
