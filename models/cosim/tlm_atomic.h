// TlmAtomic: the extension a foreign initiator sets on a generic payload to ask famsim's device,
// through a TlmBridge, for an atomic read-modify-write (co-simulation; see README
// "Co-simulation").
//
// IEEE 1666-2011's generic payload has no atomic command; famsim's own initiators carry one in
// their request extension (RequestExt::atomic, models/core/request.h), which a foreign initiator
// cannot set. With this extension on a TLM_READ_COMMAND of 4 or 8 B at an address that is a
// multiple of its length from the device's base, the bridge sends famsim the atomic; the device
// executes it at the memory channel (the word little-endian, as famsim's own atomics) and the
// response's data array holds the word's old value:
//   fetch-add        word += operand (modulo 2^(8 x length))
//   compare-and-swap if word == compare: word = operand
// Anything else with the extension is answered at once, never entering famsim, and warned about
// as the bridge's other refusals are: a command other than a read TLM_COMMAND_ERROR_RESPONSE, a
// length other than 4 or 8 TLM_BURST_ERROR_RESPONSE, a misaligned word TLM_ADDRESS_ERROR_RESPONSE.
//
//   famsim::TlmAtomic atomic;                   // the initiator's, alive until the response
//   atomic.op = famsim::AtomicOp::kFetchAdd;
//   atomic.operand = 1;
//   payload.set_extension(&atomic);             // on a read of 8 B: answered with the old word
//   ...                                         // (clear it before reusing the payload)
#pragma once

#include "models/core/request.h"

#include <tlm>

#include <cstdint>

namespace famsim {

struct TlmAtomic : tlm::tlm_extension<TlmAtomic> {
  AtomicOp op = AtomicOp::kNone;  // kNone: not an atomic (the extension is ignored)
  std::uint64_t operand = 0;      // fetch-add: the addend; compare-and-swap: the new value
  std::uint64_t compare = 0;      // compare-and-swap: the value the word must hold

  tlm::tlm_extension_base* clone() const override { return new TlmAtomic(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    *this = static_cast<const TlmAtomic&>(other);
  }
};

}  // namespace famsim
