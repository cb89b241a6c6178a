// The deepep dispatcher's all-to-all (collective_flows.hpp, DEEPEP; comm_plan.cpp) against
// DeepEP's published bandwidths: V1 normal kernels on H800 (NVLink 200 GB/s per direction, a
// CX7 400 Gb/s NIC per GPU), DeepSeek-V3's pre-training setting -- 4,096 tokens of 7,168 per GPU,
// top-8 of 256 experts, at most 4 nodes per token, FP8 dispatch (1 + 4/128 bytes per element with
// its scales), BF16 combine (deepseek-ai/DeepEP docs/legacy.md@dd758ca):
//   intranode EP8: dispatch 153, combine 158 GB/s (NVLink); internode EP16: 43 / 43, EP32: 58 /
//   57, EP64: 51 / 50 GB/s (RDMA).
// DeepEP's tests (tests/legacy/test_intranode.py, test_internode.py) count the bytes a GPU
// receives over NVLink, its own tokens included (recv_x), and the bytes it sends over RDMA, one
// per token and destination node, its own node included (num_rdma_token_sent): this test counts
// them alike from the routing's closed form, with experts picked uniformly (their test's random
// scores) -- and divides by the time the flows take on an idle network plus the latency. The
// NVLink rate is DeepEP's own, from the intranode dispatch (dispatcher.cpp): that one row is the
// fit; the combine and every internode row are not.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "sim/comm/comm_plan.hpp"
#include "sim/core/params.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/topology/fabric.hpp"
#include "sim/topology/placement.hpp"
#include "test/unit/text_fill.hpp"

using namespace sim;

namespace {

constexpr double TOKENS = 4096, HIDDEN = 7168, TOP_K = 8, EXPERTS = 256, NODE_LIMIT = 4;

Scenario h800(int64_t gpus) {
  const std::string text = fill(R"({"kind": "scenario", "name": "deepep", "model": "deepseek-v3",
    "cluster": {"gpu": "h100-sxm", "gpus": {gpus}, "gpus_per_node": 8,
                "scale_up": {"kind": "nvswitch", "bandwidth": "200 GB/s"},
                "scale_out": {"kind": "fat-tree", "nics_per_node": 8, "nic_bandwidth": "400 Gb/s"}},
    "parallelism": {"tp": 1, "pp": 1, "dp": {gpus}, "ep": {gpus}, "dispatcher": "deepep"},
    "training": {"seq_len": 4096, "global_batch": {gpus}, "micro_batch": 1, "recompute": "full",
                 "precision": "bf16"}})",
                                {{"gpus", std::to_string(gpus)}});
  return parse_scenario(ParamReader::from_text(text, "deepep.json"), TRAINSIM_SOURCE_DIR);
}

// ln C(n, r)
double log_choose(double n, double r) { return std::lgamma(n + 1) - std::lgamma(r + 1) - std::lgamma(n - r + 1); }

// That a token's TOP_K experts, picked among `among` experts, include one of `of` given ones.
double hits(double among, double of) {
  return 1.0 - std::exp(log_choose(among - of, TOP_K) - log_choose(among, TOP_K));
}

struct Measured {
  double dispatch = 0, combine = 0;  // GB/s, as DeepEP's tests count them
};

Measured deepep_bandwidth(int64_t ep) {
  const Scenario s = h800(ep);
  const Placement place(s.cluster, s.plan);
  const auto fabric = Fabric::of(s.cluster);
  const CommPlan plan(s, place, *fabric);
  std::vector<int64_t> members;
  for (int64_t g = 0; g < ep; ++g) members.push_back(g);
  const double nodes = double(ep) / 8.0, picked = std::min(nodes, NODE_LIMIT);
  const double among = EXPERTS * picked / nodes;  // the experts of the nodes a token picks
  Measured out;
  for (const double bytes : {1.0 + 4.0 / 128.0, 2.0}) {  // FP8 dispatch with its scales, BF16 combine
    const CommOp op = plan.collective(CollectiveKind::ALL_TO_ALL, members, Bytes(TOKENS * TOP_K * HIDDEN * bytes));
    REQUIRE(op.choice.algo == CollectiveAlgo::DEEPEP);
    const double t = op.choice.latency.value + plan.transfer_time(op.flows).value;
    CHECK(op.choice.time_idle.value == Approx(t).epsilon(1e-9));  // the closed form prices the flows
    double counted;
    if (ep == 8)  // what a GPU receives: every GPU's tokens with an expert on it
      counted = 8.0 * TOKENS * hits(EXPERTS, EXPERTS / 8.0) * HIDDEN * bytes;
    else  // what it sends over RDMA: each token once per node it goes to
      counted = TOKENS * nodes * (picked / nodes) * hits(among, EXPERTS / nodes) * HIDDEN * bytes;
    (bytes < 2.0 ? out.dispatch : out.combine) = counted / t / 1e9;
  }
  return out;
}

}  // namespace

TEST_CASE("the deepep dispatcher's all-to-all: DeepEP's bandwidths on H800 within 15%", "[comm][moe]") {
  const struct {
    int64_t ep;
    double dispatch, combine;
  } published[] = {{8, 153, 158}, {16, 43, 43}, {32, 58, 57}, {64, 51, 50}};
  for (const auto& p : published) {
    const Measured m = deepep_bandwidth(p.ep);
    INFO("EP" << p.ep << ": dispatch " << m.dispatch << " GB/s (DeepEP " << p.dispatch << "), combine " << m.combine
              << " GB/s (DeepEP " << p.combine << ")");
    CHECK(m.dispatch == Approx(p.dispatch).epsilon(0.15));
    CHECK(m.combine == Approx(p.combine).epsilon(0.15));
  }
}
