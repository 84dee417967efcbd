#include "models/fabric/link_framing.h"

#include <algorithm>
#include <stdexcept>

namespace famsim {

std::optional<LinkFraming::Problem> LinkFraming::check(const FlitFormat& f) {
  auto s = [](unsigned v) { return std::to_string(v); };
  if (f.flit_bytes == 0) return Problem{"flit_bytes", "expected at least 1 byte, got 0", {}};
  const unsigned overhead = f.flit_header_bytes + f.flit_crc_bytes + f.flit_fec_bytes;
  if (overhead >= f.flit_bytes) {
    return Problem{"flit_bytes",
                   "flit_header_bytes + flit_crc_bytes + flit_fec_bytes = " + s(overhead) +
                       " leave no message area in a flit of " + s(f.flit_bytes) +
                       " bytes; expected flit_bytes > the overheads",
                   {"flit_header_bytes", "flit_crc_bytes", "flit_fec_bytes"}};
  }
  const unsigned area = f.flit_bytes - overhead;
  if (f.slot_bytes == 0) return Problem{"slot_bytes", "expected at least 1 byte, got 0", {}};
  if (area % f.slot_bytes != 0) {
    return Problem{"slot_bytes",
                   "the message area of a flit (flit_bytes " + s(f.flit_bytes) + " - overheads " +
                       s(overhead) + " = " + s(area) + " bytes) must be a whole number of slots; " +
                       s(f.slot_bytes) + " does not divide it",
                   {"flit_bytes", "flit_header_bytes", "flit_crc_bytes", "flit_fec_bytes"}};
  }
  if (f.request_header_bytes == 0) {
    return Problem{
        "request_header_bytes", "expected at least 1 byte (every message has a header)", {}};
  }
  if (f.response_header_bytes == 0) {
    return Problem{
        "response_header_bytes", "expected at least 1 byte (every message has a header)", {}};
  }
  if (f.max_payload_bytes == 0 || f.max_payload_bytes % f.slot_bytes != 0) {
    return Problem{"max_payload_bytes",
                   "expected a positive multiple of slot_bytes (" + s(f.slot_bytes) + "), got " +
                       s(f.max_payload_bytes) + ": a full message's data fills whole slots",
                   {"slot_bytes"}};
  }
  return std::nullopt;
}

LinkFraming::LinkFraming(const FlitFormat& f) : f_(f) {
  if (auto p = check(f)) throw std::invalid_argument(p->key + ": " + p->what);
  area_ = f.flit_bytes - f.flit_header_bytes - f.flit_crc_bytes - f.flit_fec_bytes;
  slots_per_flit_ = area_ / f.slot_bytes;
}

TransferShape LinkFraming::shape(unsigned header_bytes, unsigned data_bytes,
                                 unsigned messages) const {
  TransferShape t;
  t.messages = messages;
  t.payload_bytes = data_bytes;
  const unsigned header_slots = slots_of(header_bytes);
  unsigned left = data_bytes;
  for (unsigned m = 0; m < messages; ++m) {
    const unsigned data = std::min(left, f_.max_payload_bytes);
    left -= data;
    const unsigned slots = header_slots + slots_of(data);
    const unsigned flits = (slots + slots_per_flit_ - 1) / slots_per_flit_;
    t.slots += slots;
    t.flits += flits;
    t.padded_slots += flits * slots_per_flit_;
    t.largest_message_slots = std::max(t.largest_message_slots, slots);
  }
  return t;
}

namespace {
unsigned message_count(unsigned bytes, unsigned max_payload) {
  return bytes == 0 ? 1 : (bytes + max_payload - 1) / max_payload;
}
}  // namespace

TransferShape LinkFraming::request(bool write, unsigned bytes) const {
  return shape(f_.request_header_bytes, write ? bytes : 0,
               message_count(bytes, f_.max_payload_bytes));
}

TransferShape LinkFraming::response(bool write, unsigned bytes) const {
  return shape(f_.response_header_bytes, write ? 0 : bytes,
               message_count(bytes, f_.max_payload_bytes));
}

TransferShape LinkFraming::atomic_request(unsigned operand_bytes) const {
  return shape(f_.request_header_bytes, operand_bytes, 1);
}

unsigned LinkFraming::credits(const TransferShape& s, CreditUnit unit) const {
  if (unit == CreditUnit::kMessage) return s.messages;
  // Flit-sized receive-buffer entries: per_message packing fills whole flits per message; dense
  // packing stores the transfer's slots contiguously.
  return f_.packing == Packing::kPerMessage ? s.flits
                                            : (s.slots + slots_per_flit_ - 1) / slots_per_flit_;
}

unsigned LinkFraming::largest_message_credits(CreditUnit unit) const {
  if (unit == CreditUnit::kMessage) return 1;
  const unsigned header = std::max(f_.request_header_bytes, f_.response_header_bytes);
  const unsigned slots = slots_of(header) + f_.max_payload_bytes / f_.slot_bytes;
  return (slots + slots_per_flit_ - 1) / slots_per_flit_;
}

double LinkFraming::efficiency(bool write, unsigned bytes) const {
  const double wire = wire_bytes(request(write, bytes)) + wire_bytes(response(write, bytes));
  return wire > 0 ? bytes / wire : 0.0;
}

}  // namespace famsim
