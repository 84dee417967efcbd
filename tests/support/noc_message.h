// The test message the crossbar and mesh harnesses send: a write of `data_bytes` (a 64 B read when
// 0) from source `source` to the block's output `target` (RequestExt::channel, which the device
// NoC routes on). Returns the payload with one reference taken.
#pragma once

#include "models/core/sim_context.h"

#include <cstdint>

namespace famsim::test {

inline Payload& noc_message(SimContext& ctx, unsigned source, unsigned target,
                            unsigned data_bytes) {
  Payload& p = ctx.pool.allocate();
  p.acquire();
  const bool write = data_bytes > 0;
  p.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  p.set_data_length(write ? data_bytes : 64);
  RequestExt& e = ext_of(p);
  e.reset_for_issue();
  e.write = write;
  e.length = write ? data_bytes : 64;
  e.channel = target;
  e.stream = static_cast<std::uint16_t>(source);
  return p;
}

}  // namespace famsim::test
