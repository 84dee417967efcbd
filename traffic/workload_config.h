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
//   buffer.from_stream  instead of the three keys above: use the buffer of an earlier stream
//                     (the same virtual range on each GPU), e.g. to read back what it wrote
//   pattern           sequential | strided | uniform_random
//   stride_bytes      distance between consecutive accesses (strided only)
//   read_fraction     0..1, share of accesses that are reads (default 1)
//   access_bytes      size of one software access; the GPU splits it into requests of its
//                     request_bytes (default: the GPU's request_bytes)
//   total_bytes       bytes each GPU moves (default: one pass over the buffer, when no duration)
//   duration_ns       stop issuing this long after the stream starts
//   max_outstanding   requests in flight per GPU for this stream (default: the GPU's cap)
//   start_ns          earliest start (default 0)
//   start_after       names of earlier streams that must have finished on the same GPU
//   verify_reads      check read data against the pattern written with the same data_seed
//   data_seed         seed of the written data pattern (default 1)
//   atomic            {op: fetch_add, operand: N (default 1)} or
//                     {op: compare_swap, compare: C, swap: S}: every access is one atomic on a
//                     naturally aligned word of access_bytes (4 or 8); no read_fraction or
//                     verify_reads. The device (or the GPU's HBM controller) executes it.
#pragma once

#include "models/core/config.h"
#include "models/core/request.h"

#include <cstdint>
#include <string>
#include <vector>

namespace famsim {

enum class Pattern { kSequential, kStrided, kUniformRandom };

struct StreamConfig {
  std::string name;
  std::string path;  // key path, for messages
  std::vector<unsigned> gpus;
  std::uint64_t buffer_bytes = 0;
  std::string location;  // "gpu_local", "gpu/<g>" or a device name
  bool location_is_gpu_local = false;
  int location_gpu = -1;  // gpu/<g>: g
  bool shared = false;
  int buffer_from = -1;  // index of the earlier stream whose buffer this one uses
  Pattern pattern = Pattern::kSequential;
  std::uint64_t stride_bytes = 0;
  double read_fraction = 1.0;
  std::uint32_t access_bytes = 0;
  std::uint64_t total_bytes = 0;  // UINT64_MAX when only a duration limits the stream
  double duration_ns = 0;         // 0: no duration limit
  unsigned max_outstanding = 0;
  double start_ns = 0;
  std::vector<unsigned> start_after;  // indices of earlier streams
  bool verify_reads = false;
  std::uint64_t data_seed = 1;
  // atomic: every access is one atomic on a 4 or 8 B word (access_bytes), no plain reads or
  // writes. fetch_add adds atomic_operand; compare_swap writes atomic_operand where the word
  // equals atomic_compare. The answer (the old word) is not checked.
  AtomicOp atomic = AtomicOp::kNone;
  std::uint64_t atomic_operand = 1;
  std::uint64_t atomic_compare = 0;
};

struct WorkloadConfig {
  std::string name;
  std::string description;
  std::vector<StreamConfig> streams;
};

// What the workload needs to know about the platform to validate itself.
struct PlatformFacts {
  unsigned gpu_count = 1;
  unsigned request_bytes = 128;
  unsigned gpu_max_outstanding = 512;
  bool gpu_has_local_memory = true;
  bool peer_access = false;  // GPUs reach each other's local memory (PlatformConfig::peer_paths)
  std::vector<std::string> device_names;
};

WorkloadConfig parse_workload(ConfigNode node, const PlatformFacts& facts);

}  // namespace famsim
