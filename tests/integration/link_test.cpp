// The Link in isolation (tests/support/link_harness.h): a source and a sink on each side, many
// independent links per simulation. Expected values are worked out here from the configuration
// and the timing rules in models/fabric/link.h, never from the model's output.
#include "models/fabric/link.h"
#include "tests/support/link_expectations.h"
#include "tests/support/link_harness.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace famsim {
namespace {

using test::LinkSink;
using test::LinkSource;

// Round numbers: 4 lanes x 32 Gb/s x 1.0 = 16 GB/s, so a 16 B flit takes exactly 1 ns; 1000 MHz
// link clock; 10 ns latency and credit return; replay latency 19 ns, so an error costs
// 1 + 19 = 20 flit times.
LinkParams round_params() {
  LinkParams p;
  p.lanes = 4;
  p.lane_gbps = 32;
  p.encoding_efficiency = 1.0;
  p.latency_ns = 10;
  p.clock_mhz = 1000;
  p.flit = FlitFormat{};  // 16 B flits of one 16 B slot, 16 B headers, 256 B max payload
  p.credit_unit = CreditUnit::kFlit;
  p.request_vc_credits = 256;
  p.response_vc_credits = 256;
  p.credit_return_ns = 10;
  p.tx_queue_entries = 16;
  p.flit_error_rate = 0;
  p.replay_latency_ns = 19;
  p.replay_buffer_flits = 1024;
  return p;
}

// Source at side A, link, sink at side B.
struct OneWay {
  std::unique_ptr<LinkSource> src;
  std::unique_ptr<Link> link;
  std::unique_ptr<LinkSink> sink;
  OneWay(SimContext& ctx, const std::string& name, const LinkParams& p, bool write, unsigned bytes,
         std::uint64_t count) {
    src = std::make_unique<LinkSource>((name + "_src").c_str(), ctx, write, bytes, count);
    link = std::make_unique<Link>(name.c_str(), ctx, p);
    sink = std::make_unique<LinkSink>((name + "_sink").c_str(), ctx, count);
    src->out.bind(link->up);
    link->down.bind(sink->in);
    src->start(0);
  }
};

// Requests both ways: A's source -> up ... down -> B's sink; B's source -> reverse_up ...
// reverse_down -> A's sink.
struct TwoWay {
  std::unique_ptr<LinkSource> src_a, src_b;
  std::unique_ptr<Link> link;
  std::unique_ptr<LinkSink> sink_a, sink_b;
  TwoWay(SimContext& ctx, const std::string& name, const LinkParams& p, bool write_a, bool write_b,
         unsigned bytes, std::uint64_t count_a, std::uint64_t count_b,
         std::uint64_t b_accepts_from_ps = 0) {
    const std::uint64_t base_b = 1u << 30;
    src_a = std::make_unique<LinkSource>((name + "_src_a").c_str(), ctx, write_a, bytes, count_a);
    src_b = std::make_unique<LinkSource>((name + "_src_b").c_str(), ctx, write_b, bytes, count_b,
                                         base_b);
    link = std::make_unique<Link>(name.c_str(), ctx, p, true);
    sink_b = std::make_unique<LinkSink>((name + "_sink_b").c_str(), ctx, count_a, 0, 0, 64,
                                        b_accepts_from_ps);
    sink_a = std::make_unique<LinkSink>((name + "_sink_a").c_str(), ctx, count_b, base_b);
    src_a->out.bind(link->up);
    link->down.bind(sink_b->in);
    src_b->out.bind(link->reverse_up());
    link->reverse_down().bind(sink_a->in);
    src_a->start(0);
    src_b->start(0);
  }
};

nlohmann::json report_of(const Link& l) {
  ComponentReport r;
  l.report(r, ReportWindow{0, now_ps()});
  nlohmann::json j = r.extra;
  j["utilization"] = r.utilization;
  return j;
}

TEST(LinkSim, SaturatedWireEfficiencyOfEveryPresetMatchesTheHandValue) {
  // Both sides read (or write) as fast as the link allows, so each wire is saturated with one
  // request and one response per transfer: its payload / wire bytes is the framing's efficiency
  // (link_expectations.h), within 1% for the partly filled flits while the wires fill and drain
  // (a round trip at each end). Big flits (UALink 640 B, CXL 256 B) run longer so that those
  // few flits weigh less.
  SimContext ctx(4096, 1);
  struct Case {
    const test::PresetFormat* preset;
    bool write;
    unsigned bytes;
    std::unique_ptr<TwoWay> bench;
  };
  std::vector<Case> cases;
  for (const test::PresetFormat& p : test::kPresetFormats) {
    const LinkParams params = test::preset_link_params(p.name);
    const std::uint64_t count = params.flit.flit_bytes >= 256 ? 6000 : 1500;
    for (bool write : {false, true}) {
      for (unsigned bytes : {64u, 128u, 256u}) {
        const std::string name =
            std::string(p.name) + (write ? "_write" : "_read") + std::to_string(bytes);
        cases.push_back(
            {&p, write, bytes,
             std::make_unique<TwoWay>(ctx, name, params, write, write, bytes, count, count)});
      }
    }
  }
  sc_core::sc_start();
  for (const Case& c : cases) {
    const TwoWay& b = *c.bench;
    ASSERT_TRUE(b.src_a->all_completed_once() && b.src_b->all_completed_once());
    const double hand = test::hand_efficiency(*c.preset, c.bytes);
    const double got = report_of(*b.link)["wire_efficiency"].get<double>();
    EXPECT_NEAR(got, hand, 0.01 * hand)
        << c.preset->name << (c.write ? " write " : " read ") << c.bytes;
  }
}

TEST(LinkSim, CreditLoopThrottlesToCreditsOverRoundTrip) {
  // 64 B writes: 1 header flit + 4 data flits = 5 flits of 16 B on the request VC. A transfer's
  // credits come back R = 5 ns (serialisation) + 10 ns (latency; the sink accepts on arrival)
  // + 10 ns (credit return) = 25 ns after it started, and are used on the next clock edge strictly
  // after: R = 26 ns. With C credits (multiples of 5: whole transfers) the request wire carries
  // min(16 GB/s, C x 16 B / 26 ns); 64 of every 80 bytes are payload. The bandwidth-delay
  // product is 16 x 26 = 416 B = 26 flits: C = 5..25 are credit-bound, 40 and 80 are not.
  SimContext ctx(4096, 1);
  const std::vector<unsigned> credits = {5, 10, 15, 20, 25, 40, 80};
  std::vector<std::unique_ptr<OneWay>> benches;
  for (unsigned c : credits) {
    LinkParams p = round_params();
    p.request_vc_credits = c;
    p.flit.max_payload_bytes = 64;  // so that 5 credits hold the largest message
    benches.push_back(
        std::make_unique<OneWay>(ctx, "credits" + std::to_string(c), p, true, 64, 3000));
  }
  sc_core::sc_start();
  for (std::size_t i = 0; i < credits.size(); ++i) {
    const double r_ns = 5 + 10 + 10 + 1;
    const double wire_gbps = std::min(16.0, credits[i] * 16.0 / r_ns);
    const double expected = wire_gbps * 64.0 / 80.0;
    const double got = test::steady_gbps(*benches[i]->sink, 64, 100);
    EXPECT_NEAR(got, expected, 0.02 * expected) << credits[i] << " credits";
    EXPECT_TRUE(benches[i]->sink->all_seen_once());
    const nlohmann::json j = report_of(*benches[i]->link);
    if (credits[i] < 26) {
      EXPECT_GT(j["request_direction"]["request_vc"]["credit_stall_ns"].get<double>(), 0.0);
    }
    EXPECT_LE(j["request_direction"]["request_vc"]["rx_buffer_max"].get<unsigned>(), credits[i]);
  }
}

TEST(LinkSim, CreditPoolCountsWholeLargestTransfers) {
  // 64 B writes take 5 credits (1 header + 4 data flits). 9 credits hold one such transfer and
  // 4 that no write can use: as a slot pool (the bottleneck analysis) the VC has 5 slots, not 9,
  // and a write holds them R = 5 + 10 + 10 = 25 ns of every 26 ns credit round trip (the credits
  // are used on the next edge strictly after they are back): 25/26 full, where counting raw
  // credits would read 5/9 x 25/26 = 53 %. 14 credits hold two writes: 10 slots, as full.
  SimContext ctx(4096, 1);
  std::vector<std::unique_ptr<OneWay>> benches;
  for (unsigned c : {9u, 14u}) {
    LinkParams p = round_params();
    p.request_vc_credits = c;
    p.flit.max_payload_bytes = 64;
    p.largest_transfer_bytes = 64;
    benches.push_back(std::make_unique<OneWay>(ctx, "pool" + std::to_string(c), p, true, 64, 3000));
  }
  sc_core::sc_start();
  const double expected_slots[] = {5, 10};
  for (std::size_t i = 0; i < benches.size(); ++i) {
    // Each over its own run: the 10-slot link finishes first.
    ComponentReport r;
    benches[i]->link->report(r, ReportWindow{0, benches[i]->sink->arrivals.back()});
    const ResourceUse* pool = nullptr;
    for (const ResourceUse& u : r.resources) {
      if (u.name == "request VC credits") pool = &u;
    }
    ASSERT_NE(pool, nullptr);
    EXPECT_EQ(pool->capacity, expected_slots[i]);
    EXPECT_NEAR(pool->utilization, 25.0 / 26.0, 0.01) << expected_slots[i] << " slots";
  }
}

TEST(LinkSim, FlitErrorsCostGoBackNReplayAndLoseNothing) {
  // 256 B writes: 17 flits, 256 / 272 of the wire is payload. An errored flit costs 1 ns + the
  // 19 ns replay latency = N = 20 flit times, and each transmission fails with probability p, so
  // the wire delivers (1 - p) / (1 - p + p N) of its flits (go-back-N). Credits (256 flits over a
  // ~38 ns loop) and the replay buffer (1024 >= 20) do not limit.
  SimContext ctx(4096, 7);
  const std::vector<double> rates = {1e-4, 1e-3, 1e-2, 3e-2};
  std::vector<std::unique_ptr<OneWay>> writes;
  std::vector<std::unique_ptr<OneWay>> reads;
  for (double rate : rates) {
    LinkParams p = round_params();
    p.flit_error_rate = rate;
    writes.push_back(
        std::make_unique<OneWay>(ctx, "werr" + std::to_string(writes.size()), p, true, 256, 3000));
    // Reads carry their data back through the erroring B->A wire.
    reads.push_back(
        std::make_unique<OneWay>(ctx, "rerr" + std::to_string(reads.size()), p, false, 256, 1000));
  }
  sc_core::sc_start();
  const double n = 1 + 19.0 / 1.0;
  for (std::size_t i = 0; i < rates.size(); ++i) {
    const double p = rates[i];
    const double expected = 16.0 * 256.0 / 272.0 * (1 - p) / (1 - p + p * n);
    const OneWay& w = *writes[i];
    EXPECT_NEAR(test::steady_gbps(*w.sink, 256, 100), expected, 0.05 * expected) << "p " << p;
    // Exactly once and intact, both ways.
    EXPECT_TRUE(w.sink->all_seen_once()) << p;
    EXPECT_TRUE(w.src->all_completed_once()) << p;
    EXPECT_EQ(w.sink->data_errors, 0u);
    EXPECT_EQ(w.src->completed, 3000u);
    const OneWay& r = *reads[i];
    EXPECT_TRUE(r.src->all_completed_once()) << p;
    EXPECT_EQ(r.src->data_errors, 0u);
    // Errors drawn: about p / (1 - p) per delivered flit (3000 x 17 on the write wire).
    const nlohmann::json j = report_of(*w.link);
    const double replays = j["request_direction"]["replays"].get<double>();
    const double mean = 3000 * 17 * p / (1 - p);
    EXPECT_NEAR(replays, mean, 5 * std::sqrt(mean) + 1) << p;
  }
  EXPECT_EQ(ctx.pool.in_use(), 0u);
}

TEST(LinkSim, SmallReplayBufferThrottlesLikeAWindow) {
  // A flit holds its replay-buffer entry until its ACK, 19 ns after it ends: with B entries the
  // sender sends B flits per 1 + 19 = 20 ns, min(1, B / 20) of the link rate. B = 30 covers the
  // round trip (a window binds only when (B - 1) x 1 ns < 19 ns).
  SimContext ctx(4096, 1);
  const std::vector<unsigned> buffers = {5, 10, 30};
  std::vector<std::unique_ptr<OneWay>> benches;
  for (unsigned b : buffers) {
    LinkParams p = round_params();
    p.replay_buffer_flits = b;
    benches.push_back(
        std::make_unique<OneWay>(ctx, "replay" + std::to_string(b), p, true, 256, 2000));
  }
  sc_core::sc_start();
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    const double expected = 16.0 * std::min(1.0, buffers[i] / 20.0) * 256.0 / 272.0;
    EXPECT_NEAR(test::steady_gbps(*benches[i]->sink, 256, 100), expected, 0.02 * expected)
        << buffers[i] << " flits";
  }
}

TEST(LinkSim, BidirectionalLinkCarriesRequestsBothWays) {
  // A writes to B while B reads from A over the same two wires: everything arrives exactly once
  // and intact, and both wires carry both VCs.
  SimContext ctx(4096, 1);
  TwoWay b(ctx, "bidir", round_params(), true, false, 128, 800, 600);
  sc_core::sc_start();
  EXPECT_TRUE(b.src_a->all_completed_once());
  EXPECT_TRUE(b.src_b->all_completed_once());
  EXPECT_TRUE(b.sink_a->all_seen_once());
  EXPECT_TRUE(b.sink_b->all_seen_once());
  EXPECT_EQ(b.sink_b->data_errors + b.src_b->data_errors, 0u);
  const nlohmann::json j = report_of(*b.link);
  // A->B: A's 800 writes (request VC) and the responses to B's 600 reads (response VC).
  EXPECT_EQ(j["request_direction"]["request_vc"]["transfers"], 800);
  EXPECT_EQ(j["request_direction"]["response_vc"]["transfers"], 600);
  EXPECT_EQ(j["request_direction"]["payload_bytes"], (800 + 600) * 128);
  // B->A: B's 600 reads (header only) and the completions of A's writes.
  EXPECT_EQ(j["response_direction"]["request_vc"]["transfers"], 600);
  EXPECT_EQ(j["response_direction"]["response_vc"]["transfers"], 800);
  EXPECT_EQ(j["response_direction"]["payload_bytes"], 0);
  EXPECT_EQ(b.link->occupancy(), 0u);
  EXPECT_EQ(ctx.pool.in_use(), 0u);  // no payload reference leaked
}

TEST(LinkSim, ResponsesFlowWhileTheRequestVcOfTheSameWireIsStalled) {
  // B does not take A's requests before 50 us, so A's request VC on the A->B wire runs out of
  // credits (20 flits = 4 writes of 64 B, 1 + 4 flits each). Meanwhile B reads 500 x 64 B from A:
  // those responses share the A->B wire on the response VC and must all return long before
  // 50 us: each is 5 flits = 5 ns on a 16 GB/s wire, so 500 of them need 2.5 us plus latencies.
  SimContext ctx(4096, 1);
  LinkParams p = round_params();
  p.request_vc_credits = 20;
  p.flit.max_payload_bytes = 64;
  const std::uint64_t stall_until = 50'000'000;  // 50 us
  TwoWay b(ctx, "stalled", p, true, false, 64, 200, 500, stall_until);
  sc_core::sc_start();
  EXPECT_TRUE(b.src_b->all_completed_once());
  EXPECT_LT(b.src_b->last_completion_ps, 7'000'000u);
  EXPECT_EQ(b.src_b->data_errors, 0u);
  // A's writes waited for the receiver and then all completed.
  EXPECT_TRUE(b.src_a->all_completed_once());
  EXPECT_GE(b.src_a->first_completion_ps, stall_until);
  const nlohmann::json j = report_of(*b.link);
  EXPECT_GT(j["request_direction"]["request_vc"]["credit_stall_ns"].get<double>(), 40'000.0);
  EXPECT_EQ(j["request_direction"]["request_vc"]["rx_buffer_max"], 20);
  EXPECT_EQ(ctx.pool.in_use(), 0u);
}

TEST(LinkSim, CutThroughReceiverDeliversAtTheFirstFlit) {
  // One 256 B write (17 flits) on an idle link, decided on the edge after issue (1 ns): stored,
  // it reaches B at 1 + 17 + 10 = 28 ns; cut-through at 1 + 1 + 10 = 12 ns.
  SimContext ctx(4096, 1);
  OneWay store(ctx, "store", round_params(), true, 256, 1);
  LinkParams head_params = round_params();
  head_params.deliver_at_head = true;
  OneWay head(ctx, "head", head_params, true, 256, 1);
  sc_core::sc_start();
  ASSERT_EQ(store.sink->arrivals.size(), 1u);
  ASSERT_EQ(head.sink->arrivals.size(), 1u);
  EXPECT_EQ(store.sink->arrivals[0], 28'000u);
  EXPECT_EQ(head.sink->arrivals[0], 12'000u);
}

TEST(LinkSim, ALoneMessageGoesOutInAPaddedFlit) {
  // CXL 68 B flits at low load: a lone MemRd (1 slot) fills one flit, its data response (5 slots)
  // two; nothing else waits, so the rest is padding: 64 B of payload in 3 x 68 B.
  SimContext ctx(4096, 1);
  OneWay b(ctx, "lone", test::preset_link_params("cxl_gen5_x16"), false, 64, 1);
  sc_core::sc_start();
  const nlohmann::json j = report_of(*b.link);
  EXPECT_EQ(j["request_direction"]["flits"], 1);
  EXPECT_EQ(j["response_direction"]["flits"], 2);
  EXPECT_NEAR(j["wire_efficiency"].get<double>(), 64.0 / (3 * 68), 1e-12);
}

TEST(LinkSim, PaddingIsNotCountedAsNeededWireTime) {
  // The lone MemRd again: a 68 B flit has 4 slots of 16 B; the request takes 1 of its flit's 4,
  // the response 5 of its 2 flits' 8. Dense packing would have filled the rest had anything been
  // waiting, so as a resource each wire needs only its used slots' share of its busy time: 1/4
  // and 5/8 of it, with 3 slots (48 B) of padding each.
  SimContext ctx(4096, 1);
  const LinkParams params = test::preset_link_params("cxl_gen5_x16");
  OneWay b(ctx, "pad", params, false, 64, 1);
  sc_core::sc_start();
  ComponentReport r;
  b.link->report(r, ReportWindow{0, now_ps()});
  const auto& req = r.extra["request_direction"];
  const auto& resp = r.extra["response_direction"];
  EXPECT_EQ(req["padding_bytes"], 48);
  EXPECT_EQ(resp["padding_bytes"], 48);
  // The busy time is counted in whole ps: allow 1 ps over the window.
  const double tol = 1.0 / static_cast<double>(now_ps());
  const double busy_req = req["utilization"].get<double>();
  const double busy_resp = resp["utilization"].get<double>();
  ASSERT_GT(busy_req, 0.0);
  EXPECT_NEAR(req["needed_utilization"].get<double>(), busy_req / 4, tol);
  EXPECT_NEAR(resp["needed_utilization"].get<double>(), busy_resp * 5 / 8, tol);
  // Request wire, credits and transmit queue, the same for responses; and each VC's credits as a
  // server when busier than its wire, as a lone request's are (its round trip is mostly latency).
  std::size_t pools_and_wires = 0;
  for (const ResourceUse& u : r.resources) {
    pools_and_wires += u.name.find("round trip") == std::string::npos;
  }
  EXPECT_EQ(pools_and_wires, 6u);
  const double window = static_cast<double>(now_ps());
  for (const ResourceUse& u : r.resources) {
    if (u.name == "request wire") {
      EXPECT_NEAR(u.utilization, busy_req / 4, tol);
    } else if (u.name == "response wire") {
      EXPECT_NEAR(u.utilization, busy_resp * 5 / 8, tol);
    } else if (u.name == "request VC transmit queue") {
      // The request arrives at 0 and goes out at the link clock's first edge after it (1000
      // MHz: 1000 ps): one entry for 1000 ps of the window, the queue of the request wire.
      EXPECT_DOUBLE_EQ(u.used, 1e6 / params.clock_mhz / window);
      EXPECT_DOUBLE_EQ(u.capacity, params.tx_queue_entries);
      EXPECT_EQ(u.feeds, "request wire");
      EXPECT_FALSE(u.response_path);
    } else if (u.name == "response VC transmit queue") {
      // The response waits for the first edge after it arrives: more than 0, at most 1000 ps.
      EXPECT_GT(u.used, 0.0);
      EXPECT_LE(u.used, 1e6 / params.clock_mhz / window);
      EXPECT_EQ(u.feeds, "response wire");
      EXPECT_TRUE(u.response_path);
    }
  }
}

}  // namespace
}  // namespace famsim
