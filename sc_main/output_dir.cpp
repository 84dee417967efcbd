#include "sc_main/output_dir.h"

#include "models/core/config.h"

#include <filesystem>
#include <system_error>

namespace famsim {

namespace fs = std::filesystem;

namespace {
// Hidden, so that a listing of DIR shows only results.
constexpr const char* kStagingName = ".famsim-staging";
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

OutputDir::OutputDir(std::string dir) : dir_(std::move(dir)) {
  std::error_code ec;
  for (fs::path p = fs::absolute(dir_, ec); !ec && !p.empty() && !fs::exists(p, ec);
       p = p.parent_path()) {
    first_made_ = p.string();
    if (p == p.parent_path()) break;
  }
  make_output_dir(dir_);
  staging_ = (fs::path(dir_) / kStagingName).string();
  fs::remove_all(staging_, ec);
  if (!ec) fs::create_directory(staging_, ec);
  if (ec) throw ConfigError("--out " + dir_ + ": cannot write in the directory: " + ec.message());
}

OutputDir::~OutputDir() {
  if (published_) return;
  std::error_code ec;  // a destructor reports nothing; a leftover is cleared by the next run
  fs::remove_all(staging_, ec);
  if (first_made_.empty()) return;
  // Innermost first; fs::remove leaves a directory something else has written into.
  for (fs::path p = fs::absolute(dir_, ec); !ec && !p.empty(); p = p.parent_path()) {
    if (!fs::remove(p, ec) || p == fs::path(first_made_)) break;
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
  published_ = true;
}

}  // namespace famsim
