// SimGrid never speaks to the user: what a simulation child writes on its standard
// error stays in the child (sim/engine/child_stderr.hpp); a child that dies becomes one error line
// (RunStopped, fork_call.hpp) quoting its last line, and an engine deadlock that no failure
// explains becomes an error instead of a step that leaves the unfinished work out. Each TEST_CASE
// runs in its own process (ctest).
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "sim/core/sanitizer.hpp"
#include "sim/engine/engine.hpp"
#include "sim/engine/fork_call.hpp"
#include "test/unit/engine_scenario.hpp"

namespace {

// Runs `f`, which returns a message, with this process's standard error sent to a temporary file;
// returns {the message, what was written on standard error meanwhile}.
template <class F>
std::pair<std::string, std::string> with_stderr_captured(F&& f) {
  std::fflush(stderr);
  char path[] = "/tmp/trainsim-stderr-XXXXXX";
  const int file = ::mkstemp(path);
  REQUIRE(file >= 0);
  ::unlink(path);
  const int saved = ::dup(STDERR_FILENO);
  ::dup2(file, STDERR_FILENO);
  const std::string message = f();
  std::fflush(stderr);
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  std::string written(4096, '\0');
  const ssize_t n = ::pread(file, &written[0], written.size(), 0);
  written.resize(n > 0 ? static_cast<size_t>(n) : 0);
  ::close(file);
  return {message, written};
}

// The message of the std::runtime_error `f` throws (a child's failure in the parent), or "".
template <class F>
std::string runtime_error_of(F&& f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a child that dies is one line quoting its last words, and nothing reaches stderr", "[engine]") {
  const auto [message, written] = with_stderr_captured([] {
    return runtime_error_of([] {
      sim::run_in_child([]() -> std::string {
        std::fputs("[0.000711] s4u_Actor.cpp:310: [root/CRITICAL] duration is not finite!\n\n", stderr);
        std::fflush(stderr);
        ::signal(SIGABRT, SIG_DFL);  // not Catch's handler, which would report the child as a failed test
        ::abort();
      });
    });
  });
  CHECK(message ==
        "the run was stopped: its simulation process was killed by SIGABRT (signal 6); a crash of the simulation, "
        "which is a bug: please report it with the scenario; its last line: [0.000711] s4u_Actor.cpp:310: "
        "[root/CRITICAL] duration is not finite!");
  // Under AddressSanitizer the child's captured text is also copied to stderr, so that a
  // sanitizer's report reaches the developer (child_stderr.hpp).
  if (!sim::ADDRESS_SANITIZER) CHECK(written.empty());
}

TEST_CASE("a child's stderr is dropped when it returns a result", "[engine]") {
  const auto [result, written] = with_stderr_captured([] {
    return sim::run_in_child([] {
      std::fputs("Oops! Deadlock detected\n", stderr);
      return std::string("result");
    });
  });
  CHECK(result == "result");
  CHECK(written.empty());
}

TEST_CASE("an engine deadlock no failure explains is an error, not a step", "[engine]") {
  // A network link of no bandwidth, which the reader refuses (an efficiency under 0.01): set here
  // behind its back, the gradient all-reduce across the two nodes can never finish. SimGrid finds
  // the deadlock and ends the run; the step must not come back without its all-reduce.
  engine_test::Setup u;
  u.model = "gpt-1.7b";
  u.dp = 16;
  u.global_batch = 16;
  sim::Scenario s = engine_test::scenario(u);
  s.cluster.device.collectives.scale_out_efficiency = 5e-324;
  const sim::Pipeline p = engine_test::build(s);
  const auto [message, written] = with_stderr_captured(
      [&] { return runtime_error_of([&] { sim::simulate_step(s, p, sim::EngineOptions(false)); }); });
  CHECK(message == "the simulation engine deadlocked: some of the step's work could never finish");
  CHECK(written.empty());
}
