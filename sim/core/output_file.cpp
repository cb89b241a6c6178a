#include "sim/core/output_file.hpp"

#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "sim/core/error.hpp"
#include "sim/core/file_kind.hpp"
#include "sim/core/input_files.hpp"
#include "sim/core/interrupt.hpp"

namespace sim {
namespace {

constexpr const char* EXPECTED = "a regular file, or a new file in an existing folder; '-' for standard output";

std::string folder_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string name_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string real_path(const std::string& path) {
  char buf[PATH_MAX];
  return ::realpath(path.c_str(), buf) != nullptr ? std::string(buf) : std::string();
}

// A folder marked append-only or immutable (chattr +a, +i) takes new files but lets none be renamed
// or removed: the temporary file could neither replace the target nor be cleaned up.
bool folder_forbids_rename(const std::string& folder) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  int flags = 0;
  const bool known = ::ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;  // not every file system keeps flags
  ::close(fd);
  return known && (flags & (FS_APPEND_FL | FS_IMMUTABLE_FL)) != 0;
}

// The file a write to `path` lands in, as an absolute path without links; throws when that is
// not a regular file or a new name in an existing folder.
std::string resolve_target(const std::string& path, const std::string& option) {
  const auto refuse = [&](const std::string& what) { throw InputError(option + " " + path, "", what, EXPECTED); };
  if (path.empty() || path.back() == '/') refuse("names a folder, not a file");
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {  // follows every link, /proc/self/fd/N included
    if (!S_ISREG(st.st_mode)) refuse("is " + file_kind(st.st_mode) + ", not a regular file");
    std::string real = real_path(path);
    if (real.empty()) refuse(std::string("cannot resolve the path: ") + std::strerror(errno));
    if (folder_forbids_rename(folder_of(real)))
      refuse("its folder " + folder_of(real) + " is append-only or immutable: the file cannot be replaced");
    return real;
  }
  if (errno == ELOOP) refuse("has too many levels of symbolic links");
  if (errno != ENOENT) refuse(std::string("cannot access the path: ") + std::strerror(errno));
  // A new file, perhaps behind dangling links: follow them to the name that will be created.
  std::string p = path;
  for (int hops = 0;; ++hops) {
    struct stat lst {};
    if (::lstat(p.c_str(), &lst) != 0 || !S_ISLNK(lst.st_mode)) break;
    if (hops == 40) refuse("has too many levels of symbolic links");
    char buf[PATH_MAX];
    const ssize_t n = ::readlink(p.c_str(), buf, sizeof buf - 1);
    if (n <= 0) refuse(std::string("cannot read the symbolic link: ") + std::strerror(errno));
    const std::string link(buf, static_cast<size_t>(n));
    p = link[0] == '/' ? link : folder_of(p) + "/" + link;
  }
  const std::string folder = folder_of(p), name = name_of(p);
  struct stat dst {};
  if (name.empty() || name == "." || name == "..") refuse("names a folder, not a file");
  if (::stat(folder.c_str(), &dst) != 0) refuse("its folder " + folder + " does not exist");
  if (!S_ISDIR(dst.st_mode)) refuse("its folder " + folder + " is not a directory");
  if (::access(folder.c_str(), W_OK | X_OK) != 0) refuse("its folder " + folder + " is not writable");
  if (folder_forbids_rename(folder))
    refuse("its folder " + folder + " is append-only or immutable: a file written there cannot be renamed into place");
  const std::string real_folder = real_path(folder);
  if (real_folder.empty()) refuse("cannot resolve its folder " + folder);
  return (real_folder == "/" ? std::string() : real_folder) + "/" + name;
}

// The input that `target` (a resolved output path) is, "" when it is none of them: the files the
// process has read (input_files.hpp) and `inputs`, compared by device and inode.
std::string input_at(const std::string& target, const std::vector<std::string>& inputs) {
  struct stat out {};
  if (::stat(target.c_str(), &out) != 0) return "";  // a new file is no input
  for (const auto& f : input_files())
    if (f.device == out.st_dev && f.inode == out.st_ino) return f.path;
  for (const auto& in : inputs) {
    struct stat st {};
    if (::stat(in.c_str(), &st) == 0 && st.st_dev == out.st_dev && st.st_ino == out.st_ino) return in;
  }
  return "";
}

void refuse_input(const std::string& option, const std::string& path, const std::string& input) {
  throw InputError(option + " " + path, "", "is the input " + input + ": writing it would overwrite it",
                   "an output other than the files the command reads");
}

bool write_all(int fd, const std::string& text) {
  const char* data = text.data();
  size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, data, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n, left -= static_cast<size_t>(n);
  }
  return true;
}

// Standard output as it was before check_outputs() sent the command's printing to standard
// error for an output "-"; -1 until then (write_output("-") then writes to descriptor 1).
int g_output_stdout = -1;

}  // namespace

void check_outputs(const std::vector<OutputArg>& outputs, const std::vector<std::string>& inputs) {
  std::vector<std::pair<const OutputArg*, std::string>> targets;
  for (const auto& o : outputs) {
    if (o.path.empty()) continue;
    const std::string target = o.path == "-" ? "-" : resolve_target(o.path, o.option);
    for (const auto& [other, other_target] : targets)
      if (other_target == target)
        throw InputError(o.option + " " + o.path, "", "is the same file as " + other->option + " " + other->path,
                         "a different file for each output");
    if (target != "-")
      if (const std::string in = input_at(target, inputs); !in.empty()) refuse_input(o.option, o.path, in);
    targets.emplace_back(&o, target);
  }
  for (const auto& t : targets)
    if (t.second == "-" && g_output_stdout < 0) {
      std::fflush(stdout);
      g_output_stdout = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
      if (g_output_stdout < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
        throw InputError("-", "", "standard output cannot be set aside for the output", "a usable standard output");
    }
}

void write_output(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::fflush(stdout);
    if (!write_all(g_output_stdout >= 0 ? g_output_stdout : STDOUT_FILENO, text))
      throw InputError("-", "", std::string("writing to standard output failed: ") + std::strerror(errno),
                       "a writable standard output");
    return;
  }
  const std::string target = resolve_target(path, "output");
  // The last guard: whatever the command read since check_outputs() is never replaced either.
  if (const std::string in = input_at(target, {}); !in.empty()) refuse_input("output", path, in);
  struct stat old {};
  const bool existed = ::stat(target.c_str(), &old) == 0;
  // The temporary file sits beside the target (rename is atomic only within one file system) and
  // is new (O_EXCL), so neither an existing file nor another run's temporary file is touched.
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; fd < 0 && attempt < 100; ++attempt) {
    tmp = target + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(attempt);
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0)
    throw InputError(path, "", std::string("cannot create a file beside it: ") + std::strerror(errno),
                     "a writable folder");
  interrupt::watch_temp_file(tmp);  // SIGINT/SIGTERM/SIGHUP from here on remove it
  bool ok = write_all(fd, text);
  if (ok && existed) ok = ::fchmod(fd, old.st_mode & 07777) == 0;
  ok = ok && ::fsync(fd) == 0;  // the data is on disk before the new name points at it
  ok = ::close(fd) == 0 && ok;
  if (!ok) {
    const int err = errno;
    ::unlink(tmp.c_str());
    interrupt::forget_temp_file();
    throw InputError(path, "", std::string("writing the output failed: ") + std::strerror(err),
                     "a writable path with free space");
  }
  const bool renamed = ::rename(tmp.c_str(), target.c_str()) == 0;
  const int err = errno;
  interrupt::forget_temp_file();
  if (!renamed) {
    const std::string left = ::unlink(tmp.c_str()) == 0 ? "" : "; the temporary file " + tmp + " could not be removed";
    throw InputError(path, "", std::string("cannot replace the output file: ") + std::strerror(err) + left,
                     "a writable path");
  }
}

}  // namespace sim
