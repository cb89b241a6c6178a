#include "sim/core/data_files.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>

namespace sim {

std::vector<std::string> json_names(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (auto* e = readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > 5 && n.substr(n.size() - 5) == ".json") out.push_back(n.substr(0, n.size() - 5));
    }
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> data_file_candidates(const std::string& name, const std::string& folder,
                                              const std::string& data_dir, const std::string& base_dir) {
  const bool is_path =
      name.find('/') != std::string::npos || (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0);
  if (!is_path) return {data_dir + "/" + folder + "/" + name + ".json"};
  if (name[0] == '/') return {name};
  return {base_dir.empty() ? name : base_dir + "/" + name, data_dir + "/" + name};
}

std::string find_data_file(const std::string& name, const std::string& folder, const std::string& data_dir,
                           const std::string& base_dir) {
  // stat, not open: opening a FIFO with no writer would block (load_file refuses what is not a
  // regular file, naming it).
  struct stat st {};
  for (const auto& c : data_file_candidates(name, folder, data_dir, base_dir))
    if (::stat(c.c_str(), &st) == 0) return c;
  return "";
}

}  // namespace sim
