// DRAM standard description: organisation, timing (in clocks of the command clock tCK) and
// energy of one modelled channel. One memory controller drives one modelled channel: a DDR4
// channel, a DDR5 32-bit sub-channel, an LPDDR5X 16-bit channel or an HBM3 32-bit
// pseudo-channel. No SystemC in it: the controller, the timing checker and the tests share it.
//
// Presets live in platforms/presets/memory/NAME.yaml; each value there is written in ns or in
// clocks exactly as the standard gives it and converted to clocks once, by load_spec() (the YAML
// schema is described above load_spec() below).
#pragma once

#include "models/memory/dram/dram_command.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace famsim {
class ConfigNode;
}

namespace famsim::dram {

enum class Standard { kDDR4, kDDR5, kLPDDR5X, kHBM3 };
const char* to_string(Standard s);
// "DDR4" | "DDR5" | "LPDDR5X" | "HBM3"; nullopt otherwise.
std::optional<Standard> parse_standard(const std::string& s);

// Data transfers per pin in one tCK of the command clock:
//   DDR4, DDR5: 2 (data on both edges of CK; JESD79-4, JESD79-5)
//   HBM3:       4 (JESD238: fCK = data rate / 4, e.g. 1.6 GHz CK at 6.4 Gb/s; data strobed on
//                  both edges of WDQS/RDQS at twice CK)
//   LPDDR5X:    8 (JESD209-5B with WCK:CK = 4:1, data on both edges of WCK)
unsigned transfers_per_clock(Standard s);

// Clocks of the command/address bus one command occupies: no other command may start on the bus
// until they have passed (the timing rules still count from the command's first clock).
//   DDR5: ACT, RD, RDA, WR, WRA take 2 (JESD79-5 section 4.1, Command Truth Table: ACT, RD, WR,
//         WRP, MRW and MRR are "2-cycle commands", sent over two CA clocks, CS_n low in the
//         first; PREpb/PREsb/PREab, REFab/REFsb, RFM, SRE and PDE are 1-cycle, and CA1 tells the
//         two kinds apart); every other command 1.
//   DDR4: 1 for every command (JESD79-4 command truth table: one clock, with 1N timing).
//   LPDDR5X, HBM3: 1 here, which is optimistic. LPDDR5's ACT goes as ACT-1 and ACT-2 and a
//         column command may need a CAS command before it (JESD209-5), and HBM3 has separate row
//         and column command buses (JESD238); famsim models neither (README, DRAM, "Not
//         modelled").
unsigned command_bus_clocks(Standard s, Command c);

struct Organization {
  unsigned ranks = 1;
  unsigned bank_groups = 4;  // 1 where the standard (or mode) has no bank groups
  unsigned banks_per_group = 4;
  std::uint32_t rows = 65536;        // per bank
  std::uint32_t columns = 1024;      // per row, each column = device_width_bits of each device
  unsigned device_width_bits = 8;    // DQ width of one DRAM device (x4, x8, x16, ...)
  unsigned channel_width_bits = 64;  // data bus of the modelled channel
  unsigned burst_length = 8;         // beats (columns) per read/write command
  unsigned pseudo_channels = 1;      // HBM3: 2 per 64-bit channel; the log records which one
  double data_rate_mtps = 3200;      // transfers per second per pin, millions

  unsigned banks() const { return bank_groups * banks_per_group; }  // per rank
  unsigned devices_per_rank() const { return channel_width_bits / device_width_bits; }
  std::uint64_t burst_bytes() const {
    return static_cast<std::uint64_t>(channel_width_bits) / 8 * burst_length;
  }
  // The most bursts a request of `bytes` (at least 1) spans from any offset: ceil((bytes - 1) /
  // B) + 1 for bursts of B bytes, bytes / B + 1 when B divides it (the controller's queues count
  // bursts; a foreign initiator's request through a TlmBridge need be neither a multiple of B nor
  // aligned: 100 B from offset 100 spans 3 bursts of 64 B).
  std::uint64_t max_bursts_spanned(std::uint64_t bytes) const {
    const std::uint64_t b = burst_bytes();
    return (std::max<std::uint64_t>(bytes, 1) - 1 + b - 1) / b + 1;
  }
  // Bytes of one row across the rank (all devices in lock step): the page size the controller
  // sees.
  std::uint64_t row_bytes() const {
    return static_cast<std::uint64_t>(columns) * channel_width_bits / 8;
  }
  std::uint64_t capacity_bytes() const {
    return static_cast<std::uint64_t>(ranks) * banks() * rows * row_bytes();
  }
  // Nominal peak data bandwidth of the channel, GB/s (1e9 B/s): the data rate the standard names
  // (DDR5-4800: 19.2 GB/s per 32-bit sub-channel), as datasheets publish it. The modelled bus runs
  // at tCK and reports Spec::bus_peak_gbps.
  double peak_gbps() const { return data_rate_mtps * channel_width_bits / 8.0 / 1000.0; }
};

// Every constraint in clocks of tCK (the command clock). Names follow the JEDEC parameter names;
// RCD is split into read and write for HBM3 (tRCDRD / tRCDWR) and equal elsewhere.
struct Timing {
  double tck_ps = 625;    // command clock period
  unsigned burst = 4;     // tBL: data-bus clocks one burst occupies (BL / transfers per tCK)
  unsigned CL = 22;       // read latency: RD to first data
  unsigned CWL = 16;      // write latency: WR to first data
  unsigned RCD_RD = 22;   // ACT to RD, same bank
  unsigned RCD_WR = 22;   // ACT to WR, same bank
  unsigned RP = 22;       // PRE to ACT, same bank
  unsigned RAS = 52;      // ACT to PRE, same bank
  unsigned RC = 74;       // ACT to ACT, same bank
  unsigned RTP = 12;      // RD to PRE, same bank
  unsigned WR = 24;       // write recovery: end of write data to PRE, same bank
  unsigned CCD_S = 4;     // column to column, different bank group (same rank)
  unsigned CCD_L = 8;     // column to column, same bank group
  unsigned CCD_L_WR = 8;  // WR to WR, same bank group (DDR5 tCCD_L_WR; = CCD_L elsewhere)
  unsigned RRD_S = 4;     // ACT to ACT, different bank group (same rank)
  unsigned RRD_L = 8;     // ACT to ACT, same bank group
  unsigned FAW = 34;      // window holding at most four ACTs (same rank)
  unsigned WTR_S = 4;     // end of write data to RD, different bank group
  unsigned WTR_L = 12;    // end of write data to RD, same bank group
  unsigned RTW = 8;       // RD to WR, any bank of the rank (bus turnaround; derived, see preset)
  unsigned RTRS = 2;      // rank to rank switch: gap between data bursts of different ranks
  unsigned PPD = 0;       // PRE to PRE, same rank (LPDDR5X, HBM3); 0 = no constraint
  unsigned REFI = 12480;  // average all-bank refresh interval
  unsigned RFC = 560;     // all-bank refresh cycle time
  unsigned REFIpb = 0;    // average per-bank refresh interval; 0 = no per-bank refresh
  unsigned RFCpb = 0;     // per-bank refresh cycle time
  unsigned RREFD = 0;     // per-bank REF to ACT or REF in another bank, same rank
  unsigned PBR2PBR = 0;   // per-bank REF to per-bank REF in another bank, same rank, where the
                          // standard separates it from RREFD (LPDDR5X tpbR2pbR); the loader sets
                          // it to RREFD otherwise
  unsigned refresh_postpone_max = 8;  // refresh commands that may be postponed (and pulled in)
  // DDR5 has no single-bank refresh: its same-bank refresh REFsb refreshes one bank index in
  // every bank group at once (JESD79-5 "Same Bank Refresh"). When true, the per-bank refresh
  // values above are REFsb's: REFIpb = tREFIsb (between REFsb commands of a rank), RFCpb =
  // tRFCsb, RREFD = PBR2PBR = tREFSBRD.
  bool same_bank_refresh = false;

  // Derived: WR to PRE same bank = CWL + burst + WR; WR to RD = CWL + burst + WTR_x.
  unsigned write_to_precharge() const { return CWL + burst + WR; }
  unsigned write_to_read_s() const { return CWL + burst + WTR_S; }
  unsigned write_to_read_l() const { return CWL + burst + WTR_L; }
  double tck_ns() const { return tck_ps / 1000.0; }
};

// Energy per command and background power of one modelled channel (all devices of a rank
// together), used for the energy estimate. Sources in the preset files.
struct Energy {
  double act_pre_pj = 0;                // one ACT + its PRE
  double read_pj = 0;                   // one read burst
  double write_pj = 0;                  // one write burst
  double refresh_ab_pj = 0;             // one all-bank refresh
  double refresh_pb_pj = 0;             // one per-bank refresh
  double background_active_mw = 0;      // per rank, some bank open
  double background_precharged_mw = 0;  // per rank, all banks closed
};

// The datasheet currents the Energy above is computed from, per DRAM device (one die; for HBM3 one
// pseudo-channel). Two supply domains: vdd_* (VDD, or VDD2H for LPDDR5X) and vpp_* (VPP for
// DDR4/DDR5/HBM3, VDD1 for LPDDR5X); a domain with zero voltage contributes nothing.
struct Currents {
  double vdd_v = 0;
  double idd0_ma = 0;    // one bank ACT-PRE loop at tRC
  double idd2n_ma = 0;   // precharge standby
  double idd3n_ma = 0;   // active standby
  double idd4r_ma = 0;   // burst read, data bus busy
  double idd4w_ma = 0;   // burst write, data bus busy
  double idd5b_ma = 0;   // burst all-bank refresh, REF every tRFC
  double idd5pb_ma = 0;  // burst per-bank refresh, REFpb every tRFCpb; 0 = derive (see load_spec)
  double vpp_v = 0;
  double ipp0_ma = 0, ipp2n_ma = 0, ipp3n_ma = 0, ipp4r_ma = 0, ipp4w_ma = 0, ipp5b_ma = 0,
         ipp5pb_ma = 0;
};

struct Spec {
  std::string name;  // preset name, e.g. "ddr4_3200"
  Standard standard = Standard::kDDR4;
  Organization org;
  Timing timing;
  Energy energy;
  Currents currents;  // the inputs `energy` was computed from

  // Clocks `c` holds the command bus on this standard (command_bus_clocks()).
  unsigned command_clocks(Command c) const { return command_bus_clocks(standard, c); }

  // The refresh units per-bank refresh rotates over in a rank: every bank (REFpb), or every bank
  // index of a group (DDR5 REFsb, each covering that index in all groups).
  unsigned bank_refresh_units() const {
    return timing.same_bank_refresh ? org.banks_per_group : org.banks();
  }
  // The data bus's peak as modelled, GB/s: transfers_per_clock() per tCK, which the configuration
  // reader lets differ from org.data_rate_mtps by up to 0.5 % (DDR5-4800's tCK of 416 ps is
  // 4807.7 MT/s). The bus runs at tCK, so a channel's bandwidth and efficiency are against this.
  double bus_peak_gbps() const {
    return transfers_per_clock(standard) * 1e6 / timing.tck_ps * org.channel_width_bits / 8.0 /
           1000.0;
  }
};

// JEDEC conversion of a minimum timing parameter in ns to clocks of tck_ps (whole picoseconds):
//   DDR4, LPDDR5X, HBM3: nCK = truncate((truncate(t_ps * 1000 / tCK_ps) + 974) / 1000)
//     (the JESD79-4 / DDR4 SPD rounding algorithm, a 2.5 % guard band; Ramulator 2 applies the same
//     one to LPDDR5 and HBM3, whose standards state no algorithm of their own [assumption])
//   DDR5: nCK = truncate((truncate(t_ps * 997 / tCK_ps) + 1000) / 1000)
//     (the JESD79-5 rounding algorithm, a 0.3 % guard band)
// t_ns is taken to the nearest picosecond first.
std::uint64_t ns_to_clocks(Standard s, double t_ns, std::uint64_t tck_ps);
// An average maximum interval (tREFI, tREFIpb) in clocks: rounded down, so that a controller
// issuing one refresh per interval never falls behind the standard.
std::uint64_t interval_to_clocks(double t_ns, std::uint64_t tck_ps);

// Energy per command and background power of one modelled channel from per-device currents
// (formulas in dram_spec.cpp), for all devices of a rank (org.devices_per_rank()).
Energy compute_energy(const Currents& c, const Organization& org, const Timing& t);

// Reads a DRAM description from `node`: exactly the keys `standard`, `organization`, `timing` and
// `energy` (each child is finished, so an unknown key below them is an error; `node` itself is not
// finished: the caller's node may hold other keys, such as controller settings). `name` is stored
// in Spec::name. Every error is a ConfigError naming the file, line and key path.
//
// Schema (units in the key names; "t" + JEDEC name; every timing may be given as <key>_ns, as
// <key>_ck or as both, which means JEDEC's max(n nCK, t ns)):
//   standard: DDR4 | DDR5 | LPDDR5X | HBM3                                          (required)
//   organization:
//     ranks, bank_groups, banks_per_group                  counts                   (required)
//     rows, columns                                        per bank / per row       (required)
//     device_width_bits, channel_width_bits, burst_length                           (required)
//     pseudo_channels     HBM3: pseudo-channels per channel (2); others: 1          (default 1)
//     data_rate_mtps      MT/s per pin; must match tCK_ps (within 0.5 %)            (required)
//     device_density_gbit optional cross-check of rows x columns x banks x width
//   timing:
//     tCK_ps              command clock period, whole ps                            (required)
//     CL, CWL, tRCD, tRP, tRAS, tRTP, tWR, tCCD_S, tCCD_L, tRRD_S, tRRD_L, tFAW,
//     tWTR_S, tWTR_L, tREFI, tRFC                                                   (required)
//     tRC                 default tRAS + tRP (in clocks)
//     tBL_ck              default burst_length / transfers_per_clock(standard)
//     tRCDWR              default tRCD (HBM3 has a separate ACT-to-WR delay)
//     tCCD_L_WR           default tCCD_L (DDR5 has a separate WR-to-WR, same bank group)
//     tRTW                default the standard's rule (rtw_rule() in dram_spec.cpp)
//     tRTRS               rank-to-rank data-bus gap; required when ranks > 1, else default 0
//     tPPD, tRREFD        default 0 (no constraint)
//     tPBR2PBR            default tRREFD
//     tREFIpb, tRFCpb     default 0 (no per-bank refresh); both or neither
//     tREFIsb, tRFCsb, tREFSBRD   DDR5 only, instead of the three above: same-bank refresh
//                         (REFsb); tREFIsb and tRFCsb both or neither, tREFSBRD default 0
//     refresh_postpone_max   refresh commands that may be postponed                 (required)
//   energy: (per device; mA and V)
//     vdd_v, idd0_ma, idd2n_ma, idd3n_ma, idd4r_ma, idd4w_ma, idd5b_ma              (required)
//     idd5pb_ma, vpp_v, ipp0_ma, ipp2n_ma, ipp3n_ma, ipp4r_ma, ipp4w_ma, ipp5b_ma,
//     ipp5pb_ma                                                                     (default 0)
Spec load_spec(ConfigNode& node, const std::string& name);

// Loads the embedded preset platforms/presets/memory/NAME.yaml (every key of the file must be
// read). Throws ConfigError for an unknown name, listing the known ones.
Spec load_spec_preset(const std::string& preset_name);
std::vector<std::string> spec_preset_names();

// What the DRAM timing rules of a channel rest on, each value under the configuration key that
// sets it, timings in clocks: organization.ranks, .bank_groups, .banks_per_group, .rows,
// .columns, .data_rate_mtps (which tCK_ps must match), timing.tCK_ps, timing.tBL_ck, timing.CL_ck,
// ... timing.refresh_postpone_max (DDR5's same-bank refresh under its own names, tREFIsb_ck,
// tRFCsb_ck, tREFSBRD_ck). A DRAM command log carries them in its second line (spec_line()), so
// that a log made with overridden timings checks against them, and `--set KEY=VALUE` of each
// restores them.
struct SpecFigure {
  template <class T>
  SpecFigure(std::string k, T v) : key(std::move(k)), value(static_cast<double>(v)) {}
  std::string key;
  double value = 0;  // whole but for organization.data_rate_mtps
};
std::vector<SpecFigure> spec_figures(const Spec& s);
// "# spec: organization.ranks=2 ... timing.refresh_postpone_max=4"
std::string spec_line(const Spec& s);
inline constexpr const char* kSpecLinePrefix = "# spec: ";

}  // namespace famsim::dram
