#include "sim/calibrate/fit.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "sim/calibrate/least_squares.hpp"
#include "sim/core/error.hpp"
#include "sim/core/params.hpp"
#include "sim/cost/compute_model.hpp"

namespace sim {
namespace {

// Fits y = x / eta_max + x_half / eta_max = a*x + b and returns the curve
// (eta_max = 1/a, x_half = b/a). With fewer than three distinct x the half
// point cannot be told from the maximum: `base`'s is kept and only a is fitted,
// on y = a * (x + x_half).
SaturatingCurve fit_curve(const std::vector<double>& x, const std::vector<double>& y, const SaturatingCurve& base,
                          const char* half_name, ParameterFit& out) {
  std::set<double> distinct(x.begin(), x.end());
  double a = 0, b = 0;
  if (distinct.size() < 3) {
    std::vector<std::vector<double>> rows;
    for (double xi : x) rows.push_back({xi + base.x_half});
    a = fit_relative(rows, y, {}, &out.rms)[0];
    b = a * base.x_half;
    out.note = fmt::format("{} kept from the base profile ({} distinct size{})", half_name, distinct.size(),
                           distinct.size() == 1 ? "" : "s");
  } else {
    std::vector<std::vector<double>> rows;
    for (double xi : x) rows.push_back({xi, 1.0});
    auto c = fit_relative(rows, y, {}, &out.rms);
    if (c[1] < 0) {  // a negative half point is not a saturating curve: force it
                     // to zero
      c = fit_relative(rows, y, {-1.0, 0.0}, &out.rms);
      out.note = fmt::format("{} fitted negative, set to 0", half_name);
    }
    a = c[0];
    b = c[1];
  }
  out.fitted = true;
  out.points = x.size();
  SaturatingCurve curve;
  curve.eta_max = a > 0 ? 1.0 / a : 0.0;
  curve.x_half = a > 0 ? b / a : 0.0;
  return curve;
}

[[noreturn]] void contradicts(const Measurements& m, const std::string& what, const std::string& expected) {
  throw InputError(m.file, "", what, expected);
}

void check_efficiency(const Measurements& m, const SaturatingCurve& c, const char* what) {
  if (!(c.eta_max > 0) || c.eta_max > 1.0)
    contradicts(m, fmt::format("{} imply an efficiency of {:.3f} of the base profile's ceiling", what, c.eta_max),
                "at most 1: the profile's peak does not match this GPU (pass --base "
                "with the right profile)");
}

// "a (20), b (3)": the names left out and how many records each.
std::string left_out_list(const std::map<std::string, size_t>& left_out) {
  std::string s;
  for (const auto& [name, n] : left_out) s += fmt::format("{}{} ({})", s.empty() ? "" : ", ", name, n);
  return s;
}

void add_note(ParameterFit& fit, const std::string& note) { fit.note += (fit.note.empty() ? "" : "; ") + note; }

void fit_memory(const Measurements& m, const FitOptions& opt, Calibration& cal) {
  std::vector<double> x, y;
  std::map<std::string, size_t> left_out;
  for (const auto& r : m.memory) {
    if (opt.excludes(r.kernel)) {
      ++left_out[r.kernel];
      continue;
    }
    x.push_back(r.bytes.value);
    y.push_back(r.time.value * cal.device.hbm_bandwidth.value);
  }
  if (x.empty()) {
    cal.memory.note = "no memory-bound kernels measured: kept from the base profile";
  } else {
    cal.device.memory = fit_curve(x, y, cal.device.memory, "half_bytes", cal.memory);
    check_efficiency(m, cal.device.memory, "memory-bound kernels");
  }
  if (!left_out.empty()) add_note(cal.memory, "left out by --exclude: " + left_out_list(left_out));
}

// The GEMM curve of one kind: bf16/fp16 GEMMs (`fp8` false) into the profile's `gemm`, FP8 ones
// into its `gemm_fp8`, each against its own precision's peak.
void fit_gemm(const Measurements& m, Calibration& cal, bool fp8) {
  SaturatingCurve& target = fp8 ? cal.device.gemm_fp8 : cal.device.gemm;
  ParameterFit& out = fp8 ? cal.gemm_fp8 : cal.gemm;
  const char* kind = fp8 ? "fp8" : "bf16/fp16";
  std::vector<const GemmMeasurement*> usable;
  for (const auto& g : m.gemm)
    if ((g.dtype == "fp8") == fp8 && cal.device.dense_peak.count(g.precision())) usable.push_back(&g);
  if (usable.empty()) {
    out.note = fmt::format("no {} GEMMs measured: kept from the base profile", kind);
    return;
  }
  // A first FP8 fit starts from the bf16/fp16 curve.
  const SaturatingCurve base = target.eta_max > 0 ? target : cal.device.gemm;
  // Iterate: fit on the compute-bound GEMMs, re-classify with the fitted curve,
  // until stable.
  std::vector<bool> in(usable.size(), true);
  for (int round = 0; round < 8; ++round) {
    std::vector<double> x, y;
    for (size_t i = 0; i < usable.size(); ++i) {
      if (!in[i]) continue;
      const auto& g = *usable[i];
      GemmShape s = g.shape();
      ComputeModel cm(cal.device, g.precision());
      x.push_back(s.flops().value);
      y.push_back(g.time.value * cm.peak().value * cm.wave_efficiency(s));
    }
    if (x.empty())
      contradicts(m, fmt::format("every {} GEMM is memory-bound under the fitted curves", kind),
                  "some compute-bound GEMMs");
    ParameterFit fit;
    SaturatingCurve curve = fit_curve(x, y, base, "half_flops", fit);
    DeviceSpec trial = cal.device;
    (fp8 ? trial.gemm_fp8 : trial.gemm) = curve;
    std::vector<bool> next(usable.size());
    size_t memory_bound = 0;
    for (size_t i = 0; i < usable.size(); ++i) {
      const auto& g = *usable[i];
      GemmShape s = g.shape();
      ComputeModel cm(trial, g.precision());
      Seconds t_flop = s.flops() / (cm.peak() * curve.at(s.flops().value) * cm.wave_efficiency(s));
      next[i] = t_flop >= cm.memory_op(g.min_bytes());
      memory_bound += next[i] ? 0 : 1;
    }
    target = curve;
    out = fit;
    if (memory_bound)
      out.note += fmt::format("{}{} memory-bound GEMM{} left out", out.note.empty() ? "" : "; ", memory_bound,
                              memory_bound == 1 ? "" : "s");
    if (next == in) break;
    in = next;
  }
  check_efficiency(m, target, fp8 ? "FP8 GEMMs" : "GEMMs");
}

// The curve is fitted at the reference head dimension (kReferenceHeadDim) where records have it,
// else on every record; each other head dimension (the kernel's, padded: kernel_head_dim) gets the
// geometric mean of its records' measured over fitted efficiency, the profile's factor there.
void fit_attention_curve(const std::vector<const AttentionMeasurement*>& usable, FlopsPerSecond peak, Attention kind,
                         Calibration& cal) {
  bool any_fwd_bwd = false, any_reference = false;
  auto head_dim = [&](const AttentionMeasurement* a) { return kernel_head_dim(kind, a->head_dim); };
  for (const auto* a : usable) {
    any_fwd_bwd = any_fwd_bwd || a->pass == AttentionPass::FWD_BWD;
    any_reference = any_reference || head_dim(a) == kReferenceHeadDim;
  }
  std::vector<const AttentionMeasurement*> used;
  for (const auto* a : usable)
    if (!any_fwd_bwd || a->pass == AttentionPass::FWD_BWD) used.push_back(a);
  // Measured efficiency against the FLOPs the kernel executes at its head dimension.
  auto efficiency = [&](const AttentionMeasurement* a) {
    return a->kernel_flops(kind).value / (a->time.value * peak.value);
  };
  std::vector<double> x, y;
  for (const auto* a : used)
    if (!any_reference || head_dim(a) == kReferenceHeadDim) {
      x.push_back(a->seq_len);
      y.push_back(a->seq_len / efficiency(a));
    }
  const SaturatingCurve* known = cal.device.attention_curve(kind);
  const SaturatingCurve base = known && known->eta_max > 0 ? *known : SaturatingCurve{1, 0};
  ParameterFit& fit = cal.attention[kind];
  const SaturatingCurve curve = fit_curve(x, y, base, "half_seq_len", fit);
  cal.device.attention[kind] = curve;
  if (!any_fwd_bwd) add_note(fit, "no fwd_bwd records: fitted on fwd and bwd together");
  if (!any_reference) {
    add_note(fit, fmt::format("no head dimension {} measured: fitted on every head dimension", kReferenceHeadDim));
    return;
  }
  std::map<double, std::pair<double, size_t>> logs;  // head dimension -> (sum of log ratios, records)
  for (const auto* a : used)
    if (head_dim(a) != kReferenceHeadDim) {
      auto& [sum, n] = logs[head_dim(a)];
      sum += std::log(efficiency(a) / curve.at(a->seq_len));
      ++n;
    }
  auto& factors = cal.device.attention_head_dims[kind];
  factors.clear();
  for (const auto& [hd, sum_n] : logs) {
    factors[static_cast<int>(hd)] = std::exp(sum_n.first / static_cast<double>(sum_n.second));
    add_note(fit, fmt::format("head dimension {:g}: {} records, factor {:.3f} on the curve fitted at {}", hd,
                              sum_n.second, factors[static_cast<int>(hd)], kReferenceHeadDim));
  }
}

void fit_attention(const Measurements& m, const FitOptions& opt, Calibration& cal) {
  std::map<Attention, std::vector<const AttentionMeasurement*>> usable;
  size_t suite_kernels = 0;
  std::map<std::string, size_t> left_out, unknown;
  for (const auto& a : m.attention) {
    const auto kind = attention_measured_by(a.impl_name);
    if (a.impl_name == kSuiteAttentionImpl)
      ++suite_kernels;
    else if (opt.excludes(a.impl_name))
      ++left_out[a.impl_name];
    else if (!kind)
      ++unknown[a.impl_name];
    else
      usable[*kind].push_back(&a);
  }
  auto peak = cal.device.dense_peak.find(Precision::BF16);
  for (const auto& k : attention_kernels()) {
    if (!k.profile_key) continue;  // unfused, or derived from another kernel's curve
    ParameterFit& fit = cal.attention[k.kind];
    auto records = usable.find(k.kind);
    if (records == usable.end() || peak == cal.device.dense_peak.end()) {
      fit.note = fmt::format("no {} attention measured: kept from the base profile", k.name);
    } else {
      fit_attention_curve(records->second, peak->second, k.kind, cal);
      check_efficiency(m, cal.device.attention[k.kind], "attention kernels");
      std::vector<std::string> impls;
      for (const auto* a : records->second)
        if (std::find(impls.begin(), impls.end(), a->impl_name) == impls.end()) impls.push_back(a->impl_name);
      add_note(fit, fmt::format("{} records of {}", records->second.size(), fmt::join(impls, ", ")));
    }
    if (suite_kernels)
      add_note(fit, fmt::format("{} records of the suite's own {} kernels left out (none of the registry's kernels)",
                                suite_kernels, kSuiteAttentionImpl));
    if (!unknown.empty()) add_note(fit, "left out, no kernel of the registry: " + left_out_list(unknown));
    if (!left_out.empty()) add_note(fit, "left out by --exclude: " + left_out_list(left_out));
  }
}

}  // namespace

bool is_nvls_all_reduce(const CollectiveMeasurement& c) {
  std::string a;
  for (char ch : c.algo) a += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return c.op == CollectiveKind::ALL_REDUCE && a.find("nvls") != std::string::npos &&
         a.find("tree") == std::string::npos;
}

namespace {

bool is_in_network(const std::string& algo) {
  std::string a;
  for (char ch : algo) a += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return a.find("nvls") != std::string::npos || a.find("collnet") != std::string::npos ||
         a.find("sharp") != std::string::npos;
}

// alpha-beta (t = alpha + S * beta) per size regime of one group, sorted by
// size. Two regimes when splitting at some size at least halves the squared
// error (each side keeps three points).
std::vector<RegimeFit> fit_regimes(std::vector<const CollectiveMeasurement*> g) {
  std::sort(g.begin(), g.end(), [](auto* a, auto* b) { return a->bytes < b->bytes; });
  auto line = [&](size_t lo, size_t hi, double* sse) {
    std::vector<std::vector<double>> rows;
    std::vector<double> t;
    for (size_t i = lo; i < hi; ++i) {
      rows.push_back({1.0, g[i]->bytes.value});
      t.push_back(g[i]->time.value);
    }
    double rms = 0;
    auto c = fit_relative(rows, t, {}, &rms);
    if (c[0] < 0) c = fit_relative(rows, t, {0.0, -1.0}, &rms);
    *sse = rms * rms * static_cast<double>(hi - lo);
    RegimeFit r;
    r.op = g[lo]->op;
    r.ranks = g[lo]->ranks;
    r.algo = g[lo]->algo;
    r.from = g[lo]->bytes;
    r.to = g[hi - 1]->bytes;
    r.alpha = Seconds(c[0]);
    r.busbw = BytesPerSecond(c[1] > 0 ? busbw_factor(r.op, r.ranks) / c[1] : 0.0);
    r.points = hi - lo;
    r.rms = rms;
    return r;
  };
  double best_sse = 0;
  std::vector<RegimeFit> best = {line(0, g.size(), &best_sse)};
  const double single = best_sse;
  for (size_t k = 3; g.size() >= 6 && k + 3 <= g.size(); ++k) {
    double a = 0, b = 0;
    RegimeFit lo = line(0, k, &a), hi = line(k, g.size(), &b);
    if (a + b < best_sse && a + b < 0.5 * single) {
      best_sse = a + b;
      best = {lo, hi};
    }
  }
  return best;
}

void fit_collectives(const Measurements& m, Calibration& cal) {
  if (m.collectives.empty()) {
    cal.collectives.note = "no collectives measured: kept from the base profile";
    return;
  }
  std::map<std::tuple<int, int64_t, std::string>, std::vector<const CollectiveMeasurement*>> groups;
  size_t in_network = 0;
  for (const auto& c : m.collectives) {
    if (is_in_network(c.algo)) {
      ++in_network;
      continue;
    }
    groups[{static_cast<int>(c.op), c.ranks, c.algo}].push_back(&c);
  }
  std::vector<std::vector<double>> rows;
  std::vector<double> t;
  std::set<int64_t> steps;
  const double L = m.scale_up_bandwidth.value;
  for (const auto& [key, g] : groups) {
    auto regimes = fit_regimes(g);
    const Bytes upper_from = regimes.back().from;
    cal.regimes.insert(cal.regimes.end(), regimes.begin(), regimes.end());
    for (const auto* c : g) {
      if (c->bytes < upper_from) continue;
      RingCost ring = ring_cost(c->op, c->bytes, c->ranks);
      rows.push_back({1.0, static_cast<double>(ring.steps), L > 0 ? ring.bytes_per_rank.value / L : 0.0});
      t.push_back(c->time.value);
      steps.insert(ring.steps);
    }
  }
  if (in_network)
    cal.collectives.note = fmt::format("{} in-network (NVLS/CollNet) record{} left out of the ring fit", in_network,
                                       in_network == 1 ? "" : "s");
  auto add_note = [&](const std::string& n) { cal.collectives.note += (cal.collectives.note.empty() ? "" : "; ") + n; };
  if (L <= 0) {
    add_note(
        "no scale_up_bandwidth in the file: the profile's constants are "
        "kept (alpha-beta fits reported)");
    return;
  }
  if (rows.empty()) return;
  const CollectiveConstants& base = cal.device.collectives;
  // Pin what the data cannot separate: the per-step latency needs two step
  // counts, a latency at all needs a positive intercept.
  std::vector<double> fixed = {-1.0, -1.0, -1.0};
  if (steps.size() < 2) {
    fixed[1] = base.scale_up_step_latency.value;
    add_note("step latency kept from the base profile (one step count measured)");
  }
  double rms = 0;
  auto c = fit_relative(rows, t, fixed, &rms);
  if (c[1] < 0 && fixed[1] < 0) {
    fixed[1] = base.scale_up_step_latency.value;
    add_note("step latency fitted negative: kept from the base profile");
    c = fit_relative(rows, t, fixed, &rms);
  }
  if (c[0] < 0) {
    fixed[0] = 0.0;
    add_note("base latency fitted negative: set to 0");
    c = fit_relative(rows, t, fixed, &rms);
  }
  if (!(c[2] > 0)) contradicts(m, "collective times do not grow with size", "times that grow with the message size");
  const double eff = 1.0 / c[2];
  if (eff > 1.0)
    contradicts(m,
                fmt::format("collectives move {:.0f}% of the scale-up line rate {} per rank", 100 * eff,
                            fmt::format("{:.0f} GB/s", L / 1e9)),
                "at most 100%: a ring cannot beat the line rate (measure with "
                "NCCL_ALGO=Ring, or fix "
                "scale_up_bandwidth)");
  cal.device.collectives.base_latency = Seconds(c[0]);
  cal.device.collectives.scale_up_step_latency = Seconds(c[1]);
  cal.device.collectives.scale_up_efficiency = eff;
  cal.collectives.fitted = true;
  cal.collectives.points = rows.size();
  cal.collectives.rms = rms;
}

// NVLS all-reduces (one node, algo naming NVLS but not NVLSTree): t = nvls_latency + S / (L * eff)
// on the bandwidth regime of each group, after the same alpha-beta report as the rings.
void fit_nvls(const Measurements& m, Calibration& cal) {
  std::map<int64_t, std::vector<const CollectiveMeasurement*>> groups;
  for (const auto& c : m.collectives)
    if (is_nvls_all_reduce(c)) groups[c.ranks].push_back(&c);
  const double L = m.scale_up_bandwidth.value;
  if (groups.empty()) {
    cal.nvls.note = "no NVLS all-reduce measured: kept from the base profile";
    return;
  }
  std::vector<std::vector<double>> rows;
  std::vector<double> t;
  for (const auto& [ranks, g] : groups) {
    auto regimes = fit_regimes(g);
    for (const auto* c : g) {
      if (c->bytes < regimes.back().from) continue;
      rows.push_back({1.0, L > 0 ? c->bytes.value / L : 0.0});
      t.push_back(c->time.value);
    }
  }
  if (L <= 0) {
    cal.nvls.note = "no scale_up_bandwidth in the file: kept from the base profile";
    return;
  }
  auto c = fit_relative(rows, t, {}, &cal.nvls.rms);
  if (c[0] < 0) {
    c = fit_relative(rows, t, {0.0, -1.0}, &cal.nvls.rms);
    cal.nvls.note = "NVLS latency fitted negative: set to 0";
  }
  if (!(c[1] > 0))
    contradicts(m, "NVLS all-reduce times do not grow with size", "times that grow with the message size");
  if (1.0 / c[1] > 1.0)
    contradicts(m, fmt::format("NVLS all-reduces move {:.0f}% of the scale-up line rate per GPU", 100 / c[1]),
                "at most 100% (or fix scale_up_bandwidth)");
  cal.device.collectives.nvls_latency = Seconds(c[0]);
  cal.device.collectives.nvls_efficiency = 1.0 / c[1];
  cal.nvls.fitted = true;
  cal.nvls.points = rows.size();
}

void fit_host_copies(const Measurements& m, Calibration& cal) {
  std::map<std::pair<std::string, bool>, std::vector<const HostCopyMeasurement*>> groups;
  for (const auto& h : m.host_copy) groups[{h.direction, h.pinned}].push_back(&h);
  for (const auto& [key, g] : groups) {
    std::vector<std::vector<double>> rows;
    std::vector<double> t;
    for (const auto* h : g) {
      rows.push_back({1.0, h->bytes.value});
      t.push_back(h->time.value);
    }
    HostCopyFit f;
    f.direction = key.first;
    f.pinned = key.second;
    std::set<double> sizes;
    for (const auto* h : g) sizes.insert(h->bytes.value);
    auto c = sizes.size() < 2 ? fit_relative(rows, t, {0.0, -1.0}, &f.rms) : fit_relative(rows, t, {}, &f.rms);
    if (c[0] < 0) c = fit_relative(rows, t, {0.0, -1.0}, &f.rms);
    f.alpha = Seconds(c[0]);
    f.bandwidth = BytesPerSecond(c[1] > 0 ? 1.0 / c[1] : 0.0);
    f.points = g.size();
    cal.host_copies.push_back(f);
  }
}

}  // namespace

bool FitOptions::excludes(const std::string& name) const {
  return std::find(exclude.begin(), exclude.end(), name) != exclude.end();
}

Calibration calibrate(const Measurements& m, const DeviceSpec& base, const FitOptions& options) {
  // A name that matches nothing would leave the fit as it was and say so nowhere but the notes.
  std::set<std::string> known;
  for (const auto& r : m.memory) known.insert(r.kernel);
  for (const auto& a : m.attention)
    if (a.impl_name != kSuiteAttentionImpl) known.insert(a.impl_name);
  for (const auto& name : options.exclude)
    if (!known.count(name)) {
      const std::vector<std::string> names(known.begin(), known.end());
      const std::string guess = did_you_mean(name, names);
      std::string list;
      for (const auto& k : names) list += (list.empty() ? "" : ", ") + k;
      throw InputError("--exclude", "",
                       "'" + name + "' is no memory-bound kernel or attention implementation in " + m.file +
                           (guess.empty() ? "" : " (did you mean '" + guess + "'?)"),
                       names.empty() ? std::string("no --exclude: these measurements have none") : "one of " + list);
    }
  Calibration cal;
  cal.device = base;
  cal.excluded = options.exclude;
  fit_memory(m, options, cal);  // first: the GEMM fit uses it to leave out memory-bound GEMMs
  fit_gemm(m, cal, false);
  fit_gemm(m, cal, true);
  fit_attention(m, options, cal);
  // Curves fitted to back-to-back timings are at the clock a step runs at already: the base
  // profile's allowance for burst timings (DeviceSpec::sustained_compute) no longer applies.
  bool compute_fitted = cal.gemm.fitted || cal.gemm_fp8.fitted;
  for (const auto& [kind, fit] : cal.attention) compute_fitted = compute_fitted || fit.fitted;
  if (compute_fitted && !m.burst) cal.device.sustained_compute = 1.0;
  fit_collectives(m, cal);
  fit_nvls(m, cal);
  fit_host_copies(m, cal);
  return cal;
}

}  // namespace sim
