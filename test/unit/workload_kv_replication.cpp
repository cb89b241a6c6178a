// K/V heads over tensor parallelism (ModelSpec::rank_kv_heads): a tp that divides kv_heads shards
// them; a tp that is a multiple of kv_heads gives each rank one whole head, replicated over
// tp / kv_heads ranks (PaLM's multi-query attention at 12-way model parallelism). The closed forms
// are written out here. And tp_comm_overlap on a torus without sequence parallelism (XLA's
// collective matmul, ops.hpp): the all-reduces after the row-parallel GEMMs are pipelined with them.
#include <catch2/catch.hpp>
#include <string>

#include "sim/core/params.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/ops.hpp"
#include "test/unit/text_fill.hpp"

using namespace sim;

namespace {

Scenario palm_like(int64_t tp, int64_t kv_heads, bool overlap) {
  const std::string text = fill(R"({"kind": "scenario", "name": "kv",
    "model": {"name": "mqa", "layers": 2, "hidden": 1536, "heads": 48, "head_dim": 64, "kv_heads": {kv},
              "ffn_hidden": 6144, "vocab": 32000, "activation": "swiglu", "norm": "rmsnorm"},
    "cluster": {"from": "tpu-v4-pod", "gpus": 48, "scale_up": {"kind": "torus", "dims": [4, 12], "cube": [4, 4],
                "bandwidth": "45 GB/s", "latency": "1 us"}},
    "parallelism": {"tp": {tp}, "pp": 1, "dp": {dp}, "tp_comm_overlap": {o}},
    "training": {"seq_len": 2048, "global_batch": {dp}, "micro_batch": 1, "attention": "unfused"}})",
                                {{"kv", std::to_string(kv_heads)},
                                 {"tp", std::to_string(tp)},
                                 {"dp", std::to_string(48 / tp)},
                                 {"o", overlap ? "true" : "false"}});
  return parse_scenario(ParamReader::from_text(text, "workload_kv_replication.cpp"), TRAINSIM_SOURCE_DIR);
}

const Op& find(const std::vector<Op>& ops, const std::string& name) {
  for (const Op& op : ops)
    if (op.name == name) return op;
  FAIL("no op " << name);
  return ops.front();
}

}  // namespace

TEST_CASE("K/V heads are sharded over a tp that divides them and replicated over one they divide", "[workload]") {
  ModelSpec m;
  m.hidden = 1536, m.heads = 48, m.explicit_head_dim = 64, m.ffn_hidden = 6144, m.rmsnorm = true;
  m.activation = Activation::SWIGLU;
  m.kv_heads = 1;  // multi-query
  CHECK(m.kv_shardable(12));
  CHECK(m.rank_kv_heads(12) == 1.0);
  // One K and one V head (64 wide, from 1536) on every rank, where a 1/12 share would be sharded:
  // 11/12 of 2 x 64 x 1536 weights more per rank.
  CHECK(m.layer_params_per_rank(12) == Approx(m.layer_params() / 12 + (1.0 - 1.0 / 12) * 2 * 64 * 1536));
  m.kv_heads = 8;
  CHECK(m.rank_kv_heads(4) == 2.0);
  CHECK(m.layer_params_per_rank(4) == Approx(m.layer_params() / 4));
  CHECK(m.rank_kv_heads(16) == 1.0);  // grouped-query past the groups: each rank one whole head
  CHECK(m.layer_params_per_rank(16) == Approx(m.layer_params() / 16 + (1.0 - 8.0 / 16) * 2 * 64 * 1536));
  CHECK_FALSE(m.kv_shardable(12));  // 12 neither divides 8 nor is a multiple of it
  m.rmsnorm = false;                // with biases: each replicated head's K and V biases too
  CHECK(m.layer_params_per_rank(16) == Approx(m.layer_params() / 16 + (1.0 - 8.0 / 16) * 2 * 64 * 1537));
}

TEST_CASE("a multi-query layer at tp 12: the QKV GEMM makes a twelfth of the queries and one K and V head",
          "[workload]") {
  const Scenario sc = palm_like(12, 1, false);
  const PassOps ops = layer_ops(sc, 1);
  const Op& qkv = find(ops.forward, "qkv");
  CHECK(qkv.shape.n == Approx(48.0 * 64 / 12 + 2.0 * 64));  // 4 query heads + K + V, 64 wide each
  CHECK(qkv.shape.m == Approx(2048));
  CHECK(qkv.shape.k == Approx(1536));
  // Sharded K/V (kv_heads 48 at tp 12): four K and four V heads per rank.
  const PassOps sharded = layer_ops(palm_like(12, 48, false), 1);
  const Op& mha = find(sharded.forward, "qkv");
  CHECK(mha.shape.n == Approx(3.0 * 48 * 64 / 12));
}

TEST_CASE("tp_comm_overlap on a torus without sequence parallelism pipelines the all-reduces with their GEMMs",
          "[workload]") {
  const PassOps off = layer_ops(palm_like(12, 1, false), 1), on = layer_ops(palm_like(12, 1, true), 1);
  // Forward: the all-reduces after the projection and fc2, in tp pieces with those GEMMs.
  for (const auto& [coll, gemm] : {std::pair{"tp_attn_out", "attn_proj"}, std::pair{"tp_mlp_out", "mlp_fc2"}}) {
    const Op& c = find(on.forward, coll);
    CHECK(c.collective == CollectiveKind::ALL_REDUCE);
    CHECK(c.hidden_by == Op::HiddenBy::GEMM);
    CHECK(c.overlaps == gemm);
    CHECK(c.chunks == 12);
    CHECK(find(off.forward, coll).hidden_by == Op::HiddenBy::NOTHING);
  }
  // Backward: the input gradients' all-reduces beside the weight gradients, in bulk.
  for (const auto& [coll, gemm] :
       {std::pair{"tp_attn_in_bwd", "qkv_wgrad"}, std::pair{"tp_mlp_in_bwd", "mlp_fc1_wgrad"}}) {
    const Op& c = find(on.backward, coll);
    CHECK(c.collective == CollectiveKind::ALL_REDUCE);
    CHECK(c.overlaps == gemm);
    CHECK(c.chunks == 1);
  }
}
