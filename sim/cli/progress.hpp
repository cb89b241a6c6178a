// A progress line on standard error for long loops (the reliability trials): "label: done/total
// (rate/s, ETA)" redrawn in place at most ten times a second, and only when standard error is a
// terminal, so logs, pipes and tests see nothing. Wall-clock time here never reaches results.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace sim::cli {

class ProgressLine {
 public:
  explicit ProgressLine(std::string label);
  ~ProgressLine();  // ends the line if anything was drawn
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void update(int64_t done, int64_t total);
  // What is being worked on now (search: the plan being simulated), after the counts; a new one
  // is drawn at once, since the step it names may take long.
  void doing(const std::string& what);

 private:
  std::string label_;
  std::string doing_;
  int64_t done_ = 0, total_ = 0;
  bool enabled_;
  bool drawn_ = false;
  bool started_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace sim::cli
