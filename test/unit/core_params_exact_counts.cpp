// Counts of 2^53 and more (sim/core/params.hpp, as_count): a double holds every whole number only
// below 2^53, so reading a JSON integer through one turns 9007199254740993 into 2^53 and lets 2^62
// pass a bound of 2^62 − 1. The reader keeps the integer the text wrote, or refuses it.
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>

#include "sim/core/params.hpp"
#include "test/unit/input_error_of.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

sim::ParamReader read(const std::string& text) { return sim::ParamReader::from_text(text, "x.json"); }

}  // namespace

TEST_CASE("reader: an integer above 2^53 is read exactly", "[core]") {
  auto r = read(R"({"odd": 9007199254740993, "top": 9223372036854775807, "low": -9007199254740993})");
  CHECK(r.count("odd") == INT64_C(9007199254740993));
  CHECK(r.count("top", 0) == INT64_MAX);
  CHECK(r.count("low", INT64_MIN) == -INT64_C(9007199254740993));
}

TEST_CASE("reader: a bound above 2^53 is checked exactly", "[core]") {
  const int64_t max = INT64_MAX / 2;  // 2^62 − 1, the seed's bound
  auto r = read(R"({"edge": 4611686018427387903, "over": 4611686018427387904, "u64": 18446744073709551615})");
  CHECK(r.count("edge", 0, max) == max);
  CHECK(error_of([&] { r.count("over", 0, max); }) ==
        "x.json: /over: 4611686018427387904 is out of range (expected a whole number in [0, 4611686018427387903])");
  CHECK_THAT(error_of([&] { r.count("u64", 0); }), StartsWith("x.json: /u64: 18446744073709551615 is out of range"));
}

TEST_CASE("reader: a whole number of 2^53 or more written with an exponent or fraction is refused", "[core]") {
  auto r =
      read(R"({"exp": 9.007199254740993e15, "frac": 18014398509481984.0, "fine": 1e15, "edge": 9007199254740991.0})");
  CHECK(r.count("fine") == INT64_C(1000000000000000));  // below 2^53: exact whatever the notation
  CHECK(r.count("edge") == INT64_C(9007199254740991));  // 2^53 - 1
  CHECK_THAT(error_of([&] { r.count("exp"); }), Contains("of 2^53 or more written as a decimal fraction or exponent"));
  CHECK_THAT(error_of([&] { r.count("frac"); }),
             Contains("x.json: /frac: 1.80144e+16 is a whole number of 2^53 or more"));
}
