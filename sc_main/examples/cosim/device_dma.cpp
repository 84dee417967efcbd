// DMA engines of your own in front of famsim's expansion device (co-simulation, README
// "Co-simulation").
//
// The engines know nothing of famsim: each is written to the IEEE 1666-2011 approximately timed
// base protocol (four phases, its own memory manager, a payload event queue so that every phase
// takes effect at its annotated time), as a DMA engine, CPU or accelerator model of a team's own
// SystemC platform would be. One engine sits on each fabric port of the device, behind a
// famsim::TlmBridge; each copies its slice of a buffer into the device, then reads it back, with
// up to `window` requests in flight, and checks every byte. The device (port logic, on-chip
// network, DRAM controllers) is built from a famsim platform file's first device.
//
//   device_dma [--platform FILE] [--bytes N] [--request-bytes N] [--window N] [--stats FILE]
//              [--dram-log DIR] [--txn-log FILE]
//
//   --platform       a famsim platform file (default: famsim's built-in platforms/nvl8_fam.yaml)
//   --bytes          bytes each engine copies (default 262144)
//   --request-bytes  bytes per request (default 128)
//   --window         requests in flight per engine (default 32)
//   --stats          where famsim's component statistics go as JSON (default device_dma.json)
//   --dram-log       write each memory channel's DRAM command log into DIR (made if missing), as
//                    `famsim run --dram-log` does (README "DRAM", Command log): what an RTL test
//                    bench compares against, and `famsim check-dram-log` checks
//   --txn-log        write famsim's transaction log of the engines' requests to FILE (README
//                    "Outputs", transactions.csv), one line per request once it is answered
//
// Exit codes: 0 every byte read back as written; 1 a byte differed or an access failed; 2 bad
// input (the message names the file and key).
#include "models/core/config.h"
#include "models/core/sim_context.h"
#include "models/cosim/tlm_bridge.h"
#include "platforms/builder.h"
#include "platforms/platform_config.h"
#include "sc_main/simulation.h"

#include <nlohmann/json.hpp>
#include <systemc>
#include <tlm>
#include <tlm_utils/peq_with_cb_and_phase.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

// The byte a copy puts at device address `a`: differs between neighbouring bytes and between
// engines' slices, so a read answered from the wrong address or channel is caught.
unsigned char expected_byte(std::uint64_t a) {
  return static_cast<unsigned char>((a ^ (a >> 8) ^ (a >> 16) ^ (a >> 24)) * 37 + 11);
}

// A DMA engine: writes [base, base + bytes) in requests of `request_bytes`, waits for every
// answer, reads the range back and compares. Its own payloads, recycled through its memory
// manager; its own clock (one BEGIN_REQ per cycle at most).
class DmaEngine : public sc_core::sc_module, public tlm::tlm_mm_interface {
 public:
  tlm_utils::simple_initiator_socket<DmaEngine> socket;

  struct Result {
    std::uint64_t bytes = 0;
    std::uint64_t requests = 0;
    std::uint64_t errors = 0;      // answers with a status other than TLM_OK_RESPONSE
    std::uint64_t mismatches = 0;  // bytes read back that differ from what was written
    double latency_sum_ns = 0;     // BEGIN_REQ to BEGIN_RESP, as the engine sees them
    double latency_max_ns = 0;
    std::uint64_t start_ps = 0;  // the pass's first BEGIN_REQ
    std::uint64_t end_ps = 0;    // its last answer
    // Another engine's pass, over the same time: the passes together.
    void add(const Result& o) {
      bytes += o.bytes;
      requests += o.requests;
      errors += o.errors;
      mismatches += o.mismatches;
      latency_sum_ns += o.latency_sum_ns;
      latency_max_ns = std::max(latency_max_ns, o.latency_max_ns);
      start_ps = std::min(start_ps, o.start_ps);
      end_ps = std::max(end_ps, o.end_ps);
    }
  };
  Result write_result, read_result;

  DmaEngine(sc_core::sc_module_name name, std::uint64_t base, std::uint64_t bytes,
            unsigned request_bytes, unsigned window, sc_core::sc_time clock)
      : sc_core::sc_module(name),
        socket("socket"),
        base_(base),
        bytes_(bytes),
        request_bytes_(request_bytes),
        clock_(clock),
        peq_(this, &DmaEngine::on_phase) {
    socket.register_nb_transport_bw(this, &DmaEngine::nb_transport_bw);
    slots_.resize(window);
    for (unsigned i = 0; i < window; ++i) {
      Slot& s = slots_[i];
      s.payload = std::make_unique<tlm::tlm_generic_payload>(this);
      s.data.resize(request_bytes);
      slot_of_[s.payload.get()] = i;
      free_.push_back(i);
    }
    SC_HAS_PROCESS(DmaEngine);
    SC_THREAD(run);
  }

  // tlm_mm_interface: a payload whose last reference went comes back to the free list.
  void free(tlm::tlm_generic_payload* p) override {
    p->reset();
    free_.push_back(slot_of_.at(p));
    freed_.notify(sc_core::SC_ZERO_TIME);
  }

 private:
  void run() {
    copy(tlm::TLM_WRITE_COMMAND, write_result);
    copy(tlm::TLM_READ_COMMAND, read_result);
  }

  // One pass over the range; returns when every request of it has been answered.
  void copy(tlm::tlm_command command, Result& r) {
    r.start_ps = sc_core::sc_time_stamp().value();
    result_ = &r;
    for (std::uint64_t off = 0; off < bytes_; off += request_bytes_) {
      while (free_.empty()) wait(freed_);
      while (request_in_progress_) wait(end_request_);
      Slot& slot = slots_[free_.back()];
      free_.pop_back();
      tlm::tlm_generic_payload* p = slot.payload.get();
      p->acquire();
      const std::uint64_t address = base_ + off;
      const unsigned length =
          static_cast<unsigned>(std::min<std::uint64_t>(request_bytes_, bytes_ - off));
      unsigned char* data = slot.data.data();
      if (command == tlm::TLM_WRITE_COMMAND) {
        for (unsigned i = 0; i < length; ++i) data[i] = expected_byte(address + i);
      }
      p->set_command(command);
      p->set_address(address);
      p->set_data_ptr(data);
      p->set_data_length(length);
      p->set_streaming_width(length);
      p->set_byte_enable_ptr(nullptr);
      p->set_dmi_allowed(false);
      p->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      slot.sent_at = sc_core::sc_time_stamp();
      ++in_flight_;
      request_in_progress_ = p;
      tlm::tlm_phase phase = tlm::BEGIN_REQ;
      sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
      switch (socket->nb_transport_fw(*p, phase, delay)) {
        case tlm::TLM_ACCEPTED:
          break;  // END_REQ (or BEGIN_RESP) comes on the backward path
        case tlm::TLM_UPDATED:
          peq_.notify(*p, phase, delay);  // END_REQ or BEGIN_RESP, at its time
          break;
        case tlm::TLM_COMPLETED:
          // Answered at once (an access famsim cannot carry): the bridge says why in the status.
          request_in_progress_ = nullptr;
          wait(delay);
          answer(*p);
          break;
      }
      wait(clock_);
    }
    while (in_flight_ > 0) wait(answered_);
    r.end_ps = sc_core::sc_time_stamp().value();
  }

  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay) {
    peq_.notify(p, phase, delay);
    return tlm::TLM_ACCEPTED;
  }

  // A phase from the bridge, at the time it takes effect.
  void on_phase(tlm::tlm_generic_payload& p, const tlm::tlm_phase& phase) {
    if (phase == tlm::END_REQ || (phase == tlm::BEGIN_RESP && request_in_progress_ == &p)) {
      request_in_progress_ = nullptr;  // BEGIN_RESP implies END_REQ
      end_request_.notify(sc_core::SC_ZERO_TIME);
    }
    if (phase != tlm::BEGIN_RESP) return;
    tlm::tlm_phase end = tlm::END_RESP;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    socket->nb_transport_fw(p, end, delay);  // the bridge's answer to END_RESP is TLM_COMPLETED
    answer(p);
  }

  void answer(tlm::tlm_generic_payload& p) {
    Result& r = *result_;
    const sc_core::sc_time sent_at = slots_[slot_of_.at(&p)].sent_at;
    const double latency = (sc_core::sc_time_stamp() - sent_at).to_seconds() * 1e9;
    r.latency_sum_ns += latency;
    r.latency_max_ns = std::max(r.latency_max_ns, latency);
    ++r.requests;
    r.bytes += p.get_data_length();
    if (p.get_response_status() != tlm::TLM_OK_RESPONSE) {
      ++r.errors;
    } else if (p.is_read()) {
      const unsigned char* data = p.get_data_ptr();
      for (unsigned i = 0; i < p.get_data_length(); ++i) {
        if (data[i] != expected_byte(p.get_address() + i)) ++r.mismatches;
      }
    }
    --in_flight_;
    answered_.notify(sc_core::SC_ZERO_TIME);
    p.release();
  }

  std::uint64_t base_, bytes_;
  unsigned request_bytes_;
  sc_core::sc_time clock_;
  tlm_utils::peq_with_cb_and_phase<DmaEngine> peq_;
  // A payload of the engine's own with its data buffer, one per request it may have in flight.
  struct Slot {
    std::unique_ptr<tlm::tlm_generic_payload> payload;
    std::vector<unsigned char> data;
    sc_core::sc_time sent_at;  // its BEGIN_REQ
  };
  std::vector<Slot> slots_;
  std::unordered_map<const tlm::tlm_generic_payload*, std::size_t> slot_of_;
  std::vector<std::size_t> free_;  // slots whose payload came back to the memory manager
  tlm::tlm_generic_payload* request_in_progress_ = nullptr;  // no END_REQ yet (exclusion rule)
  unsigned in_flight_ = 0;
  Result* result_ = nullptr;
  sc_core::sc_event freed_, end_request_, answered_;
};

struct Options {
  std::optional<std::string> platform;
  std::uint64_t bytes = 256 * 1024;
  unsigned request_bytes = 128;
  unsigned window = 32;
  std::string stats = "device_dma.json";
  std::optional<std::string> dram_log;  // directory
  std::optional<std::string> txn_log;   // file
};

std::uint64_t number(const std::string& flag, const char* text, std::uint64_t max) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || text[0] == '-' || v == 0 || v > max) {
    throw famsim::ConfigError(flag + ": expected a whole number from 1 to " + std::to_string(max) +
                              ", got '" + text + "'");
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
    else if (a == "--bytes")
      o.bytes = number(a, v, std::uint64_t{1} << 40);
    else if (a == "--request-bytes")
      o.request_bytes = static_cast<unsigned>(number(a, v, 4096));
    else if (a == "--window")
      o.window = static_cast<unsigned>(number(a, v, 4096));
    else if (a == "--stats")
      o.stats = v;
    else if (a == "--dram-log")
      o.dram_log = v;
    else if (a == "--txn-log")
      o.txn_log = v;
    else
      throw famsim::ConfigError(a + ": unknown argument (see the header of device_dma.cpp)");
  }
  return o;
}

// One pass of the engines together, as they saw it: from the first BEGIN_REQ to the last answer.
void print(const char* what, const DmaEngine::Result& r, std::uint64_t engines) {
  const double ns = static_cast<double>(r.end_ps - r.start_ps) / 1000;
  std::cout << what << ": " << r.bytes << " B in " << r.requests << " requests, " << ns << " ns, "
            << (ns > 0 ? static_cast<double>(r.bytes) / ns : 0.0) << " GB/s over " << engines
            << " engine(s); latency mean "
            << (r.requests ? r.latency_sum_ns / static_cast<double>(r.requests) : 0.0)
            << " ns, max " << r.latency_max_ns << " ns\n";
}

}  // namespace

int sc_main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    // As `famsim run --platform FILE` reads it: presets expanded, every key checked.
    const famsim::PlatformConfig platform = famsim::load_platform(o.platform);
    if (platform.devices.empty()) {
      throw famsim::ConfigError((o.platform ? *o.platform : std::string("the platform")) +
                                ": devices: expected at least one device");
    }
    famsim::DeviceConfig device = platform.devices.front();
    if (o.dram_log) {
      // One CSV per channel, named after it (fam0.memory.ch0.csv), written as the run goes.
      std::error_code ec;
      std::filesystem::create_directories(*o.dram_log, ec);
      if (ec)
        throw famsim::ConfigError("--dram-log: cannot make " + *o.dram_log + ": " + ec.message());
      device.memory.command_log_dir = *o.dram_log;
    }
    const unsigned ports = device.fabric_ports;
    if (o.bytes * ports > device.capacity_bytes) {
      throw famsim::ConfigError("--bytes: " + std::to_string(ports) + " engines x " +
                                std::to_string(o.bytes) + " B do not fit in " + device.name +
                                "'s " + std::to_string(device.capacity_bytes) + " B");
    }

    // The payload pool's data size: famsim's copies of the engines' requests.
    famsim::SimContext ctx(o.request_bytes, /*seed=*/1);
    famsim::ExpansionDevice fam(device.name.c_str(), ctx, device, /*pa_base=*/0);
    std::vector<std::unique_ptr<famsim::TlmBridge>> bridges;
    std::vector<std::unique_ptr<DmaEngine>> engines;
    for (unsigned port = 0; port < ports; ++port) {
      famsim::TlmBridgeParams p;
      p.max_outstanding = o.window;
      p.source = static_cast<std::uint16_t>(port);
      const std::string n = std::to_string(port);
      // The window the device serves, the engine seeing it at 0; then bound to the port, with
      // the device's debug access.
      bridges.push_back(std::make_unique<famsim::TlmBridge>(
          ("bridge" + n).c_str(), ctx,
          fam.bridge_params(p, famsim::BridgeAddresses::kDeviceAtZero)));
      fam.attach(*bridges.back(), port);
      // 1 GHz: the engine's clock, one BEGIN_REQ per cycle at most.
      engines.push_back(std::make_unique<DmaEngine>(("dma" + n).c_str(), port * o.bytes, o.bytes,
                                                    o.request_bytes, o.window,
                                                    sc_core::sc_time(1, sc_core::SC_NS)));
      engines.back()->socket.bind(bridges.back()->in);
    }
    // famsim's transaction log: every request the bridges hand to the device, logged as its
    // answer reaches the bridge, with its DRAM service times. Opened before the run, closed after.
    if (o.txn_log) ctx.transactions.open(*o.txn_log);
    sc_core::sc_start();
    if (o.txn_log) ctx.transactions.close();

    DmaEngine::Result w = engines.front()->write_result, r = engines.front()->read_result;
    for (std::size_t i = 1; i < engines.size(); ++i) {
      w.add(engines[i]->write_result);
      r.add(engines[i]->read_result);
    }
    std::cout << "device " << device.name << ": fabric ports " << ports << ", memory channels "
              << device.memory.channels << "\n";
    print("write", w, ports);
    print("read", r, ports);

    // famsim's own view: every block's statistics, as stats.json's components, from the start to
    // the last answer.
    fam.finish(r.end_ps);
    const nlohmann::json components = ctx.registry.report_all(famsim::ReportWindow{0, r.end_ps});
    std::ofstream(o.stats) << components.dump(2) << "\n";
    // The memory channels' side: what they moved over the whole run (a write counts when its
    // burst reaches the DRAM, after the engine had its answer).
    double channel_gbps = 0, channel_utilization = 0;
    const std::string prefix = device.name + ".memory.";
    for (const auto& [name, c] : components.items()) {
      if (name.rfind(prefix, 0) != 0) continue;
      channel_gbps += c.at("bandwidth_gbps").get<double>();
      channel_utilization += c.at("utilization").get<double>() / device.memory.channels;
    }
    std::cout << "memory channels: " << channel_gbps << " GB/s together, "
              << 100 * channel_utilization << " % busy on average, over " << r.end_ps / 1000
              << " ns\n";
    std::cout << "famsim's statistics of " << components.size() << " blocks: " << o.stats << "\n";

    const std::uint64_t expected = o.bytes * ports;
    if (w.errors + r.errors > 0 || w.bytes != expected || r.bytes != expected) {
      std::cerr << "device_dma: " << w.errors + r.errors << " accesses failed; " << w.bytes
                << " B written and " << r.bytes << " B read of " << expected << "\n";
      return 1;
    }
    if (r.mismatches > 0) {
      std::cerr << "device_dma: " << r.mismatches << " bytes read back differ from those written\n";
      return 1;
    }
    std::cout << "verified " << r.bytes << " B: every byte read back as written\n";
    return 0;
  } catch (const famsim::ConfigError& e) {
    std::cerr << "device_dma: " << e.what() << "\n";
    return 2;
  } catch (const std::invalid_argument& e) {
    // A --dram-log directory whose logs cannot be written (the DRAM controllers' constructors).
    std::cerr << "device_dma: " << e.what() << "\n";
    return 2;
  } catch (const std::runtime_error& e) {
    // A --txn-log file that cannot be written, or its close failing.
    std::cerr << "device_dma: " << e.what() << "\n";
    return 2;
  }
}
