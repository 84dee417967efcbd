#include "models/noc/matching.h"

#include <algorithm>
#include <stdexcept>

namespace famsim {

IslipMatcher::IslipMatcher(unsigned inputs, unsigned outputs, unsigned iterations)
    : inputs_(inputs),
      outputs_(outputs),
      iterations_(iterations),
      grant_ptr_(outputs, 0),
      accept_ptr_(inputs, 0),
      matched_in_(inputs),
      matched_out_(outputs),
      grants_to_(inputs, RequestSet(outputs)) {
  if (iterations == 0) throw std::invalid_argument("iSLIP needs at least one iteration");
  granted_inputs_.reserve(inputs);
  per_iteration_.reserve(iterations);
}

void OldestFirstMatcher::match(std::vector<Candidate>& candidates, std::vector<Grant>& grants) {
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    if (a.since_ps != b.since_ps) return a.since_ps < b.since_ps;
    if (a.input != b.input) return a.input < b.input;
    return a.output < b.output;
  });
  const std::size_t first_grant = grants.size();
  for (const Candidate& c : candidates) {
    if (matched_in_.test(c.input) || matched_out_.test(c.output)) continue;
    matched_in_.set(c.input);
    matched_out_.set(c.output);
    grants.push_back({c.input, c.output});
  }
  for (std::size_t k = first_grant; k < grants.size(); ++k) {
    matched_in_.clear(grants[k].input);
    matched_out_.clear(grants[k].output);
  }
}

}  // namespace famsim
