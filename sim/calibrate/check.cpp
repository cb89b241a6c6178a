#include "sim/calibrate/check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sim/calibrate/fit.hpp"
#include "sim/cost/compute_model.hpp"

namespace sim {
namespace {

std::string dims(double m, double n, double k, double batch) {
  std::string s = fmt::format("{:.0f}x{:.0f}x{:.0f}", m, n, k);
  return batch > 1 ? fmt::format("{:.0f}x", batch) + s : s;
}

}  // namespace

CheckResult check_profile(const Measurements& m, const DeviceSpec& d) {
  CheckResult r;
  // Burst timings are the curves' own rates; back-to-back ones, as the suite takes them, are at
  // the clock a step runs at.
  const KernelTiming timing = m.burst ? KernelTiming::as_measured : KernelTiming::in_step;
  auto skip = [&](const std::string& why) {
    if (std::find(r.skipped.begin(), r.skipped.end(), why) == r.skipped.end()) r.skipped.push_back(why);
  };
  for (const auto& g : m.gemm) {
    Precision p = g.precision();
    if (!d.dense_peak.count(p)) {
      skip("gemm " + g.dtype + ": the profile has no " + g.dtype + " peak");
      continue;
    }
    ComputeModel cm(d, p, timing);
    r.predictions.push_back(
        {"gemm " + g.dtype, dims(g.m, g.n, g.k, g.batch), g.at, g.time, cm.gemm(g.shape(), g.min_bytes())});
  }
  const ComputeModel memory_model(d, d.dense_peak.begin()->first);  // memory time needs no peak
  for (const auto& k : m.memory) {
    r.predictions.push_back(
        {"memory " + k.kernel, format_bytes(k.bytes), k.at, k.time, memory_model.memory_op(k.bytes)});
  }
  // The kernel runs its compiled head dimension (attention_kernels.hpp): FLOPs in proportion.
  auto predicted_attention = [](const ComputeModel& cm, Attention kind, const AttentionMeasurement& a) {
    return cm.fused_attention(kind, a.kernel_flops(kind), a.min_bytes(), a.seq_len, kernel_head_dim(kind, a.head_dim));
  };
  for (const auto& a : m.attention) {
    Precision p = precision_from_string(a.dtype);
    // Each record against its kernel's curve; the suite's own kernels and unknown implementations
    // against FlashAttention's.
    const Attention kind = attention_measured_by(a.impl_name).value_or(Attention::FLASH);
    if (!d.attention_curve(kind) || !d.dense_peak.count(p)) {
      skip(fmt::format("attention: the profile has no {} curve", attention_kernel(kind).profile_key));
      continue;
    }
    ComputeModel cm(d, p, timing);
    std::string impl = a.impl_name.empty() ? "" : a.impl_name + " ";
    r.predictions.push_back({"attention " + impl + to_string(a.pass) + (a.causal ? " causal" : ""),
                             fmt::format("b{:.0f} h{:.0f} s{:.0f} d{:.0f}", a.batch, a.heads, a.seq_len, a.head_dim),
                             a.at, a.time, predicted_attention(cm, kind, a)});
  }
  for (const auto& c : m.collectives) {
    if (m.scale_up_bandwidth.value <= 0) {
      skip("collectives: the file gives no scale_up_bandwidth");
      continue;
    }
    const bool nvls = is_nvls_all_reduce(c);
    if (nvls && d.collectives.nvls_efficiency <= 0) {
      skip("NVLS all-reduces: the profile has no NVLS constants");
      continue;
    }
    // The model the fit fits (fit.cpp): the measured algorithm with the Simple protocol's alpha-beta
    // terms at every size -- the ring's, or NVLS's one latency and efficiency.
    const Seconds t =
        nvls ? d.collectives.nvls_latency + c.bytes / (m.scale_up_bandwidth * d.collectives.nvls_efficiency)
             : ring_time_idle(c.op, c.bytes, c.ranks, m.scale_up_bandwidth, false, d.collectives);
    r.predictions.push_back(
        {fmt::format("{} n={} {}", to_string(c.op), c.ranks, c.algo), format_bytes(c.bytes), c.at, c.time, t});
  }
  if (!m.host_copy.empty())
    skip(
        "host copies: device profiles have no host link (see the alpha-beta "
        "fit)");
  return r;
}

std::vector<ClassError> class_errors(const std::vector<Prediction>& p) {
  std::vector<ClassError> out;
  for (const auto& x : p) {
    auto it =
        std::find_if(out.begin(), out.end(), [&](const ClassError& c) { return c.kernel_class == x.kernel_class; });
    if (it == out.end()) {
      out.push_back({x.kernel_class, 0, 0.0, &x});
      it = out.end() - 1;
    }
    it->count += 1;
    it->mean_abs += std::fabs(x.error());
    if (std::fabs(x.error()) > std::fabs(it->worst->error())) it->worst = &x;
  }
  for (auto& c : out) c.mean_abs /= static_cast<double>(c.count);
  return out;
}

std::string error_table(const CheckResult& r, size_t worst) {
  std::string s =
      fmt::format("{:<34} {:>5} {:>10} {:>10}  {}\n", "kernel class", "n", "mean |err|", "worst", "worst kernel");
  for (const auto& c : class_errors(r.predictions))
    s += fmt::format("{:<34} {:>5} {:>9.1f}% {:>+9.1f}%  {}\n", c.kernel_class, c.count, 100 * c.mean_abs,
                     100 * c.worst->error(), c.worst->what);
  std::vector<const Prediction*> all;
  for (const auto& p : r.predictions) all.push_back(&p);
  std::stable_sort(all.begin(), all.end(),
                   [](auto* a, auto* b) { return std::fabs(a->error()) > std::fabs(b->error()); });
  if (!all.empty()) {
    s += fmt::format("\nworst kernels (predicted vs measured):\n");
    for (size_t i = 0; i < std::min(worst, all.size()); ++i) {
      const auto* p = all[i];
      s += fmt::format("  {:+7.1f}%  {:<30} {:<24} {} vs {}  ({}: {})\n", 100 * p->error(), p->kernel_class, p->what,
                       format_seconds(p->predicted), format_seconds(p->measured), p->at.file, p->at.path);
    }
  }
  for (const auto& why : r.skipped) s += "not predicted: " + why + "\n";
  return s;
}

std::string predictions_csv(const CheckResult& r) {
  std::string s = "class,record,file,path,measured_s,predicted_s,error\n";
  for (const auto& p : r.predictions)
    s += fmt::format("{},{},{},{},{:.6e},{:.6e},{:+.4f}\n", p.kernel_class, p.what, p.at.file, p.at.path,
                     p.measured.value, p.predicted.value, p.error());
  return s;
}

}  // namespace sim
