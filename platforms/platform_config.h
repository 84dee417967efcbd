// Platform description: GPUs (with their local HBM), fabric links, an optional scale-up switch and
// the memory-expansion devices. Read from YAML once, validated, then handed to the builder.
// Key reference with units and defaults: README.md, "Platform file".
#pragma once

#include "models/core/config.h"
#include "models/cosim/tlm_memory_bridge.h"
#include "models/device/port_logic.h"
#include "models/fabric/link.h"
#include "models/gpu/gpu.h"
#include "models/memory/address_map.h"
#include "models/memory/dram_controller.h"
#include "models/memory/ideal_memory.h"
#include "models/memory/memory_map.h"
#include "models/noc/crossbar.h"
#include "models/noc/mesh.h"
#include "platforms/fabric_plan.h"
#include "traffic/trace_player.h"

#include <cstdint>
#include <string>
#include <vector>

namespace famsim {

struct LinkConfig {
  bool present = false;
  std::string preset;
  LinkParams params;
  unsigned per_gpu = 1;  // GPU-side links only
};

struct MemoryConfig {
  enum class Model { kDram, kIdeal, kExternal };
  bool present = false;
  std::string preset;
  Model model = Model::kDram;
  DramControllerParams dram;  // model dram
  MemoryTiming timing;        // model ideal
  ControllerParams controller;
  // model external: a foreign TLM-2.0 target per channel behind a TlmMemoryBridge
  // (models/cosim/tlm_memory_bridge.h), which the user's sc_main binds.
  TlmMemoryBridgeParams external;
  unsigned channels = 0;
  std::uint64_t capacity_bytes = 0;
  std::uint64_t granule_bytes = 256;
  AddressMap::Select select = AddressMap::Select::kModulo;
  std::vector<unsigned> channel_bits;  // select kBits: channel bit i is address bit channel_bits[i]
  std::string command_log_dir;         // DRAM command logs go here (empty: off); set by the run
  // The values the memory's files mark as assumptions rather than figures from a standard or a
  // datasheet (`assumptions:` in a memory preset or next to it; stats.json "assumptions").
  std::vector<ConfigAssumption> assumptions;

  // The address interleave across this memory's channels.
  AddressMap channel_map() const {
    return select == AddressMap::Select::kBits ? AddressMap(channel_bits)
                                               : AddressMap(channels, granule_bytes, select);
  }
  // The full mapping, offset -> channel, rank, bank group, bank, row, column (model dram).
  MemoryMap memory_map() const {
    return MemoryMap(channel_map(), dram.spec.org, dram.mapping_order, dram.xor_bank);
  }
  // Peak data bandwidth of one channel as modelled (a DRAM bus at its tCK,
  // dram::Spec::bus_peak_gbps), GB/s, and the standard's name.
  double channel_peak_gbps() const {
    switch (model) {
      case Model::kDram:
        return dram.spec.bus_peak_gbps();
      case Model::kIdeal:
        return timing.peak_gbps();
      case Model::kExternal:
        return external.peak_gbps;
    }
    return 0;
  }
  std::string standard() const {
    switch (model) {
      case Model::kDram:
        return dram::to_string(dram.spec.standard);
      case Model::kIdeal:
        return timing.standard;
      case Model::kExternal:
        return external.name;
    }
    return {};
  }
};

// The scale-up switching: `planes` parallel planes, each one switch chip or a leaf/spine network
// of chips (platforms/fabric_plan.h). Every chip has the same radix and crossbar parameters.
struct SwitchConfig {
  bool present = false;
  unsigned radix = 64;
  unsigned planes = 1;
  bool leaf_spine = false;       // topology: single | leaf_spine
  unsigned leaf_down_ports = 0;  // leaf_spine: endpoint ports per leaf (default radix / 2)
  unsigned spines = 0;           // leaf_spine: spine chips per plane
  CrossbarParams xbar;
};

// The device's on-chip interconnect between port logic and memory controllers.
enum class NocKind { kCrossbar, kMesh };

struct DeviceConfig {
  // Letters, digits and _, starting with a letter; not a name famsim gives its own blocks (gpuN,
  // gpuN_..., planeN_..., leafN, spineN, switch, memory, trace_player, phase_sampler, vmm_events)
  // nor another device's link (<device>_linkN).
  std::string name;
  std::uint64_t capacity_bytes = 0;
  unsigned fabric_ports = 1;
  PortLogicParams port_logic;
  NocKind noc_kind = NocKind::kCrossbar;
  CrossbarParams noc;   // kind: crossbar
  MeshParams mesh;      // kind: mesh (placement resolved: defaults filled in)
  MemoryConfig memory;  // channels, timing, controller, interleave
};

// A standalone memory platform (platforms/dram_*.yaml): a trace player on memory channels.
struct TracePlayerConfig {
  bool present = false;
  TracePlayerParams params;
};

struct PlatformConfig {
  std::string name;
  std::string description;
  TracePlayerConfig trace_player;  // present: no GPUs, links or devices; `memory` below
  MemoryConfig memory;
  unsigned gpu_count = 1;
  GpuParams gpu;
  MemoryConfig gpu_local;      // present=false: GPUs without local memory
  LinkConfig gpu_link;         // GPU <-> switch, or GPU <-> device without a switch
  LinkConfig device_link;      // switch <-> device
  LinkConfig leaf_spine_link;  // leaf <-> spine (leaf_spine topology)
  SwitchConfig sw;
  // Each GPU's memory hub: the crossbar in front of its HBM channels where its own requests and
  // its peers' meet (gpus.hub; built only with peer_paths()).
  CrossbarParams gpu_hub;
  std::vector<DeviceConfig> devices;

  unsigned fabric_ports_per_gpu() const { return gpu_link.present ? gpu_link.per_gpu : 0; }
  unsigned device_port_total() const;
  // GPUs reach each other's local memory through the switch: the switch gets a group of peer
  // ports per GPU (gpu_link.per_gpu each, after the device ports) and each GPU a memory hub.
  bool peer_paths() const { return sw.present && gpu_local.present && gpu_count > 1; }
  unsigned peer_port_total() const { return peer_paths() ? gpu_count * gpu_link.per_gpu : 0; }
  // The switch fabric's shape (sw.present only).
  FabricShape fabric_shape() const;
};

// Reads and checks the platform keys of `root` (name, description, gpus, links, switch,
// devices). Does not call root.finish(): the caller reads the other top-level sections first.
PlatformConfig parse_platform(ConfigNode& root);

}  // namespace famsim
