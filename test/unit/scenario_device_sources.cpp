// Every number in a shipped device profile states where it comes from (DESIGN.md "Invariants":
// every number a model uses has a source): each value below the top level is written as
// {"value": ..., "source": "..."} with a non-empty source. Profiles written by `trainsim
// calibrate` satisfy the same rule; their "calibration" section is provenance, not parameters.
#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/core/data_files.hpp"
#include "sim/core/params.hpp"
#include "sim/scenario/device.hpp"
#include "test/unit/input_error_of.hpp"
#include "test/unit/temp_dir.hpp"

using namespace sim;

namespace {

void unsourced(const ParamReader& r, std::vector<std::string>& out) {
  if (!r.source().empty()) return;
  if (!r.is_object()) {
    out.push_back(r.path());
    return;
  }
  for (const auto& key : r.keys()) unsourced(r.at(key), out);
}

}  // namespace

TEST_CASE("every number in the shipped device profiles has a source") {
  const std::string dir = std::string(TRAINSIM_SOURCE_DIR) + "/topologies/devices";
  const auto names = json_names(dir);
  REQUIRE(names.size() >= 4);  // A100, H100, H200, B200 at least
  for (const auto& name : names) {
    auto r = device_profile(dir + "/" + name + ".json", TRAINSIM_SOURCE_DIR);
    DeviceSpec::parse(r);  // and it is a valid profile (over its base, where it names one)
    std::vector<std::string> missing;
    for (const auto& key : r.keys())
      if (key != "kind" && key != "name" && key != "description" && key != "source" && key != "calibration")
        unsourced(r.at(key), missing);
    INFO(name);
    CHECK(missing == std::vector<std::string>{});
    CHECK_FALSE(r.string("source").empty());
  }
  for (const char* gpu : {"a100-sxm-80gb", "h100-sxm", "h200-sxm", "b200"})
    CHECK(std::find(names.begin(), names.end(), gpu) != names.end());
}

TEST_CASE("a gemm_fp8 curve needs an fp8 peak, and a profile without one prices FP8 GEMMs on the gemm curve") {
  const std::string dir = std::string(TRAINSIM_SOURCE_DIR) + "/topologies/devices";
  nlohmann::json p = nlohmann::json::parse(ParamReader::load_file(dir + "/h100-sxm.json").dump());
  REQUIRE(p.contains("gemm_fp8"));
  nlohmann::json no_peak = p;
  no_peak["peak"].erase("fp8");
  const std::string e = error_of([&] { DeviceSpec::parse(ParamReader::from_text(no_peak.dump(), "d.json")); });
  CHECK_THAT(e, Catch::Contains("d.json: /gemm_fp8: is given without an fp8 peak"));
  nlohmann::json no_curve = p;
  no_curve.erase("gemm_fp8");
  const DeviceSpec with = DeviceSpec::parse(ParamReader::from_text(p.dump(), "d.json"));
  const DeviceSpec without = DeviceSpec::parse(ParamReader::from_text(no_curve.dump(), "d.json"));
  CHECK(&with.gemm_curve(Precision::FP8) == &with.gemm_fp8);
  CHECK(&with.gemm_curve(Precision::BF16) == &with.gemm);
  CHECK(&without.gemm_curve(Precision::FP8) == &without.gemm);
  CHECK(without.gemm_fp8.eta_max == 0);
}

TEST_CASE("gemm_fp8.layouts says whether FP8 GEMMs take any layout: absent, only TN (Hopper's)") {
  const std::string dir = std::string(TRAINSIM_SOURCE_DIR) + "/topologies/devices";
  nlohmann::json p = nlohmann::json::parse(ParamReader::load_file(dir + "/h100-sxm.json").dump());
  REQUIRE_FALSE(p["gemm_fp8"].contains("layouts"));
  CHECK_FALSE(DeviceSpec::parse(ParamReader::from_text(p.dump(), "d.json")).fp8_gemm_any_layout);
  p["gemm_fp8"]["layouts"] = {{"value", "any"}, {"source", "test"}};
  CHECK(DeviceSpec::parse(ParamReader::from_text(p.dump(), "d.json")).fp8_gemm_any_layout);
  p["gemm_fp8"]["layouts"] = "tn";
  CHECK_FALSE(DeviceSpec::parse(ParamReader::from_text(p.dump(), "d.json")).fp8_gemm_any_layout);
  p["gemm_fp8"]["layouts"] = "nt";
  const std::string e = error_of([&] { DeviceSpec::parse(ParamReader::from_text(p.dump(), "d.json")); });
  CHECK_THAT(e, Catch::Contains("d.json: /gemm_fp8/layouts:"));
  CHECK_THAT(e, Catch::Contains("tn"));
}

TEST_CASE("an attention curve's head_dims are read strictly") {
  const std::string dir = std::string(TRAINSIM_SOURCE_DIR) + "/topologies/devices";
  nlohmann::json p = nlohmann::json::parse(ParamReader::load_file(dir + "/h200-sxm.json").dump());
  REQUIRE(p["flash_attention"].contains("head_dims"));
  for (const auto& [dims, fragment] : std::vector<std::pair<nlohmann::json, std::string>>{
           {{{"abc", 0.9}}, "/flash_attention/head_dims/abc: 'abc' is not a head dimension"},
           {{{"128", 0.9}}, "'128' is not a head dimension"},
           {{{"64", 0}}, "/flash_attention/head_dims/64: 0 is out of range (expected a factor from 0.01 to 2)"},
           {{{"64", 3}}, "3 is out of range"},
           {nlohmann::json::array(), "/flash_attention/head_dims: is not an object"}}) {
    nlohmann::json bad = p;
    bad["flash_attention"]["head_dims"] = dims;
    INFO(dims.dump());
    CHECK_THAT(error_of([&] { DeviceSpec::parse(ParamReader::from_text(bad.dump(), "d.json")); }),
               Catch::Contains(fragment));
  }
}

TEST_CASE("a device profile may name a base profile with \"from\", its own keys replacing the base's") {
  // H800: the H100 SXM5's die and rates, NVLink cut (the cluster's); its file names h100-sxm.
  const std::string dir = std::string(TRAINSIM_SOURCE_DIR) + "/topologies/devices";
  const DeviceSpec h800 = DeviceSpec::parse(device_profile(dir + "/h800-sxm.json", TRAINSIM_SOURCE_DIR));
  const DeviceSpec h100 = DeviceSpec::parse(device_profile(dir + "/h100-sxm.json", TRAINSIM_SOURCE_DIR));
  CHECK(h800.name == "h800-sxm");
  CHECK(h100.name == "h100-sxm");
  CHECK(h800.dense_peak.at(Precision::BF16).value == h100.dense_peak.at(Precision::BF16).value);
  CHECK(h800.sms == h100.sms);
  CHECK(h800.hbm_capacity.value == h100.hbm_capacity.value);
  // A base that names the file itself loops: one line naming the key.
  TempDir tmp;
  const std::string self = tmp.path() + "/loop.json";
  std::ofstream(self) << R"({"kind": "device", "from": ")" << self << R"(", "name": "x"})";
  const std::string e = error_of([&] { device_profile(self, TRAINSIM_SOURCE_DIR); });
  CHECK_THAT(e, Catch::Contains("/from: names a chain of bases that loops or runs on"));
}
