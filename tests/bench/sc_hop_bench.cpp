// What a bare SystemC TLM-2.0 AT hop costs on this host: the yardstick of the skeleton issue's
// speed target ("a bare SystemC AT hop costs about 60 ns of host time here"). Nothing of famsim
// is in it. A ring of `hops` textbook AT modules passes `in_flight` payloads around: each module
// takes BEGIN_REQ in nb_transport_fw (answering END_REQ at once, TLM_UPDATED), puts the payload
// in a tlm_utils::peq_with_get for `delay` ps, and an SC_METHOD on the queue's event hands it to
// the next module. A hop is one such call, one timed notification and one method activation.
// Payloads start 1 ps apart, so with no more in flight than the delay has picoseconds no two
// share an instant and every hop is its own activation (famsim's wake-ups are not batched
// either). Printed, never asserted. Not built by default:
//   cmake --build build --target sc_hop_bench
//   build/tests/sc_hop_bench [hops (12)] [payloads in flight (4096)] [hop traversals (20000000)]
//                            [delay ps (10000)]
#include <systemc>
#include <tlm>
#include <tlm_utils/peq_with_get.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

namespace {

struct Hop : sc_core::sc_module {
  tlm_utils::simple_target_socket<Hop> in;
  tlm_utils::simple_initiator_socket<Hop> out;
  tlm_utils::peq_with_get<tlm::tlm_generic_payload> peq;
  sc_core::sc_time delay;
  std::uint64_t* traversals;  // shared count; payloads stop moving when it reaches `limit`
  std::uint64_t limit;

  Hop(sc_core::sc_module_name name, sc_core::sc_time d, std::uint64_t* count, std::uint64_t lim)
      : sc_core::sc_module(name),
        in("in"),
        out("out"),
        peq("peq"),
        delay(d),
        traversals(count),
        limit(lim) {
    in.register_nb_transport_fw(this, &Hop::nb_transport_fw);
    SC_HAS_PROCESS(Hop);
    SC_METHOD(forward);
    sensitive << peq.get_event();
    dont_initialize();
  }

  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                     sc_core::sc_time& t) {
    peq.notify(p, t + delay);
    phase = tlm::END_REQ;
    return tlm::TLM_UPDATED;
  }

  void forward() {
    while (tlm::tlm_generic_payload* p = peq.get_next_transaction()) {
      if (++*traversals >= limit) return;  // the run ends when nothing is left to do
      tlm::tlm_phase phase = tlm::BEGIN_REQ;
      sc_core::sc_time t = sc_core::SC_ZERO_TIME;
      out->nb_transport_fw(*p, phase, t);
    }
  }
};

}  // namespace

int sc_main(int argc, char** argv) {
  const unsigned hops = argc > 1 ? static_cast<unsigned>(std::atoi(argv[1])) : 12;
  const unsigned in_flight = argc > 2 ? static_cast<unsigned>(std::atoi(argv[2])) : 4096;
  const std::uint64_t limit = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 20000000;
  const std::uint64_t delay_ps = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 10000;
  if (hops < 2 || in_flight == 0 || in_flight > delay_ps) {
    std::fprintf(stderr,
                 "usage: sc_hop_bench [hops >= 2] [in_flight 1 .. delay_ps] [traversals] "
                 "[delay_ps]\n");
    return 2;
  }
  std::uint64_t traversals = 0;
  const sc_core::sc_time delay(static_cast<double>(delay_ps), sc_core::SC_PS);
  std::vector<std::unique_ptr<Hop>> ring;
  for (unsigned i = 0; i < hops; ++i) {
    ring.push_back(std::make_unique<Hop>(sc_core::sc_gen_unique_name("hop"), delay, &traversals,
                                         limit));
  }
  for (unsigned i = 0; i < hops; ++i) ring[i]->out.bind(ring[(i + 1) % hops]->in);
  // Payloads spread around the ring, 1 ps apart.
  std::vector<tlm::tlm_generic_payload> payloads(in_flight);
  for (unsigned k = 0; k < in_flight; ++k) {
    ring[k % hops]->peq.notify(payloads[k], sc_core::sc_time(static_cast<double>(k), sc_core::SC_PS));
  }
  const auto t0 = std::chrono::steady_clock::now();
  sc_core::sc_start();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf(
      "{\"hops\":%u,\"in_flight\":%u,\"traversals\":%llu,\"host_seconds\":%.3f,"
      "\"host_ns_per_hop\":%.1f}\n",
      hops, in_flight, static_cast<unsigned long long>(traversals), seconds,
      seconds * 1e9 / static_cast<double>(traversals));
  return 0;
}
