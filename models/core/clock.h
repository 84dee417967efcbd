// Clock-period helpers. Every famsim block has a clock from its configuration; its decisions land
// on that clock's edges. Clocks start at time 0, so edge k is at k * period.
//
// Time resolution is SystemC's default of 1 ps. A period is the frequency's period rounded to the
// nearest picosecond (1500 MHz -> 667 ps); derived bandwidths use the rounded period, so what
// `famsim validate` prints is what the model does.
#pragma once

#include <systemc>

#include <cstdint>

namespace famsim {

using sc_core::sc_time;

inline sc_time ps(std::uint64_t v) { return sc_time::from_value(v); }

// Hop records keep times in 48 bits of ps: famsim simulates at most 281 s (ample: a second of
// simulated fabric traffic is hours of host time). Wake-ups beyond it are refused.
inline constexpr std::uint64_t kMaxSimTimePs = (std::uint64_t{1} << 48) - 1;

namespace detail {
extern std::uint64_t g_now_ps;
extern bool g_now_cached;
extern std::uint64_t g_sc_now_ps;  // sc_time_stamp() when the scheduler's activation began
extern std::uint64_t g_offset_for_ps;
extern sc_time g_offset;
extern bool g_time_limit_hit;  // a block asked to be woken beyond kMaxSimTimePs
}  // namespace detail

// The current simulated time in ps. Under the famsim kernel it is the scheduler's local time
// (which runs ahead of sc_time_stamp() within a quantum, see models/core/wakeup.h); under the
// systemc kernel it is sc_time_stamp().
inline std::uint64_t now_ps() {
  return detail::g_now_cached ? detail::g_now_ps : sc_core::sc_time_stamp().value();
}
// The TLM annotated delay of a call made now: local time minus sc_time_stamp().
inline const sc_time& local_time_offset() {
  if (detail::g_now_cached && detail::g_offset_for_ps != detail::g_now_ps) {
    detail::g_offset_for_ps = detail::g_now_ps;
    detail::g_offset = sc_time::from_value(detail::g_now_ps - detail::g_sc_now_ps);
  }
  return detail::g_offset;
}

inline double to_ns(const sc_time& t) { return static_cast<double>(t.value()) / 1000.0; }

// Picoseconds needed to move `bytes` at `gbps` GB/s (1e9 bytes per second), rounded up so that a
// modelled resource never moves data faster than its configured bandwidth.
std::uint64_t transfer_ps(std::uint64_t bytes, double gbps);

// Division by a divisor fixed at elaboration, as a multiply (a 64-bit divide costs tens of cycles
// and clock-edge arithmetic does one per message per block).
class FixedDivisor {
 public:
  FixedDivisor() = default;
  explicit FixedDivisor(std::uint64_t d) : d_(d), m_(~std::uint64_t{0} / d) {}
  std::uint64_t divisor() const { return d_; }
  // floor(x / d): the estimate from the reciprocal is exact or one short.
  std::uint64_t quotient(std::uint64_t x) const {
    std::uint64_t q = static_cast<std::uint64_t>((static_cast<unsigned __int128>(x) * m_) >> 64);
    if (x - q * d_ >= d_) ++q;
    return q;
  }

 private:
  std::uint64_t d_ = 1;
  std::uint64_t m_ = ~std::uint64_t{0};
};

class Clock {
 public:
  Clock() = default;
  explicit Clock(double mhz);

  std::uint64_t period_ps() const { return period_ps_; }
  sc_time period() const { return ps(period_ps_); }
  sc_time cycles(std::uint64_t n) const { return ps(n * period_ps_); }
  double mhz() const { return 1e6 / static_cast<double>(period_ps_); }

  // The first edge at or after t (in ps).
  std::uint64_t edge_ps(std::uint64_t t_ps) const {
    return div_.quotient(t_ps + period_ps_ - 1) * period_ps_;
  }
  // The first edge strictly after t: where a block samples what arrived at t. Sampling strictly
  // after makes a decision independent of the order in which same-time events run.
  std::uint64_t edge_after_ps(std::uint64_t t_ps) const {
    return div_.quotient(t_ps) * period_ps_ + period_ps_;
  }
  bool on_edge(std::uint64_t t_ps) const { return div_.quotient(t_ps) * period_ps_ == t_ps; }
  // The number of the last edge at or before t (edge n is at n x period).
  std::uint64_t edge_number(std::uint64_t t_ps) const { return div_.quotient(t_ps); }

 private:
  std::uint64_t period_ps_ = 1000;
  FixedDivisor div_{1000};
};

}  // namespace famsim
