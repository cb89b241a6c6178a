// A failure trace's job MTTF is its observation window over its failures (failure_process.hpp,
// job_mttf), whatever the failures' times: one failure in a week is a week per failure, whether it
// came at t = 0 or on the last day. So Daly's auto interval does not depend on when the failure
// came, and goodput moves continuously as the one failure slides across the window.
//
// Expectation: between two neighbouring failure times (an hour apart) goodput changes by at most
// what one failure can cost, (τ + δ + u0) / H: the work since the last checkpoint (< τ + δ) and
// the recovery (u0 = detection + restart + reload), over the horizon H; and it stays within that of
// the failure-free 1 / (1 + δ/τ) wherever the failure falls. With the MTTF taken as the
// last failure's time / count, a failure at t = 0 gave M = 0, τ = one step and goodput 0.07
// (0.915 at 1 h, 0.987 at 6 days).
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "reliability_fixtures.hpp"
#include "sim/reliability/closed_forms.hpp"
#include "sim/reliability/monte_carlo.hpp"

using sim::Seconds;
namespace rel = sim::reliability;

namespace {

constexpr double HOUR = 3600, WEEK = 7 * 86400;
constexpr int64_t NODES = 16;

sim::FailureSpec one_failure_at(double t) {
  sim::FailureSpec s = reliability_fixtures::trace({{Seconds(t), "faulty-gpu", "3"}});
  s.horizon = Seconds(WEEK);
  return s;
}

rel::JobParams job_for(const sim::FailureSpec& spec) {
  rel::JobParams j;
  j.nodes = NODES;
  j.step_time = Seconds(10);
  j.write = Seconds(20);
  j.detection = Seconds(150);
  j.restart = Seconds(300);
  j.reload = Seconds(60);
  j.interval = rel::auto_interval(spec, NODES, j.write);
  return j;
}

double goodput_with_failure_at(double t) {
  const auto spec = one_failure_at(t);
  return rel::run_monte_carlo(spec, job_for(spec), reliability_fixtures::horizon(WEEK), 1, 1).goodput.mean;
}

}  // namespace

TEST_CASE("trace: the job MTTF is the window over the failures, not the last failure's time", "[reliability]") {
  for (double t : {0.0, HOUR, 6 * 86400.0}) CHECK(rel::job_mttf(one_failure_at(t), NODES).value == Approx(WEEK));
  auto late = one_failure_at(HOUR);
  late.trace.push_back({Seconds(WEEK + HOUR), "nic", "1"});  // after the window: not observed
  CHECK(rel::job_mttf(late, NODES).value == Approx(WEEK));
  CHECK(std::isinf(rel::job_mttf(one_failure_at(WEEK + 1), NODES).value));
  // The auto interval is Daly's from that MTTF, the same for every failure time.
  CHECK(rel::auto_interval(one_failure_at(0), NODES, Seconds(20)).value ==
        Approx(rel::daly_interval(Seconds(20), Seconds(WEEK)).value));
}

TEST_CASE("trace: goodput moves continuously as one failure slides across the window", "[reliability]") {
  const auto job = job_for(one_failure_at(0));
  const double bound =
      (rel::effective_interval(job) + job.write + job.detection + job.restart + job.reload).value / WEEK;
  const double tau = rel::effective_interval(job).value;
  const double failure_free = 1 / (1 + job.write.value / tau);  // τ of compute per τ + δ of wall time
  double previous = goodput_with_failure_at(0);
  CHECK(previous > failure_free - bound);  // no cliff at t = 0
  for (double t = HOUR; t <= WEEK; t += HOUR) {
    const double g = goodput_with_failure_at(t);
    INFO("failure at " << t / HOUR << " h: goodput " << g << " after " << previous);
    CHECK(std::abs(g - previous) <= bound);
    CHECK(g > failure_free - bound);
    previous = g;
  }
}
