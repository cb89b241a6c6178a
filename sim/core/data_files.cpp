#include "sim/core/data_files.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>

#include "sim/core/params.hpp"
#include "sim/core/text_escape.hpp"

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

bool names_a_path(const std::string& name) {
  return name.find('/') != std::string::npos || (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0);
}

std::vector<std::string> data_file_candidates(const std::string& name, const std::string& folder,
                                              const std::string& data_dir, const std::string& base_dir) {
  if (!names_a_path(name)) return {data_dir + "/" + folder + "/" + name + ".json"};
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

std::pair<std::string, std::string> missing_data_file(const std::string& name, const std::string& noun,
                                                      const std::string& folder, const std::string& data_dir,
                                                      const std::string& base_dir) {
  const auto known = json_names(data_dir + "/" + folder);
  std::string list;
  for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
  const std::string here =
      base_dir.empty() ? "the working directory" : quote_value(base_dir) + " (the naming file's folder)";
  const std::string expected = "a name in the data folder's " + folder + "/ (" + list + ") or a path to a " + noun +
                               " JSON file, relative to " + here;
  if (!names_a_path(name)) {
    std::string what = "unknown " + noun + " " + quote_value(name);
    if (const std::string guess = did_you_mean(name, known); !guess.empty()) what += " (did you mean '" + guess + "'?)";
    struct stat st {};
    const std::string beside = (base_dir.empty() ? "." : base_dir) + "/" + name + ".json";
    if (::stat(beside.c_str(), &st) == 0)
      what += "; " + quote_value(beside) + " exists, but a bare name is looked up in the data folder only: write " +
              quote_value("./" + name + ".json") + " to name that file";
    return {what, expected};
  }
  if (name[0] == '/') return {"cannot find " + quote_value(name) + ": no such file", expected};
  return {"cannot find " + quote_value(name) + ": no such file relative to " + here + " or to the data folder",
          expected};
}

}  // namespace sim
