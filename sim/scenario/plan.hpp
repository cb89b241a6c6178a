// The parallelism plan and training settings (DESIGN.md sections `parallelism`, `training`).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/scenario/collective_names.hpp"
#include "sim/scenario/device.hpp"
#include "sim/scenario/dispatcher.hpp"
#include "sim/scenario/elementwise.hpp"
#include "sim/scenario/fp8_library.hpp"
#include "sim/scenario/fp8_scaling.hpp"
#include "sim/scenario/low_precision_inputs.hpp"
#include "sim/scenario/offload_modules.hpp"
#include "sim/scenario/recompute_modules.hpp"
#include "sim/scenario/routing.hpp"
#include "sim/scenario/tp_library.hpp"

namespace sim {

class ParamReader;

// The largest degree of any parallel dimension (robustness, not physics).
inline constexpr int64_t MAX_PARALLEL_DEGREE = 1 << 20;

enum class Schedule { GPIPE, ONE_F_ONE_B, INTERLEAVED, ZB_H1, ZB_H2, ZB_V, DUALPIPE, DUALPIPE_V };
// SELECTIVE: Korthikanti et al.'s attention-core recompute (Megatron-LM); OP: torchtitan's per-op
// selective checkpointing (ops.hpp, "Recompute OP"); FULL: every layer from its input.
enum class Recompute { NONE, SELECTIVE, OP, FULL };
const char* to_string(Schedule s);
const char* to_string(Recompute r);

// The four dimensions a global rank is indexed by (sim/topology/placement.hpp).
enum class ParallelDim { TP, CP, PP, DP };
const char* to_string(ParallelDim d);

// A count that may be "auto" (0 means auto).
struct AutoCount {
  int64_t value = 1;
  bool is_auto() const { return value == 0; }
};

struct ParallelPlan {
  int64_t tp = 1, pp = 1, dp = 1, cp = 1, ep = 1;
  bool dp_auto = false;  // "dp": "auto": cluster.gpus / (tp*pp*cp), resolved by parse_scenario
  bool sequence_parallel = false;
  AutoCount virtual_stages{1};
  Schedule schedule = Schedule::ONE_F_ONE_B;
  bool schedule_given = false;
  int64_t zero = 0;
  // `overlap_grad_reduce`: gradient buckets reduced during the backward (grad_sync.hpp); absent:
  // true, as Megatron-Bridge's recipes set it (defaults.hpp).
  bool overlap_grad_reduce = true;
  // `overlap_param_gather`: the distributed optimizer's (ZeRO-1, -2) all-gather of the updated
  // parameters overlapped with the next forward (Megatron-Core --overlap-param-gather, which needs
  // the distributed optimizer and --overlap-grad-reduce); false: it runs after the optimizer step,
  // exposed. Absent: default_overlap_param_gather (defaults.hpp), true where it can be, as
  // Megatron-Bridge's recipes set it. Meaningless for ZeRO-0 (no gather) and ZeRO-3 (FSDP
  // prefetches its own gathers).
  bool overlap_param_gather = false;
  bool overlap_param_gather_given = false;
  // Whether the parameter all-gather runs exposed after the step (grad_sync.hpp).
  bool param_gather_exposed() const { return overlap_grad_reduce && (zero == 1 || zero == 2) && !overlap_param_gather; }
  // Overlapped (overlap_param_gather), Megatron-Core gathers a chunk's updated parameters bucket by
  // bucket as the next step's first forward of that chunk reaches them (DistributedDataParallel's
  // forward pre-hook waits for its bucket's all-gather and starts the next one's): the gradients'
  // buckets then carry their reduce-scatter alone, the forward the gathers.
  bool gathers_params_in_forward() const {
    return overlap_grad_reduce && (zero == 1 || zero == 2) && overlap_param_gather;
  }
  // `reshard_after_forward` (ZeRO-3 only): FSDP frees a unit's gathered weights after its forward
  // and gathers them again for its backward (FSDP2's default); false keeps them gathered from
  // forward to backward: one all-gather fewer per step, the weights whole at the peak. Absent: true
  // without a pipeline, false with one, as torchtitan sets it (parallelize_llama.py at 9dec370:
  // "For PP, do not reshard after forward to avoid per-microbatch all-gathers").
  std::optional<bool> reshard_after_forward;
  bool reshards_after_forward() const { return reshard_after_forward.value_or(pp == 1); }
  // `dp_shard` (ZeRO-3 only): hybrid sharding (HSDP; PyTorch FSDP's HYBRID_SHARD, torchtitan's
  // data_parallel_shard_degree, Composer's HYBRID_SHARD): the weights, gradients and optimizer
  // states are sharded over groups of dp_shard consecutive data-parallel ranks (x cp), and each
  // shard is replicated over the dp / dp_shard groups, which all-reduce its gradient. 0: dp (every
  // data-parallel rank one shard: FULL_SHARD).
  int64_t dp_shard = 0;
  // The ranks one copy of the state is sharded over (ZeRO-3: dp_shard x cp; else dp x cp), and
  // how many copies there are.
  int64_t shard_group_size() const { return (zero == 3 && dp_shard > 0 ? dp_shard : dp) * cp; }
  int64_t replicas() const { return grad_group_size() / shard_group_size(); }
  // The data-parallel traffic per parameter, in all-reduces of its gradient bytes (an all-gather or
  // a reduce-scatter is half one): ZeRO-3 gathers the weights for the forward and, resharded after
  // it, again for the backward, and reduce-scatters the gradients, 1.5 (1.0 kept gathered:
  // reshards_after_forward; Rajbhandari et al. 2020 §7); otherwise the one all-reduce.
  double reduction_passes() const { return zero == 3 ? (reshards_after_forward() ? 1.5 : 1.0) : 1.0; }
  // ZeRO-3 as DeepSpeed's stage 3 and FSDP run it under gradient accumulation, without a pipeline:
  // every microbatch gathers each unit's weights for its forward and (resharded) its backward and
  // reduce-scatters its gradients -- DeepSpeed refuses to skip the reduction ("no_sync context
  // manager is incompatible with gradient partitioning logic of ZeRO stage 3", engine.py) -- so
  // the traffic is the microbatches' times what reduction_passes counts once per step, the weights
  // gathered in their 16-bit type and the gradients reduced in theirs, overlapped with the
  // microbatch's computation (overlap_grad_reduce), each unit's gather prefetched. Without
  // overlap_grad_reduce, the no-overlap bound: all of it after the step's last backward, as
  // reduction_passes counts it in the gradient's type. With
  // hybrid sharding, or under a pipeline (torchtitan keeps the weights gathered and the gradients
  // unreduced until the last microbatch: reshard_after_forward false, and the schedule's
  // set_requires_gradient_sync), once per step as reduction_passes counts it.
  bool shards_each_microbatch() const { return zero == 3 && pp == 1 && replicas() == 1 && overlap_grad_reduce; }
  // `tp_comm_overlap`: Transformer Engine's userbuffers overlap of the sequence-parallel all-gathers
  // and reduce-scatters with the GEMMs beside them (Megatron-Core --tp-comm-overlap); on a torus,
  // XLA's collective matmul, with or without sequence parallelism; ops.hpp.
  bool tp_comm_overlap = false;
  // `tp_library` (tp_library.hpp): the library that runs tensor parallelism, Megatron-Core unless
  // the scenario says "dtensor"; with sequence parallelism it decides the copies around each
  // all-gather and reduce-scatter.
  TpLibrary tp_library = TpLibrary::MEGATRON;
  // `cp_comm`: how context parallelism exchanges keys and values (ops.hpp): around a ring, each
  // block's transfer overlapped with attention on the previous one (Megatron-Core's default
  // --cp-comm-type p2p), or gathered whole before attention (Llama 3's all-gather).
  enum class CpComm { P2P, ALL_GATHER } cp_comm = CpComm::P2P;
  // `dispatcher` (dispatcher.hpp): how an MoE layer's tokens cross the expert-parallel group.
  Dispatcher dispatcher = Dispatcher::ALLTOALL;
  // `ep_comm_overlap`: Megatron-Core's --overlap-moe-expert-parallel-comm: the interleaved
  // schedule (1F1B on pp 1) warms up one forward more and then runs each forward as a pair with an
  // earlier microbatch's backward, as DualPipe's pairs run (step_program.cpp, pair_steady_state).
  bool ep_comm_overlap = false;
  // MoE parallel folding (Megatron-Core: the attention's TP x CP x DP and the experts' ETP x EP x
  // EDP as two groupings of one pipeline stage's ranks). With ep 1 the routed experts split over tp
  // as a dense MLP does (expert tensor parallelism ETP = tp). With ep > 1 they run whole by default
  // (ETP 1, the expert_tensor_parallel_size Megatron-Bridge's MoE recipes set), and an
  // expert-parallel group is ep consecutive ranks of the stage's tp x cp x dp ranks, tp fastest
  // (cp x dp when tp is 1); or, with `etp` tp (Megatron-LM's default, --expert-tensor-parallel-size
  // unset: arguments.py sets it to the tensor-parallel size), split over the tensor-parallel group,
  // an expert-parallel group being ep ranks of equal tp index over cp x dp. The ranks of equal place
  // in their groups form the expert-data-parallel groups (EDP) that reduce the experts' gradients.
  int64_t etp = 0;  // `etp` as given; 0: absent
  int64_t expert_tp() const { return etp > 0 ? etp : ep > 1 ? 1 : tp; }
  // Whether a rank routes its own s/tp tokens (ep > 1 beside tp > 1, sequence parallel), as
  // Megatron-Core's alltoall dispatcher does, rather than the tokens gathered over tp before the
  // router (ep 1: the MoE layer between a dense MLP's all-gather and reduce-scatter). With etp tp
  // the tokens the dispatch brings are gathered over the tensor-parallel group after it (ops.cpp).
  bool routes_own_tokens() const { return ep > 1 && tp > 1; }
  // The ranks of one ETP index that the expert-parallel groups partition, and the EDP degree.
  int64_t expert_ranks() const { return tp / expert_tp() * cp * dp; }
  int64_t expert_dp() const { return expert_ranks() / ep; }
  std::vector<int64_t> layers_per_stage;  // explicit split over pp*virtual stages; empty: default
  // `placement`: the order of the dimensions in the global rank, fastest first (Megatron-LM's
  // tp-cp-pp-dp by default), and, when given as a list, the GPU of each global rank (element g is
  // global rank g's GPU; empty: GPU g runs rank g). The list is a permutation of [0, gpus),
  // checked by parse_scenario.
  std::array<ParallelDim, 4> order{ParallelDim::TP, ParallelDim::CP, ParallelDim::PP, ParallelDim::DP};
  std::vector<int64_t> gpu_of_rank;
  // `collective_algorithms`: the algorithm forced for a collective (NCCL_ALGO); absent: NCCL's
  // tuning model chooses (sim/cost/nccl_tuning.hpp).
  std::map<CollectiveKind, CollectiveAlgo> algorithms;
  bool default_placement() const;
  // The ranks that hold the same parameters (one tp index of one pipeline rank): they reduce
  // gradients together and shard ZeRO / distributed-optimizer state. Context-parallel ranks hold
  // what their data-parallel peers hold, so that is dp x cp: Megatron-Core reduces and shards over
  // the data-parallel group with context parallelism (megatron/core/optimizer/__init__.py,
  // get_megatron_optimizer: data_parallel_group = mpu.get_data_parallel_group(
  // with_context_parallel=True); the DDP gradient buffers reduce over the same group), and
  // torchtitan's FSDP shards over dp_shard x cp.
  int64_t grad_group_size() const { return dp * cp; }

  static ParallelPlan parse(const ParamReader& r);
};

struct TrainingSpec {
  int64_t seq_len = 0;
  int64_t global_batch = 0;
  AutoCount micro_batch{1};
  Recompute recompute = Recompute::NONE;
  // `recompute_modules` (recompute_modules.hpp) as given; empty: absent.
  std::vector<RecomputeModule> recompute_modules;
  // What selective recomputation reruns: the modules given, else the attention core alone
  // (Megatron-Core's default); nothing unless recompute is selective.
  std::vector<RecomputeModule> selective_modules() const {
    if (recompute != Recompute::SELECTIVE) return {};
    return recompute_modules.empty() ? std::vector<RecomputeModule>{RecomputeModule::CORE_ATTN} : recompute_modules;
  }
  bool recomputes(RecomputeModule m) const {
    if (recompute != Recompute::SELECTIVE) return false;
    if (recompute_modules.empty()) return m == RecomputeModule::CORE_ATTN;
    return std::find(recompute_modules.begin(), recompute_modules.end(), m) != recompute_modules.end();
  }
  // `offload_modules` (offload_modules.hpp): whose saved inputs go to host memory; empty: none.
  std::vector<OffloadModule> offload_modules;
  bool offloads(OffloadModule m) const {
    return std::find(offload_modules.begin(), offload_modules.end(), m) != offload_modules.end();
  }
  // `low_precision_inputs` (low_precision_inputs.hpp): saved inputs cached in fewer bits; empty: none.
  std::vector<LowPrecisionInput> low_precision_inputs;
  bool caches_low(LowPrecisionInput m) const {
    return std::find(low_precision_inputs.begin(), low_precision_inputs.end(), m) != low_precision_inputs.end();
  }
  // Whether recompute_modules already drops the input module `m` would offload (of a model with
  // latent attention, `mla`): the norms' rerun drops the QKV GEMM's input, MLA's up-projections the
  // core's Q, K and V. parse_scenario refuses such a pair; the activations copy none of it.
  bool recompute_drops(OffloadModule m, bool mla) const {
    return (m == OffloadModule::QKV_LINEAR && recomputes(RecomputeModule::LAYERNORM)) ||
           (m == OffloadModule::CORE_ATTN && mla && recomputes(RecomputeModule::MLA_UP_PROJ));
  }
  Precision precision = Precision::BF16;
  // `attention` (attention_kernels.hpp). Absent: the kernel Transformer Engine picks on the
  // device under Megatron-Core's attention_backend auto (defaults.hpp, default_attention),
  // resolved by parse_scenario once the device is known; `attention_given` says which.
  // torchtitan calls F.scaled_dot_product_attention, whose flash backend runs on A100 and H100
  // ("flash"); the published 2021-22 Megatron-LM runs (the A100 table, the GPT-3 configs) state
  // "unfused".
  Attention attention = Attention::FLASH;
  bool attention_given = false;
  // `elementwise` (elementwise.hpp): fused unless the scenario says "eager".
  Elementwise elementwise = Elementwise::FUSED;
  // `loss`: how the cross entropy runs, one of the same modes; absent: as `elementwise`. Apart
  // because frameworks compile the layers without the loss: torchtitan before 2025-04 (bbb1b61)
  // wrapped each transformer block in torch.compile and ran the loss eager ("compiling loss function
  // causes CUDA errors, turning off for now", train.py at 9dec370).
  Elementwise loss = Elementwise::FUSED;
  // `fp8_scaling` (fp8_scaling.hpp): delayed unless the scenario says "current"; an fp8 run's
  // only (parse_scenario rejects it on another precision).
  Fp8Scaling fp8_scaling = Fp8Scaling::DELAYED;
  // `fp8_library` (fp8_library.hpp): Transformer Engine unless the scenario says "torchao"; an fp8
  // run's only, as fp8_scaling.
  Fp8Library fp8_library = Fp8Library::TRANSFORMER_ENGINE;
  // `fp8_params`: the primary weights held in FP8, 1 byte per linear-layer parameter instead of 2
  // (Transformer Engine's fp8_model_init; Megatron-Core's --fp8-param-gather, NeMo's fp8_params,
  // whose distributed optimizer then gathers them in FP8). An fp8 run's with a library that keeps
  // FP8 weights only (fp8_library.hpp, caches_fp8_weights); parse_scenario rejects it otherwise.
  bool fp8_params = false;
  // `cuda_graphs`: the transformer layers' forward and backward captured in CUDA graphs and replayed
  // (Megatron-Core's --enable-cuda-graph and Transformer Engine's make_graphed_callables, NeMo's
  // enable_cuda_graph; torch.compile's mode="reduce-overhead"), so the host launches one graph per
  // pass instead of each kernel (cost/host_launch.hpp). False: each kernel launched.
  bool cuda_graphs = false;
  // `routing` (routing.hpp): how the router spreads an MoE layer's tokens; balanced unless the
  // scenario says "histogram", with `expert_load` (one non-negative share per expert), or "zipf",
  // with `routing_skew`; either with an optional `capacity_factor` (0: dropless).
  Routing routing = Routing::BALANCED;
  std::vector<double> expert_load;
  double capacity_factor = 0;
  double routing_skew = 0;  // routing zipf's exponent s
  // `grad_reduce_in_fp32`: Megatron-Core's DistributedDataParallelConfig.grad_reduce_in_fp32.
  // True: the gradient buffer (main_grad) and its reduction in fp32 -- the default, as
  // Megatron-Bridge's recipes set it (defaults.hpp), what Megatron-LM's
  // --accumulate-allreduce-grads-in-fp32 did for the 2021-22 bf16 runs, and what torchtitan's
  // FSDP reduce_dtype fp32 and Composer's DEFAULT mixed precision do. False: the
  // parameters' 16-bit type (Megatron-Core's dataclass default; Megatron-Bridge's DeepSeek-V3 and
  // Gemma 2 recipes). Halved buckets make NCCL's model choose the double binary tree for large
  // data-parallel groups, which class fidelity folds only where each group's trees keep to links
  // of their own: across the Llama 3 cluster's oversubscribed pod uplinks every group's trees meet
  // (replay.cpp, "Folding"), and a step of Llama 3 405B on 16k GPUs takes over a minute to simulate.
  bool grad_reduce_in_fp32 = true;
  // Bytes per gradient element in the buffer and on the wire: the one place that says it.
  double grad_bytes() const { return grad_reduce_in_fp32 ? 4.0 : 2.0; }
  // `adam_moments`: the type of Adam's two moments, fp32 (PyTorch's and Megatron-Core's default) or
  // bf16 (DeepSeek-V3 §3.3.3, "BF16 ... to track the first and second moments in the AdamW
  // optimizer"; Megatron-Core's precision-aware optimizer, --exp-avg-dtype/--exp-avg-sq-dtype).
  bool bf16_moments = false;
  // Bytes per parameter of each Adam moment: the one place that says it.
  double moment_bytes() const { return bf16_moments ? 2.0 : 4.0; }
  // Tokens to train ("15.6T"), for the time to train; nullopt when not given.
  std::optional<int64_t> tokens;

  static TrainingSpec parse(const ParamReader& r);
};

}  // namespace sim
