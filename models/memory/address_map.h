// Address interleaving across memory channels: one pure component shared by the device port logic
// and the GPU's local memory (and, with the DRAM issue, by the memory controller's rank/bank/row
// mapping). No SystemC in it.
//
// An offset into the memory's range is cut into granules of `granule_bytes`. Granule g goes to a
// channel chosen by
//   modulo: g mod channels                         (any channel count)
//   xor:    (g mod C) xor every further base-C digit of g  (C a power of two; spreads strides
//           that are multiples of C granules, which modulo sends all to one channel)
// and sits at channel address (g div channels) * granule + offset mod granule, so each channel's
// addresses are dense and the mapping is a bijection (encode() inverts decode()).
//   bits:   an explicit list of offset bit positions b0, b1, ... b(k-1) (2^k channels): channel
//           bit i is offset bit b(i), and the channel address is the offset with those bits
//           taken out (the bits above each close the gap), again dense and a bijection. The
//           interleave granule is 2^min(b): the bytes below the lowest channel bit.
#pragma once

#include "models/core/clock.h"

#include <cstdint>
#include <string>
#include <vector>

namespace famsim {

class AddressMap {
 public:
  enum class Select { kModulo, kXor, kBits };
  struct Decoded {
    unsigned channel = 0;
    std::uint64_t channel_address = 0;
  };

  AddressMap() = default;
  // Throws std::invalid_argument for a zero or non-power-of-two granule, no channels, or xor with
  // a channel count that is not a power of two.
  AddressMap(unsigned channels, std::uint64_t granule_bytes, Select select);
  // Select::kBits. Throws std::invalid_argument for an empty list, a position above 62 or one
  // given twice, or more than 16 bits.
  explicit AddressMap(const std::vector<unsigned>& channel_bits);

  Decoded decode(std::uint64_t offset) const;
  std::uint64_t encode(unsigned channel, std::uint64_t channel_address) const;

  unsigned channels() const { return channels_; }
  std::uint64_t granule_bytes() const { return granule_; }
  Select select() const { return select_; }

  static Select parse_select(const std::string& s);  // "modulo" | "xor" | "bits"
  const std::vector<unsigned>& channel_bits() const { return bits_; }
  // xor where it is defined (a power-of-two count), modulo otherwise.
  static Select spreading_select(unsigned n) {
    return (n & (n - 1)) == 0 ? Select::kXor : Select::kModulo;
  }

 private:
  unsigned fold(std::uint64_t upper) const;  // xor of the base-C digits of `upper`
  Decoded decode_bits(std::uint64_t offset) const;
  std::uint64_t encode_bits(unsigned channel, std::uint64_t channel_address) const;

  unsigned channels_ = 1;
  std::uint64_t granule_ = 256;
  Select select_ = Select::kModulo;
  unsigned granule_shift_ = 8;
  unsigned channel_bits_ = 0;  // log2(channels) for a power-of-two count, else 0
  FixedDivisor channel_div_{1};
  std::vector<unsigned> bits_;         // kBits: channel bit i is offset bit bits_[i]
  std::vector<unsigned> bits_sorted_;  // the same positions, ascending
};

// How a sequential walk with `in_flight_bytes` outstanding spreads over an interleave of
// `granule_bytes` granules on `channels` channels: it sits inside about in_flight / granule
// consecutive granules, so when a round of the interleave (granule x channels) is more than the
// bytes in flight it keeps only that many channels busy at a time, and the channels take turns
// while their totals over the run come out even. famsim validate warns of it from the
// configuration; the bottleneck analysis names it when a run's channels took turns.
struct InterleaveSpread {
  std::uint64_t round_bytes = 0;  // granule x channels
  // Two channels or more, bytes in flight known (> 0), and a round larger than them.
  bool coarse = false;
  unsigned busy_channels = 0;  // about how many a sequential walk keeps busy at a time (1 or more)
  // The largest granule that spreads the bytes in flight over all the channels: the largest power
  // of two (an interleave granule is one) at most in_flight / channels; at least 1.
  std::uint64_t spreading_granule_bytes = 0;
};
InterleaveSpread interleave_spread(std::uint64_t granule_bytes, unsigned channels,
                                   std::uint64_t in_flight_bytes);

}  // namespace famsim
