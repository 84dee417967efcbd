// A run's output directory, written as one set.
//
// `famsim run --out DIR` writes its files (stats.json, config.yaml, timeseries.csv,
// timeline.json, transactions.csv, dram/) into a staging directory inside DIR, and publish()
// moves them into DIR only when the run has completed. So a run that stops with an error (bad
// input found during elaboration or the run, an internal error) leaves DIR as it was: a previous
// run's results stay whole and nothing of the failed run is left looking valid. publish() also
// removes what the previous run left that this one did not write (its logs, and the report and
// plots scripts/report.py made from its stats.json), so DIR never mixes two runs.
#pragma once

#include <string>
#include <vector>

namespace famsim {

// Makes `dir` (with its parents) unless it is a directory already. A path that names a file, or
// that cannot be made, is bad input: a ConfigError naming --out.
void make_output_dir(const std::string& dir);

// Whether `dir` holds a famsim run's output: its stats.json or the marker publish() writes.
bool holds_run_output(const std::string& dir);

// Removes from `dir` what famsim runs write there (the run's files, the marker publish() writes,
// a staging directory a killed run left) and nothing else, as far as it can (errors are ignored):
// a sweep's stale points go without taking a file the user put beside them.
void remove_run_output(const std::string& dir);

class OutputDir {
 public:
  // make_output_dir(dir), and an empty staging directory in it (clearing one a killed run left).
  // A directory holding names publish() replaces (plots/, dram/, ...) but nothing a famsim run
  // left (stats.json, the marker publish() writes, a staging directory) is the user's: a
  // ConfigError naming --out rather than a run that would delete them.
  explicit OutputDir(std::string dir);
  // Removes the staging directory unless publish() ran, and the directories the constructor made
  // (DIR and the parents it lacked) while they are empty: a failed run leaves nothing, not even
  // an empty DIR.
  ~OutputDir();
  OutputDir(const OutputDir&) = delete;
  OutputDir& operator=(const OutputDir&) = delete;

  const std::string& dir() const { return dir_; }
  // Where the run writes its files until publish().
  const std::string& staging() const { return staging_; }
  // Replaces the previous run's files in dir() with the staged ones: stats.json goes first and
  // comes back last, so an interrupted publish never leaves a stats.json beside other files.
  void publish();

 private:
  std::string dir_;
  std::string staging_;
  // The directories on dir()'s path the constructor made, outermost first (a path through ".."
  // can make two apart: a/new1/../new2).
  std::vector<std::string> made_;
  bool published_ = false;
};

}  // namespace famsim
