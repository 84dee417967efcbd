// Wire efficiency of each link preset, worked out by hand from the flit formats the presets are
// written from (REFERENCE.md; not from the model). Shared by the framing unit test and the
// saturated-link simulation test.
//
// Every preset puts a message header in one 16 B slot and data in 16 B slots, and splits a
// transfer of L bytes into ceil(L / max_payload) messages. A read is a header-only request plus a
// header + data response per message, a write a header + data request plus a header-only
// completion: either way 2 header slots per message plus L / 16 data slots. Saturated, dense
// packing uses every slot, so one slot costs flit_bytes / slots_per_flit on the wire:
//   efficiency(L) = L / ((2 x ceil(L / max_payload) + L / 16) x wire bytes per slot)
#pragma once

#include <cstdint>

namespace famsim::test {

struct PresetFormat {
  const char* name;
  double wire_bytes_per_slot;
  unsigned max_payload_bytes;
};

inline constexpr PresetFormat kPresetFormats[] = {
    // NVLink4/5: 16 B flits, each one 16 B unit (header flit with its CRC, or data flit).
    {"nvlink4", 16.0, 256},
    {"nvlink5", 16.0, 256},
    // UALink 1.0: 640 B DL flit - 12 B DL headers - 4 B CRC = 624 B = 39 slots of 16 B.
    {"ualink1", 640.0 / 39.0, 256},
    // CXL 68 B flit: 2 B protocol id + 4 x 16 B slots + 2 B CRC; 64 B per message.
    {"cxl_gen5_x16", 68.0 / 4.0, 64},
    // CXL 256 B flit: 2 B header + 15 x 16 B slots + 8 B CRC + 6 B FEC; 64 B per message.
    {"cxl_gen6_x16", 256.0 / 15.0, 64},
};

inline double hand_efficiency(const PresetFormat& f, unsigned bytes) {
  const unsigned messages = (bytes + f.max_payload_bytes - 1) / f.max_payload_bytes;
  const double slots = 2.0 * messages + bytes / 16.0;
  return bytes / (slots * f.wire_bytes_per_slot);
}

// The same numbers written out, for the reader (and checked against the formula):
//   nvlink4/5     64 B: 64 / (6 x 16) = 0.6667   128 B: 128 / (10 x 16) = 0.8
//                 256 B: 256 / (18 x 16) = 0.8889
//   ualink1       64 B: 64 x 39 / (6 x 640) = 0.65   128 B: 128 x 39 / (10 x 640) = 0.78
//                 256 B: 256 x 39 / (18 x 640) = 0.8667
//   cxl_gen5_x16  every size: 64 / (6 x 17) = 0.6275 (a 128 B read = 2 MemRd + 2 DRS)
//   cxl_gen6_x16  every size: 64 x 15 / (6 x 256) = 0.625

}  // namespace famsim::test
