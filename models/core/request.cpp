#include "models/core/request.h"

#include "models/core/config.h"

#include <fmt/format.h>

#include <limits>
#include <stdexcept>

namespace famsim {

void RequestExt::too_many_hops() const {
  throw std::logic_error("request " + std::to_string(id) + " crossed more than " +
                         std::to_string(kMaxHops) + " blocks");
}

void RequestExt::walked_past_initiator() const {
  throw std::logic_error("response of request " + std::to_string(id) +
                         " walked back past its initiator");
}

tlm::tlm_extension_base* RequestExt::clone() const { return new RequestExt(*this); }

void RequestExt::copy_from(const tlm::tlm_extension_base& other) {
  *this = static_cast<const RequestExt&>(other);
}

const char* to_string(BlockKind kind) {
  switch (kind) {
    case BlockKind::kGpu:
      return "gpu";
    case BlockKind::kTracePlayer:
      return "trace_player";
    case BlockKind::kBridge:
      return "tlm_bridge";
    case BlockKind::kLink:
      return "link";
    case BlockKind::kSwitch:
      return "switch";
    case BlockKind::kHub:
      return "hub";
    case BlockKind::kDevicePort:
      return "device_port";
    case BlockKind::kNoc:
      return "noc";
    case BlockKind::kMemory:
      return "memory";
    case BlockKind::kOther:
      break;
  }
  return "other";
}

const char* to_string(TargetClass c) {
  switch (c) {
    case TargetClass::kDevice:
      return "device";
    case TargetClass::kLocalHbm:
      return "local_hbm";
    case TargetClass::kPeerGpu:
      return "peer_gpu";
    case TargetClass::kStandaloneMemory:
      break;
  }
  return "standalone_memory";
}

const char* label(TargetClass c) {
  switch (c) {
    case TargetClass::kDevice:
      return "expansion device";
    case TargetClass::kLocalHbm:
      return "local HBM";
    case TargetClass::kPeerGpu:
      return "peer GPU HBM";
    case TargetClass::kStandaloneMemory:
      break;
  }
  return "standalone memory";
}

void RequestExt::continue_with(const RequestExt& part) {
  if (unsigned{hop_count} + part.hop_count > kMaxHops + 1) too_many_hops();
  for (unsigned i = 1; i < part.hop_count; ++i) hops[hop_count++] = part.hops[i];
  service_start_ps = part.service_start_ps;
  // resp_cursor stays on this block's record's successor: the response starts back from here.
}

std::vector<std::string>& BlockRegistry::names() {
  static std::vector<std::string> table{"(none)"};
  return table;
}

std::vector<BlockKind>& BlockRegistry::kind_table() {
  static std::vector<BlockKind> table{BlockKind::kOther};
  return table;
}

BlockId BlockRegistry::add(const std::string& name, BlockKind kind) {
  auto& t = names();
  if (t.size() >= std::numeric_limits<BlockId>::max()) {
    // Bad input, not a fault: a platform this large is a configuration famsim cannot hold.
    throw ConfigError(fmt::format(
        "platform: more than {} blocks (every GPU, link, switch chip, hub, device port, NoC and "
        "memory channel is one; hop records name them with 16-bit ids); expected a smaller "
        "platform: fewer gpus.count, links.*.per_gpu, switch.planes, switch chips, device ports "
        "or memory channels",
        std::numeric_limits<BlockId>::max() - 1));
  }
  t.push_back(name);
  kind_table().push_back(kind);
  return static_cast<BlockId>(t.size() - 1);
}

const std::string& BlockRegistry::name(BlockId id) {
  const auto& t = names();
  return id < t.size() ? t[id] : t[0];
}

void BlockRegistry::clear() {
  names().resize(1);
  kind_table().resize(1);
}

}  // namespace famsim
