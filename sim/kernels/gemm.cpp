// GEMM through cuBLASLt (cuBLAS docs, cublasLtMatmulAlgoGetHeuristic; NVIDIA's "Matrix Multiplication
// Background" guide): D[M,N] = A[M,K] B[K,N] per batch, "TN" in
// cuBLAS's column-major terms (A stored K x M and transposed, B stored K x N; the only layout FP8
// supports on Hopper), fp32 accumulation, 32 MiB workspace, the heuristic's first algorithm
// (what frameworks get) and optionally the best of its first four.
//
// Metric: FLOPs = 2 M N K batch (recorded as "time"; the reader derives TFLOP/s).
// Check: 64 sampled entries of D against an fp64 dot product of the same A row and B column.
#include <cublasLt.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "sim/kernels/checks.hpp"
#include "sim/kernels/host/compare.hpp"
#include "sim/kernels/host/records.hpp"
#include "sim/kernels/suites.hpp"

namespace sim::kernels {

namespace {

constexpr size_t kWorkspaceBytes = size_t(32) << 20;  // cuBLAS's recommendation for Hopper
constexpr double kNoFlushFlops = 1e9;                 // above this, L2 state hardly matters (§1.2)

class LtMatmul {
 public:
  LtMatmul(cublasLtHandle_t lt, const GemmShape& s, bool fp8) : lt_(lt) {
    const cudaDataType_t in = fp8 ? CUDA_R_8F_E4M3 : CUDA_R_16BF;
    CUBLAS_CHECK(cublasLtMatmulDescCreate(&op_, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t t = CUBLAS_OP_T, n = CUBLAS_OP_N;
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t));
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &n, sizeof n));
    a_ = layout(in, s.k, s.m, s.batch);
    b_ = layout(in, s.k, s.n, s.batch);
    d_ = layout(CUDA_R_16BF, s.m, s.n, s.batch);
  }
  ~LtMatmul() {
    for (auto l : {a_, b_, d_})
      if (l) cublasLtMatrixLayoutDestroy(l);
    if (op_) cublasLtMatmulDescDestroy(op_);
  }
  LtMatmul(const LtMatmul&) = delete;
  LtMatmul& operator=(const LtMatmul&) = delete;

  // Asks the heuristic for up to `count` algorithms; returns how many it gave (0: unsupported).
  int find_algos(int count) {
    cublasLtMatmulPreference_t pref = nullptr;
    CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
    const uint64_t ws = kWorkspaceBytes;
    cublasStatus_t st =
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
    algos_.assign(static_cast<size_t>(count), {});
    int returned = 0;
    if (st == CUBLAS_STATUS_SUCCESS)
      st = cublasLtMatmulAlgoGetHeuristic(lt_, op_, a_, b_, d_, d_, pref, count, algos_.data(), &returned);
    cublasLtMatmulPreferenceDestroy(pref);
    if (st == CUBLAS_STATUS_NOT_SUPPORTED)
      returned = 0;
    else
      CUBLAS_CHECK(st);
    algos_.resize(static_cast<size_t>(returned));
    return returned;
  }

  void run(int algo, const void* a, const void* b, void* d, void* workspace, cudaStream_t stream) const {
    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasLtMatmul(lt_, op_, &alpha, a, a_, b, b_, &beta, d, d_, d, d_,
                                &algos_[static_cast<size_t>(algo)].algo, workspace, kWorkspaceBytes, stream));
  }

 private:
  static cublasLtMatrixLayout_t layout(cudaDataType_t type, int64_t rows, int64_t cols, int64_t batch) {
    cublasLtMatrixLayout_t l = nullptr;
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&l, type, static_cast<uint64_t>(rows), static_cast<uint64_t>(cols), rows));
    if (batch > 1) {
      const int32_t count = static_cast<int32_t>(batch);
      const int64_t stride = rows * cols;
      CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count));
      CUBLAS_CHECK(
          cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride));
    }
    return l;
  }

  cublasLtHandle_t lt_;
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, d_ = nullptr;
  std::vector<cublasLtMatmulHeuristicResult_t> algos_;
};

// Square sizes 256..16384 and K = 256..16384 at M = N = 4096 (the XLA table's shapes, §2.1).
std::vector<GemmShape> gemm_shapes(const std::vector<GemmShape>& extra) {
  std::vector<GemmShape> shapes;
  auto add = [&](const GemmShape& s) {
    if (std::find(shapes.begin(), shapes.end(), s) == shapes.end()) shapes.push_back(s);
  };
  for (int64_t n = 256; n <= 16384; n *= 2) add({n, n, n, 1});
  for (int64_t k = 256; k <= 16384; k *= 2) add({4096, 4096, k, 1});
  for (const GemmShape& s : extra) add(s);
  return shapes;
}

// |D - ref| <= 1e-2 |ref| + 1e-3 sum|a b|: bf16 rounding of D is 2^-9 relative and fp32 (or
// Hopper's fp8) accumulation adds far less than 1e-3 of sum|a b|, while a wrong layout or
// operand is off by about |ref| ~ sqrt(K)/3, which exceeds 1e-3 sum|a b| ~ K/4000 for any K here.
void check_samples(const GemmShape& s, DType in, const void* a, const void* b, const void* d, const std::string& what) {
  constexpr int kSamples = 64;
  const size_t elem = dtype_bytes(in);
  std::vector<double> got, want;
  std::vector<double> tolerance;
  uint64_t state = 0x5eed5eedull;
  auto next = [&](int64_t bound) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<int64_t>((state >> 33) % static_cast<uint64_t>(bound));
  };
  for (int i = 0; i < kSamples; ++i) {
    const int64_t bi = next(s.batch), row = next(s.m), col = next(s.n);
    const auto* a_col = static_cast<const unsigned char*>(a) + (bi * s.m * s.k + row * s.k) * elem;
    const auto* b_col = static_cast<const unsigned char*>(b) + (bi * s.k * s.n + col * s.k) * elem;
    const auto* d_at = static_cast<const unsigned char*>(d) + (bi * s.m * s.n + col * s.m + row) * 2;
    const std::vector<double> av = download(a_col, static_cast<size_t>(s.k), in);
    const std::vector<double> bv = download(b_col, static_cast<size_t>(s.k), in);
    double ref = 0.0, abs_sum = 0.0;
    for (int64_t k = 0; k < s.k; ++k) {
      ref += av[k] * bv[k];
      abs_sum += std::fabs(av[k] * bv[k]);
    }
    got.push_back(download(d_at, 1, DType::BF16)[0]);
    want.push_back(ref);
    tolerance.push_back(1e-2 * std::fabs(ref) + 1e-3 * abs_sum);
  }
  require(compare(got, want, tolerance), what);
}

void run_shape(Harness& harness, cublasLtHandle_t lt, const GemmShape& s, bool fp8, bool best_of_4,
               MeasurementWriter& out) {
  const char* dtype = fp8 ? "fp8" : "bf16";
  char label[160];
  std::snprintf(label, sizeof label, "gemm %s %lldx%lldx%lld batch %lld", dtype, static_cast<long long>(s.m),
                static_cast<long long>(s.n), static_cast<long long>(s.k), static_cast<long long>(s.batch));
  const DType in = fp8 ? DType::FP8_E4M3 : DType::BF16;
  const size_t a_count = static_cast<size_t>(s.batch * s.m * s.k), b_count = static_cast<size_t>(s.batch * s.k * s.n);
  const size_t d_count = static_cast<size_t>(s.batch * s.m * s.n);
  const double need = static_cast<double>((a_count + b_count) * dtype_bytes(in) + d_count * 2 + kWorkspaceBytes);
  if (need > 0.8 * static_cast<double>(free_device_memory())) {
    progress("%s: skipped, needs %.1f GiB of device memory", label, need / 1073741824.0);
    return;
  }
  LtMatmul mm(lt, s, fp8);
  const int algos = mm.find_algos(best_of_4 ? 4 : 1);
  if (algos == 0) {
    progress("%s: skipped, cuBLASLt has no algorithm for it", label);
    return;
  }
  DeviceBuffer a(a_count * dtype_bytes(in)), b(b_count * dtype_bytes(in)), d(d_count * 2), ws(kWorkspaceBytes);
  fill_uniform(a.get(), a_count, in, 11, -1.0f, 1.0f, harness.stream());
  fill_uniform(b.get(), b_count, in, 12, -1.0f, 1.0f, harness.stream());

  const double flops = 2.0 * static_cast<double>(s.m) * s.n * s.k * s.batch;
  TimingPlan plan;
  plan.flush_l2 = flops <= kNoFlushFlops;
  auto timed = [&](int algo) {
    return harness.time([&](cudaStream_t st) { mm.run(algo, a.get(), b.get(), d.get(), ws.get(), st); }, plan);
  };
  auto record = [&](const Stats& t, const char* algo) {
    out.add(Section::GEMM, gemm_record(s, dtype, algo, t));
    progress("%s %s: %s (%.1f TFLOP/s, %d reps)", label, algo, format_time(t.median).c_str(), flops / t.median / 1e12,
             t.reps);
  };

  const Stats top1 = timed(0);
  CUDA_CHECK(cudaStreamSynchronize(harness.stream()));
  check_samples(s, in, a.get(), b.get(), d.get(), label);
  record(top1, "heuristic");
  if (best_of_4 && algos > 1) {
    Stats best = top1;
    for (int i = 1; i < algos; ++i) {
      const Stats t = timed(i);
      CUDA_CHECK(cudaStreamSynchronize(harness.stream()));
      check_samples(s, in, a.get(), b.get(), d.get(), std::string(label) + " algo " + std::to_string(i));
      if (t.median < best.median) best = t;
    }
    record(best, "best_of_4");
  }
}

}  // namespace

void run_gemm_suite(Harness& harness, const DeviceInfo& device, const std::vector<GemmShape>& extra, bool best_of_4,
                    MeasurementWriter& out) {
  cublasLtHandle_t lt = nullptr;
  CUBLAS_CHECK(cublasLtCreate(&lt));
  struct HandleGuard {
    cublasLtHandle_t h;
    ~HandleGuard() { cublasLtDestroy(h); }
  } guard{lt};

  const std::vector<GemmShape> shapes = gemm_shapes(extra);
  for (bool fp8 : {false, true}) {
    if (fp8 && !device.has_fp8()) {
      progress("gemm fp8: skipped, sm_%d has no FP8 tensor cores (needs sm_89 or newer)", device.sm_version());
      continue;
    }
    {  // ramp the clocks on a 4096^3 GEMM of this dtype
      const GemmShape ramp{4096, 4096, 4096, 1};
      const DType in = fp8 ? DType::FP8_E4M3 : DType::BF16;
      LtMatmul mm(lt, ramp, fp8);
      if (mm.find_algos(1) > 0) {
        DeviceBuffer a(size_t(4096) * 4096 * dtype_bytes(in)), b(a.bytes()), d(size_t(4096) * 4096 * 2),
            ws(kWorkspaceBytes);
        fill_uniform(a.get(), size_t(4096) * 4096, in, 1, -1.0f, 1.0f, harness.stream());
        fill_uniform(b.get(), size_t(4096) * 4096, in, 2, -1.0f, 1.0f, harness.stream());
        harness.ramp([&](cudaStream_t st) { mm.run(0, a.get(), b.get(), d.get(), ws.get(), st); });
      }
    }
    for (const GemmShape& s : shapes) run_shape(harness, lt, s, fp8, best_of_4, out);
  }
}

}  // namespace sim::kernels
