// Turns a PlatformConfig into wired modules.
//
// Physical address layout: GPU g's local HBM starts at g TiB, the devices follow, each starting on
// the next TiB boundary after the previous target (a target larger than 1 TiB takes several). The
// layout is printed by `famsim validate` and recorded in stats.json.
//
// Names (stable keys in stats.json):
//   gpu<g>                 GPU initiator       gpu<g>_hbm.ch<c>     its local memory channels
//   gpu<g>_link<l>         GPU-side links      switch               the scale-up switch
//   <dev>_link<p>          device-side links   <dev>.port_logic, <dev>.noc, <dev>.memory.ch<c>
//   (peer paths: GPU g's links are bidirectional; their switch-to-GPU wires carry peer
//   requests into gpu<g>_hub)
//   gpu<g>_hub             GPU g's memory hub: crossbar in front of its HBM channels
//
// Peer paths (PlatformConfig::peer_paths(): a switch, GPU local memory, at least 2 GPUs): the
// switch's down ports are the device ports followed by gpu_count x per_gpu peer ports; peer port
// (g, l) is a link with the gpu_switch parameters to up port channels + l of GPU g's hub, whose
// first `channels` up ports are GPU g's own local ports. So a GPU's own HBM requests and its
// peers' share the hub's arbitration and buffers in front of each channel, as in a GPU's crossbar
// in front of its memory partitions. The switch routes by destination GPU (DestinationRouting),
// each hub by the channel decoded from the address (LocalMemoryRouting).
#pragma once

#include "models/core/by_memory.h"
#include "models/cosim/tlm_bridge.h"
#include "models/memory/address_map.h"
#include "models/memory/backing_store.h"
#include "platforms/platform_config.h"
#include "platforms/switch_fabric.h"
#include "traffic/vmm.h"

#include <memory>
#include <vector>

namespace famsim {

// A bank of memory controllers under one name (a GPU's HBM or a device's channels).
class MemoryChannels : public sc_core::sc_module {
 public:
  MemoryChannels(sc_core::sc_module_name name, SimContext& ctx, const MemoryConfig& cfg);
  // The DRAM controllers among the channels (none with the ideal model).
  const std::vector<DramController*>& dram_controllers() const { return drams_; }
  // The channels' bridges to foreign TLM-2.0 targets (model external; none otherwise): bind each
  // one's `out` to a foreign target socket before the simulation starts.
  const std::vector<TlmMemoryBridge*>& external_channels() const { return external_; }
  // Channel c's target socket (std::out_of_range for a channel the memory does not have).
  tlm::tlm_target_socket<>& target(unsigned c) {
    if (c >= targets_.size()) {
      throw std::out_of_range(std::string(name()) + ": channel " + std::to_string(c) +
                              " does not exist; the memory has " + std::to_string(targets_.size()) +
                              " (channels)");
    }
    return *targets_[c];
  }
  unsigned size() const { return static_cast<unsigned>(targets_.size()); }
  // Channel c's data for a debug access (null when famsim keeps none: backing_store false, or a
  // foreign target's).
  BackingStore* debug_store(unsigned c) { return stores_[c]; }
  // A debug access (TLM transport_dbg semantics) to channel c: `n` bytes at its channel address
  // `a`, in its backing store or through its foreign target's transport_dbg. Returns the bytes
  // done: 0 when the channel keeps no data (debuggable() false).
  std::uint64_t debug(unsigned c, bool write, std::uint64_t a, unsigned char* data,
                      std::uint64_t n);
  bool debuggable(unsigned c) const { return stores_[c] || !external_.empty(); }

 private:
  std::vector<std::unique_ptr<sc_core::sc_module>> channels_;
  std::vector<tlm::tlm_target_socket<>*> targets_;
  std::vector<BackingStore*> stores_;
  std::vector<DramController*> drams_;
  std::vector<TlmMemoryBridge*> external_;
};

// Where a foreign initiator in front of a TlmBridge sees an expansion device
// (ExpansionDevice::bridge_params).
enum class BridgeAddresses {
  kDeviceAtZero,     // at 0: address_offset is the device's pa_base
  kFamsimAddresses,  // at famsim's physical addresses, [pa_base, pa_base + capacity)
};

// The memory-expansion device: port logic, on-device crossbar or mesh, memory channels.
class ExpansionDevice : public sc_core::sc_module {
 public:
  ExpansionDevice(sc_core::sc_module_name name, SimContext& ctx, const DeviceConfig& cfg,
                  std::uint64_t pa_base);
  PortLogic& port_logic() { return *port_logic_; }
  // The on-chip interconnect: one of the two, by devices.N.noc.kind.
  Crossbar* crossbar() { return xbar_.get(); }
  Mesh* mesh() { return mesh_.get(); }
  MemoryChannels& memory() { return *memory_; }
  std::uint64_t pa_base() const { return pa_base_; }
  // A debug access (TLM transport_dbg semantics: it takes no simulated time, touches no block's
  // state or statistics): `len` bytes at physical address `pa` read from or written to the
  // channels' backing stores, through the device's interleave. What requests in flight will write
  // lands when they reach their channel, after it. Returns the bytes done: `len`, or 0 when any
  // of them is outside the device or on a channel that keeps no data; fewer when a foreign
  // target (model external) did fewer.
  std::uint64_t debug_access(bool write, std::uint64_t pa, unsigned char* data, std::uint64_t len);
  // Ends the run at `end_ps` for the device's DRAM controllers (DramController::finish: the
  // refreshes of an idle tail, the command logs closed), which their statistics need first: call
  // it before ComponentRegistry::report_all over a window ending at `end_ps`. famsim::Simulation
  // does this itself; a sc_main of one's own that builds a device does it after sc_start().
  void finish(std::uint64_t end_ps) {
    for (DramController* c : memory_->dram_controllers()) c->finish(end_ps);
  }
  // Binds every fabric port still unbound to an initiator that sends nothing, so that a platform
  // of one's own may drive fewer ports than the device has (SystemC stops elaboration with E109
  // for an unbound port). Call it after binding the ports in use, before sc_start(). Returns how
  // many ports it tied off. The initiators are made in the module whose constructor calls it (or
  // at the top level), and live as long as the device.
  unsigned tie_off_unused_ports();

  // A foreign TLM-2.0 initiator in front of the device (models/cosim/tlm_bridge.h):
  //   famsim::TlmBridgeParams p;  // max_outstanding, source, target_class as you want them
  //   famsim::TlmBridge bridge("bridge", ctx,
  //                            fam.bridge_params(p, famsim::BridgeAddresses::kDeviceAtZero));
  //   fam.attach(bridge, /*port=*/0);
  // bridge_params() returns `p` with the window the device serves, [pa_base, pa_base +
  // capacity), and the address_offset that makes the initiator see the device at `addresses`.
  TlmBridgeParams bridge_params(TlmBridgeParams p, BridgeAddresses addresses) const;
  // Binds bridge.out to fabric port `port` and gives the bridge the device's debug_access (its
  // transport_dbg). std::invalid_argument if the bridge's window is not the device's (a bridge
  // not made with bridge_params()); std::out_of_range for a port the device does not have.
  void attach(TlmBridge& bridge, unsigned port);

 private:
  // An initiator that sends nothing, on a fabric port nobody drives (a module: SystemC allows
  // ports in modules only).
  struct TieOff : sc_core::sc_module, tlm::tlm_bw_transport_if<> {
    explicit TieOff(const sc_core::sc_module_name& name) : sc_core::sc_module(name) {
      socket.bind(*this);
    }
    tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload&, tlm::tlm_phase&,
                                       sc_core::sc_time&) override;
    void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}
    tlm::tlm_initiator_socket<> socket{"out"};
  };
  std::vector<std::unique_ptr<TieOff>> tie_offs_;

  std::uint64_t pa_base_;
  std::uint64_t capacity_bytes_;
  AddressMap map_;
  std::unique_ptr<PortLogic> port_logic_;
  std::unique_ptr<Crossbar> xbar_;
  std::unique_ptr<Mesh> mesh_;
  std::unique_ptr<MemoryChannels> memory_;
};

// A memory of the platform in the physical address space ("gpu0_hbm" or a device name): the
// layout the statistics split traffic by (SimContext::memories) is this one.
using MemoryTarget = MemoryLayout::Target;

class Platform {
 public:
  // Registers every memory target as a location in `vmm` (GPU-local ones as "gpu<g>_hbm").
  Platform(const PlatformConfig& cfg, SimContext& ctx, AddressSpace& vmm);

  Gpu& gpu(unsigned g) { return *gpus_[g]; }
  // Every block that starts requests: the GPUs, or a standalone platform's trace player.
  const std::vector<Initiator*>& initiators() const { return initiators_; }
  // A standalone platform's trace player; null on GPU platforms and without a trace (validate).
  const TracePlayer* trace_player() const { return trace_player_.get(); }
  // Every DRAM controller of the platform.
  std::vector<DramController*> dram_controllers() const;
  // Every memory channel served by a foreign TLM-2.0 target (model external), in the order of
  // the address layout: the user's sc_main binds each one's `out` (its name, as in stats.json,
  // says which memory and channel it is: "fam0.memory.ch3").
  std::vector<TlmMemoryBridge*> external_channels() const;
  unsigned gpu_count() const { return static_cast<unsigned>(gpus_.size()); }
  const PlatformConfig& config() const { return cfg_; }

  // The physical layout without building anything (for `famsim validate`).
  static std::vector<MemoryTarget> address_layout(const PlatformConfig& cfg);

 private:
  // What `which` gives of every memory's channels, in the order of the address layout.
  template <class T>
  std::vector<T*> from_memories(const std::vector<T*>& (MemoryChannels::*which)() const) const;

  const PlatformConfig& cfg_;
  std::vector<MemoryTarget> targets_;
  std::vector<std::unique_ptr<Gpu>> gpus_;
  std::vector<Initiator*> initiators_;
  std::unique_ptr<TracePlayer> trace_player_;
  std::unique_ptr<MemoryChannels> memory_;  // standalone platforms
  std::vector<std::unique_ptr<MemoryChannels>> local_memories_;
  std::vector<std::unique_ptr<Link>> links_;
  std::vector<std::unique_ptr<Crossbar>> hubs_;  // per GPU, peer paths only
  std::unique_ptr<FabricPlan> plan_;
  std::unique_ptr<SwitchFabric> fabric_;
  std::vector<std::unique_ptr<ExpansionDevice>> devices_;
};

}  // namespace famsim
