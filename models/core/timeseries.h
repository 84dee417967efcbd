// Bandwidth and latency per window of simulated time, over every initiator of a run: the data of
// timeseries.csv. A completed request counts in the window its response arrived in.
//
// Memory is bounded: at most kMaxRows windows are kept; when a run outgrows them, neighbouring
// windows merge pairwise and the window doubles, so a long run gets coarser windows instead of
// unbounded memory (the window actually used is reported). Latency percentiles per window come
// from a log histogram with 8 bins per octave (each value within 1/16 of an octave, about 4.4%, of
// the true one); the run-wide percentiles in stats.json are exact to their own histogram.
#pragma once

#include "models/core/log_bins.h"
#include "models/core/request.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace famsim {

class TimeSeries {
 public:
  static constexpr std::size_t kMaxRows = 4096;
  using Bins = LogLinearBins<3>;
  static constexpr unsigned kSubBins = Bins::kSub;  // 8 per octave
  static constexpr unsigned kBins = 49 * kSubBins;  // latencies up to 2^49 ps

  // window_ps 0: switched off (add() does nothing).
  explicit TimeSeries(std::uint64_t window_ps = 0) : window_ps_(window_ps) {}
  void set_window_ps(std::uint64_t w) { window_ps_ = w; }
  bool enabled() const { return window_ps_ > 0; }
  std::uint64_t window_ps() const { return window_ps_; }

  static constexpr std::size_t kNoDevice = ~std::size_t{0};
  // A column per expansion device, `names` in column order; `column_of_memory[i]` is the column of
  // the platform's memory i (MemoryLayout::find's index), kNoDevice for one that is not a device.
  // With one device its column is the device_gbps one, and nothing is counted per device.
  void set_devices(std::vector<std::string> names, std::vector<std::size_t> column_of_memory);
  std::size_t devices() const { return device_names_.size(); }
  // Whether add() needs the memory of each request: two devices or more.
  bool counts_by_device() const { return stride_ > 0; }

  // The memory channels of each expansion device that has two or more, counted per window for
  // channel_balance(): the device's name, its memory's index (MemoryLayout::find) and its channel
  // count. Called before the first sample.
  struct ChannelDevice {
    std::string name;
    std::size_t memory = 0;
    unsigned channels = 0;
  };
  void set_channel_devices(const std::vector<ChannelDevice>& devices);
  // Whether add() needs the memory and channel of each request: a device with two channels or more.
  bool counts_by_channel() const { return channel_stride_ > 0; }

  // `target`: the kind of memory the request went to (columns per target in csv()); `memory`: the
  // memory that served it (MemoryLayout::find), for the columns per device; `channel`: the channel
  // of that memory that served it (RequestExt::channel), for channel_balance().
  void add(std::uint64_t arrival_ps, std::uint32_t bytes, std::uint64_t latency_ps, bool write,
           TargetClass target, std::size_t memory = kNoDevice, std::uint32_t channel = 0) {
    if (window_ps_ == 0) return;
    const std::size_t w = row_for(arrival_ps);
    Row& r = rows_[w];
    if (memory < column_of_memory_.size() && column_of_memory_[memory] != kNoDevice) {
      device_bytes_[w * stride_ + column_of_memory_[memory]] += bytes;
      ++r.device_requests;
    }
    if (memory < channels_of_memory_.size() && channel < channels_of_memory_[memory].channels) {
      const ChannelColumns& c = channels_of_memory_[memory];
      channel_bytes_[w * channel_stride_ + c.first + channel] += bytes;
      ++channel_requests_[w * channel_devices_.size() + c.device];
    }
    r.bytes[write] += bytes;
    r.target_bytes[static_cast<unsigned>(target)] += bytes;
    ++r.requests[write];
    r.latency_sum_ps += latency_ps;
    if (latency_ps > r.latency_max_ps) r.latency_max_ps = latency_ps;
    ++r.bins[bin(latency_ps)];
  }

  // Windows up to the one holding the run's end, `end_ps` (exclusive): work may go on after the
  // last response arrives (an AI workload's last compute, a cut-off run's stalled tail), and its
  // windows then show no traffic instead of being left out. Nothing before the first response.
  void extend_to(std::uint64_t end_ps) {
    if (window_ps_ > 0 && !rows_.empty() && end_ps > 0) row_for(end_ps - 1);
  }

  // One line per window from the first with traffic to the last (or to the run's end:
  // extend_to()): window_start_ns, window_end_ns, read_gbps, write_gbps, requests,
  // latency_mean_ns, latency_p50_ns, latency_p90_ns, latency_p99_ns, latency_max_ns, then read +
  // write GB/s by target (TargetClass, in kAllTargetClasses order): device_gbps, local_hbm_gbps,
  // peer_gpu_gbps, standalone_memory_gbps, which add up to read_gbps + write_gbps; then read +
  // write GB/s of each device (set_devices), device_<name>_gbps, which add up to device_gbps.
  std::string csv() const;
  // {window_ns, windows, file, peak_window_bandwidth_gbps, peak_window_p99_ns,
  // peak_window_by_target_gbps {device, local_hbm, peer_gpu, standalone_memory}: each target's
  // own busiest window; peak_window_by_device_gbps {<device>: its busiest window};
  // device_balance_by_window (DeviceBalance::to_json); channel_balance_by_window {<device>:
  // ChannelBalance::to_json} for each device with two channels or more}.
  nlohmann::json summary() const;

  // How evenly the devices shared the bytes window by window: a run can be even over its whole
  // length while its load moves from device to device (buffers striped granule by granule and
  // walked in step), which the run-wide balance cannot show. Over the windows whose device
  // requests average at least kBalanceMinRequests per device (fewer make the ratio mostly noise):
  // each window's busiest device's bytes over the mean over all devices, its mean weighted by the
  // window's device bytes and its largest. Needs two devices or more. The devices took turns when
  // that mean is at least turns_threshold(devices) and at least kTurnsOverRun times the same ratio
  // over the whole run (its busiest device's bytes over the mean): the run had about one device's
  // bandwidth at a time.
  static constexpr std::uint64_t kBalanceMinRequests = 32;
  static constexpr double kTurns = 1.5;
  static constexpr double kTurnsOverRun = 1.25;
  // kTurns, raised where many devices make the busiest of them stand out by chance alone: with n
  // requests per device spread at random, the busiest of d devices is about 1 + sqrt(2 ln d / n)
  // times the mean (the largest of d near-normal counts); the threshold is twice that margin at
  // n = kBalanceMinRequests, so even traffic stays below it (1.5 for 2 devices, 1.52 for 3, 1.59
  // for 4, 2.02 for 64), while devices taking turns one at a time give d.
  static double turns_threshold(std::size_t devices);
  struct DeviceBalance {
    std::size_t windows = 0;
    double mean_max_over_mean = 0;  // weighted by each window's device bytes
    double max_max_over_mean = 0;
    double run_max_over_mean = 0;  // over all the windows' bytes together
    bool took_turns = false;
    // {windows, mean_max_over_mean, max_max_over_mean, run_max_over_mean, took_turns,
    // min_requests_per_device}, or null without two devices or a window that counts.
    nlohmann::json to_json() const;
  };
  DeviceBalance device_balance() const;

  // The same window by window among the memory channels of one device (set_channel_devices): a
  // sequential walk over an interleave granule coarse against the bytes in flight stays inside
  // one granule, so on one channel, at a time, and the channels take turns while their totals
  // over the run are even. A channel carries fewer requests than a device, so the windows are
  // the time series' merged in twos (window_ns, a power of two of them) until the windows with
  // any of the device's requests average at least kBalanceMinRequests per channel; a merged
  // window counts, and took_turns is decided, as for the devices (turns_threshold(channels)).
  struct ChannelBalance {
    std::string device;
    std::size_t memory = 0;
    unsigned channels = 0;
    double window_ns = 0;  // of the merged windows
    DeviceBalance balance;
    // {channels, window_ns, windows, mean_max_over_mean, max_max_over_mean, run_max_over_mean,
    // took_turns, min_requests_per_channel}, or null without a window that counts.
    nlohmann::json to_json() const;
  };
  // One per device of set_channel_devices, in its order.
  std::vector<ChannelBalance> channel_balance() const;

  // Whether reads and writes came at different times (a write phase, then a read phase) rather
  // than mixed. Over the windows that completed at least kPhaseMinRequests requests (fewer say
  // nothing about the mix): the fraction whose bytes were at least kPhasePurity reads, and the
  // fraction at least kPhasePurity writes. Resource utilisations are averages over the whole
  // run, so in a phased run a resource saturated in one phase can average well below saturation.
  static constexpr std::uint64_t kPhaseMinRequests = 32;
  static constexpr double kPhasePurity = 0.9;
  struct DirectionPhases {
    std::size_t windows = 0;  // windows with at least kPhaseMinRequests requests
    double reads_only = 0.0;  // fraction of those windows
    double writes_only = 0.0;
  };
  DirectionPhases direction_phases() const;

  // The bin of a latency (the last one takes everything above) and the value a bin stands for
  // (the middle of its range), in ps.
  static unsigned bin(std::uint64_t ps) {
    const unsigned b = Bins::index(ps);
    return b < kBins ? b : kBins - 1;
  }
  static double bin_value_ps(unsigned b) { return Bins::middle(b); }

 private:
  struct Row {
    std::array<std::uint64_t, 2> bytes{};     // [read, write]
    std::array<std::uint64_t, 2> requests{};  // [read, write]
    std::array<std::uint64_t, kTargetClasses> target_bytes{};  // by TargetClass
    std::uint64_t latency_sum_ps = 0;
    std::uint64_t latency_max_ps = 0;
    std::uint64_t device_requests = 0;  // to the devices of set_devices
    std::array<std::uint32_t, kBins> bins{};
  };
  // The row of the window holding time t, made (the series coarsened when it would pass
  // kMaxRows) if it is past the last.
  std::size_t row_for(std::uint64_t t) {
    std::uint64_t w = t / window_ps_;
    while (w >= kMaxRows) {
      coarsen();
      w = t / window_ps_;
    }
    if (w >= rows_.size()) {
      rows_.resize(w + 1);
      device_bytes_.resize(rows_.size() * stride_);
      channel_bytes_.resize(rows_.size() * channel_stride_);
      channel_requests_.resize(rows_.size() * channel_devices_.size());
    }
    return static_cast<std::size_t>(w);
  }
  void coarsen();
  static double percentile_ps(const Row& r, double q);

  // Bytes of device c in row i (with one device: the row's device bytes).
  std::uint64_t device_bytes(std::size_t i, std::size_t c) const {
    return stride_ ? device_bytes_[i * stride_ + c]
                   : rows_[i].target_bytes[static_cast<unsigned>(TargetClass::kDevice)];
  }

  std::uint64_t window_ps_;
  std::vector<Row> rows_;
  std::vector<std::string> device_names_;
  std::vector<std::size_t> column_of_memory_;  // empty with fewer than two devices
  std::size_t stride_ = 0;                     // columns counted per row: devices(), or 0
  std::vector<std::uint64_t> device_bytes_;    // rows_.size() x stride_, row by row

  // set_channel_devices: where memory i's channels sit in a row of channel_bytes_ (channels 0:
  // not counted) and its place in channel_devices_.
  struct ChannelColumns {
    std::size_t first = 0;
    std::uint32_t channels = 0;
    std::uint32_t device = 0;
  };
  std::vector<ChannelColumns> channels_of_memory_;
  std::vector<ChannelDevice> channel_devices_;
  std::size_t channel_stride_ = 0;               // the channels of all of them
  std::vector<std::uint64_t> channel_bytes_;     // rows_.size() x channel_stride_
  std::vector<std::uint64_t> channel_requests_;  // rows_.size() x channel_devices_.size()
};

}  // namespace famsim
