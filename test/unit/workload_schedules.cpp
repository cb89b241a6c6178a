// The pipeline schedules' registry (sim/workload/schedule.hpp): every schedule a scenario may name
// has an entry; each entry's order runs every forward and backward unit once (and every
// weight-gradient unit, where it splits the backward), a microbatch's backward after its forward
// and its weight gradients after its backward; the activations held at the peak and the bubbles
// follow each paper's closed form.
#include <algorithm>
#include <catch2/catch.hpp>
#include <set>
#include <tuple>
#include <vector>

#include "sim/scenario/schedules.hpp"
#include "sim/workload/schedule.hpp"
#include "sim/workload/stage_layout.hpp"

using namespace sim;

TEST_CASE("every named schedule has an entry, and each runs every unit once, backward after forward", "[workload]") {
  for (const ScheduleChoice& c : pipeline_schedules()) {
    const PipelineSchedule& e = pipeline_schedule(c.kind);
    CHECK(e.kind == c.kind);
    const int64_t v = c.kind == Schedule::INTERLEAVED || schedule_choice(e.kind).v_shape ? 2 : 1;
    for (int64_t pp : {1, 4}) {
      for (int64_t m : {1, 3, 8}) {
        if (c.kind == Schedule::INTERLEAVED && m % pp != 0) continue;  // Megatron's condition
        // DualPipe's: m microbatches per copy, pp even, and the least microbatches it runs.
        if (c.two_copies && pp % 2 != 0) continue;
        if (!c.runs(pp, (c.two_copies ? 2 : 1) * m)) continue;
        const auto orders = e.units(pp, v, m);
        REQUIRE(orders.size() == static_cast<size_t>(pp));
        for (int64_t r = 0; r < pp; ++r) {
          INFO(c.name << " pp " << pp << " m " << m << " rank " << r);
          // (pass: 0 forward, 1 backward, 2 weight gradients; chunk; microbatch)
          std::set<std::tuple<int, int64_t, int64_t>> seen;
          for (const ScheduleUnit& u : orders[static_cast<size_t>(r)]) {
            const int pass = u.forward ? 0 : u.weight ? 2 : 1;
            CHECK(!(u.forward && u.weight));
            CHECK(seen.insert({pass, u.chunk, u.microbatch}).second);
            if (pass > 0) CHECK(seen.count({pass - 1, u.chunk, u.microbatch}) == 1);
          }
          CHECK(seen.size() == static_cast<size_t>((e.splits_backward ? 3 : 2) * m * v));
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
  // Zero bubble (Qi et al. 2024 §2): ZB-H1 holds 1F1B's activations, ZB-H2 up to 2p - 1 on the
  // first rank; and each order keeps to its count of forwards not yet through their backward.
  for (int64_t mb : {int64_t{3}, m})
    for (int64_t r = 0; r < pp; ++r) {
      CHECK(pipeline_schedule(Schedule::ZB_H1).in_flight(pp, 1, mb, r) == std::min(pp - r, mb));
      CHECK(pipeline_schedule(Schedule::ZB_H2).in_flight(pp, 1, mb, r) == std::min(2 * (pp - r) - 1, mb));
    }
  for (Schedule kind : {Schedule::ZB_H1, Schedule::ZB_H2, Schedule::ZB_V}) {
    const PipelineSchedule& e = pipeline_schedule(kind);
    const int64_t v = schedule_choice(e.kind).v_shape ? 2 : 1;  // in whole-rank microbatches: a chunk is 1/v of one
    const auto orders = e.units(pp, v, m);
    for (int64_t r = 0; r < pp; ++r) {
      int64_t held = 0, peak = 0;
      for (const ScheduleUnit& u : orders[static_cast<size_t>(r)]) {
        if (!u.weight) held += u.forward ? 1 : -1;
        peak = std::max(peak, held);
      }
      CHECK(static_cast<double>(peak) / double(v) == e.in_flight(pp, v, m, r));
    }
  }
  CHECK(pipeline_schedule(Schedule::ZB_V).in_flight(pp, 2, 3, 0) == 3);
  // DualPipe: PP + 1 stages' microbatches on the first rank, PP the stages of a copy (pp); DualPipeV
  // PP = 2 pp stages (deepseek-ai/DualPipe README), in whole-rank microbatches (two chunks): over 2.
  // Neither grows with the microbatches.
  for (int64_t mb : {2 * pp, 4 * pp}) {
    CHECK(pipeline_schedule(Schedule::DUALPIPE).in_flight(pp, 2, mb, 0) == Approx((pp + 1) / 2.0));
    CHECK(pipeline_schedule(Schedule::DUALPIPE_V).in_flight(pp, 2, mb, 0) == Approx((2 * pp + 1) / 2.0));
  }
}

namespace {

// The step of a schedule's orders with every forward taking f, every backward b and every
// weight-gradient unit w per chunk (a schedule that does not split the backward runs b + w as one),
// and transfers free: each rank runs its units in order, a forward once the previous virtual
// stage's forward of its microbatch has ended, a backward once the next stage's backward (or, on
// the last stage, its own forward) has, weight gradients after the rank's own backward. Where the
// ranks start their next step as they end (overlaps_steps), the step is the longest any rank takes
// from its first unit's start to its end; else from 0 to the last end. An independent replay of
// the orders, not the estimate's.
double ideal_step(const PipelineSchedule& e, int64_t pp, int64_t v, int64_t m, double f, double b, double w = 0) {
  const int64_t stages = pp * v;
  const auto order = e.units(pp, v, m);
  // end[pass][stage][microbatch], negative until run.
  std::vector<double> end(static_cast<size_t>(3 * stages * m), -1.0);
  const auto at = [&](int pass, int64_t s, int64_t i) -> double& {
    return end[static_cast<size_t>((pass * stages + s) * m + i)];
  };
  std::vector<size_t> next(static_cast<size_t>(pp), 0);
  std::vector<double> free(static_cast<size_t>(pp), 0.0), first(static_cast<size_t>(pp), -1.0);
  for (bool progress = true; progress;) {
    progress = false;
    for (int64_t r = 0; r < pp; ++r) {
      auto& k = next[static_cast<size_t>(r)];
      while (k < order[static_cast<size_t>(r)].size()) {
        const auto& units = order[static_cast<size_t>(r)];
        const ScheduleUnit& u = units[k];
        const auto input = [&](const ScheduleUnit& x) {
          const int64_t xs = virtual_stage(pp, schedule_choice(e.kind).v_shape, r, x.chunk);
          // Under two model copies (DualPipe) each arm of the V is a whole model: stage pp starts
          // the second copy, stage pp - 1 ends the first.
          const int64_t per_copy = schedule_choice(e.kind).two_copies ? pp : stages, in_copy = xs % per_copy;
          return x.forward  ? (in_copy == 0 ? 0.0 : at(0, xs - 1, x.microbatch))
                 : x.weight ? at(1, xs, x.microbatch)
                            : (in_copy == per_copy - 1 ? at(0, xs, x.microbatch) : at(1, xs + 1, x.microbatch));
        };
        // A pair (DualPipe's forward and the backward beside it, with that backward's weight
        // gradients where they follow at once) runs as one block: it starts once both inputs are
        // there, and both outputs leave when it ends.
        size_t block = 1;
        double ready = input(u);
        if (u.beside && u.forward) {
          const ScheduleUnit& bwd = units[k + 1];
          const double other = input(bwd);
          ready = other < 0 ? other : std::max(ready, other);
          block = k + 2 < units.size() && units[k + 2].weight && units[k + 2].chunk == bwd.chunk &&
                          units[k + 2].microbatch == bwd.microbatch
                      ? 3
                      : 2;
        }
        if (ready < 0) break;  // its input is not there yet
        double& t = free[static_cast<size_t>(r)];
        const double start = std::max(t, ready);
        if (first[static_cast<size_t>(r)] < 0) first[static_cast<size_t>(r)] = start;
        double took = 0;
        for (size_t j = k; j < k + block; ++j)
          took += units[j].forward ? f : units[j].weight ? w : e.splits_backward ? b : b + w;
        t = start + took;
        for (size_t j = k; j < k + block; ++j) {
          const ScheduleUnit& x = units[j];
          at(x.forward  ? 0
             : x.weight ? 2
                        : 1,
             virtual_stage(pp, schedule_choice(e.kind).v_shape, r, x.chunk), x.microbatch) = t;
        }
        k += block;
        progress = true;
      }
    }
  }
  double step = 0;
  for (int64_t r = 0; r < pp; ++r) {
    REQUIRE(next[static_cast<size_t>(r)] == order[static_cast<size_t>(r)].size());
    step = std::max(step, free[static_cast<size_t>(r)] - (e.overlaps_steps ? first[static_cast<size_t>(r)] : 0.0));
  }
  return step;
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

TEST_CASE("the zero-bubble orders give the paper's bubbles", "[workload]") {
  // Qi et al. 2024 §2 (T_F, T_B, T_W per stage and microbatch; transfers free): 1F1B's bubble is
  // (p-1)(T_F + T_B + T_W); ZB-H1's (p-1)(T_F + T_B - T_W); ZB-H2's (p-1)(T_F + T_B - 2 T_W), zero
  // where T_F + T_B <= 2 T_W, once there are the 2p - 1 microbatches its warm-up needs (with fewer,
  // it is ZB-H1's). At equal times: the repository's bubble rates (p-1)/3m and 0.
  for (auto [F, B, W] : {std::tuple{1.0, 1.0, 1.0}, std::tuple{1.0, 1.2, 0.8}, std::tuple{1.0, 1.5, 0.7},
                         std::tuple{1.0, 2.0, 1.0}, std::tuple{1.0, 1.0, 0.5}})
    for (int64_t pp : {2, 4, 8})
      for (int64_t m : {8, 24}) {
        INFO("F " << F << " B " << B << " W " << W << " pp " << pp << " m " << m);
        const double work = m * (F + B + W), p1 = static_cast<double>(pp - 1);
        CHECK(ideal_step(pipeline_schedule(Schedule::ONE_F_ONE_B), pp, 1, m, F, B, W) ==
              Approx(work + p1 * (F + B + W)));
        CHECK(ideal_step(pipeline_schedule(Schedule::ZB_H1), pp, 1, m, F, B, W) == Approx(work + p1 * (F + B - W)));
        const double h2 = m >= 2 * pp - 1 ? std::max(0.0, F + B - 2 * W) : F + B - W;
        CHECK(ideal_step(pipeline_schedule(Schedule::ZB_H2), pp, 1, m, F, B, W) == Approx(work + p1 * h2));
      }
  // ZB-V: two chunks a rank in a V, each F, B, W half the rank's: no bubble at equal times
  // once m >= 2p, at 1F1B's activation memory (2p chunks, p whole microbatches, on every rank).
  for (int64_t pp : {2, 4, 8})
    for (int64_t m : {2 * pp, int64_t{24}}) {
      INFO("ZB-V pp " << pp << " m " << m);
      CHECK(ideal_step(pipeline_schedule(Schedule::ZB_V), pp, 2, m, 0.5, 0.5, 0.5) == Approx(3.0 * m));
    }
  // Equal times: ZB-H1's bubble rate (p-1)/(3m + p - 1), a third of 1F1B's bubble.
  const double rate = 1.0 - 24.0 * 3.0 / ideal_step(pipeline_schedule(Schedule::ZB_H1), 8, 1, 24, 1, 1, 1);
  CHECK(rate == Approx(7.0 / (72.0 + 7.0)));
}

TEST_CASE("DualPipe's and DualPipeV's orders give their repository's bubble", "[workload]") {
  // deepseek-ai/DualPipe README: with PP stages, F a chunk's forward, B its whole backward, W its
  // weight gradients and F&B an overlapped pair, the bubble is (PP/2 - 1)(F&B + B - 3W) for both
  // -- DualPipe: PP = pp stages a copy; DualPipeV: PP = 2 pp stages on pp ranks -- and "neither
  // the bubbles nor activation memory will increase as the number of micro-batches grows". The
  // README's figures draw F, the input gradients b and W one unit each (B = 2, F&B = 3), where
  // the form is exact; here each unit is timed alone (F&B = F + B) over the work 2 m (F + b + w)
  // of a rank's two chunks, m microbatches each.
  for (int64_t pp : {2, 4, 8})
    for (int64_t m : {2 * pp, 3 * pp + 1, 4 * pp}) {
      INFO("pp " << pp << " m " << m);
      const double work = 2.0 * m * 3.0, fb = 3.0, B = 2.0, W = 1.0;
      CHECK(ideal_step(pipeline_schedule(Schedule::DUALPIPE), pp, 2, m, 1, 1, 1) ==
            Approx(work + (pp / 2.0 - 1.0) * (fb + B - 3 * W)));
      CHECK(ideal_step(pipeline_schedule(Schedule::DUALPIPE_V), pp, 2, m, 1, 1, 1) ==
            Approx(work + (2.0 * pp / 2.0 - 1.0) * (fb + B - 3 * W)));
    }
  // At other times the bubble still does not grow with the microbatches.
  for (auto [F, b, w] : {std::tuple{1.0, 1.2, 0.8}, std::tuple{1.0, 1.5, 0.7}, std::tuple{2.0, 1.0, 1.0}})
    for (Schedule kind : {Schedule::DUALPIPE, Schedule::DUALPIPE_V})
      for (int64_t pp : {4, 8}) {
        INFO("F " << F << " b " << b << " w " << w << " pp " << pp);
        const auto bubble = [&](int64_t m) {
          return ideal_step(pipeline_schedule(kind), pp, 2, m, F, b, w) - 2.0 * m * (F + b + w);
        };
        CHECK(bubble(3 * pp + 1) == Approx(bubble(2 * pp)));
        CHECK(bubble(4 * pp) == Approx(bubble(2 * pp)));
      }
}

TEST_CASE("a plan that keeps one chunk per rank runs each schedule's one-chunk form", "[workload]") {
  // The planner (a search's pp = 1 candidates) and the reconfigure recovery's smaller pipelines
  // drop virtual stages where they cannot run them: interleaved 1F1B becomes 1F1B, ZB-V ZB-H1
  // (the same activation memory, Qi et al. 2024); every one-chunk form runs one chunk.
  CHECK(one_chunk_schedule(Schedule::INTERLEAVED) == Schedule::ONE_F_ONE_B);
  CHECK(one_chunk_schedule(Schedule::ZB_V) == Schedule::ZB_H1);
  for (const ScheduleChoice& c : pipeline_schedules()) {
    const Schedule one = one_chunk_schedule(c.kind);
    CHECK_FALSE(schedule_choice(one).v_shape);
    CHECK(one != Schedule::INTERLEAVED);
    if (c.kind != Schedule::INTERLEAVED && !c.v_shape) CHECK(one == c.kind);
    const auto orders = pipeline_schedule(one).units(4, 1, 8);
    for (const auto& order : orders)
      for (const ScheduleUnit& u : order) CHECK(u.chunk == 0);
  }
}
