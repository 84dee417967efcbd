#include "platforms/platform_config.h"

#include "models/core/bits.h"
#include "traffic/vmm.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <regex>
#include <utility>

namespace famsim {

namespace {

constexpr std::uint64_t kGiB = 1ULL << 30;

// Clocks from 1 MHz to 100 GHz: slower ones would stretch a run past the 281 s famsim records.
double get_mhz(ConfigNode& n, std::optional<double> def) {
  return n.get_double("clock_mhz", def, 1.0, 1e5);
}

// `request_bytes`: the GPUs' request size, the largest transfer a link carries whole.
LinkConfig parse_link(ConfigNode n, bool gpu_side, unsigned request_bytes) {
  LinkConfig c;
  c.present = true;
  c.preset = n.get_string("preset", "");
  LinkParams& p = c.params;
  // Physical.
  p.lanes = static_cast<unsigned>(n.get_uint("lanes", std::nullopt, 1, 64));
  p.lane_gbps = n.get_double("lane_gbps", std::nullopt, 0.0, 1e4, true);
  p.encoding_efficiency = n.get_double("encoding_efficiency", 1.0, 0.0, 1.0, true);
  p.latency_ns = n.get_double("latency_ns", std::nullopt, 0.0, 1e6);
  p.clock_mhz = get_mhz(n, 1000.0);
  // Framing (models/fabric/link_framing.h).
  FlitFormat& f = p.flit;
  f.flit_bytes = static_cast<unsigned>(n.get_uint("flit_bytes", 16, 1, 65536));
  f.flit_header_bytes = static_cast<unsigned>(n.get_uint("flit_header_bytes", 0, 0, 65536));
  f.flit_crc_bytes = static_cast<unsigned>(n.get_uint("flit_crc_bytes", 0, 0, 65536));
  f.flit_fec_bytes = static_cast<unsigned>(n.get_uint("flit_fec_bytes", 0, 0, 65536));
  const unsigned overhead = f.flit_header_bytes + f.flit_crc_bytes + f.flit_fec_bytes;
  // Without slot_bytes the whole message area is one slot.
  f.slot_bytes = static_cast<unsigned>(
      n.get_uint("slot_bytes", f.flit_bytes > overhead ? f.flit_bytes - overhead : 1, 1, 65536));
  f.packing = n.get_choice("packing", "dense", {"dense", "per_message"}) == "dense"
                  ? Packing::kDense
                  : Packing::kPerMessage;
  f.request_header_bytes = static_cast<unsigned>(n.get_uint("request_header_bytes", 16, 1, 4096));
  f.response_header_bytes = static_cast<unsigned>(n.get_uint("response_header_bytes", 16, 1, 4096));
  f.max_payload_bytes = static_cast<unsigned>(n.get_uint("max_payload_bytes", 256, 1, 1u << 20));
  if (auto problem = LinkFraming::check(f)) {
    problem->also.insert(problem->also.begin(), problem->key);
    n.fail_among(problem->also, problem->what);
  }
  const LinkFraming framing(f);
  p.largest_transfer_bytes = request_bytes;
  // Flow control.
  p.credit_unit = n.get_choice("credit_unit", "flit", {"flit", "message"}) == "flit"
                      ? CreditUnit::kFlit
                      : CreditUnit::kMessage;
  p.request_vc_credits = static_cast<unsigned>(n.get_uint("request_vc_credits", 64, 1, 65536));
  p.response_vc_credits = static_cast<unsigned>(n.get_uint("response_vc_credits", 64, 1, 65536));
  // Each VC must hold the largest message, and a whole transfer of request_bytes (a write on the
  // request VC, a read response on the response VC): a link takes a transfer's credits all at
  // once and gives them back together (link.h).
  const char* unit = p.credit_unit == CreditUnit::kFlit ? "flit" : "message";
  const unsigned need = framing.largest_message_credits(p.credit_unit);
  // A VC's credits against the message sizes the framing keys give: an error names whichever of
  // them a --set changed.
  const auto credit_keys = [](const char* key) -> std::vector<std::string> {
    return {key,          "max_payload_bytes", "request_header_bytes", "response_header_bytes",
            "flit_bytes", "slot_bytes"};
  };
  for (bool request_vc : {true, false}) {
    const char* key = request_vc ? "request_vc_credits" : "response_vc_credits";
    const unsigned have = request_vc ? p.request_vc_credits : p.response_vc_credits;
    if (have < need) {
      n.fail_among(credit_keys(key),
                   fmt::format("expected at least {} credits ({}s) in {}: the largest message "
                               "({} B of data plus its header) must fit in the receive buffer, "
                               "got {}",
                               need, unit, key, f.max_payload_bytes, have));
    }
    const unsigned transfer =
        framing.credits(framing.data_transfer(request_vc, request_bytes), p.credit_unit);
    if (have < transfer) {
      n.fail_among(
          credit_keys(key),
          fmt::format("expected at least {} credits ({}s) in {}: a {} of gpus.request_bytes = "
                      "{} B takes them all at once, got {}",
                      transfer, unit, key, request_vc ? "write request" : "read response",
                      request_bytes, have));
    }
  }
  // A flit must take less than the longest run famsim can simulate (its duration is kept as a
  // 64-bit count of fs): a bandwidth so low that one flit outlasts it is a typo, not a link.
  if (!(p.flit_ps() < static_cast<double>(kMaxSimTimePs))) {
    n.fail_among({"lane_gbps", "lanes", "encoding_efficiency", "flit_bytes"},
                 fmt::format("a flit of {} B takes {:.3g} s at {:.3g} GB/s per direction; expected "
                             "a bandwidth at which it takes less than famsim's longest run, "
                             "{:.0f} s",
                             f.flit_bytes, p.flit_ps() * 1e-12, p.bandwidth_gbps(),
                             static_cast<double>(kMaxSimTimePs) * 1e-12));
  }
  // The link layer decides on its clock edges how to fill the flits of the next clock period.
  // A real one handles one flit or a few per clock (the presets: one); thousands per clock
  // (clock_mhz 1 for 1000) would add up to a period of waiting per hop while still filling the
  // wire: a plausible-looking run with the wrong latency. Refused well before that.
  constexpr double kMaxFlitsPerClock = 64;
  const double flits_per_clock = 1e6 / p.clock_mhz / p.flit_ps();
  if (flits_per_clock > kMaxFlitsPerClock) {
    n.fail_among(
        {"clock_mhz", "lanes", "lane_gbps", "flit_bytes"},
        fmt::format("a link clock of {} MHz takes {:.0f} flits of {} B per clock at {:.3f} "
                    "GB/s; expected at most {:.0f} (a clock of at least {:.1f} MHz): the "
                    "link layer decides once per clock, so each hop would wait up to "
                    "{:.0f} ns",
                    p.clock_mhz, flits_per_clock, f.flit_bytes, p.bandwidth_gbps(),
                    kMaxFlitsPerClock, 1e6 / (kMaxFlitsPerClock * p.flit_ps()), 1e3 / p.clock_mhz));
  }
  // The credit rides back on the reverse direction's flits: by default one link latency.
  p.credit_return_ns = n.get_double("credit_return_ns", p.latency_ns, 0.0, 1e6);
  p.tx_queue_entries = static_cast<unsigned>(n.get_uint("tx_queue_entries", 16, 1, 65536));
  // Reliability.
  p.flit_error_rate = n.get_double("flit_error_rate", 0.0, 0.0, 0.5);
  // By default the errored flit's trip to the receiver and the NAK's trip back, plus the
  // receiver's check and the sender's rewind (replay_check_ns): a preset gives that part, so
  // that a changed latency_ns moves the replay loop with it.
  const double check_ns = n.get_double("replay_check_ns", 0.0, 0.0, 1e6);
  p.replay_latency_ns = n.get_double("replay_latency_ns", 2 * p.latency_ns + check_ns, 0.0, 1e6);
  p.replay_buffer_flits =
      static_cast<unsigned>(n.get_uint("replay_buffer_flits", 256, 1, 1u << 20));
  if (gpu_side) {
    c.per_gpu = static_cast<unsigned>(n.get_uint("per_gpu", 1, 1, 1024));
  }
  n.finish();
  return c;
}

// `min_granule`: a device's port logic splits requests at granule boundaries, so its granule may
// be as small as 64 B; a GPU's local memory (and a trace player's) takes whole requests, so its
// granule must hold one.
void parse_interleave(ConfigNode n, MemoryConfig& m, std::uint64_t min_granule, bool splits) {
  m.select =
      AddressMap::parse_select(n.get_choice("channel_select", "modulo", {"modulo", "xor", "bits"}));
  if (m.select == AddressMap::Select::kBits) {
    const std::vector<std::uint64_t> bits = n.get_uint_list("channel_bits", 0, 62);
    m.channel_bits.assign(bits.begin(), bits.end());
    try {
      m.granule_bytes = AddressMap(m.channel_bits).granule_bytes();
    } catch (const std::invalid_argument& e) {
      n.fail("channel_bits", e.what());
    }
    // The bits' own rule first: a lowest bit below the smallest granule is wrong whatever
    // granule_bytes says.
    if (m.granule_bytes < min_granule) {
      const unsigned min_bit = static_cast<unsigned>(__builtin_ctzll(min_granule));
      n.fail(
          "channel_bits",
          fmt::format("the lowest channel bit, {}, makes an interleave granule of {} B; expected "
                      "a lowest bit of at least {}: a granule of at least {} B{}",
                      __builtin_ctzll(m.granule_bytes), m.granule_bytes, min_bit, min_granule,
                      splits ? ""
                             : " (the request size: only a device's port logic splits "
                               "requests that cross granules)"));
    }
    if (n.has("granule_bytes") && n.get_bytes("granule_bytes", 0) != m.granule_bytes) {
      n.fail(
          "granule_bytes",
          fmt::format("channel_bits put the lowest channel bit at a {} B granule, not {} B; "
                      "expected granule_bytes {} or none (channel_bits set the granule; on the "
                      "command line, --set {}={{channel_select: bits, channel_bits: [...]}} "
                      "replaces the whole interleave map)",
                      m.granule_bytes, n.get_bytes("granule_bytes", 0), m.granule_bytes, n.path()));
    }
  } else {
    if (n.has("channel_bits")) {
      n.fail("channel_bits", "channel_bits go with channel_select: bits");
    }
    m.granule_bytes = n.get_bytes("granule_bytes", 256, 1, kGiB);
  }
  if (!is_pow2(m.granule_bytes) || m.granule_bytes < min_granule) {
    n.fail(m.select == AddressMap::Select::kBits ? "channel_bits" : "granule_bytes",
           splits ? fmt::format("expected an interleave granule of a power of two >= {} B, got {} "
                                "B",
                                min_granule, m.granule_bytes)
                  : fmt::format("expected an interleave granule of a power of two >= the request "
                                "size ({} B), got {} B (only a device's port logic splits requests "
                                "that cross granules)",
                                min_granule, m.granule_bytes));
  }
  n.finish();
}

// The DRAM model's keys of a memory node: the standard (dram_spec.h, read by load_spec), the
// controller and the within-channel address mapping.
void parse_dram(ConfigNode& n, DramControllerParams& d, unsigned request_bytes) {
  d.spec = dram::load_spec(n, n.has("preset") ? n.get_string("preset", "") : std::string("custom"));
  ConfigNode ctl = n.child("controller");
  dram::CoreParams& c = d.core;
  c.read_queue = static_cast<unsigned>(ctl.get_uint("read_queue", 64, 1, 65536));
  c.write_queue = static_cast<unsigned>(ctl.get_uint("write_queue", 64, 1, 65536));
  // Defaults: 3/4 and 1/4 of the queue, kept at least 1 and below the high watermark, so that a
  // small queue or a low high watermark given alone still makes a valid pair.
  c.write_high_watermark = static_cast<unsigned>(
      ctl.get_uint("write_high_watermark", std::max(1u, c.write_queue * 3 / 4), 1, c.write_queue));
  c.write_low_watermark = static_cast<unsigned>(
      ctl.get_uint("write_low_watermark", std::min(c.write_queue / 4, c.write_high_watermark - 1),
                   0, c.write_high_watermark - 1));
  c.scheduler = ctl.get_choice("scheduler", "frfcfs", {"fcfs", "frfcfs"});
  c.starvation_cap = static_cast<unsigned>(ctl.get_uint("starvation_cap", 16, 0, 1u << 20));
  c.page_policy = ctl.get_choice("page_policy", "open", {"open", "closed", "timeout"});
  const double timeout_ns = ctl.get_double("page_timeout_ns", 50.0, 0.0, 1e9);
  c.page_timeout_cycles =
      static_cast<std::uint64_t>(std::ceil(timeout_ns * 1000.0 / d.spec.timing.tck_ps - 1e-9));
  // per_bank is the standard's bank refresh: REFpb (LPDDR5X, HBM3) or same-bank REFsb (DDR5,
  // which may also call it same_bank).
  const std::string refresh =
      ctl.get_choice("refresh", "all_bank", {"all_bank", "per_bank", "same_bank", "off"});
  c.refresh = refresh == "all_bank" ? dram::RefreshMode::kAllBank
              : refresh == "off"    ? dram::RefreshMode::kOff
                                    : dram::RefreshMode::kPerBank;
  if (refresh == "same_bank" && !d.spec.timing.same_bank_refresh) {
    ctl.fail("refresh", fmt::format("same_bank refresh (REFsb) is DDR5's; {} refreshes single "
                                    "banks: use per_bank, all_bank or off",
                                    dram::to_string(d.spec.standard)));
  }
  if (c.refresh == dram::RefreshMode::kPerBank && d.spec.timing.REFIpb == 0) {
    ctl.fail("refresh", fmt::format("{} has no per-bank refresh in this preset (timing REFIpb is "
                                    "not set); use all_bank or off",
                                    dram::to_string(d.spec.standard)));
  }
  c.refresh_postpone = ctl.get_bool("refresh_postpone", true);
  d.posted_writes =
      ctl.get_choice("write_response", "posted", {"posted", "on_completion"}) == "posted";
  d.backing_store = ctl.get_bool("backing_store", true);
  const std::uint64_t bursts = d.spec.org.max_bursts_spanned(request_bytes);
  if (bursts > c.read_queue || bursts > c.write_queue) {
    ctl.fail(bursts > c.read_queue ? "read_queue" : "write_queue",
             fmt::format("queues count bursts of {} B: a {} B request needs {} "
                         "entries, the queues must hold at least that",
                         d.spec.org.burst_bytes(), request_bytes, bursts));
  }
  ctl.finish();
  ConfigNode map = n.child("mapping");
  // Without Ch, the order is the within-channel order and interleave.granule_bytes places the
  // channel digit; with Ch, its position sets the interleave granule (see parse_memory).
  const std::string order = map.get_string("order", "RoRaBaCoBg");
  d.order_places_channel = order.find("Ch") != std::string::npos;
  d.mapping_order = d.order_places_channel ? order : order + "Ch";
  d.xor_bank = map.get_bool("xor_bank", false);
  try {
    dram::AddressMapping check(d.spec.org, 1, d.mapping_order, d.xor_bank);
  } catch (const std::invalid_argument& e) {
    map.fail("order", e.what());
  }
  map.finish();
}

// `model: ideal` over a DRAM description (a DRAM preset, or organization and timing written out):
// "this memory, were it ideal", a what-if for fabric studies (`--set devices.0.memory.model=ideal`
// on a platform with DRAM). The ideal memory takes the DRAM's data bus (its tCK, transfers per
// clock and width: the DRAM model's peak) and a fixed access latency of tRCD + CL, a read's
// latency to a closed bank (access_latency_cycles overrides it); its queues hold the bytes the
// DRAM controller's do (entries count bursts there, requests here). The DRAM keys are read and
// checked as for the DRAM model; its banks, rows, refresh, scheduling and mapping have no effect,
// which the run's assumptions say.
void parse_ideal_over_dram(ConfigNode& n, MemoryConfig& m, unsigned request_bytes) {
  for (const char* key : {"data_rate_mtps", "channel_width_bits", "clock_mhz"}) {
    if (n.has(key)) {
      n.fail(key,
             "an ideal memory over a DRAM description (organization, timing) takes its bus "
             "from that description; change the DRAM's organization or timing, or describe "
             "the ideal memory alone (standard, data_rate_mtps, channel_width_bits, "
             "clock_mhz, access_latency_cycles)");
    }
  }
  parse_dram(n, m.dram, request_bytes);
  const dram::Spec& s = m.dram.spec;
  if (m.dram.order_places_channel) {
    n.child("mapping").fail("order",
                            "places the channel digit, which only the DRAM model "
                            "decodes; an ideal memory takes interleave.granule_bytes");
  }
  m.timing.standard = dram::to_string(s.standard);
  m.timing.clock_mhz = 1e6 / s.timing.tck_ps;
  m.timing.data_rate_mtps = dram::transfers_per_clock(s.standard) * m.timing.clock_mhz;
  m.timing.channel_width_bits = s.org.channel_width_bits;
  const unsigned closed_bank_read = s.timing.RCD_RD + s.timing.CL;
  m.timing.access_latency_cycles =
      static_cast<unsigned>(n.get_uint("access_latency_cycles", closed_bank_read, 0, 100000));
  const auto bursts = static_cast<unsigned>(
      std::max<std::uint64_t>(1, (request_bytes + s.org.burst_bytes() - 1) / s.org.burst_bytes()));
  m.controller.read_queue = std::max(1u, m.dram.core.read_queue / bursts);
  m.controller.write_queue = std::max(1u, m.dram.core.write_queue / bursts);
  m.controller.posted_writes = m.dram.posted_writes;
  m.controller.backing_store = m.dram.backing_store;
  const bool derived = !n.has("access_latency_cycles");
  m.assumptions.push_back(
      {"model", "ideal",
       fmt::format("an ideal memory over {} ({}): its data bus ({:.2f} GB/s a channel), requests "
                   "served in arrival order, first data {} clocks of {} ps after service "
                   "starts{}{}; no banks, rows, refresh or bus turnarounds",
                   s.name, dram::to_string(s.standard), s.bus_peak_gbps(),
                   m.timing.access_latency_cycles, s.timing.tck_ps,
                   derived ? fmt::format(" (tRCD + CL = {} + {})", s.timing.RCD_RD, s.timing.CL)
                           : std::string(" (access_latency_cycles)"),
                   m.dram.posted_writes ? ", writes answered on acceptance (posted)" : ""),
       n.location("model"), "famsim"});
}

// An order string naming Ch places the channel digit: the interleave granule is the bytes of the
// fields below it.
void apply_order_granule(ConfigNode& n, MemoryConfig& m, std::uint64_t min_granule) {
  if (m.model != MemoryConfig::Model::kDram) return;
  const std::string& order = m.dram.mapping_order;
  if (!m.dram.order_places_channel) return;
  const dram::AddressMapping full(m.dram.spec.org, m.channels, order, m.dram.xor_bank);
  const std::uint64_t granule = full.channel_granule_bytes();
  ConfigNode il = n.child("interleave");
  if (il.has("granule_bytes") && granule != m.granule_bytes) {
    n.child("mapping").fail("order",
                            fmt::format("places the channel digit at a {} B granule, but "
                                        "interleave.granule_bytes is {}; give one or the other",
                                        granule, m.granule_bytes));
  }
  if (m.select == AddressMap::Select::kBits) {
    n.child("mapping").fail("order",
                            "places the channel digit, and interleave.channel_select "
                            "is bits; give one or the other");
  }
  if (!is_pow2(granule) || granule < min_granule) {
    n.child("mapping").fail(
        "order", fmt::format("places the channel digit at a {} B granule; it must be a power of "
                             "two >= {} B",
                             granule, min_granule));
  }
  m.granule_bytes = granule;
}

// The DRAM behind a memory must hold its capacity: each channel's share of the address space has
// to decode to a real rank, bank, row and column.
void check_dram_capacity(ConfigNode& n, const char* key, const MemoryConfig& m) {
  if (m.model != MemoryConfig::Model::kDram) return;
  const std::uint64_t per_channel = m.dram.spec.org.capacity_bytes();
  if (m.capacity_bytes > per_channel * m.channels) {
    n.fail(key, fmt::format("{:.2f} GiB do not fit in {} channels of {} x {:.2f} GiB (ranks x "
                            "bank groups x banks x rows x row size of the DRAM organisation); "
                            "lower the capacity, or add channels or ranks",
                            static_cast<double>(m.capacity_bytes) / kGiB, m.channels,
                            m.dram.spec.name, static_cast<double>(per_channel) / kGiB));
  }
}

// A memory node (after preset expansion): DRAM standard and timing, controller, organisation
// (`channels`, or `stacks` x `channels_per_stack` for stacked memory), capacity and interleave.
// `device`: the memory behind a device's port logic, which splits requests at granules.
MemoryConfig parse_memory(ConfigNode n, unsigned request_bytes, bool capacity_here,
                          bool device = false) {
  MemoryConfig m;
  m.present = true;
  m.preset = n.get_string("preset", "");
  const std::string model = n.get_choice("model", "dram", {"dram", "ideal", "external"});
  m.model = model == "dram"    ? MemoryConfig::Model::kDram
            : model == "ideal" ? MemoryConfig::Model::kIdeal
                               : MemoryConfig::Model::kExternal;
  if (m.model == MemoryConfig::Model::kExternal) {
    // A foreign TLM-2.0 target per channel (models/cosim/tlm_memory_bridge.h): famsim knows only
    // what its owner states of it.
    m.external.config_location = n.location("model");
    m.external.name = n.get_string("standard", "external");
    if (m.external.name.empty()) n.fail("standard", "expected a non-empty name of the memory");
    m.external.peak_gbps = n.get_double("channel_peak_gbps", std::nullopt, 0.0, 1e6, true);
    m.external.max_outstanding = static_cast<unsigned>(n.get_uint("max_outstanding", 32, 1, 65536));
    m.external.address_offset = n.get_bytes("address_offset", 0);
    if (m.external.address_offset % 8 != 0) {
      n.fail("address_offset",
             fmt::format("expected a multiple of 8 B, got {}: an atomic's 4 or 8 B word, aligned "
                         "at the channel, must stay aligned at the foreign memory",
                         m.external.address_offset));
    }
  } else if (m.model == MemoryConfig::Model::kIdeal && (n.has("organization") || n.has("timing"))) {
    parse_ideal_over_dram(n, m, request_bytes);
  } else if (m.model == MemoryConfig::Model::kIdeal) {
    m.timing.standard = n.get_string("standard", std::nullopt);
    // It names the memory in stats.json (assumptions) and famsim validate.
    if (m.timing.standard.empty()) n.fail("standard", "expected a non-empty name of a standard");
    m.timing.data_rate_mtps = n.get_double("data_rate_mtps", std::nullopt, 0.0, 1e5, true);
    m.timing.channel_width_bits =
        static_cast<unsigned>(n.get_uint("channel_width_bits", std::nullopt, 8, 1024));
    m.timing.clock_mhz = get_mhz(n, std::nullopt);
    m.timing.access_latency_cycles =
        static_cast<unsigned>(n.get_uint("access_latency_cycles", std::nullopt, 0, 100000));
    ConfigNode ctl = n.child("controller");
    m.controller.read_queue = static_cast<unsigned>(ctl.get_uint("read_queue", 64, 1, 65536));
    m.controller.write_queue = static_cast<unsigned>(ctl.get_uint("write_queue", 64, 1, 65536));
    m.controller.backing_store = ctl.get_bool("backing_store", true);
    ctl.finish();
  } else {
    parse_dram(n, m.dram, request_bytes);
  }

  // Stacked-memory presets give both; other memories have neither (0: not given).
  const auto per_stack =
      static_cast<unsigned>(n.find_uint("channels_per_stack", 0, 1024).value_or(0));
  const double stack_gib = n.find_double("stack_capacity_gib", 0.0, 1e6).value_or(0.0);
  double capacity_gib = 0;
  if (n.has("stacks")) {
    if (n.has("channels")) n.fail("channels", "give either channels or stacks, not both");
    n.ignore("channels");
    if (per_stack == 0)
      n.fail("stacks", "stacks need channels_per_stack (a stacked-memory preset)");
    const unsigned stacks = static_cast<unsigned>(n.get_uint("stacks", std::nullopt, 1, 1024));
    m.channels = stacks * per_stack;
    capacity_gib = stacks * stack_gib;
  } else {
    n.ignore("stacks");
    m.channels = static_cast<unsigned>(n.get_uint("channels", std::nullopt, 1, 4096));
  }
  // A DRAM description (an ideal memory over one too, so that model: ideal stays a one-key switch).
  const bool dram_organisation =
      m.model == MemoryConfig::Model::kDram ||
      (m.model == MemoryConfig::Model::kIdeal && m.dram.spec.org.ranks > 0 &&
       (n.has("organization") || n.has("timing")));
  if (capacity_here && capacity_gib == 0 && dram_organisation && !n.has("capacity_gib")) {
    // Without a capacity: what the DRAM organisation holds.
    m.capacity_bytes = m.dram.spec.org.capacity_bytes() * m.channels;
    capacity_gib = static_cast<double>(m.capacity_bytes) / kGiB;
  }
  if (capacity_here) {
    capacity_gib = n.get_double(
        "capacity_gib", capacity_gib > 0 ? std::optional<double>(capacity_gib) : std::nullopt, 0.0,
        1e7, true);
    m.capacity_bytes = static_cast<std::uint64_t>(std::llround(capacity_gib * kGiB));
  } else {
    n.ignore("capacity_gib");
    if (n.has("capacity_gib")) {
      n.fail("capacity_gib", "a device's capacity is set by its own capacity_gib key");
    }
  }
  if (capacity_here) check_dram_capacity(n, "capacity_gib", m);
  // 64 B: the smallest granule a device interleaves at (a cache line; the issue's range is 64 B
  // to 4 KiB, larger ones are allowed).
  const std::uint64_t min_granule = device ? 64 : request_bytes;
  parse_interleave(n.child("interleave"), m, min_granule, device);
  apply_order_granule(n, m, min_granule);
  if (m.select == AddressMap::Select::kXor && !is_pow2(m.channels)) {
    // Names whichever of the two a --set wrote (a sweep of channels over a platform with xor
    // interleave), else the channel count.
    n.fail_among({"channels", "interleave.channel_select"},
                 fmt::format("{} channels with xor channel selection (interleave.channel_select, "
                             "which needs a power-of-two channel count); expected a power of two, "
                             "or channel_select: modulo, which takes any count",
                             m.channels));
  }
  if (m.select == AddressMap::Select::kBits &&
      (std::size_t{1} << m.channel_bits.size()) != m.channels) {
    n.child("interleave")
        .fail("channel_bits",
              fmt::format("{} bits select among {} channels, but this memory has "
                          "{} channels",
                          m.channel_bits.size(), 1u << m.channel_bits.size(), m.channels));
  }
  // The files' notes first, then any the reading added (an ideal memory over a DRAM's).
  std::vector<ConfigAssumption> notes = n.assumptions("assumptions");
  if (m.model == MemoryConfig::Model::kIdeal) {
    // An ideal memory over a DRAM description uses no timing value but tCK, tRCD and CL: the
    // notes on the others would say assumptions the run does not make.
    const auto unused_timing = [](const ConfigAssumption& a) {
      if (a.key.rfind("timing.", 0) != 0) return false;
      for (const char* used : {"timing.tCK_", "timing.CL_", "timing.tRCD_"}) {
        if (a.key.rfind(used, 0) == 0) return false;
      }
      return true;
    };
    notes.erase(std::remove_if(notes.begin(), notes.end(), unused_timing), notes.end());
  }
  m.assumptions.insert(m.assumptions.begin(), notes.begin(), notes.end());
  n.finish();
  return m;
}

// The queueing, arbitration and forwarding keys every crossbar has (the switch, a device's NoC,
// a GPU's memory hub); the defaults are the original block: FIFO inputs, per-output round-robin,
// store-and-forward.
void parse_crossbar_policies(ConfigNode& n, CrossbarParams& p) {
  p.input_queues = *parse_input_queues(n.get_choice("input_queues", "fifo", {"fifo", "voq"}));
  p.arbiter = *parse_crossbar_arbiter(
      n.get_choice("arbiter", "round_robin", {"round_robin", "islip", "oldest_first"}));
  if (n.has("islip_iterations")) {
    if (p.arbiter != CrossbarArbiter::kIslip) {
      n.fail("islip_iterations",
             fmt::format("applies only with arbiter: islip (this crossbar's arbiter is {})",
                         to_string(p.arbiter)));
    }
    p.islip_iterations = static_cast<unsigned>(n.get_uint("islip_iterations", 1, 1, 4096));
  }
  p.forwarding = *parse_forwarding(
      n.get_choice("forwarding", "store_and_forward", {"store_and_forward", "cut_through"}));
}

CrossbarParams parse_crossbar(ConfigNode& n, const char* width_key) {
  CrossbarParams p;
  p.clock_mhz = get_mhz(n, std::nullopt);
  p.pipeline_cycles = static_cast<unsigned>(n.get_uint("pipeline_cycles", std::nullopt, 0, 100000));
  p.width_bytes = static_cast<unsigned>(n.get_uint(width_key, std::nullopt, 1, 4096));
  p.input_buffer = static_cast<unsigned>(n.get_uint("input_buffer", 16, 1, 65536));
  p.output_buffer = static_cast<unsigned>(n.get_uint("output_buffer", 8, 1, 65536));
  parse_crossbar_policies(n, p);
  return p;
}

// A device's mesh NoC (devices.N.noc with kind: mesh; models/noc/mesh.h). Placement defaults
// come from models/noc/mesh_routing.h and are written into the parameters, so `famsim validate`
// and the model see the same nodes.
MeshParams parse_mesh(ConfigNode& n, unsigned ports, unsigned controllers, unsigned request_bytes) {
  MeshParams m;
  if (!n.has("dims")) n.fail("dims", "missing; expected [cols, rows], e.g. [4, 4]");
  const std::vector<std::uint64_t> dims = n.get_uint_list("dims", 1, 64);
  if (dims.size() != 2) {
    n.fail("dims", fmt::format("expected [cols, rows] (2 entries), got {} entries", dims.size()));
  }
  m.cols = static_cast<unsigned>(dims[0]);
  m.rows = static_cast<unsigned>(dims[1]);
  m.clock_mhz = get_mhz(n, std::nullopt);
  m.router_cycles = static_cast<unsigned>(n.get_uint("router_cycles", std::nullopt, 1, 100000));
  m.link_cycles = static_cast<unsigned>(n.get_uint("link_cycles", 1, 0, 100000));
  m.link_bytes = static_cast<unsigned>(n.get_uint("link_bytes", std::nullopt, 1, 4096));
  m.vcs = static_cast<unsigned>(n.get_uint("vcs", 4, 1, 64));
  // The largest packet: a write of request_bytes (header + data flits); a read response is the
  // same size. Virtual cut-through needs a VC buffer that holds it.
  const unsigned largest = message_flits(request_bytes, m.link_bytes);
  m.vc_buffer_flits =
      static_cast<unsigned>(n.get_uint("vc_buffer_flits", std::max(8u, largest), 1, 65536));
  if (m.vc_buffer_flits < largest) {
    n.fail_among(
        {"vc_buffer_flits", "link_bytes"},
        fmt::format("expected at least {} flits in vc_buffer_flits: the largest packet (1 header "
                    "flit + {} B of data in {} B flits) must fit in one VC buffer, got {}",
                    largest, request_bytes, m.link_bytes, m.vc_buffer_flits));
  }
  m.credit_return_cycles = static_cast<unsigned>(n.get_uint("credit_return_cycles", 1, 1, 100000));
  const MeshTopology topo(m.cols, m.rows);
  const auto placement = [&](const char* key, unsigned expected) {
    std::vector<MeshCoord> nodes;
    if (!n.has(key)) {
      n.ignore(key);
      return nodes;  // the default, filled in below
    }
    for (const auto& t : n.get_uint_tuples(key, 2, 0, 65535)) {
      nodes.push_back({static_cast<unsigned>(t[0]), static_cast<unsigned>(t[1])});
    }
    if (auto problem = check_placement(topo, nodes, expected)) {
      if (nodes.size() != expected) n.fail(key, *problem);
      // An entry outside the mesh, the first (which `problem` names): named as the entry, its
      // coordinate or the dims, whichever a --set wrote (the user's latest word), else as the
      // entry at its own line.
      std::size_t i = 0;
      while (i + 1 < nodes.size() && topo.contains(nodes[i])) ++i;
      const std::string entry = fmt::format("{}.{}", key, i);
      n.fail_among({entry, entry + ".0", entry + ".1", "dims", "dims.0", "dims.1"},
                   fmt::format("{} {}", key, *problem));
    }
    return nodes;
  };
  m.port_nodes = placement("port_nodes", ports);
  if (m.port_nodes.empty()) m.port_nodes = default_port_nodes(topo, ports);
  m.controller_nodes = placement("controller_nodes", controllers);
  if (m.controller_nodes.empty()) m.controller_nodes = default_controller_nodes(topo, controllers);
  return m;
}

}  // namespace

FabricShape PlatformConfig::fabric_shape() const {
  FabricShape f;
  f.gpus = gpu_count;
  f.links_per_gpu = gpu_link.per_gpu;
  for (const DeviceConfig& d : devices) f.device_ports.push_back(d.fabric_ports);
  f.peers = peer_paths();
  f.planes = sw.planes;
  f.leaf_spine = sw.leaf_spine;
  f.radix = sw.radix;
  f.leaf_down_ports = sw.leaf_down_ports;
  f.spines = sw.spines;
  return f;
}

unsigned PlatformConfig::device_port_total() const {
  unsigned n = 0;
  for (const DeviceConfig& d : devices) n += d.fabric_ports;
  return n;
}

namespace {

// A standalone memory platform: `memory` and `trace_player`, nothing else.
void parse_standalone(ConfigNode& root, PlatformConfig& pc) {
  for (const char* k : {"gpus", "links", "switch", "devices"}) {
    if (root.has(k)) root.fail(k, "a platform with a trace_player has only memory; remove this");
    root.ignore(k);
  }
  ConfigNode tp = root.child("trace_player", true);
  TracePlayerParams& t = pc.trace_player.params;
  pc.trace_player.present = true;
  t.request_bytes = static_cast<unsigned>(tp.get_bytes("request_bytes", 64, 1, 4096));
  pc.gpu.request_bytes = t.request_bytes;  // the largest payload
  pc.gpu_count = 0;
  ConfigNode mem = root.child("memory", true);
  pc.memory = parse_memory(mem, t.request_bytes, true);
  t.file = tp.get_string("file", "");
  const std::string format =
      tp.get_choice("format", "ramulator", {"ramulator", "dramsim3", "dramsys"});
  t.format = *parse_trace_format(format);
  t.open_loop = tp.get_choice("mode", "closed", {"closed", "open"}) == "open";
  t.max_outstanding = static_cast<unsigned>(tp.get_uint("max_outstanding", 32, 1, 1u << 20));
  // The trace's cycles count the memory's clock unless given; a foreign memory's is unknown.
  std::optional<double> memory_mhz;
  if (pc.memory.model == MemoryConfig::Model::kDram) {
    memory_mhz = 1e6 / pc.memory.dram.spec.timing.tck_ps;
  } else if (pc.memory.model == MemoryConfig::Model::kIdeal) {
    memory_mhz = pc.memory.timing.clock_mhz;
  }
  t.clock_mhz = tp.get_double("clock_mhz", memory_mhz, 1.0, 1e5);
  t.capacity_bytes = pc.memory.capacity_bytes;
  tp.finish();
}

}  // namespace

PlatformConfig parse_platform(ConfigNode& root) {
  PlatformConfig pc;
  pc.name = root.get_string("name", "platform");
  // It names the platform in stats.json (sim.platform), the summary and famsim validate.
  if (pc.name.empty()) root.fail("name", "expected a non-empty platform name");
  pc.description = root.get_string("description", "");
  if (root.has("trace_player")) {
    parse_standalone(root, pc);
    return pc;
  }
  root.ignore("trace_player");
  root.ignore("memory");
  if (root.has("memory")) {
    root.fail("memory",
              "a top-level memory belongs to a standalone platform with a trace_player; "
              "GPU memory goes under gpus.local_memory, device memory under devices");
  }

  // GPUs.
  ConfigNode g = root.child("gpus", true);
  pc.gpu_count = static_cast<unsigned>(g.get_uint("count", std::nullopt, 1, 4096));
  pc.gpu.clock_mhz = get_mhz(g, std::nullopt);
  pc.gpu.request_bytes = static_cast<unsigned>(g.get_bytes("request_bytes", 128, 1, 4096));
  if (!is_pow2(pc.gpu.request_bytes)) {
    g.fail("request_bytes", fmt::format("expected a power of two, got {}", pc.gpu.request_bytes));
  }
  pc.gpu.max_outstanding = static_cast<unsigned>(g.get_uint("max_outstanding", 512, 1, 1u << 20));
  pc.gpu.issue_width = static_cast<unsigned>(g.get_uint("issue_width", 8, 1, 1024));
  if (g.has("local_memory")) {
    pc.gpu_local = parse_memory(g.child("local_memory"), pc.gpu.request_bytes, true);
  } else {
    g.ignore("local_memory");
  }
  // The memory hub; every key has a default, so platforms written before peer paths existed keep
  // working. Whether the platform has a hub at all is checked with the topology below.
  const bool hub_given = g.has("hub");
  {
    ConfigNode hub = g.child("hub");
    CrossbarParams& h = pc.gpu_hub;
    h.clock_mhz = get_mhz(hub, pc.gpu.clock_mhz);
    h.pipeline_cycles = static_cast<unsigned>(hub.get_uint("pipeline_cycles", 4, 0, 100000));
    h.width_bytes = static_cast<unsigned>(hub.get_uint("width_bytes", 64, 1, 4096));
    h.input_buffer = static_cast<unsigned>(hub.get_uint("input_buffer", 16, 1, 65536));
    h.output_buffer = static_cast<unsigned>(hub.get_uint("output_buffer", 8, 1, 65536));
    parse_crossbar_policies(hub, h);
    hub.finish();
  }
  g.finish();

  // Links and switch.
  ConfigNode links = root.child("links");
  const bool has_switch = root.has("switch");
  if (has_switch) {
    ConfigNode s = root.child("switch");
    pc.sw.present = true;
    pc.sw.radix = static_cast<unsigned>(s.get_uint("radix", std::nullopt, 2, 4096));
    pc.sw.planes = static_cast<unsigned>(s.get_uint("planes", 1, 1, 256));
    pc.sw.leaf_spine = s.get_choice("topology", "single", {"single", "leaf_spine"}) == "leaf_spine";
    if (pc.sw.leaf_spine) {
      pc.sw.leaf_down_ports =
          static_cast<unsigned>(s.get_uint("leaf_down_ports", pc.sw.radix / 2, 1, pc.sw.radix - 1));
      pc.sw.spines = static_cast<unsigned>(s.get_uint("spines", std::nullopt, 1, 4096));
    } else {
      for (const char* k : {"leaf_down_ports", "spines"}) {
        s.ignore(k);
        if (s.has(k)) s.fail(k, "only a leaf_spine topology has this key");
      }
    }
    pc.sw.xbar = parse_crossbar(s, "port_bytes");
    s.finish();
  } else {
    root.ignore("switch");
  }

  // Devices.
  for (ConfigNode& d : root.list("devices")) {
    DeviceConfig dc;
    dc.name = d.get_string("name", std::nullopt);
    static const std::regex name_re("[A-Za-z][A-Za-z0-9_]*");
    if (!std::regex_match(dc.name, name_re)) {
      d.fail("name", "expected a name of letters, digits and _ starting with a letter, got '" +
                         dc.name + "'");
    }
    // The builder names its other blocks itself (builder.cpp, switch_fabric.cpp, simulation.cpp):
    // a device named like one would share its name, which SystemC resolves by renaming one of
    // them (stats.json then names blocks the configuration does not), and a VMM location
    // gpuN_hbm would be added twice.
    static const std::regex taken_re(
        "(gpu|plane|leaf|spine)[0-9]+(_.*)?|switch|memory|trace_player|phase_sampler|vmm_events");
    if (std::regex_match(dc.name, taken_re)) {
      d.fail("name", "'" + dc.name +
                         "' is a name famsim gives its own blocks (gpuN and gpuN_..., planeN_..., "
                         "leafN, spineN, switch, memory, trace_player, phase_sampler, "
                         "vmm_events); expected another name");
    }
    for (const DeviceConfig& o : pc.devices) {
      if (o.name == dc.name) d.fail("name", "another device is already named '" + dc.name + "'");
      // A device's links are <name>_linkN.
      using Names = std::pair<const std::string*, const std::string*>;
      for (const auto& [a, b] : {Names{&o.name, &dc.name}, Names{&dc.name, &o.name}}) {
        static const std::regex link_re("_link[0-9]+");
        if (b->size() > a->size() && b->compare(0, a->size(), *a) == 0 &&
            std::regex_match(b->substr(a->size()), link_re)) {
          d.fail("name", fmt::format("'{}' and '{}': {} is the name of one of device {}'s links; "
                                     "expected device names that are not <device>_linkN",
                                     o.name, dc.name, *b, *a));
        }
      }
    }
    dc.capacity_bytes = static_cast<std::uint64_t>(
        std::llround(d.get_double("capacity_gib", std::nullopt, 0.0, 1e7, true) * kGiB));
    // Buffers map in pages of the VMM's granularity: a smaller device holds none, and a tiny
    // value (a typo for MiB, say) would round to 0 B and fail only as a workload's allocation.
    if (dc.capacity_bytes < AddressSpace::kDefaultGranularity) {
      d.fail("capacity_gib",
             fmt::format("{} B is less than one 2 MiB page, the VMM's mapping granularity; "
                         "expected at least 0.001953125 (2 MiB)",
                         dc.capacity_bytes));
    }
    dc.fabric_ports = static_cast<unsigned>(d.get_uint("fabric_ports", std::nullopt, 1, 1024));

    ConfigNode pl = d.child("port_logic", true);
    dc.port_logic.clock_mhz = get_mhz(pl, std::nullopt);
    dc.port_logic.ingress_cycles =
        static_cast<unsigned>(pl.get_uint("ingress_cycles", std::nullopt, 0, 100000));
    dc.port_logic.egress_cycles = static_cast<unsigned>(
        pl.get_uint("egress_cycles", dc.port_logic.ingress_cycles, 0, 100000));
    dc.port_logic.tags_per_port =
        static_cast<unsigned>(pl.get_uint("tags_per_port", std::nullopt, 1, 1u << 16));
    dc.port_logic.width_bytes =
        static_cast<unsigned>(pl.get_bytes("width_bytes", dc.port_logic.width_bytes, 1, 65536));
    dc.port_logic.in_order =
        pl.get_choice("response_order", "out_of_order", {"out_of_order", "in_order"}) == "in_order";
    dc.port_logic.atomic_cycles =
        static_cast<unsigned>(pl.get_uint("atomic_cycles", dc.port_logic.atomic_cycles, 0, 100000));
    pl.finish();

    dc.memory = parse_memory(d.child("memory", true), pc.gpu.request_bytes, false, true);
    dc.memory.capacity_bytes = dc.capacity_bytes;

    // After the memory: a mesh places the memory channels' controllers on its nodes.
    ConfigNode noc = d.child("noc", true);
    if (noc.get_choice("kind", "crossbar", {"crossbar", "mesh"}) == "mesh") {
      dc.noc_kind = NocKind::kMesh;
      dc.mesh = parse_mesh(noc, dc.fabric_ports, dc.memory.channels, pc.gpu.request_bytes);
      // The port logic splits a request at the interleave granule: the parts cross the mesh.
      dc.mesh.largest_packet_bytes = static_cast<unsigned>(
          std::min<std::uint64_t>(pc.gpu.request_bytes, dc.memory.granule_bytes));
    } else {
      dc.noc = parse_crossbar(noc, "width_bytes");
    }
    noc.finish();
    check_dram_capacity(d, "capacity_gib", dc.memory);
    d.finish();
    pc.devices.push_back(dc);
  }

  // Topology: with a switch, GPUs and devices hang off it; without, one device takes every GPU
  // link directly.
  if (pc.sw.present) {
    if (pc.devices.empty()) {
      root.fail("switch", "the platform has a switch but no devices for it to reach");
    }
    if (!links.has("gpu_switch"))
      links.fail("gpu_switch", "missing; a platform with a switch needs GPU-to-switch links");
    pc.gpu_link = parse_link(links.child("gpu_switch"), true, pc.gpu.request_bytes);
    pc.gpu.fabric_link_gbps = pc.gpu_link.params.bandwidth_gbps();
    if (!pc.devices.empty()) {
      if (!links.has("switch_device")) {
        links.fail("switch_device",
                   "missing; a platform with a switch needs switch-to-device links");
      }
      pc.device_link = parse_link(links.child("switch_device"), false, pc.gpu.request_bytes);
    } else {
      links.ignore("switch_device");
      if (links.has("switch_device")) {
        links.fail("switch_device", "the platform has no devices for these links to reach");
      }
    }
    links.ignore("gpu_device");
    if (links.has("gpu_device")) {
      links.fail("gpu_device", "direct GPU-to-device links only exist without a switch");
    }
    if (pc.sw.leaf_spine) {
      if (!links.has("leaf_spine")) {
        links.fail("leaf_spine", "missing; a leaf/spine switch needs leaf-to-spine links");
      }
      pc.leaf_spine_link = parse_link(links.child("leaf_spine"), false, pc.gpu.request_bytes);
    } else {
      links.ignore("leaf_spine");
      if (links.has("leaf_spine")) {
        links.fail("leaf_spine", "leaf-to-spine links exist only with switch.topology leaf_spine");
      }
    }
    // A physical switch port carries both directions: the peer ports of peer paths are the
    // switch-to-GPU halves of the GPU ports, so they need no radix of their own.
    try {
      FabricPlan plan(pc.fabric_shape());
    } catch (const std::invalid_argument& e) {
      // Each rule is about the switch and what is attached to it: the error names whichever of
      // those keys a --set changed, else the switch's.
      const std::string what = e.what();
      std::vector<std::string> keys;
      unsigned d = 0;
      if (what.find("switch planes") != std::string::npos) {
        keys = {"switch.planes"};
        if (std::sscanf(what.c_str(), "impossible topology: device %u", &d) == 1) {
          keys.push_back(fmt::format("devices.{}.fabric_ports", d));
        } else {
          keys.push_back("links.gpu_switch.per_gpu");
        }
      } else {
        keys = {pc.sw.leaf_spine ? "switch.topology" : "switch.radix", "switch.radix", "gpus.count",
                "links.gpu_switch.per_gpu"};
        if (pc.sw.leaf_spine) {
          keys.insert(keys.end(), {"switch.spines", "switch.leaf_down_ports", "switch.planes"});
        }
        for (std::size_t i = 0; i < pc.devices.size(); ++i) {
          keys.push_back(fmt::format("devices.{}.fabric_ports", i));
        }
      }
      root.fail_among(keys, what);
    }
  } else if (!pc.devices.empty()) {
    if (!links.has("gpu_device")) {
      links.fail("gpu_device", "missing; a platform without a switch needs GPU-to-device links");
    }
    pc.gpu_link = parse_link(links.child("gpu_device"), true, pc.gpu.request_bytes);
    pc.gpu.fabric_link_gbps = pc.gpu_link.params.bandwidth_gbps();
    links.ignore("gpu_switch");
    links.ignore("switch_device");
    links.ignore("leaf_spine");
    if (links.has("gpu_switch") || links.has("switch_device") || links.has("leaf_spine")) {
      links.fail(links.has("gpu_switch")      ? "gpu_switch"
                 : links.has("switch_device") ? "switch_device"
                                              : "leaf_spine",
                 "switch links given but the platform has no switch section");
    }
    if (pc.devices.size() != 1) {
      root.fail("devices", fmt::format("impossible topology: without a switch exactly one device "
                                       "can attach to the GPUs, {} given",
                                       pc.devices.size()));
    }
    const unsigned gpu_links = pc.gpu_count * pc.gpu_link.per_gpu;
    if (gpu_links != pc.devices[0].fabric_ports) {
      root.fail_among(
          {"devices", "gpus.count", "links.gpu_device.per_gpu", "devices.0.fabric_ports"},
          fmt::format("impossible topology: {} GPUs x {} links = {} GPU links, but "
                      "device {} has {} fabric ports (without a switch each GPU "
                      "link needs its own device port)",
                      pc.gpu_count, pc.gpu_link.per_gpu, gpu_links, pc.devices[0].name,
                      pc.devices[0].fabric_ports));
    }
  } else {
    for (const char* k : {"gpu_switch", "switch_device", "gpu_device", "leaf_spine"}) {
      links.ignore(k);
      // A rule across keys: a --set that emptied devices is named, else the links' line.
      const std::string key = std::string("links.") + k;
      if (links.has(k)) {
        root.fail_among({key, "devices"},
                        fmt::format("the platform has no devices for {} to reach; expected a "
                                    "device under devices, or no {}",
                                    key, key));
      }
    }
  }
  links.finish();
  // Without peer paths there is no hub: its defaults (read above, before the topology was
  // known) are no parameter of the run.
  if (!pc.peer_paths()) g.forget_defaults("hub");
  if (hub_given && !pc.peer_paths()) {
    g.fail("hub",
           "a GPU memory hub exists only on platforms with peer paths (a switch, GPU local_memory "
           "and at least 2 GPUs); remove this");
  }
  if (!pc.gpu_local.present && pc.devices.empty()) {
    root.fail("devices", "the platform has no memory: give the GPUs local_memory or add a device");
  }
  return pc;
}

}  // namespace famsim
