#include "sim/calibrate/profile_writer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "sim/core/params.hpp"

namespace sim {
namespace {

using nlohmann::json;

std::string fit_source(const char* form, const ParameterFit& f, const Measurements& m) {
  std::string s = fmt::format(
      "trainsim calibrate: fit of {} to {} measurement{} in {} (rms relative "
      "error {:.1f}%)",
      form, f.points, f.points == 1 ? "" : "s", m.file, 100 * f.rms);
  if (!f.note.empty()) s += "; " + f.note;
  return s;
}

json entry(json value, const std::string& source) { return json{{"value", std::move(value)}, {"source", source}}; }

double sig(double v, int digits = 5) { return std::stod(fmt::format("{:.{}g}", v, digits)); }

}  // namespace

std::string fitted_profile_json(const std::string& base_file, const Calibration& c, const Measurements& m,
                                const std::string& name) {
  // Read again through the strict reader (it was parsed and checked as a DeviceSpec by the caller).
  json p = json::parse(ParamReader::load_file(base_file).dump());
  const DeviceSpec& d = c.device;
  p["name"] = name;
  p["description"] = fmt::format("{}: profile fitted by trainsim calibrate from {}", m.gpu, m.file);
  p["source"] = fmt::format(
      "Fitted parameters: trainsim calibrate from {} ({}). Datasheet figures "
      "and "
      "unfitted parameters: base profile {} (its sources kept below).",
      m.file, m.source, base_file);
  // A zero half point or latency is written as one unit (1 FLOP, 1 byte, 1 ns):
  // the reader wants positive quantities, and at these scales one unit is zero.
  if (c.gemm.fitted) {
    const char* form = "t = F / (P * eta_max * F/(F + F_half)) over bf16/fp16 GEMMs";
    p["gemm"]["efficiency_max"] = entry(sig(d.gemm.eta_max), fit_source(form, c.gemm, m));
    p["gemm"]["half_flops"] =
        entry(fmt::format("{:.5g} GFLOP", std::max(d.gemm.x_half, 1.0) / 1e9), fit_source(form, c.gemm, m));
  }
  if (c.gemm_fp8.fitted) {
    const char* form = "t = F / (P_fp8 * eta_max * F/(F + F_half)) over fp8 GEMMs";
    p["gemm_fp8"]["efficiency_max"] = entry(sig(d.gemm_fp8.eta_max), fit_source(form, c.gemm_fp8, m));
    p["gemm_fp8"]["half_flops"] =
        entry(fmt::format("{:.5g} GFLOP", std::max(d.gemm_fp8.x_half, 1.0) / 1e9), fit_source(form, c.gemm_fp8, m));
  }
  if (c.memory.fitted) {
    const char* form = "t = B / (BW * eta_max * B/(B + B_half)) over memory-bound kernels";
    p["memory_ops"]["efficiency_max"] = entry(sig(d.memory.eta_max), fit_source(form, c.memory, m));
    p["memory_ops"]["half_bytes"] =
        entry(fmt::format("{:.5g} MB", std::max(d.memory.x_half, 1.0) / 1e6), fit_source(form, c.memory, m));
  }
  for (const auto& [kind, fit] : c.attention) {
    if (!fit.fitted) continue;
    const AttentionKernel& k = attention_kernel(kind);
    const std::string form =
        fmt::format("t = F / (P * eta_max * S/(S + S_half)) over {} attention kernels (FA FLOP convention)", k.name);
    const SaturatingCurve& curve = d.attention.at(kind);
    p[k.profile_key]["efficiency_max"] = entry(sig(curve.eta_max), fit_source(form.c_str(), fit, m));
    p[k.profile_key]["half_seq_len"] =
        entry(std::max<int64_t>(1, std::llround(curve.x_half)), fit_source(form.c_str(), fit, m));
    p[k.profile_key].erase("head_dims");
    if (const auto dims = d.attention_head_dims.find(kind); dims != d.attention_head_dims.end())
      for (const auto& [hd, factor] : dims->second)
        p[k.profile_key]["head_dims"][std::to_string(hd)] = entry(
            sig(factor),
            fmt::format("trainsim calibrate: geometric mean over the {} kernel's records at head dimension {} in {} of "
                        "the measured efficiency over the curve's (fitted at head dimension {}); {}",
                        k.name, hd, m.file, kReferenceHeadDim, m.source));
  }
  if (d.sustained_compute == 1.0) p.erase("sustained_compute");  // calibrate(): fitted to back-to-back timings
  if (c.collectives.fitted) {
    const char* form =
        "t = base + steps * step + bytes_per_rank / (L * eff) "
        "over scale-up collectives";
    const auto& k = d.collectives;
    p["collectives"]["base_latency"] =
        entry(fmt::format("{:.4g} us", std::max(k.base_latency.value, 1e-9) * 1e6), fit_source(form, c.collectives, m));
    p["collectives"]["scale_up_step_latency"] =
        entry(fmt::format("{:.4g} us", std::max(k.scale_up_step_latency.value, 1e-9) * 1e6),
              fit_source(form, c.collectives, m));
    p["collectives"]["scale_up_efficiency"] = entry(sig(k.scale_up_efficiency), fit_source(form, c.collectives, m));
  }
  if (c.nvls.fitted) {
    const char* form = "t = nvls_latency + S / (L * nvls_efficiency) over NVLS all-reduces";
    const auto& k = d.collectives;
    p["collectives"]["nvls_efficiency"] = entry(sig(k.nvls_efficiency), fit_source(form, c.nvls, m));
    p["collectives"]["nvls_latency"] =
        entry(fmt::format("{:.4g} us", std::max(k.nvls_latency.value, 1e-9) * 1e6), fit_source(form, c.nvls, m));
  }
  json cal;
  cal["measurements"] = m.file;
  cal["provenance"] = json::object();
  // Measurements built in code (not read from a file) carry no provenance.
  const json provenance = m.provenance_json.empty() ? json::object() : json::parse(m.provenance_json);
  for (const auto& [key, value] : provenance.items())
    if (!value.is_null()) cal["provenance"][key] = value;  // a fact the measurements could not give says nothing
  if (!c.excluded.empty()) cal["excluded_from_fits"] = c.excluded;
  if (m.scale_up_bandwidth.value > 0)
    cal["scale_up_bandwidth"] = fmt::format("{:.6g} GB/s", m.scale_up_bandwidth.value / 1e9);
  json regimes = json::array();
  for (const auto& r : c.regimes)
    regimes.push_back({{"op", to_string(r.op)},
                       {"ranks", r.ranks},
                       {"algo", r.algo},
                       {"bytes", {r.from.value, r.to.value}},
                       {"alpha", fmt::format("{:.4g} us", r.alpha.value * 1e6)},
                       {"busbw", fmt::format("{:.4g} GB/s", r.busbw.value / 1e9)},
                       {"points", r.points},
                       {"rms_relative_error", sig(r.rms, 3)}});
  if (!regimes.empty()) cal["collective_regimes"] = regimes;
  json host = json::array();
  for (const auto& h : c.host_copies)
    host.push_back({{"direction", h.direction},
                    {"pinned", h.pinned},
                    {"alpha", fmt::format("{:.4g} us", h.alpha.value * 1e6)},
                    {"bandwidth", fmt::format("{:.4g} GB/s", h.bandwidth.value / 1e9)},
                    {"points", h.points},
                    {"rms_relative_error", sig(h.rms, 3)}});
  if (!host.empty()) cal["host_copies"] = host;
  p["calibration"] = cal;
  return p.dump(2) + "\n";
}

}  // namespace sim
