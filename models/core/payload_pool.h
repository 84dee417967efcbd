// The simulation's one memory manager (tlm_mm_interface). Payloads, their data buffers and their
// RequestExt are created once and recycled: after warm-up no request allocates. Every block that
// stores a payload acquire()s it and release()s it when it lets go, so a payload still held at the
// end of a run is a leak that the conservation check lists.
#pragma once

#include "models/core/request.h"

#include <tlm>

#include <cstdint>
#include <memory>
#include <vector>

namespace famsim {

class PayloadPool : public tlm::tlm_mm_interface {
 public:
  explicit PayloadPool(std::uint32_t max_data_bytes);
  ~PayloadPool() override;
  PayloadPool(const PayloadPool&) = delete;
  PayloadPool& operator=(const PayloadPool&) = delete;

  // A payload with reference count 0 and a reset RequestExt; the caller acquire()s it.
  Payload& allocate();
  void free(Payload* p) override;

  std::uint32_t max_data_bytes() const { return max_data_bytes_; }
  std::uint64_t in_use() const { return in_use_; }
  std::uint64_t created() const { return slots_.size(); }

  // Payloads currently in use (for conservation diagnostics).
  std::vector<const Payload*> in_use_payloads() const;

 private:
  struct Slot {
    std::unique_ptr<PooledPayload> payload;
    std::unique_ptr<unsigned char[]> data;
  };
  std::uint32_t max_data_bytes_;
  std::vector<Slot> slots_;
  std::vector<Payload*> free_;
  std::uint64_t in_use_ = 0;
};

}  // namespace famsim
