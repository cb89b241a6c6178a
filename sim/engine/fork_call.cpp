#include "sim/engine/fork_call.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <stdexcept>

#include "sim/core/error.hpp"
#include "sim/core/interrupt.hpp"
#include "sim/core/sanitizer.hpp"
#include "sim/engine/child_stderr.hpp"

namespace sim {
namespace {

// How often the parent reads the child's resident memory. The fastest growth measured is SimGrid
// building a platform, about 0.55 GB/s (2,725 B per host in 4.9 us, resource_estimate.cpp), so the
// child passes the bound by some 30 MB at most before it is stopped.
constexpr int MEMORY_POLL_MS = 50;
// The child's own timer fires this long after the deadline, so the parent's kill (with its
// WallTimeExceeded) normally comes first.
constexpr double CHILD_TIMER_MARGIN_S = 0.5;

bool write_all(int fd, const char* data, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    data += w, n -= static_cast<size_t>(w);
  }
  return true;
}

// Resident bytes of process `pid` (/proc/PID/statm, second field, in pages); 0 when unreadable.
double resident_bytes(pid_t pid) {
  char path[64], buf[256];
  std::snprintf(path, sizeof path, "/proc/%d/statm", static_cast<int>(pid));
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return 0;
  buf[n] = '\0';
  unsigned long long size = 0, resident = 0;
  if (std::sscanf(buf, "%llu %llu", &size, &resident) != 2) return 0;
  return double(resident) * double(::sysconf(_SC_PAGESIZE));
}

// In the child, before its work: die with the parent, and by the deadline even if the parent
// cannot act (stopped, or killed before it could).
void bind_to_parent(pid_t parent, const Deadline& deadline) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(1);  // the parent died before prctl: nobody reads the result
  interrupt::restore_defaults();
  if (deadline.is_set()) {
    const double s = deadline.remaining_ms() / 1000.0 + CHILD_TIMER_MARGIN_S;
    itimerval t{};
    t.it_value.tv_sec = static_cast<time_t>(s);
    t.it_value.tv_usec = static_cast<suseconds_t>((s - double(t.it_value.tv_sec)) * 1e6);
    ::signal(SIGALRM, SIG_DFL);
    ::setitimer(ITIMER_REAL, &t, nullptr);
  }
}

// The signals whose handlers watch the child (interrupt.hpp): blocked from before the fork until
// the parent watches the child and the child has its own actions, so that no signal finds a child
// its handler does not know of.
sigset_t interrupt_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, sig);
  return set;
}

[[noreturn]] void child_main(int fd, pid_t parent, const Deadline& deadline, const ChildStderr& err,
                             const std::function<std::string()>& work, const sigset_t& unblock) {
  bind_to_parent(parent, deadline);
  err.redirect();
  ::sigprocmask(SIG_UNBLOCK, &unblock, nullptr);
  std::string out;
  char status = 'O';
  try {
    out = work();
  } catch (const InputError& e) {  // the input's fault, found while simulating: stays so in the parent
    status = 'I';
    out = e.what();
  } catch (const std::exception& e) {
    status = 'E';
    out = e.what();
  } catch (...) {
    status = 'E';
    out = "unknown error in the simulation process";
  }
  bool ok = write_all(fd, &status, 1) && write_all(fd, out.data(), out.size());
  ::close(fd);
  ::_exit(ok ? 0 : 1);
}

// The parent's hold on a child: killed and reaped on every way out, including exceptions; the
// interrupt handlers know it meanwhile.
class Child {
 public:
  Child(pid_t pid, int fd) : pid_(pid), fd_(fd) { interrupt::watch_child(pid); }
  ~Child() {
    if (pid_ > 0) ::kill(pid_, SIGKILL);
    reap();
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  pid_t pid() const { return pid_; }
  int fd() const { return fd_; }
  void kill() {
    ::kill(pid_, SIGKILL);
    reap();
  }
  // Waits for the child's exit; returns its wait status.
  int reap() {
    if (fd_ >= 0) ::close(fd_), fd_ = -1;
    if (pid_ <= 0) return status_;
    while (::waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
    }
    interrupt::forget_child();
    pid_ = 0;
    return status_;
  }

 private:
  pid_t pid_;
  int fd_;
  int status_ = 0;
};

// Why a child that a signal ended left no result, for the one-line message.
std::string killed_by(int sig) {
  const char* name = sig == SIGKILL   ? "SIGKILL"
                     : sig == SIGTERM ? "SIGTERM"
                     : sig == SIGINT  ? "SIGINT"
                     : sig == SIGHUP  ? "SIGHUP"
                     : sig == SIGSEGV ? "SIGSEGV"
                     : sig == SIGABRT ? "SIGABRT"
                     : sig == SIGBUS  ? "SIGBUS"
                                      : "a signal";
  std::string why;
  if (sig == SIGKILL)
    why = "; the kernel's out-of-memory killer sends it when memory runs out: --max-memory bounds the simulation";
  else if (sig == SIGSEGV || sig == SIGABRT || sig == SIGBUS)
    why = "; a crash of the simulation, which is a bug: please report it with the scenario";
  else
    why = ", sent to it from outside";
  return "the run was stopped: its simulation process was killed by " + std::string(name) + " (signal " +
         std::to_string(sig) + ")" + why;
}

// The last line a child that ended without a result wrote (SimGrid's CRITICAL line before an
// abort, say), for the end of its message: "; its last line: ...", or "" when it wrote none.
std::string last_words(const ChildStderr& err) {
  if (ADDRESS_SANITIZER) std::fputs(err.tail().c_str(), stderr);  // the sanitizer's report
  const std::string last = err.last_line();
  return last.empty() ? "" : "; its last line: " + last;
}

}  // namespace

std::string run_in_child(const std::function<std::string()>& work, const Deadline& deadline,
                         const MemoryBound& memory) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe() failed");
  const ChildStderr err;
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  const sigset_t block = interrupt_signals();
  sigset_t previous;
  ::sigprocmask(SIG_BLOCK, &block, &previous);
  pid_t pid = ::fork();
  if (pid < 0) {
    ::sigprocmask(SIG_SETMASK, &previous, nullptr);
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error("fork() failed");
  }
  if (pid == 0) {
    ::close(fds[0]);
    child_main(fds[1], parent, deadline, err, work, block);
  }
  ::close(fds[1]);
  Child child(pid, fds[0]);
  ::sigprocmask(SIG_SETMASK, &previous, nullptr);
  std::string data;
  char buf[65536];
  while (true) {
    int wait_ms = deadline.remaining_ms();
    if (memory.bytes.value > 0) wait_ms = wait_ms < 0 ? MEMORY_POLL_MS : std::min(wait_ms, MEMORY_POLL_MS);
    pollfd p{child.fd(), POLLIN, 0};
    int ready = ::poll(&p, 1, wait_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (deadline.passed()) {
      child.kill();
      deadline.exceeded();
    }
    if (memory.bytes.value > 0) {
      const double rss = resident_bytes(child.pid());
      if (rss > memory.bytes.value) {
        child.kill();
        throw SimulationLimit(memory.what, memory.where,
                              "the simulation was stopped: its memory (" + format_bytes(Bytes(rss)) +
                                  ") passed --max-memory " + format_bytes(memory.bytes),
                              "--fidelity class, fewer GPUs or microbatches, or a larger --max-memory");
      }
    }
    if (ready == 0) continue;
    ssize_t r = ::read(child.fd(), buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    data.append(buf, static_cast<size_t>(r));
  }
  const int st = child.reap();
  if (data.empty()) {
    // Its own timer ended it: the parent was held up past the deadline (stopped, say).
    if (deadline.passed()) deadline.exceeded();
    if (WIFSIGNALED(st)) throw RunStopped(killed_by(WTERMSIG(st)) + last_words(err));
    throw std::runtime_error("the simulation process ended without a result (exit status " +
                             std::to_string(WIFEXITED(st) ? WEXITSTATUS(st) : st) + ")" + last_words(err));
  }
  if (data[0] == 'I') throw InputError(data.substr(1));
  if (data[0] == 'E') throw std::runtime_error(data.substr(1));
  return data.substr(1);
}

}  // namespace sim
