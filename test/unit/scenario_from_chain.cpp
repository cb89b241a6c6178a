// Bases of bases (scenario.cpp, "from"): a cluster or model file may itself name a base with
// "from", each file's keys replacing its base's. A chain that comes back to a file it has passed
// (a.json -> b.json -> a.json) is refused naming the loop, never accepted with the inner
// "from" dropped silently.
#include <catch2/catch.hpp>
#include <string>

#include "sim/core/params.hpp"
#include "sim/scenario/scenario.hpp"
#include "test/unit/input_error_of.hpp"
#include "test/unit/temp_dir.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

const std::string DATA = TRAINSIM_SOURCE_DIR;

// The quickstart scenario with its cluster {"from": CLUSTER, "gpus": 16}.
sim::Scenario with_cluster_from(const TempDir& dir, const std::string& cluster) {
  const auto quickstart = sim::scenario_reader(DATA + "/configs/quickstart.json");
  const std::string path = dir.write("s.json", quickstart.dump());
  return sim::load_scenario(path, {{"cluster", R"({"from": ")" + cluster + R"(", "gpus": 16})"}}, DATA);
}

// dgx-a100-superpod with `extra` keys, as a file of `dir`.
std::string cluster_file(const TempDir& dir, const std::string& name, const std::string& extra) {
  const std::string base = sim::ParamReader::load_file(DATA + "/topologies/dgx-a100-superpod.json").dump();
  return dir.write(name, base.substr(0, base.size() - 1) + ", " + extra + "}");
}

}  // namespace

TEST_CASE("scenario: a from chain that loops is refused naming the loop", "[scenario]") {
  TempDir dir;
  const std::string a = cluster_file(dir, "a.json", R"("from": "b.json")");
  const std::string b = cluster_file(dir, "b.json", R"("from": "a.json")");
  const auto msg = error_of([&] { with_cluster_from(dir, a); });
  CHECK_THAT(msg, StartsWith(b + ": /from: the \"from\" chain loops: "));
  CHECK_THAT(msg, Contains("a.json -> "));
  CHECK_THAT(msg, Contains("b.json -> "));
  const std::string self = cluster_file(dir, "self.json", R"("from": "self.json")");
  CHECK_THAT(error_of([&] { with_cluster_from(dir, self); }), Contains("the \"from\" chain loops"));
}

TEST_CASE("scenario: a from chain is followed, each file over its base", "[scenario]") {
  TempDir dir;
  // inner.json names the superpod and changes its NICs; outer.json names inner.json and its storage.
  dir.write("inner.json", R"({"from": "dgx-a100-superpod", "scale_out": {"nics_per_node": 4}})");
  const std::string outer = dir.write("outer.json", R"({"from": "inner.json", "storage_bandwidth": "1 TB/s"})");
  const sim::Scenario s = with_cluster_from(dir, outer);
  CHECK(s.cluster.gpus == 16);                               // the scenario's own
  CHECK(s.cluster.storage_bandwidth.value == Approx(1e12));  // outer.json's
  CHECK(s.cluster.scale_out.nics_per_node == 4);             // inner.json's
  CHECK(s.cluster.device.name == "a100-sxm-80gb");           // the superpod's
}
