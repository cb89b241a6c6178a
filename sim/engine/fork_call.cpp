#include "sim/engine/fork_call.hpp"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <stdexcept>

namespace sim {

static bool write_all(int fd, const char* data, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    data += w, n -= static_cast<size_t>(w);
  }
  return true;
}

std::string run_in_child(const std::function<std::string()>& work, const Deadline& deadline) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe() failed");
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork() failed");
  if (pid == 0) {
    ::close(fds[0]);
    std::string out;
    char status = 'O';
    try {
      out = work();
    } catch (const std::exception& e) {
      status = 'E';
      out = e.what();
    } catch (...) {
      status = 'E';
      out = "unknown error in the simulation process";
    }
    bool ok = write_all(fds[1], &status, 1) && write_all(fds[1], out.data(), out.size());
    ::close(fds[1]);
    ::_exit(ok ? 0 : 1);
  }
  ::close(fds[1]);
  std::string data;
  char buf[65536];
  while (true) {
    pollfd p{fds[0], POLLIN, 0};
    int ready = ::poll(&p, 1, deadline.remaining_ms());
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0 || deadline.passed()) {
      ::kill(pid, SIGKILL);
      ::close(fds[0]);
      while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
      }
      deadline.exceeded();
    }
    ssize_t r = ::read(fds[0], buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    data.append(buf, static_cast<size_t>(r));
  }
  ::close(fds[0]);
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (data.empty()) throw std::runtime_error("the simulation process died (status " + std::to_string(st) + ")");
  if (data[0] == 'E') throw std::runtime_error(data.substr(1));
  return data.substr(1);
}

}  // namespace sim
