// `trainsim shapes CONFIG...`: the GEMM and attention shapes one GPU runs for each scenario (after
// "auto" settings are resolved), in the kernel suite's shapes-file format (sim/kernels/README.md):
//   gemm M N K BATCH
//   attention BATCH HEADS SEQ_LEN HEAD_DIM CAUSAL
// so the suite measures exactly what the simulator will price. Sorted, without duplicates.
#include <cstdio>
#include <set>
#include <tuple>
#include <vector>

#include "sim/cli/commands.hpp"
#include "sim/cost/compute_model.hpp"
#include "sim/plan/planner.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/ops.hpp"

namespace sim::cli {

int shapes(const std::vector<std::string>& configs) {
  using Gemm = std::tuple<int64_t, int64_t, int64_t, int64_t>;
  using Attention = std::tuple<int64_t, int64_t, int64_t, int64_t, int>;
  std::set<Gemm> gemms;
  std::set<Attention> attention;
  for (const auto& config : configs) {
    Scenario s = load_scenario(config);
    ComputeModel cm(s.cluster.device, s.training.precision);
    const int64_t mb = resolve_plan(s, cm).micro_batch;
    std::vector<PassOps> passes{layer_ops(s, mb), embedding_ops(s, mb), output_ops(s, mb), mtp_ops(s, mb)};
    if (s.model.moe) passes.push_back(layer_ops(s, mb, true));  // the experts' grouped GEMMs
    for (const PassOps& p : passes)
      for (const auto* ops : {&p.forward, &p.backward, &p.recompute})
        for (const Op& op : *ops) {
          if (op.cls == OpClass::GEMM && op.flops.value > 0)
            gemms.insert({static_cast<int64_t>(op.shape.m), static_cast<int64_t>(op.shape.n),
                          static_cast<int64_t>(op.shape.k), static_cast<int64_t>(op.shape.batch)});
          if (op.cls == OpClass::FLASH_ATTENTION)  // queries per GPU are seq_len/cp; the suite's kernel is square
            attention.insert(
                {mb, s.model.heads / s.plan.tp, static_cast<int64_t>(op.seq_len), s.model.score_head_dim(), 1});
        }
  }
  std::printf("# trainsim shapes");
  for (const auto& c : configs) std::printf(" %s", c.c_str());
  std::printf("\n");
  for (const auto& [m, n, k, b] : gemms)
    std::printf("gemm %lld %lld %lld %lld\n", static_cast<long long>(m), static_cast<long long>(n),
                static_cast<long long>(k), static_cast<long long>(b));
  for (const auto& [b, h, sl, d, causal] : attention)
    std::printf("attention %lld %lld %lld %lld %d\n", static_cast<long long>(b), static_cast<long long>(h),
                static_cast<long long>(sl), static_cast<long long>(d), causal);
  return 0;
}

}  // namespace sim::cli
