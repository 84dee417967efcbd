// BusWidthAdapter: joins a foreign initiator socket of another bus width to a TlmBridge, whose
// `in` is a tlm::tlm_target_socket<> of the default 32 bits (co-simulation; see README
// "Co-simulation").
//
// IEEE 1666-2011 binds sockets of the same BUSWIDTH only, so an initiator written with a 64-bit
// (or wider) socket, as many CPU and DMA models are, cannot bind to the bridge directly. The
// adapter is a target socket of IN_WIDTH bits and an initiator socket of OUT_WIDTH bits that pass
// every call through unchanged, both ways: nb_transport_fw, b_transport, get_direct_mem_ptr and
// transport_dbg forward, nb_transport_bw and invalidate_direct_mem_ptr back. It takes no time and
// keeps nothing: the payload, its phase and its annotated delay are the initiator's own.
//
// On a little-endian host (those famsim is built for) the generic payload's data array does not
// depend on BUSWIDTH: the bytes are stored and read back in the array's order whatever the width
// (IEEE 1666-2011, 14.18: words in host order). BUSWIDTH matters to byte enables and streaming
// widths narrower than a bus word (IEEE 1666-2011, 14.18), which the bridge refuses anyway
// (TLM_BYTE_ENABLE_ERROR_RESPONSE, TLM_BURST_ERROR_RESPONSE).
//
// Ports
//   in    target socket of IN_WIDTH bits: the foreign initiator binds its socket here
//   out   initiator socket of OUT_WIDTH bits: bind it to the bridge's `in`
//
//   famsim::BusWidthAdapter<64> adapter("adapter");
//   my_cpu.socket.bind(adapter.in);      // a tlm_initiator_socket<64>
//   adapter.out.bind(bridge.in);
#pragma once

#include <systemc>
#include <tlm>

namespace famsim {

template <unsigned IN_WIDTH, unsigned OUT_WIDTH = 32>
class BusWidthAdapter : public sc_core::sc_module,
                        private tlm::tlm_fw_transport_if<>,
                        private tlm::tlm_bw_transport_if<> {
 public:
  tlm::tlm_target_socket<IN_WIDTH> in;
  tlm::tlm_initiator_socket<OUT_WIDTH> out;

  explicit BusWidthAdapter(sc_core::sc_module_name name)
      : sc_core::sc_module(name), in("in"), out("out") {
    in.bind(static_cast<tlm::tlm_fw_transport_if<>&>(*this));
    out.bind(static_cast<tlm::tlm_bw_transport_if<>&>(*this));
  }

 private:
  using Payload = tlm::tlm_generic_payload;

  // The initiator's calls, forwarded.
  tlm::tlm_sync_enum nb_transport_fw(Payload& p, tlm::tlm_phase& phase,
                                     sc_core::sc_time& t) override {
    return out->nb_transport_fw(p, phase, t);
  }
  void b_transport(Payload& p, sc_core::sc_time& t) override { out->b_transport(p, t); }
  bool get_direct_mem_ptr(Payload& p, tlm::tlm_dmi& dmi) override {
    return out->get_direct_mem_ptr(p, dmi);
  }
  unsigned int transport_dbg(Payload& p) override { return out->transport_dbg(p); }

  // The target's calls, passed back.
  tlm::tlm_sync_enum nb_transport_bw(Payload& p, tlm::tlm_phase& phase,
                                     sc_core::sc_time& t) override {
    return in->nb_transport_bw(p, phase, t);
  }
  void invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end) override {
    in->invalidate_direct_mem_ptr(start, end);
  }
};

}  // namespace famsim
