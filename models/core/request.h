// What travels with every request: a typed TLM extension holding identity, addresses, the decoded
// target and a fixed-size array of hop records. It is attached once to each pooled payload and
// reset on reuse; nothing here allocates per request.
//
// Hop records give the per-hop latency breakdown and also route responses: a response retraces the
// request's path, and each block finds its own record (with the port the request came in on) by
// walking the records backwards.
//
// A record holds the times the request and the response *entered* the block. The times they left
// need no storage: a block hands a message on by calling its neighbour at that very time, so a
// request leaves block k when it enters block k+1, and a response leaves block k when it enters
// block k-1 (the initiator, block 0, takes its response as it arrives). Writing only on entry
// means a hop touches the record while it is in cache.
#pragma once

#include "models/core/clock.h"

#include <systemc>
#include <tlm>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace famsim {

using Payload = tlm::tlm_generic_payload;

// Identifies a block (module) in hop records. Names and kinds live in BlockRegistry.
using BlockId = std::uint16_t;

// What sort of block a module is, for grouping hop records by kind rather than by instance
// (models/core/hop_breakdown.h). Listed in the order a request meets them on any path (GPU,
// link, switch, link, device port, NoC, memory; or GPU, link, switch, link, hub, memory for a
// peer request), which the breakdown uses as its path order.
enum class BlockKind : std::uint8_t {
  kOther,  // not on a request's path (event players, test fixtures)
  kGpu,
  kTracePlayer,
  kBridge,  // a foreign TLM initiator's way in (models/cosim/tlm_bridge.h)
  kLink,
  kSwitch,
  kHub,  // a GPU's memory hub
  kDevicePort,
  kNoc,
  kMemory,
};
constexpr unsigned kBlockKinds = 10;
// "gpu", "trace_player", "tlm_bridge", "link", "switch", "hub", "device_port", "noc", "memory",
// "other".
const char* to_string(BlockKind kind);

// A read-modify-write the memory executes on one naturally aligned 4 or 8 B little-endian word
// (RequestExt::length). The request carries its operands, the response the word's old value.
//   kFetchAdd      word += atomic_operand (modulo 2^(8 x length))
//   kCompareSwap   if word == atomic_compare: word = atomic_operand
enum class AtomicOp : std::uint8_t { kNone, kFetchAdd, kCompareSwap };

// Which kind of memory a request went to, as its initiator routed it (a GPU by physical address,
// models/gpu/gpu.h). The summary splits its bytes, bandwidth and latency by it (stats.json
// summary.by_target), so that the expansion device's figure is not read off a total that also
// holds the GPUs' traffic to their own and their peers' HBM.
enum class TargetClass : std::uint8_t {
  kDevice,            // crossed the fabric to a memory-expansion device
  kLocalHbm,          // the issuing GPU's own local memory
  kPeerGpu,           // another GPU's local memory, over the fabric (a peer request)
  kStandaloneMemory,  // a memory a trace player drives directly (platforms/dram_*.yaml)
};
constexpr unsigned kTargetClasses = 4;
// Every class, in the order the summaries list them.
constexpr std::array<TargetClass, kTargetClasses> kAllTargetClasses = {
    TargetClass::kDevice, TargetClass::kLocalHbm, TargetClass::kPeerGpu,
    TargetClass::kStandaloneMemory};
// The stats.json key: "device", "local_hbm", "peer_gpu", "standalone_memory".
const char* to_string(TargetClass c);
// For people: "expansion device", "local HBM", "peer GPU HBM", "standalone memory".
const char* label(TargetClass c);

// 16 bytes: each time is 48 bits of ps (281 s of simulated time; Scheduler refuses to go further)
// packed with a 16-bit id, so a request's records for a typical path fit in two cache lines.
class alignas(16) HopRecord {
 public:
  static constexpr std::uint64_t kMaxTimePs = kMaxSimTimePs;

  BlockId block() const { return static_cast<BlockId>(a_ >> 48); }
  std::uint16_t in_port() const { return static_cast<std::uint16_t>(b_ >> 48); }
  std::uint64_t req_in_ps() const { return a_ & kMaxTimePs; }   // request arrived (BEGIN_REQ)
  std::uint64_t resp_in_ps() const { return b_ & kMaxTimePs; }  // response arrived; target: ready

  void set(BlockId block, std::uint16_t in_port, std::uint64_t req_in_ps) {
    a_ = (std::uint64_t{block} << 48) | req_in_ps;
    b_ = std::uint64_t{in_port} << 48;
  }
  void set_resp_in(std::uint64_t ps) { b_ = (b_ & ~kMaxTimePs) | ps; }

 private:
  std::uint64_t a_ = 0;  // block : 16 | req_in_ps : 48
  std::uint64_t b_ = 0;  // in_port : 16 | resp_in_ps : 48
};

class RequestExt : public tlm::tlm_extension<RequestExt> {
 public:
  static constexpr unsigned kMaxHops = 16;

  // Fields every block reads come first: with the payload's reference count they share one
  // cache line (see PooledPayload), the only line of the payload most hops touch.
  std::uint8_t hop_count = 0;
  std::uint8_t resp_cursor = 0;
  bool write = false;  // copy of the payload's command
  // Set by the initiator while the request is outstanding; a completion of a request that is not
  // outstanding is a duplicate and breaks conservation.
  bool outstanding = false;
  std::uint32_t length = 0;  // copy of the payload's data length, bytes
  // Decoded target, filled by the block that decodes the address (the issuing GPU for GPU memory,
  // its own or a peer's; device port logic for the expansion device).
  std::uint32_t channel = 0;
  std::uint16_t gpu = 0;  // the issuing GPU
  // Peer request: the GPU whose local memory holds the address (kNoGpu: not a peer request). Set
  // by the issuing GPU; the switch routes on it (models/noc/routing.h, DestinationRouting).
  static constexpr std::uint16_t kNoGpu = 0xffff;
  std::uint16_t dest_gpu = kNoGpu;
  std::uint64_t physical_address = 0;
  std::uint64_t channel_address = 0;
  // The device port's tag for this request (models/device/port_logic.h); a split request's parts
  // carry their parent's.
  std::uint32_t device_tag = 0;
  // Atomic request (AtomicOp above); payload command READ, so the old value comes back as data.
  // Here, not with the operands: every link, the device port logic and the DRAM controller read
  // it, and in the last line it cost each of them a cache miss (famsim bench, perf record).
  AtomicOp atomic = AtomicOp::kNone;

  // The hop records start on the next cache line: a typical path's fit in two lines.
  std::array<HopRecord, kMaxHops> hops{};

  // Read at the ends of the path only.
  // When the target began serving the request: a DRAM controller's first command for it (set at
  // completion; until then its arrival cycle), a posted write's acceptance.
  std::uint64_t service_start_ps = 0;
  std::uint64_t issue_ps = 0;
  std::uint64_t id = 0;
  std::uint64_t virtual_address = 0;
  std::uint16_t stream = 0;  // the issuing GPU's stream (workload index)
  TargetClass target_class = TargetClass::kDevice;  // set by the issuing GPU
  // The initiator's own tag for the access: a GPU's stream's (traffic/source.h), a TLM bridge's
  // slot (models/cosim/tlm_bridge.h).
  std::uint32_t phase = 0;
  std::uint64_t atomic_operand = 0;
  std::uint64_t atomic_compare = 0;

  void reset_for_issue() {
    hop_count = 0;
    resp_cursor = 0;
    channel = 0;
    channel_address = 0;
    atomic = AtomicOp::kNone;
  }

  // A block stamps its arrival; returns its record. Throws if the path is longer than kMaxHops
  // (the platform builder checks path lengths at elaboration, so this is an internal error).
  HopRecord& enter(BlockId block, std::uint16_t in_port, std::uint64_t now_ps);
  // The block the request is in now (the last one that entered).
  HopRecord& current() { return hops[hop_count - 1]; }
  // When the request left hop k (entered k+1; the target's own record: service start), and when
  // the response left hop k (entered k-1; the initiator: on arrival). Valid once the response
  // is back at the initiator.
  std::uint64_t req_out_ps(unsigned k) const {
    return k + 1 < hop_count ? hops[k + 1].req_in_ps() : service_start_ps;
  }
  std::uint64_t resp_out_ps(unsigned k) const {
    return k > 0 ? hops[k - 1].resp_in_ps() : hops[0].resp_in_ps();
  }
  // A request that a block split into parts (device port logic) takes the path of `part`, the
  // part whose answer completed it, beyond that block: part.hops[0] is the splitting block's own
  // record, the rest are appended, with the part's service start. Its records then reach a target
  // like an unsplit request's (same length, which the builder checks). Before the response
  // starts back.
  void continue_with(const RequestExt& part);
  // A response enters the next block on its way back; returns that block's record.
  HopRecord& resp_enter(std::uint64_t now_ps);
  // The record of the block the response is in now.
  HopRecord& resp_current() { return hops[resp_cursor]; }

  [[noreturn]] void too_many_hops() const;
  [[noreturn]] void walked_past_initiator() const;

  tlm::tlm_extension_base* clone() const override;
  void copy_from(const tlm::tlm_extension_base& other) override;
};

inline HopRecord& RequestExt::enter(BlockId block, std::uint16_t in_port, std::uint64_t now_ps) {
  if (hop_count >= kMaxHops) too_many_hops();
  HopRecord& h = hops[hop_count++];
  h.set(block, in_port, now_ps);
  resp_cursor = hop_count;
  return h;
}

inline HopRecord& RequestExt::resp_enter(std::uint64_t now_ps) {
  if (resp_cursor == 0) walked_past_initiator();
  HopRecord& h = hops[--resp_cursor];
  h.set_resp_in(now_ps);
  return h;
}

// Every famsim payload comes from the PayloadPool and carries its RequestExt inside it (also
// registered as a normal TLM extension, so generic tools find it with get_extension). Blocks use
// ext_of(), which reaches it without the extension-table lookup. Cache-line aligned: with
// thousands of requests in flight every line a hop touches is a likely cache miss, so the hot
// extension fields sit in the line that also holds the payload's reference count.
class alignas(64) PooledPayload : public Payload {
 public:
  explicit PooledPayload(tlm::tlm_mm_interface* mm) : Payload(mm) { set_extension(&ext); }
  ~PooledPayload() override { clear_extension(&ext); }
  RequestExt ext;
};

inline RequestExt& ext_of(Payload& p) { return static_cast<PooledPayload&>(p).ext; }
inline const RequestExt& ext_of(const Payload& p) {
  return static_cast<const PooledPayload&>(p).ext;
}

// Starts fetching the lines of `p` a hop reads first (reference count, path fields and the hop
// records of a path of up to 8 hops: a device request's 7 records span two lines, the fabric's
// hops writing in the first and the device's in the second). A block calls it for the message it
// will hand on next: with thousands of requests in flight, a payload's lines have left the cache
// between two hops. The second records' line too: famsim bench -1.1 to -3.3 % simulation time
// (tests/bench/ab_pair.sh, three calls, medians; 2026-12-07).
inline void prefetch_for_hop(const Payload& p) {
  const RequestExt& e = ext_of(p);
  __builtin_prefetch(&e);  // the path fields, beside the reference count
  __builtin_prefetch(&e.hops[0]);
  __builtin_prefetch(&e.hops[4]);  // the second line of records (16-byte records)
}

// Data bytes a request message carries (writes carry their data forward, atomics their operands:
// one word, two for compare-and-swap) and a response message carries (reads carry their data
// back, atomics the old word).
inline unsigned request_data_bytes(const RequestExt& e) {
  if (e.atomic != AtomicOp::kNone)
    return e.atomic == AtomicOp::kCompareSwap ? 2 * e.length : e.length;
  return e.write ? e.length : 0;
}
inline unsigned response_data_bytes(const RequestExt& e) { return e.write ? 0 : e.length; }

// Per-process table of block names and kinds, for hop records and diagnostics. SystemC itself is
// a process-wide singleton, so one table per process is one table per simulation.
class BlockRegistry {
 public:
  static BlockId add(const std::string& name, BlockKind kind);
  static const std::string& name(BlockId id);
  static BlockKind kind(BlockId id) { return kinds()[id]; }
  // Indexed by BlockId; valid until the next add() (blocks are added at elaboration only).
  static const BlockKind* kinds() { return kind_table().data(); }
  static void clear();

 private:
  static std::vector<std::string>& names();
  static std::vector<BlockKind>& kind_table();
};

}  // namespace famsim
