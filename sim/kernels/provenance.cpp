#include "sim/kernels/provenance.hpp"

#include <cublasLt.h>
#include <unistd.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>

#include "sim/kernels/cuda_check.hpp"
#include "sim/kernels/suites.hpp"

namespace sim::kernels {

namespace {

// CUDA encodes versions as major*1000 + minor*10.
std::string cuda_version(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

// The kernel driver's release ("580.95.05") from /proc, the first dotted number of
// "NVRM version: NVIDIA UNIX [Open] Kernel Module [for x86_64]  580.159.04  Release Build ...";
// NVML is not part of the toolkit.
std::string driver_release() {
  std::ifstream f("/proc/driver/nvidia/version");
  std::string line;
  if (!f || !std::getline(f, line)) return "";
  std::istringstream words(line);
  for (std::string w; words >> w;)
    if (std::isdigit(static_cast<unsigned char>(w[0])) && w.find('.') != std::string::npos &&
        w.find_first_not_of("0123456789.") == std::string::npos)
      return w;
  return "";
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

constexpr const char* kMethod =
    "warm-up >= 100 ms per kernel class, then 3 untimed reps per shape; n = target / estimate(5 runs) reps clamped "
    "to [5, 100], one CUDA event pair per rep, queued behind a spin kernel; time = median, p10/p90 by nearest rank; "
    "L2 flushed (2 x L2 memset) before each rep of memory-bound kernels and GEMMs <= 1 GFLOP; uniform random inputs "
    "from a fixed seed; collectives: host wall clock around back-to-back launches as nccl-tests";

}  // namespace

Record make_provenance(const DeviceInfo& device, const RunFacts& facts) {
  int driver = 0, runtime = 0;
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  const size_t lt = cublasLtGetVersion();
  char buf[64];

  Record r;
  r.text("gpu", device.name).text("source", "trainsim kernel suite, sim/kernels");
  if (!facts.profile.empty()) r.text("profile", facts.profile);
  r.text("compute_capability", std::to_string(device.major) + "." + std::to_string(device.minor));
  r.integer("sms", device.sms).integer("l2_bytes", device.l2_bytes).integer("hbm_bytes", device.hbm_bytes);
  const std::string release = driver_release();
  r.text("driver", release.empty() ? "CUDA " + cuda_version(driver) : release);
  r.text("driver_cuda", cuda_version(driver)).text("cuda", cuda_version(runtime));
  std::snprintf(buf, sizeof buf, "%zu.%zu.%zu", lt / 10000, lt / 100 % 100, lt % 100);
  r.text("cublas", buf);
  if (const std::string nccl = nccl_version(); !nccl.empty()) r.text("nccl", nccl);
  r.number("sm_clock_rated_mhz", device.rated_clock_khz / 1000.0);
  r.number("sm_clock_before_mhz", std::round(facts.sm_clock_before_mhz));
  r.number("sm_clock_after_mhz", std::round(facts.sm_clock_after_mhz));
  r.text("sm_clock_method", "clock64 cycles over globaltimer ns, one thread for 2 ms");
  r.text("date", utc_now());
  if (!facts.git_commit.empty()) r.text("git_commit", facts.git_commit);
  r.text("host", host_name()).text("groups", facts.groups);
  std::snprintf(buf, sizeof buf, "%.1f s", facts.wall_s);
  r.text("wall_time", buf);
  r.text("method", kMethod);
  return r;
}

}  // namespace sim::kernels
