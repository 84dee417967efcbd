#include "traffic/trace_player.h"

#include "traffic/pattern.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

namespace famsim {

TracePlayer::TracePlayer(sc_core::sc_module_name name, SimContext& ctx,
                         const TracePlayerParams& params, const AddressMap& channels)
    : sc_core::sc_module(name),
      Component(ctx.registry, this->name(), BlockKind::kTracePlayer),
      Initiator(&ctx.memories),
      ctx_(ctx),
      params_(params),
      clock_(params.clock_mhz),
      channels_(channels),
      reader_(params.file, params.format),
      port_ready_ps_(channels.channels(), 0),
      completions_(params.max_outstanding),
      wake_("wake", ctx.scheduler(), this, &Wakeup::call_behaviour<TracePlayer>),
      outstanding_(params.max_outstanding) {
  for (unsigned c = 0; c < channels.channels(); ++c) {
    ports_.push_back(std::make_unique<InitiatorPort<TracePlayer>>(
        ("port" + std::to_string(c)).c_str(), *this, c));
  }
  SC_HAS_PROCESS(TracePlayer);
  SC_METHOD(behaviour);
  sensitive << wake_.event();
  // Runs once at initialisation: reads the first line and starts.
}

void TracePlayer::read_next() {
  try {
    have_next_ = reader_.next(next_);
  } catch (const TraceError& e) {
    // A bad line is an input error: the run stops and reports it (exit code 2).
    have_next_ = false;
    exhausted_ = true;
    if (!ctx_.input_error) ctx_.input_error = e.what();
    ctx_.stop();
    return;
  }
  if (!have_next_) {
    exhausted_ = true;
    return;
  }
  if (next_.has_time) {
    // The line's time (or .rstl delay) in ps; past the longest simulated time it is an input
    // error naming the line, not a product that wraps 64 bits or a wake-up the scheduler refuses.
    // Closed loop ignores the times, but a time famsim cannot represent is no valid trace in
    // either mode (README "DRAM").
    std::uint64_t time_ps = 0;
    if (__builtin_mul_overflow(next_.time, clock_.period_ps(), &time_ps) ||
        time_ps > kMaxSimTimePs) {
      input_error(std::to_string(next_.time) + " cycles of " + std::to_string(clock_.period_ps()) +
                  " ps is past 2^48 ps (281 s), the longest famsim represents; expected a " +
                  "timestamp below " + std::to_string(kMaxSimTimePs / clock_.period_ps() + 1) +
                  " cycles" +
                  (params_.open_loop ? ", less the time its request takes to complete" : ""));
      return;
    }
    if (!params_.open_loop) {
      // .rstl delays add up (open loop adds the requests' latencies too, see complete()): past
      // 2^48 ps the trace asks for a time famsim cannot represent, whatever the mode.
      if (next_.relative_time) {
        closed_delays_ps_ += time_ps;  // each below 2^48: the sum cannot wrap
        if (closed_delays_ps_ > kMaxSimTimePs) {
          input_error(fmt::format(
              "the delays up to this line add up to {} ps ({:.6g} s), past 2^48 ps (281 s), the "
              "longest famsim represents; expected delays that add up to at most {} ps",
              closed_delays_ps_, static_cast<double>(closed_delays_ps_) * 1e-12, kMaxSimTimePs));
        }
      }
      return;
    }
    if (!next_.relative_time) {
      next_start_ps_ = time_ps;
      start_line_ = reader_.line();
    } else if (issued() == 0) {
      next_start_ps_ = time_ps;  // .rstl: the first delay counts from 0
      start_line_ = reader_.line();
    }
  }
}

void TracePlayer::input_error(const std::string& what) {
  have_next_ = false;
  exhausted_ = true;
  if (!ctx_.input_error) {
    ctx_.input_error = params_.file + ":" + std::to_string(reader_.line()) + ": " + what;
  }
  ctx_.stop();
}

std::optional<std::string> TracePlayer::time_limit_error() const {
  if (start_line_ == 0) return std::nullopt;
  return fmt::format(
      "{}:{}: simulated time would pass 2^48 ps (281 s), the longest famsim represents, before "
      "the request on this line, at {} ps ({:.6g} s), completed; expected a time that leaves its "
      "request room to complete before 2^48 ps",
      params_.file, start_line_, next_start_ps_, static_cast<double>(next_start_ps_) * 1e-12);
}

Sync TracePlayer::bw(unsigned port, Payload& p, Phase& phase, sc_core::sc_time&) {
  const std::uint64_t now = now_ps();
  if (phase == tlm::BEGIN_RESP) {
    ext_of(p).resp_enter(now);
    completions_.push_back(&p);
    wake_.at(clock_.edge_after_ps(now), now);
    return accept_now(p, phase, tlm::END_RESP);
  }
  if (phase == tlm::END_REQ) {
    port_ready_ps_[port] = clock_.edge_after_ps(now);
    wake_.at(port_ready_ps_[port], now);
    return tlm::TLM_ACCEPTED;
  }
  protocol_error(name(), phase, "a trace player port");
}

void TracePlayer::complete(Payload& p, std::uint64_t now) {
  RequestExt& e = ext_of(p);
  const std::uint64_t arrived = e.hops[0].resp_in_ps();
  if (!e.outstanding) {
    count_duplicate_response();
    p.release();
    return;
  }
  e.outstanding = false;
  const std::size_t memory = count_completion(TargetClass::kStandaloneMemory, e.write,
                                              e.physical_address, e.length, arrived - e.issue_ps);
  count_response(e.length, p.get_response_status() == tlm::TLM_OK_RESPONSE, arrived);
  ctx_.record_completion(e, arrived, p.get_response_status(), memory, p.get_data_ptr());
  outstanding_.set(outstanding_.level() - 1, now);
  // .rstl: the next request's delay counts from this completion. Each delay is below 2^48 ps
  // (read_next), their sum need not be: past it, the line that got there is the input error, not
  // a wake-up the scheduler refuses.
  if (params_.open_loop && have_next_ && next_.relative_time) {
    const std::uint64_t completed_ps = clock_.edge_ps(arrived);
    next_start_ps_ = completed_ps + next_.time * clock_.period_ps();
    start_line_ = reader_.line();
    if (next_start_ps_ > kMaxSimTimePs) {
      input_error(fmt::format(
          "a delay of {} cycles of {} ps after the previous request completed at {} ps puts this "
          "request at {} ps ({:.6g} s), past 2^48 ps (281 s), the longest famsim represents; "
          "expected delays that, with the requests' latencies, add up to at most {} ps",
          next_.time, clock_.period_ps(), completed_ps, next_start_ps_,
          static_cast<double>(next_start_ps_) * 1e-12, kMaxSimTimePs));
    }
  }
  p.release();
}

void TracePlayer::behaviour() {
  wake_.fired();
  const std::uint64_t now = famsim::now_ps();
  const std::uint64_t edge = clock_.edge_ps(now);
  if (edge != now || edge == last_edge_) {
    wake_.at(edge != now ? edge : edge + clock_.period_ps(), now);
    return;
  }
  last_edge_ = edge;
  if (!have_next_ && !exhausted_) read_next();  // the first line
  // Completions that arrived before this edge.
  while (!completions_.empty() && ext_of(*completions_.front()).hops[0].resp_in_ps() < now) {
    Payload* p = completions_.front();
    completions_.pop_front();
    complete(*p, now);
  }
  std::uint64_t next = Wakeup::kNever;
  if (!completions_.empty()) next = now + clock_.period_ps();

  // One request per cycle.
  if (have_next_ && outstanding_.level() < params_.max_outstanding) {
    const bool waits_for_completion =
        params_.open_loop && next_.relative_time && outstanding_.level() > 0;
    const std::uint64_t start = params_.open_loop ? next_start_ps_ : 0;
    std::uint64_t addr = next_.address;
    if (params_.capacity_bytes) addr %= params_.capacity_bytes;
    const unsigned len = next_.length ? next_.length : params_.request_bytes;
    if (len > ctx_.pool.max_data_bytes()) {
      // A request larger than the payloads carry (trace_player.request_bytes sets their size).
      input_error("a " + std::to_string(len) + " B request is larger than trace_player." +
                  "request_bytes (" + std::to_string(ctx_.pool.max_data_bytes()) +
                  " B), the largest request this run carries; raise request_bytes");
      return;
    }
    if (params_.capacity_bytes && len > params_.capacity_bytes - addr) {
      // The address wraps, the access does not: its bytes would run past the last one.
      input_error(fmt::format(
          "the {} B access at {:#x} ({:#x} modulo the memory's {} bytes) runs "
          "past the end of the memory; expected an access that ends within "
          "it (at most {:#x} for {} B)",
          len, next_.address, addr, params_.capacity_bytes, params_.capacity_bytes - len, len));
      return;
    }
    const AddressMap::Decoded d = channels_.decode(addr);
    if (!waits_for_completion && start <= now && port_ready_ps_[d.channel] <= now) {
      Payload& p = ctx_.pool.allocate();
      p.acquire();
      p.set_command(next_.write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
      p.set_address(addr);
      p.set_data_length(len);
      p.set_streaming_width(len);
      // A write carries the pattern GPU streams write by default (traffic/pattern.h, data_seed
      // 1) at its address, not whatever the pooled payload last held: what the memory stores, a
      // later read returns and the transaction log hashes is then a function of the trace alone.
      if (next_.write) fill_pattern(p.get_data_ptr(), len, addr, kTraceDataSeed);
      RequestExt& e = ext_of(p);
      e.id = next_id_++;
      e.physical_address = addr;
      e.virtual_address = addr;
      e.issue_ps = now;
      e.outstanding = true;
      e.write = next_.write;
      e.length = len;
      e.target_class = TargetClass::kStandaloneMemory;
      e.channel = d.channel;
      e.channel_address = d.channel_address;
      e.enter(block_id(), 0, now);
      if (params_.open_loop && next_.has_time) issue_lag_.add(start, clock_.edge_ps(start), now);
      count_issue(len, now);
      outstanding_.set(outstanding_.level() + 1, now);
      port_ready_ps_[d.channel] =
          ports_[d.channel]->send_req(p) ? now + clock_.period_ps() : Wakeup::kNever;
      p.release();
      read_next();
      if (have_next_) next = std::min(next, now + clock_.period_ps());
    } else if (!waits_for_completion) {
      const std::uint64_t ready = std::max(start, port_ready_ps_[d.channel]);
      if (ready != Wakeup::kNever) next = std::min(next, std::max(ready, now + clock_.period_ps()));
    }
  }
  if (next != Wakeup::kNever) wake_.at(clock_.edge_ps(next), now);
}

void TracePlayer::probes(std::vector<ResourceProbe>& out) const {
  out.push_back(pool_probe("outstanding window", outstanding_));
}

void TracePlayer::report(ComponentReport& r, const ReportWindow& window) const {
  const TargetTraffic& t = traffic(TargetClass::kStandaloneMemory);
  r.bytes = static_cast<double>(t.read_bytes + t.write_bytes);
  const double secs = window.seconds();
  // Its limiting resource, as a GPU's: the window of requests in flight.
  r.utilization = outstanding_.mean_fraction(window);
  if (issued() > 0) r.resources.push_back(slot_pool("outstanding window", outstanding_, window));
  r.extra["mean_outstanding"] = outstanding_.mean(window);
  r.backpressure_ns = 0;
  r.extra["trace"] = params_.file;
  r.extra["format"] = to_string(params_.format);
  r.extra["mode"] = params_.open_loop ? "open" : "closed";
  r.extra["requests"] = issued();
  r.extra["bandwidth_gbps"] = secs > 0 ? (t.read_bytes + t.write_bytes) / secs * 1e-9 : 0.0;
  r.extra["read_latency_ns"] = t.read_latency.to_json();
  r.extra["write_latency_ns"] = t.write_latency.to_json();
  if (issue_lag_.requests() > 0) r.extra["issue_lag"] = issue_lag_.to_json();
}

}  // namespace famsim
