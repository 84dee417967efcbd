// famsim command line.
//
//   famsim run [--platform F] [--workload F] [--set key.path=value]... [--seed N] [--out DIR]
//              [--dram-log] [--txn-log] [--txn-data] [--progress SECONDS]
//              [--trace FILE [--trace-format F] [--max-outstanding N]]
//   famsim check-dram-log --preset NAME [--set key=value]... FILE...
//   famsim validate --platform F [--workload F] [--set key.path=value]...
//   famsim bench [--platform F] [--workload F] [--set key.path=value]... [--mib-per-gpu N]
//   famsim sweep FILE [--out DIR] [--jobs N]
//
// Exit codes: 0 success; 2 bad input (configuration, workload, trace, command line);
// 1 internal error or a failed conservation check.
#include "models/core/json_text.h"
#include "models/memory/dram/timing_checker.h"
#include "platforms/presets.h"
#include "sc_main/huge_pages.h"
#include "sc_main/output_dir.h"
#include "sc_main/report.h"
#include "sc_main/simulation.h"
#include "sc_main/sweep.h"
#include "sc_main/version.h"
#include "traffic/ai/generators.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <systemc>
#ifdef FAMSIM_MPI
#include <mpi.h>
#endif

#include <sys/resource.h>
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <set>
#include <thread>

namespace {

constexpr int kExitOk = 0;
constexpr int kExitInternal = 1;
constexpr int kExitBadInput = 2;

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

void configure_systemc_reports() {
  // Every SystemC error or fatal report ends the run with an exception the command turns into
  // exit code 1, instead of an abort with a core dump.
  sc_core::sc_report_handler::set_actions(sc_core::SC_ERROR,
                                          sc_core::SC_DISPLAY | sc_core::SC_THROW);
  sc_core::sc_report_handler::set_actions(sc_core::SC_FATAL,
                                          sc_core::SC_DISPLAY | sc_core::SC_THROW);
  // famsim never uses the deprecated features this warns about; keep the terminal clean.
  sc_core::sc_report_handler::set_actions("/IEEE_Std_1666/deprecated", sc_core::SC_DO_NOTHING);
  // famsim reports why it stopped itself.
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO,
                                          sc_core::SC_DO_NOTHING);
}

int do_run(const famsim::RunOptions& opt, const std::string& out_dir, double progress_seconds) {
  const auto t0 = std::chrono::steady_clock::now();
  famsim::ConfigDoc doc = famsim::load_config(opt);
  // The run writes into a staging directory and its files replace the previous run's only once
  // it has completed: a run stopped by an error leaves the directory as it was.
  famsim::OutputDir out(out_dir);
  famsim::Simulation sim(std::move(doc), out_dir, out.staging());
  sim.report_progress(progress_seconds, std::cerr);
  sim.run();
  if (sim.input_error()) {
    std::cerr << "famsim: error: " << *sim.input_error() << "\n";
    return kExitBadInput;
  }
  sim.finish_transaction_log();
  const double host = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const nlohmann::json stats = sim.results(host, peak_rss_mib());
  const std::string staged = out.staging();
  famsim::write_file_atomically(staged + "/config.yaml", sim.config_yaml());
  const std::string series = sim.timeseries_csv();
  if (!series.empty()) famsim::write_file_atomically(staged + "/timeseries.csv", series);
  const std::string timeline = sim.timeline_json();
  if (!timeline.empty()) famsim::write_file_atomically(staged + "/timeline.json", timeline);
  famsim::write_file_atomically(staged + "/stats.json", famsim::json_text(stats, 2) + "\n");
  out.publish();
  std::cout << famsim::summary_text(stats, out_dir);
  const bool timing_ok =
      !stats.contains("dram_timing_check") || stats["dram_timing_check"]["ok"].get<bool>();
  const bool reports_ok = stats["report_probe_check"]["ok"].get<bool>();
  return stats["conservation"]["ok"].get<bool>() && timing_ok && reports_ok ? kExitOk
                                                                            : kExitInternal;
}

// famsim bench sizes the first stream of the workload it runs: mib_per_gpu MiB per GPU, unless a
// --set gives that stream's total_bytes (both at once is refused). Without a workload file (the
// built-in saturating random reads, or the platform file's own `workload:`) the default size
// applies; a workload file keeps its own unless --mib-per-gpu is given. What bench cannot do is
// said in the user's terms, never as an override the user did not type.
void size_bench_workload(famsim::ConfigDoc& doc, const famsim::RunOptions& opt,
                         std::uint64_t mib_per_gpu, bool mib_given) {
  const std::string platform =
      opt.platform_file ? *opt.platform_file : "(built-in) platforms/nvl8_fam.yaml";
  const YAML::Node& root = doc.root;
  if (root["trace_player"].IsDefined()) {
    throw famsim::ConfigError(
        platform +
        ": a standalone memory platform (trace_player): it has no GPUs, only memory channels "
        "that replay a memory trace, so famsim bench's saturating random-read workload, which "
        "GPUs issue, cannot run on it; bench a GPU platform (e.g. platforms/nvl8_fam.yaml), or "
        "time a trace replay with famsim run --platform " +
        platform + " --trace FILE");
  }
  if (opt.workload_file && !mib_given) return;  // the file's own size
  const std::string key = "workload.streams.0.total_bytes";
  for (const std::string& o : opt.overrides) {
    if (o.rfind(key + "=", 0) != 0) continue;
    if (!mib_given) return;  // the user's own size
    throw famsim::ConfigError(fmt::format(
        "--mib-per-gpu {} and --set {} both give the size of the workload's first stream; "
        "expected one of them",
        mib_per_gpu, o));
  }
  const YAML::Node streams = root["workload"]["streams"];
  if (!streams.IsSequence() || streams.size() == 0 || !streams[0].IsMap()) return;  // parse says
  for (const std::string& kind : famsim::generator_kinds()) {
    if (!streams[0][kind].IsDefined()) continue;
    // An AI workload sizes itself (steps, layers, prompts): nothing to set.
    if (!mib_given) return;
    const std::string workload =
        opt.workload_file
            ? *opt.workload_file
            : fmt::format("{}'s workload ({})", platform, doc.sources->source_of("workload"));
    throw famsim::ConfigError(fmt::format(
        "--mib-per-gpu: sizes a workload's first stream when it is an access pattern, but the "
        "first stream of {} is a {} stream, which sets its own size; drop --mib-per-gpu",
        workload, kind));
  }
  YAML::Node first = doc.root["workload"]["streams"][0];
  first["total_bytes"] = std::to_string(mib_per_gpu) + "MiB";
  doc.sources->set(key, "famsim bench --mib-per-gpu " + std::to_string(mib_per_gpu));
}

// Whether main() put the heap on huge pages (sc_main/huge_pages.h): the bench reports it beside
// its figures, which it changes by a few per cent.
bool g_heap_huge_pages = false;

// Speed benchmark: the default platform (nvl8_fam) under the saturating random-read workload, or
// the given ones; reports simulated requests per host second and peak memory, writes no files.
int do_bench(const famsim::RunOptions& opt, std::uint64_t mib_per_gpu, bool mib_given) {
  const auto t0 = std::chrono::steady_clock::now();
  famsim::ConfigDoc doc = famsim::load_config(opt);
  size_bench_workload(doc, opt, mib_per_gpu, mib_given);
  famsim::Simulation sim(std::move(doc));
  const auto t1 = std::chrono::steady_clock::now();
  sim.run();
  const auto t2 = std::chrono::steady_clock::now();
  if (sim.input_error()) {
    std::cerr << "famsim: error: " << *sim.input_error() << "\n";
    return kExitBadInput;
  }
  const double elab = std::chrono::duration<double>(t1 - t0).count();
  const double host = std::chrono::duration<double>(t2 - t1).count();
  const famsim::InitiatorTotals t = sim.totals();
  nlohmann::json j = {
      {"platform", sim.config().platform.name},
      {"workload", sim.config().workload.name},
      // The workload's name is the file's (or the built-in one's): the --set overrides say what
      // was changed in it, so a figure taken with 30 % writes does not read as random reads.
      {"overrides", opt.overrides},
      {"kernel", sim.config().sim.kernel == famsim::Kernel::kFamsim ? "famsim" : "systemc"},
      {"requests", t.completed},
      {"simulated_time_ns", famsim::to_ns(sim.simulated_time())},
      {"elaboration_seconds", elab},
      {"simulation_seconds", host},
      {"requests_per_host_second", host > 0 ? t.completed / host : 0.0},
      {"peak_rss_mib", peak_rss_mib()},
      {"heap_huge_pages", g_heap_huge_pages}};
  // The famsim kernel counts the block activations it ran: the model's events per request.
  if (const famsim::Scheduler* s = sim.context().scheduler()) {
    j["wakeups"] = s->wakeups_run();
    j["wakeups_per_request"] =
        t.completed ? static_cast<double>(s->wakeups_run()) / static_cast<double>(t.completed)
                    : 0.0;
  }
  std::cout << famsim::json_text(j) << "\n";
  const bool ok = t.issued == t.completed && sim.context().pool.in_use() == 0;
  return ok ? kExitOk : kExitInternal;
}

int do_validate(const famsim::RunOptions& opt) {
  // Elaborating the platform and mapping the workload's buffers catches everything run would
  // reject before simulating (a buffer larger than its device, say).
  const famsim::Simulation sim(famsim::load_config(opt));
  std::cout << famsim::validation_text(sim.config());
  for (const std::string& w : sim.whole_model_warnings()) std::cout << "warning: " << w << "\n";
  for (const std::string& n : sim.placement_notes()) std::cout << "note: " << n << "\n";
  return kExitOk;
}

// Checks DRAM command logs (famsim's or an RTL test bench's) against a memory preset with the
// independent timing checker. Exit 0 clean, 1 violations, 2 bad input.
int do_check_dram_log(const std::string& preset, const std::vector<std::string>& overrides,
                      const std::vector<std::string>& files) {
  if (files.empty()) {
    throw famsim::ConfigError(
        "check-dram-log: no command log given; expected one or more DRAM command log files (CSV, "
        "as famsim run --dram-log writes into DIR/dram/) after the options: famsim "
        "check-dram-log --preset " +
        preset + " FILE...");
  }
  const std::string path = "platforms/presets/memory/" + preset + ".yaml";
  const auto text = famsim::embedded_file(path);
  if (!text) {
    std::string known;
    for (const auto& n : famsim::preset_names("memory")) known += " " + n;
    throw famsim::ConfigError("--preset: no memory preset '" + preset + "' (known:" + known + ")");
  }
  famsim::ConfigDoc doc;
  doc.sources = std::make_shared<famsim::ConfigSources>(path);
  doc.root = famsim::load_yaml_text(*text, path);
  // A timing --set in one unit replaces the preset's value in either, as in a run.
  std::set<std::string> timing_keys;
  for (const std::string& o : overrides) {
    const std::string key = o.substr(0, o.find('='));
    if (key.rfind("timing.", 0) == 0) timing_keys.insert(key.substr(7));
  }
  famsim::drop_preset_timing_replaced(doc.root, timing_keys);
  famsim::apply_overrides(doc, overrides);
  famsim::ConfigNode root(doc.root, "", doc.sources);
  const famsim::dram::Spec spec = famsim::dram::load_spec(root, preset);
  // A key the spec does not read (a misspelt organisation.ranks) would leave the preset's value
  // in place and report a correct log's commands as violations: refuse it. The stacked-memory
  // keys size a platform's channels, not one channel's timing.
  root.ignore("channels_per_stack");
  root.ignore("stack_capacity_gib");
  // The notes on assumed values say nothing about timing; a note for a value the preset does not
  // give is refused as in a run.
  root.assumptions("assumptions");
  root.finish();
  bool clean = true;
  for (const std::string& f : files) {
    famsim::dram::LogCheckResult r;
    try {
      r = famsim::dram::check_log_file(f, spec);
    } catch (const std::runtime_error& e) {
      throw famsim::ConfigError(e.what());
    }
    std::cout << f << ": " << r.commands << " commands, " << r.violation_count << " violations\n";
    for (const auto& v : r.violations) {
      std::cout << "  line " << v.line << " cycle " << v.cycle << ": " << v.constraint << ": "
                << v.message << "\n";
    }
    clean = clean && r.violation_count == 0;
  }
  return clean ? kExitOk : kExitInternal;
}

int do_sweep(const std::string& file, std::string out_dir, unsigned jobs) {
  // The sweep is read, and its keys checked, before anything is written: its name gives the
  // default output directory. Then it is read again with built-in platforms written into that
  // directory for the points to read.
  const std::string name = famsim::parse_sweep(file).name;
  famsim::check_sweep_keys(file);
  famsim::check_sweep_points(file);
  if (out_dir.empty()) out_dir = "sweep-" + name;
  famsim::make_sweep_out_dir(out_dir);
  const famsim::SweepSpec spec =
      famsim::parse_sweep(file, (std::filesystem::path(out_dir) / "inputs").string());
  const auto points = famsim::expand_points(spec);
  famsim::SweepOptions so;
  so.out_dir = out_dir;
  unsigned per_node = 1;  // sweep processes sharing this machine's cores
#ifdef FAMSIM_MPI
  // Under mpirun (Open MPI sets OMPI_COMM_WORLD_SIZE) the points are spread over the ranks.
  const bool mpi = std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr;
  if (mpi) {
    MPI_Init(nullptr, nullptr);
    int r = 0, n = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    so.rank = static_cast<unsigned>(r);
    so.ranks = static_cast<unsigned>(n);
    if (const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE")) {
      per_node = std::max(1, std::atoi(local));
    }
  }
#endif
  so.jobs = jobs ? jobs : std::max(1u, std::thread::hardware_concurrency() / per_node);
  so.famsim = std::filesystem::read_symlink("/proc/self/exe").string();
  auto results = famsim::run_points(spec, points, so);
#ifdef FAMSIM_MPI
  if (mpi) {
    if (so.ranks > 1) results = famsim::gather_results(std::move(results), so.rank, so.ranks, out_dir);
    MPI_Finalize();
    if (so.rank != 0) return kExitOk;  // rank 0 reports for the whole sweep
  }
#endif
  const std::size_t failed =
      famsim::write_sweep_outputs(spec, points, results, out_dir, so.ranks);
  std::cout << fmt::format("sweep {}: {} points, {} ok, {} failed; results: {}/results.csv\n",
                           spec.name, points.size(), points.size() - failed, failed, out_dir);
  return failed == 0 ? kExitOk : kExitInternal;
}

int famsim_main(int argc, char** argv) {
  CLI::App app{
      "famsim: cycle-approximate SystemC/TLM-2.0 model of a fabric-attached memory "
      "expansion device for AI accelerators"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("famsim ") + famsim::kVersion);

  famsim::RunOptions opt;
  std::string platform, workload, out_dir = "famsim-out";
  std::string seed;
  // CLI11 takes the argument after an option that needs a value as its value, even the next
  // option: "--seed --out DIR" set the seed to "--out" and then found DIR unexpected; --set takes
  // every argument up to the next option, and the first one whatever it is ("--set --out DIR" took
  // "--out" and DIR as two overrides). No value of these options, and no key path, starts with
  // "--", so one that does means the option's value is missing. `what`: the value expected.
  const auto value_check = [](std::string what) {
    return [what](const std::string& v) {
      return v.rfind("--", 0) == 0 ? "expected " + what + " after the option, got the option " + v +
                                         " (is the value missing?)"
                                   : std::string();
    };
  };
  const auto needs_value = value_check("a value");
  const auto set_needs_value = value_check("key.path=value");

  // CLI::Range says "Value lots not in range 1 to 1024" of text that is no number at all, and
  // takes "nan" for a number; these say what the option expects.
  const auto whole_number = [](std::uint64_t min, std::uint64_t max) {
    return [min, max](const std::string& v) {
      std::uint64_t n = 0;
      const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
      const bool ok =
          !v.empty() && ec == std::errc() && end == v.data() + v.size() && n >= min && n <= max;
      return ok ? std::string()
                : fmt::format("expected a whole number in [{}, {}], got '{}'", min, max, v);
    };
  };

  CLI::App* run = app.add_subcommand("run", "Simulate a platform under a workload");
  run->add_option("--platform", platform, "Platform YAML (default: built-in nvl8_fam)")
      ->check(needs_value);
  run->add_option("--workload", workload,
                  "Workload YAML (default: the platform's, else random_read)")
      ->check(needs_value);
  run->add_option("--set", opt.overrides, "Override a configuration key: key.path=value")
      ->take_all()
      ->check(set_needs_value);
  CLI::Option* seed_opt =
      run->add_option("--seed", seed, "Random seed (default: sim.seed or 1)")->check(needs_value);
  run->add_option("--out", out_dir, "Output directory (default: famsim-out)")->check(needs_value);
  bool dram_log = false;
  run->add_flag("--dram-log", dram_log,
                "Write every DRAM controller's command log to DIR/dram/ and check it with the "
                "timing checker");
  bool txn_log = false;
  run->add_flag("--txn-log", txn_log,
                "Write every completed request to DIR/transactions.csv (sim.transaction_log)");
  bool txn_data = false;
  run->add_flag("--txn-data", txn_data,
                "Add each request's data hash to DIR/transactions.csv (sim.transaction_log_data; "
                "writes the log as --txn-log does)");
  // A long run says how far it has got, on a terminal: a typo that makes a workload far bigger
  // than meant shows in its first lines rather than after hours of silence.
  double progress_seconds = isatty(STDERR_FILENO) ? 10.0 : 0.0;
  run->add_option("--progress", progress_seconds,
                  "Print simulated time, requests completed and, when the workload's end is "
                  "known, the share done and host time left to stderr every SECONDS of host "
                  "time (default 10 when stderr is a terminal, else none; 0: none; famsim kernel)")
      ->check([](const std::string& v) {
        // A whole decimal number, not NaN (every comparison with it is false) or text.
        char* end = nullptr;
        const double x = std::strtod(v.c_str(), &end);
        const bool ok = !v.empty() && end == v.c_str() + v.size() && x >= 0 && x <= 1e6;
        return ok ? std::string() : "expected a number of seconds in [0, 1000000], got '" + v + "'";
      });
  std::string trace_file, trace_format;
  std::uint64_t max_outstanding = 0;
  for (CLI::App* sub : {run}) {
    sub->add_option("--trace", trace_file,
                    "Trace to replay on a standalone memory platform (platforms/dram_*.yaml)")
        ->check(needs_value);
    sub->add_option("--trace-format", trace_format, "ramulator | dramsim3 | dramsys")
        ->check(CLI::IsMember({"ramulator", "dramsim3", "dramsys"}));
    sub->add_option("--max-outstanding", max_outstanding,
                    "Trace player: requests in flight at most")
        ->check(whole_number(1, std::uint64_t{1} << 20));
  }

  CLI::App* validate =
      app.add_subcommand("validate", "Check a configuration, print derived figures");
  validate->add_option("--platform", platform, "Platform YAML")->required()->check(needs_value);
  validate->add_option("--workload", workload, "Workload YAML")->check(needs_value);
  validate->add_option("--set", opt.overrides, "Override a configuration key: key.path=value")
      ->take_all()
      ->check(set_needs_value);

  CLI::App* bench = app.add_subcommand(
      "bench", "Measure simulation speed (requests per host second, peak RSS); writes no files");
  std::uint64_t bench_mib = 16;
  bench->add_option("--platform", platform, "Platform YAML (default: built-in nvl8_fam)")
      ->check(needs_value);
  bench->add_option("--workload", workload, "Workload YAML (default: saturating random reads)")
      ->check(needs_value);
  bench->add_option("--set", opt.overrides, "Override a configuration key: key.path=value")
      ->take_all()
      ->check(set_needs_value);
  CLI::Option* bench_mib_opt =
      bench
          ->add_option("--mib-per-gpu", bench_mib,
                       "MiB each GPU moves in the workload's first stream (an access "
                       "pattern); default 16, except that a --workload file keeps its own size")
          ->check(whole_number(1, 1 << 20));

  CLI::App* check = app.add_subcommand(
      "check-dram-log",
      "Check DRAM command logs (CSV, see README) against a memory preset's JEDEC timing");
  std::string check_preset;
  std::vector<std::string> check_sets, check_files;
  check->add_option("--preset", check_preset, "Memory preset, e.g. ddr5_4800_x4")->required();
  check->add_option("--set", check_sets, "Override a preset key: organization.ranks=2")
      ->allow_extra_args(false)
      ->check(set_needs_value);
  // Not required(): CLI11 would say "files is required"; do_check_dram_log says what they are.
  check->add_option("files", check_files, "Command log files");

  CLI::App* sweep = app.add_subcommand(
      "sweep", "Run a design-space sweep: every point a famsim run, several at a time");
  std::string sweep_file, sweep_out;
  unsigned sweep_jobs = 0;
  sweep->add_option("file", sweep_file, "Sweep YAML")->required();
  sweep->add_option("--out", sweep_out, "Output directory (default: sweep-NAME)")
      ->check(needs_value);
  sweep->add_option("--jobs", sweep_jobs, "Points run at a time (default: the cores)")
      ->check(whole_number(1, 1024));

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // Every bad-input message starts alike, the command line's included (CLI11 prints its bare).
    std::string what = e.what();
    // An option that takes a value given last: CLI11 says "--set: 1 required TEXT missing".
    const std::string name = what.substr(0, what.find(':'));
    const std::string missing = " missing";
    if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) && name.rfind("--", 0) == 0 &&
        what.size() > missing.size() &&
        what.compare(what.size() - missing.size(), missing.size(), missing) == 0) {
      what = name + ": expected " + (name == "--set" ? "key.path=value" : "a value") +
             " after the option, got nothing (is the value missing?)";
    }
    std::cerr << "famsim: error: " << what << "\nRun with --help for more information.\n";
    return kExitBadInput;
  }
  if (!platform.empty()) opt.platform_file = platform;
  if (!workload.empty()) opt.workload_file = workload;
  if (seed_opt->count() > 0) opt.seed = seed;
  if (!trace_file.empty()) opt.trace_file = trace_file;
  if (!trace_format.empty()) opt.trace_format = trace_format;
  if (max_outstanding) opt.max_outstanding = max_outstanding;
  opt.dram_log = dram_log;
  opt.txn_log = txn_log;
  opt.txn_data = txn_data;
  opt.out_dir = out_dir;

  configure_systemc_reports();
  try {
    if (run->parsed()) return do_run(opt, out_dir, progress_seconds);
    if (bench->parsed()) return do_bench(opt, bench_mib, bench_mib_opt->count() > 0);
    if (check->parsed()) return do_check_dram_log(check_preset, check_sets, check_files);
    if (sweep->parsed()) return do_sweep(sweep_file, sweep_out, sweep_jobs);
    return do_validate(opt);
  } catch (const famsim::ConfigError& e) {
    std::cerr << "famsim: error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "famsim: internal error: " << e.what() << "\n";
    return kExitInternal;
  }
}

}  // namespace

int sc_main(int argc, char** argv) { return famsim_main(argc, argv); }

int main(int argc, char** argv) {
  // Before anything is built: 512 MiB of address space, the heap of any platform the presets
  // describe with room to spare (famsim bench uses about 80 MiB), taken only where written.
  try {
    g_heap_huge_pages = famsim::place_heap_on_huge_pages(std::size_t{512} << 20);
  } catch (const std::invalid_argument& e) {
    std::cerr << "famsim: error: " << e.what() << "\n";
    return kExitBadInput;
  }
  // SystemC prints its banner when the kernel starts unless this is set.
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  return sc_core::sc_elab_and_sim(argc, argv);
}
