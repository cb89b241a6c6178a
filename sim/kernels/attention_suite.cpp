// Attention (attention.hpp): the tiled kernels, checked against the naive fp32 reference, then
// timed on FlashAttention's benchmark setup (Dao-AILab/flash-attention@0251105 benchmarks/: hidden 2048, batch = 16384
// / seq_len, seq_len 512..16384, head_dim 64 and 128, causal and not) plus the shapes file.
//
// Metric (FlashAttention convention, §1.8): fwd FLOPs = 4 B S^2 H D, halved when causal;
// bwd = 2.5 x fwd. Records "fwd", "bwd" and "fwd_bwd" (the sum of the two medians; its p10/p90
// are the sums of theirs). No L2 flush: the smallest problem does 17 GFLOP.
#include <algorithm>
#include <cstdio>

#include "sim/kernels/attention.hpp"
#include "sim/kernels/checks.hpp"
#include "sim/kernels/host/compare.hpp"
#include "sim/kernels/host/records.hpp"
#include "sim/kernels/suites.hpp"

namespace sim::kernels {

namespace {

using bf16 = __nv_bfloat16;

struct AttentionBuffers {
  explicit AttentionBuffers(const AttentionDims& d)
      : q(bytes(d)),
        k(bytes(d)),
        v(bytes(d)),
        o(bytes(d)),
        dout(bytes(d)),
        dq(bytes(d)),
        dk(bytes(d)),
        dv(bytes(d)),
        lse(static_cast<size_t>(d.rows()) * 4),
        delta(static_cast<size_t>(d.rows()) * 4),
        dq_accum(static_cast<size_t>(d.elements()) * 4) {}
  static size_t bytes(const AttentionDims& d) { return static_cast<size_t>(d.elements()) * 2; }
  static double footprint(const AttentionDims& d) { return 8.0 * bytes(d) + 8.0 * d.rows() + 4.0 * d.elements(); }

  void fill(cudaStream_t stream, size_t count) {
    fill_uniform(q.get(), count, DType::BF16, 21, -1.0f, 1.0f, stream);
    fill_uniform(k.get(), count, DType::BF16, 22, -1.0f, 1.0f, stream);
    fill_uniform(v.get(), count, DType::BF16, 23, -1.0f, 1.0f, stream);
    fill_uniform(dout.get(), count, DType::BF16, 24, -1.0f, 1.0f, stream);
  }
  void forward(const AttentionDims& d, cudaStream_t stream) {
    attention_fwd(q.as<bf16>(), k.as<bf16>(), v.as<bf16>(), o.as<bf16>(), lse.as<float>(), d, stream);
  }
  void backward(const AttentionDims& d, cudaStream_t stream) {
    attention_bwd({q.as<bf16>(), k.as<bf16>(), v.as<bf16>(), o.as<bf16>(), dout.as<bf16>(), lse.as<float>(),
                   dq.as<bf16>(), dk.as<bf16>(), dv.as<bf16>(), delta.as<float>(), dq_accum.as<float>()},
                  d, stream);
  }

  DeviceBuffer q, k, v, o, dout, dq, dk, dv, lse, delta, dq_accum;
};

std::string describe(const AttentionDims& d) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "batch %lld heads %lld seq %lld head_dim %lld%s", static_cast<long long>(d.batch),
                static_cast<long long>(d.heads), static_cast<long long>(d.seq_len), static_cast<long long>(d.head_dim),
                d.causal ? " causal" : "");
  return buf;
}

// bf16 outputs against fp32 references: P and dS are rounded to bf16 before their products
// (2^-9 relative), outputs too; 1 % of the largest value plus 2 % relative leaves a wide margin.
void require_close(const void* got, DType type, const DeviceBuffer& want, size_t count, double atol_scale,
                   const std::string& what) {
  const std::vector<double> g = download(got, count, type), w = download(want.get(), count, DType::F32);
  require(compare(g, w, atol_scale * max_abs(w) + 1e-6, 2e-2), what);
}

void check_case(const AttentionDims& d, cudaStream_t stream) {
  AttentionBuffers buf(d);
  const size_t n = static_cast<size_t>(d.elements()), rows = static_cast<size_t>(d.rows());
  buf.fill(stream, n);
  buf.forward(d, stream);
  buf.backward(d, stream);
  DeviceBuffer o_ref(n * 4), lse_ref(rows * 4), p(rows * d.seq_len * 4), ds(rows * d.seq_len * 4), dq_ref(n * 4),
      dk_ref(n * 4), dv_ref(n * 4);
  attention_ref_fwd(buf.q.as<bf16>(), buf.k.as<bf16>(), buf.v.as<bf16>(), o_ref.as<float>(), lse_ref.as<float>(), d,
                    stream);
  attention_ref_bwd(buf.q.as<bf16>(), buf.k.as<bf16>(), buf.v.as<bf16>(), buf.dout.as<bf16>(), lse_ref.as<float>(),
                    p.as<float>(), ds.as<float>(), dq_ref.as<float>(), dk_ref.as<float>(), dv_ref.as<float>(), d,
                    stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  const std::string where = " (" + describe(d) + ")";
  require_close(buf.o.get(), DType::BF16, o_ref, n, 1e-2, "attention fwd O" + where);
  {  // log2-sum-exp of scores of order 1: fp32 sums, absolute 1e-3
    const std::vector<double> g = download(buf.lse.get(), rows, DType::F32),
                              w = download(lse_ref.get(), rows, DType::F32);
    require(compare(g, w, 1e-3, 1e-4), "attention fwd lse" + where);
  }
  require_close(buf.dq.get(), DType::BF16, dq_ref, n, 1e-2, "attention bwd dQ" + where);
  require_close(buf.dk.get(), DType::BF16, dk_ref, n, 1e-2, "attention bwd dK" + where);
  require_close(buf.dv.get(), DType::BF16, dv_ref, n, 1e-2, "attention bwd dV" + where);
}

std::vector<AttentionDims> sweep(const std::vector<AttentionShape>& extra) {
  std::vector<AttentionDims> dims;
  auto add = [&](const AttentionDims& d) {
    for (const AttentionDims& e : dims)
      if (e.batch == d.batch && e.heads == d.heads && e.seq_len == d.seq_len && e.head_dim == d.head_dim &&
          e.causal == d.causal)
        return;
    dims.push_back(d);
  };
  for (int64_t s = 512; s <= 16384; s *= 2)
    for (int64_t hd : {64, 128})
      for (bool causal : {false, true}) add({16384 / s, 2048 / hd, s, hd, causal});
  for (const AttentionShape& e : extra) add({e.batch, e.heads, e.seq_len, e.head_dim, e.causal});
  return dims;
}

void add_record(MeasurementWriter& out, const AttentionDims& d, const char* pass, const Stats& s) {
  const AttentionShape shape{d.batch, d.heads, d.seq_len, d.head_dim, d.causal};
  out.add(Section::ATTENTION, attention_record(shape, pass, "trainsim-tiled", s));
}

void measure(Harness& harness, const AttentionDims& d, MeasurementWriter& out) {
  if (AttentionBuffers::footprint(d) > 0.7 * static_cast<double>(free_device_memory())) {
    progress("attention %s: skipped, does not fit in device memory", describe(d).c_str());
    return;
  }
  AttentionBuffers buf(d);
  buf.fill(harness.stream(), static_cast<size_t>(d.elements()));
  TimingPlan plan;
  const Stats fwd = harness.time([&](cudaStream_t st) { buf.forward(d, st); }, plan);
  const Stats bwd = harness.time([&](cudaStream_t st) { buf.backward(d, st); }, plan);
  Stats both;
  both.median = fwd.median + bwd.median;
  both.p10 = fwd.p10 + bwd.p10;
  both.p90 = fwd.p90 + bwd.p90;
  both.reps = std::min(fwd.reps, bwd.reps);
  add_record(out, d, "fwd", fwd);
  add_record(out, d, "bwd", bwd);
  add_record(out, d, "fwd_bwd", both);
  const double flops = 4.0 * d.batch * d.seq_len * d.seq_len * d.heads * d.head_dim / (d.causal ? 2.0 : 1.0);
  progress("attention %s: fwd %s (%.1f TFLOP/s), bwd %s (%.1f TFLOP/s)", describe(d).c_str(),
           format_time(fwd.median).c_str(), flops / fwd.median / 1e12, format_time(bwd.median).c_str(),
           2.5 * flops / bwd.median / 1e12);
}

}  // namespace

std::string attention_unsupported(const AttentionDims& d, int64_t smem_optin) {
  if (d.head_dim != 64 && d.head_dim != 128) return "head_dim must be 64 or 128";
  if (d.batch * d.heads > 65535) return "batch x heads must be at most 65535";
  if (d.seq_len > (int64_t(1) << 30)) return "seq_len too large";
  const int64_t smem = std::max(attention_fwd_smem_bytes(d.head_dim), attention_bwd_smem_bytes(d.head_dim));
  if (smem > smem_optin)
    return "needs " + std::to_string(smem) + " bytes of shared memory per block, the device allows " +
           std::to_string(smem_optin);
  return "";
}

void run_attention_suite(Harness& harness, const DeviceInfo& device, const std::vector<AttentionShape>& extra,
                         MeasurementWriter& out) {
  for (int64_t hd : {64, 128})
    for (bool causal : {false, true})
      for (int64_t s : {256, 197}) {
        const AttentionDims d{1, 2, s, hd, causal};
        const std::string why = attention_unsupported(d, device.smem_optin);
        if (!why.empty()) {
          progress("attention head_dim %lld: skipped, %s", static_cast<long long>(hd), why.c_str());
          continue;
        }
        check_case(d, harness.stream());
      }
  bool ramped = false;
  for (const AttentionDims& d : sweep(extra)) {
    const std::string why = attention_unsupported(d, device.smem_optin);
    if (!why.empty()) {
      progress("attention %s: skipped, %s", describe(d).c_str(), why.c_str());
      continue;
    }
    if (!ramped) {
      AttentionBuffers buf(d);
      buf.fill(harness.stream(), static_cast<size_t>(d.elements()));
      harness.ramp([&](cudaStream_t st) { buf.forward(d, st); });
      ramped = true;
    }
    measure(harness, d, out);
  }
}

}  // namespace sim::kernels
