#include "traffic/generator.h"

#include "traffic/pattern.h"

#include <boost/random/bernoulli_distribution.hpp>
#include <boost/random/uniform_int_distribution.hpp>

#include <algorithm>

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
  }
  return 0;
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
