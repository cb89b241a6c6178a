// Recovery times when no recovery finishes (monte_carlo.hpp, MonteCarloResult::recovery): none,
// not a mean of 0 s. A failure 100 s before the end of the horizon is detected and restarted
// after it (detection + restart + reload = 510 s), so its recovery is cut short and not recorded;
// without any failure there is nothing to recover from either. One that ends in time is recorded.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>

#include "reliability_fixtures.hpp"
#include "sim/reliability/monte_carlo.hpp"

using sim::Seconds;
namespace rel = sim::reliability;

namespace {

constexpr double HORIZON = 86400;

rel::JobParams job() {
  rel::JobParams j;
  j.nodes = 4;
  j.interval = Seconds(3600);
  j.write = Seconds(20);
  j.detection = Seconds(150);
  j.restart = Seconds(300);
  j.reload = Seconds(60);
  return j;
}

rel::MonteCarloResult run_with_failure_at(double t) {
  return rel::run_monte_carlo(reliability_fixtures::trace({{Seconds(t), "faulty-gpu", "1"}}), job(),
                              reliability_fixtures::horizon(HORIZON), 1, 1);
}

// The trials CSV's mean_recovery_s cell of the first row.
std::string mean_recovery_cell(const rel::MonteCarloResult& r) {
  std::ostringstream out;
  rel::write_trials_csv(out, r.rows);
  std::string header, row;
  std::istringstream in(out.str());
  std::getline(in, header);
  std::getline(in, row);
  size_t start = 0;
  for (int field = 0; field < 7; ++field) start = row.find(',', start) + 1;  // mean_recovery_s is the 8th
  return row.substr(start, row.find(',', start) - start);
}

}  // namespace

TEST_CASE("monte carlo: a recovery cut short by the horizon leaves no recovery time", "[reliability]") {
  const auto r = run_with_failure_at(HORIZON - 100);
  CHECK(r.interruptions.mean == 1);
  CHECK_FALSE(r.recovery);
  CHECK_FALSE(r.rows[0].mean_recovery);
  CHECK(mean_recovery_cell(r).empty());
}

TEST_CASE("monte carlo: no failure, no recovery time", "[reliability]") {
  const auto r = run_with_failure_at(HORIZON + 1);  // after the window: never seen
  CHECK(r.interruptions.mean == 0);
  CHECK_FALSE(r.recovery);
}

TEST_CASE("monte carlo: a recovery that finishes is timed", "[reliability]") {
  const auto r = run_with_failure_at(HORIZON / 2);
  REQUIRE(r.recovery);
  CHECK(r.recovery->mean == 510);  // detection + restart + reload
  REQUIRE(r.rows[0].mean_recovery);
  CHECK(r.rows[0].mean_recovery->value == 510);
  CHECK(mean_recovery_cell(r) == "510");
}
