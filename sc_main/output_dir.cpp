#include "sc_main/output_dir.h"

#include "models/core/config.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
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

// Why `path` (a name in `parent`, which the run can write in) could not be removed by this
// process, with everything below it, or nullopt when it could. Removing a name takes write and
// search permission on the directory holding it, and in a sticky directory (chmod +t, as /tmp)
// owning the name or the directory; a directory's own entries also need it readable. The
// first name in the way and the reason, as "PATH: REASON".
std::optional<std::string> cannot_remove(const fs::path& parent, const fs::path& path) {
  struct stat parent_stat {};
  struct stat own {};
  if (::lstat(path.c_str(), &own) != 0) return std::nullopt;  // nothing to remove
  if (::lstat(parent.c_str(), &parent_stat) == 0 && (parent_stat.st_mode & S_ISVTX) &&
      ::geteuid() != 0 && own.st_uid != ::geteuid() && parent_stat.st_uid != ::geteuid()) {
    return path.string() + ": owned by another user in a sticky directory";
  }
  if (!S_ISDIR(own.st_mode)) return std::nullopt;
  if (::access(path.c_str(), R_OK | W_OK | X_OK) != 0) {
    return path.string() + ": " + std::strerror(errno);
  }
  std::error_code ec;
  for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    if (auto problem = cannot_remove(path, it->path())) return problem;
  }
  if (ec) return path.string() + ": " + ec.message();
  return std::nullopt;
}
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
  // publish() removes the earlier run's files before it moves this run's in. One it cannot
  // remove (a plots/ folder another user made) stopped it there, after the earlier stats.json
  // and its neighbours were gone and with this run's files still staged: both runs' results
  // lost, as an internal error after the whole simulation. Checked now, before anything runs.
  for (const char* name : kRunFiles) {
    if (auto problem = cannot_remove(d, d / name)) {
      fs::remove_all(staging_, ec);
      throw ConfigError("--out " + dir_ + ": cannot remove " + *problem +
                        "; a completed run replaces the earlier run's '" + name +
                        "' there; expected a directory whose earlier run's files this user "
                        "can remove, or a new one");
    }
  }
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
