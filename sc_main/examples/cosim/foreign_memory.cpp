// famsim's GPUs, fabric and device in front of a memory model of your own (co-simulation, README
// "Co-simulation", "A foreign memory behind famsim's fabric").
//
// MyMemory below stands for the memory you bring: a DRAM simulator written in SystemC/TLM, a
// memory controller's RTL behind a transactor, a team's own model. It knows nothing of famsim: an
// IEEE 1666-2011 approximately timed target (four phases, a payload event queue) with a queue of
// `queue` requests, a data bus of `gbps` GB/s that serves them one after another, and a fixed
// access latency; it keeps the bytes written. The platform file gives the device
// `memory: {model: external}`, so each of its channels is a famsim::TlmMemoryBridge whose `out`
// this sc_main binds to a MyMemory. The run is famsim's own (famsim::Simulation: the platform
// file's workload, its statistics as stats.json), so the fabric, port logic and on-device network
// run against your memory's timing.
//
//   foreign_memory [--platform FILE] [--latency-ns N] [--gbps N] [--queue N] [--stats FILE]
//
//   --platform    a famsim platform file whose devices' memory is model: external, with a
//                 workload (default: external_memory.yaml in this directory, whose path the
//                 build gives as FAMSIM_EXAMPLE_PLATFORM)
//   --latency-ns  MyMemory's access latency (default 40)
//   --gbps        MyMemory's data bus, GB/s per channel (default 32, as external_memory.yaml
//                 states its channel_peak_gbps)
//   --queue       MyMemory's queue, requests (default 16)
//   --stats       where stats.json goes (default foreign_memory.json)
//
// Exit codes: 0 the run's conservation check passed (every request answered once, read data as
// written); 1 it failed; 2 bad input (the message names the file and key).
#include "models/core/config.h"
#include "models/cosim/tlm_memory_bridge.h"
#include "sc_main/simulation.h"

#include <nlohmann/json.hpp>
#include <systemc>
#include <tlm>
#include <tlm_utils/peq_with_cb_and_phase.h>
#include <tlm_utils/simple_target_socket.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#ifndef FAMSIM_EXAMPLE_PLATFORM
#define FAMSIM_EXAMPLE_PLATFORM "external_memory.yaml"
#endif

namespace {

// A memory of your own: requests queue (at most `queue` taken), its data bus moves one request's
// bytes at `gbps`, and each is answered `latency` after its transfer ends. Bytes never written
// read as 0. Kept short for what famsim's TlmMemoryBridge sends (reads and writes of whole
// requests, streaming width = length, no byte enables: tlm_memory_bridge.h); a target for other
// initiators would also answer TLM_IGNORE_COMMAND, byte enables and streaming widths, with error
// statuses for what it does not support.
class MyMemory : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<MyMemory> socket;

  MyMemory(sc_core::sc_module_name name, sc_core::sc_time latency, double gbps, unsigned queue)
      : sc_core::sc_module(name),
        socket("socket"),
        latency_(latency),
        gbps_(gbps),
        queue_(queue),
        peq_(this, &MyMemory::on_phase) {
    socket.register_nb_transport_fw(this, &MyMemory::nb_transport_fw);
    socket.register_transport_dbg(this, &MyMemory::transport_dbg);
  }

  std::uint64_t requests = 0;

 private:
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay) {
    if (phase == tlm::BEGIN_REQ || phase == tlm::END_RESP) peq_.notify(p, phase, delay);
    return tlm::TLM_ACCEPTED;
  }

  // Debug transport: the bytes, at no time (famsim's ExpansionDevice::debug_access comes here).
  unsigned transport_dbg(tlm::tlm_generic_payload& p) {
    access(p);
    return p.get_data_length();
  }

  void on_phase(tlm::tlm_generic_payload& p, const tlm::tlm_phase& phase) {
    if (phase == tlm::BEGIN_REQ) {
      p.acquire();
      if (taken_ < queue_) {
        take(p);
      } else {
        waiting_.push_back(&p);  // END_REQ withheld: famsim's bridge holds the next request
      }
    } else if (phase == tlm::END_RESP) {
      responding_->release();
      responding_ = nullptr;
      respond_next();
    } else {  // BEGIN_RESP from take(): this event queue's own mark that an answer is ready
      ready_.push_back(&p);
      respond_next();
    }
  }

  // Takes a request into the queue: END_REQ now, its answer when the bus and the latency allow.
  void take(tlm::tlm_generic_payload& p) {
    ++taken_;
    ++requests;
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    const sc_core::sc_time transfer(static_cast<double>(p.get_data_length()) / gbps_,
                                    sc_core::SC_NS);
    bus_free_ = std::max(bus_free_, now) + transfer;
    access(p);
    tlm::tlm_phase end = tlm::END_REQ;
    sc_core::sc_time zero = sc_core::SC_ZERO_TIME;
    socket->nb_transport_bw(p, end, zero);
    peq_.notify(p, tlm::BEGIN_RESP, bus_free_ + latency_ - now);
  }

  // One BEGIN_RESP at a time (response exclusion rule), in the order answers became ready; an
  // answer leaving frees its place in the queue for a request whose END_REQ was withheld.
  void respond_next() {
    while (responding_ == nullptr && !ready_.empty()) {
      tlm::tlm_generic_payload& p = *ready_.front();
      ready_.pop_front();
      --taken_;
      tlm::tlm_phase resp = tlm::BEGIN_RESP;
      sc_core::sc_time zero = sc_core::SC_ZERO_TIME;
      const tlm::tlm_sync_enum r = socket->nb_transport_bw(p, resp, zero);
      if (r == tlm::TLM_ACCEPTED) {
        responding_ = &p;  // END_RESP to come
      } else if (r == tlm::TLM_UPDATED && zero > sc_core::SC_ZERO_TIME) {
        // END_RESP with a delay: the response path is busy until then.
        responding_ = &p;
        peq_.notify(p, tlm::END_RESP, zero);
      } else {
        p.release();  // TLM_COMPLETED (famsim's bridge answers so), or END_RESP at once
      }
      if (!waiting_.empty()) {
        tlm::tlm_generic_payload& next = *waiting_.front();
        waiting_.pop_front();
        take(next);
      }
    }
  }

  void access(tlm::tlm_generic_payload& p) {
    unsigned char* d = p.get_data_ptr();
    const std::uint64_t a = p.get_address();
    for (unsigned i = 0; i < p.get_data_length(); ++i) {
      std::vector<unsigned char>& page = pages_[(a + i) / kPage];
      if (page.empty()) page.resize(kPage);
      unsigned char& byte = page[(a + i) % kPage];
      if (p.is_write()) {
        byte = d[i];
      } else {
        d[i] = byte;
      }
    }
    p.set_response_status(tlm::TLM_OK_RESPONSE);
  }

  static constexpr std::uint64_t kPage = 4096;
  sc_core::sc_time latency_;
  double gbps_;  // bytes per ns
  unsigned queue_;
  tlm_utils::peq_with_cb_and_phase<MyMemory> peq_;
  unsigned taken_ = 0;
  sc_core::sc_time bus_free_ = sc_core::SC_ZERO_TIME;
  std::deque<tlm::tlm_generic_payload*> waiting_;   // BEGIN_REQ without END_REQ yet
  std::deque<tlm::tlm_generic_payload*> ready_;     // answers waiting for the response path
  tlm::tlm_generic_payload* responding_ = nullptr;  // BEGIN_RESP sent, END_RESP to come
  std::unordered_map<std::uint64_t, std::vector<unsigned char>> pages_;
};

struct Options {
  std::string platform = FAMSIM_EXAMPLE_PLATFORM;
  double latency_ns = 40;
  double gbps = 32;
  unsigned queue = 16;
  std::string stats = "foreign_memory.json";
};

double number(const std::string& flag, const char* text, double max) {
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text, &end);
  if (errno != 0 || end == text || *end != '\0' || !(v > 0) || v > max) {
    throw famsim::ConfigError(flag + ": expected a number above 0 and at most " +
                              std::to_string(max) + ", got '" + text + "'");
  }
  return v;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) throw famsim::ConfigError(a + ": unknown argument or missing value");
    const char* v = argv[++i];
    if (a == "--platform")
      o.platform = v;
    else if (a == "--latency-ns")
      o.latency_ns = number(a, v, 1e6);
    else if (a == "--gbps")
      o.gbps = number(a, v, 1e4);
    else if (a == "--queue")
      o.queue = static_cast<unsigned>(number(a, v, 4096));
    else if (a == "--stats")
      o.stats = v;
    else
      throw famsim::ConfigError(a + ": unknown argument (see the header of foreign_memory.cpp)");
  }
  return o;
}

}  // namespace

int sc_main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    famsim::RunOptions run;
    run.platform_file = o.platform;
    famsim::Simulation sim(famsim::load_config(run));
    std::vector<std::unique_ptr<MyMemory>> memories;
    for (famsim::TlmMemoryBridge* channel : sim.platform().external_channels()) {
      std::string name = channel->name();  // "fam0.memory.ch0"
      std::replace(name.begin(), name.end(), '.', '_');
      memories.push_back(std::make_unique<MyMemory>(
          ("my_" + name).c_str(), sc_core::sc_time(o.latency_ns, sc_core::SC_NS), o.gbps, o.queue));
      channel->out.bind(memories.back()->socket);
    }
    if (memories.empty()) {
      throw famsim::ConfigError(o.platform +
                                ": no memory has model: external; nothing for MyMemory to serve");
    }
    const auto start = std::chrono::steady_clock::now();
    sim.run();
    const double host_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (sim.input_error()) throw famsim::ConfigError(*sim.input_error());

    const nlohmann::json stats = sim.results(host_s, /*peak_rss_mib=*/0);
    std::ofstream(o.stats) << stats.dump(2) << "\n";
    const nlohmann::json& s = stats.at("summary");
    std::cout << memories.size() << " channels of MyMemory (" << o.latency_ns << " ns, " << o.gbps
              << " GB/s, queue " << o.queue << ") behind " << sim.config().platform.name << "\n"
              << "read " << s.at("read_bytes") << " B and wrote " << s.at("write_bytes") << " B in "
              << stats.at("sim").at("simulated_time_ns") << " ns: " << s.at("read_bandwidth_gbps")
              << " and " << s.at("write_bandwidth_gbps")
              << " GB/s over the whole run (the workload writes, then reads back); latency mean "
              << s.at("latency_ns").at("mean") << " ns, p99 " << s.at("latency_ns").at("p99")
              << " ns\n"
              << "statistics: " << o.stats << "\n";
    const nlohmann::json& c = stats.at("conservation");
    if (!c.at("ok").get<bool>()) {
      std::cerr << "foreign_memory: conservation failed: " << c.dump() << "\n";
      return 1;
    }
    std::uint64_t served = 0;  // as MyMemory counted them
    for (const auto& m : memories) served += m->requests;
    std::cout << "conservation ok: " << c.at("completed") << " requests answered once, "
              << c.at("bytes_delivered") << " B delivered; MyMemory served " << served
              << " requests\n";
    return 0;
  } catch (const famsim::ConfigError& e) {
    std::cerr << "foreign_memory: " << e.what() << "\n";
    return 2;
  }
}
