#include "models/core/hop_breakdown.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace famsim {

double HopHistogram::percentile_ns(double q) const {
  if (count_ == 0) return 0.0;
  const double rank = std::ceil(q * static_cast<double>(count_));
  double cum = 0;
  for (unsigned b = 0; b < kBuckets; ++b) {
    const double n = static_cast<double>((*bins_)[b]);
    if (n == 0) continue;
    if (cum + n >= rank) {
      const double lo = bucket_lower(b), hi = bucket_upper(b);
      const double v = lo + (hi - lo) * (rank - cum) / n;
      return std::clamp(v, static_cast<double>(min_ps_), static_cast<double>(max_ps_)) * 1e-3;
    }
    cum += n;
  }
  return static_cast<double>(max_ps_) * 1e-3;
}

std::string HopBreakdown::class_name(unsigned cls) {
  const auto kind = static_cast<BlockKind>(cls % kBlockKinds);
  const std::string k = to_string(kind);
  switch (static_cast<Role>(cls / kBlockKinds)) {
    case Role::kIssue:
      return k + "_issue";
    case Role::kRequest:
      return k + " (request)";
    case Role::kQueue:
      return k + "_queue";
    case Role::kService:
      return k + "_service";
    case Role::kResponse:
      return k + " (response)";
    case Role::kWait:
      return k + "_response_wait";
  }
  return k;
}

void HopBreakdown::add(const RequestExt& e, std::uint64_t arrived_ps) {
  Direction& d = e.write ? write_ : read_;
  const unsigned n = e.hop_count;
  if (n < 2) {
    // No target on the path: nothing to attribute.
    ++d.mismatched;
    return;
  }
  const BlockKind* kind = BlockRegistry::kinds();
  std::uint64_t seen = 0;  // bit c: class c is on this path (pending_[c] holds its part)
  // Every time stamp is at most kMaxSimTimePs (2^48 - 1 ps), so a part that runs forwards is below
  // 2^48 and one that runs backwards wraps round to 2^64 - 2^48 or more: the parts ORed together
  // have a bit at 48 or above exactly when one ran backwards, one test instead of one per part.
  std::uint64_t any_part = 0;
  auto put = [&](unsigned cls, std::uint64_t from, std::uint64_t to) {
    const std::uint64_t v = to - from;
    any_part |= v;
    pending_[cls] += v + kOnePendingHop;
    seen |= std::uint64_t{1} << cls;
  };
  const unsigned last = n - 1;
  // The parts, in path order; each ends where the next begins (e.hops[k + 1].req_in_ps() is when
  // the request left hop k, e.hops[k - 1].resp_in_ps() when the response left it).
  // The initiator: from issue until the request entered the next block.
  put(class_of(kind[e.hops[0].block()], Role::kIssue), e.issue_ps, e.hops[1].req_in_ps());
  for (unsigned k = 1; k < last; ++k) {
    const HopRecord& h = e.hops[k];
    const BlockKind bk = kind[h.block()];
    put(class_of(bk, Role::kRequest), h.req_in_ps(), e.hops[k + 1].req_in_ps());
    put(class_of(bk, Role::kResponse), h.resp_in_ps(), e.hops[k - 1].resp_in_ps());
  }
  // The target: the service start ends its queueing, its own resp_in_ps is the response ready.
  const HopRecord& t = e.hops[last];
  const BlockKind tk = kind[t.block()];
  put(class_of(tk, Role::kQueue), t.req_in_ps(), e.service_start_ps);
  put(class_of(tk, Role::kService), e.service_start_ps, t.resp_in_ps());
  put(class_of(tk, Role::kWait), t.resp_in_ps(), e.hops[last - 1].resp_in_ps());

  // The parts chain from issue to the initiator's own response stamp, so (modulo 2^64) they sum
  // to that stamp minus issue_ps: they add up to the latency exactly when it is the arrival.
  const bool mismatched =
      (any_part >> 48) != 0 || arrived_ps < e.issue_ps || e.hops[0].resp_in_ps() != arrived_ps;
  if (mismatched) {
    ++d.mismatched;
    for (; seen; seen &= seen - 1) pending_[__builtin_ctzll(seen)] = 0;
    return;
  }
  d.end_to_end.add_ps(arrived_ps - e.issue_ps);
  for (; seen; seen &= seen - 1) {
    const unsigned c = static_cast<unsigned>(__builtin_ctzll(seen));
    const std::uint64_t part = pending_[c];
    pending_[c] = 0;
    d.time[c].add_ps(part & (kOnePendingHop - 1));
    d.hops[c] += part / kOnePendingHop;
  }
}

nlohmann::json HopBreakdown::direction_json(const Direction& d) {
  // Path order: BlockKind lists kinds in the order a request meets them, so the request
  // direction runs through the kinds upwards and the response direction downwards.
  std::vector<unsigned> order;
  for (Role r : {Role::kIssue, Role::kRequest, Role::kQueue, Role::kService, Role::kWait}) {
    for (unsigned k = 0; k < kBlockKinds; ++k) order.push_back(class_of(BlockKind(k), r));
  }
  for (unsigned k = kBlockKinds; k-- > 0;) order.push_back(class_of(BlockKind(k), Role::kResponse));

  const std::uint64_t requests = d.end_to_end.count();
  const double e2e_mean =
      requests ? static_cast<double>(d.end_to_end.sum_ps()) * 1e-3 / static_cast<double>(requests)
               : 0.0;
  nlohmann::json hops = nlohmann::json::array();
  double sum_of_means = 0;
  for (unsigned c : order) {
    const HopHistogram& h = d.time[c];
    if (h.count() == 0) continue;
    // Total time in the class over every request of the direction.
    const double mean = static_cast<double>(h.sum_ps()) * 1e-3 / static_cast<double>(requests);
    sum_of_means += mean;
    // What the class took above its fastest pass, per request of the direction: were every pass
    // as fast as the fastest, the mean would be `above_min` lower.
    const double above_min = static_cast<double>(h.sum_ps() - h.count() * h.min_ps()) * 1e-3 /
                             static_cast<double>(requests);
    hops.push_back(
        {{"hop", class_name(c)},
         {"mean", mean},
         {"min", static_cast<double>(h.min_ps()) * 1e-3},
         {"above_min", above_min},
         {"p99", h.percentile_ns(0.99)},
         {"share", e2e_mean > 0 ? mean / e2e_mean : 0.0},
         {"requests", h.count()},
         {"hops_per_request", static_cast<double>(d.hops[c]) / static_cast<double>(h.count())}});
  }
  return {{"end_to_end",
           {{"mean", e2e_mean}, {"p99", d.end_to_end.percentile_ns(0.99)}, {"count", requests}}},
          {"hops", hops},
          {"sum_of_means", sum_of_means},
          {"mismatched_requests", d.mismatched}};
}

nlohmann::json HopBreakdown::to_json() const {
  return {{"read", direction_json(read_)}, {"write", direction_json(write_)}};
}

}  // namespace famsim
