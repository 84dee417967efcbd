// A timeline of sampled requests in the Chrome trace event format (the JSON that chrome://tracing
// and ui.perfetto.dev open): every sampled request is a row (pid = its GPU, tid = its sample
// number) with one slice for the whole request and one slice per hop it passed, in each
// direction:
//   "<block> (request)"   from the request entering the block to it entering the next one
//   "<block> (queue)"     at the target (memory controller): from arrival to service start
//   "<block> (service)"   at the target: from service start to the response being ready
//   "<block> (response)"  from the response entering the block to it entering the previous one
// The hop slices tile the request's slice exactly (issue at the GPU to the response's arrival).
// Sampling: every `every`-th request of each GPU (by request id), at most `max_requests` in all,
// so the file stays small (about 3 KB per request on an 8-hop path).
#pragma once

#include "models/core/request.h"

#include <cstdint>
#include <string>
#include <vector>

namespace famsim {

class Timeline {
 public:
  // every 0: off.
  void configure(std::uint64_t every, std::size_t max_requests) {
    every_ = every;
    max_ = max_requests;
  }
  bool enabled() const { return every_ > 0; }
  // Cheap enough for every completion: one branch when off.
  bool wants(std::uint64_t request_id) const {
    return every_ > 0 && requests_.size() < max_ && (request_id & kSeqMask) % every_ == 0;
  }
  // Records a completed request from its hop records; arrival_ps: the response's arrival at
  // the initiator.
  void record(const RequestExt& e, std::uint64_t arrival_ps);

  std::size_t requests() const { return requests_.size(); }
  // The trace as JSON text.
  std::string json() const;

 private:
  static constexpr std::uint64_t kSeqMask = (std::uint64_t{1} << 40) - 1;  // ids: gpu << 40 | seq
  enum class Kind : std::uint8_t { kRequest, kQueue, kService, kResponse };
  struct Slice {
    BlockId block;
    Kind kind;
    std::uint64_t start_ps;
    std::uint64_t end_ps;
  };
  struct Request {
    std::uint64_t id;
    std::uint16_t gpu;
    bool write;
    std::uint64_t issue_ps;
    std::uint64_t arrival_ps;
    std::size_t first_slice;
    std::size_t slices;
  };
  std::uint64_t every_ = 0;
  std::size_t max_ = 0;
  std::vector<Request> requests_;
  std::vector<Slice> slices_;
};

}  // namespace famsim
