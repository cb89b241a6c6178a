// A section that is there takes effect (scenario.hpp): an empty object or array that would change
// nothing is refused, one line naming the file and its JSON path, instead of being read as "none".
// `"failures": {}` (in a file or through --set failures={}) used to mean no failures: the report
// then had no reliability section, silently.
#include <catch2/catch.hpp>
#include <string>

#include "sim/core/params.hpp"
#include "sim/scenario/scenario.hpp"
#include "test/unit/input_error_of.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

const std::string DATA = TRAINSIM_SOURCE_DIR;
const std::string QUICKSTART = DATA + "/configs/quickstart.json";

std::string refusal_of(const std::string& dotted, const std::string& value) {
  return error_of([&] { sim::parse_scenario(sim::scenario_reader(QUICKSTART, {{dotted, value}}), DATA); });
}

}  // namespace

TEST_CASE("scenario: an empty failures or recovery section is refused, not ignored", "[scenario]") {
  CHECK(refusal_of("failures", "{}") ==
        QUICKSTART +
            ": /failures: is an empty object, which would change nothing (expected a failure model: {\"kind\": "
            "\"poisson\", ...}, or no failures section)");
  CHECK_THAT(refusal_of("recovery", "{}"),
             StartsWith(QUICKSTART + ": /recovery: a recovery strategy needs a failures section"));
  // In the file itself, as DESIGN.md's template once showed it.
  const auto text = sim::ParamReader::load_file(QUICKSTART).dump();
  const auto inline_empty =
      sim::ParamReader::from_text(text.substr(0, text.size() - 1) + R"(, "failures": {}})", "s.json");
  CHECK_THAT(error_of([&] { sim::parse_scenario(inline_empty, DATA); }),
             StartsWith("s.json: /failures: is an empty object"));
}

TEST_CASE("scenario: empty lists and objects elsewhere are refused too", "[scenario]") {
  CHECK_THAT(refusal_of("step_faults", R"({"events": []})"),
             StartsWith(QUICKSTART + ": /step_faults/events: is an empty array, which would change nothing"));
  CHECK_THAT(refusal_of("parallelism.collective_algorithms", "{}"),
             StartsWith(QUICKSTART + ": /parallelism/collective_algorithms: is an empty object"));
  CHECK_THAT(refusal_of("parallelism.layers_per_stage", "[]"),
             StartsWith(QUICKSTART + ": /parallelism/layers_per_stage: is an empty array"));
  // Over a named cluster's object ("from"), an empty one replaces none of its keys.
  CHECK_THAT(refusal_of("cluster.scale_out", "{}"),
             StartsWith(QUICKSTART + ": /cluster/scale_out: is an empty object"));
  CHECK_THAT(refusal_of("cluster.scale_up", "{}"),
             Contains("(expected the keys of 'scale_up' to replace, or no 'scale_up')"));
}
