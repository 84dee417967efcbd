#include "models/core/timeseries.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace famsim {

void TimeSeries::set_devices(std::vector<std::string> names,
                             std::vector<std::size_t> column_of_memory) {
  for (std::size_t c : column_of_memory) {
    if (c != kNoDevice && c >= names.size()) {
      throw std::logic_error("TimeSeries::set_devices: a memory's column is past the devices");
    }
  }
  if (!rows_.empty()) throw std::logic_error("TimeSeries::set_devices after the first sample");
  device_names_ = std::move(names);
  stride_ = device_names_.size() >= 2 ? device_names_.size() : 0;
  column_of_memory_ = stride_ ? std::move(column_of_memory) : std::vector<std::size_t>();
}

void TimeSeries::set_channel_devices(const std::vector<ChannelDevice>& devices) {
  if (!rows_.empty())
    throw std::logic_error("TimeSeries::set_channel_devices after the first sample");
  channels_of_memory_.clear();
  channel_devices_.clear();
  channel_stride_ = 0;
  for (const ChannelDevice& d : devices) {
    if (d.channels < 2) continue;
    if (d.memory >= channels_of_memory_.size()) channels_of_memory_.resize(d.memory + 1);
    channels_of_memory_[d.memory] = {channel_stride_, d.channels,
                                     static_cast<std::uint32_t>(channel_devices_.size())};
    channel_devices_.push_back(d);
    channel_stride_ += d.channels;
  }
}

namespace {

// Merges the `rows` rows of `v` (`columns` values each, row by row) pairwise, as coarsen() does the
// windows: rows 2i and 2i + 1 add up to row i.
template <class T>
void merge_rows(std::vector<T>& v, std::size_t columns, std::size_t rows) {
  const std::size_t n = (rows + 1) / 2;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t c = 0; c < columns; ++c) {
      T sum = v[2 * i * columns + c];
      if (2 * i + 1 < rows) sum += v[(2 * i + 1) * columns + c];
      v[i * columns + c] = sum;
    }
  }
  v.resize(n * columns);
}

// DeviceBalance over `d` columns of `rows` windows, each `merge` windows wide: bytes(i, c) the
// bytes of column c in window i, requests(i) the window's requests to the columns; a merged window
// counts with at least min_requests x d of them.
template <class Bytes, class Requests>
TimeSeries::DeviceBalance balance_by_window(std::size_t rows, std::size_t d, std::size_t merge,
                                            double threshold, Bytes bytes, Requests requests) {
  TimeSeries::DeviceBalance b;
  if (d < 2) return b;
  std::vector<std::uint64_t> run(d, 0);
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t c = 0; c < d; ++c) run[c] += bytes(i, c);
  }
  std::uint64_t run_total = 0;
  for (std::uint64_t v : run) run_total += v;
  if (run_total > 0) {
    b.run_max_over_mean = static_cast<double>(*std::max_element(run.begin(), run.end())) *
                          static_cast<double>(d) / static_cast<double>(run_total);
  }
  double weighted = 0;
  std::uint64_t weight = 0;
  std::vector<std::uint64_t> window(d);
  for (std::size_t first = 0; first < rows; first += merge) {
    const std::size_t last = std::min(rows, first + merge);
    std::uint64_t n = 0;
    std::fill(window.begin(), window.end(), 0);
    for (std::size_t i = first; i < last; ++i) {
      n += requests(i);
      for (std::size_t c = 0; c < d; ++c) window[c] += bytes(i, c);
    }
    if (n < TimeSeries::kBalanceMinRequests * d) continue;
    const std::uint64_t busiest = *std::max_element(window.begin(), window.end());
    std::uint64_t total = 0;
    for (std::uint64_t v : window) total += v;
    const double ratio =
        static_cast<double>(busiest) * static_cast<double>(d) / static_cast<double>(total);
    ++b.windows;
    weighted += ratio * static_cast<double>(total);
    weight += total;
    b.max_max_over_mean = std::max(b.max_max_over_mean, ratio);
  }
  if (weight > 0) b.mean_max_over_mean = weighted / static_cast<double>(weight);
  b.took_turns = b.windows > 0 && b.mean_max_over_mean >= threshold &&
                 b.mean_max_over_mean >= TimeSeries::kTurnsOverRun * b.run_max_over_mean;
  return b;
}

}  // namespace

void TimeSeries::coarsen() {
  merge_rows(channel_bytes_, channel_stride_, rows_.size());
  merge_rows(channel_requests_, channel_devices_.size(), rows_.size());
  merge_rows(device_bytes_, stride_, rows_.size());
  const std::size_t n = (rows_.size() + 1) / 2;
  for (std::size_t i = 0; i < n; ++i) {
    Row merged = rows_[2 * i];
    if (2 * i + 1 < rows_.size()) {
      const Row& o = rows_[2 * i + 1];
      merged.device_requests += o.device_requests;
      for (int d = 0; d < 2; ++d) {
        merged.bytes[d] += o.bytes[d];
        merged.requests[d] += o.requests[d];
      }
      for (unsigned c = 0; c < kTargetClasses; ++c) merged.target_bytes[c] += o.target_bytes[c];
      merged.latency_sum_ps += o.latency_sum_ps;
      merged.latency_max_ps = std::max(merged.latency_max_ps, o.latency_max_ps);
      for (unsigned b = 0; b < kBins; ++b) merged.bins[b] += o.bins[b];
    }
    rows_[i] = merged;
  }
  rows_.resize(n);
  window_ps_ *= 2;
}

double TimeSeries::percentile_ps(const Row& r, double q) {
  const std::uint64_t n = r.requests[0] + r.requests[1];
  if (n == 0) return 0;
  // The smallest bin holding at least ceil(q n) values.
  const auto want = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(n)));
  std::uint64_t seen = 0;
  for (unsigned b = 0; b < kBins; ++b) {
    seen += r.bins[b];
    if (seen >= std::max<std::uint64_t>(1, want)) {
      return std::min(bin_value_ps(b), static_cast<double>(r.latency_max_ps));
    }
  }
  return static_cast<double>(r.latency_max_ps);
}

std::string TimeSeries::csv() const {
  std::string o =
      "window_start_ns,window_end_ns,read_gbps,write_gbps,requests,latency_mean_ns,"
      "latency_p50_ns,latency_p90_ns,latency_p99_ns,latency_max_ns";
  for (TargetClass c : kAllTargetClasses) o += fmt::format(",{}_gbps", to_string(c));
  for (const std::string& d : device_names_) o += fmt::format(",device_{}_gbps", d);
  o += "\n";
  std::size_t first = 0;
  while (first < rows_.size() && rows_[first].requests[0] + rows_[first].requests[1] == 0) ++first;
  const double w_ns = static_cast<double>(window_ps_) * 1e-3;
  for (std::size_t i = first; i < rows_.size(); ++i) {
    const Row& r = rows_[i];
    const std::uint64_t n = r.requests[0] + r.requests[1];
    // bytes per ns = GB/s
    o += fmt::format(
        "{:.3f},{:.3f},{:.4f},{:.4f},{},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f}",
        static_cast<double>(i) * w_ns, static_cast<double>(i + 1) * w_ns,
        static_cast<double>(r.bytes[0]) / w_ns, static_cast<double>(r.bytes[1]) / w_ns, n,
        n ? static_cast<double>(r.latency_sum_ps) * 1e-3 / static_cast<double>(n) : 0.0,
        percentile_ps(r, 0.50) * 1e-3, percentile_ps(r, 0.90) * 1e-3, percentile_ps(r, 0.99) * 1e-3,
        static_cast<double>(r.latency_max_ps) * 1e-3);
    for (std::uint64_t b : r.target_bytes)
      o += fmt::format(",{:.4f}", static_cast<double>(b) / w_ns);
    for (std::size_t c = 0; c < devices(); ++c) {
      o += fmt::format(",{:.4f}", static_cast<double>(device_bytes(i, c)) / w_ns);
    }
    o += '\n';
  }
  return o;
}

nlohmann::json TimeSeries::summary() const {
  nlohmann::json j;
  j["window_ns"] = static_cast<double>(window_ps_) * 1e-3;
  std::size_t windows = 0;
  double peak_bw = 0, peak_p99 = 0;
  std::array<double, kTargetClasses> peak_target{};
  std::vector<double> peak_device(devices(), 0.0);
  const double w_ns = static_cast<double>(window_ps_) * 1e-3;
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    const Row& r = rows_[i];
    if (r.requests[0] + r.requests[1] == 0 && windows == 0) continue;
    ++windows;
    for (std::size_t c = 0; c < devices(); ++c) {
      peak_device[c] = std::max(peak_device[c], static_cast<double>(device_bytes(i, c)) / w_ns);
    }
    peak_bw = std::max(peak_bw, static_cast<double>(r.bytes[0] + r.bytes[1]) / w_ns);
    peak_p99 = std::max(peak_p99, percentile_ps(r, 0.99) * 1e-3);
    for (unsigned c = 0; c < kTargetClasses; ++c) {
      peak_target[c] = std::max(peak_target[c], static_cast<double>(r.target_bytes[c]) / w_ns);
    }
  }
  j["windows"] = windows;
  j["file"] = "timeseries.csv";
  j["peak_window_bandwidth_gbps"] = peak_bw;
  j["peak_window_p99_ns"] = peak_p99;
  nlohmann::json by_target = nlohmann::json::object();
  for (TargetClass c : kAllTargetClasses) {
    by_target[to_string(c)] = peak_target[static_cast<unsigned>(c)];
  }
  j["peak_window_by_target_gbps"] = by_target;
  nlohmann::json by_device = nlohmann::json::object();
  for (std::size_t c = 0; c < devices(); ++c) by_device[device_names_[c]] = peak_device[c];
  j["peak_window_by_device_gbps"] = by_device;
  j["device_balance_by_window"] = device_balance().to_json();
  nlohmann::json by_channel = nlohmann::json::object();
  for (const ChannelBalance& c : channel_balance()) by_channel[c.device] = c.to_json();
  j["channel_balance_by_window"] = std::move(by_channel);
  return j;
}

TimeSeries::DeviceBalance TimeSeries::device_balance() const {
  const std::size_t d = stride_;
  return balance_by_window(
      rows_.size(), d, 1, turns_threshold(d),
      [&](std::size_t i, std::size_t c) { return device_bytes_[i * d + c]; },
      [&](std::size_t i) { return rows_[i].device_requests; });
}

std::vector<TimeSeries::ChannelBalance> TimeSeries::channel_balance() const {
  std::vector<ChannelBalance> out;
  const std::size_t devices = channel_devices_.size();
  for (std::size_t k = 0; k < devices; ++k) {
    const ChannelDevice& dev = channel_devices_[k];
    const std::size_t first = channels_of_memory_[dev.memory].first;
    const std::size_t d = dev.channels;
    auto requests = [&](std::size_t i) { return channel_requests_[i * devices + k]; };
    // Merge windows until the busy ones average kBalanceMinRequests per channel.
    std::uint64_t total = 0;
    std::size_t busy = 0;
    for (std::size_t i = 0; i < rows_.size(); ++i) {
      total += requests(i);
      busy += requests(i) > 0;
    }
    std::size_t merge = 1;
    while (busy > 0 && merge < rows_.size() &&
           static_cast<double>(merge) * static_cast<double>(total) / static_cast<double>(busy) <
               static_cast<double>(kBalanceMinRequests * d)) {
      merge *= 2;
    }
    ChannelBalance c;
    c.device = dev.name;
    c.memory = dev.memory;
    c.channels = dev.channels;
    c.window_ns = static_cast<double>(window_ps_ * merge) * 1e-3;
    c.balance = balance_by_window(
        rows_.size(), d, merge, turns_threshold(d),
        [&](std::size_t i, std::size_t ch) {
          return channel_bytes_[i * channel_stride_ + first + ch];
        },
        requests);
    out.push_back(std::move(c));
  }
  return out;
}

nlohmann::json TimeSeries::ChannelBalance::to_json() const {
  if (balance.windows == 0) return nullptr;
  return {{"channels", channels},
          {"window_ns", window_ns},
          {"windows", balance.windows},
          {"mean_max_over_mean", balance.mean_max_over_mean},
          {"max_max_over_mean", balance.max_max_over_mean},
          {"run_max_over_mean", balance.run_max_over_mean},
          {"took_turns", balance.took_turns},
          {"min_requests_per_channel", kBalanceMinRequests}};
}

double TimeSeries::turns_threshold(std::size_t devices) {
  const double chance =
      std::sqrt(2.0 * std::log(static_cast<double>(devices)) / kBalanceMinRequests);
  return std::max(kTurns, 1.0 + 2.0 * chance);
}

nlohmann::json TimeSeries::DeviceBalance::to_json() const {
  if (windows == 0) return nullptr;
  return {{"windows", windows},
          {"mean_max_over_mean", mean_max_over_mean},
          {"max_max_over_mean", max_max_over_mean},
          {"run_max_over_mean", run_max_over_mean},
          {"took_turns", took_turns},
          {"min_requests_per_device", kBalanceMinRequests}};
}

TimeSeries::DirectionPhases TimeSeries::direction_phases() const {
  DirectionPhases p;
  std::size_t reads_only = 0, writes_only = 0;
  for (const Row& r : rows_) {
    if (r.requests[0] + r.requests[1] < kPhaseMinRequests) continue;
    ++p.windows;
    const double total = static_cast<double>(r.bytes[0] + r.bytes[1]);
    if (static_cast<double>(r.bytes[0]) >= kPhasePurity * total) ++reads_only;
    if (static_cast<double>(r.bytes[1]) >= kPhasePurity * total) ++writes_only;
  }
  if (p.windows > 0) {
    p.reads_only = static_cast<double>(reads_only) / static_cast<double>(p.windows);
    p.writes_only = static_cast<double>(writes_only) / static_cast<double>(p.windows);
  }
  return p;
}

}  // namespace famsim
