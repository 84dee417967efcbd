// A mesh NoC alone between test sources and sinks, for the mesh tests (tests/integration/
// mesh_test.cpp) and the mesh benchmark.
//
//   sources  one initiator per mesh up port (fabric port). Saturating mode: every source always
//            has a message waiting (a new one is offered as soon as the mesh takes the last), for
//            a controller drawn uniformly from a seeded generator, optionally at most `limit`
//            messages per source. Scripted mode: each source offers a list of messages, each no
//            earlier than its time.
//   sinks    one target per mesh down port (memory controller). By default always ready (END_REQ
//            at once); with a service time a sink takes one message per service time and
//            withholds END_REQ meanwhile, as a busy memory controller does.
//   routing  the controller is the request's `channel` field, set by the source (ChannelRouting).
//
// Requests only: a sink never responds, so only the request network carries traffic. Messages
// are reads (no data: a 1-flit packet) unless a scripted message carries data bytes (a write:
// 1 + ceil(bytes / link_bytes) flits). Several harnesses may share one simulation.
#pragma once

#include "models/noc/mesh.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace famsim::test {

struct MeshMessage {
  std::uint64_t at_ps = 0;  // offered no earlier than this
  unsigned controller = 0;
  unsigned data_bytes = 0;  // 0: a read request (one flit)
};

struct MeshDelivery {
  std::uint64_t at_ps = 0;
  unsigned port = 0;
  unsigned controller = 0;
  unsigned data_bytes = 0;
};

class MeshHarness {
 public:
  MeshHarness(SimContext& ctx, const std::string& name, const MeshParams& params, unsigned ports,
              unsigned controllers);
  ~MeshHarness();

  // Every source always has a message waiting, for a uniformly random controller; with `limit`
  // > 0, each source offers at most that many and then stops. `data_bytes` > 0: writes of that
  // size instead of reads.
  void saturate_uniform(std::uint64_t seed, std::uint64_t limit = 0, unsigned data_bytes = 0);
  void script(unsigned port, std::vector<MeshMessage> messages);
  // A sink that takes one message per `service_ps` (0: always ready).
  void set_sink_service(std::uint64_t service_ps);
  void set_offering(bool on);

  const std::vector<MeshDelivery>& deliveries() const;
  std::uint64_t delivered_since(std::uint64_t from_ps) const;
  // Messages the mesh has accepted (END_REQ given) from every source.
  std::uint64_t accepted() const;
  // When each of them was accepted, in order.
  const std::vector<std::uint64_t>& accept_times() const;
  Mesh& mesh();
  // The mesh's report over [0, end_ps]: its extra keys, bytes, utilization, backpressure_ns, and
  // `resources` {name: {utilization, capacity, used, slots, path_depth, response_path}}.
  nlohmann::json report(std::uint64_t end_ps) const;

 private:
  struct Parts;
  std::unique_ptr<Parts> parts_;
};

}  // namespace famsim::test
