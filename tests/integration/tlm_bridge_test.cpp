// A foreign TLM-2.0 initiator drives the expansion device through TlmBridge (co-simulation):
// textbook base-protocol initiators (a simple_initiator_socket, a payload event queue, their own
// memory manager, nothing of famsim) write and read back through the whole device, with the
// times worked out by hand from the device's configuration, under both simulation kernels.
#include "tests/support/foreign_tlm.h"
#include "tests/support/round_number_device.h"
#include "tests/support/test_support.h"

#include "models/cosim/bus_width_adapter.h"
#include "models/cosim/tlm_atomic.h"
#include "models/cosim/tlm_bridge.h"
#include "models/core/sim_context.h"
#include "platforms/builder.h"
#include "platforms/platform_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <algorithm>
#include <functional>
#include <memory>
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
using ::testing::HasSubstr;

// The device of tests/support/round_number_device.h, as a platform file's parser reads it, with
// `fabric_ports` ports.
DeviceConfig bridge_device_config(unsigned fabric_ports = 1) {
  const std::string yaml = R"(
name: bridge_test
gpus: {count: 1, clock_mhz: 1000, request_bytes: 128, max_outstanding: 16}
links:
  gpu_device: {preset: nvlink4, per_gpu: 1}
)" + test::kRoundNumberDevice;
  const ConfigDoc doc =
      test::make_doc(yaml, "name: none\nstreams: []\n",
                     {"devices.0.fabric_ports=" + std::to_string(fabric_ports),
                      "links.gpu_device.per_gpu=" + std::to_string(fabric_ports)});
  ConfigNode root(doc.root, "", doc.sources);
  root.ignore("workload");
  return parse_platform(root).devices.at(0);
}

// A 128 B request entering the device's fabric port at `arrive` ps: when its answer leaves it.
std::uint64_t round_trip(std::uint64_t arrive, bool write) {
  return test::round_number_device_trip(arrive, write);
}

// A loosely timed initiator: one SC_THREAD calling b_transport with payloads on its stack (no
// memory manager), each annotated with `delay_ps`, recording the time each call returned at. Its
// socket is BUSWIDTH bits wide.
template <unsigned BUSWIDTH>
class ForeignLtOfWidth : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<ForeignLtOfWidth, BUSWIDTH> socket;

  ForeignLtOfWidth(sc_core::sc_module_name name, std::vector<Op>& ops, std::uint64_t delay_ps)
      : sc_core::sc_module(name), socket("socket"), ops_(ops), delay_ps_(delay_ps) {
    SC_HAS_PROCESS(ForeignLtOfWidth);
    SC_THREAD(run);
  }

 private:
  void run() {
    for (Op& op : ops_) test::transport_blocking(socket, op, delay_ps_);
  }

  std::vector<Op>& ops_;
  std::uint64_t delay_ps_;
};
using ForeignLt = ForeignLtOfWidth<32>;

// A loosely timed initiator of one read whose payload and data are its members, not on its
// thread's stack: when the run ends with the call unreturned, the kernel never resumes or unwinds
// the thread (SystemC 2.3.4), so anything on its stack that owns memory would leak.
class ForeignLtOneRead : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<ForeignLtOneRead> socket;
  bool returned = false;

  ForeignLtOneRead(sc_core::sc_module_name name, std::uint64_t address, std::uint64_t delay_ps)
      : sc_core::sc_module(name), socket("socket"), address_(address), delay_ps_(delay_ps) {
    SC_HAS_PROCESS(ForeignLtOneRead);
    SC_THREAD(run);
  }

 private:
  void run() {
    payload_.set_command(tlm::TLM_READ_COMMAND);
    payload_.set_address(address_);
    payload_.set_data_ptr(data_);
    payload_.set_data_length(sizeof data_);
    payload_.set_streaming_width(sizeof data_);
    delay_ = sc_core::sc_time::from_value(delay_ps_);
    socket->b_transport(payload_, delay_);
    returned = true;
  }

  std::uint64_t address_, delay_ps_;
  tlm::tlm_generic_payload payload_;
  unsigned char data_[128] = {};
  sc_core::sc_time delay_;
};

// A loosely timed initiator whose thread runs a script the test gives it.
class ForeignScript : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<ForeignScript> socket;

  ForeignScript(sc_core::sc_module_name name, std::function<void(ForeignScript&)> script)
      : sc_core::sc_module(name), socket("socket"), script_(std::move(script)) {
    SC_HAS_PROCESS(ForeignScript);
    SC_THREAD(run);
  }

  // One access of `data.size()` bytes at `address`: timed (b_transport) or debug
  // (transport_dbg). Returns the response status, or for debug the bytes done. A timed access
  // may carry an atomic (the extension is the caller's, taken off again before the payload goes).
  int timed(tlm::tlm_command command, std::uint64_t address, std::vector<unsigned char>& data,
            TlmAtomic* atomic = nullptr) {
    tlm::tlm_generic_payload p;
    setup(p, command, address, data);
    if (atomic) p.set_extension(atomic);
    sc_core::sc_time t = sc_core::SC_ZERO_TIME;
    socket->b_transport(p, t);
    if (atomic) p.clear_extension(atomic);
    return p.get_response_status();
  }
  // `byte_enables` sets a byte-enable pointer and length, `streaming_width` (0: the length) the
  // streaming width, whatever `option`; `option_after` gets the gp_option the call left.
  unsigned debug(tlm::tlm_command command, std::uint64_t address, std::vector<unsigned char>& data,
                 tlm::tlm_gp_option option = tlm::TLM_MIN_PAYLOAD, bool byte_enables = false,
                 unsigned streaming_width = 0, tlm::tlm_gp_option* option_after = nullptr) {
    tlm::tlm_generic_payload p;
    setup(p, command, address, data);
    p.set_gp_option(option);
    if (byte_enables) {
      p.set_byte_enable_ptr(data.data());
      p.set_byte_enable_length(static_cast<unsigned>(data.size()));
    }
    if (streaming_width > 0) p.set_streaming_width(streaming_width);
    const unsigned done = socket->transport_dbg(p);
    if (option_after) *option_after = p.get_gp_option();
    return done;
  }
  bool dmi(std::uint64_t address, tlm::tlm_dmi& dmi) {
    tlm::tlm_generic_payload p;
    std::vector<unsigned char> data(8);
    setup(p, tlm::TLM_READ_COMMAND, address, data);
    return socket->get_direct_mem_ptr(p, dmi);
  }

 private:
  static void setup(tlm::tlm_generic_payload& p, tlm::tlm_command command, std::uint64_t address,
                    std::vector<unsigned char>& data) {
    p.set_command(command);
    p.set_address(address);
    p.set_data_ptr(data.data());
    p.set_data_length(static_cast<unsigned>(data.size()));
    p.set_streaming_width(static_cast<unsigned>(data.size()));
    p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  }
  void run() { script_(*this); }

  std::function<void(ForeignScript&)> script_;
};

// An ignorable phase of the tests' own (IEEE 1666-2011 lets a base-protocol socket carry such
// phases: a callee that does not know one returns TLM_ACCEPTED and otherwise ignores it).
TLM_DECLARE_EXTENDED_PHASE(bridge_test_hint);

// An approximately timed initiator that uses the hint: it reads each of `addresses` in turn,
// sends the hint on the forward path 10 ns into each transaction, returns TLM_UPDATED with the
// hint to END_REQ and to BEGIN_RESP, and ends each response (END_RESP) 20 ns after it came; the
// next read goes out then. Its payload has no memory manager.
class ForeignHinting : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<ForeignHinting> socket;
  struct Read {
    std::uint64_t address = 0;
    // Results.
    std::uint64_t end_req_ps = 0;
    std::uint64_t begin_resp_ps = 0;
    tlm::tlm_response_status status = tlm::TLM_INCOMPLETE_RESPONSE;
    tlm::tlm_sync_enum hint_return = tlm::TLM_UPDATED;
    tlm::tlm_sync_enum end_resp_return = tlm::TLM_UPDATED;
  };
  std::vector<Read> reads;

  ForeignHinting(sc_core::sc_module_name name, std::vector<Read> r)
      : sc_core::sc_module(name), socket("socket"), reads(std::move(r)) {
    socket.register_nb_transport_bw(this, &ForeignHinting::nb_transport_bw);
    SC_HAS_PROCESS(ForeignHinting);
    SC_THREAD(run);
  }

 private:
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload&, tlm::tlm_phase& phase,
                                     sc_core::sc_time& t) {
    const std::uint64_t at = sc_core::sc_time_stamp().value() + t.value();
    if (phase == tlm::END_REQ) {
      reads[current_].end_req_ps = at;
    } else if (phase == tlm::BEGIN_RESP) {
      reads[current_].begin_resp_ps = at;
      responded_.notify(t);
    } else {
      ADD_FAILURE() << "unexpected phase " << phase;
      return tlm::TLM_ACCEPTED;
    }
    phase = bridge_test_hint;
    return tlm::TLM_UPDATED;
  }
  void run() {
    for (current_ = 0; current_ < reads.size(); ++current_) {
      Read& r = reads[current_];
      std::vector<unsigned char> data(128);
      tlm::tlm_generic_payload p;
      p.set_command(tlm::TLM_READ_COMMAND);
      p.set_address(r.address);
      p.set_data_ptr(data.data());
      p.set_data_length(128);
      p.set_streaming_width(128);
      p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      transport(p, tlm::BEGIN_REQ);
      sc_core::wait(10, sc_core::SC_NS);
      r.hint_return = transport(p, bridge_test_hint);
      sc_core::wait(responded_);
      r.status = p.get_response_status();
      sc_core::wait(20, sc_core::SC_NS);
      r.end_resp_return = transport(p, tlm::END_RESP);
    }
  }
  tlm::tlm_sync_enum transport(tlm::tlm_generic_payload& p, const tlm::tlm_phase& phase) {
    tlm::tlm_phase ph = phase;
    delay_ = sc_core::SC_ZERO_TIME;
    return socket->nb_transport_fw(p, ph, delay_);
  }

  std::size_t current_ = 0;
  sc_core::sc_event responded_;
  sc_core::sc_time delay_;  // a member: see ForeignAt
};

// The device at kBase with a bridge attached to its fabric port `port` (of `fabric_ports`): the
// foreign initiator sees the device at address 0 unless `addresses` says otherwise.
struct Bench {
  explicit Bench(Kernel kernel, unsigned max_outstanding = 8, unsigned fabric_ports = 1,
                 unsigned port = 0, BridgeAddresses addresses = BridgeAddresses::kDeviceAtZero)
      : ctx(kPoolBytes, 1, kernel),
        cfg(bridge_device_config(fabric_ports)),
        dev("fam0", ctx, cfg, kBase) {
    TlmBridgeParams p;
    p.max_outstanding = max_outstanding;
    p.source = 7;
    bridge = std::make_unique<TlmBridge>("bridge", ctx, dev.bridge_params(p, addresses));
    dev.attach(*bridge, port);
  }
  // Runs to the end; checks that nothing is left in flight or leaked.
  nlohmann::json run() {
    sc_core::sc_start();
    EXPECT_TRUE(bridge->finished());
    EXPECT_EQ(bridge->issued(), bridge->completed());
    EXPECT_EQ(bridge->duplicates(), 0u);
    EXPECT_EQ(ctx.pool.in_use(), 0u) << "famsim payloads leaked";
    for (Component* c : ctx.registry.components()) {
      EXPECT_EQ(c->occupancy(), 0u) << c->component_name() << " still holds requests";
    }
    return ctx.registry.report_all(ReportWindow{0, now_ps()});
  }
  SimContext ctx;
  DeviceConfig cfg;
  ExpansionDevice dev;
  std::unique_ptr<TlmBridge> bridge;
};

class Bridge : public ::testing::TestWithParam<const char*> {};

TEST_P(Bridge, ApproximatelyTimedWriteThenReadTakesTheDevicesRoundTrips) {
  Bench b(test::kernel_named(GetParam()));
  const std::vector<unsigned char> data = pattern(128, 5);
  std::vector<Op> ops{write_op(0x1000, data), read_op(0x1000)};
  ForeignAt cpu("cpu", ops, 1);
  cpu.socket.bind(b.bridge->in);
  const nlohmann::json report = b.run();
  ASSERT_TRUE(ops[0].answered && ops[1].answered);
  EXPECT_EQ(ops[0].status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(ops[1].status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(ops[1].data, data) << "the read did not return the written bytes";
  // The write enters the device at 0 and is answered at round_trip(0, write); the read is sent
  // when that answer arrives (window 1) and enters at once. By hand: the write 0 -> ingress 6 ->
  // crossbar 7 + 8 = 15 -> memory 15 + 28 = 43 -> crossbar 44 + 5 = 49 -> egress 50 + 4 = 54 ns;
  // the read 54 -> 60 -> 61 + 5 = 66 -> 94 -> 95 + 8 = 103 -> 104 + 4 = 108 ns.
  EXPECT_EQ(ops[0].response_ps, round_trip(0, true));
  EXPECT_EQ(ops[0].response_ps, 54000u);
  EXPECT_EQ(ops[1].begin_req_ps, ops[0].response_ps);
  EXPECT_EQ(ops[1].response_ps, round_trip(ops[0].response_ps, false));
  EXPECT_EQ(ops[1].response_ps, 108000u);
  // END_REQ comes when the device's port took the request: at once on an idle device.
  EXPECT_EQ(ops[0].end_req_ps, 0u);
  EXPECT_EQ(ops[1].end_req_ps, ops[1].begin_req_ps);
  EXPECT_EQ(cpu.given_back, 2u) << "each payload comes back to its memory manager once";
  const nlohmann::json& r = report.at("bridge");
  EXPECT_EQ(r["requests"], 2);
  EXPECT_EQ(r["bytes"], 256.0);
  EXPECT_DOUBLE_EQ(r["write_latency_ns"]["max"].get<double>(), 54.0);
  EXPECT_DOUBLE_EQ(r["read_latency_ns"]["max"].get<double>(), 54.0);
  // The device saw the bridge's source and addresses: its port logic took both requests.
  EXPECT_EQ(report.at("fam0.port_logic")["bytes"], 256.0);
}

TEST_P(Bridge, FabricPortsNobodyDrivesAreTiedOff) {
  // A device of 4 fabric ports driven on port 2 alone: without the tie-off, elaboration stops
  // (E109, a port not bound). A lone request's round trip does not depend on the other ports, so
  // the times are the first test's, by hand: write 54 ns, read 54 + 54 = 108 ns.
  Bench b(test::kernel_named(GetParam()), 8, 4, 2);
  EXPECT_EQ(b.dev.tie_off_unused_ports(), 3u);
  EXPECT_EQ(b.dev.tie_off_unused_ports(), 0u) << "every port is bound now";
  const std::vector<unsigned char> data = pattern(128, 6);
  std::vector<Op> ops{write_op(0x1000, data), read_op(0x1000)};
  ForeignAt cpu("cpu", ops, 1);
  cpu.socket.bind(b.bridge->in);
  const nlohmann::json report = b.run();
  ASSERT_TRUE(ops[0].answered && ops[1].answered);
  EXPECT_EQ(ops[1].data, data);
  EXPECT_EQ(ops[0].response_ps, 54000u);
  EXPECT_EQ(ops[1].response_ps, 108000u);
  EXPECT_EQ(report.at("fam0.port_logic")["bytes"], 256.0);
}

TEST_P(Bridge, AnInitiatorTakingPhasesInTheCallSeesTheSameTimes) {
  // As the write-then-read test, but the initiator reads each phase's time off the call's
  // annotated delay and completes responses on return: under the famsim kernel the bridge calls
  // from famsim's run-ahead, so the delays carry famsim's local time.
  Bench b(test::kernel_named(GetParam()));
  const std::vector<unsigned char> data = pattern(128, 6);
  std::vector<Op> ops{write_op(0x1000, data), read_op(0x1000), read_op(0x1000)};
  ForeignAt cpu("cpu", ops, 1, true);
  cpu.socket.bind(b.bridge->in);
  b.run();
  for (const Op& op : ops) ASSERT_TRUE(op.answered);
  EXPECT_EQ(ops[1].data, data);
  EXPECT_EQ(ops[2].data, data);
  EXPECT_EQ(ops[0].response_ps, 54000u);   // round_trip(0, write), as worked out above
  EXPECT_EQ(ops[1].response_ps, 108000u);  // round_trip(54 ns, read)
  // The third: 108 -> 108 + 6 = 114 -> 115 + 5 = 120 -> 148 -> 149 + 8 = 157 -> 158 + 4 = 162 ns.
  EXPECT_EQ(ops[2].response_ps, round_trip(108000, false));
  EXPECT_EQ(ops[2].response_ps, 162000u);
  EXPECT_EQ(cpu.given_back, 3u);
}

TEST_P(Bridge, LooselyTimedCallsWaitForTheDeviceAndHonourTheirDelay) {
  Bench b(test::kernel_named(GetParam()));
  const std::vector<unsigned char> data = pattern(128, 9);
  std::vector<Op> ops{write_op(0x2000, data), read_op(0x2000)};
  ForeignLt cpu("cpu", ops, 10000);  // each call annotated with 10 ns
  cpu.socket.bind(b.bridge->in);
  b.run();
  ASSERT_TRUE(ops[0].answered && ops[1].answered);
  EXPECT_EQ(ops[1].data, data);
  // The write takes effect at 10 ns: 10 -> 16 -> 17 + 8 = 25 -> 53 -> 54 + 5 = 59 -> 60 + 4 =
  // 64 ns; the read is called at 64 ns and takes effect at 74: 74 -> 80 -> 81 + 5 = 86 -> 114 ->
  // 115 + 8 = 123 -> 124 + 4 = 128 ns.
  EXPECT_EQ(ops[0].response_ps, round_trip(10000, true));
  EXPECT_EQ(ops[0].response_ps, 64000u);
  EXPECT_EQ(ops[1].response_ps, round_trip(ops[0].response_ps + 10000, false));
  EXPECT_EQ(ops[1].response_ps, 128000u);
}

// An initiator whose socket is 64 bits wide reaches the bridge's 32-bit socket through
// BusWidthAdapter, which passes every call through unchanged both ways: the times and data are
// those of the 32-bit initiator of the first test, by hand: write 54 ns, read 108 ns.
TEST_P(Bridge, AnInitiatorOfA64BitSocketThroughTheBusWidthAdapterSeesTheSameTimes) {
  Bench b(test::kernel_named(GetParam()));
  const std::vector<unsigned char> data = pattern(128, 12);
  std::vector<Op> ops{write_op(0x1000, data), read_op(0x1000)};
  test::ForeignAtOfWidth<64> cpu("cpu64", ops, 1);
  BusWidthAdapter<64> adapter("adapter64");
  cpu.socket.bind(adapter.in);
  adapter.out.bind(b.bridge->in);
  b.run();
  ASSERT_TRUE(ops[0].answered && ops[1].answered);
  EXPECT_EQ(ops[1].data, data);
  EXPECT_EQ(ops[0].end_req_ps, 0u);
  EXPECT_EQ(ops[0].response_ps, 54000u);
  EXPECT_EQ(ops[1].response_ps, 108000u);
  EXPECT_EQ(cpu.given_back, 2u);
}

// The same for a loosely timed initiator of a 128-bit socket: b_transport through the adapter,
// each call annotated 10 ns, returns as LooselyTimedCallsWaitForTheDeviceAndHonourTheirDelay's
// calls do, by hand: 64 and 128 ns.
TEST_P(Bridge, ALooselyTimedInitiatorOfA128BitSocketThroughTheAdapter) {
  Bench b(test::kernel_named(GetParam()));
  const std::vector<unsigned char> data = pattern(128, 13);
  std::vector<Op> ops{write_op(0x2000, data), read_op(0x2000)};
  ForeignLtOfWidth<128> cpu("cpu128", ops, 10000);
  BusWidthAdapter<128> adapter("adapter128");
  cpu.socket.bind(adapter.in);
  adapter.out.bind(b.bridge->in);
  b.run();
  ASSERT_TRUE(ops[0].answered && ops[1].answered);
  EXPECT_EQ(ops[1].data, data);
  EXPECT_EQ(ops[0].response_ps, 64000u);
  EXPECT_EQ(ops[1].response_ps, 128000u);
}

// Atomics a foreign initiator asks for with TlmAtomic on a read, executed by the device on its
// little-endian words; the answers and the words after them worked out by hand. An 8 B word v =
// 0x0102030405060708 at 0x40: fetch-add 5 answers v and leaves v + 5; compare-and-swap (v + 5 ->
// 42) answers v + 5 and leaves 42; compare-and-swap (7 -> 1) answers 42 and leaves it. A 4 B word
// 0xffffffff at 0x48: fetch-add 1 answers it and wraps to 0, leaving the next word (0x4c) as
// written. What famsim cannot execute is answered at once, with a warning each: an atomic write
// (TLM_COMMAND_ERROR_RESPONSE), one of 16 B (TLM_BURST_ERROR_RESPONSE), an 8 B one at 0x44
// (TLM_ADDRESS_ERROR_RESPONSE).
TEST_P(Bridge, AtomicsFromAForeignInitiatorAreExecutedOnTheDevicesWords) {
  Bench b(test::kernel_named(GetParam()));
  const auto word = [](std::uint64_t v, unsigned bytes) {
    std::vector<unsigned char> w(bytes);
    for (unsigned i = 0; i < bytes; ++i) w[i] = static_cast<unsigned char>(v >> (8 * i));
    return w;
  };
  const std::uint64_t v = 0x0102030405060708ULL;
  std::vector<std::vector<unsigned char>> answers, after;
  std::vector<int> refused;
  ForeignScript cpu("cpu", [&](ForeignScript& f) {
    std::vector<unsigned char> w = word(v, 8);
    f.timed(tlm::TLM_WRITE_COMMAND, 0x40, w);
    std::vector<unsigned char> w4 = word(0xffffffffULL, 4), next = word(0x11223344ULL, 4);
    f.timed(tlm::TLM_WRITE_COMMAND, 0x48, w4);
    f.timed(tlm::TLM_WRITE_COMMAND, 0x4c, next);
    TlmAtomic add;
    add.op = AtomicOp::kFetchAdd;
    add.operand = 5;
    TlmAtomic swap;
    swap.op = AtomicOp::kCompareSwap;
    swap.compare = v + 5;
    swap.operand = 42;
    TlmAtomic miss;
    miss.op = AtomicOp::kCompareSwap;
    miss.compare = 7;
    miss.operand = 1;
    for (TlmAtomic* a : {&add, &swap, &miss}) {
      std::vector<unsigned char> old(8), now(8);
      EXPECT_EQ(f.timed(tlm::TLM_READ_COMMAND, 0x40, old, a), tlm::TLM_OK_RESPONSE);
      f.timed(tlm::TLM_READ_COMMAND, 0x40, now);
      answers.push_back(old);
      after.push_back(now);
    }
    TlmAtomic one;
    one.op = AtomicOp::kFetchAdd;
    one.operand = 1;
    std::vector<unsigned char> old4(4), now8(8);
    EXPECT_EQ(f.timed(tlm::TLM_READ_COMMAND, 0x48, old4, &one), tlm::TLM_OK_RESPONSE);
    f.timed(tlm::TLM_READ_COMMAND, 0x48, now8);
    answers.push_back(old4);
    after.push_back(now8);
    std::vector<unsigned char> b8(8), b16(16);
    refused.push_back(f.timed(tlm::TLM_WRITE_COMMAND, 0x40, b8, &add));
    refused.push_back(f.timed(tlm::TLM_READ_COMMAND, 0x40, b16, &add));
    refused.push_back(f.timed(tlm::TLM_READ_COMMAND, 0x44, b8, &add));
  });
  cpu.socket.bind(b.bridge->in);
  test::CapturedWarnings warnings;
  const nlohmann::json report = b.run();
  ASSERT_EQ(answers.size(), 4u);
  EXPECT_EQ(answers[0], word(v, 8));
  EXPECT_EQ(after[0], word(v + 5, 8));
  EXPECT_EQ(answers[1], word(v + 5, 8));
  EXPECT_EQ(after[1], word(42, 8));
  EXPECT_EQ(answers[2], word(42, 8));
  EXPECT_EQ(after[2], word(42, 8));
  EXPECT_EQ(answers[3], word(0xffffffffULL, 4));
  EXPECT_EQ(after[3], word(0x1122334400000000ULL, 8));
  EXPECT_EQ(refused,
            (std::vector<int>{tlm::TLM_COMMAND_ERROR_RESPONSE, tlm::TLM_BURST_ERROR_RESPONSE,
                              tlm::TLM_ADDRESS_ERROR_RESPONSE}));
  EXPECT_EQ(report.at("bridge")["atomics"], 4);
  const std::vector<std::string>& w = warnings.messages();
  ASSERT_EQ(w.size(), 3u);
  EXPECT_THAT(w[0], HasSubstr("a write of 8 B at 0x40 was answered TLM_COMMAND_ERROR_RESPONSE"));
  EXPECT_THAT(w[0], HasSubstr("on a read command only"));
  EXPECT_THAT(w[1], HasSubstr("TLM_BURST_ERROR_RESPONSE without entering famsim: it carries a "
                              "TlmAtomic, which acts on a word of 4 or 8 B"));
  EXPECT_THAT(w[2], HasSubstr("a read of 8 B at 0x44 was answered TLM_ADDRESS_ERROR_RESPONSE"));
  EXPECT_THAT(w[2], HasSubstr("(famsim address 0x10000000044)"));
}

TEST_P(Bridge, WhatFamsimCannotCarryIsAnsweredAtOnceWithTheStandardsErrors) {
  Bench b(test::kernel_named(GetParam()));
  std::vector<Op> ops;
  ops.push_back(read_op((1ULL << 30) - 64));  // runs past the 1 GiB device
  ops.push_back(read_op(0x3000));
  ops.back().byte_enables = true;
  ops.push_back(read_op(0x3000));
  ops.back().streaming_width = 4;                   // a streaming burst
  ops.push_back(read_op(0x3000, kPoolBytes + 64));  // longer than the pool's payloads
  ops.push_back(read_op(0x3000));
  ops.back().command = tlm::TLM_IGNORE_COMMAND;
  ops.push_back(read_op(0x3000));  // a good one after them
  ForeignAt cpu("cpu", ops, 1);
  cpu.socket.bind(b.bridge->in);
  test::CapturedWarnings warnings;
  const nlohmann::json report = b.run();
  const tlm::tlm_response_status expected[] = {
      tlm::TLM_ADDRESS_ERROR_RESPONSE, tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE,
      tlm::TLM_BURST_ERROR_RESPONSE, tlm::TLM_BURST_ERROR_RESPONSE, tlm::TLM_OK_RESPONSE};
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(ops[i].begin_req_return, tlm::TLM_COMPLETED) << "operation " << i;
    EXPECT_EQ(ops[i].status, expected[i]) << "operation " << i;
    EXPECT_EQ(ops[i].response_ps, 0u) << "operation " << i;
  }
  EXPECT_EQ(ops[5].status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(ops[5].response_ps, round_trip(0, false));
  // Only the good one entered famsim.
  EXPECT_EQ(b.bridge->issued(), 1u);
  EXPECT_EQ(b.bridge->refused(), 5u);
  EXPECT_EQ(cpu.given_back, 6u);
  const nlohmann::json& once = report.at("bridge")["answered_at_once"];
  EXPECT_EQ(once["TLM_ADDRESS_ERROR_RESPONSE"], 1);
  EXPECT_EQ(once["TLM_BYTE_ENABLE_ERROR_RESPONSE"], 1);
  EXPECT_EQ(once["TLM_BURST_ERROR_RESPONSE"], 2);
  EXPECT_EQ(once["TLM_IGNORE_COMMAND"], 1);
  // A warning for each reason (the two burst errors have two; none for TLM_IGNORE_COMMAND),
  // saying why. By hand: the read at 1 GiB - 64 = 0x3fffffc0 is famsim address
  // 2^40 + 2^30 - 64 = 0x1003fffffc0; the window is the 1 GiB device at 2^40; 256 + 64 = 320 B.
  const std::vector<std::string>& w = warnings.messages();
  ASSERT_EQ(w.size(), 4u);
  EXPECT_THAT(w[0], HasSubstr("bridge: a read of 128 B at 0x3fffffc0 was answered "
                              "TLM_ADDRESS_ERROR_RESPONSE without entering famsim: with "
                              "address_offset 0x10000000000 it is famsim address 0x1003fffffc0, "
                              "not wholly inside the window (window_base 0x10000000000, "
                              "window_bytes 1073741824)"));
  EXPECT_THAT(w[1], HasSubstr("bridge: a read of 128 B at 0x3000 was answered "
                              "TLM_BYTE_ENABLE_ERROR_RESPONSE without entering famsim: it has "
                              "byte enables"));
  EXPECT_THAT(w[2], HasSubstr("bridge: a read of 128 B at 0x3000 was answered "
                              "TLM_BURST_ERROR_RESPONSE without entering famsim: its streaming "
                              "width, 4 B, is under its data length"));
  EXPECT_THAT(w[3], HasSubstr("bridge: a read of 320 B at 0x3000 was answered "
                              "TLM_BURST_ERROR_RESPONSE without entering famsim: its data length "
                              "is above the 256 B of famsim's payloads (max_data_bytes)"));
}

TEST_P(Bridge, ARequestLongerThanFamsimsPayloadsIsRefusedWithAWarningSayingSo) {
  Bench b(test::kernel_named(GetParam()));
  std::vector<Op> ops{read_op(0x3000, kPoolBytes + 64), read_op(0x4000, 2 * kPoolBytes)};
  ForeignAt cpu("cpu", ops, 1);
  cpu.socket.bind(b.bridge->in);
  test::CapturedWarnings warnings;
  b.run();
  EXPECT_EQ(ops[0].status, tlm::TLM_BURST_ERROR_RESPONSE);
  EXPECT_EQ(ops[1].status, tlm::TLM_BURST_ERROR_RESPONSE);
  // Only the first is reported (the same reason twice): 256 + 64 = 320 B against the pool's 256 B.
  ASSERT_EQ(warnings.messages().size(), 1u);
  EXPECT_THAT(warnings.messages()[0],
              HasSubstr("bridge: a read of 320 B at 0x3000 was answered TLM_BURST_ERROR_RESPONSE "
                        "without entering famsim: its data length is above the 256 B of famsim's "
                        "payloads (max_data_bytes)"));
}

TEST_P(Bridge, IgnorablePhasesEitherWayAreIgnored) {
  // Three hints a read: returned to END_REQ, sent 10 ns in, returned to BEGIN_RESP (which the
  // bridge then takes as TLM_ACCEPTED: the response stays open until the END_RESP 20 ns later).
  // Nothing else changes: the first read enters at 0 and is answered at 54 ns (as in the first
  // test), ended at 74; the second enters at 74 and is answered at 74 + 54 = 128 ns.
  Bench b(test::kernel_named(GetParam()));
  ForeignHinting cpu("cpu", {{0x1000}, {0x2000}});
  cpu.socket.bind(b.bridge->in);
  const nlohmann::json report = b.run();
  const std::vector<ForeignHinting::Read>& r = cpu.reads;
  EXPECT_EQ(r[0].end_req_ps, 0u);
  EXPECT_EQ(r[0].begin_resp_ps, 54000u);
  EXPECT_EQ(r[1].end_req_ps, 74000u);
  EXPECT_EQ(r[1].begin_resp_ps, round_trip(74000, false));
  EXPECT_EQ(r[1].begin_resp_ps, 128000u);
  for (const ForeignHinting::Read& read : r) {
    EXPECT_EQ(read.status, tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(read.hint_return, tlm::TLM_ACCEPTED) << "a callee that does not know a phase";
    EXPECT_EQ(read.end_resp_return, tlm::TLM_COMPLETED);
  }
  EXPECT_EQ(report.at("bridge")["ignored_phases"], 6);
}

TEST_P(Bridge, ARequestRefusedWhileAResponseIsOpenIsAnsweredAfterItsEndResp) {
  // The initiator ends each BEGIN_RESP 20 ns after it came and sends its next operation as soon as
  // the last was answered, so B (past the device's end) comes while A's response is open, and C
  // (TLM_IGNORE_COMMAND) while B's is. TLM_COMPLETED would imply a second response at once (the
  // response exclusion rule): the bridge takes each as a request (END_REQ when it takes effect,
  // at once here) and answers it when the open response has ended. By hand: A, a read, enters
  // at 0 and is answered at 54 ns (as in the first test), ended at 74; B is sent at 54, answered
  // (address error) at 74 and ended at 94; C is sent at 74 and answered (OK) at 94.
  Bench b(test::kernel_named(GetParam()));
  std::vector<Op> ops{read_op(0x1000), read_op((1ULL << 30) - 64), read_op(0x1000)};
  ops[2].command = tlm::TLM_IGNORE_COMMAND;
  ForeignAt cpu("cpu", ops, 1);
  cpu.hold_response_ps = 20000;
  cpu.socket.bind(b.bridge->in);
  test::CapturedWarnings warnings;
  const nlohmann::json report = b.run();
  ASSERT_EQ(warnings.messages().size(), 1u) << "B's address error, not C";
  EXPECT_THAT(warnings.messages()[0],
              HasSubstr("bridge: a read of 128 B at 0x3fffffc0 was answered "
                        "TLM_ADDRESS_ERROR_RESPONSE"));
  for (const Op& op : ops) ASSERT_TRUE(op.answered);
  EXPECT_EQ(ops[0].status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(ops[0].response_ps, 54000u);
  EXPECT_EQ(ops[1].begin_req_ps, 54000u);
  EXPECT_EQ(ops[2].begin_req_ps, 74000u);
  const tlm::tlm_response_status expected[] = {tlm::TLM_ADDRESS_ERROR_RESPONSE,
                                               tlm::TLM_OK_RESPONSE};
  for (std::size_t i = 1; i < 3; ++i) {
    EXPECT_EQ(ops[i].begin_req_return, tlm::TLM_ACCEPTED) << "operation " << i;
    EXPECT_EQ(ops[i].end_req_ps, ops[i].begin_req_ps) << "operation " << i;
    EXPECT_EQ(ops[i].response_ps, ops[i].begin_req_ps + 20000) << "operation " << i;
    EXPECT_EQ(ops[i].status, expected[i - 1]) << "operation " << i;
  }
  EXPECT_EQ(cpu.given_back, 3u);
  EXPECT_EQ(b.bridge->issued(), 1u) << "only A entered famsim";
  const nlohmann::json& once = report.at("bridge")["answered_at_once"];
  EXPECT_EQ(once["TLM_ADDRESS_ERROR_RESPONSE"], 1);
  EXPECT_EQ(once["TLM_IGNORE_COMMAND"], 1);
}

TEST_P(Bridge, ABlockingCallsAnswerDoesNotWaitForAnotherThreadsEndResp) {
  // One thread reads A and, when A is answered, B, ending each BEGIN_RESP 200 ns after it came;
  // another thread of the same initiator reads C by b_transport annotated 110 ns. By hand, each
  // read on an idle device from an even ns taking the first test's 54 ns: A 0 -> 54 ns, ended at
  // 254; B enters at 54 and famsim answers it at 108, but its BEGIN_RESP waits for A's END_RESP,
  // to 254; C takes effect at 110 (B left the device at 108) and is answered at 164, when the
  // call returns: the exclusion rules are nb_transport's hand-shake, not b_transport's.
  Bench b(test::kernel_named(GetParam()));
  std::vector<Op> ops{read_op(0x1000), read_op(0x2000)};
  std::vector<Op> blocking{read_op(0x3000)};
  ForeignAt cpu("cpu", ops, 1);
  cpu.hold_response_ps = 200000;
  cpu.blocking_ops = &blocking;
  cpu.blocking_delay_ps = 110000;
  cpu.socket.bind(b.bridge->in);
  b.run();
  for (const Op& op : ops) ASSERT_TRUE(op.answered);
  ASSERT_TRUE(blocking[0].answered);
  EXPECT_EQ(ops[0].response_ps, 54000u);
  EXPECT_EQ(ops[1].begin_req_ps, 54000u);
  EXPECT_EQ(round_trip(54000, false), 108000u);
  EXPECT_EQ(ops[1].response_ps, 254000u);
  EXPECT_EQ(blocking[0].response_ps, round_trip(110000, false));
  EXPECT_EQ(blocking[0].response_ps, 164000u);
  for (const Op& op : {ops[0], ops[1], blocking[0]}) EXPECT_EQ(op.status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(cpu.given_back, 2u);
}

TEST_P(Bridge, AFullBridgeHoldsEndReqUntilAnAnswerFreesASlot) {
  // Two slots, four reads sent back to back: the third and fourth wait for END_REQ until the
  // first and second answers have gone back. The reads go to different 256 B granules of the
  // two channels, so the device serves the first two side by side.
  Bench b(test::kernel_named(GetParam()), 2);
  std::vector<Op> ops{read_op(0), read_op(256), read_op(512), read_op(768)};
  ForeignAt cpu("cpu", ops, 4);
  cpu.socket.bind(b.bridge->in);
  const nlohmann::json report = b.run();
  for (const Op& op : ops) ASSERT_TRUE(op.answered);
  EXPECT_EQ(ops[0].end_req_ps, 0u);
  EXPECT_EQ(ops[1].end_req_ps, 0u);
  EXPECT_EQ(ops[2].end_req_ps, ops[0].response_ps) << "the third waited for the first answer";
  EXPECT_EQ(ops[3].end_req_ps, ops[1].response_ps) << "the fourth waited for the second answer";
  EXPECT_GT(ops[2].end_req_ps, 0u);
  const nlohmann::json& r = report.at("bridge");
  // The waits for END_REQ are the bridge's backpressure.
  EXPECT_DOUBLE_EQ(r["backpressure_ns"].get<double>(),
                   static_cast<double>(ops[2].end_req_ps - ops[2].begin_req_ps + ops[3].end_req_ps -
                                       ops[3].begin_req_ps) *
                       1e-3);
  EXPECT_EQ(r["requests"], 4);
  EXPECT_EQ(cpu.given_back, 4u);
}

TEST_P(Bridge, TheDevicesBackpressureReachesTheInitiatorAsAWithheldEndReq) {
  // 16 slots but 8 tags in the device's port: ten reads sent back to back; the ninth is held by
  // the port logic until an answer leaves it and frees a tag, and only then has its END_REQ; the
  // tenth waits for the next answer.
  Bench b(test::kernel_named(GetParam()), 16);
  std::vector<Op> ops;
  for (unsigned i = 0; i < 10; ++i) ops.push_back(read_op(i * 256));
  ForeignAt cpu("cpu", ops, 16);
  cpu.socket.bind(b.bridge->in);
  const nlohmann::json report = b.run();
  for (const Op& op : ops) ASSERT_TRUE(op.answered);
  for (unsigned i = 0; i < 8; ++i) EXPECT_EQ(ops[i].end_req_ps, 0u) << "read " << i;
  std::vector<std::uint64_t> answers;
  for (unsigned i = 0; i < 8; ++i) answers.push_back(ops[i].response_ps);
  std::sort(answers.begin(), answers.end());
  EXPECT_GT(answers[0], 0u);
  EXPECT_EQ(ops[8].end_req_ps, answers[0]) << "the ninth waited for the first answer";
  EXPECT_EQ(ops[9].end_req_ps, std::max(ops[9].begin_req_ps, answers[1]));
  EXPECT_GT(report.at("bridge")["backpressure_ns"].get<double>(), 0.0);
  EXPECT_EQ(report.at("fam0.port_logic")["bytes"], 10 * 128.0);
}

TEST_P(Bridge, DebugTransportReachesTheChannelsStoresThroughTheInterleaveWithoutTime) {
  Bench b(test::kernel_named(GetParam()));  // attach() gave the bridge the device's debug access
  const std::vector<unsigned char> image = pattern(512, 3);
  const std::vector<unsigned char> timed_data = pattern(128, 4);
  std::vector<unsigned char> first(128), last(128), after(128), outside(128), masked(128);
  std::vector<unsigned char> streamed(128), stale = pattern(128, 5), stale_back(128);
  unsigned loaded = 0, read_after = 0, outside_bytes = 1, masked_bytes = 1, streamed_bytes = 1;
  unsigned stale_bytes = 0, stale_back_bytes = 0;
  tlm::tlm_gp_option masked_option = tlm::TLM_FULL_PAYLOAD, stale_option = tlm::TLM_FULL_PAYLOAD;
  std::uint64_t loaded_at = 1;
  ForeignScript cpu("cpu", [&](ForeignScript& f) {
    // Load an image before any traffic: it takes no time.
    std::vector<unsigned char> img = image;
    loaded = f.debug(tlm::TLM_WRITE_COMMAND, 0x100, img);
    loaded_at = sc_core::sc_time_stamp().value();
    // Timed reads see it, at both ends of the image.
    f.timed(tlm::TLM_READ_COMMAND, 0x100, first);
    f.timed(tlm::TLM_READ_COMMAND, 0x280, last);
    // A timed write is seen by a debug read after it.
    std::vector<unsigned char> w = timed_data;
    f.timed(tlm::TLM_WRITE_COMMAND, 0x1000, w);
    read_after = f.debug(tlm::TLM_READ_COMMAND, 0x1000, after);
    outside_bytes = f.debug(tlm::TLM_READ_COMMAND, (1ULL << 30) - 64, outside);
    // Byte enables and streaming count only with TLM_FULL_PAYLOAD: a payload with the default
    // TLM_MIN_PAYLOAD whose byte-enable pointer is stale (set, as a reused payload may have it)
    // is a whole write.
    masked_bytes = f.debug(tlm::TLM_WRITE_COMMAND, 0x4000, masked, tlm::TLM_FULL_PAYLOAD, true, 0,
                           &masked_option);
    streamed_bytes =
        f.debug(tlm::TLM_READ_COMMAND, 0x4000, streamed, tlm::TLM_FULL_PAYLOAD, false, 4);
    std::vector<unsigned char> w2 = stale;
    stale_bytes =
        f.debug(tlm::TLM_WRITE_COMMAND, 0x4000, w2, tlm::TLM_MIN_PAYLOAD, true, 0, &stale_option);
    stale_back_bytes = f.debug(tlm::TLM_READ_COMMAND, 0x4000, stale_back);
  });
  cpu.socket.bind(b.bridge->in);
  b.run();
  EXPECT_EQ(loaded, 512u);
  EXPECT_EQ(loaded_at, 0u) << "a debug access takes no simulated time";
  EXPECT_EQ(first, std::vector<unsigned char>(image.begin(), image.begin() + 128));
  EXPECT_EQ(last, std::vector<unsigned char>(image.begin() + 0x180, image.end()));
  EXPECT_EQ(read_after, 128u);
  EXPECT_EQ(after, timed_data);
  EXPECT_EQ(outside_bytes, 0u) << "an access past the device's end does nothing";
  EXPECT_EQ(masked_bytes, 0u) << "byte enables are not carried";
  EXPECT_EQ(masked_option, tlm::TLM_FULL_PAYLOAD_ACCEPTED) << "it looked at them";
  EXPECT_EQ(streamed_bytes, 0u) << "nor a streaming width";
  EXPECT_EQ(stale_bytes, 128u) << "a TLM_MIN_PAYLOAD access's byte enables are not the initiator's";
  EXPECT_EQ(stale_option, tlm::TLM_MIN_PAYLOAD);
  EXPECT_EQ(stale_back_bytes, 128u);
  EXPECT_EQ(stale_back, stale);
  // Where the image went, by the modulo interleave of 256 B granules over 2 channels: device
  // offset 0x100 is granule 1, channel 1 at channel address 0; 0x200 is granule 2, channel 0 at
  // channel address 256.
  std::vector<unsigned char> ch1(256), ch0(256);
  b.dev.memory().debug_store(1)->read(0, ch1.data(), 256);
  b.dev.memory().debug_store(0)->read(256, ch0.data(), 256);
  EXPECT_EQ(ch1, std::vector<unsigned char>(image.begin(), image.begin() + 256));
  EXPECT_EQ(ch0, std::vector<unsigned char>(image.begin() + 256, image.end()));
  // Only the three timed accesses entered famsim.
  EXPECT_EQ(b.bridge->issued(), 3u);
}

TEST_P(Bridge, DirectMemoryAccessIsDeniedForReadsAndWritesAtEveryAddress) {
  // The initiator's descriptor still holds what another target granted before (0x1000 to
  // 0x1fff, no access written yet): the denial says it is for reads and writes, at every address.
  Bench b(test::kernel_named(GetParam()));
  tlm::tlm_dmi dmi;
  dmi.set_start_address(0x1000);
  dmi.set_end_address(0x1fff);
  bool granted = true;
  ForeignScript cpu("cpu", [&](ForeignScript& f) { granted = f.dmi(0x1000, dmi); });
  cpu.socket.bind(b.bridge->in);
  b.run();
  EXPECT_FALSE(granted);
  EXPECT_TRUE(dmi.is_read_write_allowed());
  EXPECT_EQ(dmi.get_start_address(), 0u);
  EXPECT_EQ(dmi.get_end_address(), ~sc_dt::uint64{0});
  EXPECT_EQ(dmi.get_dmi_ptr(), nullptr);
}

TEST_P(Bridge, AttachGivesTheDevicesWindowSeenFromZero) {
  // The device at kBase = 2^40 = 0x10000000000, 1 GiB: the window [2^40, 2^40 + 2^30), the
  // initiator's 0 at famsim's 2^40. Writes to the device's first and last 128 B, then a read of
  // the 128 B from its end, 2^30 = 0x40000000, which is past it. By hand, one at a time, each
  // sent when the last was answered: the first write 0 -> 54 ns (the first test's write), the
  // second 54 -> 60 -> 61 + 8 = 69 -> 97 -> 98 + 5 = 103 -> 104 + 4 = 108 ns, the read answered
  // at once at 108 ns.
  Bench b(test::kernel_named(GetParam()));
  const TlmBridgeParams& p = b.bridge->params();
  EXPECT_EQ(p.window_base, 0x10000000000u);
  EXPECT_EQ(p.window_bytes, 0x40000000u);
  EXPECT_EQ(p.address_offset, 0x10000000000u);
  EXPECT_EQ(p.max_outstanding, 8u) << "the caller's own parameters are kept";
  EXPECT_EQ(p.source, 7u);
  const std::vector<unsigned char> first = pattern(128, 1), last = pattern(128, 2);
  std::vector<Op> ops{write_op(0, first), write_op(0x40000000 - 128, last), read_op(0x40000000)};
  ForeignAt cpu("cpu", ops, 1);
  cpu.socket.bind(b.bridge->in);
  test::CapturedWarnings warnings;
  b.run();
  for (const Op& op : ops) ASSERT_TRUE(op.answered);
  EXPECT_EQ(ops[0].status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(ops[1].status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(ops[2].status, tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(ops[0].response_ps, 54000u);
  EXPECT_EQ(ops[1].response_ps, round_trip(54000, true));
  EXPECT_EQ(ops[1].response_ps, 108000u);
  EXPECT_EQ(ops[2].begin_req_return, tlm::TLM_COMPLETED);
  EXPECT_EQ(ops[2].response_ps, 108000u);
  // The writes landed at the device's first and last bytes in famsim's address space, read here
  // through the device itself: 2^40 and 2^40 + 2^30 - 128.
  std::vector<unsigned char> at_first(128), at_last(128);
  EXPECT_EQ(b.dev.debug_access(false, 0x10000000000, at_first.data(), 128), 128u);
  EXPECT_EQ(b.dev.debug_access(false, 0x1003fffff80, at_last.data(), 128), 128u);
  EXPECT_EQ(at_first, first);
  EXPECT_EQ(at_last, last);
  EXPECT_EQ(b.bridge->issued(), 2u) << "the read past the end never entered famsim";
  ASSERT_EQ(warnings.messages().size(), 1u);
  EXPECT_THAT(warnings.messages()[0],
              HasSubstr("bridge: a read of 128 B at 0x40000000 was answered "
                        "TLM_ADDRESS_ERROR_RESPONSE without entering famsim: with address_offset "
                        "0x10000000000 it is famsim address 0x10040000000, not wholly inside the "
                        "window (window_base 0x10000000000, window_bytes 1073741824)"));
}

TEST_P(Bridge, AttachAtFamsimAddressesWithDebugAccess) {
  // The initiator sees the device where famsim has it, [2^40, 2^40 + 2^30): no offset. Through
  // the bridge's debug transport it loads the device's last 128 B (2^40 + 2^30 - 128 =
  // 0x1003fffff80) and reads them back timed, at 0 -> 54 ns (the first test's read); a debug read
  // of the 128 B just past the end does nothing, a timed read of the 128 B just before the device
  // (0xffffffff80) is an address error.
  Bench b(test::kernel_named(GetParam()), 8, 1, 0, BridgeAddresses::kFamsimAddresses);
  EXPECT_EQ(b.bridge->params().window_base, 0x10000000000u);
  EXPECT_EQ(b.bridge->params().window_bytes, 0x40000000u);
  EXPECT_EQ(b.bridge->params().address_offset, 0u);
  const std::vector<unsigned char> image = pattern(128, 8);
  std::vector<unsigned char> timed(128), past(128), before(128);
  unsigned loaded = 0, past_bytes = 1;
  int timed_status = 0, before_status = 0;
  std::uint64_t timed_at = 0;
  ForeignScript cpu("cpu", [&](ForeignScript& f) {
    std::vector<unsigned char> img = image;
    loaded = f.debug(tlm::TLM_WRITE_COMMAND, 0x1003fffff80, img);
    timed_status = f.timed(tlm::TLM_READ_COMMAND, 0x1003fffff80, timed);
    timed_at = sc_core::sc_time_stamp().value();
    past_bytes = f.debug(tlm::TLM_READ_COMMAND, 0x10040000000, past);
    before_status = f.timed(tlm::TLM_READ_COMMAND, 0xffffffff80, before);
  });
  cpu.socket.bind(b.bridge->in);
  test::CapturedWarnings warnings;
  b.run();
  EXPECT_EQ(loaded, 128u);
  EXPECT_EQ(timed_status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(timed, image);
  EXPECT_EQ(timed_at, 54000u);
  EXPECT_EQ(past_bytes, 0u);
  EXPECT_EQ(before_status, tlm::TLM_ADDRESS_ERROR_RESPONSE);
  ASSERT_EQ(warnings.messages().size(), 1u);
  EXPECT_THAT(warnings.messages()[0],
              HasSubstr("bridge: a read of 128 B at 0xffffffff80 was answered "
                        "TLM_ADDRESS_ERROR_RESPONSE without entering famsim: with address_offset "
                        "0x0 it is famsim address 0xffffffff80"));
}

TEST(BridgeAttach, RefusesAWindowThatIsNotTheDevicesAndAPortItLacks) {
  SimContext ctx(kPoolBytes, 1, Kernel::kFamsim);
  const DeviceConfig cfg = bridge_device_config();
  ExpansionDevice dev("fam0", ctx, cfg, kBase);
  // Filled in by hand as if the device were at 0: the window is [0, 2^30), the device's
  // [2^40, 2^40 + 2^30).
  TlmBridgeParams p;
  p.window_bytes = cfg.capacity_bytes;
  TlmBridge wrong("wrong", ctx, p);
  try {
    dev.attach(wrong, 0);
    ADD_FAILURE() << "attached a bridge whose window is not the device's";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "fam0: cannot attach wrong: its window is [0x0, 0x40000000) (window_base, "
                 "window_bytes 1073741824), the device serves [0x10000000000, 0x10040000000) "
                 "(pa_base, capacity 1073741824 B); make its parameters with fam0's "
                 "bridge_params()");
  }
  TlmBridge right("right", ctx, dev.bridge_params(p, BridgeAddresses::kDeviceAtZero));
  try {
    dev.attach(right, 1);
    ADD_FAILURE() << "attached to port 1 of a device with one port";
  } catch (const std::out_of_range& e) {
    EXPECT_THAT(e.what(), HasSubstr("fabric port 1 does not exist; the device has 1"));
  }
}

// An initiator that holds each response (no END_RESP for 1 ms) and a bridge of one slot, three
// reads sent back to back, the run stopped at 500 ns. By hand: A (0x0) takes the slot at 0 and is
// answered at 54 ns (the first test's read); its BEGIN_RESP stays open. B (0x100), sent at 0,
// waits for the slot: it takes A's at 54 ns, has its END_REQ then and is answered by famsim at
// round_trip(54 ns) = 108 ns, behind A's open response. C (0x200), sent at 54 ns after B's
// END_REQ, finds no slot. At 500 ns: A waits for END_RESP, B to be sent back, C to be taken.
TEST_P(Bridge, ARunStoppedWithRequestsInTheBridgeWarnsOnceNamingThem) {
  test::CapturedWarnings warnings;
  auto b = std::make_unique<Bench>(test::kernel_named(GetParam()), 1);
  std::vector<Op> ops{read_op(0x0), read_op(0x100), read_op(0x200)};
  ForeignAt cpu("cpu", ops, 4);
  cpu.hold_response_ps = 1000000000;
  cpu.socket.bind(b->bridge->in);
  sc_core::sc_start(500, sc_core::SC_NS);
  EXPECT_TRUE(warnings.messages().empty()) << "the run may go on after sc_start() returns";
  EXPECT_EQ(ops[0].response_ps, 54000u);
  EXPECT_EQ(ops[1].end_req_ps, 54000u);
  EXPECT_FALSE(ops[1].answered);
  EXPECT_EQ(round_trip(54000, false), 108000u);
  EXPECT_EQ(ops[2].begin_req_ps, 54000u);
  EXPECT_FALSE(ops[2].answered);
  EXPECT_EQ(b->bridge->occupancy(), 3u);
  sc_core::sc_stop();  // end_of_simulation()
  ASSERT_EQ(warnings.messages().size(), 1u);
  EXPECT_EQ(warnings.messages()[0],
            "bridge: the run ended at 500 ns with 3 requests still in the bridge: 1 waiting for "
            "the initiator's END_RESP; 1 answered, waiting to be sent back; 1 not taken yet "
            "(BEGIN_REQ without END_REQ). The first, a read of 128 B at 0x0, is waiting for the "
            "initiator's END_RESP. Typical causes: sc_start() with a time limit that ended the run "
            "before they were answered, or an initiator that does not send END_RESP (the bridge "
            "sends one BEGIN_RESP at a time, so every later answer waits for it).");
  b.reset();
  EXPECT_EQ(warnings.messages().size(), 1u) << "once: not again when the bridge is destroyed";
}

TEST_P(Bridge, ARunEndedByATimeLimitWarnsWhenTheBridgeIsDestroyed) {
  // A write at 0x1000, the run ended by sc_start(20 ns) with no sc_stop() (so no
  // end_of_simulation()): by hand (the first test's write) it is in the device's memory from 15
  // to 43 ns. A 1 ns clock keeps the famsim kernel from running ahead of SystemC time by more
  // than half a cycle (it never runs past another process's next activity).
  test::CapturedWarnings warnings;
  auto b = std::make_unique<Bench>(test::kernel_named(GetParam()));
  sc_core::sc_clock tick("tick", 1, sc_core::SC_NS);
  std::vector<Op> ops{write_op(0x1000, pattern(128, 2))};
  ForeignAt cpu("cpu", ops, 1);
  cpu.socket.bind(b->bridge->in);
  sc_core::sc_start(20, sc_core::SC_NS);
  EXPECT_FALSE(ops[0].answered);
  EXPECT_TRUE(warnings.messages().empty());
  b.reset();
  ASSERT_EQ(warnings.messages().size(), 1u);
  EXPECT_THAT(warnings.messages()[0],
              HasSubstr("bridge: the run ended at 20 ns with 1 request still in the bridge: 1 in "
                        "famsim, not answered. The first, a write of 128 B at 0x1000, is in "
                        "famsim, not answered. Typical causes: sc_start() with a time limit"));
}

TEST_P(Bridge, ABlockingCallStillInItsDelayWhenTheRunEndsIsReported) {
  // A b_transport read annotated 100 ns, the run ended by sc_start(50 ns): the call is in the
  // bridge, waiting out its delay, holding no slot (occupancy 0). The clock as above.
  test::CapturedWarnings warnings;
  auto b = std::make_unique<Bench>(test::kernel_named(GetParam()));
  sc_core::sc_clock tick("tick", 1, sc_core::SC_NS);
  ForeignLtOneRead cpu("cpu", 0x1000, 100000);
  cpu.socket.bind(b->bridge->in);
  sc_core::sc_start(50, sc_core::SC_NS);
  EXPECT_FALSE(cpu.returned);
  EXPECT_EQ(b->bridge->occupancy(), 0u);
  b.reset();
  ASSERT_EQ(warnings.messages().size(), 1u);
  EXPECT_THAT(warnings.messages()[0],
              HasSubstr("bridge: the run ended at 50 ns with 1 request still in the bridge: 1 "
                        "b_transport call holding no slot (in its annotated delay, waiting for a "
                        "slot, or answered and not returned yet). Typical causes:"));
}

TEST_P(Bridge, UnderTheFamsimKernelTheWarningSaysHowFarFamsimRanAhead) {
  // As above without the clock: no other SystemC process has anything to do before 1 ms, so the
  // famsim kernel runs ahead of SystemC's time (up to its 1 us quantum) and the bridge sends the
  // write's BEGIN_RESP at famsim's 54 ns (the first test's write), annotated 54 ns past
  // SystemC's 0; the initiator would take it at 54 ns, after the run's end at 20 ns. The systemc
  // kernel has no run-ahead: the write is still in famsim.
  const bool famsim_kernel = test::kernel_named(GetParam()) == Kernel::kFamsim;
  test::CapturedWarnings warnings;
  auto b = std::make_unique<Bench>(test::kernel_named(GetParam()));
  std::vector<Op> ops{write_op(0x1000, pattern(128, 2))};
  ForeignAt cpu("cpu", ops, 1);
  cpu.socket.bind(b->bridge->in);
  sc_core::sc_start(20, sc_core::SC_NS);
  EXPECT_FALSE(ops[0].answered);
  b.reset();
  ASSERT_EQ(warnings.messages().size(), 1u);
  EXPECT_THAT(warnings.messages()[0],
              HasSubstr(famsim_kernel
                            ? "bridge: the run ended at 20 ns (famsim's blocks had run ahead to 54 "
                              "ns: the famsim kernel's decoupling) with 1 request still in the "
                              "bridge: 1 waiting for the initiator's END_RESP. The first, a write "
                              "of 128 B at 0x1000, is waiting for the initiator's END_RESP."
                            : "bridge: the run ended at 20 ns with 1 request still in the bridge: "
                              "1 in famsim, not answered. The first, a write of 128 B at 0x1000, "
                              "is in famsim, not answered."));
}

TEST_P(Bridge, ARunThatDrainsEndsWithoutAWarning) {
  // The first test's write and read, answered at 54 and 108 ns, then sc_stop() and the bridge's
  // destruction: nothing is left in it.
  test::CapturedWarnings warnings;
  auto b = std::make_unique<Bench>(test::kernel_named(GetParam()));
  std::vector<Op> ops{write_op(0x1000, pattern(128, 5)), read_op(0x1000)};
  ForeignAt cpu("cpu", ops, 1);
  cpu.socket.bind(b->bridge->in);
  b->run();
  EXPECT_EQ(ops[1].response_ps, 108000u);
  sc_core::sc_stop();
  b.reset();
  EXPECT_TRUE(warnings.messages().empty());
}

INSTANTIATE_TEST_SUITE_P(Kernels, Bridge, ::testing::Values("famsim", "systemc"));

}  // namespace
}  // namespace famsim
