// Times for messages. A time kept in ps and printed as ps * 1e-3 ns carries the double's rounding
// noise ("at 1001.4150000000001 ns"); the whole ps divided by 1000 (or 10^12) is the double
// nearest the exact decimal, which fmt's "{}" prints as the shortest text that reads back as it:
// "1001.415 ns". Whole values print without a fraction ("1000 s").
#pragma once

#include <cmath>
#include <cstdint>

namespace famsim {

// ps (rounded to a whole ps) in ns.
inline double ns_of_ps(double ps) { return std::round(ps) / 1e3; }
inline double ns_of_ps(std::uint64_t ps) { return ns_of_ps(static_cast<double>(ps)); }
// ps (rounded to a whole ps) in ms.
inline double ms_of_ps(double ps) { return std::round(ps) / 1e9; }
// ps (rounded to a whole ps) in s.
inline double s_of_ps(double ps) { return std::round(ps) / 1e12; }

}  // namespace famsim
