// Matching policies of an input-queued crossbar: at one clock edge, which inputs send to which
// outputs. Each input sends at most one message and each output takes at most one (a matching of
// the bipartite request graph). Plain C++, no SystemC, tested alone (tests/unit/matching_test.cpp).
//
// The crossbar (crossbar.h) calls a matcher at every edge at which some output that can take a
// message has a requester, with
//   available      the outputs that can take a message at this edge (not busy with an earlier
//                  message's beats, room in their output buffer),
//   requesters(o)  the inputs that have an eligible message for output o: with FIFO inputs, the
//                  inputs whose FIFO head is for o (an input requests one output); with virtual
//                  output queues, the inputs whose queue for o is not empty (an input may request
//                  every output),
// and appends the matching to `grants`. Matchers keep their fairness state (pointers) between
// edges; nothing allocates after construction.
//
//   RoundRobinMatcher   outputs in turn, starting at an output that advances by one every edge
//                       (output `edge` mod M, `edge` being the number of the block's clock edge,
//                       so it turns with the clock, not with how often the block happens to
//                       arbitrate), each grant round-robin among the inputs not yet matched at
//                       this edge.
//                       With FIFO inputs this is plain per-output round-robin (RoundRobinArbiter).
//   IslipMatcher        iSLIP: request-grant-accept with round-robin grant and accept pointers,
//                       repeated for a configured number of iterations (McKeown 1999).
//   OldestFirstMatcher  greedy oldest-message-first: connects the pair whose message has waited
//                       longest, then the oldest remaining pair, ... With FIFO inputs this is
//                       "each output grants the requester whose head message is oldest".
#pragma once

#include "models/noc/arbiter.h"

#include <cstdint>
#include <vector>

namespace famsim {

// One connection of a matching: `input` sends one message to `output` at this edge.
struct Grant {
  unsigned input = 0;
  unsigned output = 0;
  bool operator==(const Grant& o) const { return input == o.input && output == o.output; }
};

class RoundRobinMatcher {
 public:
  RoundRobinMatcher() = default;
  RoundRobinMatcher(unsigned inputs, unsigned outputs)
      : next_input_(outputs, 0), matched_in_(inputs) {}

  // `edge`: the number of the clock edge being arbitrated (time / period).
  template <class Requesters>
  void match(const RequestSet& available, const Requesters& requesters, std::vector<Grant>& grants,
             std::uint64_t edge) {
    const unsigned outputs = available.size();
    const unsigned first = static_cast<unsigned>(edge % outputs);
    // Outputs first..end, then 0..first-1.
    for (int pass = 0; pass < 2; ++pass) {
      const unsigned from = pass == 0 ? first : 0;
      const unsigned to = pass == 0 ? outputs : first;
      for (unsigned o = available.next_at_or_after(from); o < to;
           o = available.next_at_or_after(o + 1)) {
        const RequestSet& r = requesters(o);
        const unsigned i = r.next_from_excluding(next_input_[o], matched_in_);
        if (i >= r.size()) continue;
        matched_in_.set(i);
        next_input_[o] = i + 1;
        grants.push_back({i, o});
      }
    }
    matched_in_.reset();
  }

 private:
  std::vector<unsigned> next_input_;  // per output: the input searched from first
  RequestSet matched_in_;             // scratch: inputs matched at this edge
};

// iSLIP (N. McKeown, "The iSLIP scheduling algorithm for input-queued switches", IEEE/ACM Trans.
// Networking 7(2), 1999). Every output o has a grant pointer g[o] (an input index), every input i
// an accept pointer a[i] (an output index). One iteration:
//   1. Request: every unmatched input requests every unmatched available output it has a
//      message for.
//   2. Grant: every unmatched output with requests grants the requesting input that appears
//      next in round-robin order starting at g[o].
//   3. Accept: every input with grants accepts the granting output that appears next in
//      round-robin order starting at a[i]. Only in the first iteration are the pointers moved:
//      a[i] to one beyond the accepted output, g[o] to one beyond the accepted input. A grant
//      that is not accepted moves nothing.
// Iterations repeat on the inputs and outputs left unmatched, up to `iterations` or until one
// adds nothing. Updating pointers only on first-iteration accepts is what desynchronises the
// grant pointers under load (each output's pointer moves past a different input), giving 100%
// throughput under uniform traffic with a single iteration, and what keeps it starvation-free.
// iSLIP converges to a maximal matching in at most N iterations, on average in fewer than
// log2 N (McKeown 1999, section VI).
class IslipMatcher {
 public:
  IslipMatcher() = default;
  IslipMatcher(unsigned inputs, unsigned outputs, unsigned iterations);

  template <class Requesters>
  void match(const RequestSet& available, const Requesters& requesters, std::vector<Grant>& grants);

  unsigned iterations() const { return iterations_; }
  unsigned grant_pointer(unsigned output) const { return grant_ptr_[output]; }
  unsigned accept_pointer(unsigned input) const { return accept_ptr_[input]; }
  // Sets the pointers (tests start from a worked example's state).
  void set_grant_pointer(unsigned output, unsigned input) { grant_ptr_[output] = input; }
  void set_accept_pointer(unsigned input, unsigned output) { accept_ptr_[input] = output; }
  // Matches made by each iteration of the last match() (index 0: the first iteration).
  const std::vector<unsigned>& matches_per_iteration() const { return per_iteration_; }

 private:
  unsigned inputs_ = 0;
  unsigned outputs_ = 0;
  unsigned iterations_ = 1;
  std::vector<unsigned> grant_ptr_;   // per output
  std::vector<unsigned> accept_ptr_;  // per input
  // Scratch, sized at construction.
  RequestSet matched_in_;
  RequestSet matched_out_;
  std::vector<RequestSet> grants_to_;     // per input: outputs that granted it this iteration
  std::vector<unsigned> granted_inputs_;  // inputs with at least one grant this iteration
  std::vector<unsigned> per_iteration_;
};

template <class Requesters>
void IslipMatcher::match(const RequestSet& available, const Requesters& requesters,
                         std::vector<Grant>& grants) {
  per_iteration_.clear();
  const std::size_t first_grant = grants.size();
  for (unsigned it = 0; it < iterations_; ++it) {
    // Request + grant: each unmatched available output picks among its unmatched requesters.
    granted_inputs_.clear();
    for (unsigned o = available.next_at_or_after_excluding(0, matched_out_); o < outputs_;
         o = available.next_at_or_after_excluding(o + 1, matched_out_)) {
      const unsigned i = requesters(o).next_from_excluding(grant_ptr_[o], matched_in_);
      if (i >= inputs_) continue;
      if (!grants_to_[i].any()) granted_inputs_.push_back(i);
      grants_to_[i].set(o);
    }
    if (granted_inputs_.empty()) break;
    // Accept: each granted input picks one of its grants.
    for (unsigned i : granted_inputs_) {
      const unsigned o = grants_to_[i].next_from(accept_ptr_[i]);
      grants_to_[i].reset();
      matched_in_.set(i);
      matched_out_.set(o);
      grants.push_back({i, o});
      if (it == 0) {
        accept_ptr_[i] = o + 1 >= outputs_ ? 0 : o + 1;
        grant_ptr_[o] = i + 1 >= inputs_ ? 0 : i + 1;
      }
    }
    per_iteration_.push_back(static_cast<unsigned>(granted_inputs_.size()));
  }
  for (std::size_t k = first_grant; k < grants.size(); ++k) {
    matched_in_.clear(grants[k].input);
    matched_out_.clear(grants[k].output);
  }
}

// Greedy oldest-first matching: the pairs (input, output) with an eligible message, oldest
// message first (ties: lower input index, then lower output index), each connected when both its
// input and its output are still free. With FIFO inputs every input has one pair, so this is
// each output granting the requester whose message has waited longest ("oldest cell first",
// cf. Mekkittikul and McKeown, ICCCN 1996, where OCF weights a maximum-weight matching by cell
// age; the greedy version gives a maximal matching that favours the oldest).
class OldestFirstMatcher {
 public:
  struct Candidate {
    std::uint64_t since_ps = 0;  // when the message arrived at the crossbar
    unsigned input = 0;
    unsigned output = 0;
  };
  OldestFirstMatcher() = default;
  OldestFirstMatcher(unsigned inputs, unsigned outputs)
      : matched_in_(inputs), matched_out_(outputs) {}

  // Reorders `candidates`.
  void match(std::vector<Candidate>& candidates, std::vector<Grant>& grants);

 private:
  RequestSet matched_in_;
  RequestSet matched_out_;
};

}  // namespace famsim
