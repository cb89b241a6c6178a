// `trainsim calibrate` and a profile's `sustained_compute` (DeviceSpec): a measurement file's
// provenance.timing says whether its kernels were timed in bursts, at the clock the curves give, or
// back to back, as the kernel suite times them, at the clock a training step runs at. The check
// compares each with the matching rate, and a curve fitted to back-to-back timings needs no
// allowance. Expected times are the GEMM roofline's closed form, F / (P * eta_max * F/(F + F_half)),
// from the profile's own parameters.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "sim/calibrate/check.hpp"
#include "sim/calibrate/fit.hpp"
#include "sim/calibrate/measurements.hpp"
#include "sim/calibrate/profile_writer.hpp"
#include "sim/core/params.hpp"
#include "test/unit/input_error_of.hpp"
#include "test/unit/temp_dir.hpp"

using namespace sim;

TEST_CASE("calibrate compares burst timings with the curves, back-to-back ones with the step's rate") {
  TempDir dir;
  nlohmann::json profile = nlohmann::json::parse(
      ParamReader::load_file(std::string(TRAINSIM_SOURCE_DIR) + "/topologies/devices/h100-sxm.json").dump());
  profile["sustained_compute"] = {{"value", 0.8}, {"source", "test"}};
  const std::string base = dir.write("base.json", profile.dump());
  const DeviceSpec d = DeviceSpec::parse(ParamReader::load_file(base));
  // One compute-bound GEMM timed exactly at the curve's burst rate.
  const double F = 2.0 * 8192 * 8192 * 8192;
  const double burst = F / (989e12 * d.gemm.eta_max * F / (F + d.gemm.x_half));
  auto measurements = [&](const char* timing) {
    return Measurements::parse(ParamReader::from_text(fmt::format(R"({{"kind": "measurements", "schema": 1,
                       "provenance": {{"gpu": "x", "source": "test"{}}},
                       "gemm": [{{"m": 8192, "n": 8192, "k": 8192, "batch": 1, "dtype": "bf16",
                                  "time": "{} s"}}]}})",
                                                                  timing, burst),
                                                      "m.json"));
  };
  const Measurements as_burst = measurements(R"(, "timing": "burst")");
  const Measurements back_to_back = measurements("");
  CHECK(as_burst.burst);
  CHECK_FALSE(back_to_back.burst);
  const CheckResult burst_check = check_profile(as_burst, d);
  const CheckResult step_check = check_profile(back_to_back, d);
  REQUIRE(burst_check.predictions.size() == 1);
  REQUIRE(step_check.predictions.size() == 1);
  CHECK(burst_check.predictions[0].predicted.value == Approx(burst).epsilon(1e-9));
  CHECK(step_check.predictions[0].predicted.value == Approx(burst / 0.8).epsilon(1e-9));

  // A GEMM curve fitted to back-to-back timings is at the step's clock already: the written profile
  // drops the base profile's allowance; fitted to burst timings, it keeps it.
  const auto refit = [&](const Measurements& m) {
    return DeviceSpec::parse(
        ParamReader::from_text(fitted_profile_json(base, calibrate(m, d), m, "refit"), "refit.json"));
  };
  CHECK(calibrate(as_burst, d).device.sustained_compute == 0.8);
  CHECK(calibrate(back_to_back, d).device.sustained_compute == 1.0);
  CHECK(refit(as_burst).sustained_compute == 0.8);
  CHECK(refit(back_to_back).sustained_compute == 1.0);

  const std::string e = error_of([&] { measurements(R"(, "timing": "bursty")"); });
  CHECK_THAT(e, Catch::Contains("m.json: /provenance/timing:"));
}
