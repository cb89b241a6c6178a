// Device-to-device copies, the STREAM-like HBM ceiling (docs/calibration.md): "copy" is
// cudaMemcpyAsync (the copy engines), "copy_sm" the SM kernel of memory_kernels.hpp. Buffers of
// 1 MiB..4 GiB (as many as fit twice in 70 % of free memory), L2 flushed before each repetition.
//
// Metric: bytes = 2 x buffer size (read + write), as in the H200 figure of §2.3.
// Check: after timing, 64 sampled 16-byte chunks of the destination equal the source.
#include <cstring>

#include "sim/kernels/checks.hpp"
#include "sim/kernels/host/compare.hpp"
#include "sim/kernels/host/records.hpp"
#include "sim/kernels/memory_kernels.hpp"
#include "sim/kernels/suites.hpp"

namespace sim::kernels {

namespace {

void check_copy(const void* src, const void* dst, size_t bytes, const char* what) {
  constexpr int kSamples = 64;
  const size_t chunks = bytes / 16;
  for (int i = 0; i < kSamples; ++i) {
    const size_t at = (chunks - 1) * static_cast<size_t>(i) / (kSamples - 1) * 16;
    unsigned char a[16], b[16];
    CUDA_CHECK(cudaMemcpy(a, static_cast<const char*>(src) + at, 16, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(b, static_cast<const char*>(dst) + at, 16, cudaMemcpyDeviceToHost));
    if (std::memcmp(a, b, 16) != 0)
      throw CheckFailure(std::string(what) + ": destination differs from source at byte " + std::to_string(at));
  }
}

}  // namespace

void run_copy_suite(Harness& harness, const DeviceInfo& device, MeasurementWriter& out) {
  for (size_t size = size_t(1) << 20; size <= (size_t(4) << 30); size *= 2) {
    if (2.0 * static_cast<double>(size) > 0.7 * static_cast<double>(free_device_memory())) {
      progress("memory copy %zu MiB: skipped, does not fit twice in device memory", size >> 20);
      break;
    }
    DeviceBuffer src(size), dst(size);
    fill_uniform(src.get(), size / 2, DType::BF16, 7, -1.0f, 1.0f, harness.stream());
    for (const char* kernel : {"copy", "copy_sm"}) {
      const bool engine = std::strcmp(kernel, "copy") == 0;
      CUDA_CHECK(cudaMemsetAsync(dst.get(), 0, size, harness.stream()));
      TimingPlan plan;
      plan.flush_l2 = true;
      plan.target_s = 0.05;
      const Stats s = harness.time(
          [&](cudaStream_t st) {
            if (engine)
              CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), size, cudaMemcpyDeviceToDevice, st));
            else
              copy_sm(src.get(), dst.get(), size, device.sms, st);
          },
          plan);
      CUDA_CHECK(cudaStreamSynchronize(harness.stream()));
      check_copy(src.get(), dst.get(), size, kernel);
      const int64_t bytes = 2 * static_cast<int64_t>(size);
      out.add(Section::MEMORY, memory_record(kernel, bytes, 0, 0, s));
      progress("memory %s %zu MiB: %s (%.3f TB/s read + write, %d reps)", kernel, size >> 20,
               format_time(s.median).c_str(), static_cast<double>(bytes) / s.median / 1e12, s.reps);
    }
  }
}

}  // namespace sim::kernels
