#include "tests/support/mesh_harness.h"

#include "tests/support/noc_message.h"

#include <random>
#include <string>

namespace famsim::test {

// Not in an anonymous namespace: Parts holds them (GCC's -Wsubobject-linkage in a unity build).
namespace mesh_parts {

class MeshSources : public sc_core::sc_module {
 public:
  MeshSources(sc_core::sc_module_name name, SimContext& ctx, unsigned ports, unsigned controllers)
      : sc_core::sc_module(name),
        ctx_(ctx),
        controllers_(controllers),
        held_(ports, false),
        sent_(ports, 0),
        scripts_(ports),
        next_(ports, 0),
        wake_("wake", ctx.scheduler(), this, &Wakeup::call_behaviour<MeshSources>) {
    for (unsigned i = 0; i < ports; ++i) {
      ports_.push_back(std::make_unique<InitiatorPort<MeshSources>>(
          ("out" + std::to_string(i)).c_str(), *this, i));
    }
    SC_HAS_PROCESS(MeshSources);
    SC_METHOD(behaviour);
    sensitive << wake_.event();
  }

  InitiatorPort<MeshSources>& port(unsigned i) { return *ports_[i]; }
  void saturate(std::uint64_t seed, std::uint64_t limit, unsigned data_bytes) {
    saturating_ = true;
    limit_ = limit;
    data_bytes_ = data_bytes;
    rng_.seed(seed);
  }
  void set_offering(bool on) {
    offering_ = on;
    if (on) wake_.asap();
  }
  void script(unsigned port, std::vector<MeshMessage> m) { scripts_[port] = std::move(m); }
  std::uint64_t accepted() const { return accepted_; }
  const std::vector<std::uint64_t>& accept_times() const { return accept_times_; }

  Sync bw(unsigned i, Payload&, Phase& phase, sc_core::sc_time&) {
    if (phase != tlm::END_REQ) protocol_error(name(), phase, "a mesh test source");
    held_[i] = false;
    ++accepted_;
    accept_times_.push_back(now_ps());
    wake_.asap();
    return tlm::TLM_ACCEPTED;
  }

  void behaviour() {
    wake_.fired();
    const std::uint64_t now = now_ps();
    std::uint64_t next = Wakeup::kNever;
    for (unsigned i = 0; offering_ && i < ports_.size(); ++i) {
      while (!held_[i]) {
        MeshMessage m;
        if (saturating_) {
          if (limit_ != 0 && sent_[i] >= limit_) break;
          m.controller = static_cast<unsigned>(rng_() % controllers_);
          m.data_bytes = data_bytes_;
        } else {
          if (next_[i] >= scripts_[i].size()) break;
          m = scripts_[i][next_[i]];
          if (m.at_ps > now) {
            next = std::min(next, m.at_ps);
            break;
          }
          ++next_[i];
        }
        ++sent_[i];
        held_[i] = !send(i, m);
        if (!held_[i]) {
          ++accepted_;
          accept_times_.push_back(now);
        }
      }
    }
    wake_.at(next, now);
  }

 private:
  bool send(unsigned port, const MeshMessage& m) {
    Payload& p = noc_message(ctx_, port, m.controller, m.data_bytes);
    const bool taken = ports_[port]->send_req(p);
    p.release();  // the mesh holds its own reference either way
    return taken;
  }

  SimContext& ctx_;
  unsigned controllers_;
  std::vector<std::unique_ptr<InitiatorPort<MeshSources>>> ports_;
  std::vector<bool> held_;
  std::vector<std::uint64_t> sent_;
  std::vector<std::vector<MeshMessage>> scripts_;
  std::vector<std::size_t> next_;
  bool saturating_ = false;
  bool offering_ = true;
  std::uint64_t limit_ = 0;
  unsigned data_bytes_ = 0;
  std::uint64_t accepted_ = 0;
  std::vector<std::uint64_t> accept_times_;
  std::mt19937_64 rng_;
  Wakeup wake_;
};

class MeshSinks : public sc_core::sc_module {
 public:
  MeshSinks(sc_core::sc_module_name name, SimContext& ctx, unsigned controllers)
      : sc_core::sc_module(name),
        busy_(controllers, nullptr),
        release_ps_(controllers, 0),
        wake_("wake", ctx.scheduler(), this, &Wakeup::call_behaviour<MeshSinks>) {
    for (unsigned o = 0; o < controllers; ++o) {
      ports_.push_back(
          std::make_unique<TargetPort<MeshSinks>>(("in" + std::to_string(o)).c_str(), *this, o));
    }
    SC_HAS_PROCESS(MeshSinks);
    SC_METHOD(behaviour);
    sensitive << wake_.event();
    dont_initialize();
  }
  TargetPort<MeshSinks>& port(unsigned o) { return *ports_[o]; }
  void set_service(std::uint64_t ps) { service_ps_ = ps; }

  Sync fw(unsigned o, Payload& p, Phase& phase, sc_core::sc_time&) {
    if (phase != tlm::BEGIN_REQ) protocol_error(name(), phase, "a mesh test sink");
    const RequestExt& e = ext_of(p);
    const std::uint64_t now = now_ps();
    log.push_back({now, e.stream, o, e.write ? e.length : 0});
    if (service_ps_ == 0) {
      phase = tlm::END_REQ;
      return tlm::TLM_UPDATED;
    }
    // Busy for one service time: END_REQ when it is over.
    p.acquire();
    busy_[o] = &p;
    release_ps_[o] = now + service_ps_;
    wake_.at(release_ps_[o], now);
    return tlm::TLM_ACCEPTED;
  }

  void behaviour() {
    wake_.fired();
    const std::uint64_t now = now_ps();
    std::uint64_t next = Wakeup::kNever;
    for (unsigned o = 0; o < busy_.size(); ++o) {
      if (!busy_[o]) continue;
      if (release_ps_[o] > now) {
        next = std::min(next, release_ps_[o]);
        continue;
      }
      Payload* p = busy_[o];
      busy_[o] = nullptr;
      ports_[o]->send_end_req(*p);
      p->release();
    }
    wake_.at(next, now);
  }

  std::vector<MeshDelivery> log;

 private:
  std::vector<std::unique_ptr<TargetPort<MeshSinks>>> ports_;
  std::vector<Payload*> busy_;
  std::vector<std::uint64_t> release_ps_;
  std::uint64_t service_ps_ = 0;
  Wakeup wake_;
};

}  // namespace mesh_parts

using mesh_parts::MeshSinks;
using mesh_parts::MeshSources;

struct MeshHarness::Parts {
  Parts(SimContext& ctx, const std::string& name, const MeshParams& params, unsigned ports,
        unsigned controllers)
      : mesh((name + "_mesh").c_str(), ctx, params, ports, controllers,
             std::make_unique<ChannelRouting>()),
        sources((name + "_sources").c_str(), ctx, ports, controllers),
        sinks((name + "_sinks").c_str(), ctx, controllers) {
    for (unsigned i = 0; i < ports; ++i) sources.port(i).bind(mesh.up(i));
    for (unsigned o = 0; o < controllers; ++o) mesh.down(o).bind(sinks.port(o));
  }
  Mesh mesh;
  MeshSources sources;
  MeshSinks sinks;
};

MeshHarness::MeshHarness(SimContext& ctx, const std::string& name, const MeshParams& params,
                         unsigned ports, unsigned controllers)
    : parts_(std::make_unique<Parts>(ctx, name, params, ports, controllers)) {}

MeshHarness::~MeshHarness() = default;

void MeshHarness::saturate_uniform(std::uint64_t seed, std::uint64_t limit, unsigned data_bytes) {
  parts_->sources.saturate(seed, limit, data_bytes);
}
void MeshHarness::script(unsigned port, std::vector<MeshMessage> messages) {
  parts_->sources.script(port, std::move(messages));
}
void MeshHarness::set_sink_service(std::uint64_t service_ps) {
  parts_->sinks.set_service(service_ps);
}
void MeshHarness::set_offering(bool on) { parts_->sources.set_offering(on); }
const std::vector<MeshDelivery>& MeshHarness::deliveries() const { return parts_->sinks.log; }
std::uint64_t MeshHarness::delivered_since(std::uint64_t from_ps) const {
  std::uint64_t n = 0;
  for (const MeshDelivery& d : parts_->sinks.log) n += d.at_ps >= from_ps ? 1 : 0;
  return n;
}
std::uint64_t MeshHarness::accepted() const { return parts_->sources.accepted(); }
const std::vector<std::uint64_t>& MeshHarness::accept_times() const {
  return parts_->sources.accept_times();
}
Mesh& MeshHarness::mesh() { return parts_->mesh; }

nlohmann::json MeshHarness::report(std::uint64_t end_ps) const {
  ComponentReport r;
  parts_->mesh.report(r, ReportWindow{0, end_ps});
  nlohmann::json j = r.extra;
  j["bytes"] = r.bytes;
  j["utilization"] = r.utilization;
  j["backpressure_ns"] = r.backpressure_ns;
  j["resources"] = nlohmann::json::object();
  for (const ResourceUse& u : r.resources) {
    j["resources"][u.name] = {{"utilization", u.utilization},
                              {"capacity", u.capacity},
                              {"used", u.used},
                              {"slots", u.type == ResourceUse::Type::kSlots},
                              {"path_depth", u.path_depth},
                              {"response_path", u.response_path}};
  }
  return j;
}

}  // namespace famsim::test
