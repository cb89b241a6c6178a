// The reader's windows (sim/core/quantity_range.hpp): every bandwidth is in [1 Mb/s, 1 PB/s],
// every fraction of a rated speed in [0.01, 1], and a reader given its own window refuses outside
// it; each edge is inside, and a refusal names the file, the path and the window.
#include <catch2/catch.hpp>
#include <string>

#include "sim/core/params.hpp"
#include "test/unit/input_error_of.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

sim::ParamReader read(const std::string& text) { return sim::ParamReader::from_text(text, "x.json"); }

}  // namespace

TEST_CASE("a bandwidth is from 1 Mb/s to 1 PB/s", "[core]") {
  const auto r = read(R"({"lo": "1 Mb/s", "hi": "1 PB/s", "nvlink": "1e18 B/s", "far": "1e24 B/s",
                          "slow": "0.99 Mb/s"})");
  CHECK(r.at("lo").as_bandwidth().value == 125e3);
  CHECK(r.at("hi").as_bandwidth().value == 1e15);
  for (const char* key : {"nvlink", "far", "slow"}) {
    INFO(key);
    CHECK_THAT(error_of([&] { (void)r.at(key).as_bandwidth(); }),
               StartsWith("x.json: /" + std::string(key) + ": '") &&
                   Contains("' is out of range (expected a bandwidth from 1 Mb/s to 1 PB/s)"));
  }
}

TEST_CASE("an efficiency is a fraction from 0.01 to 1, subnormals refused", "[core]") {
  const auto r = read(R"({"lo": 0.01, "one": 1, "subnormal": 5e-324, "tiny": 1e-300, "under": 0.0099, "over": 1.01,
                          "zero": 0})");
  CHECK(r.at("lo").as_efficiency() == 0.01);
  CHECK(r.at("one").as_efficiency() == 1.0);
  for (const char* key : {"subnormal", "tiny", "under", "over", "zero"}) {
    INFO(key);
    CHECK_THAT(error_of([&] { (void)r.at(key).as_efficiency(); }),
               StartsWith("x.json: /" + std::string(key) + ": ") &&
                   Contains(" is out of range (expected a fraction of the rated speed from 0.01 to 1)"));
  }
}

TEST_CASE("a quantity read in a window of its own is refused outside it", "[core]") {
  const auto r = read(R"({"us": "5 us", "day": "1 d", "x": 3})");
  constexpr sim::QuantityRange latency{1e-9, 1.0, "a latency from 1 ns to 1 s"};
  CHECK(r.at("us").as_seconds(latency).value == Approx(5e-6));
  CHECK(r.at("day").as_seconds().value == 86400.0);  // the default window takes it
  CHECK_THAT(error_of([&] { (void)r.at("day").as_seconds(latency); }),
             StartsWith("x.json: /day: '1 d' is out of range (expected a latency from 1 ns to 1 s)"));
  CHECK(r.at("x").as_number_in({1, 3}) == 3);
  CHECK_THAT(error_of([&] {
               (void)r.at("x").as_number_in({0, 2});
             }),
             StartsWith("x.json: /x: 3 is out of range (expected a number from 0 to 2)"));
}
