// Data integrity and conservation: what is written through the whole path reads back byte for
// byte, and a component that loses requests is caught by the conservation check with the lost
// requests listed.
#include "tests/support/test_support.h"

#include "models/core/ports.h"
#include "models/core/sim_context.h"
#include "models/gpu/gpu.h"
#include "traffic/generator.h"
#include "traffic/vmm.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace famsim {
namespace {

// Writes 4 MiB per GPU in 4 KiB accesses (32 requests of 128 B each), then reads it all back and
// compares every byte with the pattern written.
std::string write_then_read(std::uint64_t read_seed) {
  return R"(
name: integrity
streams:
  - name: write
    gpus: all
    buffer: {bytes: 4MiB, location: device/fam0}
    pattern: sequential
    read_fraction: 0.0
    access_bytes: 4KiB
    data_seed: 42
  - name: read_back
    gpus: all
    buffer: {from_stream: write}
    pattern: sequential
    read_fraction: 1.0
    access_bytes: 4KiB
    verify_reads: true
    data_seed: )" +
         std::to_string(read_seed) + R"(
    start_after: [write]
)";
}

TEST(DataIntegrity, WhatIsWrittenThroughTheSwitchedPlatformReadsBack) {
  const auto r = test::run_sim(test::source_file("platforms/nvl8_fam.yaml"), write_then_read(42));
  const std::uint64_t per_gpu_requests = 2 * (4ULL << 20) / 128;  // write + read
  EXPECT_EQ(r["conservation"]["completed"].get<std::uint64_t>(), 8 * per_gpu_requests);
  EXPECT_EQ(r["summary"]["read_bytes"].get<std::uint64_t>(), 8 * (4ULL << 20));
  EXPECT_EQ(r["conservation"]["data_mismatches"].get<std::uint64_t>(), 0u);
  EXPECT_TRUE(r["conservation"]["ok"].get<bool>());
}

TEST(DataIntegrity, RequestsSplitAcrossChannelsReadBack) {
  // A 64 B interleave under 128 B requests: the device splits every request into 2 parts, one to
  // each of its 2 channels (modulo).
  const auto r = test::run_sim(test::source_file("platforms/minimal.yaml"), write_then_read(42),
                               {"devices.0.memory.interleave.granule_bytes=64"});
  const std::uint64_t requests = 2 * (4ULL << 20) / 128;
  EXPECT_EQ(r["conservation"]["completed"].get<std::uint64_t>(), requests);
  EXPECT_EQ(r["conservation"]["data_mismatches"].get<std::uint64_t>(), 0u);
  EXPECT_TRUE(r["conservation"]["ok"].get<bool>());
  const auto& pl = r["components"]["fam0.port_logic"];
  EXPECT_EQ(pl["split_requests"].get<std::uint64_t>(), requests);
  EXPECT_EQ(pl["parts"].get<std::uint64_t>(), 2 * requests);
  // Each channel got one half of every request: 4 MiB written and read per channel in 64 B.
  for (const char* ch : {"fam0.memory.ch0", "fam0.memory.ch1"}) {
    EXPECT_EQ(r["components"][ch]["write_bytes"].get<std::uint64_t>(), 2ULL << 20) << ch;
    EXPECT_EQ(r["components"][ch]["read_bytes"].get<std::uint64_t>(), 2ULL << 20) << ch;
  }
}

TEST(Atomics, AnAtomicStreamReachesTheMemoryAsAtomics) {
  // 4 KiB of 8 B words, one fetch-add each: 512 atomics issued by the GPU, executed by the
  // device's channels (256 B modulo interleave over 2 channels: 256 each), each a DRAM read and a
  // write-back of its burst.
  const std::string workload = R"(
name: atomics
streams:
  - name: counters
    gpus: all
    buffer: {bytes: 4KiB, location: device/fam0}
    pattern: sequential
    access_bytes: 8
    atomic: {op: fetch_add, operand: 3}
)";
  const auto r = test::run_sim(test::source_file("platforms/minimal.yaml"), workload);
  EXPECT_TRUE(r["conservation"]["ok"].get<bool>());
  EXPECT_EQ(r["conservation"]["completed"].get<std::uint64_t>(), 512u);
  EXPECT_EQ(r["components"]["gpu0"]["atomics"].get<std::uint64_t>(), 512u);
  EXPECT_EQ(r["components"]["fam0.port_logic"]["atomics"].get<std::uint64_t>(), 512u);
  for (const char* ch : {"fam0.memory.ch0", "fam0.memory.ch1"}) {
    const auto& c = r["components"][ch];
    EXPECT_EQ(c["atomics"].get<std::uint64_t>(), 256u) << ch;
    // Every atomic is a read and a write-back of one 64 B burst.
    EXPECT_EQ(c["commands"]["RD"].get<std::uint64_t>() + c["commands"]["RDA"].get<std::uint64_t>(),
              256u)
        << ch;
    EXPECT_EQ(c["commands"]["WR"].get<std::uint64_t>() + c["commands"]["WRA"].get<std::uint64_t>(),
              256u)
        << ch;
  }
}

TEST(DataIntegrity, AWrongExpectedPatternIsCaught) {
  // Reading back with another seed than the one written must flag every read request: proof
  // that the check looks at the data.
  const auto r = test::run_sim(test::source_file("platforms/minimal.yaml"), write_then_read(43));
  EXPECT_EQ(r["conservation"]["data_mismatches"].get<std::uint64_t>(), (4ULL << 20) / 128);
  EXPECT_FALSE(r["conservation"]["ok"].get<bool>());
}

// A memory target that answers every request but each third one, which it keeps forever.
class LosingTarget : public sc_core::sc_module, public Component {
 public:
  TargetPort<LosingTarget> up;

  LosingTarget(sc_core::sc_module_name name, SimContext& ctx)
      : sc_core::sc_module(name),
        Component(ctx.registry, this->name(), BlockKind::kMemory),
        up("up", *this, 0),
        pending_(64),
        wake_("wake", ctx.scheduler(), this, &Wakeup::call_behaviour<LosingTarget>) {
    SC_HAS_PROCESS(LosingTarget);
    SC_METHOD(behaviour);
    sensitive << wake_.event();
    dont_initialize();
  }

  Sync fw(unsigned, Payload& p, Phase& phase, sc_core::sc_time&) {
    if (phase == tlm::END_RESP) return tlm::TLM_ACCEPTED;
    RequestExt& e = ext_of(p);
    e.enter(block_id(), 0, now_ps());
    if (++seen_ % 3 == 0) {
      lost_.push_back(&p);
      lost_ids_.insert(e.id);
      return accept_now(p, phase, tlm::END_REQ);
    }
    pending_.push_back(&p);
    wake_.at(now_ps() + 5000);
    return accept_now(p, phase, tlm::END_REQ);
  }

  void behaviour() {
    wake_.fired();
    while (!pending_.empty()) {
      Payload& p = *pending_.front();
      pending_.pop_front();
      ext_of(p).resp_enter(now_ps());
      p.set_response_status(tlm::TLM_OK_RESPONSE);
      EXPECT_TRUE(up.send_resp(p));
      p.release();
    }
  }

  void report(ComponentReport&, const ReportWindow&) const override {}
  std::size_t occupancy() const override { return lost_.size() + pending_.size(); }

  std::vector<Payload*> lost_;
  std::set<std::uint64_t> lost_ids_;

 private:
  std::uint64_t seen_ = 0;
  Ring<Payload*> pending_;
  Wakeup wake_;
};

TEST(Conservation, ALosingComponentFailsTheCheckWithTheStuckRequestsListed) {
  SimContext ctx(128, 1);
  AddressSpace vmm(1);
  vmm.add_location("mem", 0, 1ULL << 30);
  LocalMemoryRoute no_local;
  GpuParams gp;
  gp.clock_mhz = 1000;
  gp.max_outstanding = 16;  // room for the 10 lost requests plus traffic
  Gpu gpu("gpu0", ctx, 0, gp, 1, no_local, vmm);
  LosingTarget target("lossy", ctx);
  gpu.fabric(0).bind(target.up);

  StreamConfig s;
  s.name = "reads";
  s.gpus = {0};
  s.buffer_bytes = 2ULL << 20;
  s.pattern = Pattern::kSequential;
  s.access_bytes = 128;
  s.total_bytes = 30 * 128;  // 30 requests: requests 3, 6, ..., 30 are lost (10 of them)
  s.max_outstanding = 16;
  const std::uint64_t va = vmm.reserve(s.buffer_bytes);
  vmm.map(va, s.buffer_bytes, vmm.create(s.buffer_bytes, 0), 0);
  vmm.set_access(va, s.buffer_bytes, 0, AccessRight::kRead);
  gpu.add_stream(s, 0, std::make_unique<StreamGenerator>(s, va, s.buffer_bytes, 1), {});

  sc_core::sc_start();

  InitiatorTotals t;
  t.issued = gpu.issued();
  t.completed = gpu.completed();
  t.bytes_requested = gpu.bytes_requested();
  t.bytes_delivered = gpu.bytes_delivered();
  const nlohmann::json c = check_conservation(ctx, t);
  EXPECT_FALSE(c["ok"].get<bool>());
  EXPECT_EQ(c["issued"].get<std::uint64_t>(), 30u);
  EXPECT_EQ(c["completed"].get<std::uint64_t>(), 20u);
  EXPECT_EQ(c["leaked_payloads"].get<std::uint64_t>(), 10u);
  EXPECT_EQ(c["components_holding_requests"]["lossy"].get<std::uint64_t>(), 10u);
  ASSERT_EQ(c["stuck_requests"].size(), 10u);
  std::set<std::uint64_t> listed;
  for (const auto& s : c["stuck_requests"]) {
    listed.insert(s["id"].get<std::uint64_t>());
    EXPECT_EQ(s["last_block"].get<std::string>(), "lossy");
    EXPECT_EQ(s["direction"].get<std::string>(), "request");
  }
  EXPECT_EQ(listed, target.lost_ids_);
  // Let the pool go cleanly: the lost payloads are released here.
  for (Payload* p : target.lost_) p->release();
}

}  // namespace
}  // namespace famsim
