// Test entry point. SystemC owns main() (it calls sc_main), so GoogleTest runs from sc_main.
// Every SystemC warning or error report becomes a test failure, apart from warnings a test
// collects (test::CapturedWarnings).
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <systemc>

#include <cstdlib>

namespace {

void fail_on_report(const sc_core::sc_report& rep, const sc_core::sc_actions& actions) {
  if (rep.get_severity() == sc_core::SC_WARNING &&
      famsim::test::CapturedWarnings::take(rep.get_msg_type(), rep.get_msg())) {
    return;
  }
  if (rep.get_severity() >= sc_core::SC_WARNING) {
    ADD_FAILURE() << "SystemC " << (rep.get_severity() == sc_core::SC_WARNING ? "warning" : "error")
                  << ": " << rep.get_msg_type() << ": " << rep.get_msg();
  }
  sc_core::sc_report_handler::default_handler(rep, actions & ~sc_core::SC_ABORT);
}

}  // namespace

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  sc_core::sc_report_handler::set_handler(fail_on_report);
  sc_core::sc_report_handler::set_actions(sc_core::SC_ERROR,
                                          sc_core::SC_DISPLAY | sc_core::SC_THROW);
  sc_core::sc_report_handler::set_actions(sc_core::SC_FATAL,
                                          sc_core::SC_DISPLAY | sc_core::SC_THROW);
  return RUN_ALL_TESTS();
}

int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  return sc_core::sc_elab_and_sim(argc, argv);
}
