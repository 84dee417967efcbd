// Trace reader speed: reads a whole trace some number of times and prints ns per line, by the wall
// clock and by the process CPU clock (the latter is less disturbed by other jobs sharing the
// cores). Measures, never asserts (STYLE.md). Built on demand, not by default:
//   cmake --build build --target trace_reader_bench
//   scripts/make_trace.py --format dramsim3 --requests 5000000 --address-bytes 16GiB -o t.trc
//   build/tests/trace_reader_bench dramsim3 t.trc 3
#include "traffic/trace/trace_reader.h"

#include <time.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s ramulator|dramsim3|dramsys TRACE [PASSES]\n", argv[0]);
    return 2;
  }
  const auto format = famsim::parse_trace_format(argv[1]);
  if (!format) {
    std::fprintf(stderr, "unknown format %s\n", argv[1]);
    return 2;
  }
  const int passes = argc > 3 ? std::atoi(argv[3]) : 3;
  try {
    famsim::TraceReader reader(argv[2], *format);
    famsim::TraceRecord r;
    for (int pass = 0; pass < passes; ++pass) {
      reader.rewind();
      std::uint64_t records = 0, writes = 0, address_sum = 0, last_time = 0;
      timespec cpu_start{}, cpu_end{};
      clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu_start);
      const auto start = std::chrono::steady_clock::now();
      while (reader.next(r)) {
        ++records;
        writes += r.write;
        address_sum += r.address;
        last_time = r.time;
      }
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu_end);
      const double cpu_seconds = static_cast<double>(cpu_end.tv_sec - cpu_start.tv_sec) +
                                 1e-9 * static_cast<double>(cpu_end.tv_nsec - cpu_start.tv_nsec);
      const double lines = static_cast<double>(reader.line());
      std::printf(
          "{\"format\": \"%s\", \"pass\": %d, \"lines\": %zu, \"records\": %llu, \"writes\": %llu, "
          "\"last_time\": %llu, \"address_sum\": %llu, \"seconds\": %.4f, \"ns_per_line\": %.2f, "
          "\"cpu_ns_per_line\": %.2f, \"mlines_per_s\": %.2f}\n",
          famsim::to_string(*format), pass, reader.line(), static_cast<unsigned long long>(records),
          static_cast<unsigned long long>(writes), static_cast<unsigned long long>(last_time),
          static_cast<unsigned long long>(address_sum), seconds, seconds * 1e9 / lines,
          cpu_seconds * 1e9 / lines, lines / seconds / 1e6);
    }
  } catch (const famsim::TraceError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
