// Host<->device copies over PCIe or C2C (nvbandwidth's method, NVIDIA/nvbandwidth README.md): h2d and d2h, from pinned
// (cudaHostAlloc) and pageable (malloc'd, touched) memory, 64 KiB..1 GiB by x2.
//
// Method: nvbandwidth's (§1.1). A repetition is a batch of `loops` back-to-back cudaMemcpyAsync
// calls between one event pair; for pinned memory the batch is queued behind a StreamHold so that
// enqueueing stays out of the timing. Pageable copies block the host while they are staged, so
// they cannot be queued behind a held stream: their batch runs between events on a free stream
// and includes the staging, which is what a framework pays.
// Metric: bandwidth = bytes / (batch time / loops).
// Check: after timing, 64 sampled 16-byte chunks of the destination equal the source.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "sim/kernels/checks.hpp"
#include "sim/kernels/host/compare.hpp"
#include "sim/kernels/host/records.hpp"
#include "sim/kernels/suites.hpp"

namespace sim::kernels {

namespace {

constexpr size_t kMaxBytes = size_t(1) << 30;

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

// Each 8-byte word holds a hash of its index: no two chunks alike, never all zeros.
void fill_host(void* data, size_t bytes) {
  auto* w = static_cast<uint64_t*>(data);
  for (size_t i = 0; i < bytes / 8; ++i) w[i] = (i + 1) * 0x9e3779b97f4a7c15ull;
}

void check_copy(const void* host, const void* device, size_t bytes, bool h2d, const std::string& what) {
  constexpr int kSamples = 64;
  const size_t chunks = bytes / 16;
  for (int i = 0; i < kSamples; ++i) {
    const size_t at = (chunks - 1) * static_cast<size_t>(i) / (kSamples - 1) * 16;
    unsigned char d[16];
    CUDA_CHECK(cudaMemcpy(d, static_cast<const char*>(device) + at, 16, cudaMemcpyDeviceToHost));
    if (std::memcmp(d, static_cast<const char*>(host) + at, 16) != 0)
      throw CheckFailure(what + ": " + (h2d ? "device" : "host") + " copy differs from the source at byte " +
                         std::to_string(at));
  }
}

}  // namespace

void run_host_copy_suite(Harness& harness, MeasurementWriter& out) {
  DeviceBuffer device(kMaxBytes);
  PinnedBuffer pinned(kMaxBytes);
  std::unique_ptr<void, FreeDeleter> pageable(std::aligned_alloc(4096, kMaxBytes));
  if (!pageable) throw std::bad_alloc();
  fill_host(pinned.get(), kMaxBytes);
  fill_host(pageable.get(), kMaxBytes);  // also faults every page in before timing

  for (const char* direction : {"h2d", "d2h"}) {
    const bool h2d = std::strcmp(direction, "h2d") == 0;
    for (bool is_pinned : {true, false}) {
      void* host = is_pinned ? pinned.get() : pageable.get();
      if (h2d)
        CUDA_CHECK(cudaMemcpy(device.get(), host, kMaxBytes, cudaMemcpyHostToDevice));  // fault pages in, warm the path
      for (size_t size = size_t(64) << 10; size <= kMaxBytes; size *= 2) {
        const int loops = static_cast<int>(std::max<size_t>(1, std::min<size_t>(16, (size_t(256) << 20) / size)));
        TimingPlan plan;
        plan.hold_stream = is_pinned;
        plan.target_s = 0.1;
        plan.warmup_reps = 1;
        Stats s = harness.time(
            [&](cudaStream_t st) {
              for (int i = 0; i < loops; ++i)
                CUDA_CHECK(h2d ? cudaMemcpyAsync(device.get(), host, size, cudaMemcpyHostToDevice, st)
                               : cudaMemcpyAsync(host, device.get(), size, cudaMemcpyDeviceToHost, st));
            },
            plan);
        CUDA_CHECK(cudaStreamSynchronize(harness.stream()));
        const std::string label =
            std::string(direction) + (is_pinned ? " pinned " : " pageable ") + std::to_string(size >> 10) + " KiB";
        check_copy(host, device.get(), size, h2d, "host_copy " + label);
        s.median /= loops;
        s.p10 /= loops;
        s.p90 /= loops;
        const std::string method =
            "cudaMemcpyAsync x" + std::to_string(loops) + " per event pair, " +
            (is_pinned ? "queued behind a spin kernel (nvbandwidth)" : "pageable staging included");
        out.add(Section::HOST_COPY, host_copy_record(direction, is_pinned, static_cast<int64_t>(size), method, s));
        progress("host_copy %s: %s (%.2f GB/s, %d reps)", label.c_str(), format_time(s.median).c_str(),
                 static_cast<double>(size) / s.median / 1e9, s.reps);
      }
    }
  }
}

}  // namespace sim::kernels
