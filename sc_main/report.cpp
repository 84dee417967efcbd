#include "sc_main/report.h"

#include "models/core/json_text.h"
#include "models/core/phases.h"
#include "models/core/request.h"
#include "platforms/builder.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace famsim {

namespace {

std::string human_bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024.0 && u < 4) {
    b /= 1024.0;
    ++u;
  }
  return fmt::format("{:.2f} {}", b, units[u]);
}

std::string latency_line(const nlohmann::json& l) {
  return fmt::format("mean {:.1f}  p50 {:.1f}  p90 {:.1f}  p99 {:.1f}  max {:.1f} ns",
                     l["mean"].get<double>(), l["p50"].get<double>(), l["p90"].get<double>(),
                     l["p99"].get<double>(), l["max"].get<double>());
}

// "  read latency by hop: switch (request) 43% (1414 ns, fastest 27), ...": the three hop classes
// with the largest share of the mean latency (latency_breakdown_ns), each with its mean and its
// fastest pass (min): a mean far above the fastest is time spent waiting there.
std::string hop_share_line(const char* direction, const nlohmann::json& d) {
  if (d["end_to_end"]["count"].get<std::uint64_t>() == 0) return {};
  std::vector<const nlohmann::json*> hops;
  for (const auto& h : d["hops"]) hops.push_back(&h);
  std::stable_sort(hops.begin(), hops.end(), [](const nlohmann::json* a, const nlohmann::json* b) {
    return (*a)["share"].get<double>() > (*b)["share"].get<double>();
  });
  std::vector<std::string> top;
  for (std::size_t i = 0; i < hops.size() && i < 3; ++i) {
    const nlohmann::json& h = *hops[i];
    top.push_back(fmt::format("{} {:.0f}% ({:.0f} ns, fastest {:.0f})", h["hop"].get<std::string>(),
                              h["share"].get<double>() * 100.0, h["mean"].get<double>(),
                              h["min"].get<double>()));
  }
  return fmt::format("  {} latency by hop: {}\n", direction, fmt::join(top, ", "));
}

// Where the bytes above went (summary.by_target), one line per class of target that carried
// any, when there are several: the totals above then mix the expansion device's traffic with
// the GPUs' own or their peers' HBM's. When all of it went to GPU memory, a line says so.
std::string by_target_lines(const nlohmann::json& sum) {
  if (!sum.contains("by_target")) return {};
  const auto& by = sum["by_target"];
  std::vector<TargetClass> used;
  for (TargetClass c : kAllTargetClasses) {
    if (!by.contains(to_string(c))) continue;
    const auto& t = by[to_string(c)];
    if (t["read_bytes"].get<std::uint64_t>() + t["write_bytes"].get<std::uint64_t>() > 0) {
      used.push_back(c);
    }
  }
  if (used.size() == 1 && (used[0] == TargetClass::kLocalHbm || used[0] == TargetClass::kPeerGpu)) {
    // The figures above are not the expansion device's, though they may be read so.
    return fmt::format("  all of it to {}, none to an expansion device\n", label(used[0]));
  }
  if (used.size() < 2) return {};
  std::string o = "  by target (read + write, adding up to the figures above):\n";
  for (TargetClass c : used) {
    const auto& t = by[to_string(c)];
    const auto& l = t["latency_ns"];
    o += fmt::format(
        "    {:<18} {:>12}  {:9.2f} GB/s   latency mean {:.1f}  p99 {:.1f} ns\n", label(c),
        human_bytes(t["read_bytes"].get<double>() + t["write_bytes"].get<double>()),
        t["bandwidth_gbps"].get<double>(), l["mean"].get<double>(), l["p99"].get<double>());
  }
  return o;
}

// How the expansion devices shared the traffic (summary.by_memory, device_balance), when two or
// more carried some: a buffer striped over devices, or an interleave that favours one, shows here.
// Up to kListed devices are listed, in address order (address_layout); the rest are summed up in
// a line.
std::string by_device_lines(const nlohmann::json& s) {
  const auto& sum = s["summary"];
  constexpr std::size_t kListed = 8;
  if (!sum.contains("device_balance") || sum["device_balance"].is_null()) return {};
  const auto& bal = sum["device_balance"];
  if (bal["devices_used"].get<std::size_t>() < 2) return {};
  // A tie leaves busiest and least busy the same device: say the spread is even instead.
  const double max_over_mean = bal["max_over_mean"].get<double>();
  const double min_over_mean = bal["min_over_mean"].get<double>();
  const std::string spread =
      max_over_mean == min_over_mean
          ? std::string("each moved the same bytes")
          : fmt::format("busiest {} at {:.3f} x the mean bytes, least busy {} at {:.3f} x",
                        bal["busiest"].get<std::string>(), max_over_mean,
                        bal["least_busy"].get<std::string>(), min_over_mean);
  std::string o =
      fmt::format("  by device ({} of {} used; {}):\n", bal["devices_used"].get<std::size_t>(),
                  bal["devices"].get<std::size_t>(), spread);
  std::size_t listed = 0;
  std::size_t rest = 0;
  double rest_low = 0;
  double rest_high = 0;
  for (const auto& target : s["address_layout"]) {
    const std::string name = target["target"].get<std::string>();
    const auto& t = sum["by_memory"][name];
    if (t["kind"].get<std::string>() != "device") continue;
    const double gbps = t["bandwidth_gbps"].get<double>();
    if (listed == kListed) {
      rest_low = rest == 0 ? gbps : std::min(rest_low, gbps);
      rest_high = rest == 0 ? gbps : std::max(rest_high, gbps);
      ++rest;
      continue;
    }
    ++listed;
    const auto& l = t["latency_ns"];
    o += fmt::format("    {:<18} {:>12}  {:9.2f} GB/s   latency mean {:.1f}  p99 {:.1f} ns\n", name,
                     human_bytes(t["read_bytes"].get<double>() + t["write_bytes"].get<double>()),
                     gbps, l["mean"].get<double>(), l["p99"].get<double>());
  }
  if (rest > 0) {
    o += fmt::format("    and {} more devices, {:.2f} to {:.2f} GB/s each\n", rest, rest_low,
                     rest_high);
  }
  // The same balance window by window: even over the run can still mean one device at a time.
  if (s.contains("timeseries") && !s["timeseries"]["device_balance_by_window"].is_null()) {
    const auto& w = s["timeseries"]["device_balance_by_window"];
    o += fmt::format(
        "    per {} ns window: busiest at {:.3f} x the mean on average, {:.3f} x at most{}\n",
        s["timeseries"]["window_ns"].get<double>(), w["mean_max_over_mean"].get<double>(),
        w["max_max_over_mean"].get<double>(),
        w["took_turns"].get<bool>() ? " (the devices took turns)" : "");
  }
  return o;
}

// How evenly each device's memory channels shared the bytes window by window
// (timeseries.channel_balance_by_window): a coarse interleave walked in sequence keeps one channel
// busy at a time while the run's totals look even.
std::string by_channel_lines(const nlohmann::json& s) {
  if (!s.contains("timeseries") || !s["timeseries"].contains("channel_balance_by_window"))
    return {};
  std::string o;
  for (const auto& [device, w] : s["timeseries"]["channel_balance_by_window"].items()) {
    if (w.is_null()) continue;
    o += fmt::format(
        "  {} channels ({}), per {} ns window: busiest at {:.3f} x the mean on average, {:.3f} x "
        "at most, {:.3f} x over the run{}\n",
        device, w["channels"].get<unsigned>(), w["window_ns"].get<double>(),
        w["mean_max_over_mean"].get<double>(), w["max_max_over_mean"].get<double>(),
        w["run_max_over_mean"].get<double>(),
        w["took_turns"].get<bool>() ? " (the channels took turns)" : "");
  }
  return o;
}

// How evenly the GPUs were served (summary.gpu_balance), with two or more GPUs active.
std::string by_gpu_line(const nlohmann::json& s) {
  const auto& sum = s["summary"];
  if (!sum.contains("gpu_balance") || sum["gpu_balance"].is_null()) return {};
  const auto& b = sum["gpu_balance"];
  return fmt::format(
      "  by GPU ({} active): {:.2f} to {:.2f} GB/s each over its own span, Jain index {:.3f}; "
      "least served {} at {:.3f} x the mean, highest mean latency {} at {:.3f} x{}\n",
      b["gpus_active"].get<std::size_t>(), b["bandwidth_gbps"]["min"].get<double>(),
      b["bandwidth_gbps"]["max"].get<double>(), b["jain_index"].get<double>(),
      b["least_served"].get<std::string>(), b["least_served_over_mean"].get<double>(),
      b["highest_latency"].get<std::string>(), b["highest_latency_over_mean"].get<double>(),
      b["uneven"].get<bool>() ? " (uneven)" : "");
}

}  // namespace

namespace {

// " (gpu1 -> plane3_switch)" for a link's wire or VC credits, whose bottleneck entries name the
// wire's ends (`from`, `to`): a wire is named for the class of transactions its side starts, so a
// peer GPU's responses travel on its "request wire"; the ends say which way.
std::string wire_ends(const nlohmann::json& entry) {
  if (!entry.contains("from") || !entry.contains("to")) return {};
  return fmt::format(" ({} -> {})", entry["from"].get<std::string>(),
                     entry["to"].get<std::string>());
}

// A workload result for people: counts and large figures in plain digits (1473860, not
// 1.47386e+06), small ones to six significant digits.
// A simulated time in ns with a unit that keeps it short ("1.053 ms").
std::string time_text(double ns) {
  if (ns >= 1e9) return fmt::format("{:.3f} s", ns / 1e9);
  if (ns >= 1e6) return fmt::format("{:.3f} ms", ns / 1e6);
  if (ns >= 1e3) return fmt::format("{:.3f} us", ns / 1e3);
  return fmt::format("{:.1f} ns", ns);
}

// A generator stream's result (README "Workloads", `result` fields) in words, the headline ones
// in this order; stats.json and report.py have them all.
struct ResultWords {
  const char* key;
  const char* label;
  enum Unit { kCount, kTime, kRate, kShare, kBytes } unit;
};
constexpr ResultWords kResultWords[] = {
    {"steps_done", "steps done", ResultWords::kCount},
    {"passes_done", "passes done", ResultWords::kCount},
    {"prompts_done", "prompts done", ResultWords::kCount},
    {"accesses_replayed", "accesses replayed", ResultWords::kCount},
    {"mean_step_ns", "step time", ResultWords::kTime},
    {"mean_pass_ns", "pass time", ResultWords::kTime},
    {"compute_ns_per_step", "compute per step", ResultWords::kTime},
    {"compute_ns_per_pass", "compute per pass", ResultWords::kTime},
    {"exposed_fetch_ns_per_step", "expert fetch not hidden per step", ResultWords::kTime},
    {"exposed_transfer_ns_per_pass", "transfer not hidden per pass", ResultWords::kTime},
    {"mean_all_reduce_ns_per_step", "all-reduces per step", ResultWords::kTime},
    {"mean_all_reduce_ns_per_pass", "all-reduces per pass", ResultWords::kTime},
    {"mean_all_reduce_ns_per_prompt", "all-reduces per prompt", ResultWords::kTime},
    {"mean_all_to_all_ns_per_step", "all-to-all per step", ResultWords::kTime},
    {"tokens_per_second_per_group", "tokens per second per group", ResultWords::kRate},
    {"expert_lookups", "expert lookups", ResultWords::kCount},
    {"hit_rate", "cache hit rate", ResultWords::kShare},
    {"bytes_fetched", "experts fetched", ResultWords::kBytes},
    {"reuse_fraction", "prefix reuse", ResultWords::kShare},
    {"mean_prompt_service_ns", "prefill time per prompt", ResultWords::kTime},
    {"mean_prompt_latency_ns", "from arrival (queueing included)", ResultWords::kTime},
};

std::string result_value(const ResultWords& w, double v) {
  switch (w.unit) {
    case ResultWords::kCount:
      return fmt::format("{}", static_cast<long long>(v));
    case ResultWords::kTime:
      return time_text(v);
    case ResultWords::kRate:
      return fmt::format("{:.1f}", v);
    case ResultWords::kShare:
      return fmt::format("{:.1f} %", v * 100.0);
    case ResultWords::kBytes:
      return human_bytes(v);
  }
  return "";
}

// "whole-model estimate (assuming the model's other layers run like the simulated ones): step
// time 42.118 ms, tokens per second per group 189.6; simulated: steps done 2, step time 1.053 ms,
// tokens per second per group 7597.6; for the first 2 of the model's 80 layers".
std::string result_words(const nlohmann::json& r) {
  std::string line;
  const auto add = [&line](const std::string& part) { line += (line.empty() ? "" : ", ") + part; };
  for (const ResultWords& w : kResultWords) {
    if (r.contains(w.key) && r[w.key].is_number())
      add(fmt::format("{} {}", w.label, result_value(w, r[w.key].get<double>())));
  }
  if (r.contains("layers_simulated") && r.contains("model_layers")) {
    const unsigned ran = r["layers_simulated"].get<unsigned>();
    const unsigned of = r["model_layers"].get<unsigned>();
    line += ran < of ? fmt::format("; for the first {} of the model's {} layers", ran, of)
                     : fmt::format("; for all the model's {} layers", of);
  } else if (r.contains("moe_layers_simulated")) {
    const unsigned ran = r["moe_layers_simulated"].get<unsigned>();
    line += fmt::format("; for {} MoE layer{}", ran, ran == 1 ? "" : "s");
  }
  std::string whole;
  if (r.contains("mean_step_ns_whole_model_estimate"))
    whole += "step time " + time_text(r["mean_step_ns_whole_model_estimate"].get<double>());
  if (r.contains("mean_pass_ns_whole_model_estimate"))
    whole += "pass time " + time_text(r["mean_pass_ns_whole_model_estimate"].get<double>());
  if (r.contains("tokens_per_second_per_group_whole_model_estimate")) {
    const double per_group = r["tokens_per_second_per_group_whole_model_estimate"].get<double>();
    whole += fmt::format(", tokens per second per group {:.1f}", per_group);
    // Several groups decode side by side: what they give together.
    const unsigned groups =
        r.contains("tensor_parallel_groups") ? r["tensor_parallel_groups"].get<unsigned>() : 1;
    if (groups > 1) {
      whole += fmt::format(" ({} groups together {:.1f})", groups, groups * per_group);
    }
  }
  // The whole model's estimate first: the simulated layers' figures alone are not what the
  // model gets, and read first they would be taken for that.
  if (!whole.empty()) {
    line =
        "whole-model estimate (assuming the model's other layers run like the simulated "
        "ones): " +
        whole + "; simulated: " + line;
  }
  return line;
}

}  // namespace

std::string summary_text(const nlohmann::json& s, const std::string& out_dir) {
  std::string o;
  const auto& sim = s["sim"];
  const auto& sum = s["summary"];
  const auto& cons = s["conservation"];
  o += fmt::format("famsim run: platform {}, workload {}, seed {}\n",
                   sim["platform"].get<std::string>(), sim["workload"].get<std::string>(),
                   sim["seed"].get<std::uint64_t>());
  o += fmt::format(
      "  simulated {:.3f} us in {:.2f} host s: {} requests, {:.0f} requests per host "
      "second, peak RSS {:.0f} MiB\n",
      sim["simulated_time_ns"].get<double>() * 1e-3, sim["host_seconds"].get<double>(),
      sim["requests_completed"].get<std::uint64_t>(), sim["requests_per_host_second"].get<double>(),
      sim["peak_rss_mib"].get<double>());
  // A memory made ideal changes what every figure below means: said first, not only in the
  // report's assumptions.
  // A preset's values that no standard or datasheet gave (HBM3's array timings) are named too:
  // a reader of the summary alone should know which figures rest on them.
  if (s.contains("assumptions")) {
    for (const auto& m : s["assumptions"]) {
      std::vector<std::string> assumed;
      for (const auto& v : m["values"]) {
        if (v["key"] == "model" && v["value"] == "ideal") {
          o += fmt::format("  {}: {}\n", m["memory"].get<std::string>(),
                           v["why"].get<std::string>());
        } else {
          const std::string key = v["key"].get<std::string>();
          assumed.push_back(key.substr(key.rfind('.') + 1));
        }
      }
      if (assumed.empty()) continue;
      constexpr std::size_t kNamed = 6;
      const std::size_t more = assumed.size() > kNamed ? assumed.size() - kNamed : 0;
      assumed.resize(std::min(assumed.size(), kNamed));
      o += fmt::format(
          "  {}{}: {} value{} assumed, not from a standard or datasheet ({}{}): stats.json "
          "assumptions\n",
          m["memory"].get<std::string>(),
          m.contains("preset") ? fmt::format(" ({})", m["preset"].get<std::string>()) : "",
          assumed.size() + more, assumed.size() + more == 1 ? "" : "s", fmt::join(assumed, ", "),
          more > 0 ? fmt::format(" and {} more", more) : "");
    }
  }
  if (sum["read_latency_ns"]["count"].get<std::uint64_t>() > 0) {
    o +=
        fmt::format("  read   {:>12}  {:9.2f} GB/s   latency {}\n",
                    human_bytes(sum["read_bytes"].get<double>()),
                    sum["read_bandwidth_gbps"].get<double>(), latency_line(sum["read_latency_ns"]));
  }
  // Every write answered at the instant it was issued: a controller that posts writes, driven
  // directly (a trace player). Say why, or 0.0 reads as a broken measurement.
  const bool writes_instant = sum["write_latency_ns"]["count"].get<std::uint64_t>() > 0 &&
                              sum["write_latency_ns"]["max"].get<double>() == 0.0;
  if (sum["write_latency_ns"]["count"].get<std::uint64_t>() > 0) {
    o += fmt::format("  write  {:>12}  {:9.2f} GB/s   latency {}\n",
                     human_bytes(sum["write_bytes"].get<double>()),
                     sum["write_bandwidth_gbps"].get<double>(),
                     latency_line(sum["write_latency_ns"]));
  }
  if (writes_instant) {
    o += "    (writes are posted: the memory controller answers a write when its write queue "
         "takes it, here at once; its DRAM time shows in the bandwidth and the read latency, and "
         "write_response: on_completion answers when the data is written)\n";
  }
  o += by_target_lines(sum);
  o += by_device_lines(s);
  o += by_channel_lines(s);
  o += by_gpu_line(s);
  // An open-loop trace the platform could not keep up with: its latencies leave the lag out.
  if (s.contains("issue_lag") && s["issue_lag"]["behind"].get<bool>()) {
    o += "  trace: " + s["issue_lag"]["sentence"].get<std::string>() + "\n";
  }
  if (s.contains("latency_breakdown_ns")) {
    const std::string hops =
        hop_share_line("read", s["latency_breakdown_ns"]["read"]) +
        (writes_instant ? std::string()
                        : hop_share_line("write", s["latency_breakdown_ns"]["write"]));
    o += hops;
    // A hop's time includes waiting for the next block to take the request: with a limiter in
    // the fabric or the device (a link, a switch or hub, the port logic, the NoC, a memory whose
    // full queues push back on the NoC), the largest share can sit in a block before it that is
    // itself nowhere near its limit. (A GPU's window has no hop before it.)
    const auto fabric = [](const nlohmann::json& l) {
      const std::string k = l.value("kind", "");
      return k == "link" || k == "switch" || k == "hub" || k == "device_port" || k == "noc" ||
             k == "memory";
    };
    if (!hops.empty() && s.contains("bottlenecks") && s["bottlenecks"].contains("limiter") &&
        s["bottlenecks"]["limiter"].is_object() && fabric(s["bottlenecks"]["limiter"])) {
      const auto& l = s["bottlenecks"]["limiter"];
      o += fmt::format(
          "    (a hop's time includes waiting for the next block to take the request: queueing "
          "behind the limiter, {} {}, shows in the hops before it)\n",
          l["component"].get<std::string>(), l["resource"].get<std::string>());
    }
  }
  // What each generator stream achieved over its GPUs.
  if (s.contains("workload")) {
    for (const auto& [name, st] : s["workload"]["streams"].items()) {
      const auto& r = st["result"];
      // Counts are the workload's units (a tensor-parallel group's step once); the layers say
      // when the times are for part of the model only.
      std::string line = result_words(r);
      if (r.contains("note")) line += "\n    note: " + r["note"].get<std::string>();
      o += fmt::format("  {} ({}, all its GPUs): {}\n", name, st["kind"].get<std::string>(), line);
    }
  }
  // The bottleneck in a sentence, then the top of the ranking.
  if (s.contains("bottlenecks")) {
    const auto& b = s["bottlenecks"];
    o += "  bottleneck: " + b["sentence"].get<std::string>() + "\n";
    const auto& ranked = b["ranked"];
    // Ranked busiest first within each state: with the first few at 0 %, so is every one.
    bool any_used = false;
    for (std::size_t i = 0; i < ranked.size() && i < 5; ++i) {
      any_used = any_used || ranked[i]["utilization"].get<double>() > 0;
    }
    if (!any_used) {
      o += "  top resources: none was used\n";
    } else {
      o += "  top resources (utilization; state; time they held back their upstream):\n";
    }
    std::vector<std::string> names;
    std::size_t width = 44;
    for (std::size_t i = 0; any_used && i < ranked.size() && i < 5; ++i) {
      names.push_back(ranked[i]["component"].get<std::string>() + " " +
                      ranked[i]["resource"].get<std::string>() + wire_ends(ranked[i]));
      width = std::max(width, names.back().size());
    }
    for (std::size_t i = 0; i < names.size(); ++i) {
      const auto& e = ranked[i];
      o += fmt::format("    {:<{}} {:6.1f} %  {:<9} {:12.1f} ns\n", names[i], width,
                       e["utilization"].get<double>() * 100.0, e["state"].get<std::string>(),
                       e["backpressure_ns"].get<double>());
    }
    // The limiter per phase, when it changed over the run.
    const nlohmann::json& phases = changed_phases(b);
    if (!phases.empty()) {
      o += "  phases (the limiter of each part of the run, bottlenecks.phases):\n";
      for (const auto& p : phases) {
        const auto& l = p["limiter"];
        const std::string span =
            fmt::format("{:.1f} - {:.1f} us", p["start_ns"].get<double>() * 1e-3,
                        p["end_ns"].get<double>() * 1e-3);
        o += fmt::format(
            "    {:>24} {:8.1f} GB/s  {}\n", span, p["achieved_gbps"].get<double>(),
            l.is_null() ? std::string("nothing saturated")
                        : fmt::format("{} {}{} ({} {:.1f} %)", l["component"].get<std::string>(),
                                      l["resource"].get<std::string>(), wire_ends(l),
                                      l["reason"] == "bandwidth" ? "busy" : "full",
                                      l["utilization"].get<double>() * 100.0));
      }
    }
  }
  if (cons["ok"].get<bool>() && cons["truncated"].get<bool>()) {
    o += fmt::format(
        "  cut off by sim.max_time_ns: {} issued, {} completed, {} in flight and "
        "accounted for\n",
        cons["issued"].get<std::uint64_t>(), cons["completed"].get<std::uint64_t>(),
        cons["stuck_requests_total"].get<std::uint64_t>());
  } else if (cons["ok"].get<bool>()) {
    o += fmt::format("  conservation: ok ({} issued = {} completed, {} bytes, 0 leaked)\n",
                     cons["issued"].get<std::uint64_t>(), cons["completed"].get<std::uint64_t>(),
                     cons["bytes_delivered"].get<std::uint64_t>());
  } else {
    o += fmt::format(
        "  CONSERVATION FAILED: issued {}, completed {}, duplicates {}, bytes {} "
        "requested / {} delivered, {} payloads leaked, {} data mismatches\n",
        cons["issued"].get<std::uint64_t>(), cons["completed"].get<std::uint64_t>(),
        cons["duplicates"].get<std::uint64_t>(), cons["bytes_requested"].get<std::uint64_t>(),
        cons["bytes_delivered"].get<std::uint64_t>(), cons["leaked_payloads"].get<std::uint64_t>(),
        cons["data_mismatches"].get<std::uint64_t>());
    if (cons["data_mismatches"].get<std::uint64_t>() > 0) {
      // famsim checks that a writer comes first, not that it covers every address read.
      o += "    (data mismatches: reads that did not return the pattern written. A model fault, "
           "unless a verifying stream read addresses its writer never wrote: check that the "
           "writing stream covers all of the buffer the reads touch)\n";
      for (const auto& m : cons["first_data_mismatches"]) {
        o += fmt::format(
            "    read {} (gpu {}, va {}, pa {}, {} B) at {:.3f} ns: {} wrong bytes, the first at "
            "offset {}: read {}, expected {}\n",
            m["id"].get<std::uint64_t>(), m["gpu"].get<unsigned>(),
            m["virtual_address"].get<std::string>(), m["physical_address"].get<std::string>(),
            m["bytes"].get<unsigned>(), m["complete_ns"].get<double>(),
            m["wrong_bytes"].get<unsigned>(), m["first_wrong_offset"].get<unsigned>(),
            m["read_byte"].get<std::string>(), m["expected_byte"].get<std::string>());
      }
    }
    for (const auto& [name, n] : cons["components_holding_requests"].items()) {
      o += fmt::format("    {} still holds {}\n", name, n.get<std::uint64_t>());
    }
    for (const auto& r : cons["stuck_requests"]) {
      o += fmt::format("    stuck request {} (gpu {}, {} {}) last in {} on its {} path\n",
                       r["id"].get<std::uint64_t>(), r["gpu"].get<unsigned>(),
                       r["command"].get<std::string>(), r["physical_address"].get<std::string>(),
                       r["last_block"].get<std::string>(), r["direction"].get<std::string>());
    }
  }
  if (s.contains("dram_timing_check")) {
    const auto& c = s["dram_timing_check"];
    std::uint64_t commands = 0, violations = 0;
    for (const auto& [name, f] : c["logs"].items()) {
      commands += f["commands"].get<std::uint64_t>();
      violations += f["violations"].get<std::uint64_t>();
    }
    o += fmt::format("  DRAM timing check: {} ({} commands in {} logs, {} violations)\n",
                     c["ok"].get<bool>() ? "ok" : "FAILED", commands, c["logs"].size(), violations);
    if (!c["ok"].get<bool>()) {
      for (const auto& [name, f] : c["logs"].items()) {
        for (const auto& v : f["first_violations"]) {
          o += "    " + name + ": " + v.get<std::string>() + "\n";
        }
      }
    }
  }
  if (s.contains("report_probe_check") && !s["report_probe_check"]["ok"].get<bool>()) {
    // One line per mismatch, each saying what it is (famsim sweep quotes a failed point's last
    // error line).
    o += "  report/probe check: FAILED: block reports and per-phase probes disagree (a fault of "
         "the model; stats.json is written, please report it)\n";
    for (const auto& m : s["report_probe_check"]["mismatches"]) {
      o += "    internal error: " + m.get<std::string>() + "\n";
    }
  }
  o += "  results: " + out_dir + "/stats.json\n";
  return o;
}

namespace {

// The share of a link's response wire that is data for reads of `read_bytes` (the rest: response
// headers and padding): the part of the wire the GPUs' reads can get.
double read_data_fraction(const LinkFraming& framing, unsigned read_bytes) {
  return static_cast<double>(read_bytes) / framing.wire_bytes(framing.response(false, read_bytes));
}

// What a link's VC credits allow the transfers carrying data (writes on the request VC, read
// responses on the response VC) of `data_bytes` each (link.h): n transfers fit in the credits, and
// each takes them for at least its serialisation + latency_ns + credit_return_ns, so by Little's
// law the VC carries at most n x data_bytes per round trip; the credits bind when that is below
// the data rate the wire carries, data_bytes per serialisation time.
struct CreditCap {
  unsigned transfers = 0;     // n: the transfers the VC's credits hold at once
  unsigned credits_each = 0;  // credits one transfer takes
  unsigned credits = 0;       // the VC's credits
  double serial_ns = 0;       // one transfer on the wire
  double round_trip_ns = 0;   // the credits' round trip: serialisation + latency + return
  double cap_gbps = 0;        // data per link direction the credits allow
  double wire_data_gbps = 0;  // data per link direction the wire carries
  bool binds() const { return cap_gbps < wire_data_gbps; }
};

CreditCap credit_cap(const LinkParams& l, const LinkFraming& framing, unsigned data_bytes,
                     bool request) {
  CreditCap c;
  const TransferShape shape = framing.data_transfer(request, data_bytes);
  c.credits_each = framing.credits(shape, l.credit_unit);
  c.credits = request ? l.request_vc_credits : l.response_vc_credits;
  c.transfers = c.credits / c.credits_each;  // at least 1: the configuration reader checks it
  c.serial_ns = framing.wire_bytes(shape) / l.bandwidth_gbps();  // GB/s = bytes per ns
  c.round_trip_ns = c.serial_ns + l.latency_ns + l.credit_return_ns;
  c.wire_data_gbps = data_bytes / c.serial_ns;
  // n x serial >= round trip: the credits come back before the VC runs out of them.
  c.cap_gbps = c.transfers * c.serial_ns >= c.round_trip_ns
                   ? c.wire_data_gbps
                   : c.transfers * data_bytes / c.round_trip_ns;
  return c;
}

// The credit caps that bind, one line each.
std::string link_credit_caps(const LinkParams& l, const LinkFraming& framing, unsigned data_bytes) {
  std::string o;
  for (bool request : {true, false}) {
    const CreditCap c = credit_cap(l, framing, data_bytes, request);
    if (!c.binds()) continue;
    o += fmt::format(
        "    {} VC credits short of the credit round trip: {} {} of {} B ({} {}s each) in {} "
        "credits, each holding them at least {:.2f} ns (on the wire {:.2f} + {} + return {}): "
        "at most {:.2f} GB/s of {} data per link direction, where the wire carries {:.2f}\n",
        request ? "request" : "response", c.transfers, request ? "write(s)" : "read response(s)",
        data_bytes, c.credits_each, l.credit_unit == CreditUnit::kFlit ? "flit" : "message",
        c.credits, c.round_trip_ns, c.serial_ns, l.latency_ns, l.credit_return_ns, c.cap_gbps,
        request ? "write" : "read", c.wire_data_gbps);
  }
  return o;
}

// The cap a replay buffer too small for the ACK round trip puts on a link's wire (link.h): flit k
// waits for the ACK of flit k - B, replay_latency_ns after that flit's end, so B flits go out per
// flit time + replay latency. `read_data`: the share of the wire a read's response carries as
// data (read_data_fraction).
std::string link_replay_cap(const LinkParams& l, double read_data) {
  const double flit_ns = l.flit_ps() * 1e-3;
  const unsigned b = l.replay_buffer_flits;
  if ((b - 1) * flit_ns >= l.replay_latency_ns) return {};
  const double wire = b * l.flit.flit_bytes / (flit_ns + l.replay_latency_ns);
  return fmt::format(
      "    replay buffer short of the ACK round trip: {} flits, each held {:.2f} ns (on the wire "
      "{:.2f} + replay {}): at most {:.2f} GB/s of flits per link direction ({:.2f} of read data), "
      "where the wire carries {:.2f}\n",
      b, flit_ns + l.replay_latency_ns, flit_ns, l.replay_latency_ns, wire, wire * read_data,
      l.bandwidth_gbps());
}

// A device's mesh NoC: shape, link bandwidth, per-hop latency, buffering, the uniform-traffic
// bound, and where the endpoints sit; and the cap on every link when its VC buffers cannot cover
// the credit round trip of the largest packet.
std::string mesh_lines(const MeshParams& m) {
  const unsigned data_bytes = m.largest_packet_bytes;
  const MeshTopology t(m.cols, m.rows);
  const Clock c(m.clock_mhz);
  std::string o = fmt::format(
      "    noc: mesh {} x {} ({} routers, {} directed links per network; separate request and "
      "response networks), XY routing, {} B links at {:g} MHz = {:.2f} GB/s per link, "
      "{} router + {} link cycles per hop, {} VCs x {} flits per input, credit return "
      "delay {} cycles; uniform XY traffic (every node to every node) saturates at {:.3f} "
      "flits/cycle per node (Dally & Towles bisection bound)\n",
      m.cols, m.rows, t.nodes(), t.directed_links(), m.link_bytes, c.mhz(),
      m.link_bytes * c.mhz() * 1e-3, m.router_cycles, m.link_cycles, m.vcs, m.vc_buffer_flits,
      m.credit_return_cycles, uniform_saturation_flits_per_node(t, 1.0, 1.0));
  const auto list = [](const std::vector<MeshCoord>& nodes) {
    std::string s;
    for (const MeshCoord& n : nodes) s += fmt::format(" [{},{}]", n.x, n.y);
    return s;
  };
  o += "      fabric ports at" + list(m.port_nodes) + "\n";
  o += "      memory controllers at" + list(m.controller_nodes) + "\n";
  // The device's own traffic is not uniform: ports to controllers and back. With each port's
  // requests spread evenly over the controllers (the interleave), the busiest link of each
  // network carries a share of all messages, and sends one flit per cycle: the whole mesh moves at
  // most 1 / share messages of F flits per F cycles, each with data_bytes of data.
  // The largest message's flits: one header and its data (the placement bound and the VC cap).
  const unsigned f = message_flits(data_bytes, m.link_bytes);
  const double message_gbps = data_bytes * c.mhz() * 1e-3 / f;  // one message per F cycles
  const LinkShare resp = busiest_link_share(t, m.controller_nodes, m.port_nodes);
  const LinkShare req = busiest_link_share(t, m.port_nodes, m.controller_nodes);
  const auto link = [&](const LinkShare& l) {
    const MeshCoord a = t.coord(l.from), b = t.coord(l.to);
    return fmt::format("[{},{}]->[{},{}]", a.x, a.y, b.x, b.y);
  };
  if (resp.share > 0 && req.share > 0) {
    o += fmt::format(
        "      this placement, each port's requests spread evenly over the controllers: the "
        "busiest response link {} carries {:.3f} of the responses, so the mesh returns at most "
        "{:.2f} GB/s of read data; the busiest request link {} {:.3f} of the requests, at most "
        "{:.2f} GB/s of write data ({}-flit messages of {} B)\n",
        link(resp), resp.share, message_gbps / resp.share, link(req), req.share,
        message_gbps / req.share, f, data_bytes);
  }
  // A packet of F flits sent at E reaches the next router's allocation at E + link + router
  // cycles, leaves its buffer F - 1 cycles after being granted there and has its credits back
  // credit_return cycles later (mesh.h): a VC of B flits has floor(B / F) such packets out per
  // round trip, at the earliest.
  const unsigned round_trip = m.link_cycles + m.router_cycles + f - 1 + m.credit_return_cycles;
  const double cap =
      static_cast<double>(m.vcs * (m.vc_buffer_flits / f) * f) / static_cast<double>(round_trip);
  if (cap < 1.0) {
    o += fmt::format(
        "      VC buffers short of the credit round trip: a {}-flit packet ({} B of data) has its "
        "credits back {} cycles after it is sent, so {} x {}-flit VCs carry at most {:.2f} "
        "flits per cycle per link (a link sends 1)\n",
        f, data_bytes, round_trip, m.vcs, m.vc_buffer_flits, cap);
  }
  return o;
}

// A crossbar's queueing, arbitration and forwarding, as configured (crossbar.h).
std::string crossbar_policies(const CrossbarParams& x, unsigned inputs, unsigned outputs) {
  std::string a = to_string(x.arbiter);
  if (x.arbiter == CrossbarArbiter::kIslip) {
    a += fmt::format(" ({} iterations)", islip_iterations_for(x, inputs, outputs));
  }
  // An output buffer holds each message from its grant through the pipeline (crossbar.h): one
  // that cannot cover pipeline + 1 cycles caps the output below one message per cycle.
  const unsigned hold = x.pipeline_cycles + 1;
  const std::string cap =
      x.output_buffer < hold
          ? fmt::format(
                " (each held at least {} cycles: at most {:.2f} messages per cycle per "
                "output, under the datapath's 1)",
                hold, static_cast<double>(x.output_buffer) / hold)
          : "";
  return fmt::format(
      "{} inputs ({} messages each), output buffers of {} messages{}, {} arbiter, {}",
      to_string(x.input_queues), x.input_buffer, x.output_buffer, cap, a, to_string(x.forwarding));
}

// How much of device `d`'s fabric-port bandwidth the GPUs can reach over switch planes. A GPU
// picks its link by an address hash over all L of its links (fabric_plan.h), so plane k carries
// n_k / L of its traffic whatever the target, and the device's p_k ports on plane k take all of
// that plane's share of the traffic to it: the device gets at most min_k p_k x B x L / n_k per
// direction with B a device link's bandwidth, its ports' p x B only when p_k / p = n_k / L on
// every plane. Also what that leaves for the GPUs' reads (the response wire's data fraction).
std::string device_reach_line(const PlatformConfig& p, unsigned d) {
  const FabricPlan plan(p.fabric_shape());
  const unsigned links = p.gpu_link.per_gpu;
  const unsigned ports = p.devices[d].fabric_ports;
  const double b = p.device_link.params.bandwidth_gbps();
  const double all = ports * b;
  double reach = all;
  std::vector<double> plane_reach;
  std::vector<std::string> split;
  std::vector<unsigned> port_split;
  for (unsigned k = 0; k < plan.planes(); ++k) {
    const unsigned n = plan.gpu_links_in_plane(k);
    const unsigned pk = plan.device_ports_in_plane(d, k);
    split.push_back(fmt::format("{}/{}", n, links));
    port_split.push_back(pk);
    plane_reach.push_back(pk * b * links / n);
    reach = std::min(reach, plane_reach.back());
  }
  // The planes that bind, when the reach falls short of the ports (the figures are products of
  // small integers and one bandwidth: a relative margin tells rounding from a real difference).
  constexpr double kTie = 1e-12;
  std::vector<unsigned> binding;
  for (unsigned k = 0; k < plane_reach.size() && reach < all * (1 - kTie); ++k) {
    if (plane_reach[k] <= reach * (1 + kTie)) binding.push_back(k);
  }
  // What the reached bandwidth carries as read (and write) data: per device link, the wire's data
  // share, or less when the link's VC credits cannot cover their round trip (credit_cap, the
  // caps the link's own line lists); the reach is reach / b links' worth of that.
  const unsigned data_bytes = p.gpu.request_bytes;
  const LinkParams& dl = p.device_link.params;
  const LinkFraming framing(dl.flit);
  const CreditCap reads = credit_cap(dl, framing, data_bytes, false);
  const CreditCap writes = credit_cap(dl, framing, data_bytes, true);
  const double links_reached = reach / b;
  std::string data =
      fmt::format("{} B reads: {:.2f} GB/s", data_bytes, links_reached * reads.cap_gbps);
  if (reads.binds()) {
    data += fmt::format(", held by the response VC credits to {:.2f} of the wire's {:.2f} per link",
                        reads.cap_gbps, reads.wire_data_gbps);
  }
  if (writes.binds()) {
    data += fmt::format(
        "; {} B writes: {:.2f} GB/s, held by the request VC credits to {:.2f} of "
        "the wire's {:.2f} per link",
        data_bytes, links_reached * writes.cap_gbps, writes.cap_gbps, writes.wire_data_gbps);
  }
  if (binding.empty()) {
    return fmt::format(
        "    fabric reach: all {:.2f} GB/s of its ports per direction ({}){}\n", all, data,
        plan.planes() > 1 ? ", its ports spread over the planes as the GPUs' links are" : "");
  }
  std::vector<std::string> bind;
  for (unsigned k : binding) bind.push_back(std::to_string(k));
  return fmt::format(
      "    fabric reach: at most {:.2f} of its ports' {:.2f} GB/s per direction ({}): the GPUs' "
      "link hash gives the planes {} of their traffic, the device has {} of its {} ports on "
      "them; plane{} {} bind{}\n",
      reach, all, data, fmt::join(split, ", "), fmt::join(port_split, ", "), ports,
      binding.size() > 1 ? "s" : "", fmt::join(bind, " and "), binding.size() > 1 ? "" : "s");
}

}  // namespace

std::string validation_text(const ResolvedConfig& cfg) {
  const PlatformConfig& p = cfg.platform;
  std::string o;
  o += fmt::format("platform {}: valid\n", p.name);
  if (!p.description.empty()) o += "  " + p.description + "\n";
  // Clock figures below are the clocks as run, which can differ from the configured MHz.
  o += "  (clocks run at a whole number of ps per period, the configured period rounded to the "
       "nearest ps: 1500 MHz is 667 ps, 1499.25 MHz; every figure below uses the clock as run)\n";
  if (!p.trace_player.present) {
    o += fmt::format("  GPUs: {} at {:g} MHz, {} B requests, {} outstanding, {} issued per cycle\n",
                     p.gpu_count, Clock(p.gpu.clock_mhz).mhz(), p.gpu.request_bytes,
                     p.gpu.max_outstanding, p.gpu.issue_width);
    if (p.gpu.port_issue_binds()) {
      o += fmt::format(
          "    fabric port issue short of the link: a port starts one request per GPU cycle, "
          "{} B at {:g} MHz = at most {:.2f} GB/s per port, where its link carries {:.2f}\n",
          p.gpu.request_bytes, Clock(p.gpu.clock_mhz).mhz(), p.gpu.port_issue_gbps(),
          p.gpu.fabric_link_gbps);
    }
  }
  auto mem_line = [&](const MemoryConfig& m, const std::string& what) {
    const double ch = m.channel_peak_gbps();
    std::string line = fmt::format(
        "  {}: {} {} channels x {:.2f} GB/s = {:.2f} GB/s peak, {:.4g} GiB, "
        "{} B {} interleave\n",
        what, m.channels, m.standard(), ch, ch * m.channels,
        static_cast<double>(m.capacity_bytes) / (1ULL << 30), m.granule_bytes,
        m.select == AddressMap::Select::kXor    ? std::string("xor")
        : m.select == AddressMap::Select::kBits ? fmt::format("bits {}", m.channel_bits)
                                                : std::string("modulo"));
    if (m.model == MemoryConfig::Model::kDram) {
      const dram::Spec& d = m.dram.spec;
      const dram::Timing& t = d.timing;
      const dram::CoreParams& c = m.dram.core;
      line += fmt::format(
          "    DRAM {} ({}): {} rank(s) x {} bank groups x {} banks, {} rows, {} B rows, {} B "
          "bursts; tCK {} ps, CL-tRCD-tRP-tRAS {}-{}-{}-{}, tRC {}, tFAW {}, tREFI {} / tRFC "
          "{} clocks\n"
          "    controller: {} read / {} write entries (bursts), write drain {}..{}, {}, {} pages, "
          "{} refresh, mapping {}{}, writes {}\n",
          d.name, dram::to_string(d.standard), d.org.ranks, d.org.bank_groups,
          d.org.banks_per_group, d.org.rows, d.org.row_bytes(), d.org.burst_bytes(), t.tck_ps, t.CL,
          t.RCD_RD, t.RP, t.RAS, t.RC, t.FAW, t.REFI, t.RFC, c.read_queue, c.write_queue,
          c.write_low_watermark, c.write_high_watermark, c.scheduler, c.page_policy,
          c.refresh == dram::RefreshMode::kAllBank   ? "all-bank"
          : c.refresh == dram::RefreshMode::kPerBank ? "per-bank"
                                                     : "no",
          !m.dram.order_places_channel
              ? m.dram.mapping_order.substr(0, m.dram.mapping_order.size() - 2) +
                    " within a channel"
              : m.dram.mapping_order,
          m.dram.xor_bank ? " + bank xor" : "",
          m.dram.posted_writes ? "posted" : "answered on completion");
      // Every timing the model enforces, in clocks, under its key (a --set of timing.<key>
      // gives it again): what a DRAM command log's "# spec:" line records too.
      std::string clocks;
      for (const dram::SpecFigure& f : dram::spec_figures(d)) {
        if (f.key.rfind("timing.", 0) != 0 || f.key == "timing.tCK_ps") continue;
        std::string name = f.key.substr(7);
        if (name.size() > 3 && name.compare(name.size() - 3, 3, "_ck") == 0)
          name.resize(name.size() - 3);
        clocks += fmt::format("{}{} {}", clocks.empty() ? "" : ", ", name, f.value);
      }
      line += fmt::format("    timing, clocks: {}\n", clocks);
    }
    if (m.model == MemoryConfig::Model::kIdeal) {
      const Clock clock(m.timing.clock_mhz);
      line += fmt::format(
          "    ideal: first data {} clocks ({:.2f} ns) after service starts, then the burst at "
          "{:g} B per clock; arrival order; {} read / {} write entries (requests){}\n",
          m.timing.access_latency_cycles,
          static_cast<double>(m.timing.access_latency_cycles * clock.period_ps()) / 1000.0,
          m.timing.bytes_per_clock(), m.controller.read_queue, m.controller.write_queue,
          m.controller.posted_writes ? "; writes posted (answered on acceptance)" : "");
    }
    if (m.model == MemoryConfig::Model::kExternal) {
      line += fmt::format(
          "    external: a foreign TLM-2.0 target per channel, bound by your own sc_main (the "
          "famsim command cannot run it); peak as stated, up to {} requests in flight each, "
          "channel address + {} B\n",
          m.external.max_outstanding, m.external.address_offset);
    }
    if (!m.assumptions.empty()) {
      // The values marked as assumptions, each note in stats.json "assumptions" and the report;
      // a platform's own notes (not a preset's, which are about the standard) said here too.
      std::vector<std::string> values;
      for (const ConfigAssumption& a : m.assumptions) {
        values.push_back(a.key + " " +
                         (a.value.is_string() ? a.value.get<std::string>() : json_text(a.value)));
        if (a.note_from.find("presets/") == std::string::npos) values.back() += " (" + a.why + ")";
      }
      line += fmt::format("    assumptions, not figures from a standard or a datasheet: {}\n",
                          fmt::join(values, ", "));
    }
    return line;
  };
  if (p.trace_player.present) {
    const TracePlayerParams& t = p.trace_player.params;
    o += mem_line(p.memory, "memory");
    o += fmt::format("  trace player: {} loop, {} outstanding, {} B requests, {:.1f} MHz{}\n",
                     t.open_loop ? "open" : "closed", t.max_outstanding, t.request_bytes,
                     t.clock_mhz, t.file.empty() ? " (trace: give --trace FILE)" : ", " + t.file);
  }
  if (p.gpu_local.present) o += mem_line(p.gpu_local, "local memory per GPU");
  auto link_line = [&](const LinkConfig& l, const std::string& what, unsigned count) {
    const double bw = l.params.bandwidth_gbps();
    const FlitFormat& f = l.params.flit;
    const LinkFraming framing(f);
    // The GPUs' requests: a read's data crosses the response direction, whose wire also carries
    // the response headers (and padding); that share of the wire is what reads can get.
    const unsigned read_bytes = p.gpu.request_bytes;
    const double read_data = read_data_fraction(framing, read_bytes);
    const std::string line = fmt::format(
        "  {}: {} links{} of {} lanes x {} Gb/s x {:.4f} = {:.3f} GB/s per direction "
        "each ({:.2f} GB/s total), {} ns, {:g} MHz link clock ({:.3g} flits per clock)\n"
        "    flits of {} B ({} slots of {} B, {} packing), {} B max payload; {} B reads: {:.3f} "
        "of the response wire is data, at most {:.2f} GB/s of reads per link ({:.3f} over "
        "request and response wire bytes together); credits {}/{} {}s per VC "
        "(request/response), credit return {} ns; "
        "flit error rate {}, replay {} ns, replay buffer {} flits\n",
        what, count, l.preset.empty() ? "" : " (" + l.preset + ")", l.params.lanes,
        l.params.lane_gbps, l.params.encoding_efficiency, bw, bw * count, l.params.latency_ns,
        l.params.clock_mhz, 1e6 / l.params.clock_mhz / l.params.flit_ps(), f.flit_bytes,
        framing.slots_per_flit(), f.slot_bytes,
        f.packing == Packing::kDense ? "dense" : "per-message", f.max_payload_bytes, read_bytes,
        read_data, bw * read_data, framing.efficiency(false, read_bytes),
        l.params.request_vc_credits, l.params.response_vc_credits,
        l.params.credit_unit == CreditUnit::kFlit ? "flit" : "message", l.params.credit_return_ns,
        l.params.flit_error_rate, l.params.replay_latency_ns, l.params.replay_buffer_flits);
    return line + link_credit_caps(l.params, framing, p.gpu.request_bytes) +
           link_replay_cap(l.params, read_data);
  };
  if (p.gpu_link.present) {
    o += link_line(p.gpu_link, p.sw.present ? "GPU-switch" : "GPU-device",
                   p.gpu_count * p.gpu_link.per_gpu);
  }
  if (p.sw.present) {
    const Clock c(p.sw.xbar.clock_mhz);
    const FabricPlan plan(p.fabric_shape());
    const std::string chip = fmt::format(
        "radix {}, {:g} MHz, {} B per cycle = {:.2f} GB/s per port, {} pipeline cycles; {}",
        p.sw.radix, c.mhz(), p.sw.xbar.width_bytes, p.sw.xbar.width_bytes * c.mhz() * 1e-3,
        p.sw.xbar.pipeline_cycles, crossbar_policies(p.sw.xbar, p.sw.radix, p.sw.radix));
    for (unsigned k = 0; k < plan.planes(); ++k) {
      const std::string where = plan.planes() > 1 ? fmt::format("switch plane {}", k) : "switch";
      const unsigned endpoints = plan.gpu_inputs(k) + plan.device_endpoints(k);
      if (!p.sw.leaf_spine) {
        o += fmt::format("  {}: {} of {} ports used ({} GPUs x {} links + {} device ports), {}\n",
                         where, endpoints, p.sw.radix, p.gpu_count, plan.gpu_links_in_plane(k),
                         plan.device_endpoints(k), chip);
      } else {
        o += fmt::format(
            "  {}: leaf/spine, {} leaves of {} endpoint ports + {} uplinks, {} spines with {} of "
            "{} ports used ({} links to each leaf); {} endpoints ({} GPUs x {} links + {} device "
            "ports); each chip {}\n",
            where, plan.leaves(k), p.sw.leaf_down_ports, plan.uplinks(), plan.spines(),
            plan.leaves(k) * plan.links_per_leaf_and_spine(), p.sw.radix,
            plan.links_per_leaf_and_spine(), endpoints, p.gpu_count, plan.gpu_links_in_plane(k),
            plan.device_endpoints(k), chip);
      }
    }
    if (p.sw.leaf_spine) {
      unsigned pairs = 0;
      for (unsigned k = 0; k < plan.planes(); ++k) pairs += plan.leaves(k) * plan.uplinks();
      o += link_line(p.leaf_spine_link, "leaf-spine", pairs);
    }
    if (p.device_link.present) {
      o += link_line(p.device_link, "switch-device", p.device_port_total());
    }
    if (p.peer_paths()) {
      // Peer ports are the switch-to-GPU halves of the GPU ports counted above.
      const unsigned first = p.device_port_total();
      const unsigned channels = p.gpu_local.channels;
      const Clock hc(p.gpu_hub.clock_mhz);
      o += fmt::format(
          "  peer paths: {} GPUs x {} peer outputs (the switch-to-GPU halves of the GPU ports, "
          "after the {} device ports), routed by destination GPU\n",
          p.gpu_count, p.gpu_link.per_gpu, first);
      o += link_line(p.gpu_link, "switch-GPU peer", p.peer_port_total());
      o += fmt::format(
          "  GPU memory hub: per GPU a crossbar of {} up ports ({} local + {} peer) x {} HBM "
          "channels, {} B per cycle at {:g} MHz = {:.2f} GB/s per port, {} pipeline cycles; "
          "{}\n",
          channels + p.gpu_link.per_gpu, channels, p.gpu_link.per_gpu, channels,
          p.gpu_hub.width_bytes, hc.mhz(), p.gpu_hub.width_bytes * hc.mhz() * 1e-3,
          p.gpu_hub.pipeline_cycles,
          crossbar_policies(p.gpu_hub, channels + p.gpu_link.per_gpu, channels));
    }
  }
  for (const DeviceConfig& d : p.devices) {
    const Clock nc(d.noc.clock_mhz);
    const Clock pc(d.port_logic.clock_mhz);
    const PortLogicParams& pl = d.port_logic;
    o += fmt::format(
        "  device {}: {} fabric ports, {} tags each, port logic {:g} MHz: ingress {} / egress "
        "{} cycles, {} B per cycle, {} responses, atomic unit {} cycles{}\n",
        d.name, d.fabric_ports, pl.tags_per_port, pc.mhz(), pl.ingress_cycles, pl.egress_cycles,
        pl.width_bytes, pl.in_order ? "in-order" : "out-of-order", pl.atomic_cycles,
        d.memory.granule_bytes < p.gpu.request_bytes
            ? fmt::format("; {} B requests split into {} B granules", p.gpu.request_bytes,
                          d.memory.granule_bytes)
            : "");
    // The pipelines' cap: one beat per clock each way, a message at least one beat.
    const unsigned beats =
        std::max(1u, (p.gpu.request_bytes + pl.width_bytes - 1) / pl.width_bytes);
    const double port_gbps = pc.mhz() / beats * p.gpu.request_bytes * 1e-3;
    o += fmt::format(
        "    port pipelines: one beat per clock each way, a message ceil(data / {} B) beats, at "
        "least one: at most {:g} M messages/s per port each way of {} B requests, {:.2f} GB/s "
        "({:.2f} GB/s over the {} ports)\n",
        pl.width_bytes, pc.mhz() / beats, p.gpu.request_bytes, port_gbps,
        port_gbps * d.fabric_ports, d.fabric_ports);
    if (d.noc_kind == NocKind::kMesh) {
      o += mesh_lines(d.mesh);
    } else {
      o += fmt::format(
          "    noc: crossbar {} x {}, {} B per cycle at {:g} MHz = {:.2f} GB/s per port, {} "
          "pipeline cycles; {}\n",
          d.fabric_ports, d.memory.channels, d.noc.width_bytes, nc.mhz(),
          d.noc.width_bytes * nc.mhz() * 1e-3, d.noc.pipeline_cycles,
          crossbar_policies(d.noc, d.fabric_ports, d.memory.channels));
    }
    if (p.sw.present && p.device_link.present) {
      o += device_reach_line(p, static_cast<unsigned>(&d - p.devices.data()));
    }
    o += "  " + mem_line(d.memory, "memory");
    // A granule coarse against the bytes in flight: a sequential walk fills one granule before the
    // next, so the channels take turns, about one granule's worth of them busy at a time, and
    // the channels' figures averaged over the run look even (the architecture audit of
    // 2026-12-04: 1 MiB granules over 8 channels with 128 KiB in flight, 20.6 GB/s of 154).
    const std::uint64_t in_flight =
        p.trace_player.present
            ? 0
            : std::uint64_t{p.gpu_count} * p.gpu.max_outstanding * p.gpu.request_bytes;
    const InterleaveSpread spread =
        interleave_spread(d.memory.granule_bytes, d.memory.channels, in_flight);
    if (spread.coarse) {
      o += fmt::format(
          "    interleave coarse for the bytes in flight: {} B granules x {} channels = {} B a "
          "round, more than the {} B the GPUs keep in flight ({} x {} x {} B): a sequential walk "
          "keeps about {} of the {} channels busy at a time (they take turns); a granule of at "
          "most {} B spreads it over all\n",
          d.memory.granule_bytes, d.memory.channels, spread.round_bytes, in_flight, p.gpu_count,
          p.gpu.max_outstanding, p.gpu.request_bytes, spread.busy_channels, d.memory.channels,
          spread.spreading_granule_bytes);
    }
  }
  o += "  address layout:\n";
  for (const MemoryTarget& t : Platform::address_layout(p)) {
    o += fmt::format("    {:<12} 0x{:012x} .. 0x{:012x}\n", t.name, t.base, t.base + t.size - 1);
  }
  if (!p.trace_player.present) {
    o += fmt::format("workload {}: {} stream{}\n", cfg.workload.name, cfg.workload.streams.size(),
                     cfg.workload.streams.size() == 1 ? "" : "s");
    for (const StreamConfig& st : cfg.workload.streams) {
      if (!st.generator) continue;
      // The generator's summary (README "Workloads", `summary` fields), a key a line; a map
      // (compute) on one line.
      o += fmt::format("  {} ({} on {} GPUs):\n", st.name, st.generator->kind(), st.gpus.size());
      const nlohmann::json summary = st.generator->summary();
      for (const auto& [key, value] : summary.items()) {
        std::string text;
        if (value.is_object()) {
          for (const auto& [k, v] : value.items())
            text += (text.empty() ? "" : ", ") + k + " " + json_text(v);
        } else {
          text = value.is_string() ? value.get<std::string>() : json_text(value);
        }
        o += fmt::format("    {:<37} {}\n", key, text);
      }
    }
    if (!cfg.workload.vmm_events.empty()) {
      o += fmt::format("  {} timed VMM events; faults {}\n", cfg.workload.vmm_events.size(),
                       cfg.workload.count_faults ? "counted" : "stop the run");
    }
  }
  return o;
}

void write_file_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  // The reason (a full disk, a quota) is what the user acts on, so it is part of the message.
  const auto failed = [&](const std::string& what) {
    const std::string reason = std::strerror(errno);
    std::remove(tmp.c_str());
    throw std::runtime_error(what + ": " + reason);
  };
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) failed("cannot write " + tmp);
    out << text;
    out.close();
    if (!out) failed("cannot write " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) failed("cannot rename " + tmp + " to " + path);
}

}  // namespace famsim
