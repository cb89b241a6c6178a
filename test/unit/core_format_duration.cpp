// Durations printed for people (sim/core/format_duration.hpp). Each expected string is built from
// the closed form of its unit split: 800 s = 13 x 60 + 20; 37.6 h = 135,360 s = 1.5667 days.
#include <catch2/catch.hpp>

#include "sim/core/format_duration.hpp"

using sim::format_duration;
using sim::format_hours_days;
using sim::Seconds;

TEST_CASE("format_duration: minutes, hours and days from their closed forms", "[core]") {
  CHECK(format_duration(Seconds(13 * 60 + 20)) == "13 min 20 s");
  CHECK(format_duration(Seconds(800.161)) == "13 min 20 s");  // rounded to the second
  CHECK(format_duration(Seconds(2 * 3600 + 5 * 60)) == "2 h 5 min");
  CHECK(format_duration(Seconds(2 * 3600 + 5 * 60 + 29)) == "2 h 5 min");
  CHECK(format_duration(Seconds(3 * 86400 + 7 * 3600)) == "3 d 7 h");
  CHECK(format_duration(Seconds(60)) == "1 min 0 s");
}

TEST_CASE("format_duration: rounding carries into the larger unit", "[core]") {
  CHECK(format_duration(Seconds(3599.7)) == "1 h 0 min");  // 3600 s after rounding
  CHECK(format_duration(Seconds(59 * 60 + 59.6)) == "1 h 0 min");
  CHECK(format_duration(Seconds(86400 - 10)) == "1 d 0 h");  // 1440 min after rounding
  CHECK(format_duration(Seconds(119.6)) == "2 min 0 s");
}

TEST_CASE("format_duration: under a minute it is format_seconds", "[core]") {
  CHECK(format_duration(Seconds(6.498)) == sim::format_seconds(Seconds(6.498)));
  CHECK(format_duration(Seconds(0.012)) == sim::format_seconds(Seconds(0.012)));
  CHECK(format_duration(Seconds(59.9)) == sim::format_seconds(Seconds(59.9)));
}

TEST_CASE("format_hours_days: hours with days beside", "[core]") {
  // 37.6 h = 37.6 x 3600 s; 37.6 / 24 = 1.5667 days.
  CHECK(format_hours_days(Seconds(37.6 * 3600)) == "37.6 h (1.57 days)");
  CHECK(format_hours_days(Seconds(0)) == "0.0 h (0.00 days)");
  CHECK(format_hours_days(Seconds(48 * 3600)) == "48.0 h (2.00 days)");
}
