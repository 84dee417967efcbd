// famsim's device in front of foreign TLM-2.0 memories (co-simulation, TlmMemoryBridge): a device
// whose memory is `model: external` gets a textbook base-protocol target bound to each channel (a
// payload event queue, END_REQ while it has room, BEGIN_RESP a fixed latency later; or an LT-only
// target behind the convenience socket), and a textbook initiator drives the device through
// TlmBridge, so nothing at either end is famsim's. Times are worked out by hand from the device's
// configuration and the targets' latency, under both simulation kernels.
#include "tests/support/foreign_tlm.h"
#include "tests/support/test_support.h"

#include "models/core/ports.h"
#include "models/core/sim_context.h"
#include "models/cosim/tlm_bridge.h"
#include "models/cosim/tlm_memory_bridge.h"
#include "platforms/builder.h"
#include "platforms/platform_config.h"
#include "sc_main/simulation.h"

#include <gtest/gtest.h>
#include <tlm_utils/peq_with_cb_and_phase.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace famsim {
namespace {

using test::ForeignAt;
using test::kBase;
using test::kPoolBytes;
using test::Op;
using test::pattern;
using test::read_op;
using test::write_op;

constexpr std::uint64_t kLatency = 30000;    // the foreign memories' BEGIN_REQ to BEGIN_RESP, ps
constexpr std::uint64_t kOffset = 0x10000;   // address_offset: added to the channel address

// The device of tests/support/round_number_device.h (port logic 500 MHz, ingress 3, egress 2
// cycles; crossbar 1000 MHz, 4 pipeline cycles, 32 B wide; 1 GiB over 2 channels interleaved at
// 256 B) with its memory replaced by foreign targets.
std::string platform_yaml(unsigned max_outstanding) {
  return R"(
name: memory_bridge_test
gpus: {count: 1, clock_mhz: 1000, request_bytes: 128, max_outstanding: 16}
links:
  gpu_device: {preset: nvlink4, per_gpu: 1}
devices:
  - name: fam0
    capacity_gib: 1
    fabric_ports: 1
    port_logic: {clock_mhz: 500, ingress_cycles: 3, egress_cycles: 2, tags_per_port: 8}
    noc: {kind: crossbar, clock_mhz: 1000, pipeline_cycles: 4, width_bytes: 32, input_buffer: 4,
          output_buffer: 4}
    memory: {model: external, standard: FOREIGN, channel_peak_gbps: 16, channels: 2,
             max_outstanding: )" +
         std::to_string(max_outstanding) + ", address_offset: " + std::to_string(kOffset) +
         R"(,
             interleave: {granule_bytes: 256, channel_select: modulo}}
)";
}
DeviceConfig device_config(unsigned max_outstanding) {
  const ConfigDoc doc = test::make_doc(platform_yaml(max_outstanding), "name: none\nstreams: []\n");
  ConfigNode root(doc.root, "", doc.sources);
  root.ignore("workload");
  return parse_platform(root).devices.at(0);
}

// What a foreign memory saw of one request, at its own SystemC times.
struct Seen {
  tlm::tlm_command command = tlm::TLM_IGNORE_COMMAND;
  std::uint64_t address = 0;
  unsigned length = 0;
  std::uint64_t begin_req_ps = 0;
  std::uint64_t end_req_ps = 0;
  std::uint64_t begin_resp_ps = 0;
};

// Bytes by address, as both kinds of foreign memory keep them (unwritten bytes read as 0).
class Bytes {
 public:
  void access(tlm::tlm_generic_payload& p) {
    unsigned char* d = p.get_data_ptr();
    for (unsigned i = 0; i < p.get_data_length(); ++i) {
      if (p.is_write()) {
        bytes_[p.get_address() + i] = d[i];
      } else {
        const auto it = bytes_.find(p.get_address() + i);
        d[i] = it == bytes_.end() ? 0 : it->second;
      }
    }
    p.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  void write(std::uint64_t address, const std::vector<unsigned char>& data) {
    for (std::size_t i = 0; i < data.size(); ++i) bytes_[address + i] = data[i];
  }
  std::vector<unsigned char> read(std::uint64_t address, unsigned length) const {
    std::vector<unsigned char> out(length);
    for (unsigned i = 0; i < length; ++i) {
      const auto it = bytes_.find(address + i);
      out[i] = it == bytes_.end() ? 0 : it->second;
    }
    return out;
  }

 private:
  std::map<std::uint64_t, unsigned char> bytes_;
};

// An approximately timed memory as the standard's examples write one: phases through a payload
// event queue; a request gets END_REQ at its BEGIN_REQ's time while fewer than `queue` requests
// are unanswered, else when an answer leaves; BEGIN_RESP follows END_REQ by kLatency. It does a
// request's access when it takes it (END_REQ), so accesses land in the order it took them.
class ForeignMemory : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<ForeignMemory> socket;
  std::vector<Seen> seen;
  Bytes bytes;
  // Requests with this command are answered `fail_status` and change nothing
  // (TLM_IGNORE_COMMAND: none is).
  tlm::tlm_command fail_command = tlm::TLM_IGNORE_COMMAND;
  tlm::tlm_response_status fail_status = tlm::TLM_GENERIC_ERROR_RESPONSE;

  ForeignMemory(sc_core::sc_module_name name, unsigned queue)
      : sc_core::sc_module(name), socket("socket"), queue_(queue), peq_(this, &ForeignMemory::on) {
    socket.register_nb_transport_fw(this, &ForeignMemory::nb_transport_fw);
    socket.register_transport_dbg(this, &ForeignMemory::transport_dbg);
  }

 private:
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                     sc_core::sc_time& t) {
    if (phase != tlm::BEGIN_REQ) {
      ADD_FAILURE() << "the bridge sent " << phase << ": it completes every BEGIN_RESP on return";
      return tlm::TLM_COMPLETED;
    }
    // The base protocol's request exclusion rule (IEEE 1666-2011): no BEGIN_REQ before the last
    // request's END_REQ. A bridge that broke it (an atomic's hold, say) is named here, not found
    // later as a corrupted word or a crash.
    if (request_open_) {
      ADD_FAILURE() << "BEGIN_REQ for address " << p.get_address()
                    << " before END_REQ of the last request (the exclusion rule)";
    }
    request_open_ = true;
    peq_.notify(p, phase, t);
    return tlm::TLM_ACCEPTED;
  }
  unsigned transport_dbg(tlm::tlm_generic_payload& p) {
    bytes.access(p);
    return p.get_data_length();
  }
  void on(tlm::tlm_generic_payload& p, const tlm::tlm_phase& phase) {
    const std::uint64_t now = sc_core::sc_time_stamp().value();
    if (phase == tlm::BEGIN_REQ) {
      p.acquire();
      index_[&p] = seen.size();
      seen.push_back({p.get_command(), p.get_address(), p.get_data_length(), now, 0, 0});
      if (unanswered_ < queue_) {
        take(p, now);
      } else {
        waiting_.push_back(&p);
      }
      return;
    }
    // BEGIN_RESP, kLatency after END_REQ.
    seen[index_[&p]].begin_resp_ps = now;
    tlm::tlm_phase resp = tlm::BEGIN_RESP;
    sc_core::sc_time t = sc_core::SC_ZERO_TIME;
    EXPECT_EQ(socket->nb_transport_bw(p, resp, t), tlm::TLM_COMPLETED);
    p.release();
    --unanswered_;
    if (!waiting_.empty()) {
      tlm::tlm_generic_payload& next = *waiting_.front();
      waiting_.pop_front();
      take(next, now);
    }
  }
  void take(tlm::tlm_generic_payload& p, std::uint64_t now) {
    ++unanswered_;
    seen[index_[&p]].end_req_ps = now;
    if (p.get_command() == fail_command) {
      p.set_response_status(fail_status);
    } else {
      bytes.access(p);
    }
    tlm::tlm_phase end = tlm::END_REQ;
    sc_core::sc_time t = sc_core::SC_ZERO_TIME;
    request_open_ = false;
    EXPECT_EQ(socket->nb_transport_bw(p, end, t), tlm::TLM_ACCEPTED);
    tlm::tlm_phase resp = tlm::BEGIN_RESP;
    peq_.notify(p, resp, sc_core::sc_time::from_value(kLatency));
  }

  unsigned queue_;
  unsigned unanswered_ = 0;
  bool request_open_ = false;  // a BEGIN_REQ not yet given END_REQ
  std::deque<tlm::tlm_generic_payload*> waiting_;
  std::map<const tlm::tlm_generic_payload*, std::size_t> index_;
  tlm_utils::peq_with_cb_and_phase<ForeignMemory> peq_;
};

// A loosely timed memory: b_transport only (the convenience socket turns the bridge's phases into
// calls, one at a time, and answers BEGIN_RESP after the delay the call adds), kLatency a call.
class ForeignLtMemory : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<ForeignLtMemory> socket;
  std::vector<Seen> seen;
  Bytes bytes;

  explicit ForeignLtMemory(sc_core::sc_module_name name)
      : sc_core::sc_module(name), socket("socket") {
    socket.register_b_transport(this, &ForeignLtMemory::b_transport);
  }

 private:
  void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& t) {
    const std::uint64_t at = sc_core::sc_time_stamp().value() + t.value();
    seen.push_back({p.get_command(), p.get_address(), p.get_data_length(), at, at, at + kLatency});
    bytes.access(p);
    t += sc_core::sc_time::from_value(kLatency);
  }
};

// The device with foreign memories behind its channels and a foreign initiator in front of its
// fabric port (TlmBridge; the initiator sees the device at address 0).
struct MemoryBench {
  MemoryBench(Kernel kernel, unsigned max_outstanding)
      : ctx(kPoolBytes, 1, kernel),
        cfg(device_config(max_outstanding)),
        dev("fam0", ctx, cfg, kBase) {
    TlmBridgeParams p;
    p.max_outstanding = 16;
    p.source = 7;
    front = std::make_unique<TlmBridge>("front", ctx,
                                        dev.bridge_params(p, BridgeAddresses::kDeviceAtZero));
    dev.attach(*front, 0);
  }
  const std::vector<TlmMemoryBridge*>& channels() { return dev.memory().external_channels(); }
  // Runs to the end; checks that nothing is left in flight or leaked.
  nlohmann::json run() {
    sc_core::sc_start();
    EXPECT_EQ(front->issued(), front->completed());
    EXPECT_EQ(ctx.pool.in_use(), 0u) << "famsim payloads leaked";
    for (Component* c : ctx.registry.components()) {
      EXPECT_EQ(c->occupancy(), 0u) << c->component_name() << " still holds requests";
    }
    for (const TlmMemoryBridge* m : channels()) {
      EXPECT_EQ(m->foreign_in_use(), 0u) << "a foreign payload never came back";
    }
    return ctx.registry.report_all(ReportWindow{0, now_ps()});
  }
  SimContext ctx;
  DeviceConfig cfg;
  ExpansionDevice dev;
  std::unique_ptr<TlmBridge> front;
};

// Two AT foreign memories, one per channel, bound.
struct AtMemories {
  AtMemories(MemoryBench& b, unsigned queue) : ch0("mem0", queue), ch1("mem1", queue) {
    b.channels().at(0)->out.bind(ch0.socket);
    b.channels().at(1)->out.bind(ch1.socket);
  }
  ForeignMemory ch0;
  ForeignMemory ch1;
};

// `workload` run to its end through the whole of platform_yaml(8) on `kernel`, with an AT foreign
// memory 4 deep bound to each of the device's two channels.
struct WholePlatformRun {
  WholePlatformRun(const std::string& workload, const char* kernel)
      : sim(test::make_doc(platform_yaml(8), workload, {std::string("sim.kernel=") + kernel})),
        ch0("mem0", 4),
        ch1("mem1", 4) {
    const std::vector<TlmMemoryBridge*> channels = sim.platform().external_channels();
    if (channels.size() != 2) throw std::logic_error("platform_yaml has two external channels");
    channels[0]->out.bind(ch0.socket);
    channels[1]->out.bind(ch1.socket);
    sim.run();
    results = sim.results(0.0, 0.0);
  }
  Simulation sim;
  ForeignMemory ch0;
  ForeignMemory ch1;
  nlohmann::json results;
};

class MemoryBridge : public ::testing::TestWithParam<const char*> {};

// The little-endian bytes of the `length`-byte word `w` (famsim's atomics' byte order).
std::vector<unsigned char> word(std::uint64_t w, unsigned length) {
  std::vector<unsigned char> b(length);
  for (unsigned i = 0; i < length; ++i) b[i] = static_cast<unsigned char>(w >> (8 * i));
  return b;
}

// The write-then-read both memory kinds take, worked out by hand (ns): the write enters the port
// at 0 -> ingress edge 0 + 3 x 2 = 6 -> crossbar first edge after, 7, + 4 pipeline + 4 beats =
// 15 -> the foreign memory 15 .. 15 + 30 = 45 -> crossbar 46 + 4 + 1 beat = 51 -> egress edge 52
// + 2 x 2 = 56; the read is sent when that answer arrives: 56 -> 62 -> 63 + 4 + 1 = 68 -> 68 ..
// 98 -> 99 + 4 + 4 beats = 107 -> 108 + 4 = 112.
constexpr std::uint64_t kWriteAtMemory = 15000, kWriteAnswered = 56000;
constexpr std::uint64_t kReadAtMemory = 68000, kReadAnswered = 112000;
// 0x1000 is 256 B granule 16: channel 16 mod 2 = 0, at channel address 16 / 2 x 256 = 2048.
constexpr std::uint64_t kChannelAddress = 2048;

TEST_P(MemoryBridge, AForeignMemoryServesTheDevicesWritesAndReads) {
  MemoryBench b(test::kernel_named(GetParam()), 8);
  AtMemories mem(b, 4);
  const std::vector<unsigned char> data = pattern(128, 3);
  std::vector<Op> ops{write_op(0x1000, data), read_op(0x1000)};
  ForeignAt cpu("cpu", ops, 1);
  cpu.socket.bind(b.front->in);
  const nlohmann::json report = b.run();
  ASSERT_TRUE(ops[0].answered && ops[1].answered);
  EXPECT_EQ(ops[0].status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(ops[1].status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(ops[1].data, data) << "the read did not return the written bytes";
  EXPECT_EQ(ops[0].response_ps, kWriteAnswered);
  EXPECT_EQ(ops[1].response_ps, kReadAnswered);
  // Channel 0's memory saw both, at the channel address plus the offset, in plain payloads.
  ASSERT_EQ(mem.ch0.seen.size(), 2u);
  EXPECT_TRUE(mem.ch1.seen.empty());
  EXPECT_EQ(mem.ch0.seen[0].command, tlm::TLM_WRITE_COMMAND);
  EXPECT_EQ(mem.ch0.seen[1].command, tlm::TLM_READ_COMMAND);
  for (const Seen& s : mem.ch0.seen) {
    EXPECT_EQ(s.address, kChannelAddress + kOffset);
    EXPECT_EQ(s.length, 128u);
  }
  EXPECT_EQ(mem.ch0.seen[0].begin_req_ps, kWriteAtMemory);
  EXPECT_EQ(mem.ch0.seen[1].begin_req_ps, kReadAtMemory);
  EXPECT_EQ(mem.ch0.bytes.read(kChannelAddress + kOffset, 128), data);
  const nlohmann::json& r = report.at("fam0.memory.ch0");
  EXPECT_EQ(r["model"], "external");
  EXPECT_EQ(r["requests"], 2);
  EXPECT_EQ(r["reads"], 1);
  EXPECT_EQ(r["writes"], 1);
  EXPECT_EQ(r["bytes"], 256.0);
  // Arrival at the bridge to the answer taken by the crossbar: the memory's 30 ns each.
  EXPECT_DOUBLE_EQ(r["write_latency_ns"]["max"].get<double>(), 30.0);
  EXPECT_DOUBLE_EQ(r["read_latency_ns"]["max"].get<double>(), 30.0);
  EXPECT_DOUBLE_EQ(r["backpressure_ns"].get<double>(), 0.0);
  EXPECT_EQ(report.at("fam0.memory.ch1")["requests"], 0);
  EXPECT_EQ(cpu.given_back, 2u);
}

TEST_P(MemoryBridge, ALooselyTimedMemoryBehindTheConvenienceSocketTakesTheSameTimes) {
  MemoryBench b(test::kernel_named(GetParam()), 8);
  ForeignLtMemory ch0("mem0"), ch1("mem1");
  b.channels().at(0)->out.bind(ch0.socket);
  b.channels().at(1)->out.bind(ch1.socket);
  const std::vector<unsigned char> data = pattern(128, 4);
  std::vector<Op> ops{write_op(0x1000, data), read_op(0x1000)};
  ForeignAt cpu("cpu", ops, 1);
  cpu.socket.bind(b.front->in);
  b.run();
  ASSERT_TRUE(ops[0].answered && ops[1].answered);
  EXPECT_EQ(ops[1].data, data);
  // The socket answers BEGIN_REQ with nothing but the BEGIN_RESP 30 ns later (which implies
  // END_REQ): one request at a time gives the same times as above.
  EXPECT_EQ(ops[0].response_ps, kWriteAnswered);
  EXPECT_EQ(ops[1].response_ps, kReadAnswered);
  ASSERT_EQ(ch0.seen.size(), 2u);
  EXPECT_EQ(ch0.seen[0].begin_req_ps, kWriteAtMemory);
  EXPECT_EQ(ch0.seen[1].begin_req_ps, kReadAtMemory);
  EXPECT_EQ(ch0.seen[1].address, kChannelAddress + kOffset);
}

TEST_P(MemoryBridge, AFullForeignMemoryHoldsTheDevicesRequestBack) {
  // A memory with room for one request: the second read to the same channel gets its END_REQ
  // only when the first answer leaves, and the bridge holds END_REQ towards the crossbar as long.
  MemoryBench b(test::kernel_named(GetParam()), 8);
  AtMemories mem(b, 1);
  std::vector<Op> ops{read_op(0), read_op(0x200)};  // granules 0 and 2: both channel 0
  ForeignAt cpu("cpu", ops, 2);
  cpu.socket.bind(b.front->in);
  const nlohmann::json report = b.run();
  ASSERT_TRUE(ops[0].answered && ops[1].answered);
  ASSERT_EQ(mem.ch0.seen.size(), 2u);
  const Seen& first = mem.ch0.seen[0];
  const Seen& second = mem.ch0.seen[1];
  EXPECT_EQ(first.address, 0 + kOffset);
  EXPECT_EQ(second.address, 256 + kOffset);  // granule 2: 2 / 2 x 256
  EXPECT_EQ(first.end_req_ps, first.begin_req_ps);
  EXPECT_EQ(first.begin_resp_ps, first.end_req_ps + kLatency);
  EXPECT_LT(second.begin_req_ps, first.begin_resp_ps) << "sent while the first was served";
  EXPECT_EQ(second.end_req_ps, first.begin_resp_ps);
  EXPECT_EQ(second.begin_resp_ps, second.end_req_ps + kLatency);
  // The second waited at the bridge from its arrival (sent at once) to the memory's END_REQ.
  const nlohmann::json& r = report.at("fam0.memory.ch0");
  EXPECT_DOUBLE_EQ(r["backpressure_ns"].get<double>(),
                   static_cast<double>(second.end_req_ps - second.begin_req_ps) * 1e-3);
  EXPECT_GT(r["backpressure_ns"].get<double>(), 0.0);
}

TEST_P(MemoryBridge, TheBridgesSlotsBoundTheRequestsInTheForeignMemory) {
  // One slot: the second read reaches the memory only when the first answer has been taken by
  // the crossbar (at once: its response path is empty), though the memory has room for four.
  MemoryBench b(test::kernel_named(GetParam()), 1);
  AtMemories mem(b, 4);
  std::vector<Op> ops{read_op(0), read_op(0x200)};
  ForeignAt cpu("cpu", ops, 2);
  cpu.socket.bind(b.front->in);
  const nlohmann::json report = b.run();
  ASSERT_TRUE(ops[0].answered && ops[1].answered);
  ASSERT_EQ(mem.ch0.seen.size(), 2u);
  EXPECT_EQ(mem.ch0.seen[1].begin_req_ps, mem.ch0.seen[0].begin_resp_ps);
  EXPECT_EQ(report.at("fam0.memory.ch0")["max_outstanding"], 1);
}

TEST_P(MemoryBridge, DebugTransportReachesTheForeignMemoriesThroughTheInterleave) {
  MemoryBench b(test::kernel_named(GetParam()), 8);
  AtMemories mem(b, 4);
  // 512 B from device offset 256: granule 1 is channel 1 at channel address 0, granule 2 channel
  // 0 at channel address 256.
  std::vector<unsigned char> image = pattern(512, 8);
  EXPECT_EQ(b.dev.debug_access(true, kBase + 256, image.data(), image.size()), 512u);
  EXPECT_EQ(mem.ch1.bytes.read(0 + kOffset, 256),
            std::vector<unsigned char>(image.begin(), image.begin() + 256));
  EXPECT_EQ(mem.ch0.bytes.read(256 + kOffset, 256),
            std::vector<unsigned char>(image.begin() + 256, image.end()));
  std::vector<unsigned char> back(512);
  EXPECT_EQ(b.dev.debug_access(false, kBase + 256, back.data(), back.size()), 512u);
  EXPECT_EQ(back, image);
  // A timed read sees what debug transport wrote.
  std::vector<Op> ops{read_op(256)};
  ForeignAt cpu("cpu", ops, 1);
  cpu.socket.bind(b.front->in);
  b.run();
  ASSERT_TRUE(ops[0].answered);
  EXPECT_EQ(ops[0].data, std::vector<unsigned char>(image.begin(), image.begin() + 128));
  EXPECT_TRUE(mem.ch0.seen.empty()) << "debug transport is not a timed access";
  EXPECT_EQ(mem.ch1.seen.size(), 1u);
}

TEST_P(MemoryBridge, TheCommandsSimulationRunsAWorkloadOnForeignMemoriesBoundByTheCaller) {
  // What a co-simulation's sc_main does to get stats.json: the command's own Simulation from a
  // platform file whose device memory is external, its channels bound, then run. A GPU writes a
  // pattern over 64 KiB and reads it back checking every byte.
  const std::string workload = R"(
name: write_then_verify_64k
streams:
  - name: write
    buffer: {bytes: 64KiB, location: device/fam0}
    pattern: sequential
    read_fraction: 0.0
    data_seed: 7
  - name: read_back
    buffer: {from_stream: write}
    pattern: sequential
    read_fraction: 1.0
    verify_reads: true
    data_seed: 7
    start_after: [write]
)";
  WholePlatformRun run(workload, GetParam());
  const ForeignMemory &ch0 = run.ch0, &ch1 = run.ch1;
  const nlohmann::json& r = run.results;
  EXPECT_TRUE(r["conservation"]["ok"].get<bool>()) << r["conservation"].dump();
  EXPECT_EQ(r["conservation"]["data_mismatches"], 0);
  // 64 KiB each way in 128 B requests; the 256 B modulo interleave gives each channel half.
  EXPECT_EQ(r["summary"]["write_bytes"], 65536);
  EXPECT_EQ(r["summary"]["read_bytes"], 65536);
  EXPECT_EQ(ch0.seen.size(), 512u);
  EXPECT_EQ(ch1.seen.size(), 512u);
  EXPECT_EQ(r["components"]["fam0.memory.ch0"]["requests"], 512);
  EXPECT_EQ(r["components"]["fam0.memory.ch0"]["standard"], "FOREIGN");
}

TEST_P(MemoryBridge, AGpusFetchAddsOnTwoWordsThroughTheDeviceLoseNoUpdate) {
  // A GPU's stream of 64 fetch-adds of 3 on a 16 B buffer (two 8 B words, one granule, so one
  // channel), up to 16 in flight: each word takes 32 of them, so it ends at 32 x 3 = 96 only if
  // no two fetch-adds on it interleaved at the foreign memory. Each is one read and one write of
  // 8 B there.
  const std::string workload = R"(
name: fetch_add_two_words
streams:
  - name: counters
    buffer: {bytes: 16, location: device/fam0}
    pattern: sequential
    access_bytes: 8
    total_bytes: 512
    atomic: {op: fetch_add, operand: 3}
)";
  WholePlatformRun run(workload, GetParam());
  const ForeignMemory &ch0 = run.ch0, &ch1 = run.ch1;
  const nlohmann::json& r = run.results;
  EXPECT_TRUE(r["conservation"]["ok"].get<bool>()) << r["conservation"].dump();
  EXPECT_EQ(r["conservation"]["completed"], 64);
  // The words' foreign addresses, from the reads the memories saw (wherever the buffer's page is).
  std::map<std::uint64_t, const ForeignMemory*> words;
  for (const ForeignMemory* m : {&ch0, &ch1}) {
    for (const Seen& s : m->seen) {
      EXPECT_EQ(s.length, 8u);
      if (s.command == tlm::TLM_READ_COMMAND) words[s.address] = m;
    }
  }
  ASSERT_EQ(words.size(), 2u);
  for (const auto& [address, m] : words) {
    EXPECT_EQ(m->bytes.read(address, 8), word(96, 8)) << "the word at " << address;
  }
  std::uint64_t atomics = 0, reads = 0, writes = 0;
  for (const char* ch : {"fam0.memory.ch0", "fam0.memory.ch1"}) {
    const nlohmann::json& c = r["components"][ch];
    atomics += c["atomics"].get<std::uint64_t>();
    reads += c["reads"].get<std::uint64_t>();
    writes += c["writes"].get<std::uint64_t>();
    EXPECT_EQ(c["requests"], c["atomics"]) << ch;
  }
  EXPECT_EQ(atomics, 64u);
  EXPECT_EQ(reads, 64u);
  EXPECT_EQ(writes, 64u);
}

// famsim's side of a bridge on its own: a block that sends its requests one after another (the
// next when the last had END_REQ, and not before its send_at_ps) from 0 on, and records what came
// back and in which order.
class FamsimSender : public sc_core::sc_module {
 public:
  struct Request {
    bool write = false;
    AtomicOp atomic = AtomicOp::kNone;
    std::uint64_t operand = 0;  // the atomic's
    std::uint64_t compare = 0;
    unsigned length = 0;  // bytes; 0: 8 for an atomic, else 128
    std::uint64_t channel_address = 0;
    std::uint64_t send_at_ps = 0;  // not sent before then
    std::vector<unsigned char> data;  // a write's data (when not empty); the answer's data
    // Results.
    tlm::tlm_response_status status = tlm::TLM_INCOMPLETE_RESPONSE;
    std::uint64_t end_req_ps = Wakeup::kNever;
    std::uint64_t response_ps = Wakeup::kNever;
    std::uint64_t service_start_ps = 0;
  };
  InitiatorPort<FamsimSender> out;
  std::vector<Request> requests;
  bool response_before_end_req = false;
  std::vector<std::size_t> answer_order;  // request indices, in the order answered
  // Each BEGIN_RESP is taken (END_RESP) this long after it came, not on return (0).
  std::uint64_t hold_response_ps = 0;

  FamsimSender(sc_core::sc_module_name name, SimContext& ctx, std::vector<Request> r)
      : sc_core::sc_module(name),
        out("out", *this, 0),
        requests(std::move(r)),
        ctx_(ctx),
        end_resp_("end_resp", ctx.scheduler(), this, &Wakeup::call_behaviour<FamsimSender>),
        send_at_("send_at", ctx.scheduler(), this,
                 [](void* self) { static_cast<FamsimSender*>(self)->send(); }) {
    SC_HAS_PROCESS(FamsimSender);
    SC_METHOD(send);
    sensitive << next_ << send_at_.event();
    SC_METHOD(behaviour);
    sensitive << end_resp_.event();
    dont_initialize();
  }
  Sync bw(unsigned, Payload& p, Phase& phase, sc_core::sc_time&) {
    Request& r = requests[ext_of(p).id];
    if (phase == tlm::END_REQ) {
      r.end_req_ps = now_ps();
      next_.notify(sc_core::SC_ZERO_TIME);
      return tlm::TLM_ACCEPTED;
    }
    if (r.end_req_ps == Wakeup::kNever) response_before_end_req = true;
    r.response_ps = now_ps();
    r.status = p.get_response_status();
    if (!r.write) r.data.assign(p.get_data_ptr(), p.get_data_ptr() + p.get_data_length());
    r.service_start_ps = ext_of(p).service_start_ps;
    answer_order.push_back(ext_of(p).id);
    if (hold_response_ps > 0) {
      held_ = &p;
      end_resp_.at(now_ps() + hold_response_ps, now_ps());
      return tlm::TLM_ACCEPTED;
    }
    p.release();
    phase = tlm::END_RESP;
    return tlm::TLM_COMPLETED;
  }

 private:
  friend class famsim::Wakeup;  // runs behaviour(): the held response's END_RESP, on famsim's time
  void behaviour() {
    end_resp_.fired();
    Payload& p = *held_;
    held_ = nullptr;
    out.send_end_resp(p);
    p.release();
  }
  void send() {
    if (sent_ >= requests.size()) return;
    const Request& r = requests[sent_];
    if (now_ps() < r.send_at_ps) {
      send_at_.at(r.send_at_ps, now_ps());  // (on famsim's time, as a block of it)
      return;
    }
    send_at_.fired();
    Payload& p = ctx_.pool.allocate();
    p.acquire();
    p.set_command(r.write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    const bool atomic = r.atomic != AtomicOp::kNone;
    p.set_data_length(r.length != 0 ? r.length : atomic ? 8 : 128);
    p.set_streaming_width(p.get_data_length());
    if (r.write && !r.data.empty()) std::memcpy(p.get_data_ptr(), r.data.data(), r.data.size());
    RequestExt& e = ext_of(p);
    e.id = sent_++;
    e.write = r.write;
    e.length = p.get_data_length();
    e.channel_address = r.channel_address;
    e.atomic = r.atomic;
    e.atomic_operand = r.operand;
    e.atomic_compare = r.compare;
    e.outstanding = true;
    e.enter(0, 0, now_ps());
    if (out.send_req(p)) {
      requests[e.id].end_req_ps = now_ps();
      next_.notify(sc_core::SC_ZERO_TIME);
    }
  }
  SimContext& ctx_;
  std::size_t sent_ = 0;
  sc_core::sc_event next_;
  Payload* held_ = nullptr;
  Wakeup end_resp_;
  Wakeup send_at_;
};

// A target that answers BEGIN_REQ in the call, as `answer` says:
//   kCompletes          TLM_COMPLETED with kLatency added to the delay;
//   kEndReq             TLM_UPDATED with END_REQ kAccept later, and BEGIN_RESP kLatency after that
//                       through its payload event queue;
//   kBeginResp          TLM_UPDATED with BEGIN_RESP kLatency later; it answers the END_RESP that
//                       follows with TLM_ACCEPTED (the standard allows that or TLM_COMPLETED: the
//                       transaction is over at END_RESP either way) and records its time;
//   kHints              TLM_UPDATED with an ignorable phase of its own (a hint), then as kEndReq
//                       through its payload event queue, with the hint sent again kHintAt after
//                       the BEGIN_REQ, between END_REQ and BEGIN_RESP (IEEE 1666-2011 lets a
//                       base-protocol socket carry such phases: a callee that does not know one
//                       returns TLM_ACCEPTED and otherwise ignores it).
TLM_DECLARE_EXTENDED_PHASE(memory_test_hint);
constexpr std::uint64_t kAccept = 2000, kHintAt = 5000;
class ForeignEagerMemory : public sc_core::sc_module {
 public:
  enum Answer { kCompletes, kEndReq, kBeginResp, kHints };
  tlm_utils::simple_target_socket<ForeignEagerMemory> socket;
  std::vector<std::uint64_t> begin_req_ps;
  std::vector<std::uint64_t> end_resp_ps;

  ForeignEagerMemory(sc_core::sc_module_name name, Answer answer)
      : sc_core::sc_module(name),
        socket("socket"),
        answer_(answer),
        peq_(this, &ForeignEagerMemory::respond) {
    socket.register_nb_transport_fw(this, &ForeignEagerMemory::nb_transport_fw);
  }

 private:
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                     sc_core::sc_time& t) {
    const std::uint64_t at = sc_core::sc_time_stamp().value() + t.value();
    if (answer_ == kBeginResp && phase == tlm::END_RESP) {
      end_resp_ps.push_back(at);
      return tlm::TLM_ACCEPTED;
    }
    if (phase != tlm::BEGIN_REQ) {
      ADD_FAILURE() << "the bridge sent " << phase;
      return tlm::TLM_COMPLETED;
    }
    begin_req_ps.push_back(at);
    bytes_.access(p);
    if (answer_ == kCompletes) {
      t += sc_core::sc_time::from_value(kLatency);
      return tlm::TLM_COMPLETED;
    }
    if (answer_ == kBeginResp) {
      t += sc_core::sc_time::from_value(kLatency);
      phase = tlm::BEGIN_RESP;
      return tlm::TLM_UPDATED;
    }
    if (answer_ == kHints) {
      p.acquire();
      tlm::tlm_phase end = tlm::END_REQ, hint = memory_test_hint, resp = tlm::BEGIN_RESP;
      peq_.notify(p, end, t + sc_core::sc_time::from_value(kAccept));
      peq_.notify(p, hint, t + sc_core::sc_time::from_value(kHintAt));
      peq_.notify(p, resp, t + sc_core::sc_time::from_value(kAccept + kLatency));
      phase = memory_test_hint;
      return tlm::TLM_UPDATED;
    }
    p.acquire();
    tlm::tlm_phase resp = tlm::BEGIN_RESP;
    peq_.notify(p, resp, t + sc_core::sc_time::from_value(kAccept + kLatency));
    t += sc_core::sc_time::from_value(kAccept);
    phase = tlm::END_REQ;
    return tlm::TLM_UPDATED;
  }
  void respond(tlm::tlm_generic_payload& p, const tlm::tlm_phase& phase) {
    tlm::tlm_phase send = phase;
    sc_core::sc_time t = sc_core::SC_ZERO_TIME;
    const tlm::tlm_sync_enum r = socket->nb_transport_bw(p, send, t);
    if (phase == tlm::BEGIN_RESP) {
      EXPECT_EQ(r, tlm::TLM_COMPLETED);
      p.release();
    } else {
      EXPECT_EQ(r, tlm::TLM_ACCEPTED) << phase;
    }
  }

  Answer answer_;
  Bytes bytes_;
  tlm_utils::peq_with_cb_and_phase<ForeignEagerMemory> peq_;
};

// A target that takes every request at once (TLM_UPDATED with END_REQ) and answers each
// kFar after its BEGIN_REQ at channel address 0, kNear elsewhere, so a later request can be
// answered first, as a DRAM controller that reorders for row hits does. With `annotate`, it
// answers both of the first two requests as soon as it has them, in the order they came, each
// with the rest of its latency as the annotated delay (so the first call takes effect last);
// otherwise each through its payload event queue at its time, with no delay. It gives a payload
// back `keep_ps` after answering it.
constexpr std::uint64_t kFar = 40000, kNear = 10000;
class ForeignReorderingMemory : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<ForeignReorderingMemory> socket;
  std::vector<std::uint64_t> begin_req_ps;

  ForeignReorderingMemory(sc_core::sc_module_name name, bool annotate, std::uint64_t keep_ps = 0)
      : sc_core::sc_module(name),
        socket("socket"),
        annotate_(annotate),
        keep_ps_(keep_ps),
        answer_peq_(this, &ForeignReorderingMemory::answer_one),
        give_back_peq_(this, &ForeignReorderingMemory::give_back) {
    socket.register_nb_transport_fw(this, &ForeignReorderingMemory::nb_transport_fw);
    SC_HAS_PROCESS(ForeignReorderingMemory);
    SC_METHOD(answer_both);
    sensitive << both_;
    dont_initialize();
  }

 private:
  static std::uint64_t latency(const tlm::tlm_generic_payload& p) {
    return p.get_address() == 0 ? kFar : kNear;
  }
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                     sc_core::sc_time& t) {
    if (phase != tlm::BEGIN_REQ) {
      ADD_FAILURE() << "the bridge sent " << phase;
      return tlm::TLM_COMPLETED;
    }
    const std::uint64_t at = sc_core::sc_time_stamp().value() + t.value();
    begin_req_ps.push_back(at);
    bytes_.access(p);
    p.acquire();
    if (annotate_) {
      held_.push_back({&p, at + latency(p)});
      if (held_.size() == 2) both_.notify(t);
    } else {
      tlm::tlm_phase resp = tlm::BEGIN_RESP;
      answer_peq_.notify(p, resp, t + sc_core::sc_time::from_value(latency(p)));
    }
    phase = tlm::END_REQ;
    return tlm::TLM_UPDATED;
  }
  void answer(tlm::tlm_generic_payload& p, std::uint64_t due_ps) {
    tlm::tlm_phase resp = tlm::BEGIN_RESP;
    sc_core::sc_time t = sc_core::sc_time::from_value(due_ps - sc_core::sc_time_stamp().value());
    EXPECT_EQ(socket->nb_transport_bw(p, resp, t), tlm::TLM_COMPLETED);
    if (keep_ps_ == 0) {
      p.release();
    } else {
      tlm::tlm_phase mark = tlm::END_RESP;  // (only a label for the queue)
      give_back_peq_.notify(p, mark, t + sc_core::sc_time::from_value(keep_ps_));
    }
  }
  void answer_one(tlm::tlm_generic_payload& p, const tlm::tlm_phase&) {
    answer(p, sc_core::sc_time_stamp().value());
  }
  void answer_both() {
    for (const Held& h : held_) answer(*h.p, h.due_ps);
    held_.clear();
  }
  void give_back(tlm::tlm_generic_payload& p, const tlm::tlm_phase&) { p.release(); }

  struct Held {
    tlm::tlm_generic_payload* p;
    std::uint64_t due_ps;
  };
  bool annotate_;
  std::uint64_t keep_ps_;
  std::vector<Held> held_;
  sc_core::sc_event both_;
  Bytes bytes_;
  tlm_utils::peq_with_cb_and_phase<ForeignReorderingMemory> answer_peq_;
  tlm_utils::peq_with_cb_and_phase<ForeignReorderingMemory> give_back_peq_;
};

// One bridge with `target` behind it and a FamsimSender in front.
template <class Target>
struct Alone {
  Alone(Kernel kernel, Target& target, std::vector<FamsimSender::Request> requests,
        unsigned max_outstanding = 32)
      : ctx(kPoolBytes, 1, kernel),
        bridge("ch0", ctx, params(max_outstanding), kPoolBytes),
        sender("sender", ctx, std::move(requests)) {
    bridge.out.bind(target.socket);
    sender.out.bind(bridge.up);
  }
  static TlmMemoryBridgeParams params(unsigned max_outstanding) {
    TlmMemoryBridgeParams p;
    p.peak_gbps = 16;
    p.max_outstanding = max_outstanding;
    return p;
  }
  nlohmann::json run() {
    sc_core::sc_start();
    EXPECT_EQ(ctx.pool.in_use(), 0u);
    EXPECT_EQ(bridge.occupancy(), 0u);
    EXPECT_EQ(bridge.foreign_in_use(), 0u);
    EXPECT_FALSE(sender.response_before_end_req) << "BEGIN_RESP before the request's END_REQ";
    return ctx.registry.report_all(ReportWindow{0, std::max<std::uint64_t>(now_ps(), 1)}).at("ch0");
  }
  SimContext ctx;
  TlmMemoryBridge bridge;
  FamsimSender sender;
};

// Two reads to a target that answers each in the call, kLatency later: read i is taken (END_REQ)
// and answered at (i + 1) x kLatency, and was in the target's hands from going out at i x
// kLatency, so its whole latency is service.
void expect_answered_in_the_call(const FamsimSender& sender) {
  for (unsigned i = 0; i < 2; ++i) {
    const FamsimSender::Request& got = sender.requests[i];
    EXPECT_EQ(got.status, tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(got.end_req_ps, (i + 1) * kLatency) << i;
    EXPECT_EQ(got.response_ps, (i + 1) * kLatency) << i;
    EXPECT_EQ(got.service_start_ps, i * kLatency) << i;
  }
}

TEST_P(MemoryBridge, ATargetCompletingInTheCallTakesTheRequestWhenItAnswers) {
  // TLM_COMPLETED with 30 ns added: END_REQ and BEGIN_RESP are both implied at 30 ns; the second
  // read goes out then (its END_REQ), and is answered at 60 ns.
  ForeignEagerMemory mem("mem", ForeignEagerMemory::kCompletes);
  Alone<ForeignEagerMemory> a(test::kernel_named(GetParam()), mem, {{}, {}});
  const nlohmann::json r = a.run();
  ASSERT_EQ(mem.begin_req_ps.size(), 2u);
  EXPECT_EQ(mem.begin_req_ps[0], 0u);
  EXPECT_EQ(mem.begin_req_ps[1], kLatency);
  expect_answered_in_the_call(a.sender);
  // The protocol says the target took neither until it answered: 30 ns each of backpressure.
  EXPECT_DOUBLE_EQ(r["backpressure_ns"].get<double>(), 60.0);
}

TEST_P(MemoryBridge, ATargetAnsweringInTheCallMayAcceptTheEndRespThatFollows) {
  // TLM_UPDATED with BEGIN_RESP 30 ns later: END_REQ is implied then, and the bridge ends the
  // response at once, at that time (END_RESP annotated 30 ns); the target returns TLM_ACCEPTED,
  // which ends the transaction as TLM_COMPLETED would. The same times as a target completing in
  // the call: the second read goes out at 30 ns and is answered at 60.
  ForeignEagerMemory mem("mem", ForeignEagerMemory::kBeginResp);
  Alone<ForeignEagerMemory> a(test::kernel_named(GetParam()), mem, {{}, {}});
  a.run();
  EXPECT_EQ(mem.begin_req_ps, (std::vector<std::uint64_t>{0, kLatency}));
  EXPECT_EQ(mem.end_resp_ps, (std::vector<std::uint64_t>{kLatency, 2 * kLatency}));
  expect_answered_in_the_call(a.sender);
}

TEST_P(MemoryBridge, AnEndReqOnReturnWithADelayTakesEffectThen) {
  // TLM_UPDATED with END_REQ 2 ns later, BEGIN_RESP 30 ns after that: the first read's END_REQ at
  // 2 ns sends the second, whose END_REQ is at 4 ns; the answers at 32 and 34 ns.
  ForeignEagerMemory mem("mem", ForeignEagerMemory::kEndReq);
  Alone<ForeignEagerMemory> a(test::kernel_named(GetParam()), mem, {{}, {}});
  const nlohmann::json r = a.run();
  ASSERT_EQ(mem.begin_req_ps.size(), 2u);
  EXPECT_EQ(mem.begin_req_ps[1], kAccept);
  for (unsigned i = 0; i < 2; ++i) {
    const FamsimSender::Request& got = a.sender.requests[i];
    EXPECT_EQ(got.end_req_ps, (i + 1) * kAccept) << i;
    EXPECT_EQ(got.response_ps, (i + 1) * kAccept + kLatency) << i;
    EXPECT_EQ(got.service_start_ps, (i + 1) * kAccept) << i;
  }
  EXPECT_DOUBLE_EQ(r["backpressure_ns"].get<double>(), 4.0);
}

TEST_P(MemoryBridge, IgnorablePhasesFromTheTargetAreIgnored) {
  // Two hints a read (returned to BEGIN_REQ, which the bridge then takes as TLM_ACCEPTED, and
  // sent on the backward path 5 ns in); the END_REQ and BEGIN_RESP that follow give the times of
  // the test above: END_REQ at 2 and 4 ns, answers at 32 and 34.
  ForeignEagerMemory mem("mem", ForeignEagerMemory::kHints);
  Alone<ForeignEagerMemory> a(test::kernel_named(GetParam()), mem, {{}, {}});
  const nlohmann::json r = a.run();
  EXPECT_EQ(mem.begin_req_ps, (std::vector<std::uint64_t>{0, kAccept}));
  for (unsigned i = 0; i < 2; ++i) {
    const FamsimSender::Request& got = a.sender.requests[i];
    EXPECT_EQ(got.status, tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(got.end_req_ps, (i + 1) * kAccept) << i;
    EXPECT_EQ(got.response_ps, (i + 1) * kAccept + kLatency) << i;
  }
  EXPECT_EQ(r["ignored_phases"], 4);
}

// Two reads sent at 0, to channel addresses 0 (answered 40 ns later) and 256 (10 ns later).
std::vector<FamsimSender::Request> far_then_near() {
  FamsimSender::Request far, near;
  far.channel_address = 0;
  near.channel_address = 256;
  return {far, near};
}

TEST_P(MemoryBridge, AnswersOutOfRequestOrderGoBackWhenTheyCome) {
  // The second request is answered first (10 ns), the first at 40 ns: each goes back at its time.
  ForeignReorderingMemory mem("mem", false);
  Alone<ForeignReorderingMemory> a(test::kernel_named(GetParam()), mem, far_then_near());
  const nlohmann::json r = a.run();
  ASSERT_EQ(mem.begin_req_ps, (std::vector<std::uint64_t>{0, 0}));
  EXPECT_EQ(a.sender.answer_order, (std::vector<std::size_t>{1, 0}));
  EXPECT_EQ(a.sender.requests[0].response_ps, kFar);
  EXPECT_EQ(a.sender.requests[1].response_ps, kNear);
  EXPECT_EQ(a.sender.requests[0].status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(a.sender.requests[1].status, tlm::TLM_OK_RESPONSE);
  EXPECT_DOUBLE_EQ(r["read_latency_ns"]["max"].get<double>(), 40.0);
  EXPECT_DOUBLE_EQ(r["read_latency_ns"]["mean"].get<double>(), 25.0);
}

TEST_P(MemoryBridge, AnswersGoBackByTheirAnnotatedTimesNotByTheOrderOfTheCalls) {
  // Both answers called at 0, the first request's first with 40 ns annotated, then the second's
  // with 10 ns: the second takes effect first and goes back at 10 ns, not behind the first.
  ForeignReorderingMemory mem("mem", true);
  Alone<ForeignReorderingMemory> a(test::kernel_named(GetParam()), mem, far_then_near());
  a.run();
  EXPECT_EQ(a.sender.answer_order, (std::vector<std::size_t>{1, 0}));
  EXPECT_EQ(a.sender.requests[0].response_ps, kFar);
  EXPECT_EQ(a.sender.requests[1].response_ps, kNear);
}

TEST_P(MemoryBridge, ARequestWaitsForAPayloadTheTargetStillHolds) {
  // One slot and so one payload of the bridge's; the target answers the first read at 10 ns and
  // gives its payload back 20 ns later: the second read goes out then (30 ns), though the slot
  // was free at 10, and is answered at 40 ns.
  ForeignReorderingMemory mem("mem", false, 20000);
  FamsimSender::Request near;
  near.channel_address = 256;
  Alone<ForeignReorderingMemory> a(test::kernel_named(GetParam()), mem, {near, near}, 1);
  a.run();
  EXPECT_EQ(mem.begin_req_ps, (std::vector<std::uint64_t>{0, kNear + 20000}));
  EXPECT_EQ(a.sender.requests[0].response_ps, kNear);
  EXPECT_EQ(a.sender.requests[1].end_req_ps, kNear + 20000);
  EXPECT_EQ(a.sender.requests[1].response_ps, 2 * kNear + 20000);
}

TEST_P(MemoryBridge, AnAnswerWaitsWhileTheBlockInFrontHoldsTheLastOne) {
  // Both reads answered at 10 ns; the block in front takes each answer 25 ns after it came
  // (END_RESP): the second goes back only then, at 35 ns, and its latency counts the wait.
  ForeignReorderingMemory mem("mem", false);
  FamsimSender::Request near;
  near.channel_address = 256;
  Alone<ForeignReorderingMemory> a(test::kernel_named(GetParam()), mem, {near, near});
  a.sender.hold_response_ps = 25000;
  const nlohmann::json r = a.run();
  EXPECT_EQ(mem.begin_req_ps, (std::vector<std::uint64_t>{0, 0}));
  EXPECT_EQ(a.sender.requests[0].response_ps, kNear);
  EXPECT_EQ(a.sender.requests[1].response_ps, kNear + 25000);
  EXPECT_DOUBLE_EQ(r["read_latency_ns"]["max"].get<double>(), 35.0);
  EXPECT_DOUBLE_EQ(r["read_latency_ns"]["min"].get<double>(), 10.0);
}

// --- Atomics, executed on the foreign memory as its read and a write-back ---------------------

FamsimSender::Request atomic_request(AtomicOp op, std::uint64_t channel_address,
                                     std::uint64_t operand, std::uint64_t compare = 0,
                                     unsigned length = 8) {
  FamsimSender::Request r;
  r.atomic = op;
  r.channel_address = channel_address;
  r.operand = operand;
  r.compare = compare;
  r.length = length;
  return r;
}
FamsimSender::Request read_request(std::uint64_t channel_address, unsigned length) {
  FamsimSender::Request r;
  r.channel_address = channel_address;
  r.length = length;
  return r;
}
constexpr std::uint64_t kWord = 0x40;  // an 8 B aligned channel address (the foreign one too:
                                       // Alone's bridge has no address_offset)

TEST_P(MemoryBridge, AFetchAddReadsTheWordThenWritesBackTheSumAndAnswersTheOldWord) {
  // The word holds 0x1122334455667788. The fetch-add of 1 goes out as an 8 B read at 0, taken at
  // once and answered kLatency later (30 ns); the write of 0x1122334455667789 goes out then, taken
  // at once and answered kLatency later: famsim's answer, the old word, at the read's round trip
  // plus the write's, 30 + 30 = 60 ns.
  ForeignMemory mem("mem", 4);
  mem.bytes.write(kWord, word(0x1122334455667788, 8));
  Alone<ForeignMemory> a(test::kernel_named(GetParam()), mem,
                         {atomic_request(AtomicOp::kFetchAdd, kWord, 1)});
  const nlohmann::json r = a.run();
  const FamsimSender::Request& got = a.sender.requests[0];
  EXPECT_EQ(got.status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(got.data, word(0x1122334455667788, 8)) << "famsim gets the old word";
  EXPECT_EQ(mem.bytes.read(kWord, 8), word(0x1122334455667789, 8));
  EXPECT_EQ(got.end_req_ps, 0u) << "END_REQ when the memory took the read";
  EXPECT_EQ(got.service_start_ps, 0u);
  EXPECT_EQ(got.response_ps, kLatency + kLatency);
  ASSERT_EQ(mem.seen.size(), 2u);
  EXPECT_EQ(mem.seen[0].command, tlm::TLM_READ_COMMAND);
  EXPECT_EQ(mem.seen[1].command, tlm::TLM_WRITE_COMMAND);
  for (const Seen& s : mem.seen) {
    EXPECT_EQ(s.address, kWord);
    EXPECT_EQ(s.length, 8u);
  }
  EXPECT_EQ(mem.seen[0].begin_req_ps, 0u);
  EXPECT_EQ(mem.seen[1].begin_req_ps, kLatency) << "the write-back goes when the read answered";
  EXPECT_EQ(mem.seen[1].begin_resp_ps, 2 * kLatency);
  // One request of famsim's, one foreign read and one write of 8 B each.
  EXPECT_EQ(r["requests"], 1);
  EXPECT_EQ(r["reads"], 1);
  EXPECT_EQ(r["writes"], 1);
  EXPECT_EQ(r["read_bytes"], 8);
  EXPECT_EQ(r["write_bytes"], 8);
  EXPECT_EQ(r["bytes"], 16.0);
  EXPECT_EQ(r["atomics"], 1);
  EXPECT_EQ(r["atomic_write_backs"], 1);
  EXPECT_EQ(r["answered_at_once"]["atomics"], 0);
  EXPECT_EQ(r["atomic_latency_ns"]["count"], 1);
  EXPECT_DOUBLE_EQ(r["atomic_latency_ns"]["max"].get<double>(), 60.0);
  EXPECT_EQ(r["read_latency_ns"]["count"], 0) << "an atomic's latency is not a read's";
  EXPECT_DOUBLE_EQ(r["backpressure_ns"].get<double>(), 0.0);
}

TEST_P(MemoryBridge, AFourByteFetchAddWrapsToZeroAndLeavesTheNextWord) {
  // 0xFFFFFFFF + 1 = 0 (mod 2^32): the write-back is 4 B of 0, and bytes 4..7 keep 11 22 33 44.
  ForeignMemory mem("mem", 4);
  mem.bytes.write(kWord, {0xFF, 0xFF, 0xFF, 0xFF, 0x11, 0x22, 0x33, 0x44});
  Alone<ForeignMemory> a(test::kernel_named(GetParam()), mem,
                         {atomic_request(AtomicOp::kFetchAdd, kWord, 1, 0, 4)});
  const nlohmann::json r = a.run();
  const FamsimSender::Request& got = a.sender.requests[0];
  EXPECT_EQ(got.status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(got.data, word(0xFFFFFFFF, 4));
  EXPECT_EQ(mem.bytes.read(kWord, 8),
            (std::vector<unsigned char>{0, 0, 0, 0, 0x11, 0x22, 0x33, 0x44}));
  ASSERT_EQ(mem.seen.size(), 2u);
  EXPECT_EQ(mem.seen[0].length, 4u);
  EXPECT_EQ(mem.seen[1].length, 4u);
  EXPECT_EQ(r["bytes"], 8.0);
  EXPECT_EQ(got.response_ps, 2 * kLatency);
}

TEST_P(MemoryBridge, ACompareAndSwapWritesOnAHitAndSendsNoWriteOnAMiss) {
  // The word holds 5. The first compare-and-swap (5 -> 9) hits: read 0..30 ns, write-back
  // 30..60, answered 5 at 60. The second (5 -> 7), sent at 100 ns, misses (the word is 9): its
  // read 100..130 ns is all, it is answered 9 at 130, and the memory keeps 9.
  ForeignMemory mem("mem", 4);
  mem.bytes.write(kWord, word(5, 8));
  FamsimSender::Request miss = atomic_request(AtomicOp::kCompareSwap, kWord, 7, 5);
  miss.send_at_ps = 100000;
  Alone<ForeignMemory> a(test::kernel_named(GetParam()), mem,
                         {atomic_request(AtomicOp::kCompareSwap, kWord, 9, 5), miss});
  const nlohmann::json r = a.run();
  const FamsimSender::Request& hit = a.sender.requests[0];
  const FamsimSender::Request& missed = a.sender.requests[1];
  EXPECT_EQ(hit.status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(hit.data, word(5, 8));
  EXPECT_EQ(hit.response_ps, 2 * kLatency);
  EXPECT_EQ(missed.status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(missed.data, word(9, 8));
  EXPECT_EQ(missed.response_ps, 100000 + kLatency);
  EXPECT_EQ(mem.bytes.read(kWord, 8), word(9, 8));
  ASSERT_EQ(mem.seen.size(), 3u);
  EXPECT_EQ(mem.seen[0].command, tlm::TLM_READ_COMMAND);
  EXPECT_EQ(mem.seen[1].command, tlm::TLM_WRITE_COMMAND);
  EXPECT_EQ(mem.seen[2].command, tlm::TLM_READ_COMMAND);
  EXPECT_EQ(mem.seen[2].begin_req_ps, 100000u);
  EXPECT_EQ(r["atomics"], 2);
  EXPECT_EQ(r["atomic_write_backs"], 1) << "a miss changes nothing and is not written back";
  EXPECT_EQ(r["reads"], 2);
  EXPECT_EQ(r["writes"], 1);
  EXPECT_EQ(r["requests"], 2);
  EXPECT_DOUBLE_EQ(r["atomic_latency_ns"]["min"].get<double>(), 30.0);
  EXPECT_DOUBLE_EQ(r["atomic_latency_ns"]["max"].get<double>(), 60.0);
}

TEST_P(MemoryBridge, NothingReachesTheMemoryBetweenAnAtomicsReadAndItsWriteBack) {
  // A fetch-add of 1 on the word (41), then an 8 B read of it, sent when the atomic had END_REQ
  // (0: the memory took its read). The read waits in front of the bridge, END_REQ withheld, until
  // the write-back has been taken (30 ns), and reaches the memory after it: it reads 42. Held 0 to
  // 30 ns: 30 ns of backpressure; taken at 30, answered at 60.
  ForeignMemory mem("mem", 4);
  mem.bytes.write(kWord, word(41, 8));
  Alone<ForeignMemory> a(test::kernel_named(GetParam()), mem,
                         {atomic_request(AtomicOp::kFetchAdd, kWord, 1), read_request(kWord, 8)});
  const nlohmann::json r = a.run();
  const FamsimSender::Request& atomic = a.sender.requests[0];
  const FamsimSender::Request& read = a.sender.requests[1];
  EXPECT_EQ(atomic.data, word(41, 8));
  EXPECT_EQ(read.data, word(42, 8)) << "the read came between the atomic's read and write-back";
  ASSERT_EQ(mem.seen.size(), 3u);
  EXPECT_EQ(mem.seen[0].command, tlm::TLM_READ_COMMAND);
  EXPECT_EQ(mem.seen[1].command, tlm::TLM_WRITE_COMMAND);
  EXPECT_EQ(mem.seen[2].command, tlm::TLM_READ_COMMAND);
  EXPECT_EQ(mem.seen[2].begin_req_ps, kLatency);
  EXPECT_EQ(read.end_req_ps, kLatency);
  EXPECT_EQ(read.response_ps, 2 * kLatency);
  EXPECT_EQ(atomic.response_ps, 2 * kLatency);
  EXPECT_DOUBLE_EQ(r["backpressure_ns"].get<double>(), 30.0);
}

TEST_P(MemoryBridge, TheWayFreesWhenTheWriteBackIsTakenNotWhenItIsAnswered) {
  // A target that takes a request kAccept (2 ns) after its BEGIN_REQ and answers kLatency after
  // that. The atomic's read goes out at 0, taken at 2, answered at 32; its write-back goes out at
  // 32, taken at 34, answered at 64: famsim's answer at 2 x (kAccept + kLatency). A read of
  // another address, sent at 2 (the atomic's END_REQ), is held too (the rule holds every
  // address) and goes out when the write-back is taken, 34, not when it is answered: taken at 36,
  // answered at 66. Backpressure: the atomic's 2 ns and the read's 2 to 36, 3 x kAccept + kLatency.
  ForeignEagerMemory mem("mem", ForeignEagerMemory::kEndReq);
  Alone<ForeignEagerMemory> a(
      test::kernel_named(GetParam()), mem,
      {atomic_request(AtomicOp::kFetchAdd, kWord, 1), read_request(256, 128)});
  const nlohmann::json r = a.run();
  EXPECT_EQ(mem.begin_req_ps,
            (std::vector<std::uint64_t>{0, kAccept + kLatency, 2 * kAccept + kLatency}));
  const FamsimSender::Request& atomic = a.sender.requests[0];
  const FamsimSender::Request& read = a.sender.requests[1];
  EXPECT_EQ(atomic.status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(atomic.data, word(0, 8));
  EXPECT_EQ(atomic.end_req_ps, kAccept);
  EXPECT_EQ(atomic.response_ps, 2 * (kAccept + kLatency));
  EXPECT_EQ(read.end_req_ps, 3 * kAccept + kLatency);
  EXPECT_EQ(read.response_ps, 3 * kAccept + 2 * kLatency);
  EXPECT_DOUBLE_EQ(r["backpressure_ns"].get<double>(),
                   static_cast<double>(3 * kAccept + kLatency) * 1e-3);
}

TEST_P(MemoryBridge, AnAtomicOnALooselyTimedMemoryHoldsTheWayUntilItsWriteBackReturns) {
  // Behind the convenience socket every access is taken only when answered (kLatency after it
  // goes out): the read 0..30 ns, the write-back 30..60 (taken, so the way free, at 60), and the
  // read sent behind the atomic at 30 (the atomic's implied END_REQ) goes out at 60, answered at
  // 90 with the sum.
  ForeignLtMemory mem("mem");
  mem.bytes.write(kWord, word(41, 8));
  Alone<ForeignLtMemory> a(test::kernel_named(GetParam()), mem,
                           {atomic_request(AtomicOp::kFetchAdd, kWord, 1), read_request(kWord, 8)});
  a.run();
  ASSERT_EQ(mem.seen.size(), 3u);
  EXPECT_EQ(mem.seen[0].begin_req_ps, 0u);
  EXPECT_EQ(mem.seen[1].command, tlm::TLM_WRITE_COMMAND);
  EXPECT_EQ(mem.seen[1].begin_req_ps, kLatency);
  EXPECT_EQ(mem.seen[2].begin_req_ps, 2 * kLatency);
  EXPECT_EQ(a.sender.requests[0].response_ps, 2 * kLatency);
  EXPECT_EQ(a.sender.requests[0].data, word(41, 8));
  EXPECT_EQ(a.sender.requests[1].response_ps, 3 * kLatency);
  EXPECT_EQ(a.sender.requests[1].data, word(42, 8));
}

TEST_P(MemoryBridge, AFailedAtomicReadIsFamsimsAnswerAndNothingIsWrittenBack) {
  // The memory answers reads TLM_ADDRESS_ERROR_RESPONSE: the atomic gets that status when the
  // read's answer comes (30 ns), no write goes out, and the word keeps 41.
  ForeignMemory mem("mem", 4);
  mem.fail_command = tlm::TLM_READ_COMMAND;
  mem.fail_status = tlm::TLM_ADDRESS_ERROR_RESPONSE;
  mem.bytes.write(kWord, word(41, 8));
  Alone<ForeignMemory> a(test::kernel_named(GetParam()), mem,
                         {atomic_request(AtomicOp::kFetchAdd, kWord, 1)});
  const nlohmann::json r = a.run();
  const FamsimSender::Request& got = a.sender.requests[0];
  EXPECT_EQ(got.status, tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(got.response_ps, kLatency);
  ASSERT_EQ(mem.seen.size(), 1u) << "a write-back after a failed read";
  EXPECT_EQ(mem.bytes.read(kWord, 8), word(41, 8));
  EXPECT_EQ(r["atomics"], 1);
  EXPECT_EQ(r["atomic_write_backs"], 0);
  EXPECT_EQ(r["writes"], 0);
  EXPECT_EQ(r["requests"], 1);
}

TEST_P(MemoryBridge, AFailedWriteBackIsFamsimsAnswer) {
  // The memory answers writes TLM_GENERIC_ERROR_RESPONSE: the read succeeds (0..30 ns), the
  // write-back fails (30..60), and famsim's atomic gets that status at 60 ns; the word keeps 41.
  ForeignMemory mem("mem", 4);
  mem.fail_command = tlm::TLM_WRITE_COMMAND;
  mem.bytes.write(kWord, word(41, 8));
  Alone<ForeignMemory> a(test::kernel_named(GetParam()), mem,
                         {atomic_request(AtomicOp::kFetchAdd, kWord, 1)});
  a.run();
  const FamsimSender::Request& got = a.sender.requests[0];
  EXPECT_EQ(got.status, tlm::TLM_GENERIC_ERROR_RESPONSE);
  EXPECT_EQ(got.response_ps, 2 * kLatency);
  ASSERT_EQ(mem.seen.size(), 2u);
  EXPECT_EQ(mem.bytes.read(kWord, 8), word(41, 8));
}

TEST_P(MemoryBridge, RequestsSentBeforeAnAtomicAreNotHeldByIt) {
  // Two reads at 0: channel address 0 answered at 40 ns, 256 at 10. A fetch-add at 512 sent at
  // 25 ns goes out at once though the first read is still in the memory (it was sent before):
  // its read 25..35 ns, its write-back 35..45. Answers in the order of their times: the second
  // read (10), the first (40), the atomic (45).
  ForeignReorderingMemory mem("mem", false);
  std::vector<FamsimSender::Request> requests = far_then_near();
  FamsimSender::Request atomic = atomic_request(AtomicOp::kFetchAdd, 512, 1);
  atomic.send_at_ps = 25000;
  requests.push_back(atomic);
  Alone<ForeignReorderingMemory> a(test::kernel_named(GetParam()), mem, requests);
  a.run();
  EXPECT_EQ(mem.begin_req_ps, (std::vector<std::uint64_t>{0, 0, 25000, 25000 + kNear}));
  EXPECT_EQ(a.sender.answer_order, (std::vector<std::size_t>{1, 0, 2}));
  EXPECT_EQ(a.sender.requests[0].response_ps, kFar);
  EXPECT_EQ(a.sender.requests[2].response_ps, 25000 + 2 * kNear);
  EXPECT_EQ(a.sender.requests[2].status, tlm::TLM_OK_RESPONSE);
}

// A target that completes every BEGIN_REQ in the call (TLM_COMPLETED, kLatency added to the
// annotated delay): its END_REQ and BEGIN_RESP are implied, both kLatency after the request.
class ForeignCompletingMemory : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<ForeignCompletingMemory> socket;
  std::vector<Seen> seen;
  Bytes bytes;

  explicit ForeignCompletingMemory(sc_core::sc_module_name name)
      : sc_core::sc_module(name), socket("socket") {
    socket.register_nb_transport_fw(this, &ForeignCompletingMemory::nb_transport_fw);
  }

 private:
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                     sc_core::sc_time& t) {
    EXPECT_EQ(phase, tlm::BEGIN_REQ);
    const std::uint64_t at = sc_core::sc_time_stamp().value() + t.value();
    seen.push_back(
        {p.get_command(), p.get_address(), p.get_data_length(), at, at + kLatency, at + kLatency});
    bytes.access(p);
    t += sc_core::sc_time::from_value(kLatency);
    return tlm::TLM_COMPLETED;
  }
};

// Two fetch-adds of 1 on 41, then a read of the word, on a target that completes each call
// kLatency (30 ns) later. The first's read goes at 0 and is answered at 30, its write-back goes
// then and is taken and answered at 60 (the hold ends, famsim's answer 41); the second's read at
// 60, write-back at 90, answer 42 at 120; the read at 120, answered 43 at 150.
TEST_P(MemoryBridge, AtomicsBackToBackOnATargetThatCompletesInTheCall) {
  ForeignCompletingMemory mem("mem");
  mem.bytes.write(kWord, word(41, 8));
  Alone<ForeignCompletingMemory> a(
      test::kernel_named(GetParam()), mem,
      {atomic_request(AtomicOp::kFetchAdd, kWord, 1), atomic_request(AtomicOp::kFetchAdd, kWord, 1),
       read_request(kWord, 8)});
  const nlohmann::json r = a.run();
  std::vector<std::uint64_t> sent;
  std::vector<tlm::tlm_command> commands;
  for (const Seen& s : mem.seen) {
    sent.push_back(s.begin_req_ps);
    commands.push_back(s.command);
  }
  EXPECT_EQ(sent, (std::vector<std::uint64_t>{0, 30000, 60000, 90000, 120000}));
  EXPECT_EQ(commands, (std::vector<tlm::tlm_command>{tlm::TLM_READ_COMMAND, tlm::TLM_WRITE_COMMAND,
                                                     tlm::TLM_READ_COMMAND, tlm::TLM_WRITE_COMMAND,
                                                     tlm::TLM_READ_COMMAND}));
  EXPECT_EQ(a.sender.requests[0].data, word(41, 8));
  EXPECT_EQ(a.sender.requests[1].data, word(42, 8));
  EXPECT_EQ(a.sender.requests[2].data, word(43, 8));
  EXPECT_EQ(a.sender.requests[0].end_req_ps, 30000u);
  EXPECT_EQ(a.sender.requests[0].response_ps, 60000u);
  EXPECT_EQ(a.sender.requests[1].response_ps, 120000u);
  EXPECT_EQ(a.sender.requests[2].response_ps, 150000u);
  EXPECT_EQ(mem.bytes.read(kWord, 8), word(43, 8));
  EXPECT_EQ(r["atomics"], 2);
  EXPECT_EQ(r["atomic_write_backs"], 2);
  EXPECT_EQ(r["requests"], 3);
  // The holds, 0 to 60 and 60 to 120 ns, are 120 of the run's 150 ns: the way held 80 % of the
  // time, for 2 atomics in 120 ns (16.67 M/s back to back) where 2 came in 150 ns (13.33 M/s).
  bool found = false;
  for (const auto& u : r["resources"]) {
    if (u["name"].get<std::string>().rfind("atomic hold", 0) != 0) continue;
    found = true;
    EXPECT_DOUBLE_EQ(u["utilization"].get<double>(), 0.8);
    EXPECT_NEAR(u["capacity"].get<double>(), 2.0 / 120e-9 * 1e-6, 1e-9);
    EXPECT_NEAR(u["used"].get<double>(), 2.0 / 150e-9 * 1e-6, 1e-9);
    EXPECT_EQ(u["unit"], "M atomics/s");
  }
  EXPECT_TRUE(found) << r["resources"].dump();
}

// The write-back waits for a payload: one slot and one payload, on a target that answers a
// request at channel address 512 kNear (10 ns) after taking it and gives its payload back 20 ns
// after answering. The atomic's read goes at 0 and is answered at 10; its payload comes back at 30,
// when the write-back goes (answered at 40: famsim's answer); the read behind it waits for that
// payload, back at 60, and sees the new word.
TEST_P(MemoryBridge, AnAtomicsWriteBackWaitsForAFreePayload) {
  ForeignReorderingMemory mem("mem", false, 20000);
  Alone<ForeignReorderingMemory> a(
      test::kernel_named(GetParam()), mem,
      {atomic_request(AtomicOp::kFetchAdd, 512, 1), read_request(512, 8)}, 1);
  a.run();
  EXPECT_EQ(mem.begin_req_ps, (std::vector<std::uint64_t>{0, 30000, 60000}));
  EXPECT_EQ(a.sender.requests[0].data, word(0, 8));
  EXPECT_EQ(a.sender.requests[0].response_ps, 40000u);
  EXPECT_EQ(a.sender.requests[1].data, word(1, 8));
  EXPECT_EQ(a.sender.requests[1].response_ps, 70000u);
}

// The same atomic alone: nothing else waits when its read's payload comes back at 30 ns, so only
// the write-back's own call for a payload sends it (at 30; answered at 40).
TEST_P(MemoryBridge, AnAtomicAloneWhoseWriteBackWaitsForAPayloadIsAnswered) {
  ForeignReorderingMemory mem("mem", false, 20000);
  Alone<ForeignReorderingMemory> a(test::kernel_named(GetParam()), mem,
                                   {atomic_request(AtomicOp::kFetchAdd, 512, 1)}, 1);
  const nlohmann::json r = a.run();
  EXPECT_EQ(mem.begin_req_ps, (std::vector<std::uint64_t>{0, 30000}));
  EXPECT_EQ(a.sender.requests[0].response_ps, 40000u);
  EXPECT_EQ(r["atomic_write_backs"], 1);
}

INSTANTIATE_TEST_SUITE_P(Kernels, MemoryBridge, ::testing::Values("famsim", "systemc"));

}  // namespace
}  // namespace famsim
