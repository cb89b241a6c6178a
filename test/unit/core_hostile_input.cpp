// Hostile but realistic input to the strict reader (sim/core/json_text.hpp, params.hpp): each is one
// InputError line naming the file and what is wrong -- never a crash, a quietly accepted document,
// or a message that quotes the offending line.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/core/json_text.hpp"
#include "sim/core/params.hpp"
#include "sim/core/text_escape.hpp"
#include "test/unit/input_error_of.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

sim::ParamReader read(const std::string& text) { return sim::ParamReader::from_text(text, "x.json"); }

std::string nested(size_t depth, const std::string& inner = "1") {
  return std::string(depth, '[') + inner + std::string(depth, ']');
}

}  // namespace

TEST_CASE("hostile JSON: nesting is bounded at MAX_JSON_DEPTH, at any depth beyond it", "[core]") {
  CHECK_NOTHROW(read(nested(sim::MAX_JSON_DEPTH)));
  // One level more, and the issue's depths (30k-1M, which overflowed the stack while copying).
  for (size_t depth : {size_t(sim::MAX_JSON_DEPTH) + 1, size_t{30000}, size_t{1000000}}) {
    const auto msg = error_of([&] { read(nested(depth)); });
    CHECK_THAT(msg, StartsWith("x.json: /: invalid JSON at line 1, column 65"));
    CHECK_THAT(msg, Contains("nested more than 64 deep"));
  }
  // Objects count as levels too, and so do brackets inside a free-text field's value.
  std::string objects;
  for (int i = 0; i < 100; ++i) objects += "{\"a\":";
  CHECK_THAT(error_of([&] { read(objects + "1" + std::string(100, '}')); }), Contains("nested more than 64 deep"));
  CHECK_THAT(error_of([&] { read("{\"note\": " + nested(5000) + "}"); }), Contains("nested more than 64 deep"));
  // Brackets inside strings are text, not nesting.
  CHECK(read("{\"note\": \"" + std::string(5000, '[') + "\"}").string("note").size() == 5000);
}

TEST_CASE("hostile JSON: --set values and paths are bounded the same way", "[core]") {
  const auto r = read("{\"name\": \"a\"}");
  CHECK_THAT(error_of([&] { (void)r.with_value("name", nested(100000)); }), Contains("nested more than 64 deep"));
  std::string deep_path = "a";
  for (int i = 0; i < 100000; ++i) deep_path += ".a";
  CHECK_THAT(error_of([&] { (void)r.with_value(deep_path, "1"); }), Contains("more than 64 parts"));
}

TEST_CASE("hostile JSON: a NUL byte anywhere is refused, with its position", "[core]") {
  // nlohmann's lexer treats NUL as the end of the input and accepted the document before it.
  CHECK_THAT(error_of([] { read(std::string("{\"a\": 1}\0garbage", 16)); }),
             StartsWith("x.json: /: invalid JSON at line 1, column 9"));
  CHECK_THAT(error_of([] { read(std::string("{\"a\": \"x\0y\"}", 12)); }), Contains("a NUL byte"));
  CHECK_THAT(error_of([] { read(std::string("\0", 1)); }), Contains("a NUL byte"));
  // An escaped \u0000 is a valid JSON string, but no name or path may hold it (C calls cut it there).
  const auto r = read(R"({"model": "gpt3\u0000../../etc/passwd"})");
  CHECK_THAT(error_of([&] { (void)r.string("model"); }), StartsWith("x.json: /model: contains a NUL character"));
}

TEST_CASE("hostile JSON: a key repeated in one object is refused, naming its path", "[core]") {
  CHECK_THAT(error_of([] { read(R"({"parallelism": {"tp": 8, "pp": 2, "tp": 4}})"); }),
             StartsWith("x.json: /parallelism/tp: key 'tp' appears twice in this object"));
  CHECK_THAT(error_of([] { read(R"({"runs": [{"a": 1}, {"a": 1, "a": 1}]})"); }), StartsWith("x.json: /runs/1/a:"));
  // The same key in different objects is fine.
  CHECK(read(R"({"a": {"x": 1}, "b": {"x": 2}})").at("b").count("x") == 2);
}

TEST_CASE("hostile JSON: more than MAX_JSON_VALUES values is refused", "[core]") {
  std::string many = "[";
  for (size_t i = 0; i < sim::MAX_JSON_VALUES; ++i) many += "{},";
  many += "{}]";  // MAX_JSON_VALUES + 1 objects, inside one more array
  CHECK_THAT(error_of([&] { read(many); }), Contains("more than 1048576 values"));
}

TEST_CASE("hostile JSON: a parse error names the position and never quotes the line", "[core]") {
  // A token file named by mistake: the message must not reveal the token.
  const std::string token = "ghp_0123456789abcdefSECRETSECRETSECRET";
  const auto msg = error_of([&] { read(token + "\n"); });
  CHECK_THAT(msg, StartsWith("x.json: /: invalid JSON at line 1, column 1, near 'g'"));
  CHECK(msg.find("SECRET") == std::string::npos);
  CHECK(msg.find("0123") == std::string::npos);
  // The second line's position; at most six characters before the error are quoted, escaped.
  const auto second = error_of([] { read("{\"a\": 1,\n  \"bb\": tru\x1b[31m}"); });
  CHECK_THAT(second, Contains("line 2, column 12, near ': tru\\x1B'"));
  CHECK(second.find('\x1b') == std::string::npos);
  // A number beyond double's range.
  CHECK_THAT(error_of([] { read("{\"a\": 1e400}"); }), Contains("a number too large for a double"));
  // Invalid UTF-8 inside a string is the lexer's error, with the byte escaped.
  const auto utf8 = error_of([] { read("{\"name\": \"a\xff\"}"); });
  CHECK(sim::invalid_utf8_offset(utf8) == std::string::npos);
}

TEST_CASE("hostile input: quantities that overflow or vanish after unit conversion", "[core]") {
  const auto r = read(R"({"a": "1e308 TFLOP/s", "b": "1e-300 s", "c": "1e20 PB", "d": "5e-9 ns", "e": "1e24 FLOP/s"})");
  CHECK_THAT(error_of([&] { (void)r.at("a").as_flops_rate(); }),
             StartsWith("x.json: /a: '1e308 TFLOP/s' is out of range"));
  CHECK_THAT(error_of([&] { (void)r.at("b").as_seconds(); }), Contains("from 1e-15 to 1e+24 s"));
  CHECK_THAT(error_of([&] { (void)r.at("c").as_bytes(); }), Contains("out of range"));
  CHECK_THAT(error_of([&] { (void)r.at("d").as_seconds(); }), Contains("out of range"));
  CHECK(r.at("e").as_flops_rate().value == 1e24);  // the window's edge is inside
}

TEST_CASE("hostile input: --set values that are not UTF-8 or look like JSON but are not", "[core]") {
  const auto r = read("{\"name\": \"a\"}");
  CHECK_THAT(error_of([&] { (void)r.with_value("name", "\xc3\x28"); }),
             StartsWith("--set: /name: the value is not valid UTF-8 (byte 0)"));
  // Text that starts like JSON must be JSON: a repeated key is not quietly taken as a string.
  CHECK_THAT(error_of([&] { (void)r.with_value("training", R"({"seq_len": 1, "seq_len": 2})"); }),
             Contains("appears twice"));
  CHECK(r.with_value("name", "plain words").string("name") == "plain words");
}

TEST_CASE("hostile input: load_file refuses FIFOs and devices without opening them", "[core]") {
  char tmpl[] = "/tmp/trainsim-fifo-XXXXXX";
  REQUIRE(::mkdtemp(tmpl) != nullptr);
  const std::string fifo = std::string(tmpl) + "/scenario.json";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // With no writer, opening the FIFO for reading would block forever.
  CHECK_THAT(error_of([&] { (void)sim::ParamReader::load_file(fifo); }), Contains("is a FIFO, not a regular file"));
  CHECK_THAT(error_of([] { (void)sim::ParamReader::load_file("/dev/zero"); }), Contains("is a character device"));
  std::filesystem::remove_all(tmpl);
}

TEST_CASE("escape_for_terminal: control characters and bad bytes escaped, UTF-8 kept", "[core]") {
  CHECK(sim::escape_for_terminal("a\nb\tc\x1b[0m") == "a\\nb\\tc\\x1B[0m");
  CHECK(sim::escape_for_terminal("\xc2\x9b"
                                 "31m") == "\\u009B31m");  // C1 CSI
  CHECK(sim::escape_for_terminal("\xff\xfe") == "\\xFF\\xFE");
  CHECK(sim::escape_for_terminal("µs — ok") == "µs — ok");
  CHECK(sim::invalid_utf8_offset("ok \xed\xa0\x80") == 3);   // a UTF-16 surrogate
  CHECK(sim::invalid_utf8_offset("\xc0\xaf") == 0);          // overlong '/'
  CHECK(sim::invalid_utf8_offset("\xf4\x90\x80\x80") == 0);  // past U+10FFFF
  CHECK(sim::invalid_utf8_offset("\xf0\x9f\x98\x80") == std::string::npos);
}
