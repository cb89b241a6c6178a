// The checkpoint-restart timeline (sim/reliability/job_timeline.hpp) against closed forms:
// exact accounting on a hand-timed trace, the first-order ETTR of Kokolis et al. (HPCA 2025),
// Daly's expected wall-clock time and his Eq. 37 optimum (FGCS 22(3), 2006), and planned
// maintenance.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "sim/reliability/closed_forms.hpp"
#include "sim/reliability/monte_carlo.hpp"

using sim::Seconds;
namespace rel = sim::reliability;

namespace {

constexpr double DAY = 86400;
constexpr double LLAMA3_RATE = 3.79e-3;  // per node-day, Llama 3 Table 5 (arXiv:2407.21783)
constexpr int64_t LLAMA3_NODES = 2048;
const double M = DAY / (LLAMA3_NODES * LLAMA3_RATE);  // job MTTF, 11,131 s

sim::FailureSpec poisson(double per_node_day) {
  sim::FailureSpec s;
  s.law = sim::FailureLaw::POISSON;
  s.per_node_day = per_node_day;
  return s;
}

rel::JobParams job(double interval, double write, double detection, double restart, double reload) {
  rel::JobParams j;
  j.nodes = LLAMA3_NODES;
  j.interval = Seconds(interval);
  j.write = Seconds(write);
  j.detection = Seconds(detection);
  j.restart = Seconds(restart);
  j.reload = Seconds(reload);
  return j;
}

rel::Stop horizon(double seconds) { return rel::Stop{rel::StopMode::HORIZON, Seconds(seconds)}; }
rel::Stop work(double seconds) { return rel::Stop{rel::StopMode::WORK, Seconds(seconds)}; }

}  // namespace

TEST_CASE("timeline: a hand-timed trace is accounted to the second", "[reliability]") {
  // τ = 500 s, δ = 10 s, detection 10, restart 20, reload 30 (u0 = 60 s). Failures at 1000 s (in
  // the second segment, [510, 1020): 490 s of compute lost), 1030 s (during the restart: the
  // recovery starts over and ends at 1090 s, 90 s after the first failure) and 5000 s (segments
  // from 1090 s end at 1090 + 510 k; 4660 s is the last before it: 340 s lost; back at 5060 s).
  sim::FailureSpec t;
  t.law = sim::FailureLaw::TRACE;
  t.trace = {{Seconds(1000), "gpu", "1"}, {Seconds(1030), "gpu", "2"}, {Seconds(5000), "gpu", "3"}};
  rel::FailureProcess p(t, 4, 1);
  const auto r = rel::run_trial(job(500, 10, 10, 20, 30), horizon(10000), p);
  CHECK(r.unexpected == 3);
  REQUIRE(r.recoveries.size() == 2);
  CHECK(r.recoveries[0].value == 90);
  CHECK(r.recoveries[1].value == 60);
  CHECK(r.lost.lost_work.value == 490 + 340);
  CHECK(r.lost.detection.value == 10 + 10 + 10);
  CHECK(r.lost.restart.value == 20 + 20 + 20);
  CHECK(r.lost.reload.value == 30 + 30);
  // From 5060 s to the horizon: 9 segments of 510 s (4590 s) then 350 s of compute.
  CHECK(r.useful.value == 500 * (1 + 7 + 9) + 350);
  CHECK(r.lost.checkpoint_writes.value == 10 * (1 + 7 + 9));
  CHECK(r.wall.value == 10000);
  CHECK((r.useful + r.lost.total()).value == Approx(10000).epsilon(1e-15));
}

TEST_CASE("timeline: ETTR under exponential failures matches the first-order model within 3%", "[reliability]") {
  // Llama 3 rate on 2,048 nodes: M = 11,131 s. τ = 600 s, δ = 30 s, u0 = 60 + 120 + 120 = 300 s
  // (τ, u0 ≤ 0.054 M). First order: (1 − (u0 + τ/2)/M)/(1 + δ/τ) = 0.901. One trial over 5,000 M
  // (~5,000 failures) has the statistical power of many 54-day trials.
  const double expected = (1 - (300 + 600 / 2.0) / M) / (1 + 30 / 600.0);
  CHECK(rel::first_order_ettr(Seconds(600), Seconds(30), Seconds(300), Seconds(M)) == Approx(expected));
  const auto r = rel::run_monte_carlo(poisson(LLAMA3_RATE), job(600, 30, 60, 120, 120), horizon(5000 * M), 1, 11);
  INFO("simulated ETTR " << r.ettr.mean << ", first-order model " << expected);
  CHECK(r.ettr.mean == Approx(expected).epsilon(0.03));
  // Every second of the horizon is useful or lost to one cause.
  const auto& row = r.rows[0];
  CHECK((row.useful + row.lost.total()).value == Approx(5000 * M).epsilon(1e-9));
}

TEST_CASE("timeline: wall time to finish matches Daly's expected-wallclock model within 2%", "[reliability]") {
  // τ = 3,000 s, δ = 300 s, R = u0 = 600 s with M = 11,131 s (τ + δ = 0.3 M: beyond first order).
  // T_wall = (T_solve/τ)·M·e^{R/M}·(e^{(τ+δ)/M} − 1) for T_solve = 4,000 τ; 4 trials of ~1,200 failures.
  const double tau = 3000, d = 300, r0 = 600, solve = 4000 * tau;
  const double expected = solve / tau * M * std::exp(r0 / M) * (std::exp((tau + d) / M) - 1);
  const auto r = rel::run_monte_carlo(poisson(LLAMA3_RATE), job(tau, d, 100, 200, 300), work(solve), 4, 5);
  INFO("simulated wall " << r.wall.mean << " s, Daly " << expected << " s, failure-free " << solve * (tau + d) / tau);
  CHECK(r.wall.mean == Approx(expected).epsilon(0.02));
  CHECK(rel::daly_wallclock(Seconds(solve), Seconds(tau), Seconds(d), Seconds(r0), Seconds(M)).value ==
        Approx(expected));
  CHECK(r.rows[0].finished);
  CHECK(r.rows[0].useful.value == solve);
}

TEST_CASE("auto interval is Daly's Eq. 37 and within 5% of the best simulated interval", "[reliability]") {
  const double d = 60;
  const double x = d / (2 * M);
  const double daly = std::sqrt(2 * d * M) * (1 + std::sqrt(x) / 3 + x / 9) - d;  // Eq. 37, δ < 2M
  const double tau = rel::auto_interval(poisson(LLAMA3_RATE), LLAMA3_NODES, Seconds(d)).value;
  CHECK(tau == Approx(daly).epsilon(1e-14));
  // Sweep τ = auto · e^s, s in [−0.5, 0.5], same failures for every τ (same seed), one trial over
  // 20,000 M each. Daly's waste ≈ δ/τ + τ/(2M) is symmetric in ln τ about its optimum
  // (W*·cosh s), so the best interval is the vertex of a least-squares parabola in s.
  std::vector<double> s, ettr;
  for (int i = -10; i <= 10; ++i) {
    s.push_back(0.05 * i);
    const auto r = rel::run_monte_carlo(poisson(LLAMA3_RATE), job(tau * std::exp(0.05 * i), d, 30, 120, 150),
                                        horizon(20000 * M), 1, 99);
    ettr.push_back(r.ettr.mean);
  }
  // Least squares y = a + b s + c s² (normal equations, solved by Cramer's rule).
  double n = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, y0 = 0, y1 = 0, y2 = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    n += 1, s1 += s[i], s2 += s[i] * s[i], s3 += s[i] * s[i] * s[i], s4 += s[i] * s[i] * s[i] * s[i];
    y0 += ettr[i], y1 += s[i] * ettr[i], y2 += s[i] * s[i] * ettr[i];
  }
  auto det3 = [](double a, double b, double c, double d_, double e, double f, double g, double h, double k) {
    return a * (e * k - f * h) - b * (d_ * k - f * g) + c * (d_ * h - e * g);
  };
  const double D = det3(n, s1, s2, s1, s2, s3, s2, s3, s4);
  const double b = det3(n, y0, s2, s1, y1, s3, s2, y2, s4) / D;
  const double c = det3(n, s1, y0, s1, s2, y1, s2, s3, y2) / D;
  const double best = tau * std::exp(-b / (2 * c));
  size_t argmax = 0;
  for (size_t i = 1; i < ettr.size(); ++i)
    if (ettr[i] > ettr[argmax]) argmax = i;
  INFO("auto " << tau << " s, fitted best " << best << " s, best sweep point " << tau * std::exp(s[argmax])
               << " s (ETTR " << ettr[argmax] << " vs " << ettr[10] << " at auto)");
  CHECK(c < 0);
  CHECK(best == Approx(tau).epsilon(0.05));
}

TEST_CASE("planned maintenance: one a day for 54 days, taken at checkpoints, loses no work", "[reliability]") {
  // No failures; maintenance due at k days (k = 1..53 fall before the 54-day horizon), each 1 h plus
  // restart (120 s) and reload (60 s).
  auto j = job(1000, 20, 30, 120, 60);
  j.planned_every = Seconds(DAY);
  j.planned_duration = Seconds(3600);
  const auto r = rel::run_monte_carlo(poisson(0), j, horizon(54 * DAY), 1, 1);
  const auto& row = r.rows[0];
  CHECK(row.planned == 53);
  CHECK(row.unexpected == 0);
  CHECK(row.lost.planned.value == 53 * 3600);
  CHECK(row.lost.restart.value == 53 * 120);
  CHECK(row.lost.reload.value == 53 * 60);
  CHECK(row.lost.lost_work.value == 0);
  CHECK(row.lost.detection.value == 0);
  CHECK_FALSE(r.recovery);  // maintenance is not a recovery: none finished
  // With the Llama 3 failure rate as well, the maintenance still happens (one may slip past the
  // horizon when a recovery delays the checkpoint it waits for) and failures still come at the rate.
  const auto f = rel::run_monte_carlo(poisson(LLAMA3_RATE), j, horizon(54 * DAY), 50, 2);
  CHECK(f.planned.mean >= 52);
  CHECK(f.planned.mean <= 53);
  CHECK(f.interruptions.mean == Approx(419).epsilon(0.05));
}

TEST_CASE("work mode without failures: wall time is the work plus its writes", "[reliability]") {
  // 100 segments of τ = 1,000 s compute + δ = 20 s write; the interval rounds up to whole 7-s steps.
  auto j = job(1000, 20, 30, 120, 60);
  const auto r = rel::run_monte_carlo(poisson(0), j, work(100 * 1000), 1, 1);
  CHECK(r.wall.mean == 100 * 1020);
  CHECK(r.rows[0].lost.checkpoint_writes.value == 100 * 20);
  CHECK(std::isinf(r.mttf.value));
  j.step_time = Seconds(7);
  CHECK(rel::effective_interval(j).value == 143 * 7);  // ceil(1000 / 7) = 143 steps
}
