#include "sim/kernels/harness.hpp"

#include <algorithm>
#include <cstdio>

namespace sim::kernels {

Harness::Harness(const DeviceInfo& device)
    : flush_buffer_(static_cast<size_t>(std::max<int64_t>(2 * device.l2_bytes, 1 << 20))),
      start_(kBatch, nullptr),
      stop_(kBatch, nullptr) {
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  for (int i = 0; i < kBatch; ++i) {
    CUDA_CHECK(cudaEventCreate(&start_[i]));
    CUDA_CHECK(cudaEventCreate(&stop_[i]));
  }
}

Harness::~Harness() {
  for (int i = 0; i < kBatch; ++i) {
    if (start_[i]) cudaEventDestroy(start_[i]);
    if (stop_[i]) cudaEventDestroy(stop_[i]);
  }
  if (stream_) cudaStreamDestroy(stream_);
}

void Harness::flush_l2() { CUDA_CHECK(cudaMemsetAsync(flush_buffer_.get(), 0, flush_buffer_.bytes(), stream_)); }

double Harness::elapsed_s(int i) const {
  float ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start_[i], stop_[i]));
  return 1e-3 * static_cast<double>(ms);
}

void Harness::ramp(const Launch& launch, double seconds) {
  double total = 0.0;
  for (int k = 1; total < seconds; k = std::min(2 * k, 1 << 14)) {
    CUDA_CHECK(cudaEventRecord(start_[0], stream_));
    for (int i = 0; i < k; ++i) launch(stream_);
    CUDA_CHECK(cudaEventRecord(stop_[0], stream_));
    CUDA_CHECK(cudaEventSynchronize(stop_[0]));
    total += elapsed_s(0);
  }
}

Stats Harness::time(const Launch& launch, const TimingPlan& plan) {
  for (int i = 0; i < plan.warmup_reps; ++i) {
    if (plan.flush_l2) flush_l2();
    launch(stream_);
  }
  constexpr int kEstimateRuns = 5;
  for (int i = 0; i < kEstimateRuns; ++i) {
    if (plan.flush_l2) flush_l2();
    CUDA_CHECK(cudaEventRecord(start_[i], stream_));
    launch(stream_);
    CUDA_CHECK(cudaEventRecord(stop_[i], stream_));
  }
  CUDA_CHECK(cudaStreamSynchronize(stream_));
  double estimate = 0.0;
  for (int i = 0; i < kEstimateRuns; ++i) estimate += elapsed_s(i) / kEstimateRuns;

  const int n = rep_budget(estimate, plan.target_s, plan.min_reps, plan.max_reps);
  std::vector<double> samples;
  samples.reserve(static_cast<size_t>(n));
  while (static_cast<int>(samples.size()) < n) {
    const int batch = std::min(kBatch, n - static_cast<int>(samples.size()));
    if (plan.hold_stream) hold_.hold(stream_);
    for (int i = 0; i < batch; ++i) {
      if (plan.flush_l2) flush_l2();
      CUDA_CHECK(cudaEventRecord(start_[i], stream_));
      launch(stream_);
      CUDA_CHECK(cudaEventRecord(stop_[i], stream_));
    }
    if (plan.hold_stream) hold_.release();
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    for (int i = 0; i < batch; ++i) samples.push_back(elapsed_s(i));
  }
  if (plan.hold_stream && hold_.timed_out() && !warned_timeout_) {
    std::fprintf(stderr, "trainsim-kernels: warning: a stream hold timed out; some timings include launch delays\n");
    warned_timeout_ = true;
  }
  return summarize(std::move(samples));
}

}  // namespace sim::kernels
