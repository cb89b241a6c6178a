#include "sim/core/data_dir.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>

#include "sim/core/error.hpp"
#include "sim/core/file_kind.hpp"
#include "sim/core/text_escape.hpp"

// Set by CMakeLists.txt on this file alone: the source tree, the build tree, and the data folder
// relative to the installed executable's folder (CMAKE_INSTALL_BINDIR to CMAKE_INSTALL_DATADIR/trainsim).
#ifndef TRAINSIM_SOURCE_DATA_DIR
#error "TRAINSIM_SOURCE_DATA_DIR is not defined"
#endif

namespace sim {

namespace {

namespace fs = std::filesystem;

const char* const EXPECTED = "a readable folder holding models/ and topologies/, such as PREFIX/share/trainsim";

// Why `dir` is no data folder, "" when it is one.
std::string unusable(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return "does not exist";
  if (!S_ISDIR(st.st_mode)) return "is " + file_kind(st.st_mode) + ", not a folder";
  if (::access(dir.c_str(), R_OK | X_OK) != 0) return "is not readable";
  const auto is_dir = [&](const char* sub) {
    struct stat s {};
    return ::stat((dir + "/" + sub).c_str(), &s) == 0 && S_ISDIR(s.st_mode);
  };
  if (!is_dir("models") && !is_dir("topologies")) return "holds no models/ or topologies/ folder";
  return "";
}

DataDir checked(const std::string& dir, const std::string& origin) {
  const std::string why = unusable(dir);
  if (!why.empty()) throw InputError(origin + " " + quote_value(dir) + ": " + why + " (expected " + EXPECTED + ")");
  return {dir, origin};
}

// The running executable, "" when /proc does not say.
std::string executable() {
  std::error_code error;
  const fs::path exe = fs::read_symlink("/proc/self/exe", error);
  return error ? std::string() : exe.string();
}

// Whether `path` lies inside folder `dir` (both made canonical).
bool inside(const std::string& path, const std::string& dir) {
  std::error_code e1, e2;
  const std::string p = fs::weakly_canonical(path, e1).string(), d = fs::weakly_canonical(dir, e2).string();
  return !e1 && !e2 && !d.empty() && p.size() > d.size() && p.compare(0, d.size(), d) == 0 &&
         (d.back() == '/' || p[d.size()] == '/');
}

DataDir find_data_dir() {
  if (const char* env = std::getenv("TRAINSIM_DATA"); env && *env) return checked(env, "TRAINSIM_DATA");
  const std::string exe = executable();
  if (!exe.empty()) {
    const std::string installed =
        (fs::path(exe).parent_path() / TRAINSIM_INSTALLED_DATA_DIR).lexically_normal().string();
    if (unusable(installed).empty()) return {installed, "installed"};
    if (inside(exe, TRAINSIM_BUILD_DIR) && unusable(TRAINSIM_SOURCE_DATA_DIR).empty())
      return {TRAINSIM_SOURCE_DATA_DIR, "source tree"};
  }
  throw InputError("found no data folder: " + (exe.empty() ? std::string("the executable") : quote_value(exe)) +
                   " has no " + TRAINSIM_INSTALLED_DATA_DIR +
                   " beside it and does not run from its build tree (expected " +
                   "--data DIR or TRAINSIM_DATA=DIR naming " + EXPECTED + ")");
}

std::mutex mutex;
std::optional<DataDir> chosen;

}  // namespace

void set_data_dir_option(const std::string& dir) {
  DataDir d = checked(dir, "--data");
  std::lock_guard<std::mutex> lock(mutex);
  chosen = std::move(d);
}

DataDir current_data_dir() {
  std::lock_guard<std::mutex> lock(mutex);
  if (!chosen) chosen = find_data_dir();
  return *chosen;
}

std::string default_data_dir() { return current_data_dir().path; }

}  // namespace sim
