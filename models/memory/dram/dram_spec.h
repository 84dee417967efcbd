// DRAM standard description: organisation, timing (in clocks of the command clock tCK) and
// energy of one modelled channel. One memory controller drives one modelled channel: a DDR4
// channel, a DDR5 32-bit sub-channel, an LPDDR5X 16-bit channel or an HBM3 32-bit
// pseudo-channel. No SystemC in it: the controller, the timing checker and the tests share it.
//
// Presets live in platforms/presets/memory/NAME.yaml; each value there is written in ns or in
// clocks exactly as the standard gives it and converted to clocks once, by load_spec().
#pragma once

#include <cstdint>
#include <string>

namespace famsim::dram {

enum class Standard { kDDR4, kDDR5, kLPDDR5X, kHBM3 };
const char* to_string(Standard s);

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
  // Bytes of one row across the rank (all devices in lock step): the page size the controller
  // sees.
  std::uint64_t row_bytes() const {
    return static_cast<std::uint64_t>(columns) * channel_width_bits / 8;
  }
  std::uint64_t capacity_bytes() const {
    return static_cast<std::uint64_t>(ranks) * banks() * rows * row_bytes();
  }
  // Peak data bandwidth of the modelled channel, GB/s (1e9 B/s).
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
  unsigned refresh_postpone_max = 8;  // refresh commands that may be postponed (and pulled in)

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

struct Spec {
  std::string name;  // preset name, e.g. "ddr4_3200"
  Standard standard = Standard::kDDR4;
  Organization org;
  Timing timing;
  Energy energy;
};

}  // namespace famsim::dram
