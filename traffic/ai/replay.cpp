// replay: a famsim timed access trace (traffic/trace/request_trace.h) replayed through the GPUs.
//
// Keys (stream.replay):
//   file          the trace: "TIME_NS GPU R|W ADDRESS SIZE" per line
//   bytes         size of the buffer the trace addresses (per GPU)
//   location      where the buffer lives (gpu_local, gpu/<g>, device/<name> or a device list)
//   time_scale    trace times are multiplied by this, default 1
//
// ADDRESS is an offset into the GPU's buffer (the buffer is mapped like any stream's buffer, so
// the GPU translates real pages); an access past the buffer's end is an error naming the line.
// Each GPU of the stream replays the lines with its index, each no earlier than its time (open
// loop: a GPU that falls behind issues as fast as max_outstanding and backpressure allow); lines
// for the platform's other GPUs are skipped, a line for a GPU the platform does not have is an
// error naming the line (found when the run reaches it: the trace is streamed, not read ahead).
#include "traffic/ai/generators.h"
#include "models/core/time_text.h"
#include "traffic/trace/request_trace.h"

#include <fmt/format.h>

#include <cmath>

namespace famsim {

namespace {

struct ReplayParams {
  std::string file;
  std::uint64_t bytes = 0;
  Placement where;
  double time_scale = 1.0;
  unsigned platform_gpus = 1;  // a line for a GPU at or above this is an error
};

class ReplaySource : public AccessSource {
 public:
  ReplaySource(const ReplayParams& p, const SourceContext& c)
      : p_(p), gpu_(c.gpu), base_(c.region_va[0]), reader_(p.file) {}

  State next(std::uint64_t now_ps, Access& a, std::uint64_t& wake_ps) override {
    if (!have_) {
      do {
        if (!reader_.next(rec_)) return State::kDone;
        if (rec_.gpu >= p_.platform_gpus) {
          throw TraceError(fmt::format(
              "{}:{}: no GPU {} on this platform ({} GPU{}, 0..{}); "
              "expected a GPU index below {}",
              p_.file, rec_.line, rec_.gpu, p_.platform_gpus, p_.platform_gpus == 1 ? "" : "s",
              p_.platform_gpus - 1, p_.platform_gpus));
        }
      } while (rec_.gpu != gpu_);
      if (rec_.va >= p_.bytes || rec_.bytes > p_.bytes - rec_.va) {
        throw TraceError(
            fmt::format("{}:{}: access 0x{:x}+{} B is past the end of the stream's "
                        "{} B buffer; expected an offset into the buffer",
                        p_.file, rec_.line, rec_.va, rec_.bytes, p_.bytes));
      }
      // Past the longest simulated time: an error naming the line, not a wake-up the scheduler
      // refuses with no word of where it came from.
      const double due_ps = static_cast<double>(rec_.time_ps) * p_.time_scale;
      if (due_ps > static_cast<double>(kMaxSimTimePs)) {
        throw TraceError(fmt::format(
            "{}:{}: time {} ns{} is past 2^48 ps (281 s), the longest famsim represents; "
            "expected a time below {} ns",
            p_.file, rec_.line, ns_of_ps(rec_.time_ps),
            p_.time_scale == 1.0
                ? std::string()
                : fmt::format(" x time_scale {} = {} ns", p_.time_scale, ns_of_ps(due_ps)),
            ns_of_ps(static_cast<double>(kMaxSimTimePs) / p_.time_scale)));
      }
      have_ = true;
      due_ps_ = static_cast<std::uint64_t>(std::llround(due_ps));
    }
    if (now_ps < due_ps_) {
      wake_ps = due_ps_;
      return State::kWait;
    }
    a.va = base_ + rec_.va;
    a.bytes = rec_.bytes;
    a.write = rec_.write;
    a.due_ps = due_ps_;
    have_ = false;
    ++replayed_;
    return State::kReady;
  }

  nlohmann::json report() const override { return {{"accesses_replayed", replayed_}}; }

 private:
  const ReplayParams& p_;
  unsigned gpu_;
  std::uint64_t base_;
  TimedTraceReader reader_;
  TimedAccess rec_;
  bool have_ = false;
  std::uint64_t due_ps_ = 0;
  std::uint64_t replayed_ = 0;
};

class ReplaySpec : public GeneratorSpec {
 public:
  explicit ReplaySpec(ReplayParams p) : p_(std::move(p)) {}
  const char* kind() const override { return "replay"; }
  std::vector<RegionSpec> regions() const override {
    return {{"buffer", p_.bytes, p_.where, true, {"bytes"}, fmt::format("bytes {}", p_.bytes)}};
  }
  std::unique_ptr<AccessSource> make_source(const SourceContext& c) const override {
    return std::make_unique<ReplaySource>(p_, c);
  }
  nlohmann::json summary() const override {
    return {{"file", p_.file}, {"buffer_bytes", p_.bytes}, {"time_scale", p_.time_scale}};
  }

 private:
  ReplayParams p_;
};

}  // namespace

std::shared_ptr<const GeneratorSpec> parse_replay(ConfigNode& n, const PlatformFacts& facts,
                                                  const std::vector<unsigned>& gpus) {
  ReplayParams p;
  p.file = n.get_path("file");
  p.bytes = n.get_bytes("bytes", std::nullopt, 1);
  p.where = parse_placement(n, "location", facts, gpus);
  p.time_scale = n.get_double("time_scale", 1.0, 0.0, 1e6);
  p.platform_gpus = facts.gpu_count;
  n.finish();
  // Fail now, naming the key, rather than mid-run; a trace without one access would replay
  // nothing and report an empty run as a success.
  try {
    TimedTraceReader probe(p.file);
    TimedAccess first;
    if (!probe.next(first)) {
      n.fail("file", p.file +
                         ": no accesses in the trace; expected at least one line "
                         "'TIME_NS GPU R|W ADDRESS SIZE'");
    }
  } catch (const TraceError& e) {
    n.fail("file", e.what());
  }
  return std::make_shared<ReplaySpec>(std::move(p));
}

}  // namespace famsim
