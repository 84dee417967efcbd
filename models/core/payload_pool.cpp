#include "models/core/payload_pool.h"

#include <stdexcept>

namespace famsim {

PayloadPool::PayloadPool(std::uint32_t max_data_bytes) : max_data_bytes_(max_data_bytes) {
  slots_.reserve(1024);
  free_.reserve(1024);
}

PayloadPool::~PayloadPool() {
  // Payloads still referenced by modules that outlive the pool would dangle; the simulation
  // destroys modules first. Extensions are deleted by the payload's destructor.
}

Payload& PayloadPool::allocate() {
  Payload* p;
  if (free_.empty()) {
    Slot s;
    s.data.reset(new unsigned char[max_data_bytes_]());
    s.payload.reset(new PooledPayload(this));
    p = s.payload.get();
    p->set_data_ptr(s.data.get());
    slots_.push_back(std::move(s));
  } else {
    p = free_.back();
    free_.pop_back();
  }
  ++in_use_;
  p->set_byte_enable_ptr(nullptr);
  p->set_byte_enable_length(0);
  p->set_dmi_allowed(false);
  p->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  ext_of(*p).reset_for_issue();
  return *p;
}

void PayloadPool::free(Payload* p) {
  if (in_use_ == 0) throw std::logic_error("payload released more often than acquired");
  --in_use_;
  free_.push_back(p);
}

std::vector<const Payload*> PayloadPool::in_use_payloads() const {
  std::vector<const Payload*> out;
  for (const Slot& s : slots_) {
    if (s.payload->get_ref_count() > 0) out.push_back(s.payload.get());
  }
  return out;
}

}  // namespace famsim
