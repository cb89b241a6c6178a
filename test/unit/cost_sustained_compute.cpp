// A device profile's `sustained_compute`: the fraction of its curves' tensor-core rate a GPU keeps
// through a training step when the curves are burst timings (DeviceSpec::sustained_compute). The
// expectations are the roofline's closed forms written out here from the profile's own curve
// parameters: t = F / (P * eta_max * x / (x + x_half) * f) for GEMMs and fused attention, the
// same without f where kernels are compared with burst measurements, and memory-bound kernels
// and the peak (what MFU is against) untouched.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "sim/core/params.hpp"
#include "sim/cost/compute_model.hpp"
#include "test/unit/input_error_of.hpp"

using namespace sim;

namespace {

const std::string kProfile = std::string(TRAINSIM_SOURCE_DIR) + "/topologies/devices/h100-sxm.json";

nlohmann::json profile_with(const nlohmann::json& sustained) {
  nlohmann::json p = nlohmann::json::parse(ParamReader::load_file(kProfile).dump());
  p["sustained_compute"] = sustained;
  return p;
}

DeviceSpec device_with(double f) {
  return DeviceSpec::parse(ParamReader::from_text(profile_with({{"value", f}, {"source", "test"}}).dump(), "d.json"));
}

}  // namespace

TEST_CASE("sustained_compute slows a step's GEMMs and fused attention by its fraction, nothing else") {
  const double f = 0.8;
  const DeviceSpec d = device_with(f);
  REQUIRE(d.gemm_tiles.empty());  // no wave quantization on Hopper: the closed form below is whole
  const ComputeModel step(d, Precision::BF16);
  const ComputeModel measured(d, Precision::BF16, KernelTiming::as_measured);
  const double P = 989e12;  // the h100-sxm profile's bf16 peak
  REQUIRE(d.dense_peak.at(Precision::BF16).value == P);

  const GemmShape g{8192, 8192, 8192};
  const double F = 2.0 * 8192 * 8192 * 8192;
  const double burst = F / (P * d.gemm.eta_max * F / (F + d.gemm.x_half));
  CHECK(measured.gemm(g, Bytes(0)).value == Approx(burst).epsilon(1e-12));
  CHECK(step.gemm(g, Bytes(0)).value == Approx(burst / f).epsilon(1e-12));

  const double S = 8192, Fa = 1e13;
  const SaturatingCurve& c = *d.attention_curve(Attention::CUDNN);
  const double attention = Fa / (P * c.eta_max * S / (S + c.x_half));
  CHECK(measured.fused_attention(Attention::CUDNN, Flops(Fa), Bytes(0), S).value == Approx(attention).epsilon(1e-12));
  CHECK(step.fused_attention(Attention::CUDNN, Flops(Fa), Bytes(0), S).value == Approx(attention / f).epsilon(1e-12));

  // HBM's clock is not lowered: a memory-bound kernel keeps its time.
  const double B = 1e9;
  const double memory = B / (3350e9 * d.memory.eta_max * B / (B + d.memory.x_half));
  CHECK(step.memory_op(Bytes(B)).value == Approx(memory).epsilon(1e-12));
  CHECK(measured.memory_op(Bytes(B)).value == Approx(memory).epsilon(1e-12));
  // MFU stays against the datasheet.
  CHECK(step.peak().value == P);

  // Absent, the curves are the step's rates.
  const DeviceSpec plain = DeviceSpec::parse(ParamReader::load_file(kProfile));
  CHECK(plain.sustained_compute == 1.0);
  CHECK(ComputeModel(plain, Precision::BF16).gemm(g, Bytes(0)).value == Approx(burst).epsilon(1e-12));
}

TEST_CASE("sustained_compute is read strictly") {
  for (const auto& bad : {nlohmann::json(0.0), nlohmann::json(1.5), nlohmann::json("fast")}) {
    INFO(bad.dump());
    const std::string e =
        error_of([&] { DeviceSpec::parse(ParamReader::from_text(profile_with(bad).dump(), "d.json")); });
    CHECK_THAT(e, Catch::Contains("d.json: /sustained_compute:"));
  }
  CHECK(device_with(1.0).sustained_compute == 1.0);
}
