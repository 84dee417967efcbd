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
  std::array<std::uint64_t, kClasses> time{};
  std::array<std::uint8_t, kClasses> hops{};
  std::uint64_t seen = 0;  // bit c: class c is on this path
  std::uint64_t sum = 0;
  bool backwards = false;
  auto put = [&](unsigned cls, std::uint64_t from, std::uint64_t to) {
    backwards |= to < from;
    const std::uint64_t v = to - from;
    time[cls] += v;
    ++hops[cls];
    seen |= std::uint64_t{1} << cls;
    sum += v;
  };
  const unsigned last = n - 1;
  // The initiator: from issue until the request entered the next block.
  put(class_of(kind[e.hops[0].block()], Role::kIssue), e.issue_ps, e.req_out_ps(0));
  for (unsigned k = 1; k < last; ++k) {
    const BlockKind bk = kind[e.hops[k].block()];
    put(class_of(bk, Role::kRequest), e.hops[k].req_in_ps(), e.req_out_ps(k));
    put(class_of(bk, Role::kResponse), e.hops[k].resp_in_ps(), e.resp_out_ps(k));
  }
  // The target: req_out_ps is its service start, its own resp_in_ps the response ready.
  const BlockKind tk = kind[e.hops[last].block()];
  put(class_of(tk, Role::kQueue), e.hops[last].req_in_ps(), e.req_out_ps(last));
  put(class_of(tk, Role::kService), e.req_out_ps(last), e.hops[last].resp_in_ps());
  put(class_of(tk, Role::kWait), e.hops[last].resp_in_ps(), e.resp_out_ps(last));

  if (backwards || arrived_ps < e.issue_ps || sum != arrived_ps - e.issue_ps) {
    ++d.mismatched;
    return;
  }
  d.end_to_end.add_ps(sum);
  while (seen) {
    const unsigned c = static_cast<unsigned>(__builtin_ctzll(seen));
    seen &= seen - 1;
    d.time[c].add_ps(time[c]);
    d.hops[c] += hops[c];
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
