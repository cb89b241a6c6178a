// run_in_child (sim/engine/fork_call.hpp): results and errors come back from the child; a child
// that outlives its deadline (--max-wall) is killed and the call throws WallTimeExceeded.
#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <stdexcept>
#include <string>

#include "sim/core/deadline.hpp"
#include "sim/engine/fork_call.hpp"

TEST_CASE("run_in_child returns the child's bytes and its errors", "[engine]") {
  CHECK(sim::run_in_child([] { return std::string("result\0bytes", 12); }) == std::string("result\0bytes", 12));
  CHECK_THROWS_WITH(sim::run_in_child([]() -> std::string { throw std::runtime_error("child failed"); }),
                    "child failed");
}

TEST_CASE("run_in_child kills a child that outlives the deadline", "[engine]") {
  // The child would sleep 30 s and write its pid first; the deadline is 0.2 s.
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const auto start = std::chrono::steady_clock::now();
  std::string message;
  try {
    sim::run_in_child(
        [&] {
          const pid_t me = ::getpid();
          (void)!::write(fds[1], &me, sizeof me);
          ::sleep(30);
          return std::string("too late");
        },
        sim::Deadline(0.2, "scenario.json"));
  } catch (const sim::WallTimeExceeded& e) {
    message = e.what();
  }
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(message == "scenario.json: the run was stopped: it exceeded --max-wall 0.2 s");
  CHECK(took < 5.0);
  pid_t child = 0;
  REQUIRE(::read(fds[0], &child, sizeof child) == static_cast<ssize_t>(sizeof child));
  INFO("the child was reaped: no process with its pid remains");
  CHECK(::kill(child, 0) != 0);
  ::close(fds[0]);
  ::close(fds[1]);
}

TEST_CASE("a deadline that is not set never passes", "[engine]") {
  const sim::Deadline none;
  CHECK_FALSE(none.is_set());
  CHECK_FALSE(none.passed());
  CHECK(none.remaining_ms() == -1);
  CHECK_NOTHROW(none.check());
}
