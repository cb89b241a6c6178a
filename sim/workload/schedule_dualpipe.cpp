// DualPipe (DeepSeek-V3 technical report §3.2.1; deepseek-ai/DualPipe, dualpipe.py@3da1bbe) and
// DualPipeV, its cut-in-half V (dualpipev.py). Both run one per-rank order, written below as the
// repository's `step` writes it, over n ranks and m microbatches per phase, each rank holding two
// phases (chunks):
//   1. 2(n-r-1) forwards of phase 0; 2. r+1 times a forward of phase 0 and one of phase 1;
//   3. n-r-1 times: a backward of phase 1 (its weight gradients deferred), a deferred weight
//      gradient, a forward of phase 1;
//   4. m-2n+r+1 times: the pairs F0&B1 and F1&B0 (the last rank runs its first F0, B1 one after
//      the other);
//   5. n-r-1 times: B1, then the pair F1&B0;  6. r+1 times B1, B0 (from the middle on, their
//      weight gradients deferred);  7. n-r-1 times a deferred weight gradient and B0 (deferred);
//   8. the r+1 weight gradients left.
// A pair's forward and backward run side by side (ScheduleUnit::beside); a backward whose weight
// gradients are not deferred runs them at once (a weight unit right after it); deferred ones run
// first in, first out (WeightGradStore's queue).
//
// DualPipeV is this order on pp ranks, rank r's phase 0 its stage r and phase 1 its stage 2pp-1-r
// (a V). DualPipe on pp ranks is it with n = pp/2 and r = min(R, pp-1-R) for rank R, half the
// step's microbatches in each direction: rank R holds stage R of the model copy that runs from
// rank 0 and stage pp-1-R of the copy that runs from rank pp-1, and a rank in the second half has
// its phases swapped (dualpipe.py: phase ^= is_in_second_half). Bubble at T_F, T_B (a whole
// backward), T_W and T_F&B per stage (deepseek-ai/DualPipe README): (pp/2 - 1)(F&B + B - 3W),
// with 2x the parameters (DualPipe) and pp + 1 stages' microbatches of activations (tests).
#include <algorithm>
#include <array>
#include <deque>

#include "sim/core/error.hpp"
#include "sim/workload/schedule.hpp"

namespace sim {
namespace {

// Rank r of n's order over m microbatches per phase; `swap` exchanges the phases' chunks.
std::vector<ScheduleUnit> dualpipe_order(int64_t n, int64_t r, int64_t m, bool swap) {
  std::vector<ScheduleUnit> out;
  std::array<int64_t, 2> forwards{0, 0}, backwards{0, 0};
  std::deque<ScheduleUnit> deferred;  // weight gradients, first in, first out
  const auto chunk = [&](int64_t phase) { return swap ? 1 - phase : phase; };
  auto forward = [&](int64_t phase, bool beside = false) {
    out.push_back({true, chunk(phase), forwards[static_cast<size_t>(phase)]++, false, beside});
  };
  auto backward = [&](int64_t phase, bool defer, bool beside = false) {
    const int64_t mb = backwards[static_cast<size_t>(phase)]++;
    out.push_back({false, chunk(phase), mb, false, beside});
    const ScheduleUnit w{false, chunk(phase), mb, true};
    if (defer)
      deferred.push_back(w);
    else
      out.push_back(w);
  };
  auto weight = [&] {
    SIM_ASSERT(!deferred.empty(), "a weight gradient is owed");
    out.push_back(deferred.front());
    deferred.pop_front();
  };
  auto pair = [&](int64_t f, int64_t b) {
    forward(f, true);
    backward(b, false, true);
  };
  const int64_t after = n - r - 1;
  for (int64_t i = 0; i < 2 * after; ++i) forward(0);
  for (int64_t i = 0; i <= r; ++i) forward(0), forward(1);
  for (int64_t i = 0; i < after; ++i) backward(1, true), weight(), forward(1);
  for (int64_t i = 0; i < m - 2 * n + r + 1; ++i) {
    if (i == 0 && r == n - 1)
      forward(0), backward(1, false);
    else
      pair(0, 1);
    pair(1, 0);
  }
  for (int64_t i = 0; i < after; ++i) backward(1, false), pair(1, 0);
  bool defer = false;
  for (int64_t i = 0; i <= r; ++i) {
    if (i == (r + 1) / 2 && r % 2 == 1) defer = true;
    backward(1, defer);
    if (i == (r + 1) / 2 && r % 2 == 0) defer = true;
    backward(0, defer);
  }
  for (int64_t i = 0; i < after; ++i) weight(), backward(0, true);
  while (!deferred.empty()) weight();
  return out;
}

// The least microbatches per step it runs (sim/scenario/schedules.cpp), for the memory estimate.
int64_t min_microbatches(Schedule kind, int64_t pp) { return schedule_choice(kind).min_microbatches_per_rank * pp; }

// DualPipe: m microbatches per chunk (PipelineSchedule::two_copies), the step's 2m.
std::vector<std::vector<ScheduleUnit>> dual_units(int64_t pp, int64_t, int64_t m) {
  std::vector<std::vector<ScheduleUnit>> out;
  for (int64_t r = 0; r < pp; ++r) out.push_back(dualpipe_order(pp / 2, std::min(r, pp - 1 - r), m, r >= pp / 2));
  return out;
}
std::vector<std::vector<ScheduleUnit>> v_units(int64_t pp, int64_t, int64_t m) {
  std::vector<std::vector<ScheduleUnit>> out;
  for (int64_t r = 0; r < pp; ++r) out.push_back(dualpipe_order(pp, r, m, false));
  return out;
}

// The most chunk-microbatches whose activations `order` holds at once (a forward adds one, its
// input-gradient backward frees it), in whole-rank microbatches: over the rank's two chunks.
double peak_held(const std::vector<ScheduleUnit>& order) {
  int64_t held = 0, peak = 0;
  for (const ScheduleUnit& u : order) {
    if (u.weight) continue;
    held += u.forward ? 1 : -1;
    peak = std::max(peak, held);
  }
  return static_cast<double>(peak) / 2.0;
}

// `m` is the step's microbatches (memory.cpp), raised to the least the schedule runs.
double dual_in_flight(int64_t pp, int64_t, int64_t m, int64_t r) {
  const int64_t per_chunk = std::max(m, min_microbatches(Schedule::DUALPIPE, pp)) / 2;
  return peak_held(dualpipe_order(pp / 2, std::min(r, pp - 1 - r), per_chunk, r >= pp / 2));
}
double v_in_flight(int64_t pp, int64_t, int64_t m, int64_t r) {
  return peak_held(dualpipe_order(pp, r, std::max(m, min_microbatches(Schedule::DUALPIPE_V, pp)), false));
}

}  // namespace

PipelineSchedule dualpipe_schedule() { return {Schedule::DUALPIPE, dual_units, dual_in_flight, true, false}; }
PipelineSchedule dualpipe_v_schedule() { return {Schedule::DUALPIPE_V, v_units, v_in_flight, true, false}; }

}  // namespace sim
