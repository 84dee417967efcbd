#include "models/memory/dram/dram_spec.h"

#include "models/core/bits.h"
#include "models/core/config.h"
#include "platforms/presets.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

namespace famsim::dram {

const char* to_string(Standard s) {
  switch (s) {
    case Standard::kDDR4:
      return "DDR4";
    case Standard::kDDR5:
      return "DDR5";
    case Standard::kLPDDR5X:
      return "LPDDR5X";
    case Standard::kHBM3:
      return "HBM3";
  }
  return "?";
}

std::optional<Standard> parse_standard(const std::string& s) {
  for (Standard x : {Standard::kDDR4, Standard::kDDR5, Standard::kLPDDR5X, Standard::kHBM3}) {
    if (s == to_string(x)) return x;
  }
  return std::nullopt;
}

unsigned transfers_per_clock(Standard s) {
  switch (s) {
    case Standard::kDDR4:
    case Standard::kDDR5:
      return 2;
    case Standard::kHBM3:
      return 4;
    case Standard::kLPDDR5X:
      return 8;
  }
  return 2;
}

unsigned command_bus_clocks(Standard s, Command c) {
  if (s != Standard::kDDR5) return 1;
  switch (c) {
    case Command::kACT:
    case Command::kRD:
    case Command::kRDA:
    case Command::kWR:
    case Command::kWRA:
      return 2;  // JESD79-5 section 4.1, Command Truth Table: 2-cycle commands
    default:
      return 1;  // PRE, PREA, REFab, REFsb, REFpb: 1-cycle commands
  }
}

namespace {

std::uint64_t to_ps(double t_ns) { return static_cast<std::uint64_t>(std::llround(t_ns * 1000.0)); }

}  // namespace

std::uint64_t ns_to_clocks(Standard s, double t_ns, std::uint64_t tck_ps) {
  const std::uint64_t t_ps = to_ps(t_ns);
  if (t_ps == 0) return 0;  // "no constraint" stays zero (the DDR5 formula would give 1)
  if (s == Standard::kDDR5) return (t_ps * 997 / tck_ps + 1000) / 1000;
  return (t_ps * 1000 / tck_ps + 974) / 1000;
}

std::uint64_t interval_to_clocks(double t_ns, std::uint64_t tck_ps) { return to_ps(t_ns) / tck_ps; }

namespace {

// One supply domain's currents (mA) at voltage v (V).
struct Domain {
  double v, i0, i2n, i3n, i4r, i4w, i5b, i5pb;
};

// Energies of one device in one domain, pJ (mA x V x ns), and background powers, mW (mA x V).
// The current-based method of Micron TN-41-01 ("Calculating Memory System Power for DDR3",
// carried to DDR4 in TN-40-07) and of DRAMPower (Chandrasekar et al., DSD 2011): the energy of a
// command is the current above the standby current of the state it is measured against, times
// the time the command occupies:
//   ACT+PRE : V * (IDD0 * tRC - IDD3N * tRAS - IDD2N * (tRC - tRAS))
//   RD burst: V * (IDD4R - IDD3N) * tBL        WR burst: V * (IDD4W - IDD3N) * tBL
//   REFab   : V * (IDD5B - IDD3N) * tRFC
//   REFpb   : V * (IDD5PB - IDD3N) * tRFCpb when IDD5PB is given; otherwise REFab * tREFIpb /
//             tREFI, i.e. the same energy per refreshed row whichever command refreshes it
//             [assumption]
//   background, some bank open: V * IDD3N       all banks closed: V * IDD2N
// Times are the clock counts the controller uses, times tCK (as DRAMPower does). I/O and
// termination power are not included.
Energy domain_energy(const Domain& d, const Timing& t) {
  Energy e;
  if (d.v <= 0) return e;
  const double tck = t.tck_ns();
  const double t_ras = t.RAS * tck, t_rc = t.RC * tck, t_bl = t.burst * tck;
  e.act_pre_pj = d.v * (d.i0 * t_rc - d.i3n * t_ras - d.i2n * (t_rc - t_ras));
  e.read_pj = d.v * (d.i4r - d.i3n) * t_bl;
  e.write_pj = d.v * (d.i4w - d.i3n) * t_bl;
  e.refresh_ab_pj = d.v * (d.i5b - d.i3n) * t.RFC * tck;
  if (t.REFIpb > 0) {
    e.refresh_pb_pj = d.i5pb > 0 ? d.v * (d.i5pb - d.i3n) * t.RFCpb * tck
                                 : e.refresh_ab_pj * t.REFIpb / static_cast<double>(t.REFI);
  }
  e.background_active_mw = d.v * d.i3n;
  e.background_precharged_mw = d.v * d.i2n;
  // Equal currents (e.g. IPP0 = IPP3N = IPP2N) must give exactly zero, not a rounding residue.
  for (double* x : {&e.act_pre_pj, &e.read_pj, &e.write_pj, &e.refresh_ab_pj, &e.refresh_pb_pj}) {
    if (std::fabs(*x) < 1e-9) *x = 0;
  }
  return e;
}

Domain vdd_domain(const Currents& c) {
  return {c.vdd_v,    c.idd0_ma,  c.idd2n_ma, c.idd3n_ma,
          c.idd4r_ma, c.idd4w_ma, c.idd5b_ma, c.idd5pb_ma};
}
Domain vpp_domain(const Currents& c) {
  return {c.vpp_v,    c.ipp0_ma,  c.ipp2n_ma, c.ipp3n_ma,
          c.ipp4r_ma, c.ipp4w_ma, c.ipp5b_ma, c.ipp5pb_ma};
}

// Bus turnaround RD -> WR (any bank of the rank), in tCK, by the standard's rule:
//   DDR4    RL + BL/2 - WL + 2 tCK (JESD79-4 READ-to-WRITE with 1 tCK read and write preambles,
//           AL = 0; BL/2 = tBL)
//   DDR5    CL - CWL + RBL/2 + 2 tCK - (read DQS offset) + (tRPST - 0.5 tCK) + tWPRE
//           (JESD79-5 tCCD_S_RTW / tCCD_L_RTW, quoted in gem5's DDR5 interfaces) with read DQS
//           offset 0, tRPST 0.5 tCK and tWPRE 2 tCK, the values Ramulator 2's DDR5 model assumes
//           [assumption]
//   LPDDR5X RL + BL/n + RU(tWCKDQO / tCK) - WL with the tWCKDQO term 1 tCK (JESD209-5, as in gem5's
//           LPDDR5 interfaces; BL/n = tBL)
//   HBM3    RL + tBL + 2 - WL (the rule of Ramulator 2's HBM3 model, write preamble 1 tCK)
//           [assumption]
long rtw_rule(Standard s, const Timing& t) {
  const long cl = t.CL, cwl = t.CWL, bl = t.burst;
  switch (s) {
    case Standard::kDDR4:
      return cl + bl - cwl + 2;
    case Standard::kDDR5:
      return cl - cwl + bl + 2 + 0 + 2 - 0;
    case Standard::kLPDDR5X:
      return cl + bl + 1 - cwl;
    case Standard::kHBM3:
      return cl + bl + 2 - cwl;
  }
  return cl + bl + 2 - cwl;
}

void read_organization(ConfigNode& o, Standard s, Organization& org) {
  auto pow2_or_fail = [&](const std::string& key, std::uint64_t v) {
    if (!is_pow2(v)) o.fail(key, fmt::format("must be a power of two (got {})", v));
  };
  org.ranks = static_cast<unsigned>(o.get_uint("ranks", std::nullopt, 1, 16));
  org.bank_groups = static_cast<unsigned>(o.get_uint("bank_groups", std::nullopt, 1, 64));
  pow2_or_fail("bank_groups", org.bank_groups);
  org.banks_per_group = static_cast<unsigned>(o.get_uint("banks_per_group", std::nullopt, 1, 64));
  pow2_or_fail("banks_per_group", org.banks_per_group);
  // Rows need not be a power of two (24 Gb DDR5 dies have 3 x 2^15 rows per bank).
  org.rows = static_cast<std::uint32_t>(o.get_uint("rows", std::nullopt, 1, 1u << 24));
  org.columns = static_cast<std::uint32_t>(o.get_uint("columns", std::nullopt, 1, 1u << 20));
  pow2_or_fail("columns", org.columns);
  org.device_width_bits =
      static_cast<unsigned>(o.get_uint("device_width_bits", std::nullopt, 1, 1024));
  pow2_or_fail("device_width_bits", org.device_width_bits);
  org.channel_width_bits =
      static_cast<unsigned>(o.get_uint("channel_width_bits", std::nullopt, 1, 1024));
  if (org.channel_width_bits % org.device_width_bits != 0) {
    o.fail("channel_width_bits",
           fmt::format("must be a multiple of device_width_bits ({})", org.device_width_bits));
  }
  org.burst_length = static_cast<unsigned>(o.get_uint("burst_length", std::nullopt, 1, 64));
  pow2_or_fail("burst_length", org.burst_length);
  if (org.burst_length % transfers_per_clock(s) != 0) {
    o.fail("burst_length", fmt::format("must be a multiple of the {} transfers per tCK of {}",
                                       transfers_per_clock(s), to_string(s)));
  }
  if (org.columns % org.burst_length != 0) {
    o.fail("columns", fmt::format("must be a multiple of burst_length ({})", org.burst_length));
  }
  // A channel's bytes must fit the 64-bit addresses (and capacity_bytes()); a real one holds at
  // most tens of GiB, so 2^48 B is a bound only a typo reaches.
  const double channel_bytes = static_cast<double>(org.ranks) * org.bank_groups *
                               org.banks_per_group * org.rows * org.columns *
                               org.channel_width_bits / 8.0;
  if (channel_bytes > 0x1p48) {
    o.fail_among(
        {"rows", "columns", "ranks", "bank_groups", "banks_per_group", "channel_width_bits"},
        fmt::format("ranks x bank_groups x banks_per_group x rows x columns x "
                    "channel_width_bits / 8 = {:.3g} B in one channel; expected at most "
                    "2^48 B (256 TiB)",
                    channel_bytes));
  }
  org.pseudo_channels = static_cast<unsigned>(o.get_uint("pseudo_channels", 1, 1, 2));
  if (s == Standard::kHBM3 && org.pseudo_channels != 2) {
    o.fail("pseudo_channels", "an HBM3 channel has 2 pseudo-channels (JESD238)");
  }
  if (s != Standard::kHBM3 && org.pseudo_channels != 1) {
    o.fail("pseudo_channels", fmt::format("{} has no pseudo-channels; expected 1", to_string(s)));
  }
  org.data_rate_mtps = o.get_double("data_rate_mtps", std::nullopt, 0, 100000, true);
  const double density = o.get_double("device_density_gbit", -1.0, 0, 1024, true);
  if (density > 0) {
    const double bits =
        static_cast<double>(org.banks()) * org.rows * org.columns * org.device_width_bits;
    const double gbit = bits / static_cast<double>(1ULL << 30);
    if (std::fabs(gbit - density) > 1e-9 * density) {
      // A rule across keys: a --set of rows (say) is named, not the preset's density line.
      o.fail_among({"device_density_gbit", "rows", "columns", "bank_groups", "banks_per_group",
                    "device_width_bits"},
                   fmt::format("banks x rows x columns x device_width_bits = {} Gbit, not the "
                               "device_density_gbit of {}",
                               gbit, density));
    }
  }
}

// Reads the timing keys <name>_ck and <name>_ns of one parameter.
class TimingReader {
 public:
  TimingReader(ConfigNode& t, Standard s, std::uint64_t tck_ps) : t_(t), s_(s), tck_(tck_ps) {}

  // max(<name>_ck, <name>_ns converted with the JEDEC rounding); nullopt when neither is given.
  std::optional<unsigned> minimum(const std::string& name) { return read(name, false); }
  // An average maximum interval (tREFI): one of the two keys, rounded down.
  std::optional<unsigned> interval(const std::string& name) { return read(name, true); }

  unsigned required(const std::string& name, bool is_interval = false) {
    const auto v = read(name, is_interval);
    if (!v) {
      t_.fail(name + "_ns", fmt::format("missing; expected {}_ns and/or {}_ck", name, name));
    }
    return *v;
  }
  // The key a parameter was given by, for error messages.
  std::string key_of(const std::string& name) const {
    return t_.has(name + "_ns") ? name + "_ns" : name + "_ck";
  }

 private:
  std::optional<unsigned> read(const std::string& name, bool is_interval) {
    const std::string kck = name + "_ck", kns = name + "_ns";
    // Neither key has a default of its own: only the ones given count.
    const std::optional<std::uint64_t> ck = t_.find_uint(kck, 0, 1'000'000);
    const std::optional<double> ns = t_.find_double(kns, 0.0, 10'000'000.0);
    if (!ck && !ns) return std::nullopt;
    if (is_interval) {
      if (ck && ns) t_.fail(kns, fmt::format("give {} or {}, not both", kns, kck));
      return static_cast<unsigned>(ck ? *ck : interval_to_clocks(*ns, tck_));
    }
    std::uint64_t v = ck.value_or(0);
    if (ns) v = std::max(v, ns_to_clocks(s_, *ns, tck_));
    return static_cast<unsigned>(v);
  }

  ConfigNode& t_;
  Standard s_;
  std::uint64_t tck_;
};

// `ranks_at`: where organization.ranks is set, for the error that asks for tRTRS.
void read_timing(ConfigNode& t, Standard s, const Organization& org, const std::string& ranks_at,
                 Timing& tm) {
  const std::uint64_t tck = t.get_uint("tCK_ps", std::nullopt, 100, 100000);
  const double rate = transfers_per_clock(s) * 1e6 / static_cast<double>(tck);
  if (std::fabs(rate - org.data_rate_mtps) > 0.005 * org.data_rate_mtps) {
    t.fail("tCK_ps",
           fmt::format("{} ps at {} transfers per tCK ({}) gives {:.1f} MT/s, but "
                       "organization.data_rate_mtps is {}",
                       tck, transfers_per_clock(s), to_string(s), rate, org.data_rate_mtps));
  }
  tm = Timing{};
  tm.tck_ps = static_cast<double>(tck);
  tm.burst =
      static_cast<unsigned>(t.get_uint("tBL_ck", org.burst_length / transfers_per_clock(s), 1, 64));

  TimingReader r(t, s, tck);
  tm.CL = r.required("CL");
  tm.CWL = r.required("CWL");
  tm.RCD_RD = r.required("tRCD");
  tm.RCD_WR = r.minimum("tRCDWR").value_or(tm.RCD_RD);
  tm.RP = r.required("tRP");
  tm.RAS = r.required("tRAS");
  tm.RC = r.minimum("tRC").value_or(tm.RAS + tm.RP);
  tm.RTP = r.required("tRTP");
  tm.WR = r.required("tWR");
  tm.CCD_S = r.required("tCCD_S");
  tm.CCD_L = r.required("tCCD_L");
  tm.CCD_L_WR = r.minimum("tCCD_L_WR").value_or(tm.CCD_L);
  tm.RRD_S = r.required("tRRD_S");
  tm.RRD_L = r.required("tRRD_L");
  tm.FAW = r.required("tFAW");
  tm.WTR_S = r.required("tWTR_S");
  tm.WTR_L = r.required("tWTR_L");
  const auto rtw = r.minimum("tRTW");
  const auto rtrs = r.minimum("tRTRS");
  tm.PPD = r.minimum("tPPD").value_or(0);
  tm.REFI = r.required("tREFI", true);
  tm.RFC = r.required("tRFC");
  // DDR5's bank refresh is REFsb, with parameters of its own names (see Timing).
  tm.same_bank_refresh = s == Standard::kDDR5;
  const char* const refi_key = tm.same_bank_refresh ? "tREFIsb" : "tREFIpb";
  const char* const rfc_key = tm.same_bank_refresh ? "tRFCsb" : "tRFCpb";
  const auto refi_pb = r.interval(refi_key);
  const auto rfc_pb = r.minimum(rfc_key);
  tm.RREFD = r.minimum(tm.same_bank_refresh ? "tREFSBRD" : "tRREFD").value_or(0);
  tm.PBR2PBR = tm.same_bank_refresh ? tm.RREFD : r.minimum("tPBR2PBR").value_or(tm.RREFD);
  tm.refresh_postpone_max =
      static_cast<unsigned>(t.get_uint("refresh_postpone_max", std::nullopt, 0, 64));

  // Checks, each naming the key that is wrong.
  const struct {
    const char* name;
    unsigned value;
  } nonzero[] = {{"CL", tm.CL},        {"CWL", tm.CWL},      {"tRCD", tm.RCD_RD},
                 {"tRP", tm.RP},       {"tRAS", tm.RAS},     {"tCCD_S", tm.CCD_S},
                 {"tCCD_L", tm.CCD_L}, {"tRRD_S", tm.RRD_S}, {"tRRD_L", tm.RRD_L},
                 {"tFAW", tm.FAW},     {"tREFI", tm.REFI},   {"tRFC", tm.RFC}};
  for (const auto& p : nonzero) {
    if (p.value == 0) t.fail(r.key_of(p.name), "must be at least one clock");
  }
  // A rule between two parameters names the one a --set changed, if any (either spelling).
  auto fail_pair = [&](const char* a, const char* b, const std::string& what) {
    t.fail_among({r.key_of(a), std::string(a) + "_ns", std::string(a) + "_ck", r.key_of(b),
                  std::string(b) + "_ns", std::string(b) + "_ck"},
                 what);
  };
  auto at_least = [&](const char* a, unsigned va, const char* b, unsigned vb) {
    if (va < vb)
      fail_pair(a, b, fmt::format("{} ({} clocks) must be at least {} ({} clocks)", a, va, b, vb));
  };
  at_least("tRC", tm.RC, "tRAS", tm.RAS);
  // A row is open at least until a column command may reach it: a tRAS below tRCD would let a
  // bank close before it could be read or written (JESD79-4, JESD79-5: tRAS is well above tRCD).
  at_least("tRAS", tm.RAS, "tRCD", tm.RCD_RD);
  at_least("tRAS", tm.RAS, "tRCDWR", tm.RCD_WR);
  if (tm.CCD_S < tm.burst) {
    t.fail(r.key_of("tCCD_S"),
           fmt::format("{} clocks is shorter than one burst (tBL = {})", tm.CCD_S, tm.burst));
  }
  at_least("tCCD_L", tm.CCD_L, "tCCD_S", tm.CCD_S);
  at_least("tRRD_L", tm.RRD_L, "tRRD_S", tm.RRD_S);
  at_least("tWTR_L", tm.WTR_L, "tWTR_S", tm.WTR_S);
  if (tm.REFI <= tm.RFC) {
    fail_pair(
        "tREFI", "tRFC",
        fmt::format("tREFI ({} clocks) must be longer than tRFC ({} clocks)", tm.REFI, tm.RFC));
  }
  if (rtw) {
    tm.RTW = *rtw;
  } else {
    const long v = rtw_rule(s, tm);
    if (v < 1) t.fail(r.key_of("CWL"), "the derived read-to-write turnaround is below one clock");
    tm.RTW = static_cast<unsigned>(v);
  }
  if (!rtrs && org.ranks > 1) {
    t.fail("tRTRS_ck", fmt::format("missing; required with more than one rank (the rank-to-rank "
                                   "data-bus switch), and {} sets {} ranks",
                                   ranks_at, org.ranks));
  }
  tm.RTRS = rtrs.value_or(0);
  if (refi_pb.has_value() != rfc_pb.has_value()) {
    t.fail(refi_pb ? std::string(rfc_key) + "_ns" : r.key_of(refi_key),
           fmt::format("bank refresh needs both {} and {}", refi_key, rfc_key));
  }
  if (refi_pb) {
    if (*refi_pb == 0 || *refi_pb >= tm.REFI) {
      t.fail(r.key_of(refi_key), "must be at least one clock and shorter than tREFI");
    }
    if (*rfc_pb == 0) t.fail(r.key_of(rfc_key), "must be at least one clock");
    tm.REFIpb = *refi_pb;
    tm.RFCpb = *rfc_pb;
  }
}

void read_currents(ConfigNode& e, Currents& c) {
  auto req = [&](const char* key) { return e.get_double(key, std::nullopt, 0, 100000); };
  auto opt = [&](const char* key) { return e.get_double(key, 0.0, 0, 100000); };
  c.vdd_v = e.get_double("vdd_v", std::nullopt, 0, 5, true);
  c.idd0_ma = req("idd0_ma");
  c.idd2n_ma = req("idd2n_ma");
  c.idd3n_ma = req("idd3n_ma");
  c.idd4r_ma = req("idd4r_ma");
  c.idd4w_ma = req("idd4w_ma");
  c.idd5b_ma = req("idd5b_ma");
  c.idd5pb_ma = opt("idd5pb_ma");
  c.vpp_v = e.get_double("vpp_v", 0.0, 0, 5);
  c.ipp0_ma = opt("ipp0_ma");
  c.ipp2n_ma = opt("ipp2n_ma");
  c.ipp3n_ma = opt("ipp3n_ma");
  c.ipp4r_ma = opt("ipp4r_ma");
  c.ipp4w_ma = opt("ipp4w_ma");
  c.ipp5b_ma = opt("ipp5b_ma");
  c.ipp5pb_ma = opt("ipp5pb_ma");
}

// Fails on the current that makes an energy negative (a current below its standby baseline).
void check_currents(const ConfigNode& e, const Currents& c, const Timing& t) {
  const struct {
    Domain d;
    const char* prefix;  // key prefix, "idd" or "ipp"
    const char* name;    // current name in messages, "IDD" or "IPP"
  } domains[] = {{vdd_domain(c), "idd", "IDD"}, {vpp_domain(c), "ipp", "IPP"}};
  for (const auto& [d, p, n] : domains) {
    if (d.v <= 0) continue;
    const Energy x = domain_energy(d, t);
    const std::string pre = p;
    if (x.act_pre_pj < 0) {
      e.fail(pre + "0_ma", fmt::format("{0}0 x tRC is below {0}3N x tRAS + {0}2N x (tRC - tRAS): "
                                       "the ACT+PRE energy would be negative",
                                       n));
    }
    if (x.read_pj < 0) e.fail(pre + "4r_ma", "is below " + pre + "3n_ma");
    if (x.write_pj < 0) e.fail(pre + "4w_ma", "is below " + pre + "3n_ma");
    if (x.refresh_ab_pj < 0) e.fail(pre + "5b_ma", "is below " + pre + "3n_ma");
    if (x.refresh_pb_pj < 0) e.fail(pre + "5pb_ma", "is below " + pre + "3n_ma");
  }
}

}  // namespace

Energy compute_energy(const Currents& c, const Organization& org, const Timing& t) {
  const Energy a = domain_energy(vdd_domain(c), t);
  const Energy b = domain_energy(vpp_domain(c), t);
  const double n = org.devices_per_rank();
  Energy e;
  e.act_pre_pj = n * (a.act_pre_pj + b.act_pre_pj);
  e.read_pj = n * (a.read_pj + b.read_pj);
  e.write_pj = n * (a.write_pj + b.write_pj);
  e.refresh_ab_pj = n * (a.refresh_ab_pj + b.refresh_ab_pj);
  e.refresh_pb_pj = n * (a.refresh_pb_pj + b.refresh_pb_pj);
  e.background_active_mw = n * (a.background_active_mw + b.background_active_mw);
  e.background_precharged_mw = n * (a.background_precharged_mw + b.background_precharged_mw);
  return e;
}

Spec load_spec(ConfigNode& node, const std::string& name) {
  Spec spec;
  spec.name = name;
  const std::string standard =
      node.get_choice("standard", std::nullopt, {"DDR4", "DDR5", "LPDDR5X", "HBM3"});
  spec.standard = *parse_standard(standard);

  ConfigNode o = node.child("organization", true);
  read_organization(o, spec.standard, spec.org);
  o.finish();

  ConfigNode t = node.child("timing", true);
  read_timing(t, spec.standard, spec.org, o.location("ranks"), spec.timing);
  t.finish();

  ConfigNode e = node.child("energy", true);
  read_currents(e, spec.currents);
  e.finish();
  check_currents(e, spec.currents, spec.timing);
  spec.energy = compute_energy(spec.currents, spec.org, spec.timing);
  return spec;
}

std::vector<std::string> spec_preset_names() { return preset_names("memory"); }

std::vector<SpecFigure> spec_figures(const Spec& s) {
  const Organization& o = s.org;
  const Timing& t = s.timing;
  const bool sb = t.same_bank_refresh;
  std::vector<SpecFigure> f = {
      {"organization.ranks", o.ranks},
      {"organization.bank_groups", o.bank_groups},
      {"organization.banks_per_group", o.banks_per_group},
      {"organization.rows", o.rows},
      {"organization.columns", o.columns},
      {"organization.data_rate_mtps", o.data_rate_mtps},
      {"timing.tCK_ps", static_cast<double>(std::llround(t.tck_ps))},
      {"timing.tBL_ck", t.burst},
      {"timing.CL_ck", t.CL},
      {"timing.CWL_ck", t.CWL},
      {"timing.tRCD_ck", t.RCD_RD},
      {"timing.tRCDWR_ck", t.RCD_WR},
      {"timing.tRP_ck", t.RP},
      {"timing.tRAS_ck", t.RAS},
      {"timing.tRC_ck", t.RC},
      {"timing.tRTP_ck", t.RTP},
      {"timing.tWR_ck", t.WR},
      {"timing.tCCD_S_ck", t.CCD_S},
      {"timing.tCCD_L_ck", t.CCD_L},
      {"timing.tCCD_L_WR_ck", t.CCD_L_WR},
      {"timing.tRRD_S_ck", t.RRD_S},
      {"timing.tRRD_L_ck", t.RRD_L},
      {"timing.tFAW_ck", t.FAW},
      {"timing.tWTR_S_ck", t.WTR_S},
      {"timing.tWTR_L_ck", t.WTR_L},
      {"timing.tRTW_ck", t.RTW},
      {"timing.tRTRS_ck", t.RTRS},
      {"timing.tPPD_ck", t.PPD},
      {"timing.tREFI_ck", t.REFI},
      {"timing.tRFC_ck", t.RFC},
  };
  if (t.REFIpb > 0) {
    f.push_back({sb ? "timing.tREFIsb_ck" : "timing.tREFIpb_ck", t.REFIpb});
    f.push_back({sb ? "timing.tRFCsb_ck" : "timing.tRFCpb_ck", t.RFCpb});
  }
  f.push_back({sb ? "timing.tREFSBRD_ck" : "timing.tRREFD_ck", t.RREFD});
  if (!sb) f.push_back({"timing.tPBR2PBR_ck", t.PBR2PBR});
  f.push_back({"timing.refresh_postpone_max", t.refresh_postpone_max});
  return f;
}

std::string spec_line(const Spec& s) {
  std::string line = kSpecLinePrefix;
  for (const SpecFigure& f : spec_figures(s)) {
    if (line.size() > std::strlen(kSpecLinePrefix)) line += ' ';
    line += fmt::format("{}={:g}", f.key, f.value);
  }
  return line;
}

Spec load_spec_preset(const std::string& preset_name) {
  const std::string path = "platforms/presets/memory/" + preset_name + ".yaml";
  const auto text = embedded_file(path);
  if (!text) {
    std::string known;
    for (const auto& n : spec_preset_names()) known += (known.empty() ? "" : ", ") + n;
    throw ConfigError(fmt::format("no DRAM preset named '{}' (known: {})", preset_name, known));
  }
  ConfigNode root(load_yaml_text(*text, path), "", std::make_shared<ConfigSources>(path));
  // A memory preset may also carry platform-level defaults (stacks, interleave, controller):
  // only the DRAM description is read here.
  return load_spec(root, preset_name);
}

}  // namespace famsim::dram
