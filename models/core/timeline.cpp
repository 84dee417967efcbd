#include "models/core/timeline.h"

#include "models/core/json_text.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace famsim {

void Timeline::record(const RequestExt& e, std::uint64_t arrival_ps) {
  Request r{e.id, e.gpu, e.write, e.issue_ps, arrival_ps, slices_.size(), 0};
  const unsigned n = e.hop_count;
  const auto add = [&](BlockId b, Kind k, std::uint64_t s, std::uint64_t t) {
    slices_.push_back(Slice{b, k, s, std::max(s, t)});
  };
  for (unsigned k = 0; k < n; ++k) {
    const HopRecord& h = e.hops[k];
    if (k + 1 < n) {
      add(h.block(), Kind::kRequest, h.req_in_ps(), e.req_out_ps(k));
    } else {
      // The target: queue until service starts, service until the response is ready. A request
      // split into parts inside the device has no service start of its own: all service.
      const std::uint64_t start = std::clamp(e.service_start_ps, h.req_in_ps(), h.resp_in_ps());
      add(h.block(), Kind::kQueue, h.req_in_ps(), start);
      add(h.block(), Kind::kService, start, h.resp_in_ps());
    }
  }
  for (unsigned k = n; k-- > 0;) {
    if (k > 0 || e.hops[0].resp_in_ps() != arrival_ps) {
      add(e.hops[k].block(), Kind::kResponse, e.hops[k].resp_in_ps(),
          k > 0 ? e.resp_out_ps(k) : arrival_ps);
    }
  }
  r.slices = slices_.size() - r.first_slice;
  requests_.push_back(r);
}

std::string Timeline::json() const {
  static const char* const kKind[] = {" (request)", " (queue)", " (service)", " (response)"};
  nlohmann::json events = nlohmann::json::array();
  const auto us = [](std::uint64_t ps) { return static_cast<double>(ps) * 1e-6; };
  for (std::size_t i = 0; i < requests_.size(); ++i) {
    const Request& r = requests_[i];
    const int tid = static_cast<int>(i);
    const char* dir = r.write ? "write" : "read";
    events.push_back({{"ph", "M"},
                      {"name", "thread_name"},
                      {"pid", r.gpu},
                      {"tid", tid},
                      {"args", {{"name", std::string(dir) + " " + std::to_string(r.id)}}}});
    events.push_back(
        {{"ph", "X"},
         {"name", std::string(dir) + " request"},
         {"cat", dir},
         {"pid", r.gpu},
         {"tid", tid},
         {"ts", us(r.issue_ps)},
         {"dur", us(r.arrival_ps - r.issue_ps)},
         {"args", {{"request_id", r.id}, {"latency_ns", (r.arrival_ps - r.issue_ps) * 1e-3}}}});
    for (std::size_t s = r.first_slice; s < r.first_slice + r.slices; ++s) {
      const Slice& x = slices_[s];
      events.push_back({{"ph", "X"},
                        {"name", BlockRegistry::name(x.block) + kKind[static_cast<int>(x.kind)]},
                        {"cat", dir},
                        {"pid", r.gpu},
                        {"tid", tid},
                        {"ts", us(x.start_ps)},
                        {"dur", us(x.end_ps - x.start_ps)}});
    }
  }
  nlohmann::json j;
  j["traceEvents"] = events;
  j["displayTimeUnit"] = "ns";
  j["otherData"] = {{"generator", "famsim"},
                    {"sampled_every", every_},
                    {"requests", requests_.size()},
                    {"time_unit", "ts and dur in microseconds (trace event format)"}};
  return json_text(j);
}

}  // namespace famsim
