// Ignorable phases at the boundary with foreign TLM-2.0 models (tlm_bridge.h, tlm_memory_bridge.h).
// IEEE 1666-2011 lets a base-protocol socket carry phases beyond its four (declared with
// TLM_DECLARE_EXTENDED_PHASE: an interconnect's or a vendor's hints): a callee that does not know
// a phase returns TLM_ACCEPTED and otherwise ignores it, and a caller may ignore one that comes
// back with TLM_UPDATED. The bridges know only the four, so they ignore every other phase (and
// count it); one of the four where the protocol does not allow it stays an error.
#pragma once

#include <tlm>

#include <cstdint>

namespace famsim {

// A phase other than the base protocol's four: extended phases are numbered after END_RESP (the
// phase registry of tlm_phase.h).
inline bool ignorable_phase(const tlm::tlm_phase& phase) {
  return static_cast<unsigned>(phase) > static_cast<unsigned>(tlm::END_RESP);
}

// What a caller makes of `r`, returned with `phase`: TLM_UPDATED with an ignorable phase is
// TLM_ACCEPTED (and counted in `ignored`); anything else stays as it was returned.
inline tlm::tlm_sync_enum ignoring_unknown_phase(tlm::tlm_sync_enum r, const tlm::tlm_phase& phase,
                                                 std::uint64_t& ignored) {
  if (r != tlm::TLM_UPDATED || !ignorable_phase(phase)) return r;
  ++ignored;
  return tlm::TLM_ACCEPTED;
}

}  // namespace famsim
