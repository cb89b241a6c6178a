// Correlated and silent failures (sim/reliability/failure_process.hpp): a component with
// takes_nodes = K takes the aligned group of K nodes holding the drawn node, at the same event rate;
// a silent component's events are seen at corruption + an exponential latency, still in time order.
// Expected values are closed forms stated at each check (Poisson counts within 3σ = 3·sqrt(mean),
// sample means within 3σ/sqrt(n)) or invariants.
#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "sim/reliability/failure_process.hpp"

using sim::Seconds;
namespace rel = sim::reliability;

namespace {

constexpr double DAY = 86400;

sim::FailureSpec poisson_of(std::vector<sim::FailureComponent> components) {
  sim::FailureSpec s;
  s.law = sim::FailureLaw::POISSON;
  for (const auto& c : components) s.per_node_day += c.per_node_day;
  s.components = std::move(components);
  return s;
}

sim::FailureComponent component(const char* name, double per_node_day, int64_t takes = 1, double silent_s = 0) {
  sim::FailureComponent c;
  c.name = name;
  c.per_node_day = per_node_day;
  c.scope = sim::FailureScope::NETWORK;
  c.takes_nodes = takes;
  c.silent_latency = Seconds(silent_s);
  return c;
}

// The events detected before `horizon`.
std::vector<rel::FailureEvent> events_until(rel::FailureProcess& p, double horizon) {
  std::vector<rel::FailureEvent> out;
  for (auto e = p.next(); e.time.value < horizon; e = p.next()) out.push_back(e);
  return out;
}

}  // namespace

TEST_CASE("takes: each event takes the aligned group of K nodes, at the unchanged rate", "[reliability]") {
  // K = 4 on N = 10 nodes (not a multiple): groups {0..3}, {4..7}, {8, 9}. 1 failure per node-day
  // over 10,000 days: 100,000 events expected (rate · nodes · days), 3σ = 3·sqrt(100,000) = 949.
  constexpr int64_t K = 4, N = 10;
  const double expected = 1.0 * N * 10000;
  rel::FailureProcess p(poisson_of({component("leaf-switch", 1.0, K)}), N, 11);
  const auto events = events_until(p, 10000 * DAY);
  CHECK(std::abs(static_cast<double>(events.size()) - expected) < 3 * std::sqrt(expected));
  int misaligned = 0, wrong_count = 0;
  std::vector<double> first(N, 0);
  for (const auto& e : events) {
    misaligned += e.node < 0 || e.node % K != 0;
    wrong_count += e.nodes != std::min(K, N - e.node);
    if (e.node >= 0 && e.node < N) ++first[static_cast<size_t>(e.node)];
  }
  CHECK(misaligned == 0);
  CHECK(wrong_count == 0);
  // The node is drawn uniformly, so a group is hit in proportion to its size: 4/10, 4/10, 2/10
  // (binomial, 3σ = 3·sqrt(p(1 − p)/n) ≤ 0.5% here).
  const double n = static_cast<double>(events.size());
  CHECK(first[0] / n == Approx(0.4).margin(3 * std::sqrt(0.24 / n)));
  CHECK(first[4] / n == Approx(0.4).margin(3 * std::sqrt(0.24 / n)));
  CHECK(first[8] / n == Approx(0.2).margin(3 * std::sqrt(0.16 / n)));
  // The rate is per node-day whatever a failure takes: the job MTTF is unchanged.
  CHECK(rel::job_mttf(poisson_of({component("leaf-switch", 1.0, K)}), N).value == Approx(DAY / N));
}

TEST_CASE("takes: weibull renewal groups too, and a node-scope component keeps one node", "[reliability]") {
  sim::FailureSpec w = poisson_of({component("pod", 1.0, 8), component("gpu", 1.0)});
  w.law = sim::FailureLaw::WEIBULL;
  w.weibull_shape = 0.8;
  w.weibull_scale = Seconds(DAY);
  rel::FailureProcess p(w, 20, 3);
  int bad = 0;
  for (int i = 0; i < 20000; ++i) {
    const auto e = p.next();
    if (e.component == 0)
      bad += e.node % 8 != 0 || e.nodes != std::min<int64_t>(8, 20 - e.node);
    else
      bad += e.nodes != 1 || e.node < 0 || e.node >= 20;
  }
  CHECK(bad == 0);
  // A "pod" left unresolved (TAKES_POD) is a caller's bug.
  CHECK_THROWS_AS(rel::FailureProcess(poisson_of({component("pod", 1.0, sim::TAKES_POD)}), 20, 1), std::logic_error);
}

TEST_CASE("silent: detections come in time order, late by the mean latency, at the unchanged rate", "[reliability]") {
  // Two causes on 8 nodes at 1 per node-day each; "sdc" is found 6 h after it happens on average.
  // Over 5,000 days: 80,000 events (rate · nodes · days; the ≈ 8 · 0.25 = 2 sdc events still
  // undetected at the horizon are far inside 3σ = 3·sqrt(80,000) = 849).
  constexpr double LATENCY = 6 * 3600;
  const auto spec = poisson_of({component("gpu", 1.0), component("sdc", 1.0, 1, LATENCY)});
  rel::FailureProcess p(spec, 8, 21);
  const auto events = events_until(p, 5000 * DAY);
  const double expected = 2.0 * 8 * 5000;
  CHECK(std::abs(static_cast<double>(events.size()) - expected) < 3 * std::sqrt(expected));
  int out_of_order = 0, late_plain = 0;
  double last = 0, latency_sum = 0;
  int64_t silent = 0;
  for (const auto& e : events) {
    out_of_order += e.time.value < last;
    last = e.time.value;
    if (e.component == 0) {
      late_plain += e.corrupted_at.value != e.time.value;
    } else {
      latency_sum += e.time.value - e.corrupted_at.value;
      ++silent;
    }
  }
  CHECK(out_of_order == 0);
  CHECK(late_plain == 0);
  // Exponential latency: mean LATENCY, standard deviation LATENCY, so 3σ of the mean is
  // 3 · LATENCY / sqrt(n).
  REQUIRE(silent > 0);
  const double n = static_cast<double>(silent);
  INFO("mean latency " << latency_sum / n << " s over " << silent << " silent events");
  CHECK(std::abs(latency_sum / n - LATENCY) < 3 * LATENCY / std::sqrt(n));
  // Half the events are silent (binomial, 3σ = 3·sqrt(0.25/n)).
  CHECK(n / static_cast<double>(events.size()) == Approx(0.5).margin(3 * std::sqrt(0.25 / expected)));
  CHECK(rel::job_mttf(spec, 8).value == Approx(DAY / 16));  // unchanged: the mean time between events
}

TEST_CASE("silent: same seed gives the same sequence, another seed another: weibull stays ordered", "[reliability]") {
  const auto spec = poisson_of({component("gpu", 2.0), component("sdc", 1.0, 2, 3 * DAY)});
  auto run = [&](uint64_t seed) {
    rel::FailureProcess p(spec, 6, seed);
    std::vector<std::tuple<double, double, int, int64_t, int64_t>> out;
    for (int i = 0; i < 2000; ++i) {
      const auto e = p.next();
      out.emplace_back(e.time.value, e.corrupted_at.value, e.component, e.node, e.nodes);
    }
    return out;
  };
  CHECK(run(5) == run(5));
  CHECK(run(5) != run(6));
  // A latency of days against gaps of hours: many detections overtake one another in the heap.
  sim::FailureSpec w = spec;
  w.law = sim::FailureLaw::WEIBULL;
  w.weibull_shape = 0.7;
  w.weibull_scale = Seconds(DAY);
  rel::FailureProcess p(w, 6, 9);
  double last = 0;
  int out_of_order = 0, early = 0;
  for (int i = 0; i < 20000; ++i) {
    const auto e = p.next();
    out_of_order += e.time.value < last;
    early += e.corrupted_at.value > e.time.value;
    last = e.time.value;
  }
  CHECK(out_of_order == 0);
  CHECK(early == 0);
}

TEST_CASE("trace: a row takes its spec component's group and dates a silent one's corruption", "[reliability]") {
  // "sw" takes 4 and is silent with a mean latency of 1 h; rows are detections. On 10 nodes:
  // node 6 → group 4..7; node 9 → group {8, 9}; an unknown location keeps -1 with 4 nodes.
  // corrupted_at = time − 3600 s, clamped at 0; a cause the spec does not declare keeps 1 node.
  sim::FailureSpec t;
  t.law = sim::FailureLaw::TRACE;
  t.components = {component("sw", 0, 4, 3600)};
  t.trace = {{Seconds(1000), "sw", "6"},
             {Seconds(5000), "sw", "9"},
             {Seconds(6000), "sw", "rack-3"},
             {Seconds(7000), "faulty-gpu", "6"}};
  rel::FailureProcess p(t, 10, 1);
  const auto a = p.next(), b = p.next(), c = p.next(), d = p.next();
  CHECK((a.node == 4 && a.nodes == 4));
  CHECK(a.time.value == 1000);
  CHECK(a.corrupted_at.value == 0);
  CHECK((b.node == 8 && b.nodes == 2));
  CHECK(b.corrupted_at.value == 5000 - 3600);
  CHECK((c.node == -1 && c.nodes == 4));
  CHECK((d.node == 6 && d.nodes == 1));
  CHECK(d.corrupted_at.value == d.time.value);
  CHECK(std::isinf(p.next().time.value));
}
