#include "sim/engine/child_stderr.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace sim {
namespace {

constexpr off_t TAIL_BYTES = 64 * 1024;
constexpr size_t LINE_BYTES = 300;

bool blank(const std::string& s) { return s.find_first_not_of(" \t\r") == std::string::npos; }

}  // namespace

ChildStderr::ChildStderr() : fd_(::memfd_create("trainsim-child-stderr", MFD_CLOEXEC)) {}

ChildStderr::~ChildStderr() {
  if (fd_ >= 0) ::close(fd_);
}

void ChildStderr::redirect() const {
  const int target = fd_ >= 0 ? fd_ : ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (target >= 0) ::dup2(target, STDERR_FILENO);
}

std::string ChildStderr::tail() const {
  if (fd_ < 0) return "";
  const off_t end = ::lseek(fd_, 0, SEEK_END);
  if (end <= 0) return "";
  const off_t from = std::max<off_t>(0, end - TAIL_BYTES);
  std::string text(static_cast<size_t>(end - from), '\0');
  size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::pread(fd_, &text[got], text.size() - got, from + static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  text.resize(got);
  return text;
}

std::string ChildStderr::last_line() const {
  const std::string text = tail();
  size_t end = text.size();
  while (end > 0) {
    const size_t start = text.rfind('\n', end - 1);
    const size_t begin = start == std::string::npos ? 0 : start + 1;
    std::string line = text.substr(begin, end - begin);
    if (!blank(line)) return line.substr(0, LINE_BYTES);
    if (start == std::string::npos) break;
    end = start;
  }
  return "";
}

}  // namespace sim
