#include "traffic/vmm_events.h"

#include "models/core/time_text.h"

#include <fmt/format.h>

#include <algorithm>

namespace famsim {

VmmEventPlayer::VmmEventPlayer(sc_core::sc_module_name name, SimContext& ctx,
                               std::vector<Action> actions)
    : sc_core::sc_module(name),
      Component(ctx.registry, this->name(), BlockKind::kOther),
      ctx_(ctx),
      actions_(std::move(actions)),
      wake_("wake", ctx.scheduler(), this, &Wakeup::call_behaviour<VmmEventPlayer>) {
  std::stable_sort(actions_.begin(), actions_.end(),
                   [](const Action& a, const Action& b) { return a.at_ps < b.at_ps; });
  SC_HAS_PROCESS(VmmEventPlayer);
  SC_METHOD(behaviour);
  sensitive << wake_.event();
  // Runs once at initialisation and asks for the first action's time.
}

void VmmEventPlayer::behaviour() {
  wake_.fired();
  const std::uint64_t now = now_ps();
  while (done_ < actions_.size() && actions_[done_].at_ps <= now) {
    try {
      actions_[done_].apply();
    } catch (const std::exception& e) {
      // e.g. a remap whose new location is full: an input error, as at elaboration.
      if (!ctx_.input_error) {
        ctx_.input_error = fmt::format("{}: {} at {} ns: {}", actions_[done_].source,
                                       actions_[done_].what, ns_of_ps(now), e.what());
      }
      ctx_.stop();
      return;
    }
    ++done_;
  }
  if (done_ < actions_.size()) wake_.at(actions_[done_].at_ps, now);
}

void VmmEventPlayer::report(ComponentReport& r, const ReportWindow&) const {
  nlohmann::json list = nlohmann::json::array();
  for (std::size_t i = 0; i < actions_.size(); ++i) {
    list.push_back({{"action", actions_[i].what},
                    {"at_ns", static_cast<double>(actions_[i].at_ps) * 1e-3},
                    {"applied", i < done_}});
  }
  r.extra["actions"] = list;
  r.utilization = 0;
}

}  // namespace famsim
