// Per-hop latency breakdown: where a request's end-to-end latency went, by hop class.
//
// Initiators hand every completed request to add() (one breakdown per simulation, in SimContext).
// Its latency (issue to the response's arrival back at the initiator) is cut at every time stamp in
// its hop records (models/core/request.h), so the parts add up to it exactly, in integer ps:
//   initiator (block 0)  issue: issue_ps until the request entered block 1
//   block k on the way   request: req_in_ps(k) .. req_out_ps(k) (it entered block k+1)
//                        response: resp_in_ps(k) .. resp_out_ps(k) (it entered block k-1)
//   target (last block)  queue: req_in_ps .. service_start_ps;
//                        service: service_start_ps .. its own resp_in_ps (the response ready);
//                        response wait: ready .. resp_out_ps (handed to the block before it: time
//                        it waited behind an earlier response that block had not taken)
// The initiator takes its response as it arrives, so it has no response part.
//
// A hop class is a block kind (BlockKind) with one of those roles, not a block instance, so the
// result stays readable on a platform with many GPUs, links and switch planes; a path that crosses
// two links puts both into "link (request)" and counts two hops there.
//
// Kept per direction (reads and writes; atomics count as reads, as everywhere): per class, a
// histogram of each request's time in that class (over the requests whose path had it) and its hop
// count (HopHistogram); the end-to-end histogram of the attributed requests; and the requests whose
// parts did not add up or ran backwards in time (mismatched: a block stamped its records out of
// order). Those are counted and left out, never aborted on. Nothing allocates per request: the
// classes are a fixed table.
#pragma once

#include "models/core/log_bins.h"
#include "models/core/request.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <string>

namespace famsim {

// The distribution of one hop class's time per request: exact count, mean, min and max, and
// percentiles from log-linear buckets (32 per octave of ps, so each is at most 3.1% wide; values
// below 32 ps exactly). Cheaper than LatencyHistogram where a completion adds ten samples: the
// bucket comes from the value's leading bit (no logarithm), and the samples of one class fall in
// a few neighbouring buckets, so the hot path touches a cache line or two per class.
class HopHistogram {
 public:
  void add_ps(std::uint64_t v) {
    if (!bins_) bins_ = std::make_unique<std::array<std::uint64_t, kBuckets>>();
    ++(*bins_)[bucket(v)];
    ++count_;
    sum_ps_ += v;
    if (v < min_ps_) min_ps_ = v;
    if (v > max_ps_) max_ps_ = v;
  }
  std::uint64_t count() const { return count_; }
  std::uint64_t sum_ps() const { return sum_ps_; }
  std::uint64_t min_ps() const { return count_ ? min_ps_ : 0; }
  // q in (0, 1): nearest-rank sample, interpolated inside its bucket, within [min, max].
  double percentile_ns(double q) const;

  using Bins = LogLinearBins<5>;
  static constexpr unsigned kSub = Bins::kSub;
  static constexpr unsigned kBuckets = Bins::kCount;
  static unsigned bucket(std::uint64_t v) { return Bins::index(v); }
  // [lower, upper) of bucket b, ps.
  static double bucket_lower(unsigned b) { return Bins::lower(b); }
  static double bucket_upper(unsigned b) { return Bins::upper(b); }

 private:
  std::unique_ptr<std::array<std::uint64_t, kBuckets>> bins_;  // on the first sample
  std::uint64_t count_ = 0;
  std::uint64_t sum_ps_ = 0;
  std::uint64_t min_ps_ = UINT64_MAX;
  std::uint64_t max_ps_ = 0;
};

class HopBreakdown {
 public:
  // What a block did to the request in this part of its latency.
  enum class Role : std::uint8_t { kIssue, kRequest, kQueue, kService, kResponse, kWait };
  static constexpr unsigned kRoles = 6;
  static constexpr unsigned kClasses = kRoles * kBlockKinds;
  static_assert(kClasses <= 64, "hop classes are tracked in a 64-bit mask");

  static constexpr unsigned class_of(BlockKind kind, Role role) {
    return static_cast<unsigned>(role) * kBlockKinds + static_cast<unsigned>(kind);
  }
  // "gpu_issue", "link (request)", "memory_queue", "memory_service", "memory_response_wait",
  // "noc (response)".
  static std::string class_name(unsigned cls);

  // A completed request whose response arrived at the initiator at `arrived_ps`.
  void add(const RequestExt& e, std::uint64_t arrived_ps);

  // {"read": {...}, "write": {...}}: per direction end_to_end {mean, p99, count} (ns), hops in
  // path order [{hop, mean, p99, share, requests, hops_per_request}], sum_of_means,
  // mismatched_requests. A hop's mean is its total time over all the direction's attributed
  // requests, so the means add up to the end-to-end mean; its p99 is over the requests whose path
  // had it.
  nlohmann::json to_json() const;

  std::uint64_t mismatched_requests() const { return read_.mismatched + write_.mismatched; }
  // Every request added so far.
  std::uint64_t requests() const {
    return read_.end_to_end.count() + write_.end_to_end.count() + mismatched_requests();
  }

 private:
  struct Direction {
    HopHistogram end_to_end;
    std::array<HopHistogram, kClasses> time;
    std::array<std::uint64_t, kClasses> hops{};
    std::uint64_t mismatched = 0;
  };
  static nlohmann::json direction_json(const Direction& d);

  Direction read_;
  Direction write_;
  // add()'s per-class sums for the request at hand, zeroed as it reads them so that it need not
  // clear the whole table per request: time in the low 56 bits (a request's time is below 2^48 ps,
  // kMaxSimTimePs), its hop count above them.
  static constexpr std::uint64_t kOnePendingHop = std::uint64_t{1} << 56;
  std::array<std::uint64_t, kClasses> pending_{};
};

}  // namespace famsim
