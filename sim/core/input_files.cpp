#include "sim/core/input_files.hpp"

#include <algorithm>

namespace sim {
namespace {

std::vector<InputFile>& files() {
  static std::vector<InputFile> read;
  return read;
}

}  // namespace

void record_input_file(const std::string& path, dev_t device, ino_t inode) {
  auto& read = files();
  const bool known =
      std::any_of(read.begin(), read.end(), [&](const InputFile& f) { return f.device == device && f.inode == inode; });
  if (!known) read.push_back({device, inode, path});
}

const std::vector<InputFile>& input_files() { return files(); }

}  // namespace sim
