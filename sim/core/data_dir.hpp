// Where trainsim's data files are: models/, topologies/ (with devices/ and costs/), calibration/,
// configs/, validation/. One folder, the first of
//   1. --data DIR (set_data_dir_option),
//   2. the TRAINSIM_DATA environment variable, when set and not empty,
//   3. the installed one, PREFIX/share/trainsim beside PREFIX/bin/trainsim, found from the running
//      executable (/proc/self/exe),
//   4. the source tree the binary was built from, only while the binary runs from its build tree.
// A folder that 1 or 2 names and that cannot be used is an InputError, never passed over: a typo
// must not silently read other data. Every reader of a data file asks current_data_dir() (or default_data_dir()).
#pragma once

#include <string>

namespace sim {

struct DataDir {
  std::string path;    // as given (--data, TRAINSIM_DATA) or as found (absolute)
  std::string origin;  // "--data", "TRAINSIM_DATA", "installed" or "source tree"
};

// --data DIR: checked now (an InputError naming --data when it is no data folder); later calls to
// current_data_dir() return it.
void set_data_dir_option(const std::string& dir);
// The data folder, decided on the first call; an InputError when there is none.
DataDir current_data_dir();
// current_data_dir().path.
std::string default_data_dir();

}  // namespace sim
