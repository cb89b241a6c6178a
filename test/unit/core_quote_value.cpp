// Bounded messages: a value quoted from the input is cut to QUOTED_MAX bytes with its
// length, an error line's parts to their bounds, and neither splits a UTF-8 sequence.
#include <catch2/catch.hpp>
#include <string>

#include "sim/core/error.hpp"
#include "sim/core/text_escape.hpp"

TEST_CASE("quote_value: short values whole, long ones cut with their length", "[core]") {
  CHECK(sim::quote_value("tp") == "'tp'");
  CHECK(sim::quote_value(std::string(sim::QUOTED_MAX, 'a')) == "'" + std::string(sim::QUOTED_MAX, 'a') + "'");
  const std::string long_key(1'000'000, 'k');
  // The first QUOTED_MAX bytes, "...'", and the length in bytes.
  CHECK(sim::quote_value(long_key) == "'" + std::string(sim::QUOTED_MAX, 'k') + "...' (1000000 bytes)");
  // "é" is two bytes: a cut at an odd byte count backs off to the sequence's start.
  std::string accents;
  for (int i = 0; i < 100; ++i) accents += "\xC3\xA9";
  const std::string q = sim::quote_value(accents);
  CHECK(q.substr(0, 1 + 100) == "'" + accents.substr(0, 100));
  CHECK(sim::invalid_utf8_offset(q) == std::string::npos);
  // Control characters are escaped as before.
  CHECK(sim::quote_value("a\nb") == "'a\\nb'");
}

TEST_CASE("bounded: head and tail around the length, escaped", "[core]") {
  CHECK(sim::bounded("short", 10) == "short");
  const std::string s = std::string(1000, 'a') + std::string(1000, 'z');
  // max 100: the first 50 bytes, the length, the last 50.
  CHECK(sim::bounded(s, 100) == std::string(50, 'a') + "... (2000 bytes) ..." + std::string(50, 'z'));
}

TEST_CASE("InputError: every part of the line is bounded", "[core]") {
  const std::string huge(5'000'000, 'x');
  const sim::InputError e(huge, "/" + huge, huge, huge);
  // file and path at most 300 bytes each, what and expected 1,500, plus the cut markers and the
  // separators: far below 4,000 bytes.
  CHECK(std::string(e.what()).size() < 4000);
  CHECK(std::string(e.what()).find("(5000000 bytes)") != std::string::npos);
}
