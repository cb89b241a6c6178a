// Torus collectives (sim/cost/torus_collective.hpp) priced on a torus network
// (sim/topology/torus.hpp): each phase's flows routed over the fewest hops, a phase taking its
// most loaded link direction's bytes over that link's bandwidth, phases one after another. The
// closed forms are written here: phase d of a reduce-scatter moves (k_d - 1)/k_d x S_d / 2 each
// way round its rings, S_d = S / (k_1 ... k_{d-1}), so it takes (k_d - 1)/k_d x S_d / (2B), twice
// that on a ring of two (one link for both halves); an all-gather is the same phases reversed, an
// all-reduce both. A one-dimensional torus is a bidirectional ring: NCCL's ring bytes
// (collective.hpp, ring_cost) over both links.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <stdexcept>
#include <utility>
#include <vector>

#include "sim/cost/collective.hpp"
#include "sim/cost/torus_collective.hpp"
#include "sim/topology/network.hpp"
#include "sim/topology/torus.hpp"

using namespace sim;

namespace {

const BytesPerSecond kLink(45e9);
const Bytes kBuffer(1 << 30);

double idle_time(const std::vector<int64_t>& dims, const std::vector<TorusPhase>& phases, bool wrap = true) {
  Network net;
  build_torus(net, {dims, false, kLink, Seconds(0), wrap});
  double total = 0;
  for (const TorusPhase& phase : phases) {
    std::map<std::pair<int64_t, int>, double> load;  // (link, direction) -> bytes
    for (const MemberFlow& f : phase.flows) {
      int64_t at = net.gpu[static_cast<size_t>(f.from)];
      for (int64_t l : net.route(at, net.gpu[static_cast<size_t>(f.to)])) {
        load[{l, net.links()[static_cast<size_t>(l)].a == at ? 0 : 1}] += f.bytes.value;
        at = net.other_end(l, at);
      }
    }
    double longest = 0;
    for (const auto& [link, bytes] : load)
      longest = std::max(longest, bytes / net.links()[static_cast<size_t>(link.first)].bandwidth.value);
    total += longest;
  }
  return total;
}

double closed_form(CollectiveKind kind, const std::vector<int64_t>& dims) {
  double t = 0, share = kBuffer.value;
  for (int64_t k : dims) {
    if (k == 1) continue;
    t += double(k - 1) / double(k) * share / (2 * kLink.value) * (k == 2 ? 2 : 1);
    share /= double(k);
  }
  return kind == CollectiveKind::ALL_REDUCE ? 2 * t : t;
}

}  // namespace

TEST_CASE("torus collectives on an idle torus take their closed forms", "[workload]") {
  for (const std::vector<int64_t>& dims :
       {std::vector<int64_t>{8}, {3}, {2}, {4, 4}, {2, 4}, {3, 5}, {1, 6}, {4, 4, 8}, {2, 2, 2}, {4, 8, 8}})
    for (CollectiveKind kind :
         {CollectiveKind::ALL_REDUCE, CollectiveKind::ALL_GATHER, CollectiveKind::REDUCE_SCATTER}) {
      INFO(to_string(kind) << ", " << dims.size() << " dimensions, first " << dims.front());
      const auto phases = torus_collective(kind, dims, kBuffer);
      const auto real_dims = std::count_if(dims.begin(), dims.end(), [](int64_t k) { return k > 1; });
      CHECK(static_cast<int64_t>(phases.size()) == (kind == CollectiveKind::ALL_REDUCE ? 2 : 1) * real_dims);
      CHECK(idle_time(dims, phases) == Approx(closed_form(kind, dims)).epsilon(1e-12));
    }
}

TEST_CASE("a one-dimensional torus collective is NCCL's ring over both links", "[workload]") {
  for (int64_t k : {3, 4, 8, 16})
    for (CollectiveKind kind :
         {CollectiveKind::ALL_REDUCE, CollectiveKind::ALL_GATHER, CollectiveKind::REDUCE_SCATTER}) {
      INFO(to_string(kind) << " over " << k);
      const double ring = ring_cost(kind, kBuffer, k).bytes_per_rank.value / (2 * kLink.value);
      CHECK(idle_time({k}, torus_collective(kind, {k}, kBuffer)) == Approx(ring).epsilon(1e-12));
    }
}

TEST_CASE("an all-gather's phases run a reduce-scatter's backwards", "[workload]") {
  const auto scatter = torus_collective(CollectiveKind::REDUCE_SCATTER, {4, 2, 8}, kBuffer);
  const auto gather = torus_collective(CollectiveKind::ALL_GATHER, {4, 2, 8}, kBuffer);
  REQUIRE(scatter.size() == 3);
  REQUIRE(gather.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    CHECK(scatter[i].dim == static_cast<int64_t>(i));
    CHECK(gather[i].dim == scatter[2 - i].dim);
    CHECK(gather[i].flows.size() == scatter[2 - i].flows.size());
  }
}

TEST_CASE("torus collectives refuse what they cannot run", "[workload]") {
  CHECK_THROWS_AS(torus_collective(CollectiveKind::ALL_TO_ALL, {4, 4}, kBuffer), std::invalid_argument);
  CHECK_THROWS_AS(torus_collective(CollectiveKind::ALL_REDUCE, {}, kBuffer), std::invalid_argument);
  CHECK_THROWS_AS(torus_collective(CollectiveKind::ALL_REDUCE, {2, 2, 2, 2}, kBuffer), std::invalid_argument);
  CHECK_THROWS_AS(torus_collective(CollectiveKind::ALL_REDUCE, {4, 0}, kBuffer), std::invalid_argument);
  CHECK(torus_collective(CollectiveKind::ALL_REDUCE, {1}, kBuffer).empty());
}

TEST_CASE("as one operation a torus collective keeps every link busy: the bandwidth bound on a k x ... x k torus",
          "[workload]") {
  // N chips with 2D links each: an all-reduce must send 2(N-1)/N x S from every chip, an all-gather
  // or reduce-scatter (N-1)/N x S; over its 2D links of B that takes at least bytes / (2 D B). The
  // D parts, each starting its phases in another dimension, load every link alike and meet it.
  for (const std::vector<int64_t>& dims : {std::vector<int64_t>{4, 4, 4}, {3, 3}, {8}, {5, 5, 5}})
    for (CollectiveKind kind :
         {CollectiveKind::ALL_REDUCE, CollectiveKind::ALL_GATHER, CollectiveKind::REDUCE_SCATTER}) {
      double n = 1;
      for (int64_t k : dims) n *= double(k);
      const double D = double(dims.size());
      const double bytes = (kind == CollectiveKind::ALL_REDUCE ? 2 : 1) * (n - 1) / n * kBuffer.value;
      const TorusPhase all{0, torus_collective_flows(kind, dims, kBuffer)};
      INFO(to_string(kind) << ", " << dims.size() << " dimensions of " << dims.front());
      CHECK(idle_time(dims, {all}) == Approx(bytes / (2 * D * kLink.value)).epsilon(1e-12));
    }
  // Unequal dimensions: between the bound and the phases one after another.
  const std::vector<int64_t> dims{4, 8};
  const TorusPhase all{0, torus_collective_flows(CollectiveKind::ALL_REDUCE, dims, kBuffer)};
  const double t = idle_time(dims, {all});
  CHECK(t > 2 * 31.0 / 32 * kBuffer.value / (4 * kLink.value));
  CHECK(t < closed_form(CollectiveKind::ALL_REDUCE, dims));
  CHECK(torus_steps(CollectiveKind::ALL_REDUCE, dims) == 2 * (3 + 7));
  CHECK(torus_steps(CollectiveKind::ALL_GATHER, {4, 1, 2}) == 3 + 1);
}

TEST_CASE("on a mesh a ring's closing flow crosses the whole line: a one-dimensional collective takes twice as long",
          "[workload]") {
  // A line of k >= 3 chips: each direction of every link carries the ring's own flow and a piece
  // of the closing flow running back along the line, so each phase takes twice its torus time,
  // (k - 1)/k x S / B. A line of two is its torus (one link either way).
  for (int64_t k : {3, 4, 8})
    for (CollectiveKind kind : {CollectiveKind::ALL_REDUCE, CollectiveKind::REDUCE_SCATTER}) {
      INFO(to_string(kind) << " on " << k);
      CHECK(idle_time({k}, torus_collective(kind, {k}, kBuffer), false) == Approx(2 * closed_form(kind, {k})));
    }
  CHECK(idle_time({2}, torus_collective(CollectiveKind::ALL_REDUCE, {2}, kBuffer), false) ==
        Approx(closed_form(CollectiveKind::ALL_REDUCE, {2})));
}
