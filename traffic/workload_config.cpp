#include "traffic/workload_config.h"

#include "models/core/bits.h"
#include "traffic/ai/generators.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
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
      s.fail(fmt::format("gpus.{}", out.size()), fmt::format("GPU {} is listed twice", g));
    }
    out.push_back(static_cast<unsigned>(g));
  }
  if (out.empty()) s.fail("gpus", "expected \"all\" or a non-empty list of GPU indices");
  return out;
}

std::string device_list(const PlatformFacts& facts) {
  std::string known;
  for (const auto& d : facts.device_names) known += (known.empty() ? "" : ", ") + d;
  return known.empty() ? "none" : known;
}

// One location word: gpu_local, gpu/<g> or device/<name>.
Placement parse_one_location(ConfigNode& node, const std::string& key, const std::string& text,
                             const PlatformFacts& facts, const std::vector<unsigned>& users) {
  Placement p;
  p.text = text;
  if (text == "gpu_local") {
    p.kind = Placement::Kind::kGpuLocal;
    if (!facts.gpu_has_local_memory) node.fail(key, "the platform's GPUs have no local memory");
  } else if (text.rfind("gpu/", 0) == 0) {
    const std::string index = text.substr(4);
    static const std::regex digits("[0-9]{1,6}");
    if (!std::regex_match(index, digits)) {
      node.fail(key, "expected gpu/<index> with a GPU index, got '" + text + "'");
    }
    const unsigned g = static_cast<unsigned>(std::stoul(index));
    if (g >= facts.gpu_count) {
      node.fail(key,
                fmt::format("no GPU {} on this platform (GPUs 0..{})", g, facts.gpu_count - 1));
    }
    if (!facts.gpu_has_local_memory) node.fail(key, "the platform's GPUs have no local memory");
    for (unsigned user : users) {
      if (user != g && !facts.peer_access) {
        node.fail(key, fmt::format("GPU {} cannot reach GPU {}'s memory: peer access needs a "
                                   "switch between the GPUs, this platform has none",
                                   user, g));
      }
    }
    p.kind = Placement::Kind::kGpu;
    p.gpu = g;
  } else if (text.rfind("device/", 0) == 0) {
    const std::string name = text.substr(7);
    if (std::find(facts.device_names.begin(), facts.device_names.end(), name) ==
        facts.device_names.end()) {
      node.fail(key, "no device named '" + name +
                         "' on this platform (devices: " + device_list(facts) + ")");
    }
    p.kind = Placement::Kind::kDevice;
    p.devices = {name};
  } else {
    node.fail(key,
              "expected gpu_local, gpu/<index>, device/<name> or a list of devices to stripe "
              "over, got '" +
                  text + "'");
  }
  return p;
}

}  // namespace

std::uint32_t parse_access_bytes(ConfigNode& node, std::uint64_t def) {
  const std::uint64_t bytes = node.get_bytes("access_bytes", def, 1, 1ULL << 30);
  if (!is_pow2(bytes)) {
    node.fail("access_bytes", fmt::format("expected a power of two, got {}", bytes));
  }
  return static_cast<std::uint32_t>(bytes);
}

Placement parse_placement(ConfigNode& node, const std::string& key, const PlatformFacts& facts,
                          const std::vector<unsigned>& users) {
  if (!node.is_list(key)) {
    return parse_one_location(node, key, node.get_string(key, std::nullopt), facts, users);
  }
  // A list: striped over devices, granule by granule.
  Placement p;
  p.kind = Placement::Kind::kStriped;
  for (const std::string& t : node.get_string_list(key)) {
    // Errors name the entry: a --set may have written it alone (location.1=device/fam9).
    const std::string entry = fmt::format("{}.{}", key, p.devices.size());
    const Placement one = parse_one_location(node, entry, t, facts, users);
    if (one.kind != Placement::Kind::kDevice) {
      node.fail(entry, "a striped location lists devices (device/<name>), got '" + t + "'");
    }
    if (std::find(p.devices.begin(), p.devices.end(), one.devices[0]) != p.devices.end()) {
      node.fail(entry, "device '" + one.devices[0] + "' is listed twice");
    }
    p.devices.push_back(one.devices[0]);
    p.text += (p.text.empty() ? "[" : ", ") + t;
  }
  p.text += "]";
  if (p.devices.size() < 2) {
    node.fail(key, "a striped location needs at least two devices; give one as device/<name>");
  }
  return p;
}

nlohmann::json GeneratorSpec::combine(const std::vector<nlohmann::json>& per_gpu) const {
  const auto averaged = [](const std::string& k) {
    return k.rfind("mean_", 0) == 0 || k.find("per_second") != std::string::npos ||
           (k.size() > 3 && k.compare(k.size() - 3, 3, "_ns") == 0) ||
           (k.size() > 5 && k.compare(k.size() - 5, 5, "_rate") == 0) ||
           (k.size() > 9 && k.compare(k.size() - 9, 9, "_fraction") == 0);
  };
  nlohmann::json out = nlohmann::json::object();
  std::map<std::string, unsigned> counted;
  for (const nlohmann::json& r : per_gpu) {
    for (const auto& [k, v] : r.items()) {
      if (!v.is_number()) continue;
      const double x = v.get<double>();
      if (averaged(k) && x == 0) continue;  // a GPU that did no work does not pull a mean down
      out[k] = (out.contains(k) ? out[k].get<double>() : 0.0) + x;
      ++counted[k];
    }
  }
  for (const auto& [k, n] : counted) {
    if (averaged(k)) out[k] = out[k].get<double>() / n;
  }
  return out;
}

namespace {

// The buffer, pattern and data keys of a pattern stream.
void parse_pattern_stream(ConfigNode& s, StreamConfig& c, const WorkloadConfig& w,
                          const PlatformFacts& facts) {
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
    for (const char* k : {"bytes", "location", "shared", "stripe_start"}) {
      b.ignore(k);
      if (b.has(k)) b.fail(k, "comes from the stream named in from_stream; do not repeat it");
    }
    if (src.generator) {
      b.fail("from_stream", "'" + from + "' is a " + src.generator->kind() +
                                " stream: its memory is its own, not a buffer");
    }
    c.buffer_from = static_cast<int>(j);
    c.buffer_bytes = src.buffer_bytes;
    c.location = src.location;
    c.shared = src.shared;
    c.stripe_by_gpu = src.stripe_by_gpu;
  } else {
    c.buffer_bytes = b.get_bytes("bytes", std::nullopt, 1);
    c.shared = b.get_bool("shared", false);
    c.location = parse_placement(b, "location", facts, c.gpus);
    if (c.location.kind == Placement::Kind::kGpuLocal && c.shared && c.gpus.size() > 1) {
      b.fail("shared",
             "a gpu_local buffer is each GPU's own; to share one GPU's memory give its "
             "location as gpu/<index>");
    }
    c.stripe_by_gpu = b.get_choice("stripe_start", "first", {"first", "by_gpu"}) == "by_gpu";
    if (c.stripe_by_gpu && c.location.kind != Placement::Kind::kStriped) {
      b.fail("stripe_start",
             "by_gpu applies to a buffer striped over devices (a list of "
             "devices), not to location " +
                 c.location.text);
    }
    if (c.stripe_by_gpu && c.shared) {
      b.fail("stripe_start",
             "by_gpu gives each GPU's own buffer its own first device; a shared "
             "buffer has one first device");
    }
  }
  b.finish();

  const std::string pattern =
      s.get_choice("pattern", "sequential", {"sequential", "strided", "uniform_random", "zipf"});
  c.pattern = pattern == "sequential"       ? Pattern::kSequential
              : pattern == "strided"        ? Pattern::kStrided
              : pattern == "uniform_random" ? Pattern::kUniformRandom
                                            : Pattern::kZipf;
  c.access_bytes = parse_access_bytes(s, facts.request_bytes);
  if (c.access_bytes > c.buffer_bytes) {
    s.fail("access_bytes", "is larger than the buffer");
  }
  if (c.pattern == Pattern::kStrided) {
    c.stride_bytes = s.get_bytes("stride_bytes", std::nullopt, c.access_bytes);
    if (c.stride_bytes % c.access_bytes != 0) {
      s.fail("stride_bytes",
             fmt::format("expected a multiple of access_bytes ({})", c.access_bytes));
    }
    // The walk restarts one slot further on each time it passes the end of the buffer
    // (StreamGenerator::next_offset): a stride of the buffer's access_bytes slots or more passes
    // the end at every step, which makes it a sequential walk.
    const std::uint64_t slots = c.buffer_bytes / c.access_bytes;
    if (c.stride_bytes / c.access_bytes >= slots) {
      s.fail("stride_bytes",
             slots < 2 ? fmt::format("the buffer of {} B holds {} access{} of access_bytes {}, so "
                                     "no stride fits in it; expected a buffer of at least two "
                                     "accesses",
                                     c.buffer_bytes, slots, slots == 1 ? "" : "es", c.access_bytes)
                       : fmt::format("{} B passes the end of the {} B buffer at "
                                     "every step, which makes the walk sequential; expected a "
                                     "stride below the buffer's size: a multiple of "
                                     "access_bytes ({}) of at most {}",
                                     c.stride_bytes, c.buffer_bytes, c.access_bytes,
                                     (slots - 1) * c.access_bytes));
    }
  } else {
    s.ignore("stride_bytes");
    if (s.has("stride_bytes")) s.fail("stride_bytes", "only applies to pattern: strided");
  }
  if (c.pattern == Pattern::kZipf) {
    c.zipf_exponent = s.get_double("zipf_exponent", 1.0, 0.0, 10.0);
    c.hot_unit_bytes = s.get_bytes("hot_unit_bytes", 2ULL << 20, c.access_bytes);
    if (c.hot_unit_bytes % c.access_bytes != 0 || c.hot_unit_bytes > c.buffer_bytes) {
      s.fail("hot_unit_bytes",
             fmt::format("expected a multiple of access_bytes ({}) no larger than the buffer",
                         c.access_bytes));
    }
  } else {
    for (const char* k : {"zipf_exponent", "hot_unit_bytes"}) {
      s.ignore(k);
      if (s.has(k)) s.fail(k, "only applies to pattern: zipf");
    }
  }
  c.issue_rate_gbps = s.get_double("issue_rate_gbps", 0.0, 0.0, 1e6);
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
  const bool has_total = s.has("total_bytes");
  c.total_bytes = s.get_bytes("total_bytes", 0, 1);
  if (!has_total) {
    c.total_bytes = c.duration_ns > 0 ? std::numeric_limits<std::uint64_t>::max() : c.buffer_bytes;
  }
  c.verify_reads = s.get_bool("verify_reads", false);
  c.data_seed = s.get_uint("data_seed", 1);
}

// The generator key a stream has (kv_decode, prefill, ...), or "" for a pattern stream.
std::string generator_kind(ConfigNode& s) {
  std::string kind;
  for (const std::string& k : generator_kinds()) {
    if (!s.has(k)) continue;
    if (!kind.empty()) s.fail(k, "a stream has one generator; it already has " + kind);
    kind = k;
  }
  return kind;
}

// Keys of pattern streams, refused on generator streams.
const char* const kPatternKeys[] = {"buffer",        "pattern",        "stride_bytes",
                                    "zipf_exponent", "hot_unit_bytes", "issue_rate_gbps",
                                    "read_fraction", "access_bytes",   "total_bytes",
                                    "verify_reads",  "data_seed",      "atomic"};
// Keys of every stream (parse_workload reads them).
const char* const kStreamKeys[] = {"name",     "gpus",   "duration_ns", "max_outstanding",
                                   "start_ns", "gap_ns", "start_after", "stripe_start"};

// A stream's keys are its own, a pattern stream's or a generator's name. Checked before the
// stream is read: without a generator key a stream is read as a pattern stream, so a misspelt
// generator (kv_decodez) would otherwise be reported as the pattern stream's missing buffer.
void check_stream_keys(const ConfigNode& s) {
  std::vector<std::string> known(std::begin(kStreamKeys), std::end(kStreamKeys));
  known.insert(known.end(), std::begin(kPatternKeys), std::end(kPatternKeys));
  known.insert(known.end(), generator_kinds().begin(), generator_kinds().end());
  s.check_known(known);
}

// A stream with a duration stops issuing at start_ns + duration_ns (the GPU's stop time for it):
// that must be a time famsim represents (2^48 ps), or the run could not honour it. A stream that
// starts after others (start_after) starts later still, which is not known here.
void check_stop_time(const ConfigNode& s, const StreamConfig& c) {
  if (c.duration_ns <= 0) return;
  // As Gpu::start_streams rounds them.
  const auto start_ps = static_cast<std::uint64_t>(std::llround(c.start_ns * 1000.0));
  const auto duration_ps = static_cast<std::uint64_t>(std::llround(c.duration_ns * 1000.0));
  if (start_ps + duration_ps <= kMaxSimTimePs) return;
  const auto ns = [](std::uint64_t ps) { return fmt::format("{}.{:03}", ps / 1000, ps % 1000); };
  s.fail("duration_ns",
         fmt::format("the stream would stop issuing at start_ns + duration_ns = {:.6g} s, past "
                     "2^48 ps (281 s), the longest famsim represents; expected start_ns + "
                     "duration_ns of at most {} ns (here duration_ns at most {})",
                     static_cast<double>(start_ps + duration_ps) * 1e-12, ns(kMaxSimTimePs),
                     ns(kMaxSimTimePs - start_ps)));
}

// A paced stream (issue_rate_gbps) issues access k at start + k x access_bytes / rate (as
// StreamGenerator rounds the interval): its last access must come within the longest simulated
// time, or the run would stop at 281 s with nothing to say which stream asked for it. A stream
// that starts after others (start_after) starts later still; that is found during the run.
void check_pacing_span(const ConfigNode& s, const StreamConfig& c) {
  if (c.issue_rate_gbps <= 0 || c.total_bytes == std::numeric_limits<std::uint64_t>::max()) return;
  const std::uint64_t accesses = (c.total_bytes + c.access_bytes - 1) / c.access_bytes;
  const double interval_ps = static_cast<double>(
      std::llround(static_cast<double>(c.access_bytes) / c.issue_rate_gbps * 1000.0));
  const double start_ps = c.start_ns * 1e3;
  double last_ps = start_ps + static_cast<double>(accesses - 1) * interval_ps;
  if (c.duration_ns > 0) last_ps = std::min(last_ps, start_ps + c.duration_ns * 1e3);
  if (last_ps <= static_cast<double>(kMaxSimTimePs)) return;
  const double min_rate = static_cast<double>(c.access_bytes) * static_cast<double>(accesses - 1) /
                          ((static_cast<double>(kMaxSimTimePs) - start_ps) * 1e-3);
  s.fail("issue_rate_gbps",
         fmt::format("at {} GB/s the stream's {} accesses of {} B (total_bytes {}) would be issued "
                     "until {:.6g} s, past 2^48 ps (281 s), the longest famsim represents; "
                     "expected at least {:.6g} GB/s, or a smaller total_bytes, or a duration_ns",
                     c.issue_rate_gbps, accesses, c.access_bytes, c.total_bytes, last_ps * 1e-12,
                     min_rate));
}

VmmEventConfig parse_vmm_event(ConfigNode& e, const WorkloadConfig& w, const PlatformFacts& facts) {
  VmmEventConfig v;
  v.path = e.path();
  const std::string op = e.get_choice("op", std::nullopt, {"unmap", "set_access", "remap"});
  v.op = op == "unmap"        ? VmmEventConfig::Op::kUnmap
         : op == "set_access" ? VmmEventConfig::Op::kSetAccess
                              : VmmEventConfig::Op::kRemap;
  v.at_ns = e.get_double("at_ns", std::nullopt, 0.0, 2.8e11);
  // cuMemMap/cuMemUnmap/cuMemSetAccess are driver calls of microseconds; the cost is the
  // workload's to give, default none.
  v.cost_ns = e.get_double("cost_ns", 0.0, 0.0, 2.8e11);
  // The event takes effect at at_ns + cost_ns (a remap's new mapping; an unmap's or set_access's
  // change, Simulation::schedule_vmm_events), rounded to the ps as there: a time famsim represents.
  const auto done_ps = static_cast<std::uint64_t>(std::llround((v.at_ns + v.cost_ns) * 1000.0));
  if (done_ps > kMaxSimTimePs) {
    const auto ns = [](std::uint64_t ps) { return fmt::format("{}.{:03}", ps / 1000, ps % 1000); };
    e.fail_among({"cost_ns", "at_ns"},
                 fmt::format("the event ends at at_ns + cost_ns = {} + {} = {} ns, past 2^48 ps "
                             "(281 s), the longest famsim represents; expected at_ns + cost_ns of "
                             "at most {} ns",
                             ns(static_cast<std::uint64_t>(std::llround(v.at_ns * 1000.0))),
                             ns(static_cast<std::uint64_t>(std::llround(v.cost_ns * 1000.0))),
                             ns(done_ps), ns(kMaxSimTimePs)));
  }
  const std::string name = e.get_string("stream", std::nullopt);
  std::size_t j = 0;
  while (j < w.streams.size() && w.streams[j].name != name) ++j;
  if (j == w.streams.size()) e.fail("stream", "'" + name + "' is not the name of a stream");
  const StreamConfig& st = w.streams[j];
  if (st.generator) e.fail("stream", "'" + name + "' has no buffer (it is a generator stream)");
  if (st.buffer_from >= 0) {
    e.fail("stream", "'" + name + "' uses the buffer of '" +
                         w.streams[static_cast<std::size_t>(st.buffer_from)].name +
                         "': name that stream");
  }
  v.stream = static_cast<unsigned>(j);
  const std::uint64_t gran = AddressSpace::kDefaultGranularity;
  const std::uint64_t size = (st.buffer_bytes + gran - 1) / gran * gran;
  const auto check_granule = [&](const char* key, std::uint64_t value) {
    if (value % gran == 0) return;
    e.fail(key, fmt::format("{} B is not a multiple of the allocation granularity; expected a "
                            "multiple of {} MiB ({} B)",
                            value, gran >> 20, gran));
  };
  // The offset is checked before bytes is read: the range bytes may take ends at size -
  // offset_bytes, which an unaligned offset would make an unaligned bound, and bytes would be
  // blamed for the offset's fault.
  v.offset_bytes = e.get_bytes("offset_bytes", 0, 0, size - gran);
  check_granule("offset_bytes", v.offset_bytes);
  v.bytes = e.get_bytes("bytes", size - v.offset_bytes, gran, size - v.offset_bytes);
  check_granule("bytes", v.bytes);
  if (v.op == VmmEventConfig::Op::kSetAccess) {
    const std::string a = e.get_choice("access", std::nullopt, {"none", "read", "read_write"});
    v.access = a == "none"   ? AccessRight::kNone
               : a == "read" ? AccessRight::kRead
                             : AccessRight::kReadWrite;
    v.gpus = parse_gpus(e, facts);
  } else {
    v.gpus = st.gpus;
  }
  if (v.op == VmmEventConfig::Op::kRemap) {
    if (st.shared || st.gpus.size() > 1) {
      // One buffer per GPU: each GPU's range is remapped (a shared buffer: the one range).
    }
    v.location = parse_placement(e, "location", facts, st.gpus);
  }
  e.finish();
  return v;
}

}  // namespace

namespace {

// A stream that verifies its reads checks them against the pattern data_seed writes at each
// address, so some pattern stream must write into its buffer (the stream itself, or
// one sharing the buffer through from_stream); otherwise every read is a mismatch and the run
// would end as a failed conservation check, a model failure, for a workload mistake.
void check_verified_reads(const WorkloadConfig& w, std::vector<ConfigNode>& nodes) {
  auto buffer_of = [&](std::size_t i) {
    while (w.streams[i].buffer_from >= 0) i = static_cast<std::size_t>(w.streams[i].buffer_from);
    return i;
  };
  // Stream j writes the pattern into stream i's buffer. Not the seed: reading back with another
  // seed than written is how a test shows the check looks at the data.
  auto writes_buffer_of = [&](std::size_t j, std::size_t i) {
    const StreamConfig& o = w.streams[j];
    return !o.generator && o.read_fraction < 1.0 && buffer_of(j) == buffer_of(i);
  };
  for (std::size_t i = 0; i < w.streams.size(); ++i) {
    const StreamConfig& v = w.streams[i];
    if (!v.verify_reads) continue;
    bool written = false;
    for (std::size_t j = 0; j < w.streams.size() && !written; ++j) written = writes_buffer_of(j, i);
    if (!written) {
      nodes[i].fail("verify_reads",
                    "no stream writes this stream's buffer, so every read would mismatch; "
                    "expected a stream with read_fraction below 1 on the same buffer (this one, "
                    "or one sharing it through from_stream)");
    }
    // The writes must come first: a stream that writes the buffer on each of this stream's GPUs
    // and that this one starts after (start_after, directly or through others; it waits per
    // GPU). Its own writes do not count: a read of an address it has not written yet mismatches
    // (a mixed stream, or a reader racing its writer).
    std::vector<bool> before(w.streams.size(), false);
    std::vector<std::size_t> todo(v.start_after.begin(), v.start_after.end());
    while (!todo.empty()) {
      const std::size_t j = todo.back();
      todo.pop_back();
      if (before[j]) continue;
      before[j] = true;
      todo.insert(todo.end(), w.streams[j].start_after.begin(), w.streams[j].start_after.end());
    }
    bool ordered = false;
    for (std::size_t j = 0; j < w.streams.size() && !ordered; ++j) {
      const StreamConfig& o = w.streams[j];
      ordered = before[j] && writes_buffer_of(j, i) &&
                std::all_of(v.gpus.begin(), v.gpus.end(), [&](unsigned g) {
                  return std::find(o.gpus.begin(), o.gpus.end(), g) != o.gpus.end();
                });
    }
    if (!ordered) {
      nodes[i].fail("verify_reads",
                    "no stream that writes this stream's buffer on its GPUs finishes before it "
                    "starts, so its reads can come before the writes and mismatch (a failed "
                    "data check, exit 1, for a workload mistake); expected start_after naming "
                    "a stream with read_fraction below 1 on the same buffer and GPUs");
    }
  }
}

}  // namespace

WorkloadConfig parse_workload(ConfigNode node, const PlatformFacts& facts) {
  WorkloadConfig w;
  w.name = node.get_string("name", "workload");
  // It names the workload in stats.json (sim.workload), the summary and famsim bench.
  if (w.name.empty()) node.fail("name", "expected a non-empty workload name");
  w.description = node.get_string("description", "");
  std::vector<ConfigNode> streams = node.list("streams", true);
  if (streams.empty()) node.fail("streams", "expected at least one stream");
  for (std::size_t i = 0; i < streams.size(); ++i) {
    ConfigNode& s = streams[i];
    check_stream_keys(s);
    StreamConfig c;
    c.path = s.path();
    c.where = node.location("streams", i);
    c.name = s.get_string("name", "stream" + std::to_string(i));
    // It keys the stream's results in stats.json (workload.streams.<name>) and start_after.
    if (c.name.empty()) s.fail("name", "expected a non-empty stream name");
    for (const StreamConfig& other : w.streams) {
      if (other.name == c.name) s.fail("name", "another stream is already named '" + c.name + "'");
    }
    c.gpus = parse_gpus(s, facts);

    const std::string kind = generator_kind(s);
    c.duration_ns = s.get_double("duration_ns", 0.0, 0.0, 2.8e11);
    if (kind.empty()) {
      if (s.has("stripe_start")) {
        s.fail("stripe_start", "a pattern stream gives it under buffer (buffer.stripe_start)");
      }
      parse_pattern_stream(s, c, w, facts);
    } else {
      ConfigNode g = s.child(kind);
      c.generator = parse_generator(kind, g, facts, c.gpus);
      c.stripe_by_gpu = s.get_choice("stripe_start", "first", {"first", "by_gpu"}) == "by_gpu";
      if (c.stripe_by_gpu) {
        bool striped = false;
        for (const RegionSpec& r : c.generator->regions())
          striped = striped || r.where.kind == Placement::Kind::kStriped;
        if (!striped) {
          s.fail("stripe_start",
                 "by_gpu applies to regions striped over devices (a location "
                 "that lists devices); this " +
                     kind + " stream has none");
        }
      }
      for (const char* k : kPatternKeys) {
        s.ignore(k);
        if (s.has(k)) s.fail(k, std::string("does not apply to a ") + kind + " stream");
      }
    }
    c.max_outstanding = static_cast<unsigned>(
        s.get_uint("max_outstanding", facts.gpu_max_outstanding, 1, 1u << 20));
    c.start_ns = s.get_double("start_ns", 0.0, 0.0, 2.8e11);
    check_stop_time(s, c);
    if (!c.generator) check_pacing_span(s, c);

    c.gap_ns = s.get_double("gap_ns", 0.0, 0.0, 2.8e11);
    // start_after may only name earlier streams, so dependencies never form a cycle.
    for (const std::string& n : s.get_string_list("start_after")) {
      std::size_t j = 0;
      while (j < w.streams.size() && w.streams[j].name != n) ++j;
      if (j == w.streams.size()) {
        s.fail("start_after", "'" + n + "' is not the name of an earlier stream");
      }
      c.start_after.push_back(static_cast<unsigned>(j));
    }
    if (c.gap_ns > 0 && c.start_after.empty()) {
      s.fail("gap_ns", "is the compute gap after the streams in start_after; give start_after");
    }
    s.finish();
    w.streams.push_back(c);
  }
  check_verified_reads(w, streams);
  w.count_faults = node.get_choice("on_fault", "stop", {"stop", "count"}) == "count";
  std::vector<ConfigNode> events = node.list("vmm_events");
  for (std::size_t i = 0; i < events.size(); ++i) {
    w.vmm_events.push_back(parse_vmm_event(events[i], w, facts));
    w.vmm_events.back().source = node.written_at("vmm_events", i);
  }
  node.finish();
  return w;
}

}  // namespace famsim
