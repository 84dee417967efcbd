// TlmAtomic: the extension a foreign initiator sets on a generic payload to ask famsim's device,
// through a TlmBridge, for an atomic read-modify-write (co-simulation; see README
// "Co-simulation").
//
// IEEE 1666-2011's generic payload has no atomic command; famsim's own initiators carry one in
// their request extension (RequestExt::atomic, models/core/request.h), which a foreign initiator
// cannot set. With this extension on a TLM_READ_COMMAND of 4 or 8 B at an address that is a
// multiple of its length from the bridge's window_base, the bridge sends famsim the atomic; the
// device executes it at the memory channel (the word little-endian, as famsim's own atomics; the
// data array in host order, as any payload's, so little-endian on the hosts famsim is built for)
// and the response's data array holds the word's old value:
//   fetch-add        word += operand (modulo 2^(8 x length))
//   compare-and-swap if word == compare: word = operand
// Anything else with the extension is answered at once, never entering famsim, and warned about
// as the bridge's other refusals are: a command other than a read TLM_COMMAND_ERROR_RESPONSE, a
// length other than 4 or 8 TLM_BURST_ERROR_RESPONSE, a misaligned word TLM_ADDRESS_ERROR_RESPONSE.
// The alignment is taken from window_base, which must be the device's base or a multiple of 8 B
// from it (bridge_params() and attach() make it the base): the device stops the run on a word it
// finds misaligned. On a device whose memory is `model: external` the channel's bridge executes
// the atomic on the foreign memory as a read and a write-back of the word (TlmMemoryBridge,
// tlm_memory_bridge.h). Debug transport ignores the extension (a plain read or write, with no
// side effect).
//
// The extension is the initiator's, and the generic payload deletes every extension still set
// when it is destroyed (IEEE 1666-2011 tlm_generic_payload), so:
//   famsim::TlmAtomic atomic;                   // alive until the response
//   atomic.op = famsim::AtomicOp::kFetchAdd;
//   atomic.operand = 1;
//   payload.set_extension(&atomic);             // on a read of 8 B: answered with the old word
//   ...                                         // after the response:
//   payload.clear_extension(&atomic);           // before the payload is reused or destroyed
// A payload with a memory manager may carry one allocated with new and set with
// set_auto_extension() instead: the manager's reset() frees it when the payload is released.
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
