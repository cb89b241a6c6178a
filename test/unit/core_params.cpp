// The strict JSON reader (sim/core/params.hpp) and the InputError message format (error.hpp).
//
// Expected messages follow the contract of DESIGN.md "Command line": "FILE: /json/path: what is wrong
// (expected ...)", and params.hpp: unknown keys get a did-you-mean suggestion, counts are whole
// numbers in a range, quantities are positive strings with a unit, a value may be wrapped as
// {"value": ..., "source": "..."}.
#include <catch2/catch.hpp>
#include <string>

#include "sim/core/error.hpp"
#include "sim/core/params.hpp"
#include "test/unit/input_error_of.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

sim::ParamReader read(const std::string& text) { return sim::ParamReader::from_text(text, "x.json"); }

}  // namespace

TEST_CASE("InputError: FILE: /path: what (expected ...)", "[core]") {
  // error.hpp: the message is one line; `expected` is left out when empty; an empty path is "/".
  CHECK(std::string(sim::InputError("a.json", "/parallelism/tp", "is string", "a count").what()) ==
        "a.json: /parallelism/tp: is string (expected a count)");
  CHECK(std::string(sim::InputError("a.json", "/x", "bad").what()) == "a.json: /x: bad");
  CHECK(std::string(sim::InputError("a.json", "", "bad").what()) == "a.json: /: bad");
}

TEST_CASE("reader: paths and basic scalars", "[core]") {
  auto r = read(R"({"a": {"b": [10, "s", true, 2.5]}, "w/x": 1})");
  CHECK(r.file() == "x.json");
  CHECK(r.path().empty());
  auto b = r.at("a").at("b");
  CHECK(b.path() == "/a/b");
  REQUIRE(b.size() == 4);
  CHECK(b[0].path() == "/a/b/0");
  CHECK(b[0].as_count() == 10);
  CHECK(b[1].as_string() == "s");
  CHECK(b[2].as_bool());
  CHECK(b[3].as_number() == 2.5);
  // RFC 6901: '/' in a key is written "~1" in a JSON pointer.
  CHECK(r.at("w/x").path() == "/w~1x");
  CHECK(r.keys() == std::vector<std::string>{"a", "w/x"});
  CHECK(r.has("a"));
  CHECK_FALSE(r.has("b"));
  CHECK_FALSE(r.find("b"));
  CHECK(r.find("a")->path() == "/a");
  CHECK_THAT(error_of([&] { b[4]; }), Contains("/a/b: index 4 out of range"));
}

TEST_CASE("reader: unknown key names the key, a guess and the valid keys", "[core]") {
  // params.hpp: expect_keys rejects unknown keys with did-you-mean and the list of valid keys.
  auto msg = error_of([] { read(R"({"tpp": 8, "pp": 1})").expect_keys({"tp", "pp", "dp"}); });
  CHECK_THAT(msg, StartsWith("x.json: /tpp: unknown key 'tpp'"));
  CHECK_THAT(msg, Contains("did you mean 'tp'?"));
  CHECK_THAT(msg, Contains("expected one of dp, pp, tp"));
  // Nested keys carry their full path.
  auto nested = error_of([] { read(R"({"training": {"seqlen": 1}})").at("training").expect_keys({"seq_len"}); });
  CHECK_THAT(nested, StartsWith("x.json: /training/seqlen: unknown key"));
  CHECK_THAT(nested, Contains("did you mean 'seq_len'?"));
  // Nothing close: no guess, still the list.
  auto far = error_of([] { read(R"({"zzzzzzzz": 1})").expect_keys({"tp", "pp"}); });
  CHECK_THAT(far, !Contains("did you mean"));
  CHECK_THAT(far, Contains("expected one of pp, tp"));
  // Known keys pass.
  CHECK_NOTHROW(read(R"({"tp": 8})").expect_keys({"tp", "pp"}));
}

TEST_CASE("did_you_mean: closest candidate within a small edit distance", "[core]") {
  // params.cpp: Levenshtein distance, accepted when <= max(2, |word|/3).
  CHECK(sim::did_you_mean("tpp", {"tp", "pp", "dp"}) == "tp");
  CHECK(sim::did_you_mean("a100-sxm-80g", {"a100-sxm-40gb", "a100-sxm-80gb", "h100-sxm"}) == "a100-sxm-80gb");
  CHECK(sim::did_you_mean("completely-different", {"tp", "pp"}).empty());
  CHECK(sim::did_you_mean("x", {}).empty());
}

TEST_CASE("reader: missing key and wrong type", "[core]") {
  auto r = read(R"({"tp": "8", "bw": 300, "o": {}})");
  CHECK(error_of([&] { r.at("dp"); }) == "x.json: /dp: missing required key");
  CHECK(error_of([&] { r.count("tp"); }) == "x.json: /tp: is string (expected a whole number >= 1)");
  CHECK_THAT(error_of([&] { r.at("tp").as_number(); }), StartsWith("x.json: /tp: is string (expected a number)"));
  CHECK_THAT(error_of([&] { r.at("tp").as_bool(); }), Contains("(expected true or false)"));
  CHECK_THAT(error_of([&] { r.at("bw").as_string(); }), StartsWith("x.json: /bw: is number (expected a string)"));
  CHECK_THAT(error_of([&] { r.at("bw").as_bandwidth(); }),
             StartsWith("x.json: /bw: is number (expected a positive quantity"));
  CHECK_THAT(error_of([&] { r.at("o").size(); }), StartsWith("x.json: /o: is object (expected an array)"));
  CHECK_THAT(error_of([&] { r.at("tp").at("x"); }), StartsWith("x.json: /tp: is string (expected an object)"));
  CHECK_THAT(error_of([&] { read("[1]").expect_object(); }), StartsWith("x.json: /: is array (expected an object)"));
}

TEST_CASE("reader: counts are whole numbers in range", "[core]") {
  auto r = read(R"({"neg": -1, "zero": 0, "big": 5, "half": 2.5, "huge": 1e30, "whole": 4.0, "max": 3})");
  CHECK(r.count("whole") == 4);      // 4.0 is a whole number
  CHECK(r.count("max", 0, 3) == 3);  // the range is inclusive
  CHECK(r.count("zero", 0) == 0);
  CHECK(error_of([&] { r.count("neg"); }) == "x.json: /neg: -1 is out of range (expected a whole number >= 1)");
  CHECK_THAT(error_of([&] { r.count("zero"); }), StartsWith("x.json: /zero: 0 is out of range"));
  CHECK(error_of([&] { r.count("big", 0, 3); }) ==
        "x.json: /big: 5 is out of range (expected a whole number in [0, 3])");
  CHECK_THAT(error_of([&] { r.count("half"); }), StartsWith("x.json: /half: is not a whole number"));
  // 1e30 does not fit in int64: out of range, not undefined behaviour on the cast.
  CHECK_THAT(error_of([&] { r.count("huge"); }), StartsWith("x.json: /huge: 1e+30 is out of range"));
}

TEST_CASE("reader: JSON numbers beyond double range", "[core]") {
  // nlohmann::json throws out_of_range (not parse_error) for 1e400; it is still the user's invalid
  // JSON, so an InputError, never an uncaught library exception.
  CHECK_THAT(error_of([] { read(R"({"inf": 1e400})"); }), StartsWith("x.json: /: invalid JSON"));
  // --set with such a number keeps the text as a string, which the typed accessor then rejects.
  auto r = read(R"({"tp": 1})").with_value("tp", "1e400");
  CHECK_THAT(error_of([&] { r.count("tp"); }), StartsWith("x.json: /tp: is string"));
}

TEST_CASE("reader: fractions are in the half-open interval from 0 to 1", "[core]") {
  // params.hpp: as_fraction is a number in (0, 1].
  auto r = read(R"({"a": 0.869, "one": 1, "zero": 0, "big": 1.5})");
  CHECK(r.at("a").as_fraction() == 0.869);
  CHECK(r.at("one").as_fraction() == 1.0);
  CHECK_THAT(error_of([&] { r.at("zero").as_fraction(); }), Contains("/zero: 0 is out of range"));
  CHECK_THAT(error_of([&] { r.at("big").as_fraction(); }), Contains("/big: 1.5 is out of range"));
}

TEST_CASE("reader: quantities must parse and be positive", "[core]") {
  auto r = read(R"({"bw": "300 GB/s", "zero": "0 GB/s", "neg": "-5 GB/s", "bad": "300 GB/parsec",
                    "t": "2.5 us", "b": "80 GiB", "f": "989 TFLOP/s", "fl": "5 GFLOP"})");
  CHECK(r.at("bw").as_bandwidth().value == 300e9);
  CHECK(r.at("t").as_seconds().value == Approx(2.5e-6).epsilon(1e-12));
  CHECK(r.at("b").as_bytes().value == 80.0 * 1073741824.0);
  CHECK(r.at("f").as_flops_rate().value == 989e12);
  CHECK(r.at("fl").as_flops().value == 5e9);
  // units.cpp parses "-5 GB/s" as -5e9 B/s; the reader rejects every non-positive quantity.
  CHECK_THAT(error_of([&] { r.at("neg").as_bandwidth(); }), StartsWith("x.json: /neg: '-5 GB/s' is not positive"));
  CHECK_THAT(error_of([&] { r.at("zero").as_bandwidth(); }), StartsWith("x.json: /zero: '0 GB/s' is not positive"));
  CHECK_THAT(error_of([&] { r.at("bad").as_bandwidth(); }),
             StartsWith("x.json: /bad: '300 GB/parsec' does not parse (expected a positive quantity with a unit"));
  // A size where a rate is expected does not parse.
  CHECK_THAT(error_of([&] { r.at("b").as_bandwidth(); }), Contains("'80 GiB' does not parse"));
}

TEST_CASE("reader: {value, source} wrapped values", "[core]") {
  // params.hpp: data files may write any number or quantity as {"value": ..., "source": "..."}.
  auto r = read(R"({"sms": {"value": 108, "source": "A100 whitepaper"},
                    "bw": {"value": "2039 GB/s", "source": "datasheet"},
                    "bare": {"value": 0.9},
                    "plain": 7,
                    "three": {"value": 1, "source": "s", "note": "n"}})");
  CHECK(r.count("sms") == 108);
  CHECK(r.at("sms").source() == "A100 whitepaper");
  CHECK(r.at("sms").is_number());
  CHECK(r.at("bw").as_bandwidth().value == 2039e9);
  CHECK(r.at("bw").source() == "datasheet");
  CHECK(r.at("bare").as_fraction() == 0.9);
  CHECK(r.at("bare").source().empty());
  CHECK(r.at("plain").source().empty());
  // An object with other keys is not a wrapped value.
  CHECK(r.at("three").is_object());
  CHECK_THAT(error_of([&] { r.count("three"); }), StartsWith("x.json: /three: is object"));
  // Errors inside a wrapped value name the wrapper's path.
  auto bad = read(R"({"bw": {"value": "0 GB/s", "source": "typo"}})");
  CHECK_THAT(error_of([&] { bad.at("bw").as_bandwidth(); }), StartsWith("x.json: /bw: '0 GB/s' is not positive"));
}

TEST_CASE("reader: as_choice", "[core]") {
  auto r = read(R"({"s": "1f1bb", "ok": "gpipe", "n": 3})");
  CHECK(r.at("ok").as_choice({"gpipe", "1f1b", "interleaved"}) == "gpipe");
  auto msg = error_of([&] { r.at("s").as_choice({"gpipe", "1f1b", "interleaved"}); });
  CHECK_THAT(msg, StartsWith("x.json: /s: '1f1bb' is not known"));
  CHECK_THAT(msg, Contains("did you mean '1f1b'?"));
  CHECK_THAT(msg, Contains("expected one of gpipe, 1f1b, interleaved"));
  CHECK_THAT(error_of([&] { r.at("n").as_choice({"a"}); }), StartsWith("x.json: /n: is number (expected one of a)"));
}

TEST_CASE("reader: invalid and empty JSON text", "[core]") {
  CHECK_THAT(error_of([] { read("{\"a\": ,}"); }), StartsWith("x.json: /: invalid JSON"));
  CHECK_THAT(error_of([] { read(""); }), StartsWith("x.json: /: invalid JSON"));
  // The message must stay on one line even when the bad token spans lines.
  auto multi = error_of([] { read("{\n\"a\": \"x\n\"}"); });
  CHECK(multi.find('\n') == std::string::npos);
}

TEST_CASE("reader: load_file on a missing file or a folder", "[core]") {
  auto msg = error_of([] { sim::ParamReader::load_file("/nonexistent/trainsim/none.json"); });
  CHECK_THAT(msg, StartsWith("/nonexistent/trainsim/none.json: /: no such file"));
  // A folder is not a file (an ifstream opens it on Linux; its "size" is meaningless).
  CHECK_THAT(error_of([] { sim::ParamReader::load_file(TRAINSIM_SOURCE_DIR "/test"); }),
             StartsWith(TRAINSIM_SOURCE_DIR "/test: /: is a directory"));
}

TEST_CASE("reader: directory() of the source file", "[core]") {
  CHECK(sim::ParamReader::from_text("{}", "configs/a.json").directory() == "configs");
  CHECK(sim::ParamReader::from_text("{}", "a.json").directory() == ".");
}

TEST_CASE("reader: merged_with replaces keys one level deep", "[core]") {
  // params.hpp: overlay keys replace the base's; nested objects are merged one level deep.
  auto base = sim::ParamReader::from_text(R"({"gpus": 4480, "gpu": "a100", "scale_up": {"kind": "nvswitch",
                                              "bandwidth": "300 GB/s"}})",
                                          "base.json");
  auto overlay =
      sim::ParamReader::from_text(R"({"gpus": 16, "scale_up": {"bandwidth": "600 GB/s"}, "new": 1})", "scenario.json");
  auto m = base.merged_with(overlay);
  CHECK(m.count("gpus") == 16);
  CHECK(m.string("gpu") == "a100");
  CHECK(m.at("scale_up").string("kind") == "nvswitch");
  CHECK(m.at("scale_up").string("bandwidth") == "600 GB/s");
  CHECK(m.count("new") == 1);
  // Messages about the merged value name the overlay (the file the user wrote).
  CHECK(m.file() == "scenario.json");
  // The inputs are unchanged.
  CHECK(base.count("gpus") == 4480);
  CHECK_FALSE(base.has("new"));
  // A wrapped overlay value replaces, it is not merged into the base object.
  auto wrapped = sim::ParamReader::from_text(R"({"scale_up": {"value": 3, "source": "s"}})", "o.json");
  CHECK(base.merged_with(wrapped).count("scale_up") == 3);
}

TEST_CASE("reader: an overlay object of another kind replaces the base's whole", "[core]") {
  // A torus over an NVSwitch domain keeps none of the NVSwitch's keys; the same kind merges.
  auto base = sim::ParamReader::from_text(R"({"scale_up": {"kind": "nvswitch", "bandwidth": "900 GB/s",
                                              "domain_gpus": 72}})",
                                          "base.json");
  auto torus =
      sim::ParamReader::from_text(R"({"scale_up": {"kind": "torus", "dims": [4, 4, 4], "bandwidth": "45 GB/s"}})", "o");
  auto m = base.merged_with(torus);
  CHECK(m.at("scale_up").keys() == std::vector<std::string>{"bandwidth", "dims", "kind"});
  auto same = sim::ParamReader::from_text(R"({"scale_up": {"kind": "nvswitch", "bandwidth": "450 GB/s"}})", "o");
  CHECK(base.merged_with(same).at("scale_up").count("domain_gpus") == 72);
}

TEST_CASE("reader: without_key", "[core]") {
  auto r = read(R"({"from": "x", "gpus": 16})");
  auto w = r.without_key("from");
  CHECK_FALSE(w.has("from"));
  CHECK(w.count("gpus") == 16);
  CHECK(r.has("from"));
}

TEST_CASE("reader: with_value sets dotted paths (--set)", "[core]") {
  // params.hpp: the value text is parsed as JSON, or taken as a string if it is not JSON.
  auto r = read(R"({"parallelism": {"tp": 8}, "name": "a"})");
  auto s = r.with_value("parallelism.tp", "4");
  CHECK(s.at("parallelism").count("tp") == 4);
  CHECK(r.at("parallelism").count("tp") == 8);  // the original is unchanged
  CHECK(r.with_value("name", "hello world").string("name") == "hello world");
  CHECK(r.with_value("name", "\"quoted\"").string("name") == "quoted");
  CHECK(r.with_value("parallelism.sequence_parallel", "true").at("parallelism").boolean("sequence_parallel"));
  CHECK(r.with_value("training.micro_batch", "\"auto\"").at("training").string("micro_batch") == "auto");
  // Missing intermediate objects are created.
  CHECK(r.with_value("a.b.c", "1").at("a").at("b").count("c") == 1);
  CHECK(s.file() == "x.json");
  // Paths that do not lead through objects are user errors naming --set.
  CHECK_THAT(error_of([&] { r.with_value("parallelism.tp.x", "1"); }),
             StartsWith("--set: /parallelism/tp/x: cannot set"));
  CHECK_THAT(error_of([&] { r.with_value("", "1"); }), StartsWith("--set: "));
  CHECK_THAT(error_of([&] { r.with_value("parallelism..tp", "1"); }), StartsWith("--set: "));
}

TEST_CASE("reader: a value set with with_value names paths relative to the working directory", "[core]") {
  // params.hpp, directory(): "" (the working directory) for a value set from the command line and
  // everything inside it; the file's folder for the rest, merged objects included.
  auto r = sim::ParamReader::from_text(R"({"cluster": {"gpus": 8}, "model": "m.json"})", "configs/s.json");
  auto s = r.with_value("cluster.gpu", "dev/x.json").with_value("failures", R"({"trace": "t.csv"})");
  CHECK(s.at("cluster").at("gpu").directory().empty());
  CHECK(s.at("failures").directory().empty());
  CHECK(s.at("failures").at("trace").directory().empty());
  CHECK(s.at("cluster").at("gpus").directory() == "configs");
  CHECK(s.at("cluster").directory() == "configs");
  CHECK(s.at("model").directory() == "configs");
  // A base merged under the set object keeps what was set.
  auto base = sim::ParamReader::from_text(R"({"gpu": "a100", "gpus_per_node": 8})", "topologies/t.json");
  CHECK(base.merged_with(s.at("cluster")).at("gpu").directory().empty());
  // A pointer that only starts like a set one is not inside it.
  CHECK(r.with_value("cluster.gp", "1").at("cluster").at("gpus").directory() == "configs");
  CHECK(r.with_value("model", "x").at("model").directory().empty());
}
