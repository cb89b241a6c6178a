// run_in_child (sim/engine/fork_call.hpp) with a memory bound: a child whose resident memory
// passes --max-memory is killed and the call throws the InputError that names the bound; a child
// within it returns as usual.
//
// Expectation: a child that writes to every page of a 256 MiB buffer has at least 256 MiB
// resident (Linux allocates a page on first write), which passes a 128 MiB bound; the parent reads
// /proc/PID/statm every 50 ms, so it stops the child within about a second, not after the 30 s the
// child would otherwise sleep.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>

#include "input_error_of.hpp"
#include "sim/engine/fork_call.hpp"

namespace {

constexpr double MiB = 1048576.0;

std::string fill_and_sleep() {
  const size_t n = static_cast<size_t>(256 * MiB);
  std::unique_ptr<char[]> buffer(new char[n]);
  std::memset(buffer.get(), 1, n);
  ::sleep(30);
  return std::string(buffer.get(), 1);
}

}  // namespace

TEST_CASE("run_in_child stops a child whose memory passes the bound", "[engine]") {
  const auto start = std::chrono::steady_clock::now();
  const std::string what = error_of([] {
    sim::run_in_child(fill_and_sleep, {}, sim::MemoryBound{sim::Bytes(128 * MiB), "big.json", "/"});
  });
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(what.rfind("big.json: ", 0) == 0);
  CHECK(what.find("--max-memory 128.00 MiB") != std::string::npos);
  CHECK(took < 10.0);
}

// A validation table's row is one JSON path in the table's file: the message names the row, not "/".
TEST_CASE("run_in_child names the run's JSON path when its memory passes the bound", "[engine]") {
  const std::string what = error_of([] {
    sim::run_in_child(fill_and_sleep, {}, sim::MemoryBound{sim::Bytes(128 * MiB), "table.json", "/runs/3/scenario"});
  });
  CHECK(what.rfind("table.json: /runs/3/scenario: the simulation was stopped", 0) == 0);
}

TEST_CASE("run_in_child returns what a child within the bound produced", "[engine]") {
  CHECK(sim::run_in_child([] { return std::string("fits"); }, {}, sim::MemoryBound{sim::Bytes(1024 * MiB), "x", "/"}) ==
        "fits");
}
