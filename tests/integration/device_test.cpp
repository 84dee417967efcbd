// The expansion device on its own (port logic, NoC, memory channels), driven straight at its
// fabric ports by a scripted initiator: request splitting at interleave granules, atomics,
// response ordering and the tag table's backpressure. Expected data and orders are worked out by
// hand from the operations; expected counts from the interleave arithmetic.
#include "tests/support/foreign_tlm.h"
#include "tests/support/test_support.h"

#include "models/core/ports.h"
#include "models/core/sim_context.h"
#include "platforms/builder.h"
#include "platforms/platform_config.h"
#include "models/memory/dram/dram_command.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <set>
#include <string>
#include <vector>

namespace famsim {
namespace {

using test::pattern;

struct PortOp {
  enum Kind { kRead, kWrite, kFetchAdd, kCompareSwap } kind = kRead;
  std::uint64_t offset = 0;  // into the device
  std::uint32_t length = 0;
  std::vector<unsigned char> data;  // write data
  std::uint64_t operand = 0;
  std::uint64_t compare = 0;
  std::uint16_t source = 0;  // issuing GPU
  // Results.
  std::vector<unsigned char> answer;  // read data / an atomic's old value
  bool answered = false;
  std::uint64_t end_req_ps = 0;
  std::uint64_t response_ps = 0;
  std::uint64_t value() const {  // the answer as a little-endian word
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < answer.size() && i < 8; ++i)
      v |= std::uint64_t{answer[i]} << (8 * i);
    return v;
  }
};

PortOp port_write(std::uint64_t offset, std::vector<unsigned char> data) {
  PortOp o;
  o.kind = PortOp::kWrite;
  o.offset = offset;
  o.length = static_cast<std::uint32_t>(data.size());
  o.data = std::move(data);
  return o;
}
PortOp port_read(std::uint64_t offset, std::uint32_t length) {
  PortOp o;
  o.offset = offset;
  o.length = length;
  return o;
}
PortOp port_atomic(PortOp::Kind kind, std::uint64_t offset, std::uint32_t length,
                   std::uint64_t operand, std::uint64_t compare = 0) {
  PortOp o;
  o.kind = kind;
  o.offset = offset;
  o.length = length;
  o.operand = operand;
  o.compare = compare;
  return o;
}
std::vector<unsigned char> word(std::uint64_t v, unsigned length) {
  std::vector<unsigned char> b(length);
  for (unsigned i = 0; i < length; ++i) b[i] = static_cast<unsigned char>(v >> (8 * i));
  return b;
}

// Sends its operations in order on one fabric port, at most `window` unanswered at once (1: each
// waits for the previous answer).
class Driver : public sc_core::sc_module {
 public:
  InitiatorPort<Driver> out;

  Driver(sc_core::sc_module_name name, SimContext& ctx, std::uint64_t base,
         std::vector<PortOp>& ops, unsigned window)
      : sc_core::sc_module(name),
        out("out", *this, 0),
        ctx_(ctx),
        base_(base),
        ops_(ops),
        window_(window),
        wake_("wake", ctx.scheduler(), this, &Wakeup::call_behaviour<Driver>) {}

  void start(std::uint64_t at_ps) { wake_.at(at_ps, 0); }

  Sync bw(unsigned, Payload& p, Phase& phase, sc_core::sc_time&) {
    const std::uint64_t now = now_ps();
    if (phase == tlm::END_REQ) {
      ops_[ext_of(p).id].end_req_ps = now;
      waiting_end_req_ = false;
      wake_.asap();
      return tlm::TLM_ACCEPTED;
    }
    if (phase != tlm::BEGIN_RESP) protocol_error(name(), phase, "the device");
    RequestExt& e = ext_of(p);
    PortOp& op = ops_[e.id];
    if (op.answered) ++duplicates;
    op.answered = true;
    op.response_ps = now;
    if (p.get_response_status() != tlm::TLM_OK_RESPONSE) ++errors;
    if (!e.write) op.answer.assign(p.get_data_ptr(), p.get_data_ptr() + e.length);
    ++answered;
    --in_flight_;
    wake_.asap();
    p.release();
    return tlm::TLM_COMPLETED;
  }

  void behaviour() {
    wake_.fired();
    const std::uint64_t now = now_ps();
    while (!waiting_end_req_ && next_ < ops_.size() && in_flight_ < window_) {
      PortOp& op = ops_[next_];
      Payload& p = ctx_.pool.allocate();
      p.acquire();
      const bool write = op.kind == PortOp::kWrite;
      p.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
      p.set_address(base_ + op.offset);
      p.set_data_length(op.length);
      p.set_streaming_width(op.length);
      RequestExt& e = ext_of(p);
      e.id = next_;
      e.gpu = op.source;
      e.write = write;
      e.length = op.length;
      e.physical_address = base_ + op.offset;
      e.issue_ps = now;
      e.outstanding = true;
      e.dest_gpu = RequestExt::kNoGpu;
      if (op.kind == PortOp::kFetchAdd) e.atomic = AtomicOp::kFetchAdd;
      if (op.kind == PortOp::kCompareSwap) e.atomic = AtomicOp::kCompareSwap;
      e.atomic_operand = op.operand;
      e.atomic_compare = op.compare;
      if (write) std::memcpy(p.get_data_ptr(), op.data.data(), op.length);
      e.enter(0, 0, now);
      ++next_;
      ++in_flight_;
      if (!out.send_req(p)) {
        waiting_end_req_ = true;
      } else {
        op.end_req_ps = now;
      }
    }
  }

  unsigned answered = 0;
  unsigned duplicates = 0;
  unsigned errors = 0;

 private:
  SimContext& ctx_;
  std::uint64_t base_;
  std::vector<PortOp>& ops_;
  unsigned window_;
  std::size_t next_ = 0;
  unsigned in_flight_ = 0;
  bool waiting_end_req_ = false;
  Wakeup wake_;
};

constexpr std::uint64_t kDeviceBase = 1ULL << 40;
constexpr std::uint64_t kPortPeriodPs = 1000;  // port logic at 1000 MHz

// A device of 2 fabric ports and 4 ideal channels interleaved at 64 B (modulo), with the given
// port_logic keys added.
DeviceConfig device_config(
    const std::string& port_logic_extra,
    const std::string& interleave = "granule_bytes: 64, channel_select: modulo",
    unsigned access_latency_cycles = 20, const std::string& memory = "") {
  const std::string yaml =
      std::string(R"(
name: device_test
gpus: {count: 1, clock_mhz: 1000, request_bytes: 128, max_outstanding: 64}
links:
  gpu_device: {preset: nvlink4, per_gpu: 2}
devices:
  - name: fam0
    capacity_gib: 1
    fabric_ports: 2
    port_logic: {clock_mhz: 1000, ingress_cycles: 8, egress_cycles: 8)") +
      (port_logic_extra.find("tags_per_port") == std::string::npos ? ", tags_per_port: 16" : "") +
      port_logic_extra + R"(}
    noc: {kind: crossbar, clock_mhz: 1000, pipeline_cycles: 4, width_bytes: 64, input_buffer: 16, output_buffer: 8}
    memory: )" +
      (memory.empty() ? "{model: ideal, standard: TEST, data_rate_mtps: 2000, channel_width_bits: "
                        "64, clock_mhz: 1000, access_latency_cycles: " +
                            std::to_string(access_latency_cycles) + ", channels: 4, "
                      : memory + ", ") +
      "interleave: {" + interleave + "}}\n";
  const ConfigDoc doc = test::make_doc(yaml, "name: none\nstreams: []\n");
  ConfigNode root(doc.root, "", doc.sources);
  root.ignore("workload");
  PlatformConfig pc = parse_platform(root);
  return pc.devices.at(0);
}

// Runs `per_port[p]` on fabric port p to completion and returns the port logic's report.
struct DeviceRun {
  nlohmann::json port_logic;
  unsigned answered = 0;
  unsigned duplicates = 0;
  unsigned errors = 0;
};
// `pool_bytes`: the payload pool's data size, the largest request the tests send (the DRAM queues
// must hold its bursts).
DeviceRun run_device(const DeviceConfig& cfg, std::vector<std::vector<PortOp>*> per_port,
                     unsigned window, std::uint32_t pool_bytes = 512) {
  SimContext ctx(pool_bytes, 1);
  ExpansionDevice dev("fam0", ctx, cfg, kDeviceBase);
  std::vector<std::unique_ptr<Driver>> drivers;
  for (std::size_t p = 0; p < per_port.size(); ++p) {
    drivers.push_back(std::make_unique<Driver>(("driver" + std::to_string(p)).c_str(), ctx,
                                               kDeviceBase, *per_port[p], window));
    drivers.back()->out.bind(dev.port_logic().fabric(static_cast<unsigned>(p)));
    drivers.back()->start(0);
  }
  // Fabric ports without a driver would be unbound: the tests drive both.
  sc_core::sc_start();
  DeviceRun r;
  for (const auto& d : drivers) {
    r.answered += d->answered;
    r.duplicates += d->duplicates;
    r.errors += d->errors;
  }
  ReportWindow w{0, now_ps()};
  // The end of the run for the controllers: their idle tails' refreshes and command logs.
  dev.finish(w.end_ps);
  const nlohmann::json all = ctx.registry.report_all(w);
  r.port_logic = all.at("fam0.port_logic");
  EXPECT_EQ(ctx.pool.in_use(), 0u) << "payloads leaked";
  return r;
}

TEST(DeviceSplit, AWriteAcrossGranulesIsSplitAndReadsBackWholeAndInPieces) {
  // 256 B at offset 32 with 64 B granules covers bytes 32..287: granules 0..4, so 5 parts
  // (32 + 64 + 64 + 64 + 32 B); the same for the read back. The 64 B reads of granules 1..3 are
  // each within one granule: not split.
  const std::vector<unsigned char> data = pattern(256, 1);
  std::vector<PortOp> ops{port_write(32, data), port_read(32, 256), port_read(64, 64),
                          port_read(128, 64),   port_read(192, 64), port_read(0, 32)};
  std::vector<PortOp> idle;
  const DeviceRun r = run_device(device_config(""), {&ops, &idle}, 1);
  ASSERT_EQ(r.answered, ops.size());
  EXPECT_EQ(r.duplicates, 0u);
  EXPECT_EQ(r.errors, 0u);
  EXPECT_EQ(ops[1].answer, data);
  for (unsigned k = 0; k < 3; ++k) {
    const std::vector<unsigned char> piece(data.begin() + 32 + 64 * k, data.begin() + 96 + 64 * k);
    EXPECT_EQ(ops[2 + k].answer, piece) << "granule " << k + 1;
  }
  EXPECT_EQ(ops[5].answer, std::vector<unsigned char>(32, 0)) << "bytes before the write";
  EXPECT_EQ(r.port_logic["split_requests"].get<unsigned>(), 2u);
  EXPECT_EQ(r.port_logic["parts"].get<unsigned>(), 10u);
}

// A foreign initiator (through a TlmBridge) may send requests of any size from any offset, not
// the GPUs' aligned powers of two: with a pool of 100 B, a 100 B write from offset 100 covers
// bytes 100..199, bursts 1, 2 and 3 of 64 B (64..255) in channel 0 (256 B granules), one burst
// more than 100 / 64 + 1 = 2, which the DRAM controller used to size its burst list by.
TEST(DeviceSplit, AnUnalignedRequestOfAPoolNotAMultipleOfTheBurstReadsBack) {
  const DeviceConfig cfg = device_config("", "granule_bytes: 256, channel_select: modulo", 20,
                                         "{preset: ddr5_4800_x4, channels: 4");
  const std::vector<unsigned char> data = pattern(100, 3);
  std::vector<PortOp> ops{port_write(100, data), port_read(100, 100), port_read(36, 100)};
  std::vector<PortOp> idle;
  const DeviceRun r = run_device(cfg, {&ops, &idle}, 1, /*pool_bytes=*/100);
  ASSERT_EQ(r.answered, ops.size());
  EXPECT_EQ(r.errors, 0u);
  EXPECT_EQ(ops[1].answer, data);
  // Bytes 36..135: 64 unwritten (zero) bytes, then the write's first 36.
  std::vector<unsigned char> second(64, 0);
  second.insert(second.end(), data.begin(), data.begin() + 36);
  EXPECT_EQ(ops[2].answer, second);
}

// The controller's queues must hold the largest request from any offset: 3 bursts of 64 B for
// 100 B (above), 2 for 64 B, 1 for 1 B.
TEST(DeviceSplit, DramQueuesSmallerThanTheLargestUnalignedRequestAreRefused) {
  // The platform reader checks the queues against the GPUs' 128 B requests (3 bursts); set them
  // after it, as an sc_main of one's own may.
  DeviceConfig cfg = device_config("", "granule_bytes: 256, channel_select: modulo", 20,
                                   "{preset: ddr5_4800_x4, channels: 4");
  cfg.memory.dram.core.read_queue = 2;
  cfg.memory.dram.core.write_queue = 2;
  cfg.memory.dram.core.write_high_watermark = 2;
  cfg.memory.dram.core.write_low_watermark = 1;
  SimContext ctx(100, 1);
  try {
    ExpansionDevice dev("fam0", ctx, cfg, kDeviceBase);
    FAIL() << "a 100 B pool against queues of 2 bursts was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(
        e.what(),
        ::testing::HasSubstr("fam0.memory.ch0: memory.controller.read_queue and write_queue (2 and "
                             "2, in bursts of 64 B) must hold the largest request, 100 B (the "
                             "payload pool's data size) from any offset: at least 3 each"));
  }
}

// An sc_main of one's own binds ports by number: one the device does not have is an error
// naming the count (device_config: 2 fabric ports, 4 channels), not an out-of-range read.
TEST(DevicePorts, APortOrChannelTheDeviceDoesNotHaveIsAnErrorNamingTheCount) {
  SimContext ctx(128, 1);
  ExpansionDevice dev("fam0", ctx, device_config(""), kDeviceBase);
  EXPECT_NO_THROW(dev.port_logic().fabric(1));
  try {
    dev.port_logic().fabric(2);
    FAIL() << "fabric port 2 of 2";
  } catch (const std::out_of_range& e) {
    EXPECT_STREQ(e.what(),
                 "fam0.port_logic: fabric port 2 does not exist; the device has 2 "
                 "(fabric_ports)");
  }
  EXPECT_NO_THROW(dev.memory().target(3));
  try {
    dev.memory().target(4);
    FAIL() << "channel 4 of 4";
  } catch (const std::out_of_range& e) {
    EXPECT_STREQ(e.what(), "fam0.memory: channel 4 does not exist; the memory has 4 (channels)");
  }
}

// A device's DRAM controllers report only after finish() (their idle tails' refreshes): the
// error says so and names the call, rather than a finish() time of 2^64 - 1 ps.
TEST(DevicePorts, ReportingBeforeFinishNamesTheCall) {
  SimContext ctx(128, 1);
  ExpansionDevice dev("fam0", ctx,
                      device_config("", "granule_bytes: 256, channel_select: modulo", 20,
                                    "{preset: ddr5_4800_x4, channels: 4"),
                      kDeviceBase);
  try {
    ctx.registry.report_all(ReportWindow{0, 5000});
    FAIL() << "reported before finish()";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(),
                 "fam0.memory.ch0: report up to 5000 ps before finish(): call "
                 "finish(5000) first (a device built in one's own sc_main: "
                 "ExpansionDevice::finish)");
  }
  dev.finish(5000);
  EXPECT_NO_THROW(ctx.registry.report_all(ReportWindow{0, 5000}));
}

TEST(DeviceSplit, BitListInterleaveSplitsAtItsLowestBit) {
  // channel_bits [7, 9]: granule 128 B. A 256 B write at offset 64 covers granules 0..2: 3 parts.
  const std::vector<unsigned char> data = pattern(256, 2);
  std::vector<PortOp> ops{port_write(64, data), port_read(64, 256), port_read(128, 128)};
  std::vector<PortOp> idle;
  const DeviceConfig cfg = device_config("", "channel_select: bits, channel_bits: [7, 9]");
  ASSERT_EQ(cfg.memory.channel_map().granule_bytes(), 128u);
  const DeviceRun r = run_device(cfg, {&ops, &idle}, 1);
  ASSERT_EQ(r.answered, ops.size());
  EXPECT_EQ(ops[1].answer, data);
  EXPECT_EQ(ops[2].answer, std::vector<unsigned char>(data.begin() + 64, data.begin() + 192));
  EXPECT_EQ(r.port_logic["parts"].get<unsigned>(), 6u);
}

TEST(DeviceMapping, AddressesLandWhereTheHandDecodeSaysInTheDramCommandLog) {
  // 4 DDR5-4800 x4 sub-channels of 2 ranks, 256 B modulo interleave, closed pages (every read is
  // an ACT then a RDA, both logged). Hand decode (memory_map.h; default order RoRaBaCoBg, bursts
  // of 64 B, 8 bank groups, 4 banks, 2048 columns / BL16 = 128 bursts per row):
  //   channel = (offset >> 8) & 3, channel address A = (offset >> 10) << 8 | (offset & 255);
  //   b = A >> 6: bank group b & 7, column ((b >> 3) & 127) x 16, bank (b >> 10) & 3,
  //   rank (b >> 12) & 1, row b >> 13.
  DeviceConfig cfg = device_config(
      "", "granule_bytes: 256, channel_select: modulo", 20,
      "{preset: ddr5_4800_x4, channels: 4, organization: {ranks: 2}, controller: {page_policy: "
      "closed}");
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("famsim-map-" + std::to_string(::getpid())))
          .string();
  std::filesystem::create_directories(dir);
  cfg.memory.command_log_dir = dir;
  const MemoryMap map = cfg.memory.memory_map();
  // Within the device's 1 GiB.
  std::vector<std::uint64_t> offsets{0x0,        0x1c0,      0x2340,     0x7fffc0,
                                     0x12345640, 0x3fffffc0, 0x2a5a5a40, 0x10000100};
  std::vector<PortOp> ops;
  for (std::uint64_t o : offsets) ops.push_back(port_read(o, 64));
  for (std::uint64_t o : offsets) {
    const std::uint64_t a = (o >> 10) << 8 | (o & 255);
    const std::uint64_t b = a >> 6;
    const dram::DramAddress d = map.decode(o);
    EXPECT_EQ(d.channel, (o >> 8) & 3) << std::hex << o;
    EXPECT_EQ(d.bank_group, b & 7) << std::hex << o;
    EXPECT_EQ(d.column, ((b >> 3) & 127) * 16) << std::hex << o;
    EXPECT_EQ(d.bank, (b >> 10) & 3) << std::hex << o;
    EXPECT_EQ(d.rank, (b >> 12) & 1) << std::hex << o;
    EXPECT_EQ(d.row, b >> 13) << std::hex << o;
    EXPECT_EQ(map.encode(d), o) << std::hex << o;
  }
  std::vector<PortOp> idle;
  {
    const DeviceRun r = run_device(cfg, {&ops, &idle}, 1);
    ASSERT_EQ(r.answered, ops.size());
  }
  // One read at a time: the column commands, in time order over all channels, are the reads in
  // order, each after its ACT on the same bank.
  struct Logged {
    dram::CommandRecord act;
    dram::CommandRecord rd;
  };
  std::vector<std::pair<std::uint64_t, Logged>> reads;
  for (unsigned c = 0; c < 4; ++c) {
    std::ifstream in(dir + "/fam0.memory.ch" + std::to_string(c) + ".csv");
    ASSERT_TRUE(in) << "no command log for channel " << c;
    std::string line;
    std::vector<dram::CommandRecord> acts;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#' || line[0] == 'c') continue;
      std::string error;
      const auto rec = dram::parse_record(line, error);
      ASSERT_TRUE(rec) << line << ": " << error;
      if (rec->command == dram::Command::kACT) acts.push_back(*rec);
      if (dram::is_read(rec->command)) {
        ASSERT_FALSE(acts.empty());
        reads.push_back({rec->time_ps, Logged{acts.back(), *rec}});
      }
    }
  }
  std::filesystem::remove_all(dir);
  std::sort(reads.begin(), reads.end(),
            [](const auto& x, const auto& y) { return x.first < y.first; });
  ASSERT_EQ(reads.size(), offsets.size());
  for (std::size_t k = 0; k < offsets.size(); ++k) {
    const dram::DramAddress d = map.decode(offsets[k]);
    const Logged& l = reads[k].second;
    EXPECT_EQ(l.rd.channel, d.channel) << "read " << k;
    EXPECT_EQ(l.rd.rank, d.rank) << "read " << k;
    EXPECT_EQ(l.rd.bank_group, d.bank_group) << "read " << k;
    EXPECT_EQ(l.rd.bank, d.bank) << "read " << k;
    EXPECT_EQ(l.rd.column, d.column) << "read " << k;
    EXPECT_EQ(l.act.row, d.row) << "read " << k;
    EXPECT_EQ(l.act.bank, d.bank) << "read " << k;
  }
}

TEST(DeviceAtomics, FetchAddAndCompareSwapReturnOldValuesAndUpdateMemory) {
  const std::uint64_t v = 0x1122334455667788ULL;
  std::vector<PortOp> ops{
      port_write(4096, word(v, 8)),
      port_atomic(PortOp::kFetchAdd, 4096, 8, 5),              // old v, now v+5
      port_atomic(PortOp::kFetchAdd, 4096, 8, 5),              // old v+5, now v+10
      port_atomic(PortOp::kCompareSwap, 4096, 8, 42, v + 10),  // old v+10, now 42
      port_atomic(PortOp::kCompareSwap, 4096, 8, 7, 1),        // old 42, compare fails: stays 42
      port_read(4096, 8),                                      // 42
      port_write(8192, word(0xffffffffULL, 4)),                // a 4 B word
      port_atomic(PortOp::kFetchAdd, 8192, 4, 2),              // old 0xffffffff, wraps to 1
      port_read(8192, 8),                                      // word 1 and the 4 B above it (0)
  };
  std::vector<PortOp> idle;
  const DeviceRun r = run_device(device_config(""), {&ops, &idle}, 1);
  ASSERT_EQ(r.answered, ops.size());
  EXPECT_EQ(ops[1].value(), v);
  EXPECT_EQ(ops[2].value(), v + 5);
  EXPECT_EQ(ops[3].value(), v + 10);
  EXPECT_EQ(ops[4].value(), 42u);
  EXPECT_EQ(ops[5].value(), 42u);
  EXPECT_EQ(ops[7].value(), 0xffffffffULL);
  EXPECT_EQ(ops[8].value(), 1u);
  EXPECT_EQ(r.port_logic["atomics"].get<unsigned>(), 5u);
}

TEST(DeviceAtomics, ConcurrentFetchAddsFromTwoPortsAreAtomic) {
  // 2 ports x 100 fetch-adds of 1 on one word, up to 16 in flight per port: every old value
  // 0..199 is returned exactly once and the word ends at 200.
  std::vector<PortOp> a;
  std::vector<PortOp> b;
  for (int i = 0; i < 100; ++i) {
    a.push_back(port_atomic(PortOp::kFetchAdd, 512, 8, 1));
    b.push_back(port_atomic(PortOp::kFetchAdd, 512, 8, 1));
  }
  for (PortOp& o : b) o.source = 1;
  const DeviceRun r = run_device(device_config(""), {&a, &b}, 16);
  ASSERT_EQ(r.answered, 200u);
  std::set<std::uint64_t> olds;
  for (const PortOp& o : a) olds.insert(o.value());
  for (const PortOp& o : b) olds.insert(o.value());
  ASSERT_EQ(olds.size(), 200u) << "an old value was returned twice: an update was lost";
  EXPECT_EQ(*olds.begin(), 0u);
  EXPECT_EQ(*olds.rbegin(), 199u);
}

TEST(DeviceAtomics, TheAtomicUnitAddsItsLatency) {
  // At zero load an 8 B atomic and an 8 B read of the same word take the same path and the same
  // read burst; the atomic's answer then waits atomic_cycles = 30 port-logic cycles more.
  std::vector<PortOp> ops{port_read(1024, 8), port_atomic(PortOp::kFetchAdd, 1024, 8, 1)};
  std::vector<PortOp> idle;
  run_device(device_config(", atomic_cycles: 30"), {&ops, &idle}, 1);
  // Each op starts when the previous answer arrives; the driver issues on that instant.
  const std::uint64_t read_latency = ops[0].response_ps;
  const std::uint64_t atomic_latency = ops[1].response_ps - ops[0].response_ps;
  // Both start on a port-logic edge (0 and the read's answer time rounded up to an edge); measure
  // from the edge so the rounding cancels.
  const std::uint64_t atomic_start = test::edge(ops[0].response_ps, kPortPeriodPs);
  EXPECT_EQ(ops[1].response_ps - atomic_start, read_latency + 30 * kPortPeriodPs)
      << "read " << read_latency << " ps, atomic " << atomic_latency << " ps";
}

// An atomic (atomic_cycles 200) then a read of another channel, from one source on one port. Out
// of order the read answers first; in order it waits for the atomic. (One simulation per test
// process: SystemC elaborates once.)
std::vector<PortOp> atomic_then_read() {
  return std::vector<PortOp>{port_atomic(PortOp::kFetchAdd, 0, 8, 1), port_read(64, 64)};
}

TEST(DeviceOrder, OutOfOrderLetsAFinishedResponseOvertake) {
  std::vector<PortOp> ops = atomic_then_read();
  std::vector<PortOp> idle;
  const DeviceRun r = run_device(device_config(", atomic_cycles: 200"), {&ops, &idle}, 2);
  ASSERT_EQ(r.answered, 2u);
  EXPECT_LT(ops[1].response_ps, ops[0].response_ps);
  EXPECT_EQ(r.port_logic["reorder_wait_ns"].get<double>(), 0.0);
}

TEST(DeviceOrder, InOrderHoldsAFinishedResponseForAnOlderOne) {
  std::vector<PortOp> ops = atomic_then_read();
  std::vector<PortOp> idle;
  const DeviceRun r =
      run_device(device_config(", atomic_cycles: 200, response_order: in_order"), {&ops, &idle}, 2);
  ASSERT_EQ(r.answered, 2u);
  EXPECT_GT(ops[1].response_ps, ops[0].response_ps);
  EXPECT_GT(r.port_logic["reorder_wait_ns"].get<double>(), 0.0);
  EXPECT_EQ(ops[1].answer, std::vector<unsigned char>(64, 0));  // nothing written: zeros
}

TEST(DeviceOrder, InOrderIsPerSource) {
  // One port, two sources: source 1's read does not wait for source 0's slow atomic, while
  // source 0's own read does.
  std::vector<PortOp> ops{port_atomic(PortOp::kFetchAdd, 0, 8, 1), port_read(128, 64),
                          port_read(64, 64)};
  ops[1].source = 1;
  std::vector<PortOp> idle;
  const DeviceRun r =
      run_device(device_config(", atomic_cycles: 200, response_order: in_order"), {&ops, &idle}, 3);
  ASSERT_EQ(r.answered, 3u);
  EXPECT_LT(ops[1].response_ps, ops[0].response_ps) << "another source waited for the atomic";
  EXPECT_GT(ops[2].response_ps, ops[0].response_ps) << "the atomic's own source overtook it";
}

TEST(DeviceTags, AFullTagTableHoldsEndReqUntilAResponseLeaves) {
  // 2 tags per port and a slow memory (access 400 cycles): the third request is accepted (END_REQ)
  // only when the first one's response has left, and so on; nothing is lost.
  std::vector<PortOp> ops;
  for (unsigned i = 0; i < 12; ++i) ops.push_back(port_read(64 * i, 64));
  std::vector<PortOp> idle;
  const DeviceRun r =
      run_device(device_config(", tags_per_port: 2", "granule_bytes: 64", 400), {&ops, &idle}, 12);
  ASSERT_EQ(r.answered, 12u);
  EXPECT_EQ(r.duplicates, 0u);
  for (unsigned k = 2; k < ops.size(); ++k) {
    EXPECT_GE(ops[k].end_req_ps, ops[k - 2].response_ps) << "request " << k;
  }
  EXPECT_EQ(r.port_logic["ports"][0]["max_tags_in_use"].get<unsigned>(), 2u);
  EXPECT_GT(r.port_logic["backpressure_ns"].get<double>(), 0.0);
}

}  // namespace
}  // namespace famsim
