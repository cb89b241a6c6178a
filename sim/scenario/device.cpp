#include "sim/scenario/device.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "sim/core/data_files.hpp"
#include "sim/core/params.hpp"
#include "sim/core/text_escape.hpp"
#include "sim/scenario/schema.hpp"

namespace sim {
namespace {

// The profile's keys, ranges and choices are the schema's (schema_device.cpp), under @device.
const std::string D = "@device";

double efficiency(const ParamReader& obj, const std::string& path) {
  return obj.at(path.substr(path.rfind('/') + 1)).as_number_in(schema_range(path));
}

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
  schema_expect_keys(r, D);
  if (auto k = r.find("kind")) k->as_choice(schema_choices(D + "/kind"));
  DeviceSpec d;
  d.name = r.string("name");
  auto peak = r.at("peak");
  schema_expect_keys(peak, D + "/peak");
  for (Precision p : {Precision::BF16, Precision::FP16, Precision::FP8})
    if (auto v = peak.find(to_string(p))) d.dense_peak[p] = v->as_flops_rate(schema_range(D + "/peak/" + to_string(p)));
  if (d.dense_peak.empty()) peak.fail("names no precision", "at least one of bf16, fp16, fp8");
  auto hbm = r.at("hbm");
  schema_expect_keys(hbm, D + "/hbm");
  d.hbm_capacity = hbm.at("capacity").as_bytes(schema_range(D + "/hbm/capacity"));
  d.hbm_bandwidth = hbm.at("bandwidth").as_bandwidth();
  d.sms = r.has("sms") ? schema_count(r, D + "/sms") : 0;
  if (auto cc = r.find("compute_capability")) d.compute_capability = parse_compute_capability(*cc);
  auto gemm = r.at("gemm");
  schema_expect_keys(gemm, D + "/gemm");
  if (auto tiles = gemm.find("tiles")) {
    const ParamReader& list = *tiles;
    for (size_t i = 0; i < list.size(); ++i) {
      std::string t = list[i].as_string();
      auto x = t.find('x');
      long long a = 0, b = 0;
      if (x == std::string::npos || std::sscanf(t.c_str(), "%lldx%lld", &a, &b) != 2 || a <= 0 || b <= 0 ||
          a > MAX_GEMM_TILE || b > MAX_GEMM_TILE)
        list[i].fail("'" + t + "' is not a tile", "ROWSxCOLS, e.g. \"256x128\"");
      d.gemm_tiles.emplace_back(a, b);
    }
    if (d.sms <= 0) tiles->fail("wave quantization needs the device's SM count", "an \"sms\" entry");
  }
  d.gemm.eta_max = efficiency(gemm, D + "/gemm/efficiency_max");
  d.gemm.x_half = gemm.at("half_flops").as_flops(schema_range(D + "/gemm/half_flops")).value;
  if (auto g8 = r.find("gemm_fp8")) {
    schema_expect_keys(*g8, D + "/gemm_fp8");
    if (!d.dense_peak.count(Precision::FP8))
      g8->fail("is given without an fp8 peak", "a peak.fp8 entry, or no gemm_fp8");
    d.gemm_fp8.eta_max = efficiency(*g8, D + "/gemm_fp8/efficiency_max");
    d.gemm_fp8.x_half = g8->at("half_flops").as_flops(schema_range(D + "/gemm_fp8/half_flops")).value;
    if (auto l = g8->find("layouts"))
      d.fp8_gemm_any_layout = l->as_choice(schema_choices(D + "/gemm_fp8/layouts")) == "any";
  }
  if (r.has("sustained_compute")) d.sustained_compute = efficiency(r, D + "/sustained_compute");
  auto mem = r.at("memory_ops");
  schema_expect_keys(mem, D + "/memory_ops");
  d.memory.eta_max = efficiency(mem, D + "/memory_ops/efficiency_max");
  d.memory.x_half = mem.at("half_bytes").as_bytes(schema_range(D + "/memory_ops/half_bytes")).value;
  for (const auto& k : attention_kernels()) {
    if (!k.profile_key) continue;
    const std::string p = D + "/" + k.profile_key;
    if (auto fa = r.find(k.profile_key)) {
      schema_expect_keys(*fa, p);
      SaturatingCurve& c = d.attention[k.kind];
      c.eta_max = efficiency(*fa, p + "/efficiency_max");
      c.x_half = static_cast<double>(schema_count(*fa, p + "/half_seq_len"));
      if (auto dims = fa->find("head_dims")) {
        if (!dims->is_object()) dims->fail("is not an object", "head dimensions mapped to factors, e.g. {\"64\": 0.9}");
        for (const auto& key : dims->keys()) {
          char* end = nullptr;
          const long hd = std::strtol(key.c_str(), &end, 10);
          if (key.empty() || *end != '\0' || hd < 8 || hd > 1024 || hd == kReferenceHeadDim)
            dims->at(key).fail("'" + key + "' is not a head dimension",
                               fmt::format("a whole number from 8 to 1024 other than {}", kReferenceHeadDim));
          d.attention_head_dims[k.kind][static_cast<int>(hd)] =
              dims->at(key).as_number_in(schema_range(p + "/head_dims/*"));
        }
      }
    }
  }
  auto c = r.at("collectives");
  const std::string C = D + "/collectives";
  schema_expect_keys(c, C);
  d.collectives.base_latency = c.at("base_latency").as_seconds(schema_range(C + "/base_latency"));
  d.collectives.scale_up_step_latency =
      c.at("scale_up_step_latency").as_seconds(schema_range(C + "/scale_up_step_latency"));
  d.collectives.scale_out_step_latency =
      c.at("scale_out_step_latency").as_seconds(schema_range(C + "/scale_out_step_latency"));
  d.collectives.scale_up_efficiency = efficiency(c, C + "/scale_up_efficiency");
  d.collectives.scale_out_efficiency = efficiency(c, C + "/scale_out_efficiency");
  if (c.has("nvls_efficiency")) {
    d.collectives.nvls_efficiency = efficiency(c, C + "/nvls_efficiency");
    d.collectives.nvls_latency = c.at("nvls_latency").as_seconds(schema_range(C + "/nvls_latency"));
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

ParamReader device_profile(const std::string& path, const std::string& data_dir) {
  ParamReader file = ParamReader::load_file(path);
  std::vector<std::string> chain{path};
  while (file.is_object() && file.has("from")) {
    const ParamReader from = file.at("from");
    const std::string base = device_file(from.as_string(), data_dir, from.directory());
    if (base.empty()) {
      auto [what, expected] = unknown_device(from.as_string(), data_dir, from.directory());
      from.fail(what, expected);
    }
    if (std::find(chain.begin(), chain.end(), base) != chain.end() || chain.size() >= 16)
      from.fail("names a chain of bases that loops or runs on", "a base profile without \"from\"");
    chain.push_back(base);
    file = ParamReader::load_file(base).merged_with(file.without_key("from"));
  }
  return file;
}

std::string device_file(const std::string& name, const std::string& data_dir, const std::string& base_dir) {
  return find_data_file(name, "topologies/devices", data_dir, base_dir);
}

std::pair<std::string, std::string> unknown_device(const std::string& name, const std::string& data_dir,
                                                   const std::string& base_dir) {
  return missing_data_file(name, "device", "topologies/devices", data_dir, base_dir);
}

}  // namespace sim
