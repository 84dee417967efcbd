#include "models/core/clock.h"

#include <cmath>
#include <stdexcept>

namespace famsim {

namespace detail {
std::uint64_t g_now_ps = 0;
bool g_now_cached = false;
std::uint64_t g_sc_now_ps = 0;
std::uint64_t g_offset_for_ps = 0;
sc_time g_offset = sc_core::SC_ZERO_TIME;
bool g_time_limit_hit = false;
}  // namespace detail

std::uint64_t transfer_ps(std::uint64_t bytes, double gbps) {
  // bytes / (gbps * 1e9 B/s) seconds = bytes * 1000 / gbps picoseconds.
  return static_cast<std::uint64_t>(std::ceil(static_cast<double>(bytes) * 1000.0 / gbps - 1e-9));
}

Clock::Clock(double mhz) {
  if (!(mhz > 0.0)) throw std::invalid_argument("clock frequency must be positive");
  period_ps_ = static_cast<std::uint64_t>(std::llround(1e6 / mhz));
  if (period_ps_ == 0) throw std::invalid_argument("clock frequency above 1 THz");
  div_ = FixedDivisor(period_ps_);
}

}  // namespace famsim
