// The timing harness every suite shares (STYLE.md §15): clock ramp, warm-up, repetition budget,
// optional L2 flush, one CUDA event pair per repetition, median/p10/p90 (host/stats.hpp).
//
// time() runs `warmup_reps` untimed repetitions, then 5 timed ones whose mean is the estimate,
// then n = target_s / estimate repetitions clamped to [min_reps, max_reps] (triton's do_bench
// rule). Timed repetitions are queued in batches of up to 16 behind a StreamHold, so host launch
// overhead never shows between an event pair; the L2 flush (a 2 x L2-size memset) sits between
// repetitions, outside the events. All times are seconds of GPU time.
#pragma once

#include <functional>
#include <vector>

#include "sim/kernels/device_buffer.hpp"
#include "sim/kernels/device_info.hpp"
#include "sim/kernels/host/stats.hpp"
#include "sim/kernels/stream_hold.hpp"

namespace sim::kernels {

// Queues one repetition of the measured work on the stream.
using Launch = std::function<void(cudaStream_t)>;

struct TimingPlan {
  double target_s = 0.1;    // GPU time to spend on timed repetitions
  bool flush_l2 = false;    // flush L2 before each repetition (memory-bound work)
  bool hold_stream = true;  // false for work that blocks the host while queued (pageable copies)
  int warmup_reps = 3;
  int min_reps = 5;
  int max_reps = 100;
};

class Harness {
 public:
  explicit Harness(const DeviceInfo& device);
  ~Harness();
  Harness(const Harness&) = delete;
  Harness& operator=(const Harness&) = delete;

  cudaStream_t stream() const { return stream_; }

  // Runs `launch` back to back for at least `seconds` of GPU time, so that clocks have ramped
  // before the first measurement of a kernel class (the H200 idles at 345 MHz, runs at 1980 MHz under load).
  void ramp(const Launch& launch, double seconds = 0.1);
  Stats time(const Launch& launch, const TimingPlan& plan);

 private:
  static constexpr int kBatch = 16;
  void flush_l2();
  double elapsed_s(int i) const;

  cudaStream_t stream_ = nullptr;
  DeviceBuffer flush_buffer_;
  std::vector<cudaEvent_t> start_, stop_;
  StreamHold hold_;
  bool warned_timeout_ = false;
};

}  // namespace sim::kernels
