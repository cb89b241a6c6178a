#include "sim/core/interrupt.hpp"

#include <limits.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>

namespace sim::interrupt {
namespace {

static_assert(sizeof(pid_t) <= sizeof(sig_atomic_t), "a pid must be stored atomically for the handler");

constexpr int SIGNALS[] = {SIGINT, SIGTERM, SIGHUP};

volatile sig_atomic_t child_ = 0;
volatile sig_atomic_t temp_set_ = 0;
char temp_path_[PATH_MAX];
bool installed_ = false;
struct sigaction previous_[sizeof SIGNALS / sizeof SIGNALS[0]];
bool handled_[sizeof SIGNALS / sizeof SIGNALS[0]] = {};

extern "C" void on_signal(int sig) {
  const int saved = errno;
  const pid_t pid = static_cast<pid_t>(child_);
  if (pid > 0) {
    ::kill(pid, SIGKILL);
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  if (temp_set_) ::unlink(temp_path_);
  // Blocked while this handler runs: delivered with the default action as it returns.
  ::signal(sig, SIG_DFL);
  ::raise(sig);
  errno = saved;
}

}  // namespace

void install() {
  if (installed_) return;
  installed_ = true;
  struct sigaction act {};
  act.sa_handler = on_signal;
  sigemptyset(&act.sa_mask);
  for (int s : SIGNALS) sigaddset(&act.sa_mask, s);  // one handler at a time
  for (size_t i = 0; i < sizeof SIGNALS / sizeof SIGNALS[0]; ++i) {
    if (::sigaction(SIGNALS[i], nullptr, &previous_[i]) != 0 || previous_[i].sa_handler == SIG_IGN) continue;
    handled_[i] = ::sigaction(SIGNALS[i], &act, nullptr) == 0;
  }
}

void restore_defaults() {
  child_ = 0;
  temp_set_ = 0;
  for (size_t i = 0; i < sizeof SIGNALS / sizeof SIGNALS[0]; ++i)
    if (handled_[i]) ::sigaction(SIGNALS[i], &previous_[i], nullptr);
}

void watch_child(pid_t pid) { child_ = pid; }

void forget_child() { child_ = 0; }

void watch_temp_file(const std::string& path) {
  temp_set_ = 0;
  if (path.empty() || path.size() >= sizeof temp_path_) return;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  std::memcpy(temp_path_, path.c_str(), path.size() + 1);
  std::atomic_signal_fence(std::memory_order_seq_cst);
  temp_set_ = 1;
}

void forget_temp_file() { temp_set_ = 0; }

}  // namespace sim::interrupt
