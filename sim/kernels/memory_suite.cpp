// Memory-bound kernels (memory_kernels.hpp): one descriptor per kernel with its tensors, the
// bytes it must move (each tensor read or written once: the metric's numerator), its launch and
// its fp64 host reference. Timed with L2 flushed before every repetition, over tokens 1k..64k and
// the hidden sizes given; each (kernel, hidden) is first checked on a problem with more rows than
// the backward kernels have blocks, so the multi-row path is exercised too.
#include <cmath>
#include <cstdio>

#include "sim/kernels/checks.hpp"
#include "sim/kernels/host/compare.hpp"
#include "sim/kernels/host/records.hpp"
#include "sim/kernels/memory_kernels.hpp"
#include "sim/kernels/memory_reference.hpp"
#include "sim/kernels/suites.hpp"

namespace sim::kernels {

namespace {

constexpr float kEps = 1e-5f;
constexpr int64_t kTokens[] = {1024, 4096, 16384, 65536};

enum class Extent { NH, N2H, H, N, PARTIALS, PARTIALS2 };  // N tokens, H hidden; partials: blocks x H
enum class Role { IN, OUT, SCRATCH };

struct TensorSpec {
  const char* name;
  Extent extent;
  DType type;
  Role role;
  float lo = -1.0f, hi = 1.0f;  // input range
};

struct Problem {
  int64_t n = 0, h = 0;
  int blocks = 0;  // of the norm backward kernels
  int sms = 0;
};

using Ptrs = std::vector<void*>;
using Host = std::vector<std::vector<double>>;

struct MemoryKernel {
  const char* name;
  const char* bytes_formula;  // the minimum traffic, N tokens x h hidden, bf16 = 2 bytes
  std::vector<TensorSpec> tensors;
  double (*bytes)(double n, double h);
  bool row_kernel;  // hidden <= kMaxRowHidden
  void (*launch)(const Ptrs& t, const Problem& p, cudaStream_t s);
  void (*reference)(const Host& t, const Problem& p, Host& want);  // fills want[i] of the OUT tensors
};

bf16* B(void* p) { return static_cast<bf16*>(p); }
float* F(void* p) { return static_cast<float*>(p); }

constexpr DType BF = DType::BF16, F32 = DType::F32;
constexpr Role IN = Role::IN, OUT = Role::OUT, SCRATCH = Role::SCRATCH;

const std::vector<MemoryKernel>& memory_kernels() {
  using E = Extent;
  static const std::vector<MemoryKernel> table = {
      {"rmsnorm_fwd",
       "read x 2Nh + w 2h; write y 2Nh + rstd 4N",
       {{"x", E::NH, BF, IN}, {"w", E::H, BF, IN}, {"y", E::NH, BF, OUT}, {"rstd", E::N, F32, OUT}},
       [](double n, double h) { return 4 * n * h + 2 * h + 4 * n; },
       true,
       [](const Ptrs& t, const Problem& p, cudaStream_t s) {
         rmsnorm_fwd(B(t[0]), B(t[1]), B(t[2]), F(t[3]), p.n, p.h, kEps, s);
       },
       [](const Host& t, const Problem& p, Host& w) { ref::rmsnorm_fwd(t[0], t[1], p.n, p.h, kEps, w[2], w[3]); }},
      {"rmsnorm_bwd",
       "read dy 2Nh + x 2Nh + w 2h + rstd 4N; write dx 2Nh + dw 2h",
       {{"dy", E::NH, BF, IN},
        {"x", E::NH, BF, IN},
        {"w", E::H, BF, IN},
        {"rstd", E::N, F32, IN, 0.5f, 1.5f},
        {"dx", E::NH, BF, OUT},
        {"dw", E::H, BF, OUT},
        {"partials", E::PARTIALS, F32, SCRATCH}},
       [](double n, double h) { return 6 * n * h + 4 * h + 4 * n; },
       true,
       [](const Ptrs& t, const Problem& p, cudaStream_t s) {
         rmsnorm_bwd(B(t[0]), B(t[1]), B(t[2]), F(t[3]), B(t[4]), B(t[5]), F(t[6]), p.n, p.h, p.blocks, s);
       },
       [](const Host& t, const Problem& p, Host& w) {
         ref::rmsnorm_bwd(t[0], t[1], t[2], t[3], p.n, p.h, w[4], w[5]);
       }},
      {"layernorm_fwd",
       "read x 2Nh + gamma 2h + beta 2h; write y 2Nh + mean 4N + rstd 4N",
       {{"x", E::NH, BF, IN},
        {"gamma", E::H, BF, IN},
        {"beta", E::H, BF, IN},
        {"y", E::NH, BF, OUT},
        {"mean", E::N, F32, OUT},
        {"rstd", E::N, F32, OUT}},
       [](double n, double h) { return 4 * n * h + 4 * h + 8 * n; },
       true,
       [](const Ptrs& t, const Problem& p, cudaStream_t s) {
         layernorm_fwd(B(t[0]), B(t[1]), B(t[2]), B(t[3]), F(t[4]), F(t[5]), p.n, p.h, kEps, s);
       },
       [](const Host& t, const Problem& p, Host& w) {
         ref::layernorm_fwd(t[0], t[1], t[2], p.n, p.h, kEps, w[3], w[4], w[5]);
       }},
      {"layernorm_bwd",
       "read dy 2Nh + x 2Nh + gamma 2h + mean 4N + rstd 4N; write dx 2Nh + dgamma 2h + dbeta 2h",
       {{"dy", E::NH, BF, IN},
        {"x", E::NH, BF, IN},
        {"gamma", E::H, BF, IN},
        {"mean", E::N, F32, IN},
        {"rstd", E::N, F32, IN, 0.5f, 1.5f},
        {"dx", E::NH, BF, OUT},
        {"dgamma", E::H, BF, OUT},
        {"dbeta", E::H, BF, OUT},
        {"partials", E::PARTIALS2, F32, SCRATCH}},
       [](double n, double h) { return 6 * n * h + 6 * h + 8 * n; },
       true,
       [](const Ptrs& t, const Problem& p, cudaStream_t s) {
         layernorm_bwd(B(t[0]), B(t[1]), B(t[2]), F(t[3]), F(t[4]), B(t[5]), B(t[6]), B(t[7]), F(t[8]), p.n, p.h,
                       p.blocks, s);
       },
       [](const Host& t, const Problem& p, Host& w) {
         ref::layernorm_bwd(t[0], t[1], t[2], t[3], t[4], p.n, p.h, w[5], w[6], w[7]);
       }},
      {"softmax_fwd",
       "read x 2Nh; write y 2Nh (rows of h)",
       {{"x", E::NH, BF, IN, -4.0f, 4.0f}, {"y", E::NH, BF, OUT}},
       [](double n, double h) { return 4 * n * h; },
       true,
       [](const Ptrs& t, const Problem& p, cudaStream_t s) { softmax_fwd(B(t[0]), B(t[1]), p.n, p.h, s); },
       [](const Host& t, const Problem& p, Host& w) { ref::softmax_fwd(t[0], p.n, p.h, w[1]); }},
      {"softmax_bwd",
       "read y 2Nh + dy 2Nh; write dx 2Nh",
       {{"y", E::NH, BF, IN, 0.0f, 1.0f}, {"dy", E::NH, BF, IN}, {"dx", E::NH, BF, OUT}},
       [](double n, double h) { return 6 * n * h; },
       true,
       [](const Ptrs& t, const Problem& p, cudaStream_t s) { softmax_bwd(B(t[0]), B(t[1]), B(t[2]), p.n, p.h, s); },
       [](const Host& t, const Problem& p, Host& w) { ref::softmax_bwd(t[0], t[1], p.n, p.h, w[2]); }},
      {"gelu_fwd",
       "read x 2Nh; write y 2Nh",
       {{"x", E::NH, BF, IN, -3.0f, 3.0f}, {"y", E::NH, BF, OUT}},
       [](double n, double h) { return 4 * n * h; },
       false,
       [](const Ptrs& t, const Problem& p, cudaStream_t s) { gelu_fwd(B(t[0]), B(t[1]), p.n * p.h, p.sms, s); },
       [](const Host& t, const Problem&, Host& w) { ref::gelu_fwd(t[0], w[1]); }},
      {"gelu_bwd",
       "read x 2Nh + dy 2Nh; write dx 2Nh",
       {{"x", E::NH, BF, IN, -3.0f, 3.0f}, {"dy", E::NH, BF, IN}, {"dx", E::NH, BF, OUT}},
       [](double n, double h) { return 6 * n * h; },
       false,
       [](const Ptrs& t, const Problem& p, cudaStream_t s) {
         gelu_bwd(B(t[0]), B(t[1]), B(t[2]), p.n * p.h, p.sms, s);
       },
       [](const Host& t, const Problem&, Host& w) { ref::gelu_bwd(t[0], t[1], w[2]); }},
      {"swiglu_fwd",
       "read x [gate|up] 4Nh; write y 2Nh (h = output width)",
       {{"x", E::N2H, BF, IN, -3.0f, 3.0f}, {"y", E::NH, BF, OUT}},
       [](double n, double h) { return 6 * n * h; },
       false,
       [](const Ptrs& t, const Problem& p, cudaStream_t s) { swiglu_fwd(B(t[0]), B(t[1]), p.n, p.h, p.sms, s); },
       [](const Host& t, const Problem& p, Host& w) { ref::swiglu_fwd(t[0], p.n, p.h, w[1]); }},
      {"swiglu_bwd",
       "read x 4Nh + dy 2Nh; write dx 4Nh",
       {{"x", E::N2H, BF, IN, -3.0f, 3.0f}, {"dy", E::NH, BF, IN}, {"dx", E::N2H, BF, OUT}},
       [](double n, double h) { return 10 * n * h; },
       false,
       [](const Ptrs& t, const Problem& p, cudaStream_t s) {
         swiglu_bwd(B(t[0]), B(t[1]), B(t[2]), p.n, p.h, p.sms, s);
       },
       [](const Host& t, const Problem& p, Host& w) { ref::swiglu_bwd(t[0], t[1], p.n, p.h, w[2]); }},
      {"residual_add",
       "read a 2Nh + b 2Nh; write out 2Nh",
       {{"a", E::NH, BF, IN}, {"b", E::NH, BF, IN}, {"out", E::NH, BF, OUT}},
       [](double n, double h) { return 6 * n * h; },
       false,
       [](const Ptrs& t, const Problem& p, cudaStream_t s) {
         residual_add(B(t[0]), B(t[1]), B(t[2]), p.n * p.h, p.sms, s);
       },
       [](const Host& t, const Problem&, Host& w) { ref::residual_add(t[0], t[1], w[2]); }},
  };
  return table;
}

size_t elements(Extent e, const Problem& p) {
  const auto n = static_cast<size_t>(p.n), h = static_cast<size_t>(p.h), b = static_cast<size_t>(p.blocks);
  switch (e) {
    case Extent::NH: return n * h;
    case Extent::N2H: return 2 * n * h;
    case Extent::H: return h;
    case Extent::N: return n;
    case Extent::PARTIALS: return b * h;
    case Extent::PARTIALS2: return 2 * b * h;
  }
  return 0;
}

// The device tensors of one problem, inputs filled with seeded uniform values.
struct Tensors {
  std::vector<DeviceBuffer> buffers;
  Ptrs ptrs;
};

double footprint(const MemoryKernel& k, const Problem& p) {
  double bytes = 0.0;
  for (const TensorSpec& t : k.tensors) bytes += static_cast<double>(elements(t.extent, p) * dtype_bytes(t.type));
  return bytes;
}

Tensors allocate(const MemoryKernel& k, const Problem& p, cudaStream_t stream) {
  Tensors t;
  for (size_t i = 0; i < k.tensors.size(); ++i) {
    const TensorSpec& s = k.tensors[i];
    const size_t count = elements(s.extent, p);
    t.buffers.emplace_back(count * dtype_bytes(s.type));
    t.ptrs.push_back(t.buffers.back().get());
    if (s.role == Role::IN) fill_uniform(t.ptrs.back(), count, s.type, 100 + i, s.lo, s.hi, stream);
  }
  return t;
}

void check(const MemoryKernel& k, const Problem& p, cudaStream_t stream) {
  Tensors t = allocate(k, p, stream);
  k.launch(t.ptrs, p, stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  Host host(k.tensors.size()), want(k.tensors.size());
  for (size_t i = 0; i < k.tensors.size(); ++i)
    if (k.tensors[i].role != Role::SCRATCH)
      host[i] = download(t.ptrs[i], elements(k.tensors[i].extent, p), k.tensors[i].type);
  k.reference(host, p, want);
  for (size_t i = 0; i < k.tensors.size(); ++i) {
    const TensorSpec& s = k.tensors[i];
    if (s.role != Role::OUT) continue;
    // bf16 output: 2^-8 rounding plus fp32 arithmetic; fp32 statistics: fp32 sums over the row.
    const double scale = max_abs(want[i]);
    const bool bf = s.type == DType::BF16;
    const Comparison c = compare(host[i], want[i], (bf ? 2e-3 : 1e-4) * scale + 1e-6, bf ? 1e-2 : 1e-3);
    char what[160];
    std::snprintf(what, sizeof what, "%s output %s (tokens %lld, hidden %lld)", k.name, s.name,
                  static_cast<long long>(p.n), static_cast<long long>(p.h));
    require(c, what);
  }
}

void measure(Harness& harness, const MemoryKernel& k, const Problem& p, MeasurementWriter& out) {
  const double bytes = k.bytes(static_cast<double>(p.n), static_cast<double>(p.h));
  if (footprint(k, p) > 0.7 * static_cast<double>(free_device_memory())) {
    progress("memory %s tokens %lld hidden %lld: skipped, does not fit in device memory", k.name,
             static_cast<long long>(p.n), static_cast<long long>(p.h));
    return;
  }
  Tensors t = allocate(k, p, harness.stream());
  TimingPlan plan;
  plan.flush_l2 = true;
  plan.target_s = 0.05;
  const Stats s = harness.time([&](cudaStream_t st) { k.launch(t.ptrs, p, st); }, plan);
  out.add(Section::MEMORY, memory_record(k.name, static_cast<int64_t>(std::llround(bytes)), p.n, p.h, s));
  progress("memory %s tokens %lld hidden %lld: %s (%.3f TB/s, %d reps)", k.name, static_cast<long long>(p.n),
           static_cast<long long>(p.h), format_time(s.median).c_str(), bytes / s.median / 1e12, s.reps);
}

}  // namespace

void run_memory_suite(Harness& harness, const DeviceInfo& device, const std::vector<int64_t>& hidden_sizes,
                      MeasurementWriter& out) {
  {  // ramp the clocks on a memory-bound kernel: 256 MiB residual add
    const int64_t count = int64_t(1) << 27;
    DeviceBuffer a(count * 2), b(count * 2), c(count * 2);
    fill_uniform(a.get(), count, DType::BF16, 1, -1.0f, 1.0f, harness.stream());
    fill_uniform(b.get(), count, DType::BF16, 2, -1.0f, 1.0f, harness.stream());
    harness.ramp(
        [&](cudaStream_t st) { residual_add(a.as<bf16>(), b.as<bf16>(), c.as<bf16>(), count, device.sms, st); });
  }
  for (const MemoryKernel& k : memory_kernels()) {
    for (int64_t h : hidden_sizes) {
      if (h % 8 != 0 || (k.row_kernel && !row_kernel_supports(h))) {
        progress("memory %s hidden %lld: skipped, needs a multiple of 8%s", k.name, static_cast<long long>(h),
                 k.row_kernel ? " up to 16384" : "");
        continue;
      }
      Problem check_problem{2 * int64_t(device.sms) + 37, h, 0, device.sms};
      check_problem.blocks = norm_bwd_blocks(check_problem.n, device.sms);
      check(k, check_problem, harness.stream());
      for (int64_t n : kTokens) {
        const Problem p{n, h, norm_bwd_blocks(n, device.sms), device.sms};
        measure(harness, k, p, out);
      }
    }
  }
}

}  // namespace sim::kernels
