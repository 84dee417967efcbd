#include "models/core/bottleneck.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <optional>

namespace famsim {

namespace {

constexpr std::size_t kRankedShown = 25;

// Where a pool is entered along a request's round trip: out to the memory (0 to 5), then back
// (5 to 10). A pool holds its slots until something further along frees them, so a pool fills
// because one entered later is full or slow, never the reverse: the latest full pool is the one
// that limits.
double round_trip_position(const ResourceRecord& r) {
  constexpr double kMemory = 5;
  const double d = r.use.path_depth >= 0 ? r.use.path_depth : path_depth(r.kind);
  return r.use.response_path ? 2 * kMemory - d : d;
}

bool bandwidth(const ResourceRecord& r) { return r.use.type == ResourceUse::Type::kBandwidth; }

std::string label(const ResourceRecord& r) { return r.component + " " + r.use.name; }
// The label with a link wire's ends, for the sentence's subject: which way the bytes go.
std::string label_with_ends(const ResourceRecord& r) {
  if (r.use.from.empty()) return label(r);
  return fmt::format("{} ({} -> {})", label(r), r.use.from, r.use.to);
}

std::string pct(double u) { return fmt::format("{:.1f}%", u * 100.0); }

std::string unit(const ResourceRecord& r) {
  if (!bandwidth(r)) return "slots";
  return r.use.unit.empty() ? "GB/s" : r.use.unit;
}

// Resources of one class and resource name ("fam*_link*" / "response wire").
struct Group {
  std::string cls, name;
  std::vector<const ResourceRecord*> members;
  double max_u = 0, sum_u = 0;
  std::size_t full = 0;  // members at or above the threshold
};

std::string group_key(const ResourceRecord& r) { return resource_group(r.component, r.use.name); }

// An initiator's window of requests in flight (a GPU's, the trace player's, a TLM bridge's): its
// occupancy is the requests the initiator has out.
bool initiator_window(const ResourceRecord& r) {
  return !bandwidth(r) && (r.kind == BlockKind::kGpu || r.kind == BlockKind::kTracePlayer ||
                           r.kind == BlockKind::kBridge);
}

// A limiting bandwidth class whose members carry unequal shares (the device's fabric ports on
// switch planes that take unequal shares of the GPUs' links, say): what the bound would be with
// the same traffic spread evenly over them. Only the members that carried traffic count (the
// links of a GPU that issued nothing cannot take another GPU's), and only when two or more did
// and the busiest is at least kUneven times their even load.
constexpr double kUneven = 1.05;

struct ClassBalance {
  std::size_t members = 0;  // that carried traffic
  double min_u = 0;
  double even_u = 0;      // the class's work over its capacity: each member's load if even
  double even_bound = 0;  // the analytic bound with the class evenly loaded
  const ResourceRecord* set_by = nullptr;  // what sets that bound; null: the class itself
};

std::optional<ClassBalance> class_balance(const Group& g,
                                          const std::vector<ResourceRecord>& resources,
                                          double achieved_gbps) {
  if (achieved_gbps <= 0) return std::nullopt;
  ClassBalance b;
  b.min_u = g.max_u;
  double used = 0, capacity = 0;
  for (const ResourceRecord* m : g.members) {
    if (m->use.utilization <= 0) continue;
    ++b.members;
    b.min_u = std::min(b.min_u, m->use.utilization);
    used += m->use.utilization * m->use.capacity;
    capacity += m->use.capacity;
  }
  if (b.members < 2 || capacity <= 0) return std::nullopt;
  b.even_u = used / capacity;
  if (b.even_u <= 0 || g.max_u < kUneven * b.even_u) return std::nullopt;
  b.even_bound = achieved_gbps / b.even_u;
  const std::string key = group_key(*g.members.front());
  for (const ResourceRecord& r : resources) {
    const double u = r.use.utilization;
    if (!bandwidth(r) || u <= 0 || achieved_gbps / u >= b.even_bound || group_key(r) == key) {
      continue;
    }
    b.even_bound = achieved_gbps / u;
    b.set_by = &r;
  }
  return b;
}

// A bandwidth limiter short of fully busy whose own queues held little on average while a pool
// entered before it on the round trip was full for most of the time it idled: that pool kept work
// from it more than it filled behind it (a DRAM channel fed by too few device tags runs its data
// bus at 85 % with its read queue a third full, and more tags raise it; with the queue
// three-quarters full they do not). The server idled 1 - u of the run and the pool was short of
// full 1 - p of it, so the pool was full for at least p - u of the run while the server idled: the
// rule asks that to be at least half the server's idle time, p >= u + (1 - u) / 2.
constexpr double kNearlyBusy = 0.97;    // a server this busy is saturated whatever feeds it
constexpr double kIdleShare = 0.5;      // of the server's idle time, with the pool full
constexpr double kOwnQueueShort = 0.5;  // its own queues under half full on average

// The pools that queue for `server` (its block's pools that name it in `feeds`; for a block that
// names none, such as a DRAM channel, its request-side pools).
bool own_queue_of(const ResourceRecord& r, const ResourceRecord& server) {
  if (bandwidth(r) || r.component != server.component) return false;
  if (!r.use.feeds.empty()) return r.use.feeds == server.use.name;
  return server.use.from.empty() && !r.use.response_path;
}

// The pool that starves `limiter` by that rule (null: none), and the limiter's fullest own queue.
struct Starving {
  const ResourceRecord* pool = nullptr;
  double own_queue_utilization = 0;
};
Starving starving_pool(const std::vector<ResourceRecord>& resources,
                       const ResourceRecord& limiter) {
  Starving s;
  // Busy of the time it could work (a DRAM data bus less its refreshes): a bus at 95.6 % with
  // refresh taking 4.5 % of the time is saturated, whatever feeds it.
  const double u = limiter.use.available > 0
                       ? std::min(1.0, limiter.use.utilization / limiter.use.available)
                       : 1.0;
  if (!bandwidth(limiter) || u >= kNearlyBusy) return s;
  bool own_queue = false;
  for (const ResourceRecord& r : resources) {
    if (!own_queue_of(r, limiter)) continue;
    if (r.use.utilization >= kOwnQueueShort) return s;
    own_queue = true;
    s.own_queue_utilization = std::max(s.own_queue_utilization, r.use.utilization);
  }
  if (!own_queue) return s;  // nothing to tell a starved server from a saturated one
  const double full = u + kIdleShare * (1 - u);
  const double at = round_trip_position(limiter);
  for (const ResourceRecord& r : resources) {
    if (bandwidth(r) || r.component == limiter.component || r.use.utilization < full) continue;
    const double pos = round_trip_position(r);
    if (pos >= at) continue;
    const double best = s.pool ? round_trip_position(*s.pool) : -1;
    if (pos > best || (pos == best && r.use.utilization > s.pool->use.utilization)) s.pool = &r;
  }
  return s;
}

}  // namespace

double path_depth(BlockKind k) {
  switch (k) {
    case BlockKind::kGpu:
    case BlockKind::kTracePlayer:
    case BlockKind::kBridge:
      return 0;
    case BlockKind::kLink:
      return 1;
    case BlockKind::kSwitch:
    case BlockKind::kHub:
      return 2;
    case BlockKind::kDevicePort:
      return 3;
    case BlockKind::kNoc:
      return 4;
    case BlockKind::kMemory:
      return 5;
    case BlockKind::kOther:
      break;
  }
  return 0;
}

double switch_stage_depth(unsigned stage) {
  // Three stages fit below a device link's credits (path_depth(kDevicePort) - 0.5) with room
  // between them for the links: 2.0, 2.15, 2.3.
  constexpr double kStep = 0.15;
  return path_depth(BlockKind::kSwitch) + kStep * stage;
}

double link_into_switch_stage_depth(unsigned stage) {
  if (stage == 0) return path_depth(BlockKind::kSwitch) - 0.5;
  return (switch_stage_depth(stage - 1) + switch_stage_depth(stage)) / 2;
}

double peer_entry_depth() { return path_depth(BlockKind::kDevicePort); }

double output_buffer_depth(double input_depth, bool responses) {
  constexpr double kStep = 0.05;
  return responses ? input_depth - kStep : input_depth + kStep;
}

double noc_pool_depth(double fraction, bool responses) {
  constexpr double kHalfSpan = 0.4;
  const double offset = kHalfSpan * (2 * fraction - 1);
  return path_depth(BlockKind::kNoc) + (responses ? -offset : offset);
}

std::string resource_class(const std::string& component) {
  std::string out;
  for (std::size_t i = 0; i < component.size();) {
    if (std::isdigit(static_cast<unsigned char>(component[i]))) {
      out += '*';
      while (i < component.size() && std::isdigit(static_cast<unsigned char>(component[i]))) ++i;
    } else {
      out += component[i++];
    }
  }
  return out;
}

const ResourceRecord* find_limiter(const std::vector<ResourceRecord>& resources, double threshold,
                                   const char** why) {
  const ResourceRecord* busiest_bw = nullptr;
  const ResourceRecord* innermost_full = nullptr;
  for (const ResourceRecord& r : resources) {
    const double u = r.use.utilization;
    if (bandwidth(r)) {
      if (!busiest_bw || u > busiest_bw->use.utilization) busiest_bw = &r;
    } else if (u >= threshold && r.use.feeds.empty()) {
      // (A server's own queue, a link VC's transmit queue, is full because its server is busy or
      // held: the server or what holds it limits, never the queue.)
      const double pos = round_trip_position(r);
      const double best = innermost_full ? round_trip_position(*innermost_full) : -1;
      const bool deeper = pos > best || (pos == best && u > innermost_full->use.utilization);
      if (deeper) innermost_full = &r;
    }
  }
  if (busiest_bw && busiest_bw->use.utilization >= threshold) {
    if (why) *why = "bandwidth";
    return busiest_bw;
  }
  if (innermost_full && why) *why = "slots";
  return innermost_full;
}

nlohmann::json analyze_bottlenecks(const std::vector<ResourceRecord>& resources,
                                   double achieved_gbps, double threshold,
                                   const std::vector<AchievedPart>& achieved_by_target) {
  std::map<std::string, Group> groups;
  for (const ResourceRecord& r : resources) {
    Group& g = groups[group_key(r)];
    g.cls = resource_class(r.component);
    g.name = resource_class(r.use.name);
    g.members.push_back(&r);
    g.max_u = std::max(g.max_u, r.use.utilization);
    g.sum_u += r.use.utilization;
    if (r.use.utilization >= threshold) ++g.full;
  }

  // The analytic bound: the smallest capacity / traffic share among the bandwidth resources. With
  // nothing delivered (a run cut by sim.max_time_ns before its first completion) the share is not
  // known: no bound.
  const ResourceRecord* bound_by = nullptr;
  double bound = std::numeric_limits<double>::infinity();
  const ResourceRecord* busiest = nullptr;
  for (const ResourceRecord& r : resources) {
    const double u = r.use.utilization;
    if (!busiest || u > busiest->use.utilization) busiest = &r;
    if (bandwidth(r) && u > 0 && achieved_gbps > 0 && achieved_gbps / u < bound) {
      bound = achieved_gbps / u;
      bound_by = &r;
    }
  }
  const char* why_text = "";
  const ResourceRecord* limiter = find_limiter(resources, threshold, &why_text);
  const std::string why = why_text;
  // The initiators' requests in flight on average, of their window slots: the throughput over the
  // round-trip latency by Little's law, and with nothing delivered, whether anything was issued.
  double in_flight = 0, window = 0;
  for (const ResourceRecord& r : resources) {
    if (!initiator_window(r)) continue;
    in_flight += r.use.used;
    if (!r.use.within_other_window) window += r.use.capacity;
  }

  auto state = [&](const ResourceRecord& r) -> const char* {
    if (&r == limiter) return "limiting";
    if (r.use.utilization < threshold) return "ok";
    return bandwidth(r) ? "saturated" : "blocked";
  };
  auto entry = [&](const ResourceRecord& r) {
    nlohmann::json e = {{"component", r.component},
                        {"resource", r.use.name},
                        {"class", resource_class(r.component)},
                        {"kind", to_string(r.kind)},
                        {"type", bandwidth(r) ? "bandwidth" : "slots"},
                        {"utilization", r.use.utilization},
                        {"headroom", std::max(0.0, 1.0 - r.use.utilization)},
                        {"capacity", r.use.capacity},
                        {"capacity_unit", unit(r)},
                        {"used", r.use.used},
                        {"backpressure_ns", r.use.backpressure_ns},
                        {"state", state(r)}};
    // (With nothing delivered a busy wire sets no cap: the traffic's split is not known.)
    if (bandwidth(r) && r.use.utilization > 0 && achieved_gbps > 0) {
      e["bound_gbps"] = achieved_gbps / r.use.utilization;
    }
    if (!bandwidth(r)) e["round_trip_position"] = round_trip_position(r);
    if (bandwidth(r) && r.use.available < 1) e["available"] = r.use.available;
    if (!r.use.advice.empty()) e["advice"] = r.use.advice;
    if (!r.use.from.empty()) {
      e["from"] = r.use.from;
      e["to"] = r.use.to;
    }
    return e;
  };

  // Ranked: the limiter, saturated bandwidth, full pools, then the rest, busiest first.
  std::vector<const ResourceRecord*> order;
  order.reserve(resources.size());
  for (const ResourceRecord& r : resources) order.push_back(&r);
  auto rank_of = [&](const ResourceRecord* r) {
    const std::string s = state(*r);
    return s == "limiting" ? 0 : s == "saturated" ? 1 : s == "blocked" ? 2 : 3;
  };
  std::stable_sort(order.begin(), order.end(), [&](const auto* a, const auto* b) {
    if (rank_of(a) != rank_of(b)) return rank_of(a) < rank_of(b);
    return a->use.utilization > b->use.utilization;
  });
  nlohmann::json ranked = nlohmann::json::array();
  for (std::size_t i = 0; i < order.size() && i < kRankedShown; ++i) ranked.push_back(entry(*order[i]));

  // Classes, busiest first: every resource of the run in a few lines.
  std::vector<const Group*> gs;
  for (const auto& [k, g] : groups) gs.push_back(&g);
  std::stable_sort(gs.begin(), gs.end(),
                   [](const Group* a, const Group* b) { return a->max_u > b->max_u; });
  nlohmann::json classes = nlohmann::json::array();
  for (const Group* g : gs) {
    classes.push_back({{"class", g->cls},
                       {"resource", g->name},
                       {"count", g->members.size()},
                       {"saturated", g->full},
                       {"max_utilization", g->max_u},
                       {"mean_utilization", g->sum_u / static_cast<double>(g->members.size())}});
  }

  const Starving starving =
      limiter && why == "bandwidth" ? starving_pool(resources, *limiter) : Starving();
  const ResourceRecord* starved_by = starving.pool;

  // Blocked: the classes of full pools other than the limiter's. Its own class's full members are
  // like it (limiter.alike), not held back behind it: enlarging them is the same remedy.
  nlohmann::json blocks = nlohmann::json::array();
  std::vector<std::string> blocked_text;
  for (const Group* g : gs) {
    if (g->full == 0 || bandwidth(*g->members.front())) continue;
    if (limiter && group_key(*limiter) == group_key(*g->members.front())) continue;
    // The pool that starved it is not held back by it (said in its own sentence).
    if (starved_by && group_key(*starved_by) == group_key(*g->members.front())) continue;
    // Nor is its own queue (a limiting wire's transmit queue), full because it is busy.
    const ResourceRecord& first = *g->members.front();
    if (limiter && !first.use.feeds.empty() && first.use.feeds == limiter->use.name &&
        resource_class(first.component) == resource_class(limiter->component)) {
      continue;
    }
    // The pool the limiter is another view of (a link VC's credits behind its credit round trip).
    if (limiter && !limiter->use.view_of.empty() &&
        resource_group(limiter->component, limiter->use.view_of) ==
            group_key(*g->members.front())) {
      continue;
    }
    blocks.push_back({{"class", g->cls}, {"resource", g->name}, {"count", g->full}});
    blocked_text.push_back(fmt::format("{} {} ({} full)", g->cls, g->name, g->full));
  }

  nlohmann::json out = {{"saturation_threshold", threshold},
                        {"achieved_gbps", achieved_gbps},
                        {"resources", resources.size()}};
  if (bound_by) {
    out["analytic_bound_gbps"] = bound;
    out["bound_set_by"] = label(*bound_by);
    out["achieved_fraction_of_bound"] = achieved_gbps / bound;
  }
  // With no data delivered there is no throughput to explain: say why, as far as the initiators'
  // windows tell. An initiator reports its window once it has issued a request (Gpu,
  // TracePlayer), so with none reported nothing was issued.
  std::string nothing_delivered;
  if (achieved_gbps <= 0 && !resources.empty()) {
    if (window <= 0) {
      out["nothing_delivered"] = {{"cause", "no_request_issued"}};
      nothing_delivered =
          "No data was delivered: the workload issued no request (as when every access hits a "
          "cache), so there is no throughput to explain and no analytic bound.";
    } else {
      out["nothing_delivered"] = {{"cause", "none_completed"},
                                  {"mean_requests_in_flight", in_flight}};
      nothing_delivered = fmt::format(
          "No data was delivered ({:.1f} requests in flight on average, none completed): the run "
          "ended before its first completion (cut by sim.max_time_ns, or a window shorter than "
          "one round trip), so there is no throughput to explain and no analytic bound.",
          in_flight);
    }
  }
  std::string sentence;
  std::string balance_text;  // the limiter's class unevenly loaded
  if (limiter) {
    nlohmann::json l = entry(*limiter);
    const Group& g = groups[group_key(*limiter)];
    std::vector<std::string> alike;  // same class and resource, saturated too
    for (const ResourceRecord* m : g.members) {
      if (m != limiter && m->use.utilization >= threshold) alike.push_back(label(*m));
    }
    l["reason"] = why;
    l["alike"] = alike;
    l["class_size"] = g.members.size();
    // A full pool: by Little's law its slots carry at most (achieved / its utilisation) at the
    // latency they see now (the same operational assumption as the analytic bound: the traffic
    // keeps its split). What the bandwidth resources would allow needs proportionally more slots
    // at that latency, or proportionally less latency.
    const double u = limiter->use.utilization;
    const bool slots = why == "slots" && u > 0 && achieved_gbps > 0;
    const double pool_bound = slots ? achieved_gbps / u : 0.0;
    const bool beyond = slots && bound_by && bound > pool_bound && limiter->use.more_slots_help;
    const double slots_needed = beyond ? limiter->use.capacity * bound / pool_bound : 0.0;
    if (slots) l["littles_law_bound_gbps"] = pool_bound;
    if (beyond) l["slots_for_analytic_bound"] = slots_needed;
    const std::optional<ClassBalance> balance =
        why == "bandwidth" ? class_balance(g, resources, achieved_gbps) : std::nullopt;
    if (balance) {
      l["class_balance"] = {
          {"members", balance->members},
          {"min_utilization", balance->min_u},
          {"even_utilization", balance->even_u},
          {"even_bound_gbps", balance->even_bound},
          {"even_bound_set_by", balance->set_by ? label(*balance->set_by) : g.cls + " " + g.name}};
    }
    out["limiter"] = l;
    sentence =
        fmt::format("{} limits throughput: {} {} ({})", label_with_ends(*limiter),
                    why == "bandwidth" ? "busy" : "full", pct(limiter->use.utilization),
                    why == "bandwidth" ? fmt::format("{:.1f} of {:.1f} {}", limiter->use.used,
                                                     limiter->use.capacity, unit(*limiter))
                                       : fmt::format("{:.1f} of {:.0f} slots in use on average",
                                                     limiter->use.used, limiter->use.capacity));
    if (why == "bandwidth" && limiter->use.available < 1) {
      // What refresh leaves of the time, and how much of that it was busy: a DRAM bus at its
      // refresh-limited ceiling reads short of 100 % against the whole window.
      const double a = limiter->use.available;
      constexpr double kAtCeiling = 0.005;  // within half a point of it
      if (limiter->use.utilization < a - kAtCeiling) {
        sentence +=
            fmt::format("; all-bank refresh leaves it {} of the time, and it was busy {} of that",
                        pct(a), pct(a > 0 ? limiter->use.utilization / a : 1.0));
      } else if (limiter->use.utilization <= a + kAtCeiling) {
        sentence += fmt::format(
            "; all-bank refresh leaves it {} of the time, and it was busy nearly all of that",
            pct(a));
      } else {
        sentence += fmt::format(
            "; more than the {} of the time all-bank refresh leaves it over a long run: the "
            "controller postponed refreshes past the run's last request (refresh_postpone), which "
            "a longer run pays",
            pct(a));
      }
    }
    if (!alike.empty()) {
      sentence += fmt::format(", like {} more of the {} {} {}", alike.size(), g.members.size(),
                              g.cls, g.name);
    }
    sentence += ".";
    if (!limiter->use.advice.empty()) sentence += " " + limiter->use.advice;
    if (slots) {
      // pool_bound is the run's total, not what this pool carries: with several pools of its
      // class each carries its share of the traffic.
      sentence += fmt::format(
          " By Little's law (throughput = slots / latency) its {:.0f} slots hold the run's total "
          "to at most {:.1f} GB/s at the latency they see now and the traffic's split as it is",
          limiter->use.capacity, pool_bound);
      if (beyond) {
        sentence += fmt::format(
            "; the {:.1f} GB/s the bandwidth resources allow would take about {:.0f} slots in it "
            "at that latency, or that latency cut {:.1f}x",
            bound, slots_needed, bound / pool_bound);
      }
      sentence += ".";
    }
    if (balance) {
      // Said after the bound it compares with.
      balance_text = fmt::format(
          " The {} {} {}{} are unevenly loaded ({} to {}): spread evenly, the same traffic would "
          "load each {}, and the analytic bound would be {:.1f} GB/s ({:.2f}x), {}.",
          balance->members, g.cls, g.name,
          balance->members < g.members.size() ? " that carried traffic" : "", pct(balance->min_u),
          pct(g.max_u), pct(balance->even_u), balance->even_bound, balance->even_bound / bound,
          balance->set_by ? "set then by " + label(*balance->set_by)
                          : std::string("still set by them"));
    }
    if (starved_by) {
      const double own = starving.own_queue_utilization;
      out["limiter"]["starved_by"] = {{"component", starved_by->component},
                                      {"resource", starved_by->use.name},
                                      {"utilization", starved_by->use.utilization},
                                      {"capacity", starved_by->use.capacity},
                                      {"own_queue_utilization", own}};
      sentence += fmt::format(
          " It was not fed all the time, though: its own queues were at most {} full on average, "
          "while {}, entered before it, was full {} of the time: that pool kept {} from reaching "
          "it",
          pct(own), label(*starved_by), pct(starved_by->use.utilization),
          starved_by->use.response_path ? "responses" : "requests");
      // A pool that more slots would not relieve (a FIFO blocked at its head) says what would.
      if (starved_by->use.more_slots_help || starved_by->use.advice.empty()) {
        sentence += fmt::format(
            ", and more of its {:.0f} slots may raise the throughput (a sweep of its size tells "
            "how much).",
            starved_by->use.capacity);
      } else {
        sentence += ". " + starved_by->use.advice;
      }
    }
    if (!blocked_text.empty()) {
      sentence += fmt::format(" It holds back: {}.", fmt::join(blocked_text, ", "));
    }
  } else if (!nothing_delivered.empty()) {
    sentence = nothing_delivered;
    if (window > 0) {
      sentence +=
          fmt::format(" Busiest: {} at {}.", label(*busiest), pct(busiest->use.utilization));
    }
  } else if (busiest) {
    sentence = fmt::format(
        "No resource is saturated (busiest: {} at {}): the workload's own pace (issue rate, "
        "compute gaps, dependencies) sets the throughput.",
        label(*busiest), pct(busiest->use.utilization));
    // Then the throughput is the initiators' requests in flight over their round-trip latency
    // (Little's law), and how many they keep in flight is the figure to raise: a latency probe of
    // one request at a time measures latency, not what the platform can carry.
    if (window > 0) {
      out["in_flight"] = {{"mean_requests", in_flight}, {"window_slots", window}};
      sentence += fmt::format(
          " The initiators kept {:.1f} requests in flight on average, of {:.0f} window slots: by "
          "Little's law the throughput is that many requests per round-trip latency, so more "
          "requests in flight at once (more concurrent accesses, fewer dependencies or gaps) "
          "raise it until a resource saturates.",
          in_flight, window);
    }
  } else {
    sentence = "No resources were reported.";
  }
  if (bound_by) {
    // Several targets: the achieved figure and the bound are of their total, not of one of them.
    std::string parts;
    if (achieved_by_target.size() > 1) {
      std::vector<std::string> p;
      for (const AchievedPart& a : achieved_by_target) {
        p.push_back(fmt::format("{} {:.1f}", a.target, a.gbps));
      }
      parts = fmt::format(" over all targets ({} GB/s)", fmt::join(p, ", "));
    }
    sentence +=
        fmt::format(" Achieved {:.1f} GB/s{} of an analytic bound of {:.1f} GB/s ({}), set by {}.",
                    achieved_gbps, parts, bound, pct(achieved_gbps / bound), label(*bound_by));
    if (!parts.empty()) {
      sentence += " The bound assumes each target keeps its share of the traffic.";
    }
    sentence += balance_text;
    if (!limiter) {
      // Far from saturation the bound is an extrapolation of the split this light load made: a
      // few requests can all land in one bank, which a heavier load of the same kind would not.
      sentence +=
          " With nothing saturated the bound extrapolates this run's split of the traffic over "
          "the resources, which more load may change.";
    }
  } else if (limiter && !nothing_delivered.empty()) {
    sentence += " " + nothing_delivered;
  }
  out["sentence"] = sentence;
  out["blocks"] = blocks;
  out["ranked"] = ranked;
  out["classes"] = classes;
  return out;
}

std::string resource_group(const std::string& component, const std::string& resource) {
  return resource_class(component) + " " + resource_class(resource);
}

}  // namespace famsim
