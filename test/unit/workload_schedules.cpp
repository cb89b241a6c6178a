// The pipeline schedules' registry (sim/workload/schedule.hpp): every schedule a scenario may name
// has an entry; each entry's order runs every forward and backward unit once, a microbatch's
// backward after its forward; the activations held at the peak follow each paper's closed form.
#include <catch2/catch.hpp>
#include <set>
#include <tuple>

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
