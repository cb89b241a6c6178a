// Placement (sim/topology/placement.hpp) against the formulas it promises: the default order is
// Megatron-LM's g = tp_i + tp·(cp_i + cp·(pp_i + pp·dp_i)); another order strides the dimensions
// in its own sequence; an explicit list maps global rank g to list[g]; coord() inverts gpu().
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "input_error_of.hpp"
#include "sim/core/params.hpp"
#include "sim/scenario/cluster.hpp"
#include "sim/scenario/plan.hpp"
#include "sim/topology/placement.hpp"

using namespace sim;

namespace {

ClusterSpec cluster(int64_t gpus, int64_t gpus_per_node) {
  ClusterSpec c;
  c.gpus = gpus;
  c.gpus_per_node = gpus_per_node;
  c.scale_out.nics_per_node = gpus_per_node;
  c.scale_out.pod_gpus = gpus;
  return c;
}

ParallelPlan plan(int64_t tp, int64_t cp, int64_t pp, int64_t dp, const std::string& placement = "") {
  std::string text = "{\"tp\": " + std::to_string(tp) + ", \"cp\": " + std::to_string(cp) +
                     ", \"pp\": " + std::to_string(pp) + ", \"dp\": " + std::to_string(dp);
  if (!placement.empty()) text += ", \"placement\": " + placement;
  return ParallelPlan::parse(ParamReader::from_text(text + "}", "plan.json"));
}

int64_t size(const ParallelPlan& p) { return p.tp * p.cp * p.pp * p.dp; }

template <class F>
void for_each_coord(const ParallelPlan& p, F&& f) {
  for (int64_t d = 0; d < p.dp; ++d)
    for (int64_t s = 0; s < p.pp; ++s)
      for (int64_t c = 0; c < p.cp; ++c)
        for (int64_t t = 0; t < p.tp; ++t) f(RankCoord{t, c, s, d});
}

bool same(const RankCoord& a, const RankCoord& b) {
  return a.tp == b.tp && a.cp == b.cp && a.pp == b.pp && a.dp == b.dp;
}

// gpu() and coord() are inverse over every GPU and every coordinate.
void check_inverse(const ParallelPlan& p, int64_t gpus_per_node) {
  const Placement place(cluster(size(p), gpus_per_node), p);
  std::vector<int> hits(static_cast<size_t>(size(p)), 0);
  for_each_coord(p, [&](const RankCoord& c) {
    const int64_t g = place.gpu(c);
    REQUIRE(g >= 0);
    REQUIRE(g < size(p));
    ++hits[static_cast<size_t>(g)];
    CHECK(same(place.coord(g), c));
  });
  for (int64_t g = 0; g < size(p); ++g) {
    CHECK(hits[static_cast<size_t>(g)] == 1);
    CHECK(place.gpu(place.coord(g)) == g);
  }
}

}  // namespace

TEST_CASE("placement: the default order is Megatron-LM's formula", "[topology]") {
  for (const auto& shape : std::vector<std::vector<int64_t>>{{8, 1, 4, 2}, {2, 2, 3, 4}, {1, 1, 1, 1}, {4, 2, 2, 3}}) {
    const int64_t tp = shape[0], cp = shape[1], pp = shape[2], dp = shape[3];
    for (const std::string& given : {std::string(), std::string("\"tp-cp-pp-dp\"")}) {
      const ParallelPlan p = plan(tp, cp, pp, dp, given);
      CHECK(p.default_placement());
      const Placement place(cluster(size(p), std::min<int64_t>(8, size(p))), p);
      for_each_coord(p, [&](const RankCoord& c) {
        // g = tp_i + tp·(cp_i + cp·(pp_i + pp·dp_i))
        CHECK(place.gpu(c) == c.tp + tp * (c.cp + cp * (c.pp + pp * c.dp)));
      });
    }
  }
}

TEST_CASE("placement: tp-dp-pp-cp puts a stage's data-parallel peers on consecutive GPUs", "[topology]") {
  const int64_t tp = 2, cp = 2, pp = 2, dp = 4;
  const ParallelPlan p = plan(tp, cp, pp, dp, "\"tp-dp-pp-cp\"");
  CHECK_FALSE(p.default_placement());
  const Placement place(cluster(size(p), 8), p);
  for_each_coord(p, [&](const RankCoord& c) {
    // g = tp_i + tp·(dp_i + dp·(pp_i + pp·cp_i))
    CHECK(place.gpu(c) == c.tp + tp * (c.dp + dp * (c.pp + pp * c.cp)));
  });
  // With gpus_per_node = tp·dp = 8, one stage's (and one cp index's) whole data-parallel group is
  // one node: its members are GPUs 8k .. 8k+7.
  for (int64_t s = 0; s < pp; ++s)
    for (int64_t c = 0; c < cp; ++c)
      for (int64_t d = 0; d < dp; ++d) {
        CHECK(place.same_node(place.gpu({0, c, s, 0}), place.gpu({1, c, s, d})));
        CHECK(place.gpu({1, c, s, d}) - place.gpu({0, c, s, d}) == 1);
        if (d > 0) CHECK(place.gpu({0, c, s, d}) - place.gpu({0, c, s, d - 1}) == tp);
      }
  CHECK_FALSE(place.same_node(place.gpu({0, 0, 0, 0}), place.gpu({0, 0, 1, 0})));
}

TEST_CASE("placement: gpu and coord are inverse for every order and an explicit list", "[topology]") {
  for (const char* order :
       {"\"tp-cp-pp-dp\"", "\"tp-dp-pp-cp\"", "\"tp-cp-dp-pp\"", "\"dp-pp-cp-tp\"", "\"pp-tp-dp-cp\""}) {
    INFO(order);
    check_inverse(plan(2, 3, 2, 2, order), 4);
    check_inverse(plan(4, 1, 3, 2, order), 8);
  }
  // A permutation of 24 GPUs: g -> (7 g + 5) mod 24 (7 is coprime to 24).
  std::string list = "[";
  for (int64_t g = 0; g < 24; ++g) list += (g ? ", " : "") + std::to_string((7 * g + 5) % 24);
  check_inverse(plan(2, 1, 3, 4, list + "]"), 8);
}

TEST_CASE("placement: an explicit list runs global rank g on list[g]", "[topology]") {
  const int64_t tp = 2, cp = 1, pp = 2, dp = 2;
  const std::vector<int64_t> list = {7, 0, 6, 1, 5, 2, 4, 3};
  std::string text = "[";
  for (size_t g = 0; g < list.size(); ++g) text += (g ? ", " : "") + std::to_string(list[g]);
  const ParallelPlan p = plan(tp, cp, pp, dp, text + "]");
  CHECK(p.gpu_of_rank == list);
  CHECK_FALSE(p.default_placement());
  const Placement place(cluster(8, 4), p);
  for_each_coord(p, [&](const RankCoord& c) {
    const int64_t g = c.tp + tp * (c.cp + cp * (c.pp + pp * c.dp));  // the default global rank
    CHECK(place.gpu(c) == list[static_cast<size_t>(g)]);
  });
  // Rank 0 (GPU 7, node 1) and rank 1 (GPU 0, node 0): one TP group across two nodes.
  CHECK_FALSE(place.same_node(place.gpu({0, 0, 0, 0}), place.gpu({1, 0, 0, 0})));
  // The identity list is the default placement's layout.
  const ParallelPlan id = plan(tp, cp, pp, dp, "[0, 1, 2, 3, 4, 5, 6, 7]");
  const Placement a(cluster(8, 4), id), b(cluster(8, 4), plan(tp, cp, pp, dp));
  for (int64_t g = 0; g < 8; ++g) CHECK(same(a.coord(g), b.coord(g)));
}

TEST_CASE("placement: an order names tp, cp, pp and dp once each", "[topology]") {
  const auto msg = [](const std::string& placement) { return error_of([&] { plan(1, 1, 1, 1, placement); }); };
  CHECK_THAT(msg("\"tp-cp-pp-xp\""), Catch::Contains("/placement: 'tp-cp-pp-xp': 'xp' is not a dimension"));
  CHECK_THAT(msg("\"tp-tq-pp-dp\""), Catch::Contains("(did you mean 'tp'?)"));
  CHECK_THAT(msg("\"tp-tp-pp-dp\""), Catch::Contains("'tp-tp-pp-dp' names tp twice"));
  CHECK_THAT(msg("\"tp-pp-dp\""), Catch::Contains("'tp-pp-dp' does not name cp"));
  CHECK_THAT(msg("\"tp--cp-pp-dp\""), Catch::Contains("'' is not a dimension"));
  CHECK_THAT(msg("true"), Catch::Contains("/placement: is boolean"));
  CHECK_THAT(msg("[0, -1]"), Catch::Contains("/placement/1: -1 is out of range"));
}

TEST_CASE("placement: an NVLink domain of several nodes (GB200 NVL72: 18 trays of 4 GPUs)", "[topology]") {
  // 2 racks of 72 GPUs, trays of 4: GPU g on tray g / 4, in domain g / 72. The NICs stay per tray.
  constexpr int64_t RACK = 72, TRAY = 4, GPUS = 2 * RACK;
  ClusterSpec c = cluster(GPUS, TRAY);
  c.scale_up.domain_gpus = RACK;
  CHECK(c.domain_gpus() == RACK);
  const Placement place(c, plan(16, 1, 1, GPUS / 16));
  for (int64_t g = 0; g < GPUS; g += 5) {
    CHECK(place.domain(g) == g / RACK);
    CHECK(place.node(g) == g / TRAY);
    CHECK(place.nic(g) == g);  // a NIC per GPU: tray * 4 + local
  }
  // A TP group of 16 spans trays 0-3 of rack 0: four nodes, one domain.
  CHECK_FALSE(place.same_node(place.gpu({0, 0, 0, 0}), place.gpu({15, 0, 0, 0})));
  CHECK(place.same_domain(place.gpu({0, 0, 0, 0}), place.gpu({15, 0, 0, 0})));
  CHECK(place.same_domain(0, RACK - 1));
  CHECK_FALSE(place.same_domain(RACK - 1, RACK));
  // Without domain_gpus the domain is the node.
  const Placement node(cluster(GPUS, TRAY), plan(16, 1, 1, GPUS / 16));
  for (int64_t g = 0; g < GPUS; ++g) CHECK(node.domain(g) == node.node(g));
}

TEST_CASE("cluster: domain_gpus() is the node's by default and at most the cluster and tiles it", "[topology]") {
  ClusterSpec c = cluster(144, 4);
  CHECK(c.domain_gpus() == 4);
  c.scale_up.domain_gpus = 72;
  CHECK(c.domain_gpus() == 72);
  c.gpus = 16;  // a cluster smaller than one domain is one
  CHECK(c.domain_gpus() == 16);
  c.gpus = 136;  // a degraded variant that racks of 72 do not tile: the largest domain that does, gcd(72, 136)
  CHECK(c.domain_gpus() == 8);
}
