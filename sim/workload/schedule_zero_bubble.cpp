// Zero-bubble pipeline schedules (Qi et al., "Zero Bubble (Almost) Pipeline Parallelism", ICLR
// 2024, §2): the backward splits into B, the input gradients the stage before waits for, and W,
// the weight gradients nothing waits for; W units fill the bubbles 1F1B leaves. Like the paper's
// handcrafted ZB-H1 and ZB-H2, the orders are laid out with every F, B and W taking one unit of
// time and transfers free: each rank, when it is free, runs the B whose input has arrived, else
// the F whose input has arrived while it holds fewer than `limit` microbatches' activations
// (forwards not yet through their B), else a W it owes, else waits for the next input. With
// T_F, T_B, T_W and p stages the bubble is then (p-1)(T_F + T_B - T_W) for ZB-H1, whose limit
// p - r is 1F1B's, and (p-1)(T_F + T_B - 2 T_W) (zero when T_F + T_B <= 2 T_W) for ZB-H2, whose
// limit 2(p - r) - 1 fills the warm-up with forwards (Qi et al. §2.1-2.2; the repository's table
// of bubble rates, (p-1)/3m and 0 at equal times). Both reach those bubbles only with the
// paper's optimizer post-validation, which lets each stage start its next step as it ends
// (overlaps_steps): the step is then the longest any stage is busy or waiting between its first
// unit and its last.
//
// The weight units hold, between B and W, their layers' inputs and output gradients; those are
// not counted in in_flight (the paper's M_W, "typically less" than M_B: Table 1).
#include <algorithm>
#include <array>
#include <limits>

#include "sim/core/error.hpp"
#include "sim/workload/schedule.hpp"
#include "sim/workload/stage_layout.hpp"

namespace sim {
namespace {

// The order of `chunks` chunks per rank (2: a V, stage_layout.hpp), each rank holding at most
// limit(pp, r) chunks' activations (forwards not yet through their backward). Among a rank's
// chunks the deeper one goes first (its backward comes first); waiting, the first input to come.
std::vector<std::vector<ScheduleUnit>> zero_bubble_order(int64_t pp, int64_t m, int64_t chunks,
                                                         int64_t (*limit)(int64_t pp, int64_t r)) {
  constexpr int64_t NOT_YET = -1, NEVER = std::numeric_limits<int64_t>::max();
  const auto P = static_cast<size_t>(pp), M = static_cast<size_t>(m);
  const bool v_shape = chunks == 2;
  const int64_t last = pp * chunks - 1;
  std::vector<std::vector<ScheduleUnit>> out(P);
  // When each stage's forward (backward) of each microbatch ends, in units of time.
  std::vector<int64_t> f_end(static_cast<size_t>(last + 1) * M, NOT_YET), b_end(f_end);
  std::vector<int64_t> free(P, 0), held(P, 0);
  std::vector<std::array<int64_t, 2>> nf(P, {0, 0}), nb(P, {0, 0}), nw(P, {0, 0});
  const auto at = [&](std::vector<int64_t>& v, int64_t stage, int64_t mb) -> int64_t& {
    return v[static_cast<size_t>(stage) * M + static_cast<size_t>(mb)];
  };
  // When rank r's next forward (backward) of chunk c may start, NOT_YET while its input is
  // unknown, NEVER when it has none to run.
  auto next_forward = [&](size_t r, int64_t c) {
    if (nf[r][c] == m || held[r] >= limit(pp, static_cast<int64_t>(r))) return NEVER;
    const int64_t s = virtual_stage(pp, v_shape, static_cast<int64_t>(r), c);
    return s == 0 ? int64_t{0} : at(f_end, s - 1, nf[r][c]);
  };
  auto next_backward = [&](size_t r, int64_t c) {
    if (nb[r][c] == nf[r][c]) return NEVER;
    const int64_t s = virtual_stage(pp, v_shape, static_cast<int64_t>(r), c);
    return s == last ? at(f_end, s, nb[r][c]) : at(b_end, s + 1, nb[r][c]);
  };
  const auto known = [&](int64_t t) { return t != NEVER && t != NOT_YET; };
  for (int64_t left = 3 * m * chunks * pp; left > 0; --left) {
    // The soonest (time, rank) and its unit: a B whose input is there, else such an F, else an
    // owed W; else the earliest input to come (a B before an F among equals). Lowest rank first.
    int64_t best_at = NEVER, best_kind = 0, best_chunk = 0;
    size_t best = 0;
    for (size_t r = 0; r < P; ++r) {
      bool done = true;
      for (int64_t c = 0; c < chunks; ++c) done = done && nw[r][c] == m;
      if (done) continue;
      int64_t when = NEVER, kind = -1, chunk = 0;  // kind 0: B, 1: F, 2: W
      for (int64_t c = chunks - 1; c >= 0; --c)
        if (kind < 0 && known(next_backward(r, c)) && next_backward(r, c) <= free[r])
          when = free[r], kind = 0, chunk = c;
      for (int64_t c = chunks - 1; c >= 0; --c)
        if (kind < 0 && known(next_forward(r, c)) && next_forward(r, c) <= free[r]) when = free[r], kind = 1, chunk = c;
      for (int64_t c = chunks - 1; c >= 0; --c)
        if (kind < 0 && nw[r][c] < nb[r][c]) when = free[r], kind = 2, chunk = c;
      if (kind < 0)
        for (int k : {0, 1})
          for (int64_t c = 0; c < chunks; ++c) {
            const int64_t t = k == 0 ? next_backward(r, c) : next_forward(r, c);
            if (known(t) && t < when) when = t, kind = k, chunk = c;
          }
      if (kind >= 0 && when < best_at) best_at = when, best = r, best_kind = kind, best_chunk = chunk;
    }
    SIM_ASSERT(best_at != NEVER, "a zero-bubble order always has a unit to run");
    free[best] = best_at + 1;
    const int64_t c = best_chunk, s = virtual_stage(pp, v_shape, static_cast<int64_t>(best), c);
    if (best_kind == 1) {
      at(f_end, s, nf[best][c]) = free[best];
      out[best].push_back({true, c, nf[best][c]++});
      ++held[best];
    } else if (best_kind == 0) {
      at(b_end, s, nb[best][c]) = free[best];
      out[best].push_back({false, c, nb[best][c]++});
      --held[best];
    } else {
      out[best].push_back({false, c, nw[best][c]++, true});
    }
  }
  return out;
}

// ZB-V (Qi et al. 2024, the V-shaped schedule): two chunks per rank in a V (stage_layout.hpp), each
// rank holding at most 2 pp chunks' activations (1F1B's first rank's pp microbatches of its whole
// layers): zero bubble once m >= 2 pp (tests).
int64_t v_limit(int64_t pp, int64_t) { return 2 * pp; }

int64_t h1_limit(int64_t pp, int64_t r) { return pp - r; }
int64_t h2_limit(int64_t pp, int64_t r) { return 2 * (pp - r) - 1; }

std::vector<std::vector<ScheduleUnit>> h1_units(int64_t pp, int64_t, int64_t m) {
  return zero_bubble_order(pp, m, 1, h1_limit);
}
std::vector<std::vector<ScheduleUnit>> h2_units(int64_t pp, int64_t, int64_t m) {
  return zero_bubble_order(pp, m, 1, h2_limit);
}
double h1_in_flight(int64_t pp, int64_t, int64_t m, int64_t r) {
  return static_cast<double>(std::min(h1_limit(pp, r), m));
}
double h2_in_flight(int64_t pp, int64_t, int64_t m, int64_t r) {
  return static_cast<double>(std::min(h2_limit(pp, r), m));
}

}  // namespace

std::vector<std::vector<ScheduleUnit>> v_units(int64_t pp, int64_t, int64_t m) {
  return zero_bubble_order(pp, m, 2, v_limit);
}
// In whole-rank microbatches: 2 pp chunks, each half the rank's layers.
double v_in_flight(int64_t pp, int64_t, int64_t m, int64_t) { return static_cast<double>(std::min(pp, m)); }

PipelineSchedule zb_h1_schedule() { return {Schedule::ZB_H1, h1_units, h1_in_flight, true, true}; }
PipelineSchedule zb_h2_schedule() { return {Schedule::ZB_H2, h2_units, h2_in_flight, true, true}; }
PipelineSchedule zb_v_schedule() { return {Schedule::ZB_V, v_units, v_in_flight, true, true}; }

}  // namespace sim
