// Access-pattern generator for one stream on one GPU: yields the software's accesses (virtual
// address, size, read or write) over the stream's buffer. Seeded, so the same seed gives the same
// sequence; nothing allocates per access.
#pragma once

#include "traffic/workload_config.h"

#include <boost/random/mersenne_twister.hpp>

#include <cstdint>

namespace famsim {

struct Access {
  std::uint64_t va = 0;
  std::uint32_t bytes = 0;
  bool write = false;
};

class StreamGenerator {
 public:
  // `buffer_va`/`buffer_bytes`: the virtual range this GPU's stream works on.
  StreamGenerator(const StreamConfig& cfg, std::uint64_t buffer_va, std::uint64_t buffer_bytes,
                  std::uint64_t seed);

  // The next access, or false once total_bytes have been produced.
  bool next(Access& a);

  std::uint64_t produced_bytes() const { return produced_; }

 private:
  std::uint64_t next_offset();

  const StreamConfig& cfg_;
  std::uint64_t va_;
  std::uint64_t slots_;  // buffer_bytes / access_bytes
  std::uint64_t index_ = 0;
  std::uint64_t produced_ = 0;
  std::uint64_t stride_slots_ = 1;
  std::uint64_t wraps_ = 0;
  std::uint64_t position_ = 0;
  boost::random::mt19937_64 rng_;
};

// Seed of one (GPU, stream) generator, derived from the simulation seed.
std::uint64_t stream_seed(std::uint64_t sim_seed, unsigned gpu, unsigned stream);

}  // namespace famsim
