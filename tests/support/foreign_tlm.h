// Textbook IEEE 1666-2011 base-protocol initiators' parts, with nothing of famsim in them: the
// operations a test sends and what came back, and an approximately timed initiator. The TLM
// bridge tests (tests/integration/tlm_bridge_test.cpp, tlm_memory_bridge_test.cpp) drive famsim's
// device with them.
#pragma once

#include <gtest/gtest.h>
#include <systemc>
#include <tlm>
#include <tlm_utils/peq_with_cb_and_phase.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace famsim::test {

inline constexpr std::uint64_t kBase = 1ULL << 40;  // the device's physical base in famsim
inline constexpr std::uint32_t kPoolBytes = 256;    // the payload pool's data size

inline std::vector<unsigned char> pattern(unsigned length, unsigned seed) {
  std::vector<unsigned char> b(length);
  for (unsigned i = 0; i < length; ++i) b[i] = static_cast<unsigned char>(seed * 37 + i * 11 + 3);
  return b;
}

struct Op {
  tlm::tlm_command command = tlm::TLM_READ_COMMAND;
  std::uint64_t address = 0;        // as the foreign initiator sees it (the device at 0)
  std::vector<unsigned char> data;  // a write's data, a read's answer
  unsigned length = 128;
  unsigned streaming_width = 0;  // 0: the length
  bool byte_enables = false;
  // Results.
  tlm::tlm_sync_enum begin_req_return = tlm::TLM_ACCEPTED;
  tlm::tlm_response_status status = tlm::TLM_INCOMPLETE_RESPONSE;
  std::uint64_t begin_req_ps = 0;
  std::uint64_t end_req_ps = 0;
  std::uint64_t response_ps = 0;
  bool answered = false;
};

inline Op write_op(std::uint64_t address, std::vector<unsigned char> data) {
  Op o;
  o.command = tlm::TLM_WRITE_COMMAND;
  o.address = address;
  o.length = static_cast<unsigned>(data.size());
  o.data = std::move(data);
  return o;
}
inline Op read_op(std::uint64_t address, unsigned length = 128) {
  Op o;
  o.address = address;
  o.length = length;
  return o;
}

// One operation by b_transport from the calling SC_THREAD, annotated with `delay_ps`, with a
// payload on the thread's stack (no memory manager); records when the call returned (its time
// plus the delay it gave back).
template <class Socket>
void transport_blocking(Socket& socket, Op& op, std::uint64_t delay_ps) {
  std::vector<unsigned char> buffer = op.data;
  buffer.resize(op.length);
  tlm::tlm_generic_payload p;
  p.set_command(op.command);
  p.set_address(op.address);
  p.set_data_ptr(buffer.data());
  p.set_data_length(op.length);
  p.set_streaming_width(op.length);
  p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  op.begin_req_ps = sc_core::sc_time_stamp().value() + delay_ps;
  sc_core::sc_time t = sc_core::sc_time::from_value(delay_ps);
  socket->b_transport(p, t);
  op.response_ps = sc_core::sc_time_stamp().value() + t.value();
  op.status = p.get_response_status();
  op.answered = true;
  if (op.command == tlm::TLM_READ_COMMAND) op.data = buffer;
}

// An approximately timed initiator as the standard's examples write one: it sends its operations
// in order, the next as soon as the previous has had END_REQ (or was completed at once) while at
// most `window` are unanswered; phases it receives go through a payload event queue, so each
// takes effect at its annotated time. Its payloads have its own memory manager, which counts the
// payloads given back: each must come back once, when the bridge and the initiator have both
// let go. A second thread may send other operations by b_transport meanwhile (blocking_ops):
// to the base protocol, another initiator on the same socket. Its socket is BUSWIDTH bits wide.
template <unsigned BUSWIDTH>
class ForeignAtOfWidth : public sc_core::sc_module, public tlm::tlm_mm_interface {
 public:
  tlm_utils::simple_initiator_socket<ForeignAtOfWidth, BUSWIDTH> socket;

  // `synchronous`: it takes the bridge's phases in the call instead of through its payload event
  // queue, at their annotated time (sc_time_stamp() + delay), and completes a response on return
  // (TLM_COMPLETED), as a fast initiator may.
  ForeignAtOfWidth(sc_core::sc_module_name name, std::vector<Op>& ops, unsigned window,
                   bool synchronous = false)
      : sc_core::sc_module(name),
        socket("socket"),
        ops_(ops),
        window_(window),
        synchronous_(synchronous),
        peq_(this, &ForeignAtOfWidth::on_phase),
        end_resp_peq_(this, &ForeignAtOfWidth::end_response) {
    socket.register_nb_transport_bw(this, &ForeignAtOfWidth::nb_transport_bw);
    for (std::size_t i = 0; i < ops.size(); ++i) {
      payloads_.push_back(std::make_unique<tlm::tlm_generic_payload>(this));
      buffers_.emplace_back(ops[i].length);
    }
    SC_HAS_PROCESS(ForeignAtOfWidth);
    SC_METHOD(send);
    sensitive << send_event_;
    SC_THREAD(send_blocking);
  }

  void free(tlm::tlm_generic_payload*) override { ++given_back; }

  unsigned given_back = 0;
  // Each BEGIN_RESP taken through the payload event queue is ended (END_RESP) this long after it
  // took effect rather than at once: the initiator holds the response meanwhile.
  std::uint64_t hold_response_ps = 0;
  // Operations the second thread sends by b_transport, one after another from 0, each annotated
  // with blocking_delay_ps.
  std::vector<Op>* blocking_ops = nullptr;
  std::uint64_t blocking_delay_ps = 0;

 private:
  std::size_t index_of(const tlm::tlm_generic_payload& p) const {
    for (std::size_t i = 0; i < payloads_.size(); ++i)
      if (payloads_[i].get() == &p) return i;
    ADD_FAILURE() << "a payload the initiator did not send";
    return 0;
  }

  void send() {
    if (next_ >= ops_.size() || waiting_end_req_ || in_flight_ >= window_) return;
    const std::size_t i = next_++;
    Op& op = ops_[i];
    tlm::tlm_generic_payload& p = *payloads_[i];
    p.acquire();
    p.set_command(op.command);
    p.set_address(op.address);
    if (op.command == tlm::TLM_WRITE_COMMAND) buffers_[i] = op.data;
    p.set_data_ptr(buffers_[i].data());
    p.set_data_length(op.length);
    p.set_streaming_width(op.streaming_width ? op.streaming_width : op.length);
    p.set_byte_enable_ptr(op.byte_enables ? buffers_[i].data() : nullptr);
    p.set_byte_enable_length(op.byte_enables ? op.length : 0);
    p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    op.begin_req_ps = sc_core::sc_time_stamp().value();
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    // A member, not a local: GCC 12 takes a local passed to the socket for a dangling pointer.
    delay_ = sc_core::SC_ZERO_TIME;
    op.begin_req_return = socket->nb_transport_fw(p, phase, delay_);
    ++in_flight_;
    if (op.begin_req_return == tlm::TLM_COMPLETED) {
      answer(p, sc_core::sc_time_stamp().value() + delay_.value());
      p.release();
    } else if (op.begin_req_return == tlm::TLM_UPDATED && phase == tlm::END_REQ) {
      op.end_req_ps = sc_core::sc_time_stamp().value() + delay_.value();
    } else {
      waiting_end_req_ = true;
    }
    send_event_.notify(sc_core::SC_ZERO_TIME);
  }

  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                     sc_core::sc_time& t) {
    if (!synchronous_) {
      peq_.notify(p, phase, t);
      return tlm::TLM_ACCEPTED;
    }
    const std::uint64_t at = sc_core::sc_time_stamp().value() + t.value();
    // The next request goes out from the initiator's own process, at the phase's time.
    send_event_.notify(t);
    if (phase == tlm::END_REQ) {
      ops_[index_of(p)].end_req_ps = at;
      waiting_end_req_ = false;
      return tlm::TLM_ACCEPTED;
    }
    answer(p, at);
    p.release();
    return tlm::TLM_COMPLETED;
  }

  void on_phase(tlm::tlm_generic_payload& p, const tlm::tlm_phase& phase) {
    if (phase == tlm::END_REQ) {
      ops_[index_of(p)].end_req_ps = sc_core::sc_time_stamp().value();
      waiting_end_req_ = false;
    } else if (phase == tlm::BEGIN_RESP) {
      answer(p, sc_core::sc_time_stamp().value());
      tlm::tlm_phase end = tlm::END_RESP;
      if (hold_response_ps > 0) {
        end_resp_peq_.notify(p, end, sc_core::sc_time::from_value(hold_response_ps));
      } else {
        end_response(p, end);
      }
    } else {
      ADD_FAILURE() << "unexpected phase " << phase;
    }
    send_event_.notify(sc_core::SC_ZERO_TIME);
  }

  void end_response(tlm::tlm_generic_payload& p, const tlm::tlm_phase&) {
    tlm::tlm_phase end = tlm::END_RESP;
    sc_core::sc_time t = sc_core::SC_ZERO_TIME;
    socket->nb_transport_fw(p, end, t);
    p.release();
  }

  void send_blocking() {
    if (!blocking_ops) return;
    for (Op& op : *blocking_ops) transport_blocking(socket, op, blocking_delay_ps);
  }

  void answer(tlm::tlm_generic_payload& p, std::uint64_t at_ps) {
    Op& op = ops_[index_of(p)];
    if (op.answered) ADD_FAILURE() << "operation answered twice";
    op.answered = true;
    op.status = p.get_response_status();
    op.response_ps = at_ps;
    if (op.command == tlm::TLM_READ_COMMAND)
      op.data.assign(p.get_data_ptr(), p.get_data_ptr() + op.length);
    --in_flight_;
  }

  std::vector<Op>& ops_;
  unsigned window_;
  bool synchronous_;
  std::vector<std::unique_ptr<tlm::tlm_generic_payload>> payloads_;
  std::vector<std::vector<unsigned char>> buffers_;
  tlm_utils::peq_with_cb_and_phase<ForeignAtOfWidth> peq_;
  tlm_utils::peq_with_cb_and_phase<ForeignAtOfWidth> end_resp_peq_;
  sc_core::sc_event send_event_;
  sc_core::sc_time delay_;
  std::size_t next_ = 0;
  unsigned in_flight_ = 0;
  bool waiting_end_req_ = false;
};

using ForeignAt = ForeignAtOfWidth<32>;  // the default socket width

}  // namespace famsim::test
