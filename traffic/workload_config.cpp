#include "traffic/workload_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <regex>

namespace famsim {

namespace {

std::vector<unsigned> parse_gpus(ConfigNode& s, const PlatformFacts& facts) {
  std::vector<unsigned> out;
  if (!s.is_list("gpus")) {
    if (s.get_string("gpus", "all") != "all") {
      s.fail("gpus", "expected \"all\" or a list of GPU indices");
    }
    for (unsigned g = 0; g < facts.gpu_count; ++g) out.push_back(g);
    return out;
  }
  for (std::uint64_t g : s.get_uint_list("gpus", 0, facts.gpu_count - 1)) {
    if (std::find(out.begin(), out.end(), g) != out.end()) {
      s.fail("gpus", fmt::format("GPU {} is listed twice", g));
    }
    out.push_back(static_cast<unsigned>(g));
  }
  if (out.empty()) s.fail("gpus", "expected \"all\" or a non-empty list of GPU indices");
  return out;
}

}  // namespace

WorkloadConfig parse_workload(ConfigNode node, const PlatformFacts& facts) {
  WorkloadConfig w;
  w.name = node.get_string("name", "workload");
  w.description = node.get_string("description", "");
  std::vector<ConfigNode> streams = node.list("streams", true);
  if (streams.empty()) node.fail("streams", "expected at least one stream");
  for (std::size_t i = 0; i < streams.size(); ++i) {
    ConfigNode& s = streams[i];
    StreamConfig c;
    c.path = s.path();
    c.name = s.get_string("name", "stream" + std::to_string(i));
    for (const StreamConfig& other : w.streams) {
      if (other.name == c.name) s.fail("name", "another stream is already named '" + c.name + "'");
    }
    c.gpus = parse_gpus(s, facts);

    ConfigNode b = s.child("buffer", true);
    if (b.has("from_stream")) {
      // The same buffer (same virtual range on each GPU) as an earlier stream.
      const std::string from = b.get_string("from_stream", std::nullopt);
      std::size_t j = 0;
      while (j < w.streams.size() && w.streams[j].name != from) ++j;
      if (j == w.streams.size()) {
        b.fail("from_stream", "'" + from + "' is not the name of an earlier stream");
      }
      const StreamConfig& src = w.streams[j];
      for (unsigned g : c.gpus) {
        if (std::find(src.gpus.begin(), src.gpus.end(), g) == src.gpus.end()) {
          b.fail("from_stream", fmt::format("GPU {} does not run stream '{}', so it has no such "
                                            "buffer",
                                            g, from));
        }
      }
      for (const char* k : {"bytes", "location", "shared"}) {
        b.ignore(k);
        if (b.has(k)) b.fail(k, "comes from the stream named in from_stream; do not repeat it");
      }
      c.buffer_from = static_cast<int>(j);
      c.buffer_bytes = src.buffer_bytes;
      c.location = src.location;
      c.location_is_gpu_local = src.location_is_gpu_local;
      c.location_gpu = src.location_gpu;
      c.shared = src.shared;
    } else {
      c.buffer_bytes = b.get_bytes("bytes", std::nullopt, 1);
      c.location = b.get_string("location", std::nullopt);
      c.shared = b.get_bool("shared", false);
      if (c.location == "gpu_local") {
        c.location_is_gpu_local = true;
        if (!facts.gpu_has_local_memory) {
          b.fail("location", "the platform's GPUs have no local memory");
        }
        if (c.shared && c.gpus.size() > 1) {
          b.fail("shared",
                 "a gpu_local buffer is each GPU's own; to share one GPU's memory give its "
                 "location as gpu/<index>");
        }
      } else if (c.location.rfind("gpu/", 0) == 0) {
        const std::string index = c.location.substr(4);
        static const std::regex digits("[0-9]{1,6}");
        if (!std::regex_match(index, digits)) {
          b.fail("location", "expected gpu/<index> with a GPU index, got '" + c.location + "'");
        }
        const unsigned g = static_cast<unsigned>(std::stoul(index));
        if (g >= facts.gpu_count) {
          b.fail("location",
                 fmt::format("no GPU {} on this platform (GPUs 0..{})", g, facts.gpu_count - 1));
        }
        if (!facts.gpu_has_local_memory) {
          b.fail("location", "the platform's GPUs have no local memory");
        }
        for (unsigned user : c.gpus) {
          if (user != g && !facts.peer_access) {
            b.fail("location", fmt::format("GPU {} cannot reach GPU {}'s memory: peer access "
                                           "needs a switch between the GPUs, this platform has "
                                           "none",
                                           user, g));
          }
        }
        c.location_gpu = static_cast<int>(g);
      } else if (c.location.rfind("device/", 0) == 0) {
        c.location = c.location.substr(7);
        if (std::find(facts.device_names.begin(), facts.device_names.end(), c.location) ==
            facts.device_names.end()) {
          std::string known;
          for (const auto& d : facts.device_names) known += (known.empty() ? "" : ", ") + d;
          b.fail("location", "no device named '" + c.location + "' on this platform (devices: " +
                                 (known.empty() ? "none" : known) + ")");
        }
      } else {
        b.fail("location",
               "expected gpu_local, gpu/<index> or device/<name>, got '" + c.location + "'");
      }
    }
    b.finish();

    const std::string pattern =
        s.get_choice("pattern", "sequential", {"sequential", "strided", "uniform_random"});
    c.pattern = pattern == "sequential" ? Pattern::kSequential
                : pattern == "strided"  ? Pattern::kStrided
                                        : Pattern::kUniformRandom;
    c.access_bytes =
        static_cast<std::uint32_t>(s.get_bytes("access_bytes", facts.request_bytes, 1, 1ULL << 30));
    if ((c.access_bytes & (c.access_bytes - 1)) != 0) {
      s.fail("access_bytes", fmt::format("expected a power of two, got {}", c.access_bytes));
    }
    if (c.access_bytes > c.buffer_bytes) {
      s.fail("access_bytes", "is larger than the buffer");
    }
    if (c.pattern == Pattern::kStrided) {
      c.stride_bytes = s.get_bytes("stride_bytes", std::nullopt, c.access_bytes);
      if (c.stride_bytes % c.access_bytes != 0) {
        s.fail("stride_bytes",
               fmt::format("expected a multiple of access_bytes ({})", c.access_bytes));
      }
    } else {
      s.ignore("stride_bytes");
      if (s.has("stride_bytes")) s.fail("stride_bytes", "only applies to pattern: strided");
    }
    c.read_fraction = s.get_double("read_fraction", 1.0, 0.0, 1.0);
    if (s.has("atomic")) {
      ConfigNode a = s.child("atomic");
      const std::string op = a.get_choice("op", std::nullopt, {"fetch_add", "compare_swap"});
      c.atomic = op == "fetch_add" ? AtomicOp::kFetchAdd : AtomicOp::kCompareSwap;
      // Operands fit the word (access_bytes is read above).
      const std::uint64_t word_max = c.access_bytes == 4 ? 0xffffffffULL : ~std::uint64_t{0};
      if (c.atomic == AtomicOp::kFetchAdd) {
        c.atomic_operand = a.get_uint("operand", 1, 0, word_max);
      } else {
        c.atomic_compare = a.get_uint("compare", std::nullopt, 0, word_max);
        c.atomic_operand = a.get_uint("swap", std::nullopt, 0, word_max);
      }
      a.finish();
      if (c.access_bytes != 4 && c.access_bytes != 8) {
        s.fail("access_bytes",
               fmt::format("an atomic stream acts on 4 or 8 B words, got {}", c.access_bytes));
      }
      if (s.has("read_fraction")) {
        s.fail("read_fraction", "an atomic stream issues atomics only; drop read_fraction");
      }
      if (s.has("verify_reads")) {
        s.fail("verify_reads", "an atomic stream's answers are old values, not a pattern");
      }
      // Atomics read their word (and write it back): the payload command is a read.
      c.read_fraction = 1.0;
    }
    // famsim simulates at most 2^48 ps (281 s).
    c.duration_ns = s.get_double("duration_ns", 0.0, 0.0, 2.8e11);
    const bool has_total = s.has("total_bytes");
    c.total_bytes = s.get_bytes("total_bytes", 0, 1);
    if (!has_total) {
      c.total_bytes =
          c.duration_ns > 0 ? std::numeric_limits<std::uint64_t>::max() : c.buffer_bytes;
    }
    c.max_outstanding = static_cast<unsigned>(
        s.get_uint("max_outstanding", facts.gpu_max_outstanding, 1, 1u << 20));
    c.start_ns = s.get_double("start_ns", 0.0, 0.0, 2.8e11);
    c.verify_reads = s.get_bool("verify_reads", false);
    c.data_seed = s.get_uint("data_seed", 1);

    // start_after may only name earlier streams, so dependencies never form a cycle.
    for (const std::string& n : s.get_string_list("start_after")) {
      std::size_t j = 0;
      while (j < w.streams.size() && w.streams[j].name != n) ++j;
      if (j == w.streams.size()) {
        s.fail("start_after", "'" + n + "' is not the name of an earlier stream");
      }
      c.start_after.push_back(static_cast<unsigned>(j));
    }
    s.finish();
    w.streams.push_back(c);
  }
  node.finish();
  return w;
}

}  // namespace famsim
