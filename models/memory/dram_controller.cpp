#include "models/memory/dram_controller.h"

#include "models/memory/atomic.h"
#include "models/memory/memory_map.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace famsim {

DramController::DramController(sc_core::sc_module_name name, SimContext& ctx,
                               const DramControllerParams& params)
    : sc_core::sc_module(name),
      Component(ctx.registry, this->name(), BlockKind::kMemory),
      up("up", *this, 0),
      params_(params),
      core_(params.spec, params.core),
      mapping_(MemoryMap::within_channel(params.spec.org, params.mapping_order, params.xor_bank)),
      burst_bytes_(params.spec.org.burst_bytes()),
      tck_fs_(static_cast<std::uint64_t>(std::llround(params.spec.timing.tck_ps * 1000.0))),
      fs_div_(tck_fs_),
      transactions_(ctx.transactions),
      wake_("wake", ctx.scheduler(), this, &Wakeup::call_behaviour<DramController>) {
  // The bursts a request of the largest payload spans at most, from any offset.
  const std::uint64_t max_bytes = ctx.pool.max_data_bytes();
  const std::uint64_t max_bursts = params.spec.org.max_bursts_spanned(max_bytes);
  if (max_bursts > params.core.read_queue || max_bursts > params.core.write_queue) {
    throw std::invalid_argument(fmt::format(
        "{}: memory.controller.read_queue and write_queue ({} and {}, in bursts of {} B) must "
        "hold the largest request, {} B (the payload pool's data size) from any offset: at least "
        "{} each",
        this->name(), params.core.read_queue, params.core.write_queue, burst_bytes_, max_bytes,
        max_bursts));
  }
  scratch_.resize(max_bursts);
  // The queues count room for whole largest requests, as they arrive aligned (the GPUs split
  // accesses at request-size boundaries): one that needs 4 entries cannot use the last 3.
  core_.count_room_in(static_cast<unsigned>(
      std::max<std::uint64_t>(1, (ctx.pool.max_data_bytes() + burst_bytes_ - 1) / burst_bytes_)));
  posted_.set_capacity(params.core.write_queue);
  if (!params.command_log.empty()) {
    log_ = std::make_unique<std::ofstream>(params.command_log);
    if (!*log_) throw std::invalid_argument("cannot write command log " + params.command_log);
    *log_ << "# " << this->name() << ": " << params.spec.name << " ("
          << to_string(params.spec.standard) << "), tCK " << params.spec.timing.tck_ps << " ps\n"
          << dram::spec_line(params.spec) << '\n'
          << dram::kCommandLogHeader << '\n';
    core_.set_command_log(log_.get(), params.channel, params.pseudo_channel);
  }
  // The phase sampler reads the core's counters at its boundaries: the commands before each must
  // have run (schedule() lets the core fall behind). An idle core is left as it is, as it is when
  // awake (its refreshes are replayed when work arrives).
  ctx.phases.add_catch_up([this](std::uint64_t before_ps) {
    if (core_.has_work()) catch_up_before(before_ps);
  });
  SC_HAS_PROCESS(DramController);
  SC_METHOD(behaviour);
  sensitive << wake_.event();
  dont_initialize();
}

unsigned DramController::bursts_of(const Payload& p, dram::Coord* out) const {
  const auto [first, last] = burst_span(ext_of(p));
  unsigned n = 0;
  for (std::uint64_t b = first; b <= last; ++b) {
    const dram::DramAddress d = mapping_.decode(b * burst_bytes_);
    dram::Coord& c = out[n++];
    c.rank = static_cast<std::uint16_t>(d.rank);
    c.bank_group = static_cast<std::uint16_t>(d.bank_group);
    c.bank = static_cast<std::uint16_t>(d.bank);
    c.row = d.row;
    c.column = d.column;
  }
  return n;
}

bool DramController::has_room(const Payload& p) const {
  const RequestExt& e = ext_of(p);
  const auto [first, last] = burst_span(e);
  const unsigned n = static_cast<unsigned>(last - first + 1);
  if (n > scratch_.size()) throw std::logic_error("request larger than the payload pool's data");
  if (e.write && params_.posted_writes && posted_.full()) return false;
  // An atomic is a read of its word's burst and a write-back of it.
  if (e.atomic != AtomicOp::kNone) return core_.has_room(false, n) && core_.has_room(true, n);
  return core_.has_room(e.write, n);
}

void DramController::accept(Payload& p, std::uint64_t now) {
  RequestExt& e = ext_of(p);
  const unsigned len = e.length;
  if (params_.backing_store) {
    // Arrival order: a read sees every earlier write, an atomic every earlier access.
    if (e.atomic != AtomicOp::kNone) {
      execute_atomic(store_, e.channel_address, e, p.get_data_ptr());
    } else if (e.write) {
      store_.write(e.channel_address, p.get_data_ptr(), len);
    } else {
      store_.read(e.channel_address, p.get_data_ptr(), len);
    }
  }
  p.set_response_status(tlm::TLM_OK_RESPONSE);
  // has_room() has checked the request against the queues; the payload pool bounds its size
  // (scratch_ holds the bursts of the largest payload).
  const unsigned n = bursts_of(p, scratch_.data());
  const std::uint64_t cycle = cycle_after(now);
  catch_up(cycle);
  const bool posted = e.write && params_.posted_writes;
  // Service starts at the request's first DRAM command (set when it completes); a posted write is
  // answered on acceptance, so for its requester its service starts (and ends) now. The service
  // start and the id sit in a payload line no hop touches, which with thousands of requests in
  // flight costs a cache miss at each touch (famsim bench, callgrind --cache-sim): written and
  // read here only when needed.
  if (posted) e.service_start_ps = now;
  ++answers_owed_;
  // DRAM work that answers nobody: the transaction log waits for its completion
  // (memory_done()) to write the request's memory_done_ps. Nothing to do without the log.
  if ((posted || e.atomic != AtomicOp::kNone) && transactions_.enabled()) {
    transactions_.expect_memory_done(e.id);
  }
  const std::uint64_t id = core_.keeps_request_ids() ? e.id : dram::kNoRequest;
  core_.enqueue(posted ? nullptr : &p, e.write, scratch_.data(), n, cycle, id);
  if (e.atomic != AtomicOp::kNone) {
    // The write-back, answered by nobody: the atomic's answer is its read (the old value).
    core_.enqueue(nullptr, true, scratch_.data(), n, cycle, id);
    ++atomic_count_;
  }
  if (e.write) {
    ++write_count_;
    write_bytes_ += len;
  } else {
    ++read_count_;
    read_bytes_ += len;
  }
  if (posted) posted_.push_back({&p, now});
  core_next_ = std::min(core_next_, core_.next_decision(cycle));
}

Sync DramController::fw(unsigned, Payload& p, Phase& phase, sc_core::sc_time&) {
  const std::uint64_t now = now_ps();
  if (phase == tlm::BEGIN_REQ) {
    ext_of(p).enter(block_id(), 0, now);
    // The queues as they stand after every command up to this instant, including one due at it:
    // a column command frees its entry as it issues, so a request arriving at that instant sees
    // the room whether this block's own wake-up for the command ran before the arrival or not.
    catch_up(cycle_after(now));
    if (!has_room(p)) {
      if (log().enabled(LogLevel::kDebug)) {
        log().write(LogLevel::kDebug, "queue full: holding request " +
                                          std::to_string(ext_of(p).id) + " at " +
                                          std::to_string(now) + " ps");
      }
      const Sync held = hold_.hold(p, now);
      schedule(now);  // a held request needs the block awake at every command that may free room
      return held;
    }
    accept(p, now);
    schedule(now);
    return accept_now(p, phase, tlm::END_REQ);
  }
  if (phase == tlm::END_RESP) {
    upstream_busy_ = false;
    wake_.asap();
    return tlm::TLM_ACCEPTED;
  }
  protocol_error(name(), phase, "its port");
}

void DramController::start_of_simulation() {
  if (transactions_.enabled()) core_.set_untagged_done(&DramController::memory_done, this);
}

void DramController::memory_done(void* self, std::uint64_t id, std::uint64_t first_command,
                                 std::uint64_t done) {
  auto* c = static_cast<DramController*>(self);
  c->transactions_.memory_done(id, c->ps_of(first_command), c->ps_of(done));
}

void DramController::catch_up(std::uint64_t cycle) {
  if (core_next_ < cycle) core_next_ = core_.run_until(core_next_, cycle);
}

void DramController::catch_up_before(std::uint64_t t_ps) {
  if (t_ps > 0) catch_up(cycle_after(t_ps - 1));
}

void DramController::schedule(std::uint64_t now) {
  // The core's commands change nothing outside this block until an answer falls due or room
  // frees for a held request, and everything that reads the core first brings it up to its own
  // time (catch_up(): an arrival, the phase sampler, the end of the run). So while a request
  // waits for its answer and none is held, the block sleeps until the earliest cycle an answer
  // can come: a command at core_next_ at the soonest, plus the shortest command-to-data delay.
  // Otherwise (a held request, or only posted writes queued) it runs every command when due. An
  // idle core is not woken for refreshes; catch_up() replays them when work arrives.
  std::uint64_t at = Wakeup::kNever;
  if (core_next_ != dram::ControllerCore::kNever && core_.has_work()) {
    at = hold_.empty() && core_.tagged_in_flight() > 0
             ? ps_of(core_next_ + core_.min_completion_delay())
             : ps_of(core_next_);
  }
  if (!upstream_busy_) {
    if (!posted_.empty()) at = std::min(at, std::max(posted_.front().ready_ps, now));
    const std::uint64_t c = core_.next_completion();
    if (c != dram::ControllerCore::kNever) at = std::min(at, std::max(ps_of(c), now));
  }
  if (at != Wakeup::kNever) wake_.at(at, now);
}

void DramController::respond(Payload& p, std::uint64_t ready_ps, std::uint64_t now) {
  HopRecord& h = ext_of(p).resp_enter(ready_ps);
  (ext_of(p).write ? write_latency_ : read_latency_).add_ps(now - h.req_in_ps());
  --answers_owed_;
  upstream_busy_ = !up.send_resp(p);
  p.release();
}

void DramController::behaviour() {
  wake_.fired();
  const std::uint64_t now = famsim::now_ps();

  catch_up(cycle_after(now));
  // Answers, oldest ready first: posted writes (ready on acceptance) and finished requests. A
  // request that finishes at the instant a write is accepted goes first: its time was known
  // before that instant, the write's only from its arrival, so either order of the instant's
  // events sends them in this order.
  while (!upstream_busy_) {
    const std::uint64_t c = core_.next_completion();
    const std::uint64_t done_ps = c == dram::ControllerCore::kNever ? Wakeup::kNever : ps_of(c);
    const bool have_posted = !posted_.empty() && posted_.front().ready_ps <= now;
    if (have_posted && (done_ps > now || posted_.front().ready_ps < done_ps)) {
      const Posted w = posted_.front();
      posted_.pop_front();
      respond(*w.payload, w.ready_ps, now);
    } else if (done_ps <= now) {
      bool write = false;
      std::uint64_t arrival = 0, first_command = 0;
      Payload* p = static_cast<Payload*>(core_.pop_completion(write, arrival, first_command));
      // Until its first command the request waited in the queue (behind other requests, a
      // refresh or a timing constraint), not in service; without one, from its arrival.
      ext_of(*p).service_start_ps =
          ps_of(first_command != dram::ControllerCore::kNever ? first_command : arrival);
      respond(*p, done_ps, now);
    } else {
      break;
    }
  }
  // Queue room may have freed: take the held request if it fits now.
  if (!hold_.empty() && has_room(*hold_.held)) {
    Payload& held = hold_.take(now, backpressure_ps_);
    accept(held, now);
    up.send_end_req(held);
  }
  schedule(now);
}

void DramController::report(ComponentReport& r, const ReportWindow& window) const {
  // The refreshes of an idle tail are replayed by finish(), which the owner calls at the run's
  // end: a report before it would leave them out.
  if (finished_at_ps_ == Wakeup::kNever) {
    throw std::logic_error(fmt::format(
        "{}: report up to {} ps before finish(): call finish({}) first (a device built in one's "
        "own sc_main: ExpansionDevice::finish)",
        name(), window.end_ps, window.end_ps));
  }
  if (finished_at_ps_ != window.end_ps) {
    throw std::logic_error(fmt::format("{}: report up to {} ps, but finish() ran to {} ps", name(),
                                       window.end_ps, finished_at_ps_));
  }
  const dram::Spec& s = params_.spec;
  const std::uint64_t end_cycle = window.end_ps * 1000 / tck_fs_;
  const dram::CoreStats& st = core_.stats();
  const double tck_s = s.timing.tck_ps * 1e-12;
  const std::uint64_t window_cycles =
      static_cast<std::uint64_t>(static_cast<double>(window.duration_ps()) / s.timing.tck_ps);
  const double secs = window.seconds();

  r.bytes = static_cast<double>(read_bytes_ + write_bytes_);
  r.utilization =
      window_cycles ? std::min(1.0, static_cast<double>(st.data_bus_cycles) / window_cycles) : 0.0;
  r.backpressure_ns = static_cast<double>(backpressure_ps_) * 1e-3;
  auto& x = r.extra;
  x["standard"] = to_string(s.standard);
  x["preset"] = s.name;
  const double peak = s.bus_peak_gbps();
  x["peak_bandwidth_gbps"] = peak;
  const double bw = secs > 0 ? (read_bytes_ + write_bytes_) / secs * 1e-9 : 0.0;
  x["bandwidth_gbps"] = bw;
  x["efficiency"] = peak > 0 ? bw / peak : 0.0;
  x["reads"] = read_count_;
  x["writes"] = write_count_;
  x["atomics"] = atomic_count_;  // also counted in reads
  x["read_bytes"] = read_bytes_;
  x["write_bytes"] = write_bytes_;
  x["read_latency_ns"] = read_latency_.to_json();
  x["write_latency_ns"] = write_latency_.to_json();
  const std::uint64_t bursts = st.row_hits + st.row_misses + st.row_conflicts;
  auto rate = [&](std::uint64_t v) { return bursts ? static_cast<double>(v) / bursts : 0.0; };
  x["row_hit_rate"] = rate(st.row_hits);
  x["row_miss_rate"] = rate(st.row_misses);
  x["row_conflict_rate"] = rate(st.row_conflicts);
  nlohmann::json cmds = nlohmann::json::object();
  for (unsigned c = 0; c < st.commands.size(); ++c) {
    cmds[dram::to_string(static_cast<dram::Command>(c))] = st.commands[c];
  }
  x["commands"] = cmds;
  x["refreshes_postponed"] = st.refreshes_postponed;
  nlohmann::json open = nlohmann::json::array();
  for (std::uint64_t v : st.bank_open_cycles) {
    open.push_back(window_cycles ? std::min(1.0, static_cast<double>(v) / window_cycles) : 0.0);
  }
  x["bank_open_fraction"] = open;
  // The controller counts time in DRAM clock cycles: its queues' window is in cycles too.
  const ReportWindow cycles{window.start_ps * 1000 / tck_fs_, end_cycle};
  x["read_queue"] = st.read_queue.to_json(cycles);
  x["write_queue"] = st.write_queue.to_json(cycles);
  // Resources: the data bus (the channel's peak bandwidth) and the two scheduler queues.
  ResourceUse bus;
  bus.name = "data bus";
  bus.utilization = r.utilization;
  bus.capacity = peak;
  bus.used = bw;
  bus.backpressure_ns = r.backpressure_ns;
  bus.available = refresh_available();
  const Activates acts = activates(bursts);
  const std::string blp = bank_parallelism(x, cycles, acts);
  // fcfs gives commands to the direction's oldest burst alone: a full queue there is bursts
  // waiting their turn, and more entries serve none sooner (a review's fcfs run was asked for
  // hundreds more slots, which changed nothing).
  const bool in_order = params_.core.scheduler == "fcfs";
  auto queue = [&](const char* name, const OccupancyGauge& g, std::uint64_t requests) {
    if (requests == 0) return;
    r.resources.push_back(slot_pool(name, g, cycles));
    ResourceUse& u = r.resources.back();
    if (!in_order) {
      u.advice = blp;
      return;
    }
    u.more_slots_help = false;
    u.advice =
        "The fcfs scheduler gives commands to the oldest burst of the direction alone, so one "
        "bank works at a time: each burst's activate, access and precharge run in turn, with no "
        "other bank's overlapping them, and more queue entries only hold more bursts waiting. A "
        "reordering scheduler (frfcfs) overlaps the banks' row cycles.";
  };
  if (read_count_ + write_count_ > 0) r.resources.push_back(std::move(bus));
  queue("read queue", st.read_queue, read_count_);
  queue("write queue", st.write_queue, write_count_);
  activate_rates(r, window_cycles, secs, acts);
  column_rate(r, window_cycles, secs);
  // Energy: per-command energies plus background power over the whole simulated time from 0 (the
  // DRAM draws background power and refreshes before the first request too; dram_spec.h and the
  // preset file for the sources).
  const dram::Energy& en = s.energy;
  using dram::Command;
  auto n = [&](Command c) { return static_cast<double>(st.commands[static_cast<unsigned>(c)]); };
  const double cmd_pj =
      n(Command::kACT) * en.act_pre_pj + (n(Command::kRD) + n(Command::kRDA)) * en.read_pj +
      (n(Command::kWR) + n(Command::kWRA)) * en.write_pj + n(Command::kREFab) * en.refresh_ab_pj +
      (n(Command::kREFpb) + n(Command::kREFsb)) * en.refresh_pb_pj;
  double background_pj = 0;
  for (std::uint64_t active : st.rank_active_cycles) {
    const double total = static_cast<double>(end_cycle);
    const double act = std::min(static_cast<double>(active), total);
    // mW x s = mJ = 1e9 pJ
    background_pj +=
        (act * en.background_active_mw + (total - act) * en.background_precharged_mw) * tck_s * 1e9;
  }
  const double total_pj = cmd_pj + background_pj;
  const double bits = static_cast<double>(read_bytes_ + write_bytes_) * 8;
  x["energy"] = {{"command_pj", cmd_pj},
                 {"background_pj", background_pj},
                 {"total_pj", total_pj},
                 {"pj_per_bit", bits > 0 ? total_pj / bits : 0.0},
                 {"average_power_mw",
                  end_cycle ? total_pj / (static_cast<double>(end_cycle) * tck_s) * 1e-9 : 0.0}};
  x["stored_pages"] = store_.pages();
  x["stored_page_bytes"] = BackingStore::kPageBytes;
  if (log().enabled(LogLevel::kInfo)) {
    log().write(LogLevel::kInfo,
                fmt::format("{:.2f} GB/s ({:.1f} % of peak), row hits {:.1f} %, conflicts "
                            "{:.1f} %, {} refreshes, {:.1f} pJ/bit",
                            bw, 100.0 * x["efficiency"].get<double>(), 100.0 * rate(st.row_hits),
                            100.0 * rate(st.row_conflicts),
                            st.commands[static_cast<unsigned>(dram::Command::kREFab)] +
                                st.commands[static_cast<unsigned>(dram::Command::kREFpb)] +
                                st.commands[static_cast<unsigned>(dram::Command::kREFsb)],
                            bits > 0 ? total_pj / bits : 0.0));
  }
}

// Per rank, ACTs are at least tRRD_S apart (tRRD_L without bank groups) and at most four fall in
// any tFAW window (JESD79-4 / JESD79-5 / JESD235 "tFAW"), so a rank issues at most one ACT per
// max(tRRD_S, tFAW / 4).
DramController::Activates DramController::activates(std::uint64_t bursts) const {
  Activates a;
  for (std::uint64_t n : core_.stats().bank_activates) a.count += n;
  if (a.count) a.bursts_per_act = static_cast<double>(bursts) / static_cast<double>(a.count);
  a.rank_spacing_ck = rank_act_spacing_ck();
  return a;
}

std::uint64_t DramController::rank_activates(unsigned k) const {
  const unsigned banks = params_.spec.org.banks();
  const auto& acts = core_.stats().bank_activates;
  std::uint64_t n = 0;
  for (unsigned b = k * banks; b < (k + 1) * banks; ++b) n += acts[b];
  return n;
}

double DramController::rank_act_spacing_ck() const {
  const dram::Timing& t = params_.spec.timing;
  const unsigned rrd = params_.spec.org.bank_groups > 1 ? t.RRD_S : std::max(t.RRD_S, t.RRD_L);
  return std::max(static_cast<double>(rrd), t.FAW / 4.0);
}

double DramController::refresh_available() const {
  // All-bank refresh keeps the ranks' banks closed for tRFC every tREFI, and the ranks of a
  // channel refresh together (README "DRAM": no staggering): the bus carries no data then. Per-bank
  // refresh keeps the other banks working.
  const dram::Timing& t = params_.spec.timing;
  if (params_.core.refresh != dram::RefreshMode::kAllBank || t.REFI == 0) return 1.0;
  return std::max(0.0, 1.0 - static_cast<double>(t.RFC) / static_cast<double>(t.REFI));
}

// The data bus, the queues and each rank's activate rate (report()); not the busiest bank's
// activate rate, which is a different bank from one span to the next.
void DramController::probes(std::vector<ResourceProbe>& out) const {
  const dram::Spec& s = params_.spec;
  const dram::CoreStats* st = &core_.stats();
  const double tck_ps = s.timing.tck_ps;
  ResourceProbe bus;
  bus.use.name = "data bus";
  bus.use.capacity = s.bus_peak_gbps();
  bus.use.available = refresh_available();
  bus.counter = &st->data_bus_cycles;
  bus.scale = tck_ps;
  out.push_back(std::move(bus));
  out.push_back(pool_probe("read queue", st->read_queue, tck_fs_));
  out.push_back(pool_probe("write queue", st->write_queue, tck_fs_));
  const double spacing_ck = rank_act_spacing_ck();
  for (unsigned k = 0; k < s.org.ranks; ++k) {
    ResourceProbe u;
    u.use.name = fmt::format("activate rate (rank {}, tRRD/tFAW)", k);
    u.use.unit = "M ACT/s";
    u.use.capacity = 1e3 / (spacing_ck * s.timing.tck_ns());
    u.use.available = refresh_available();
    if (s.org.ranks == 1) {
      // The rank's ACTs are the channel's, which the command counts hold: the phase sampler
      // reads that counter instead of calling a function that sums every bank's at each sample
      // (nvl8_fam: about 1,300 local HBM3 pseudo-channels of one rank and 32 banks, mostly
      // idle; the sums were 0.1 % of famsim bench's instructions).
      u.counter = &st->commands[static_cast<unsigned>(dram::Command::kACT)];
    } else {
      u.work = [this, k](std::uint64_t) { return rank_activates(k); };
    }
    u.scale = spacing_ck * tck_ps;  // an ACT takes the rank for its spacing
    out.push_back(std::move(u));
  }
}

// Row activations as servers: a channel moves data only as fast as it can open rows, and a run
// of row conflicts can be bound by the activate rate while the data bus idles. A rank issues at
// most one ACT per rank_spacing_ck (activates()); a bank one per tRC (ACT to ACT, same bank).
// Utilisation: ACTs x that spacing over the window. Refresh takes tRFC of every tREFI on top (why
// a saturated server reads below 100 %, kSaturated). The busiest bank stands for all the
// channel's banks: one bank taking most activates is the case to name; listing every bank would
// bury the ranking.
void DramController::activate_rates(ComponentReport& r, std::uint64_t window_cycles, double secs,
                                    const Activates& a) const {
  const dram::Spec& s = params_.spec;
  const dram::CoreStats& st = core_.stats();
  if (window_cycles == 0 || secs <= 0 || a.count == 0) return;
  const double cycles = static_cast<double>(window_cycles);
  const double tck_ns = s.timing.tck_ns();
  const double rank_spacing = a.rank_spacing_ck;
  const double bursts_per_act = a.bursts_per_act;
  auto rate = [&](const std::string& name, std::uint64_t n, double spacing_ck, std::string advice) {
    ResourceUse u;
    u.name = name;
    u.unit = "M ACT/s";
    u.utilization = std::min(1.0, static_cast<double>(n) * spacing_ck / cycles);
    u.capacity = 1e3 / (spacing_ck * tck_ns);
    u.used = static_cast<double>(n) / secs * 1e-6;
    u.advice = std::move(advice);
    u.available = refresh_available();  // no ACT while a refresh holds the banks
    r.resources.push_back(std::move(u));
  };
  // What the address mapping does to a request's bursts: with the bank group (or bank) as the
  // lowest field, consecutive bursts go to different groups, so a request of several bursts
  // opens a row per burst, and random accesses move one burst per activate whatever the
  // request size (the architecture audit of 2026-12-04 found that mapping, not the DRAM type,
  // set HBM3's and LPDDR5X's random-read figures).
  // The order without the channel field, which the device's interleave decides (appended
  // lowest unless the order places it).
  std::string order = mapping_.order();
  for (std::size_t at; (at = order.find("Ch")) != std::string::npos;) order.erase(at, 2);
  const std::string lowest = order.size() >= 2 ? order.substr(order.size() - 2) : order;
  // Said only when requests did span several bursts: for one-burst requests (a 64 B trace) no
  // order keeps more of a request in a row.
  const bool several_bursts = st.read_bursts + st.write_bursts > read_count_ + write_count_;
  const std::string spread =
      several_bursts && (lowest == "Bg" || lowest == "Ba")
          ? fmt::format(
                " The address mapping ({}) puts consecutive {} B bursts in different {}s, so a "
                "request of several bursts opens a row for each; an order with the column "
                "lowest (such as RoRaBgBaCo) keeps a request's bursts in one row.",
                order, burst_bytes_, lowest == "Bg" ? "bank group" : "bank")
          : std::string();
  for (unsigned k = 0; k < s.org.ranks; ++k) {
    const std::uint64_t n = rank_activates(k);
    if (n == 0) continue;
    rate(fmt::format("activate rate (rank {}, tRRD/tFAW)", k), n, rank_spacing,
         fmt::format("Row activations bind it: a rank may activate a row once per {:.2f} ns "
                     "(tRRD and tFAW), and this run moved {:.2f} bursts per activate. More banks "
                     "do not help; more row hits per activate (larger or more local accesses, "
                     "an address mapping that keeps a stream in one row) or more ranks or "
                     "channels do.{}",
                     rank_spacing * tck_ns, bursts_per_act, spread));
  }
  const auto hot = std::max_element(st.bank_activates.begin(), st.bank_activates.end());
  rate("activate rate (busiest bank, tRC)", *hot, s.timing.RC,
       fmt::format("One bank takes the activates: a bank may activate a row once per tRC "
                   "({:.2f} ns). Spread the accesses over banks (address mapping, xor_bank) or "
                   "raise the row hit rate.",
                   s.timing.RC * tck_ns));
  r.resources.back().whole_run_only = true;
}

// A bank group as a server of column commands: one per tCCD_L (reads) or tCCD_L_WR (writes) in
// the same group, however many banks it has, where different groups only need tCCD_S (which the
// data bus resource covers: tCCD_S = tBL). Traffic that keeps to one group (an address mapping
// with the bank group bits high, strided accesses) is bound here with the data bus short of full:
// DDR5-4800 reads in one group move at most tBL / tCCD_L = 8 / 12 of the bus. The busiest group
// stands for all, as the busiest bank does for tRC: the busiest of each span of 64 tCCD_L
// (ControllerCore::kGroupSpanCcd), so that a stream keeping to one group at a time and moving on
// shows as the group it is in.
void DramController::column_rate(ComponentReport& r, std::uint64_t window_cycles,
                                 double secs) const {
  const dram::Spec& s = params_.spec;
  const dram::CoreStats& st = core_.stats();
  if (window_cycles == 0 || secs <= 0) return;
  const double hot_ck = static_cast<double>(st.busiest_group_ck);
  if (hot_ck == 0) return;
  const double bursts = static_cast<double>(st.busiest_group_bursts);
  ResourceUse u;
  u.name = "column rate (busiest bank group, tCCD_L)";
  u.unit = "M bursts/s";
  u.utilization = std::min(1.0, hot_ck / static_cast<double>(window_cycles));
  // At this group's mix of reads and writes.
  u.capacity = bursts / hot_ck * 1e3 / s.timing.tck_ns();
  u.used = bursts / secs * 1e-6;
  u.advice = fmt::format(
      "One bank group takes the bursts: a group may take a column command once per tCCD_L ({:.2f} "
      "ns; writes tCCD_L_WR, {:.2f} ns), where different groups need only tCCD_S ({:.2f} ns). "
      "Spread consecutive accesses over bank groups (bank group bits low in the address mapping, "
      "xor_bank).",
      s.timing.CCD_L * s.timing.tck_ns(), s.timing.CCD_L_WR * s.timing.tck_ns(),
      s.timing.CCD_S * s.timing.tck_ns());
  u.available = refresh_available();  // no column command while a refresh holds the banks
  u.whole_run_only = true;
  r.resources.push_back(std::move(u));
}

// Bank-level parallelism (CoreStats::busy_banks): how many banks had bursts queued at once while
// any had. A full queue with the data bus and the activate rates short of saturation can mean the
// channel serves its queue no faster because the queued bursts sit in too few banks. A bank moves
// bursts_per_act x tBL of data per row cycle, which lasts the longest of tRC (ACT to ACT), its
// bursts at tCCD_L apart (same bank group), and for writes ACT, tRCD, the data (CWL + tBL), write
// recovery tWR and tRP (JESD79-4 / JESD79-5 timing): keeping the data bus busy takes row cycle /
// (bursts_per_act x tBL) banks with work at once (the read and write cycles weighted by their
// bursts). The ranks' activate rate caps how many banks can be in row cycles at once: one ACT per
// rank spacing (activates()) per rank, so ranks x row cycle / that spacing. Says what follows as
// the queues' advice (empty when no row was opened: row hits are bound by the bus, not by banks).
std::string DramController::bank_parallelism(nlohmann::json& x, const ReportWindow& cycles,
                                             const Activates& a) const {
  const dram::Spec& s = params_.spec;
  const dram::Timing& t = s.timing;
  const dram::CoreStats& st = core_.stats();
  const std::uint64_t banks = st.busy_banks.capacity();
  // Both integrals run to the gauges' last change (posted writes drain after the last answer),
  // so their ratio is exact whatever the window.
  const std::uint64_t work_cycles = st.bank_work.integral_to(cycles.end_ps);
  const double mean = work_cycles ? static_cast<double>(st.busy_banks.integral_to(cycles.end_ps)) /
                                        static_cast<double>(work_cycles)
                                  : 0.0;
  const std::uint64_t acts = a.count;
  const double bpa = a.bursts_per_act;
  const bool groups = s.org.bank_groups > 1;
  const double ccd_rd = groups ? t.CCD_L : std::max(t.CCD_S, t.CCD_L);
  const double ccd_wr = std::max(ccd_rd, static_cast<double>(t.CCD_L_WR));
  const double cycle_rd = std::max(static_cast<double>(t.RC), bpa * ccd_rd);
  const double cycle_wr =
      std::max({static_cast<double>(t.RC),
                static_cast<double>(t.RCD_WR + t.CWL + t.burst + t.WR + t.RP), bpa * ccd_wr});
  const double rd = static_cast<double>(st.read_bursts), wr = static_cast<double>(st.write_bursts);
  const double cycle = rd + wr > 0 ? (rd * cycle_rd + wr * cycle_wr) / (rd + wr) : cycle_rd;
  const double needed = acts ? cycle / (bpa * t.burst) : 0.0;
  const double cap = std::min(static_cast<double>(banks), s.org.ranks * cycle / a.rank_spacing_ck);
  const double tck_ns = t.tck_ns();
  x["bank_parallelism"] = {{"banks", banks},
                           {"mean_while_busy", mean},
                           {"max", st.busy_banks.max()},
                           {"busy_fraction", st.bank_work.mean(cycles)},
                           {"row_cycle_ns", acts ? cycle * tck_ns : 0.0},
                           {"banks_to_fill_data_bus", needed},
                           {"banks_in_row_cycles_max", acts ? cap : 0.0}};
  if (acts == 0) return {};
  std::string verdict = ".";
  // The queues hold the bursts the scheduler can choose from: no more banks than that can have
  // work at once, whatever the mapping. Queues that were that full and hold fewer bursts than the
  // banks the data bus needs bound the parallelism themselves.
  const double queued = static_cast<double>(params_.core.read_queue) +
                        (wr > 0 ? static_cast<double>(params_.core.write_queue) : 0.0);
  const double reach = std::min({queued, static_cast<double>(banks), cap});
  if (queued < std::min(needed, cap) && mean >= 0.8 * reach) {
    verdict = fmt::format(
        ": its queues hold {:.0f} bursts ({}), so no more than that many banks can have work at "
        "once, and they were that full. Deeper queues (read_queue{}) let the scheduler reach "
        "more banks, up to the {:.1f} the data bus needs.",
        queued, wr > 0 ? "read and write queues" : "the read queue", wr > 0 ? ", write_queue" : "",
        std::min(needed, cap));
  } else if (mean < 0.9 * std::min(needed, cap)) {
    verdict =
        ": the accesses sit in too few banks. An address mapping that spreads them over banks "
        "and bank groups (interleave, xor_bank) raises the channel's throughput";
    verdict += needed > cap ? fmt::format(
                                  ", up to the {:.1f} banks in row cycles at once that the "
                                  "banks and the ranks' activate rate (tRRD, tFAW) allow, still "
                                  "short of the data bus at this row-hit rate.",
                                  cap)
                            : ".";
  } else if (needed > cap) {
    verdict = fmt::format(
        ", more than the {:.1f} the channel can keep in row cycles at once ({} banks, and the "
        "ranks' activate rate, tRRD and tFAW): at this row-hit rate row cycles, not the data bus, "
        "bound the channel. More row hits per activate (larger or more local accesses) or more "
        "channels raise it.",
        cap, banks);
  }
  return fmt::format(
      "Its bursts waited on {:.1f} of the channel's {} banks at a time on average (bank-level "
      "parallelism). At {:.2f} bursts per activate a bank moves {:.2f} ns of data per {:.2f} ns "
      "row cycle, so keeping the data bus busy takes about {:.1f} banks with work at once{}",
      mean, banks, bpa, bpa * t.burst * tck_ns, cycle * tck_ns, needed, verdict);
}

void DramController::finish(std::uint64_t end_ps) {
  // Replay the refreshes an idle tail left unwoken, so the command log and the refresh count
  // cover the whole run.
  const std::uint64_t end_cycle = end_ps * 1000 / tck_fs_;
  if (!core_.has_work()) {
    catch_up(end_cycle + 1);
  } else {
    // A run cut off by sim.max_time_ns with work queued: the commands before the end (no event
    // runs at it), which a controller asleep until an answer could fall due has not run yet.
    catch_up_before(end_ps);
  }
  core_.finish_stats(end_cycle);
  if (log_ && log_->is_open()) {
    // A write that failed (a full disk, a quota) leaves the stream bad and the log short of the
    // commands after it, which the timing checker would read as the whole run. The last of them
    // are only written out by the close, so its result counts as well.
    core_.set_command_log(nullptr, params_.channel, params_.pseudo_channel);
    log_->close();
    if (!*log_) {
      throw std::runtime_error("cannot write DRAM command log " + params_.command_log + ": " +
                               std::strerror(errno));
    }
  }
  finished_at_ps_ = end_ps;
}

std::size_t DramController::occupancy() const { return answers_owed_ + (hold_.empty() ? 0 : 1); }

}  // namespace famsim
