// Access-pattern generator for one stream on one GPU: yields the software's accesses (virtual
// address, size, read or write) over the stream's buffer. Seeded, so the same seed gives the same
// sequence; nothing allocates per access.
#pragma once

#include "traffic/source.h"
#include "traffic/workload_config.h"
#include "traffic/zipf.h"

#include <boost/random/mersenne_twister.hpp>

#include <cstdint>
#include <optional>

namespace famsim {

// Paced streams (issue_rate_gbps) issue access k no earlier than start + k x access_bytes / rate,
// the start being the first time the GPU asks; a GPU that falls behind catches up as fast as it
// can (open loop, like a trace with timestamps).
class StreamGenerator : public AccessSource {
 public:
  // `buffer_va`/`buffer_bytes`: the virtual range this GPU's stream works on.
  StreamGenerator(const StreamConfig& cfg, std::uint64_t buffer_va, std::uint64_t buffer_bytes,
                  std::uint64_t seed);

  // The next access, or false once total_bytes have been produced (no pacing).
  bool next(Access& a);
  State next(std::uint64_t now_ps, Access& a, std::uint64_t& wake_ps) override;

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
  // zipf: popularity rank -> hot unit, units of cfg.hot_unit_bytes
  std::optional<ZipfDistribution> zipf_;
  std::uint64_t units_ = 1;
  std::uint64_t slots_per_unit_ = 1;
  std::uint64_t scatter_seed_ = 0;
  // Pacing
  std::uint64_t interval_ps_ = 0;
  std::uint64_t next_issue_ps_ = AccessSource::kNever;
};

// Seed of one (GPU, stream) generator, derived from the simulation seed.
std::uint64_t stream_seed(std::uint64_t sim_seed, unsigned gpu, unsigned stream);

}  // namespace famsim
