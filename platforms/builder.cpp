#include "platforms/builder.h"

#include "models/core/bits.h"
#include "models/core/bottleneck.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace famsim {

namespace {
constexpr std::uint64_t kTiB = 1ULL << 40;
}  // namespace

MemoryChannels::MemoryChannels(sc_core::sc_module_name name, SimContext& ctx,
                               const MemoryConfig& cfg)
    : sc_core::sc_module(name) {
  for (unsigned c = 0; c < cfg.channels; ++c) {
    const std::string ch = "ch" + std::to_string(c);
    if (cfg.model == MemoryConfig::Model::kExternal) {
      auto m = std::make_unique<TlmMemoryBridge>(ch.c_str(), ctx, cfg.external,
                                                 ctx.pool.max_data_bytes());
      targets_.push_back(&m->up);
      stores_.push_back(nullptr);  // the data is the foreign target's
      external_.push_back(m.get());
      channels_.push_back(std::move(m));
    } else if (cfg.model == MemoryConfig::Model::kIdeal) {
      auto m = std::make_unique<IdealMemory>(ch.c_str(), ctx, cfg.timing, cfg.controller);
      targets_.push_back(&m->up);
      stores_.push_back(m->debug_store());
      channels_.push_back(std::move(m));
    } else {
      DramControllerParams p = cfg.dram;
      // One controller per modelled channel (HBM3: per pseudo-channel); the log records which.
      const unsigned pcs = std::max(1u, p.spec.org.pseudo_channels);
      p.channel = c / pcs;
      p.pseudo_channel = c % pcs;
      if (!cfg.command_log_dir.empty()) {
        p.command_log = cfg.command_log_dir + "/" + std::string(this->name()) + "." + ch + ".csv";
      }
      auto m = std::make_unique<DramController>(ch.c_str(), ctx, p);
      targets_.push_back(&m->up);
      stores_.push_back(m->debug_store());
      drams_.push_back(m.get());
      channels_.push_back(std::move(m));
    }
  }
}

std::uint64_t MemoryChannels::debug(unsigned c, bool write, std::uint64_t a, unsigned char* data,
                                    std::uint64_t n) {
  if (!external_.empty()) return external_[c]->debug_access(write, a, data, n);
  BackingStore* store = stores_[c];
  if (!store) return 0;
  if (write) {
    store->write(a, data, n);
  } else {
    store->read(a, data, n);
  }
  return n;
}

ExpansionDevice::ExpansionDevice(sc_core::sc_module_name name, SimContext& ctx,
                                 const DeviceConfig& cfg, std::uint64_t pa_base)
    : sc_core::sc_module(name),
      pa_base_(pa_base),
      capacity_bytes_(cfg.capacity_bytes),
      map_(cfg.memory.channel_map()) {
  port_logic_ = std::make_unique<PortLogic>("port_logic", ctx, cfg.port_logic, cfg.fabric_ports,
                                            pa_base, cfg.capacity_bytes, map_);
  // Both interconnects route a request to the memory channel the port logic decoded.
  if (cfg.noc_kind == NocKind::kMesh) {
    mesh_ = std::make_unique<Mesh>("noc", ctx, cfg.mesh, cfg.fabric_ports, cfg.memory.channels,
                                   std::make_unique<ChannelRouting>());
  } else {
    xbar_ = std::make_unique<Crossbar>("noc", ctx, BlockKind::kNoc, cfg.noc, cfg.fabric_ports,
                                       cfg.memory.channels, std::make_unique<ChannelRouting>());
  }
  memory_ = std::make_unique<MemoryChannels>("memory", ctx, cfg.memory);
  for (unsigned p = 0; p < cfg.fabric_ports; ++p) {
    if (mesh_) {
      port_logic_->internal(p).bind(mesh_->up(p));
    } else {
      port_logic_->internal(p).bind(xbar_->up(p));
    }
  }
  for (unsigned c = 0; c < cfg.memory.channels; ++c) {
    if (mesh_) {
      mesh_->down(c).bind(memory_->target(c));
    } else {
      xbar_->down(c).bind(memory_->target(c));
    }
  }
}

unsigned ExpansionDevice::tie_off_unused_ports() {
  // Named after the device's full name, for the sockets may be made outside its hierarchy.
  std::string prefix = name();
  std::replace(prefix.begin(), prefix.end(), '.', '_');
  unsigned tied = 0;
  for (unsigned p = 0; p < port_logic_->ports(); ++p) {
    TargetPort<PortLogic>& port = port_logic_->fabric(p);
    // Every bind made so far, to an initiator or through a parent's socket (SystemC 2.3's
    // sc_port_base::bind_count; size() counts the latter only after elaboration).
    if (port.get_base_port().bind_count() != 0) continue;
    tie_offs_.push_back(
        std::make_unique<TieOff>((prefix + "_unused_port" + std::to_string(p)).c_str()));
    tie_offs_.back()->socket.bind(port);
    ++tied;
  }
  return tied;
}

TlmBridgeParams ExpansionDevice::bridge_params(TlmBridgeParams p, BridgeAddresses addresses) const {
  p.window_base = pa_base_;
  p.window_bytes = capacity_bytes_;
  p.address_offset = addresses == BridgeAddresses::kDeviceAtZero ? pa_base_ : 0;
  return p;
}

void ExpansionDevice::attach(TlmBridge& bridge, unsigned port) {
  const TlmBridgeParams& p = bridge.params();
  if (p.window_base != pa_base_ || p.window_bytes != capacity_bytes_) {
    throw std::invalid_argument(fmt::format(
        "{}: cannot attach {}: its window is [{:#x}, {:#x}) (window_base, window_bytes {}), the "
        "device serves [{:#x}, {:#x}) (pa_base, capacity {} B); make its parameters with {}'s "
        "bridge_params()",
        name(), bridge.name(), p.window_base, p.window_base + p.window_bytes, p.window_bytes,
        pa_base_, pa_base_ + capacity_bytes_, capacity_bytes_, name()));
  }
  bridge.out.bind(port_logic_->fabric(port));
  bridge.set_debug_access([this](bool write, std::uint64_t pa, unsigned char* data,
                                 std::uint64_t len) { return debug_access(write, pa, data, len); });
}

tlm::tlm_sync_enum ExpansionDevice::TieOff::nb_transport_bw(tlm::tlm_generic_payload&,
                                                            tlm::tlm_phase&, sc_core::sc_time&) {
  SC_REPORT_ERROR(socket.name(), "a fabric port tied off as unused was answered: it sent nothing");
  return tlm::TLM_COMPLETED;
}

std::uint64_t ExpansionDevice::debug_access(bool write, std::uint64_t pa, unsigned char* data,
                                            std::uint64_t len) {
  if (pa < pa_base_ || len > capacity_bytes_ || pa - pa_base_ > capacity_bytes_ - len) return 0;
  // Split at the interleave's granules, as the port logic splits a request: each piece lies in
  // one channel, at consecutive channel addresses. Checked whole before any byte moves.
  const std::uint64_t granule = map_.granule_bytes();
  for (int pass = 0; pass < 2; ++pass) {
    for (std::uint64_t o = pa - pa_base_, done = 0; done < len;) {
      const std::uint64_t n = std::min(len - done, granule - o % granule);
      const AddressMap::Decoded d = map_.decode(o);
      if (pass == 0 && !memory_->debuggable(d.channel)) return 0;
      if (pass == 1) {
        const std::uint64_t got =
            memory_->debug(d.channel, write, d.channel_address, data + done, n);
        if (got < n) return done + got;  // a foreign target did less
      }
      o += n;
      done += n;
    }
  }
  return len;
}

template <class T>
std::vector<T*> Platform::from_memories(const std::vector<T*>& (MemoryChannels::*which)()
                                            const) const {
  std::vector<T*> out;
  auto add = [&](const MemoryChannels* m) {
    if (m) out.insert(out.end(), (m->*which)().begin(), (m->*which)().end());
  };
  add(memory_.get());
  for (const auto& m : local_memories_) add(m.get());
  for (const auto& d : devices_) add(&d->memory());
  return out;
}

std::vector<DramController*> Platform::dram_controllers() const {
  return from_memories(&MemoryChannels::dram_controllers);
}

std::vector<TlmMemoryBridge*> Platform::external_channels() const {
  return from_memories(&MemoryChannels::external_channels);
}

std::vector<MemoryTarget> Platform::address_layout(const PlatformConfig& cfg) {
  std::vector<MemoryTarget> out;
  std::uint64_t cursor = 0;
  if (cfg.trace_player.present) {
    out.push_back({"memory", MemoryLayout::Kind::kStandalone, 0, cfg.memory.capacity_bytes});
    return out;
  }
  if (cfg.gpu_local.present) {
    for (unsigned g = 0; g < cfg.gpu_count; ++g) {
      out.push_back({"gpu" + std::to_string(g) + "_hbm", MemoryLayout::Kind::kGpuHbm, cursor,
                     cfg.gpu_local.capacity_bytes});
      cursor = round_up(cursor + cfg.gpu_local.capacity_bytes, kTiB);
    }
  }
  for (const DeviceConfig& d : cfg.devices) {
    out.push_back({d.name, MemoryLayout::Kind::kDevice, cursor, d.capacity_bytes});
    cursor = round_up(cursor + d.capacity_bytes, kTiB);
  }
  return out;
}

Platform::Platform(const PlatformConfig& cfg, SimContext& ctx, AddressSpace& vmm)
    : cfg_(cfg), targets_(address_layout(cfg)) {
  // The longest path. To a device: GPU, link, (switch, link,) port logic, crossbar, memory
  // controller. To a peer GPU's memory: GPU, link, switch, peer link, hub, memory controller.
  // A leaf/spine plane crosses leaf, link, spine, link, leaf: 5 blocks instead of one switch.
  const unsigned fabric_blocks = cfg.sw.leaf_spine ? 5 : 1;
  const unsigned to_device = 1 + (cfg.sw.present ? 2 + fabric_blocks : 1) + 3;
  const unsigned to_peer = cfg.peer_paths() ? 5 + fabric_blocks : 0;
  const unsigned longest = std::max(to_device, to_peer);
  if (longest > RequestExt::kMaxHops) {
    throw std::logic_error("platform paths are longer than the hop records can hold");
  }
  for (const MemoryTarget& t : targets_) vmm.add_location(t.name, t.base, t.size);
  ctx.memories.set_targets(targets_);
  std::size_t ti = 0;

  if (cfg.trace_player.present) {
    // Standalone memory: the trace player on the channels.
    const MemoryConfig& m = cfg.memory;
    memory_ = std::make_unique<MemoryChannels>("memory", ctx, m);
    if (cfg.trace_player.params.file.empty()) return;  // `famsim validate`: no trace to play
    try {
      trace_player_ = std::make_unique<TracePlayer>("trace_player", ctx, cfg.trace_player.params,
                                                    m.channel_map());
    } catch (const TraceError& e) {
      throw ConfigError(std::string("trace_player.file: ") + e.what());
    }
    for (unsigned c = 0; c < m.channels; ++c) trace_player_->port(c).bind(memory_->target(c));
    initiators_.push_back(trace_player_.get());
    return;
  }

  // GPUs and their local memory (through a memory hub with peer paths).
  const unsigned per_gpu = cfg.fabric_ports_per_gpu();
  const bool peers = cfg.peer_paths();
  std::vector<PeerMemoryRoute> peer_table;
  for (unsigned g = 0; g < cfg.gpu_count; ++g) {
    LocalMemoryRoute local;
    if (cfg.gpu_local.present) {
      const MemoryTarget& t = targets_[ti++];
      local.base = t.base;
      local.size = t.size;
      local.map = cfg.gpu_local.channel_map();
    }
    const std::string name = "gpu" + std::to_string(g);
    gpus_.push_back(std::make_unique<Gpu>(name.c_str(), ctx, g, cfg.gpu, per_gpu, local, vmm));
    initiators_.push_back(gpus_.back().get());
    if (cfg.gpu_local.present) {
      local_memories_.push_back(
          std::make_unique<MemoryChannels>((name + "_hbm").c_str(), ctx, cfg.gpu_local));
      MemoryChannels& hbm = *local_memories_.back();
      const unsigned channels = cfg.gpu_local.channels;
      if (peers) {
        hubs_.push_back(std::make_unique<Crossbar>(
            (name + "_hub").c_str(), ctx, BlockKind::kHub, cfg.gpu_hub, channels + per_gpu,
            channels, std::make_unique<LocalMemoryRouting>(local.base, local.size, local.map)));
        for (unsigned c = 0; c < channels; ++c) {
          gpus_.back()->local(c).bind(hubs_.back()->up(c));
          hubs_.back()->down(c).bind(hbm.target(c));
          // For the bottleneck ranking the response buffers sit where a peer's request entered
          // (after the switch on the way out, so before it on the way back); on the GPU's own
          // path they follow its memory either way.
          hubs_.back()->set_input_path_depth(true, c, peer_entry_depth());
        }
        for (unsigned l = 0; l < per_gpu; ++l) {
          hubs_.back()->set_input_path_depth(false, channels + l, peer_entry_depth());
        }
        peer_table.push_back({g, local});
      } else {
        for (unsigned c = 0; c < channels; ++c) gpus_.back()->local(c).bind(hbm.target(c));
      }
    }
  }
  if (peers) {
    // Each GPU's table holds every other GPU's memory.
    for (unsigned g = 0; g < cfg.gpu_count; ++g) {
      std::vector<PeerMemoryRoute> others;
      for (const PeerMemoryRoute& r : peer_table) {
        if (r.gpu != g) others.push_back(r);
      }
      gpus_[g]->set_peers(std::move(others));
    }
  }

  // Devices.
  for (const DeviceConfig& d : cfg.devices) {
    devices_.push_back(
        std::make_unique<ExpansionDevice>(d.name.c_str(), ctx, d, targets_[ti++].base));
  }
  if (cfg.devices.empty()) return;

  // Fabric.
  // With peer paths a GPU link is bidirectional: the switch-to-GPU wire also carries peer
  // requests into the GPU's hub, and the GPU-to-switch wire the hub's responses to them, each on
  // its own virtual channel.
  std::vector<Link*> gpu_links;
  auto gpu_link = [&](unsigned g, unsigned l) -> Link& {
    links_.push_back(
        std::make_unique<Link>(("gpu" + std::to_string(g) + "_link" + std::to_string(l)).c_str(),
                               ctx, cfg.gpu_link.params, peers));
    gpu_links.push_back(links_.back().get());
    gpus_[g]->fabric(l).bind(links_.back()->up);
    return *links_.back();
  };
  if (cfg.sw.present) {
    plan_ = std::make_unique<FabricPlan>(cfg.fabric_shape());
    const FabricPlan& plan = *plan_;
    std::vector<std::uint64_t> gpu_memory_base;
    for (const PeerMemoryRoute& r : peer_table) gpu_memory_base.push_back(r.memory.base);
    // Plane k's out-endpoints: the device ports on it by address range, then (peer paths) each
    // GPU's peer outputs by destination GPU. With several planes the port inside a plane is
    // hashed, independent of the GPU's choice of link (so of plane) from the same address.
    const bool hashed = plan.planes() > 1;
    auto endpoint_routing = [&](unsigned k) -> std::unique_ptr<Routing> {
      AddressRangeRouting by_address;
      for (std::size_t d = 0; d < cfg.devices.size(); ++d) {
        AddressRangeRouting::Range r;
        r.base = devices_[d]->pa_base();
        r.size = cfg.devices[d].capacity_bytes;
        r.first_port = plan.first_device_endpoint(static_cast<unsigned>(d), k);
        r.ports = plan.device_ports_in_plane(static_cast<unsigned>(d), k);
        r.interleave_bytes = cfg.gpu.request_bytes;
        r.select = AddressMap::spreading_select(r.ports);
        r.hashed = hashed;
        r.target = cfg.devices[d].name;
        by_address.add(r);
      }
      if (!peers) return std::make_unique<AddressRangeRouting>(std::move(by_address));
      return std::make_unique<DestinationRouting>(std::move(by_address), plan.device_endpoints(k),
                                                  plan.gpu_links_in_plane(k), cfg.gpu.request_bytes,
                                                  gpu_memory_base, hashed);
    };
    fabric_ = std::make_unique<SwitchFabric>(ctx, cfg, plan, endpoint_routing);
    for (unsigned g = 0; g < cfg.gpu_count; ++g) {
      for (unsigned l = 0; l < per_gpu; ++l) {
        Link& link = gpu_link(g, l);
        link.down.bind(fabric_->gpu_input(g, l));
        link.set_ends(gpus_[g]->name(), fabric_->gpu_input(g, l).get_parent_object()->name());
        link.set_far_end(BlockKind::kSwitch);
        // With peer paths the link also carries the switch's requests into this GPU's hub.
        if (peers) {
          link.set_path_depths(path_depth(BlockKind::kSwitch) - 0.5, peer_entry_depth() - 0.5);
        }
      }
    }
    // A cut-through switch starts forwarding on a message's first flit: the GPU links into it
    // hand transfers on at their head (the leaf-spine links likewise, in SwitchFabric).
    if (cfg.sw.xbar.forwarding == Forwarding::kCutThrough) {
      for (Link* l : gpu_links) l->set_deliver_at_head(true);
    }
    for (std::size_t d = 0; d < cfg.devices.size(); ++d) {
      for (unsigned p = 0; p < cfg.devices[d].fabric_ports; ++p) {
        links_.push_back(
            std::make_unique<Link>((cfg.devices[d].name + "_link" + std::to_string(p)).c_str(), ctx,
                                   cfg.device_link.params));
        InitiatorPort<Crossbar>& out = fabric_->device_output(static_cast<unsigned>(d), p);
        out.bind(links_.back()->up);
        links_.back()->down.bind(devices_[d]->port_logic().fabric(p));
        links_.back()->set_ends(out.get_parent_object()->name(), devices_[d]->port_logic().name());
        links_.back()->set_far_end(BlockKind::kDevicePort);
      }
    }
    // Peer requests into GPU g come back over its own links (reverse direction) into its hub,
    // after the hub's local ports.
    for (unsigned g = 0; peers && g < cfg.gpu_count; ++g) {
      for (unsigned l = 0; l < per_gpu; ++l) {
        Link& link = *gpu_links[g * per_gpu + l];
        fabric_->peer_output(g, l).bind(link.reverse_up());
        link.reverse_down().bind(hubs_[g]->up(cfg.gpu_local.channels + l));
      }
    }
  } else {
    // Without a switch every GPU link lands on its own port of the one device.
    for (unsigned g = 0; g < cfg.gpu_count; ++g) {
      for (unsigned l = 0; l < per_gpu; ++l) {
        Link& link = gpu_link(g, l);
        link.down.bind(devices_[0]->port_logic().fabric(g * per_gpu + l));
        link.set_ends(gpus_[g]->name(), devices_[0]->port_logic().name());
        link.set_far_end(BlockKind::kDevicePort);
      }
    }
  }
}

}  // namespace famsim
