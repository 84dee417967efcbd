#include "sc_main/output_dir.h"

#include "models/core/config.h"

#include <filesystem>
#include <fstream>
#include <system_error>

namespace famsim {

namespace fs = std::filesystem;

namespace {
// Hidden, so that a listing of DIR shows only results.
constexpr const char* kStagingName = ".famsim-staging";
// Left by publish(): the directory holds a famsim run's files (stats.json may have been removed
// since, as a sweep's resume does).
constexpr const char* kMarkerName = ".famsim-output";
// The run's files: those a run writes and those made from them afterwards (scripts/report.py,
// scripts/plot_run.py). publish() clears every one of them, stats.json first, before putting
// the run's own in place.
constexpr const char* kRunFiles[] = {
    "stats.json", "config.yaml", "timeseries.csv", "timeline.json", "transactions.csv", "dram",
    "report.md", "report.html", "plots",
    // Left by runs of earlier versions, which wrote the transaction log beside its final name.
    "transactions.csv.partial"};
}  // namespace

void make_output_dir(const std::string& dir) {
  if (dir.empty()) throw ConfigError("--out: expected a directory path, got an empty one");
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) {
    throw ConfigError("--out " + dir + ": exists and is not a directory");
  }
  fs::create_directories(dir, ec);
  if (ec) throw ConfigError("--out " + dir + ": cannot create the directory: " + ec.message());
}

bool holds_run_output(const std::string& dir) {
  std::error_code ec;
  const fs::path d(dir);
  return fs::is_regular_file(d / "stats.json", ec) || fs::exists(d / kMarkerName, ec);
}

void remove_run_output(const std::string& dir) {
  const fs::path d(dir);
  std::error_code ec;  // what cannot be removed stays, as anything else in `dir` does
  for (const char* name : kRunFiles) fs::remove_all(d / name, ec);
  fs::remove_all(d / kStagingName, ec);
  fs::remove(d / kMarkerName, ec);
}

OutputDir::OutputDir(std::string dir) : dir_(std::move(dir)) {
  std::error_code ec;
  // The directories make_output_dir() is about to make, as create_directories() walks the path.
  fs::path prefix;
  for (const fs::path& part : fs::absolute(dir_, ec)) {
    prefix /= part;
    if (part.empty() || part == "." || part == "..") continue;
    if (!fs::exists(prefix, ec)) made_.push_back(prefix.string());
  }
  make_output_dir(dir_);
  // publish() clears the names a run writes (plots/, dram/, report.md, ...) before putting its own
  // in place. In a directory that holds no earlier run's stats.json they are the user's own (--out
  // . in a project folder): refuse rather than delete them.
  // (A run killed while publishing leaves its staging directory, and every published run a
  // marker: either says the directory is famsim's.)
  const fs::path d(dir_);
  if (!holds_run_output(dir_) && !fs::exists(d / kStagingName, ec)) {
    for (const char* name : kRunFiles) {
      if (fs::exists(fs::path(dir_) / name, ec)) {
        throw ConfigError("--out " + dir_ + ": holds '" + name +
                          "' but no earlier run's stats.json, so it is not a famsim output "
                          "directory and a run would replace that; expected a new or empty "
                          "directory, or one a famsim run wrote");
      }
    }
  }
  staging_ = (fs::path(dir_) / kStagingName).string();
  fs::remove_all(staging_, ec);
  if (!ec) fs::create_directory(staging_, ec);
  if (ec) throw ConfigError("--out " + dir_ + ": cannot write in the directory: " + ec.message());
}

OutputDir::~OutputDir() {
  if (published_) return;
  std::error_code ec;  // a destructor reports nothing; a leftover is cleared by the next run
  fs::remove_all(staging_, ec);
  // Innermost first; fs::remove leaves a directory something else has written into.
  for (auto p = made_.rbegin(); p != made_.rend(); ++p) {
    if (!fs::remove(*p, ec)) break;
  }
}

void OutputDir::publish() {
  const fs::path dir(dir_);
  const fs::path staged(staging_);
  for (const char* name : kRunFiles) fs::remove_all(dir / name);
  for (const fs::directory_entry& e : fs::directory_iterator(staged)) {
    if (e.path().filename() != "stats.json") fs::rename(e.path(), dir / e.path().filename());
  }
  if (fs::exists(staged / "stats.json")) fs::rename(staged / "stats.json", dir / "stats.json");
  fs::remove_all(staged);
  std::ofstream(dir / kMarkerName).flush();
  published_ = true;
}

}  // namespace famsim
