// The DownSet (degradation.hpp) under a placement other than Megatron-LM's: each node lists the
// (replica, unit) pairs its GPUs belong to, and a node failure takes that unit down in every
// replica it holds.
#include <catch2/catch.hpp>

#include "sim/reliability/degradation.hpp"

namespace rel = sim::reliability;

namespace {

// dp 4, two units per replica, data parallel inside nodes ("tp-dp-pp-cp" with tp·2 = a node):
// node 0 holds unit 0 of replicas 0 and 1, node 1 unit 0 of replicas 2 and 3, nodes 2 and 3 unit 1.
rel::Degradation dp_inside_nodes(rel::Continuing kind) {
  rel::Degradation d;
  d.kind = kind;
  d.dp = 4;
  d.units = 2;
  d.nodes = 4;
  d.node_parts = {{{0, 0}, {1, 0}}, {{2, 0}, {3, 0}}, {{0, 1}, {1, 1}}, {{2, 1}, {3, 1}}};
  return d;
}

}  // namespace

TEST_CASE("DownSet: a node holding one unit of two replicas takes two copies down", "[reliability]") {
  rel::Degradation d = dp_inside_nodes(rel::Continuing::SWARM);
  rel::DownSet s(d);
  s.add(0);
  CHECK(s.rate() == Approx(2.0 / 4.0));  // SWARM: (dp − d_max) / dp with d_max = 2
  s.add(2);                              // unit 1 of the same replicas: still two copies of each unit down
  CHECK(s.rate() == Approx(2.0 / 4.0));
  CHECK_FALSE(s.fatal());
  s.add(1);  // every copy of unit 0
  CHECK(s.fatal());
  s.remove(1);
  s.remove(0);
  s.remove(2);
  CHECK(s.empty());
  CHECK(s.rate() == 1.0);
}

TEST_CASE("DownSet: reconfigure and redundant count each replica a node holds", "[reliability]") {
  rel::Degradation r = dp_inside_nodes(rel::Continuing::RECONFIGURE);
  r.template_rate = {1.0, 0.4};
  rel::DownSet s(r);
  s.add(1);  // replicas 2 and 3 lose unit 0: Σ template_rate / dp = (1 + 1 + 0.4 + 0.4) / 4
  CHECK(s.rate() == Approx(2.8 / 4.0));
  s.add(3);  // and unit 1: no template left for them
  CHECK(s.rate() == Approx(2.0 / 4.0));

  rel::Degradation b = dp_inside_nodes(rel::Continuing::REDUNDANT);
  b.merged_rate = 0.8;
  rel::DownSet t(b);
  t.add(0);
  CHECK(t.rate() == Approx(0.8));
  CHECK_FALSE(t.fatal());
  t.add(2);  // units 0 and 1 of replicas 0 and 1: adjacent units down
  CHECK(t.fatal());
}
