// Workload description (first cut; the traffic issue adds AI workload generators and traces).
// A workload is a list of streams; each stream runs on a set of GPUs, each GPU with its own
// buffer (or one shared buffer) mapped through the VMM address space.
//
// streams[i]:
//   name              text, default "stream<i>"; other streams refer to it in start_after
//   gpus              "all" or a list of GPU indices
//   buffer.bytes      buffer size per GPU (rounded up to the 2 MiB allocation granularity)
//   buffer.location   "gpu_local" (the GPU's own HBM), "gpu/<g>" (GPU g's HBM: a peer's memory,
//                     reached through the switch, or the GPU's own when g is its index) or
//                     "device/<name>" (an expansion device)
//   buffer.shared     one buffer for all the stream's GPUs instead of one each (default false)
//   buffer.stripe_start  for a buffer striped over devices: "first" (default: every GPU's buffer
//                     starts on the first device listed) or "by_gpu" (the buffer of the stream's
//                     k-th GPU starts on device k modulo the devices, the list rotated by k), so
//                     GPUs walking their buffers in step spread over the devices instead of
//                     taking turns on them
//   stripe_start      (generator streams) as buffer.stripe_start, for every region of the
//                     generator that is striped over devices (its location a list of devices):
//                     by_gpu starts the region of the stream's k-th GPU on device k modulo the
//                     devices; at least one region must be striped. A pattern stream gives it
//                     under buffer.
//   buffer.from_stream  instead of the three keys above: use the buffer of an earlier stream
//                     (the same virtual range on each GPU), e.g. to read back what it wrote
//   pattern           sequential | strided | uniform_random
//   stride_bytes      distance between consecutive accesses (strided only): a multiple of
//                     access_bytes below the buffer's size (each time the walk passes the end of
//                     the buffer it restarts one access further on)
//   read_fraction     0..1, share of accesses that are reads (default 1)
//   access_bytes      size of one software access; the GPU splits it into requests of its
//                     request_bytes (default: the GPU's request_bytes)
//   total_bytes       bytes each GPU moves (default: one pass over the buffer, when no duration);
//                     not a multiple of access_bytes, the last access is the short remainder
//   duration_ns       stop issuing this long after the stream starts: no access is issued at or
//                     after start + duration_ns. The stream finishes when its last request has
//                     completed; a stream whose next access would come at or after that time
//                     (paced: issue_rate_gbps; a generator's compute or timestamps) does not
//                     wait for it. start_ns + duration_ns is at most 2^48 ps (281 s)
//   max_outstanding   requests in flight per GPU for this stream (default: the GPU's cap)
//   start_ns          earliest start (default 0)
//   start_after       names of earlier streams that must have finished on the same GPU
//   verify_reads      check read data against the pattern written with the same data_seed
//                     (checked when parsed: another stream writes the same buffer on each of
//                     this one's GPUs, and this one starts after it, start_after directly or
//                     through others; that the writes cover every address read is not checked:
//                     a read of an address never written counts as a data mismatch)
//   data_seed         seed of the written data pattern (default 1)
//   atomic            {op: fetch_add, operand: N (default 1)} or
//                     {op: compare_swap, compare: C, swap: S}: every access is one atomic on a
//                     naturally aligned word of access_bytes (4 or 8); no read_fraction or
//                     verify_reads. The device (or the GPU's HBM controller) executes it.
#pragma once

#include "models/core/config.h"
#include "models/core/request.h"
#include "traffic/source.h"
#include "traffic/vmm.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace famsim {

enum class Pattern { kSequential, kStrided, kUniformRandom, kZipf };

// What the workload needs to know about the platform to validate itself.
struct PlatformFacts {
  unsigned gpu_count = 1;
  unsigned request_bytes = 128;
  unsigned gpu_max_outstanding = 512;
  bool gpu_has_local_memory = true;
  // Peak bandwidth of one GPU's local memory, GB/s (0: none, or not known): the default rate at
  // which an AI generator's compute reads a layer's weights (traffic/ai/llm_common.h).
  double gpu_memory_gbps = 0;
  bool peer_access = false;  // GPUs reach each other's local memory (PlatformConfig::peer_paths)
  std::vector<std::string> device_names;
};

// Where a piece of memory is created (a VMM location):
//   gpu_local        each GPU's own HBM
//   gpu/<g>          GPU g's HBM (a peer's memory for the other GPUs)
//   device/<name>    an expansion device
//   [device/a, device/b, ...]  striped over devices, allocation granule by granule
struct Placement {
  enum class Kind { kGpuLocal, kGpu, kDevice, kStriped };
  Kind kind = Kind::kGpuLocal;
  unsigned gpu = 0;                  // kGpu
  std::vector<std::string> devices;  // kDevice: one name; kStriped: two or more
  std::string text;                  // as written
};

// Reads node[key] as a Placement for a buffer used by `users`; ConfigError naming the key if the
// platform cannot provide it.
Placement parse_placement(ConfigNode& node, const std::string& key, const PlatformFacts& facts,
                          const std::vector<unsigned>& users);

// Reads node[`access_bytes`], the bytes of one software access (the GPU splits it into requests
// of its request_bytes): a power of two from 1 B to 1 GiB, `def` when absent. The one rule of
// pattern streams and of the generators that take the key (weight_stream, moe_experts).
std::uint32_t parse_access_bytes(ConfigNode& node, std::uint64_t def);

// A region of memory a generator needs on each GPU of its stream.
struct RegionSpec {
  std::string role;  // "kv_cache", "weights", ... for messages and stats
  std::uint64_t bytes = 0;
  Placement where;
  bool write = false;  // the GPU writes it (read-write access), else read-only
  // For a region that does not fit: the generator keys its size comes from (the first is named
  // unless a --set changed another) and the product that gives it, in words.
  std::vector<std::string> keys;
  std::string how;
  // When fewer layers are simulated than the model has: the bytes the region would take with
  // every layer of the model (0: as `bytes`). A whole-model estimate assumes a deployment that
  // holds them; the simulation checks that they fit (Simulation::map_workload).
  std::uint64_t whole_model_bytes = 0;
};

// What a generator's source is built from (Simulation::map_workload fills it per GPU).
struct SourceContext {
  unsigned rank = 0;    // position of the GPU in the stream's GPU list
  unsigned gpu = 0;     // the GPU's index
  unsigned stream = 0;  // the stream's workload index
  std::uint64_t sim_seed = 1;
  std::vector<std::uint64_t> region_va;  // virtual base of each region, as regions() lists them
};

// A generator's parsed configuration (AI workloads, trace replay): the memory it needs and the
// source it makes for each GPU.
class GeneratorSpec {
 public:
  virtual ~GeneratorSpec() = default;
  virtual const char* kind() const = 0;
  virtual std::vector<RegionSpec> regions() const = 0;
  virtual std::unique_ptr<AccessSource> make_source(const SourceContext& c) const = 0;
  // What it does in numbers (bytes per step, ...), for `famsim validate` and stats.json.
  virtual nlohmann::json summary() const = 0;
  // The stream's result over all its GPUs from each GPU's AccessSource::report(), one per GPU
  // in the stream's GPU order. This default suits GPUs that work alone (each prompt, access or
  // byte is one GPU's): counts are summed; "mean_*", "*_ns", "*_rate", "*_fraction" and
  // "*per_second*" values are averaged over the GPUs that did work; anything else (lists,
  // histograms) is left to the per-GPU reports. Generators whose GPUs form tensor-parallel groups
  // override it so that a unit a group does together (a step, a pass, a lookup) counts once
  // (traffic/ai/llm_common.h TpGroups).
  virtual nlohmann::json combine(const std::vector<nlohmann::json>& per_gpu) const;
  // Bytes the configuration makes the whole stream (all its GPUs together) move at least,
  // whatever its random draws: a lower bound, so that Simulation::check_run_length can refuse a
  // size typo that no run could finish (over the peak bandwidth of the memories in `where`, each
  // GPU's `gpu_local` its own HBM). `keys` (under the generator's) set it, the one most likely
  // mistyped first (steps, prompts, ...); `how` is the product in words, for the message. Empty
  // when nothing is known up front (a trace is read during the run).
  struct MovedBytes {
    double bytes = 0;
    std::vector<Placement> where;
    std::vector<std::string> keys;
    std::string how;
  };
  virtual std::vector<MovedBytes> bytes_moved_at_least(unsigned /*gpus*/) const { return {}; }
  // The phases (PhasedSource) the whole stream runs, all its GPUs together, when the
  // configuration fixes them: what `famsim run --progress` measures a generator's share done by.
  // 0 when not known up front (a trace is read during the run).
  virtual std::uint64_t phases_total(unsigned /*gpus*/) const { return 0; }
  // Bytes of model weights each GPU's compute model reads from its own HBM without their being
  // mapped (kv_decode times its layers' weight reads; the weights are not simulated as memory):
  // the whole model's shard, which Simulation checks against the HBM left beside what the run
  // maps there. 0: none.
  virtual std::uint64_t hbm_weight_bytes_per_gpu() const { return 0; }
  // The GPUs that end every phase together (consecutive ranks of the stream; GroupBarrier in
  // traffic/source.h): a tensor-parallel group all-reduces after each layer. Each source it makes
  // is then a PhasedSource, and every GPU of a group runs the same phases. 1: none.
  virtual unsigned synchronised_group() const { return 1; }
  // The collectives its synchronised groups run over the fabric after their phases
  // (CollectivePlan), the largest message a phase sends among them: Simulation maps each GPU's
  // receive buffers in the memory of the peers it writes to, and hands its source the plan. Off:
  // the group ends its phases together, the collectives taking no time.
  struct Collectives {
    bool on = false;
    CollectivePlan::Algorithm algorithm = CollectivePlan::Algorithm::kRing;
    std::uint64_t max_message_bytes = 0;
  };
  virtual Collectives collectives() const { return {}; }
  // Its regions give their size at every layer of the model (RegionSpec::whole_model_bytes) and
  // hbm_weight_bytes_per_gpu the weights each GPU's HBM holds besides, so that what a GPU would
  // hold for the whole model is known (kv_decode, weight_stream; an expert or prefix cache is
  // sized by its configuration, not by the model).
  virtual bool sizes_whole_model() const { return false; }
  // Known from the configuration: why the result will give no whole-model estimate (its note says
  // the same), for famsim validate's warnings; empty when nothing known up front withholds one.
  virtual std::string no_estimate_reason() const { return {}; }
};

struct StreamConfig {
  std::string name;
  std::string path;   // key path, for messages
  std::string where;  // "file:line: key.path" of the stream, for errors found during the run
  std::vector<unsigned> gpus;
  // An AI workload or trace generator (kv_decode, prefill, ...); null for a pattern stream, which
  // uses the buffer and pattern keys below.
  std::shared_ptr<const GeneratorSpec> generator;
  std::uint64_t buffer_bytes = 0;
  Placement location;
  bool shared = false;
  bool stripe_by_gpu = false;  // buffer.stripe_start (a generator's: stripe_start): by_gpu
  int buffer_from = -1;        // index of the earlier stream whose buffer this one uses
  Pattern pattern = Pattern::kSequential;
  std::uint64_t stride_bytes = 0;
  double zipf_exponent = 1.0;                 // zipf: P(rank k) ~ 1/(k+1)^s
  std::uint64_t hot_unit_bytes = 2ULL << 20;  // zipf: the unit whose popularity is skewed
  double issue_rate_gbps = 0;                 // > 0: paced (open loop) at this rate
  double read_fraction = 1.0;
  std::uint32_t access_bytes = 0;
  std::uint64_t total_bytes = 0;  // UINT64_MAX when only a duration limits the stream
  double duration_ns = 0;         // 0: no duration limit
  unsigned max_outstanding = 0;
  double start_ns = 0;
  std::vector<unsigned> start_after;  // indices of earlier streams
  double gap_ns = 0;                  // compute gap after start_after's streams finished
  bool verify_reads = false;
  std::uint64_t data_seed = 1;
  // atomic: every access is one atomic on a 4 or 8 B word (access_bytes), no plain reads or
  // writes. fetch_add adds atomic_operand; compare_swap writes atomic_operand where the word
  // equals atomic_compare. The answer (the old word) is not checked.
  AtomicOp atomic = AtomicOp::kNone;
  std::uint64_t atomic_operand = 1;
  std::uint64_t atomic_compare = 0;
};

// A change to the address space during the run (Simulation's VmmEvents): it starts at at_ns and
// takes effect cost_ns later (the driver call's cost).
//   unmap       the stream's buffer range is unmapped when the call completes
//   set_access  the listed GPUs get `access` when the call completes
//   remap       the range is unmapped at once, and when the call completes a new allocation on
//               `location` is mapped there with the access it had: accesses in between fault
//               (data is not copied: the software copies, as with cuMemMap)
struct VmmEventConfig {
  enum class Op { kUnmap, kSetAccess, kRemap };
  std::string path;    // key path, for messages
  std::string source;  // "file:line" (or "--set ...") of the event, for errors during the run
  Op op = Op::kUnmap;
  double at_ns = 0;
  double cost_ns = 0;
  unsigned stream = 0;  // whose buffer
  std::uint64_t offset_bytes = 0;
  std::uint64_t bytes = 0;     // 0: to the end of the buffer
  std::vector<unsigned> gpus;  // set_access: these GPUs; others: every GPU of the stream
  AccessRight access = AccessRight::kNone;
  Placement location;  // remap
};

struct WorkloadConfig {
  std::string name;
  std::string description;
  std::vector<StreamConfig> streams;
  std::vector<VmmEventConfig> vmm_events;
  // A fault (unmapped page, no permission) stops the run with an error (exit 2), or is counted
  // per GPU and the access dropped (on_fault: count).
  bool count_faults = false;
};

WorkloadConfig parse_workload(ConfigNode node, const PlatformFacts& facts);

}  // namespace famsim
