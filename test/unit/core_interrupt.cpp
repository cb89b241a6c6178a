// sim/core/interrupt.hpp: SIGINT, SIGTERM and SIGHUP kill the watched child and remove the
// watched temporary file, and the process then dies of the signal (status 128 + signal in a
// shell). Each case runs in a forked process so that the signal ends that process, not the test.
//
// Expectation, from POSIX: a process that dies of signal S reports WIFSIGNALED with WTERMSIG == S
// to waitpid; a SIGKILLed child no longer exists once reaped (kill(pid, 0) fails with ESRCH); a
// removed file no longer stat()s. None of this is read from the module under test.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "sim/core/interrupt.hpp"

namespace {

struct Outcome {
  int status = 0;         // waitpid status of the process that got the signal
  pid_t grandchild = 0;   // the child it watched
  bool file_left = true;  // whether the temporary file it watched still exists
};

// Forks a process that installs the handlers, watches a sleeping child of its own and a temporary
// file, and raises `sig` at itself.
Outcome interrupted(int sig, bool watch_file) {
  char dir[] = "/tmp/trainsim-interrupt-XXXXXX";
  REQUIRE(::mkdtemp(dir) != nullptr);
  const std::string temp = std::string(dir) + "/report.json.tmp";
  std::FILE* f = std::fopen(temp.c_str(), "w");
  REQUIRE(f != nullptr);
  std::fclose(f);
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  Outcome o;
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    sim::interrupt::install();
    const pid_t sleeper = ::fork();
    if (sleeper == 0) {
      ::sleep(30);
      ::_exit(0);
    }
    sim::interrupt::watch_child(sleeper);
    if (watch_file) sim::interrupt::watch_temp_file(temp);
    (void)!::write(fds[1], &sleeper, sizeof sleeper);
    ::raise(sig);
    ::_exit(0);  // not reached: the signal ends the process
  }
  ::close(fds[1]);
  REQUIRE(::read(fds[0], &o.grandchild, sizeof o.grandchild) == static_cast<ssize_t>(sizeof o.grandchild));
  ::close(fds[0]);
  REQUIRE(::waitpid(pid, &o.status, 0) == pid);
  struct stat st;
  o.file_left = ::stat(temp.c_str(), &st) == 0;
  ::unlink(temp.c_str());
  ::rmdir(dir);
  return o;
}

}  // namespace

TEST_CASE(
    "interrupt: SIGINT, SIGTERM and SIGHUP kill the child, remove the temporary file, then the process dies of the "
    "signal",
    "[core]") {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    INFO("signal " << sig);
    const Outcome o = interrupted(sig, true);
    CHECK(WIFSIGNALED(o.status));
    CHECK(WTERMSIG(o.status) == sig);
    CHECK_FALSE(o.file_left);
    // The watched child was killed and reaped by the handler: its pid is gone.
    errno = 0;
    CHECK(::kill(o.grandchild, 0) == -1);
    CHECK(errno == ESRCH);
  }
}

TEST_CASE("interrupt: a forgotten temporary file is left alone", "[core]") {
  const Outcome o = interrupted(SIGTERM, false);
  CHECK(WIFSIGNALED(o.status));
  CHECK(o.file_left);
}

TEST_CASE("interrupt: a signal ignored before install stays ignored", "[core]") {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::signal(SIGHUP, SIG_IGN);  // as nohup does
    sim::interrupt::install();
    ::raise(SIGHUP);
    ::_exit(7);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 7);
}
