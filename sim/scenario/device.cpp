#include "sim/scenario/device.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "sim/core/data_files.hpp"
#include "sim/core/params.hpp"
#include "sim/core/text_escape.hpp"

namespace sim {
namespace {

// The profile's windows (core/quantity_range.hpp), each with its reason; its bandwidths take
// BANDWIDTH and its fractions of a rated speed EFFICIENCY.
// A dense tensor-core peak: from 1 TFLOP/s, under any accelerator LLMs are trained on (V100: 125
// TFLOP/s FP16), to 1 EFLOP/s, over 200x the fastest dense peak shipped (B200: 4.5 PFLOP/s FP8).
constexpr QuantityRange PEAK{1e12, 1e18, "a dense peak from 1 TFLOP/s to 1 EFLOP/s"};
// HBM: from 1 GiB, under any training GPU's (V100: 16 GiB), to 1 PiB, over 3,000x the largest
// (B300: 288 GB).
constexpr QuantityRange HBM_CAPACITY{1073741824.0, 1125899906842624.0, "a capacity from 1 GiB to 1 PiB"};
// A curve's half-efficiency size (SaturatingCurve::x_half). GEMMs: from 1 MFLOP, where a GEMM is
// saturated from its first tile, to 1 PFLOP, a GEMM of 80,000^3 (the shipped ones are 1.4 to 18
// GFLOP). Memory-bound kernels: from 1 kB to 1 TB, more than any GPU's HBM (shipped: 2 to 33 MB).
constexpr QuantityRange HALF_FLOPS{1e6, 1e15, "a size from 1 MFLOP to 1 PFLOP"};
constexpr QuantityRange HALF_BYTES{1e3, 1e12, "a size from 1 kB to 1 TB"};
// NCCL's latencies: from 1 ns, under one NVLink hop, to 1 s, over 10^4 times any measured (the
// shipped profiles' are 1 to 49 us).
constexpr QuantityRange NCCL_LATENCY{1e-9, 1.0, "a latency from 1 ns to 1 s"};
// A curve's factor at another head dimension: from 0.01 (EFFICIENCY's floor) to 2.
constexpr QuantityRange HEAD_DIM_FACTOR{0.01, 2.0, "a factor from 0.01 to 2"};

// "MAJOR.MINOR" as CUDA writes a compute capability ("9.0"; cudaDeviceProp major and minor, the
// kernel suite's provenance), as major * 10 + minor. Majors from 1 to 99, minors one digit, as
// every compute capability NVIDIA has published (1.0 to 12.1).
int parse_compute_capability(const ParamReader& r) {
  const std::string expected = "a compute capability as CUDA writes it, MAJOR.MINOR, e.g. \"9.0\"";
  if (!r.is_string()) r.fail("is not a string", expected);
  const std::string text = r.as_string();
  const size_t dot = text.find('.');
  const bool digits = dot != std::string::npos && (dot == 1 || dot == 2) && dot + 2 == text.size() &&
                      text.find_first_not_of("0123456789.") == std::string::npos && text[0] != '0' &&
                      text.find('.', dot + 1) == std::string::npos;
  if (!digits) r.fail(quote_value(text) + " is not a compute capability", expected);
  return std::atoi(text.substr(0, dot).c_str()) * 10 + (text[dot + 1] - '0');
}

}  // namespace

const char* to_string(Precision p) {
  switch (p) {
    case Precision::BF16: return "bf16";
    case Precision::FP16: return "fp16";
    case Precision::FP8: return "fp8";
  }
  return "?";
}

Precision precision_from_string(const std::string& s) {
  return s == "fp8" ? Precision::FP8 : s == "fp16" ? Precision::FP16 : Precision::BF16;
}

DeviceSpec DeviceSpec::parse(const ParamReader& r) {
  std::vector<std::string> keys{"kind",
                                "name",
                                "description",
                                "source",
                                "peak",
                                "hbm",
                                "sms",
                                "gemm",
                                "gemm_fp8",
                                "memory_ops",
                                "collectives",
                                "calibration",
                                "sustained_compute",
                                "compute_capability"};
  for (const auto& k : attention_kernels())
    if (k.profile_key) keys.push_back(k.profile_key);
  r.expect_keys(keys);
  if (auto k = r.find("kind")) k->as_choice({"device"});
  DeviceSpec d;
  d.name = r.string("name");
  auto peak = r.at("peak");
  peak.expect_keys({"bf16", "fp16", "fp8"});
  if (auto v = peak.find("bf16")) d.dense_peak[Precision::BF16] = v->as_flops_rate(PEAK);
  if (auto v = peak.find("fp16")) d.dense_peak[Precision::FP16] = v->as_flops_rate(PEAK);
  if (auto v = peak.find("fp8")) d.dense_peak[Precision::FP8] = v->as_flops_rate(PEAK);
  if (d.dense_peak.empty()) peak.fail("names no precision", "at least one of bf16, fp16, fp8");
  auto hbm = r.at("hbm");
  hbm.expect_keys({"capacity", "bandwidth"});
  d.hbm_capacity = hbm.at("capacity").as_bytes(HBM_CAPACITY);
  d.hbm_bandwidth = hbm.at("bandwidth").as_bandwidth();
  d.sms = r.has("sms") ? r.count("sms", 1, 100000) : 0;
  if (auto cc = r.find("compute_capability")) d.compute_capability = parse_compute_capability(*cc);
  auto gemm = r.at("gemm");
  gemm.expect_keys({"efficiency_max", "half_flops", "tiles"});
  if (auto tiles = gemm.find("tiles")) {
    const ParamReader& list = *tiles;
    for (size_t i = 0; i < list.size(); ++i) {
      std::string t = list[i].as_string();
      auto x = t.find('x');
      long long a = 0, b = 0;
      if (x == std::string::npos || std::sscanf(t.c_str(), "%lldx%lld", &a, &b) != 2 || a <= 0 || b <= 0 || a > 4096 ||
          b > 4096)
        list[i].fail("'" + t + "' is not a tile", "ROWSxCOLS, e.g. \"256x128\"");
      d.gemm_tiles.emplace_back(a, b);
    }
    if (d.sms <= 0) tiles->fail("wave quantization needs the device's SM count", "an \"sms\" entry");
  }
  d.gemm.eta_max = gemm.at("efficiency_max").as_efficiency();
  d.gemm.x_half = gemm.at("half_flops").as_flops(HALF_FLOPS).value;
  if (auto g8 = r.find("gemm_fp8")) {
    g8->expect_keys({"efficiency_max", "half_flops", "layouts"});
    if (!d.dense_peak.count(Precision::FP8))
      g8->fail("is given without an fp8 peak", "a peak.fp8 entry, or no gemm_fp8");
    d.gemm_fp8.eta_max = g8->at("efficiency_max").as_efficiency();
    d.gemm_fp8.x_half = g8->at("half_flops").as_flops(HALF_FLOPS).value;
    if (auto l = g8->find("layouts")) d.fp8_gemm_any_layout = l->as_choice({"tn", "any"}) == "any";
  }
  if (auto f = r.find("sustained_compute")) d.sustained_compute = f->as_efficiency();
  auto mem = r.at("memory_ops");
  mem.expect_keys({"efficiency_max", "half_bytes"});
  d.memory.eta_max = mem.at("efficiency_max").as_efficiency();
  d.memory.x_half = mem.at("half_bytes").as_bytes(HALF_BYTES).value;
  for (const auto& k : attention_kernels()) {
    if (!k.profile_key) continue;
    if (auto fa = r.find(k.profile_key)) {
      fa->expect_keys({"efficiency_max", "half_seq_len", "head_dims"});
      SaturatingCurve& c = d.attention[k.kind];
      c.eta_max = fa->at("efficiency_max").as_efficiency();
      c.x_half = static_cast<double>(fa->at("half_seq_len").as_count(1, 1 << 24));
      if (auto dims = fa->find("head_dims")) {
        if (!dims->is_object()) dims->fail("is not an object", "head dimensions mapped to factors, e.g. {\"64\": 0.9}");
        for (const auto& key : dims->keys()) {
          char* end = nullptr;
          const long hd = std::strtol(key.c_str(), &end, 10);
          if (key.empty() || *end != '\0' || hd < 8 || hd > 1024 || hd == kReferenceHeadDim)
            dims->at(key).fail("'" + key + "' is not a head dimension",
                               fmt::format("a whole number from 8 to 1024 other than {}", kReferenceHeadDim));
          d.attention_head_dims[k.kind][static_cast<int>(hd)] = dims->at(key).as_number_in(HEAD_DIM_FACTOR);
        }
      }
    }
  }
  auto c = r.at("collectives");
  c.expect_keys({"base_latency", "scale_up_step_latency", "scale_out_step_latency", "scale_up_efficiency",
                 "scale_out_efficiency", "nvls_efficiency", "nvls_latency"});
  d.collectives.base_latency = c.at("base_latency").as_seconds(NCCL_LATENCY);
  d.collectives.scale_up_step_latency = c.at("scale_up_step_latency").as_seconds(NCCL_LATENCY);
  d.collectives.scale_out_step_latency = c.at("scale_out_step_latency").as_seconds(NCCL_LATENCY);
  d.collectives.scale_up_efficiency = c.at("scale_up_efficiency").as_efficiency();
  d.collectives.scale_out_efficiency = c.at("scale_out_efficiency").as_efficiency();
  if (auto e = c.find("nvls_efficiency")) {
    d.collectives.nvls_efficiency = e->as_efficiency();
    d.collectives.nvls_latency = c.at("nvls_latency").as_seconds(NCCL_LATENCY);
  } else if (auto l = c.find("nvls_latency")) {
    l->fail("is given without nvls_efficiency", "both nvls_efficiency and nvls_latency, or neither");
  }
  return d;
}

double DeviceSpec::attention_head_dim_factor(Attention a, double d) const {
  const auto it = attention_head_dims.find(curve_kernel(a));
  if (it == attention_head_dims.end() || d <= 0) return 1.0;
  // The measured points around d, the reference (factor 1) among them.
  std::pair<double, double> below{0, 0}, above{0, 0};  // (head dimension, factor); 0: none
  auto consider = [&](double hd, double f) {
    if (hd <= d && hd > below.first) below = {hd, f};
    if (hd >= d && (above.first == 0 || hd < above.first)) above = {hd, f};
  };
  consider(kReferenceHeadDim, 1.0);
  for (const auto& [hd, f] : it->second) consider(hd, f);
  if (below.first == 0) return above.second;
  if (above.first == 0 || above.first == below.first) return below.second;
  const double w = std::log2(d / below.first) / std::log2(above.first / below.first);
  return below.second + w * (above.second - below.second);
}

std::string device_file(const std::string& name, const std::string& data_dir, const std::string& base_dir) {
  return find_data_file(name, "topologies/devices", data_dir, base_dir);
}

std::pair<std::string, std::string> unknown_device(const std::string& name, const std::string& data_dir,
                                                   const std::string& base_dir) {
  return missing_data_file(name, "device", "topologies/devices", data_dir, base_dir);
}

}  // namespace sim
