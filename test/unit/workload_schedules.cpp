// The pipeline schedules' registry (sim/workload/schedule.hpp): every schedule a scenario may name
// has an entry; each entry's order runs every forward and backward unit once, a microbatch's
// backward after its forward; the activations held at the peak follow each paper's closed form.
#include <algorithm>
#include <catch2/catch.hpp>
#include <set>
#include <tuple>
#include <vector>

#include "sim/scenario/schedules.hpp"
#include "sim/workload/schedule.hpp"

using namespace sim;

TEST_CASE("every named schedule has an entry, and each runs every unit once, backward after forward", "[workload]") {
  for (const ScheduleChoice& c : pipeline_schedules()) {
    const PipelineSchedule& e = pipeline_schedule(c.kind);
    CHECK(e.kind == c.kind);
    const int64_t v = c.kind == Schedule::INTERLEAVED ? 2 : 1;
    for (int64_t pp : {1, 4}) {
      for (int64_t m : {1, 3, 8}) {
        if (c.kind == Schedule::INTERLEAVED && m % pp != 0) continue;  // Megatron's condition
        for (int64_t r = 0; r < pp; ++r) {
          INFO(c.name << " pp " << pp << " m " << m << " rank " << r);
          std::set<std::tuple<bool, int64_t, int64_t>> seen;
          for (const ScheduleUnit& u : e.units(pp, v, m, r)) {
            CHECK(seen.insert({u.forward, u.chunk, u.microbatch}).second);
            if (!u.forward) CHECK(seen.count({true, u.chunk, u.microbatch}) == 1);
          }
          CHECK(seen.size() == static_cast<size_t>(2 * m * v));
        }
      }
    }
  }
}

TEST_CASE("the activations a rank holds at its peak follow the schedules' closed forms", "[workload]") {
  const int64_t pp = 8, m = 32;
  for (int64_t r = 0; r < pp; ++r) {
    // GPipe holds every microbatch (Huang et al. 2019); 1F1B at most pp - r (Narayanan et al. 2021).
    CHECK(pipeline_schedule(Schedule::GPIPE).in_flight(pp, 1, m, r) == m);
    CHECK(pipeline_schedule(Schedule::ONE_F_ONE_B).in_flight(pp, 1, m, r) == pp - r);
  }
  CHECK(pipeline_schedule(Schedule::ONE_F_ONE_B).in_flight(pp, 1, 3, 0) == 3);  // fewer microbatches than stages
  // Interleaved, rank 0 with m >= pp: pp (1 + (pp - 1) / (pp v)) microbatches (Korthikanti et al.
  // 2022 §4.2.3); with one chunk, 1F1B's.
  for (int64_t v : {2, 4})
    CHECK(pipeline_schedule(Schedule::INTERLEAVED).in_flight(pp, v, m, 0) ==
          Approx(pp * (1.0 + double(pp - 1) / double(pp * v))));
  CHECK(pipeline_schedule(Schedule::INTERLEAVED).in_flight(pp, 1, m, 2) == pp - 2);
}

namespace {

// The step of a schedule's orders with every forward taking f and every backward b per chunk, and
// transfers free: each rank runs its units in order, a forward once the previous virtual stage's
// forward of its microbatch has ended, a backward once the next stage's backward (or, on the
// last stage, its own forward) has. An independent replay of the orders, not the estimate's.
double ideal_step(const PipelineSchedule& e, int64_t pp, int64_t v, int64_t m, double f, double b) {
  const int64_t stages = pp * v;
  std::vector<std::vector<ScheduleUnit>> order(static_cast<size_t>(pp));
  for (int64_t r = 0; r < pp; ++r) order[static_cast<size_t>(r)] = e.units(pp, v, m, r);
  // end[direction][stage][microbatch], negative until run.
  std::vector<double> end(static_cast<size_t>(2 * stages * m), -1.0);
  const auto at = [&](bool fwd, int64_t s, int64_t i) -> double& {
    return end[static_cast<size_t>(((fwd ? 0 : 1) * stages + s) * m + i)];
  };
  std::vector<size_t> next(static_cast<size_t>(pp), 0);
  std::vector<double> free(static_cast<size_t>(pp), 0.0);
  for (bool progress = true; progress;) {
    progress = false;
    for (int64_t r = 0; r < pp; ++r) {
      auto& k = next[static_cast<size_t>(r)];
      while (k < order[static_cast<size_t>(r)].size()) {
        const ScheduleUnit& u = order[static_cast<size_t>(r)][k];
        const int64_t s = u.chunk * pp + r;
        const double ready = u.forward ? (s == 0 ? 0.0 : at(true, s - 1, u.microbatch))
                                       : (s == stages - 1 ? at(true, s, u.microbatch) : at(false, s + 1, u.microbatch));
        if (ready < 0) break;  // its input is not there yet
        double& t = free[static_cast<size_t>(r)];
        t = std::max(t, ready) + (u.forward ? f : b);
        at(u.forward, s, u.microbatch) = t;
        ++k;
        progress = true;
      }
    }
  }
  for (int64_t r = 0; r < pp; ++r) REQUIRE(next[static_cast<size_t>(r)] == order[static_cast<size_t>(r)].size());
  return *std::max_element(free.begin(), free.end());
}

}  // namespace

TEST_CASE("the schedules' orders give the papers' bubbles at 8 microbatches", "[workload]") {
  // Narayanan et al. 2021 §2.2: with forward and backward times F and B per microbatch and stage,
  // GPipe and 1F1B take (m + p - 1)(F + B); interleaving v chunks per rank (each F/v, B/v) shrinks
  // the bubble to (p - 1)(F + B) / v.
  const double F = 1.0, B = 2.0;
  for (int64_t pp : {2, 4, 8}) {
    const int64_t m = 8;
    INFO("pp " << pp);
    CHECK(ideal_step(pipeline_schedule(Schedule::GPIPE), pp, 1, m, F, B) == Approx((m + pp - 1) * (F + B)));
    CHECK(ideal_step(pipeline_schedule(Schedule::ONE_F_ONE_B), pp, 1, m, F, B) == Approx((m + pp - 1) * (F + B)));
    for (int64_t v : {2, 4})
      CHECK(ideal_step(pipeline_schedule(Schedule::INTERLEAVED), pp, v, m, F / v, B / v) ==
            Approx(m * (F + B) + (pp - 1) * (F + B) / v));
  }
}
