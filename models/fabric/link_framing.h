// Link framing: how a transfer (one TLM request or response) becomes messages, slots and flits on
// the wire. Plain C++, no SystemC: the Link (link.h) asks it for the shape of every transfer, and
// tests check it alone against efficiencies worked out by hand from a flit format.
//
// Flit layout (all sizes in bytes, from configuration):
//
//   | flit_header | message area = N x slot | crc | fec |     flit_bytes in total on the wire
//
//   flit_header_bytes   link-layer header of every flit (CXL 68 B: 2 B protocol id)
//   flit_crc_bytes      CRC of every flit (0 when the CRC sits in a message header, as NVLink)
//   flit_fec_bytes      FEC inside the flit (CXL 256 B: 6 B); PHY-level FEC outside the flit goes
//                       into the link's encoding_efficiency instead
//   slot_bytes          the unit messages are placed in: a message occupies whole slots, and the
//                       message area must be a whole number of slots (N = slots_per_flit)
//
// Messages. A transfer of `bytes` is split into ceil(bytes / max_payload_bytes) messages, each
// carrying its own header (a 128 B read over CXL is 2 MemRd + 2 data responses). Per message:
//   read request     request_header_bytes               (header only)
//   write request    request_header_bytes + data        (header slots, then data slots)
//   read response    response_header_bytes + data
//   write completion response_header_bytes              (header only; one per write message)
// Header and data each start on a slot boundary: slots = ceil(header/slot) + ceil(data/slot).
//
// Packing.
//   dense        slots of different messages share a flit; under saturation every slot is used,
//                so one slot costs flit_bytes / slots_per_flit on the wire.
//   per_message  each message starts a new flit; a message costs ceil(slots / N) whole flits.
// Wire efficiency (payload / wire bytes) follows from these rules alone; no fudge factor.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace famsim {

enum class Packing : std::uint8_t { kDense, kPerMessage };
enum class CreditUnit : std::uint8_t { kFlit, kMessage };

struct FlitFormat {
  unsigned flit_bytes = 16;
  unsigned flit_header_bytes = 0;
  unsigned flit_crc_bytes = 0;
  unsigned flit_fec_bytes = 0;
  unsigned slot_bytes = 16;
  Packing packing = Packing::kDense;
  unsigned request_header_bytes = 16;
  unsigned response_header_bytes = 16;
  unsigned max_payload_bytes = 256;
};

// What one transfer puts on the wire.
struct TransferShape {
  unsigned messages = 0;       // link-layer messages (each with its own header)
  unsigned slots = 0;          // slots the messages occupy (dense packing)
  unsigned flits = 0;          // whole flits when every message starts a flit (per_message)
  unsigned payload_bytes = 0;  // data bytes carried
  unsigned padded_slots = 0;   // slots on the wire with per_message packing (flits x N)
  unsigned largest_message_slots = 0;
};

class LinkFraming {
 public:
  // A problem with the format: the key at fault and what was expected. Empty when consistent.
  struct Problem {
    std::string key;
    std::string what;
    std::vector<std::string> also;  // the other keys the rule involves
  };
  static std::optional<Problem> check(const FlitFormat& f);

  LinkFraming() : LinkFraming(FlitFormat{}) {}
  // Throws std::invalid_argument (with check()'s message) for an inconsistent format.
  explicit LinkFraming(const FlitFormat& f);

  const FlitFormat& format() const { return f_; }
  unsigned message_area_bytes() const { return area_; }
  unsigned slots_per_flit() const { return slots_per_flit_; }
  // Wire bytes one slot costs under dense packing: flit_bytes / slots_per_flit.
  double wire_bytes_per_slot() const {
    return static_cast<double>(f_.flit_bytes) / slots_per_flit_;
  }

  // The request message(s) and the response message(s) of a read or write of `bytes`.
  TransferShape request(bool write, unsigned bytes) const;
  TransferShape response(bool write, unsigned bytes) const;
  // An atomic's request: one message carrying its operands (one word, two for compare-and-swap);
  // its response is a read's of the word.
  TransferShape atomic_request(unsigned operand_bytes) const;
  // The transfer of `bytes` of data on one VC: a write's request on the request VC
  // (`request_vc`), a read's response on the response VC.
  TransferShape data_transfer(bool request_vc, unsigned bytes) const {
    return request_vc ? request(true, bytes) : response(false, bytes);
  }

  // Slots a transfer takes on the wire under this format's packing (per_message: whole flits).
  unsigned wire_slots(const TransferShape& s) const {
    return f_.packing == Packing::kDense ? s.slots : s.padded_slots;
  }
  // Wire bytes of a transfer when the wire is saturated (dense: no padding).
  double wire_bytes(const TransferShape& s) const { return wire_slots(s) * wire_bytes_per_slot(); }
  // Credits a transfer takes: messages, or its slots rounded up to whole flit-sized entries.
  unsigned credits(const TransferShape& s, CreditUnit unit) const;
  // Credits of the largest single message (max_payload_bytes of data plus the larger header).
  unsigned largest_message_credits(CreditUnit unit) const;

  // Payload bytes / wire bytes of a whole read or write (request plus response), saturated.
  double efficiency(bool write, unsigned bytes) const;

 private:
  TransferShape shape(unsigned header_bytes, unsigned data_bytes, unsigned messages) const;
  unsigned slots_of(unsigned bytes) const { return (bytes + f_.slot_bytes - 1) / f_.slot_bytes; }

  FlitFormat f_;
  unsigned area_ = 16;
  unsigned slots_per_flit_ = 1;
};

}  // namespace famsim
