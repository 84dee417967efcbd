// Which resource limits a run, ranked, from every component's resources (ResourceUse).
//
// Two kinds of resource limit a flow of requests differently:
//  - a server with a configured bandwidth (a link direction's wire, a switch or NoC output port,
//    a DRAM channel's data bus) limits throughput when it is busy nearly all the time;
//  - a pool of slots (an outstanding-request window, a tag pool, a controller queue) limits it
//    when it is full nearly all the time while nothing downstream is saturated: throughput is then
//    slots / latency (Little's law) and the pool, not a wire, is what to enlarge.
// The limiter is the busiest bandwidth resource if it is saturated (utilisation >= threshold);
// otherwise the full pool entered latest on a request's round trip (a response-path pool, e.g. a
// link's response-VC credits, before a memory queue before device tags before a GPU's window: an
// earlier pool fills because a later one is full, never the reverse); otherwise nothing saturates
// and the workload's own pace (issue rate, compute gaps, dependencies) sets the throughput.
// Every other full pool is listed as blocked by the limiter.
//
// The analytic bound is operational analysis over the run's own traffic split: a bandwidth
// resource that carried a share s of the traffic caps the total at capacity / s, which is the
// achieved total divided by its utilisation; the bound is the smallest such cap on the path.
// "Total" is all the traffic the initiators moved, to every target (a GPU's own HBM, its peers',
// the expansion device): a wire's share is only known of that total, and the bound assumes the
// targets keep their shares of it.
#pragma once

#include "models/core/stats.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace famsim {

// Default utilisation at or above which a resource counts as saturated (bandwidth) or full
// (slots); `sim.saturation_threshold` sets it per run. Not 100 %: a busy DRAM channel loses the
// data bus to refresh alone for tRFC / tREFI of the time (DDR5 16 Gb: 295 ns / 3.9 us = 7.6 %,
// JESD79-5) and more to turnarounds and bank conflicts, so a channel at 85-90 % is as saturated as
// it gets.
inline constexpr double kSaturated = 0.85;

// A part of the achieved bandwidth by where it went ("expansion device", 159.4 GB/s).
struct AchievedPart {
  std::string target;
  double gbps = 0;
};

// The `bottlenecks` section of stats.json. `achieved_gbps`: the run's payload bandwidth over
// every target together (the summary's bandwidth_gbps: device, local and peer HBM alike), the
// only traffic whose split over the resources the utilisations reflect, so the bound is on that
// total too; `threshold`: the saturation threshold (0 < threshold <= 1); `achieved_by_target`:
// the parts of the total by target that carried traffic, which the sentence names when there are
// several, so that the total is not read as one target's.
nlohmann::json analyze_bottlenecks(const std::vector<ResourceRecord>& resources,
                                   double achieved_gbps, double threshold = kSaturated,
                                   const std::vector<AchievedPart>& achieved_by_target = {});

// The limiter by the rule above: the busiest bandwidth resource if it is saturated
// (utilisation >= threshold; `why` "bandwidth"), else the full pool entered latest on a request's
// round trip (`why` "slots"), else null.
const ResourceRecord* find_limiter(const std::vector<ResourceRecord>& resources, double threshold,
                                   const char** why = nullptr);

// How far along a request's way to the memory a block of kind `k` sits: GPU (and trace player)
// 0, link 1, switch and hub 2, device port 3, NoC 4, memory 5. A pool entered there on the way
// back is at 10 minus that on the request's round trip.
double path_depth(BlockKind k);

// A leaf/spine plane puts three switch chips on a request's way (source leaf, spine, destination
// leaf), all of kind switch: their pools and the links between them would tie at one depth, and a
// pool that fills behind a full one further on could be named in its place. The builder gives
// them these depths instead, in path order within (path_depth(kSwitch) - 0.5,
// path_depth(kDevicePort) - 0.5): stage 0 the source leaf, 1 the spine, 2 the destination leaf.
// A switch's own pools (its input buffers) at switch_stage_depth, the credits of a link feeding
// stage s > 0 between stage s - 1 and s (those feeding stage 0 keep path_depth(kSwitch) - 0.5).
double switch_stage_depth(unsigned stage);
double link_into_switch_stage_depth(unsigned stage);

// Where a peer request enters its target GPU, the peer ports of that GPU's memory hub: at
// path_depth(kDevicePort), the depth at which a device request enters its target, after every
// switch stage; the GPU link's wire into the hub at half a step before it. A hub's own GPU ports
// keep its kind's depth (2), which on the GPU's local path comes before its memory all the same.
double peer_entry_depth();
// A crossbar's output buffer holds a message from its grant until the next block takes it, so it
// is entered after the input buffer the message came from and before the link the output feeds:
// a twentieth of a step later on the round trip than `input_depth` (less than the half step to
// that link, and less than the gap to the next leaf/spine stage's link). `responses`: a response
// output buffer, whose depth counts back from the memory.
double output_buffer_depth(double input_depth, bool responses);

// A mesh NoC's pools in the order a message meets them, between the port logic's and the memory's:
// `fraction` 0 for the injection channel a message enters, 1 for the ejection channel it leaves
// by, and for a router input in between how far along the routes of its packets the link feeding
// it sits (links crossed before it plus a half, over the route lengths, summed over the packets).
// Within path_depth(kNoc) +- 0.4 (the crossbar's input and output buffers sit at +0 and +0.05).
// `responses`: the response network, whose depth counts back from the memory.
double noc_pool_depth(double fraction, bool responses);

// A component or resource name with its instance numbers replaced by '*' ("fam0_link5" ->
// "fam*_link*", "tags (port 3)" -> "tags (port *)"): the class that groups like resources.
std::string resource_class(const std::string& component);
// The group of like resources a resource belongs to: its component's class and its own name's
// ("fam*_link* response wire"), by which the analysis counts alike resources, a per-phase
// limiter is told from another, and a sweep names its limiter.
std::string resource_group(const std::string& component, const std::string& resource);

}  // namespace famsim
