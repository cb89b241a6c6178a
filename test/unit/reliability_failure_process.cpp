// Failure processes (sim/reliability/failure_process.hpp): the job MTTF of a Poisson superposition
// is 1/(nodes · rate) (Kokolis et al., HPCA 2025: MTTF = (N_nodes · r_f)^-1); the Llama 3 rate
// reproduces its 419 interruptions in 54 days (arXiv:2407.21783, Table 5); a Weibull renewal with shape 1
// is the same Poisson process; a trace replays exactly; seeds are deterministic.
#include <catch2/catch.hpp>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "sim/reliability/failure_process.hpp"
#include "sim/reliability/monte_carlo.hpp"

using sim::Seconds;
namespace rel = sim::reliability;

namespace {

constexpr double DAY = 86400;
// Llama 3: 419 unexpected interruptions / (2,048 nodes · 54 days) = 3.79e-3 per node-day (arXiv:2407.21783, Table 5).
constexpr double LLAMA3_RATE = 3.79e-3;
constexpr int64_t LLAMA3_NODES = 2048;

sim::FailureSpec poisson(double per_node_day) {
  sim::FailureSpec s;
  s.law = sim::FailureLaw::POISSON;
  s.per_node_day = per_node_day;
  return s;
}

rel::JobParams job(int64_t nodes) {
  rel::JobParams j;
  j.nodes = nodes;
  j.interval = Seconds(600);
  j.write = Seconds(30);
  j.detection = Seconds(60);
  j.restart = Seconds(120);
  j.reload = Seconds(120);
  return j;
}

rel::Stop horizon(double seconds) { return rel::Stop{rel::StopMode::HORIZON, Seconds(seconds)}; }

}  // namespace

TEST_CASE("poisson: simulated job MTTF equals 1/(nodes rate) within 2%", "[reliability]") {
  const double m = DAY / (LLAMA3_NODES * LLAMA3_RATE);  // 11,131 s = 3.09 h
  CHECK(rel::job_mttf(poisson(LLAMA3_RATE), LLAMA3_NODES).value == Approx(m));
  // One trial over 50,000 MTTFs: ~50,000 failures, relative standard error 1/sqrt(50,000) = 0.45%.
  const auto r = rel::run_monte_carlo(poisson(LLAMA3_RATE), job(LLAMA3_NODES), horizon(50000 * m), 1, 1);
  INFO("simulated MTTF " << r.mttf.value << " s, closed form " << m << " s");
  CHECK(r.mttf.value == Approx(m).epsilon(0.02));
}

TEST_CASE("poisson: the Llama 3 rate gives 419 interruptions in 54 days within 5%", "[reliability]") {
  // 2,048 nodes · 3.79e-3 per node-day · 54 d = 419.1 (arXiv:2407.21783 §3.3.4: "The remaining 419 were
  // unexpected interruptions"). 200 trials: standard error of the mean sqrt(419/200) = 1.4 (0.35%).
  const auto r = rel::run_monte_carlo(poisson(LLAMA3_RATE), job(LLAMA3_NODES), horizon(54 * DAY), 200, 7);
  INFO("mean interruptions " << r.interruptions.mean << ", p50 " << r.interruptions.p50);
  CHECK(r.interruptions.mean == Approx(419).epsilon(0.05));
  CHECK(LLAMA3_NODES * LLAMA3_RATE * 54 == Approx(419).epsilon(0.001));
}

TEST_CASE("weibull with shape 1 is the Poisson process", "[reliability]") {
  // Weibull(1, scale) gaps are exponential with mean `scale`: scale = 1 day / rate per node.
  sim::FailureSpec w;
  w.law = sim::FailureLaw::WEIBULL;
  w.weibull_shape = 1;
  w.weibull_scale = Seconds(DAY / LLAMA3_RATE);
  const double m = DAY / (LLAMA3_NODES * LLAMA3_RATE);
  CHECK(rel::job_mttf(w, LLAMA3_NODES).value == Approx(m).epsilon(1e-12));  // Γ(2) = 1
  const auto rw = rel::run_monte_carlo(w, job(LLAMA3_NODES), horizon(50000 * m), 1, 1);
  INFO("weibull(1) MTTF " << rw.mttf.value << " s, 1/(nodes rate) " << m << " s");
  CHECK(rw.mttf.value == Approx(m).epsilon(0.02));
  const auto wl = rel::run_monte_carlo(w, job(LLAMA3_NODES), horizon(54 * DAY), 200, 7);
  INFO("weibull(1) interruptions in 54 d " << wl.interruptions.mean);
  CHECK(wl.interruptions.mean == Approx(419).epsilon(0.05));
}

TEST_CASE("weibull renewal: the job MTTF is the per-node mean gap over the nodes", "[reliability]") {
  // Renewal theory: N(t)/t → 1/μ per node, μ = scale · Γ(1 + 1/shape). 64 nodes over 2,000 mean
  // gaps each (128,000 failures): the start-up bias ((CV² − 1)/2 ≈ 0.6 failures per node) is 0.03%.
  sim::FailureSpec w;
  w.law = sim::FailureLaw::WEIBULL;
  w.weibull_shape = 0.7;
  w.weibull_scale = Seconds(10 * DAY);
  const double mu = 10 * DAY * std::tgamma(1 + 1 / 0.7);
  CHECK(rel::job_mttf(w, 64).value == Approx(mu / 64));
  auto j = job(64);
  j.interval = Seconds(INFINITY);  // only the failures matter here
  const auto r = rel::run_monte_carlo(w, j, horizon(2000 * mu), 1, 3);
  INFO("weibull(0.7) job MTTF " << r.mttf.value << " s, closed form " << mu / 64 << " s");
  CHECK(r.mttf.value == Approx(mu / 64).epsilon(0.02));
}

TEST_CASE("trace: replays exactly its failures, then none", "[reliability]") {
  sim::FailureSpec t;
  t.law = sim::FailureLaw::TRACE;
  t.components = {{"nic", 0, sim::FailureScope::NETWORK}};
  t.trace = {{Seconds(1000), "faulty-gpu", "12"}, {Seconds(1030), "nic", "node7"}, {Seconds(5000), "faulty-gpu", "3"}};
  rel::FailureProcess p(t, 16, 1);
  const auto a = p.next(), b = p.next(), c = p.next(), end = p.next();
  CHECK(a.time.value == 1000);
  CHECK(a.node == 12);
  CHECK(p.components()[static_cast<size_t>(a.component)].name == "faulty-gpu");
  CHECK(a.scope == sim::FailureScope::GPU);  // a known name's scope (known_component_scope)
  CHECK(b.time.value == 1030);
  CHECK(b.node == -1);
  CHECK(b.scope == sim::FailureScope::NETWORK);
  CHECK(c.time.value == 5000);
  CHECK(c.component == a.component);
  CHECK(std::isinf(end.time.value));
  t.horizon = Seconds(9000);  // the window the trace is replayed over: 3 failures in 9000 s
  CHECK(rel::job_mttf(t, 16).value == Approx(9000.0 / 3));
}

TEST_CASE("same seed gives identical trials, another seed different ones, in any trial order", "[reliability]") {
  const auto spec = poisson(LLAMA3_RATE);
  auto csv = [&](uint64_t seed, int64_t trials) {
    std::ostringstream out;
    rel::write_trials_csv(out, rel::run_monte_carlo(spec, job(LLAMA3_NODES), horizon(54 * DAY), trials, seed).rows);
    return out.str();
  };
  CHECK(csv(42, 5) == csv(42, 5));
  CHECK(csv(42, 5) != csv(43, 5));
  // Trial 3 alone, from its own stream, is row 3 of the Monte Carlo.
  const auto all = rel::run_monte_carlo(spec, job(LLAMA3_NODES), horizon(54 * DAY), 5, 42);
  rel::FailureProcess p(spec, LLAMA3_NODES, rel::trial_seed(42, 3));
  const auto alone = rel::run_trial(job(LLAMA3_NODES), horizon(54 * DAY), p);
  CHECK(alone.unexpected == all.rows[3].unexpected);
  CHECK(alone.useful.value == all.rows[3].useful.value);
  // The uniform transform ((x >> 11) + 0.5) · 2^-53: 2^-54 at x = 0, 1.5 · 2^-53 at x = 2^11, and
  // (2^53 − 1 + 0.5) · 2^-53 rounded (to even) to 1 at the top.
  CHECK(rel::unit_open(0) == 0x1p-54);
  CHECK(rel::unit_open(uint64_t{1} << 11) == 1.5 * 0x1p-53);
  CHECK(rel::unit_open(~uint64_t{0}) == 1.0);
}

TEST_CASE("percentiles interpolate between order statistics (Hyndman-Fan type 7)", "[reliability]") {
  // Position q·(n − 1) in the sorted values: p50 of {1, 2, 3, 4} is 2.5, p99 is 3 + 0.97 = 3.97.
  const auto s = rel::stat_of({4, 1, 3, 2});
  CHECK(s.mean == 2.5);
  CHECK(s.p50 == Approx(2.5));
  CHECK(s.p99 == Approx(3.97));
  CHECK(rel::stat_of({}).p99 == 0);
}

TEST_CASE("components: each failure's cause is drawn in proportion to its rate, with its scope", "[reliability]") {
  // Two causes at 2e-3 and 1e-3 per node-day: MTTF = 86400 / (2048 · 3e-3) s, and 2/3 of the
  // failures are the first (30,000 draws: standard error sqrt(2/9 / 30,000) = 0.27%).
  sim::FailureSpec s = poisson(0);
  s.components = {{"gpu", 2e-3, sim::FailureScope::GPU}, {"switch", 1e-3, sim::FailureScope::NETWORK}};
  CHECK(rel::job_mttf(s, LLAMA3_NODES).value == Approx(DAY / (LLAMA3_NODES * 3e-3)));
  rel::FailureProcess p(s, LLAMA3_NODES, 5);
  int gpu = 0, wrong_scope = 0, bad_node = 0;
  for (int i = 0; i < 30000; ++i) {
    const auto e = p.next();
    wrong_scope += e.scope != s.components[static_cast<size_t>(e.component)].scope;
    bad_node += e.node < 0 || e.node >= LLAMA3_NODES;
    gpu += e.component == 0;
  }
  CHECK(wrong_scope == 0);
  CHECK(bad_node == 0);
  CHECK(gpu / 30000.0 == Approx(2.0 / 3).margin(0.01));
}

TEST_CASE("weibull renewal holds up to 2^17 nodes", "[reliability]") {
  sim::FailureSpec w;
  w.law = sim::FailureLaw::WEIBULL;
  w.weibull_shape = 1.5;
  w.weibull_scale = Seconds(100 * DAY);
  rel::FailureProcess p(w, int64_t{1} << 17, 1);
  double last = 0;
  int out_of_order = 0;
  for (int i = 0; i < 1000; ++i) {
    const auto e = p.next();
    out_of_order += e.time.value < last;
    last = e.time.value;
  }
  CHECK(out_of_order == 0);
  CHECK_THROWS_AS(rel::FailureProcess(w, (int64_t{1} << 17) + 1, 1), std::logic_error);
}
