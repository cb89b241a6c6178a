#include "sim/kernels/runner.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "sim/kernels/provenance.hpp"
#include "sim/kernels/suites.hpp"

namespace sim::kernels {

namespace {

// Default hidden sizes of the memory-bound kernels, plus heads x head_dim of the attention shapes.
std::vector<int64_t> hidden_sizes(const ShapeList& shapes) {
  std::vector<int64_t> h = {1024, 2048, 4096, 8192, 16384};
  for (const AttentionShape& a : shapes.attention) h.push_back(a.heads * a.head_dim);
  std::sort(h.begin(), h.end());
  h.erase(std::unique(h.begin(), h.end()), h.end());
  return h;
}

}  // namespace

void progress(const char* format, ...) {
  std::va_list args;
  va_start(args, format);
  std::fputs("trainsim-kernels: ", stderr);
  std::vfprintf(stderr, format, args);
  std::fputc('\n', stderr);
  va_end(args);
}

void run_suites(const Options& options, const ShapeList& shapes, const std::string& nccl_algo) {
  const auto start = std::chrono::steady_clock::now();
  const DeviceInfo device = query_device(options.device);
  Harness harness(device);
  MeasurementWriter out;
  if (!options.scale_up_bandwidth.empty()) out.set_scale_up_bandwidth(options.scale_up_bandwidth);

  RunFacts facts;
  facts.profile = options.profile;
  facts.git_commit = options.git_commit;
  facts.sm_clock_before_mhz = measure_sm_clock_mhz(harness.stream());
  progress("%s, sm_%d, %d SMs, %.1f GiB, L2 %.0f MiB; SM clock %.0f MHz before warm-up", device.name.c_str(),
           device.sm_version(), device.sms, static_cast<double>(device.hbm_bytes) / 1073741824.0,
           static_cast<double>(device.l2_bytes) / 1048576.0, facts.sm_clock_before_mhz);

  for (const std::string& group : suite_names()) {
    if (!options.runs(group)) continue;
    facts.groups += (facts.groups.empty() ? "" : ",") + group;
    if (group == "gemm") run_gemm_suite(harness, device, shapes.gemm, options.gemm_best_of_4, out);
    if (group == "memory") {
      run_memory_suite(harness, device, hidden_sizes(shapes), out);
      run_copy_suite(harness, device, out);
    }
    if (group == "attention") run_attention_suite(harness, device, shapes.attention, out);
    if (group == "host_copy") run_host_copy_suite(harness, out);
    if (group == "collectives") run_collectives_suite(nccl_algo, out);
  }

  facts.sm_clock_after_mhz = measure_sm_clock_mhz(harness.stream());
  facts.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.set_provenance(make_provenance(device, facts));
  if (out.size() == 0) throw std::runtime_error("no measurement was taken, so no file was written");
  out.write(options.output);
  progress("wrote %zu measurements to %s in %.1f s (SM clock %.0f MHz at the end)", out.size(), options.output.c_str(),
           facts.wall_s, facts.sm_clock_after_mhz);
}

}  // namespace sim::kernels
