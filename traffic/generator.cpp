#include "traffic/generator.h"

#include "traffic/pattern.h"

#include <boost/random/bernoulli_distribution.hpp>
#include <boost/random/uniform_int_distribution.hpp>

#include <algorithm>
#include <cmath>

namespace famsim {

std::uint64_t stream_seed(std::uint64_t sim_seed, unsigned gpu, unsigned stream) {
  return mix64(mix64(sim_seed) ^ mix64((static_cast<std::uint64_t>(gpu) << 32) | stream));
}

StreamGenerator::StreamGenerator(const StreamConfig& cfg, std::uint64_t buffer_va,
                                 std::uint64_t buffer_bytes, std::uint64_t seed)
    : cfg_(cfg),
      va_(buffer_va),
      slots_(std::max<std::uint64_t>(1, buffer_bytes / cfg.access_bytes)),
      rng_(seed) {
  if (cfg.pattern == Pattern::kStrided) {
    stride_slots_ = std::max<std::uint64_t>(1, cfg.stride_bytes / cfg.access_bytes);
  }
  if (cfg.pattern == Pattern::kZipf) {
    units_ = std::max<std::uint64_t>(1, buffer_bytes / cfg.hot_unit_bytes);
    slots_per_unit_ = std::max<std::uint64_t>(1, cfg.hot_unit_bytes / cfg.access_bytes);
    zipf_.emplace(units_, cfg.zipf_exponent);
    scatter_seed_ = mix64(seed ^ 0x5a17);
  }
  if (cfg.issue_rate_gbps > 0) {
    // bytes / (GB/s) = ns; x 1000 = ps
    interval_ps_ = static_cast<std::uint64_t>(
        std::llround(static_cast<double>(cfg.access_bytes) / cfg.issue_rate_gbps * 1000.0));
  }
}

std::uint64_t StreamGenerator::next_offset() {
  switch (cfg_.pattern) {
    case Pattern::kSequential:
      return (index_ % slots_) * cfg_.access_bytes;
    case Pattern::kStrided: {
      // Walk the buffer in strides; each time the walk passes the end it restarts one slot
      // further on, so repeated passes touch every slot.
      const std::uint64_t slot = position_;
      position_ += stride_slots_;
      if (position_ >= slots_) {
        ++wraps_;
        position_ = wraps_ % std::min(stride_slots_, slots_);
      }
      return slot * cfg_.access_bytes;
    }
    case Pattern::kUniformRandom: {
      boost::random::uniform_int_distribution<std::uint64_t> pick(0, slots_ - 1);
      return pick(rng_) * cfg_.access_bytes;
    }
    case Pattern::kZipf: {
      // A hot unit by popularity, scattered over the buffer; a uniform slot inside it.
      const std::uint64_t unit = scatter_rank((*zipf_)(rng_), units_, scatter_seed_);
      boost::random::uniform_int_distribution<std::uint64_t> pick(0, slots_per_unit_ - 1);
      return (unit * slots_per_unit_ + pick(rng_)) * cfg_.access_bytes;
    }
  }
  return 0;
}

AccessSource::State StreamGenerator::next(std::uint64_t now_ps, Access& a, std::uint64_t& wake_ps) {
  if (produced_ >= cfg_.total_bytes) return State::kDone;
  if (interval_ps_ > 0) {
    if (next_issue_ps_ == kNever) next_issue_ps_ = now_ps;
    if (now_ps < next_issue_ps_) {
      wake_ps = next_issue_ps_;
      return State::kWait;
    }
  }
  if (!next(a)) return State::kDone;
  next_issue_ps_ += interval_ps_;
  return State::kReady;
}

bool StreamGenerator::next(Access& a) {
  if (produced_ >= cfg_.total_bytes) return false;
  a.va = va_ + next_offset();
  a.bytes = static_cast<std::uint32_t>(
      std::min<std::uint64_t>(cfg_.access_bytes, cfg_.total_bytes - produced_));
  if (cfg_.read_fraction >= 1.0) {
    a.write = false;
  } else if (cfg_.read_fraction <= 0.0) {
    a.write = true;
  } else {
    boost::random::bernoulli_distribution<double> is_read(cfg_.read_fraction);
    a.write = !is_read(rng_);
  }
  produced_ += a.bytes;
  ++index_;
  return true;
}

}  // namespace famsim
