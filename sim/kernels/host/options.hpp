// Command-line options of trainsim-kernels.
//
// parse_options accepts "--name value" and "--name=value". It reads no environment variables;
// main() fills git_commit from TRAINSIM_GIT_COMMIT when the option is absent.
#pragma once

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace sim::kernels {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The measurement groups, in the order they run.
inline const std::vector<std::string>& suite_names() {
  static const std::vector<std::string> names = {"gemm", "memory", "attention", "host_copy", "collectives"};
  return names;
}

struct Options {
  std::string output = "measurements.json";
  std::string shapes = "sim/kernels/shapes.txt";
  bool shapes_given = false;       // --shapes was passed: a missing file is then an error
  std::string profile;             // "" when not given
  std::string git_commit;          // "" when not given
  std::string scale_up_bandwidth;  // "" when not given, else e.g. "450 GB/s"
  std::set<std::string> only;      // empty: every group
  bool gemm_best_of_4 = false;
  int device = 0;
  bool help = false;

  bool runs(const std::string& group) const { return only.empty() || only.count(group) > 0; }
};

// Throws UsageError with a one-line message on unknown or malformed options.
Options parse_options(const std::vector<std::string>& args);
std::string usage();

}  // namespace sim::kernels
