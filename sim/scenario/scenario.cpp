#include "sim/scenario/scenario.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "sim/core/data_files.hpp"
#include "sim/core/error.hpp"
#include "sim/core/params.hpp"
#include "sim/core/text_escape.hpp"
#include "sim/scenario/defaults.hpp"
#include "sim/scenario/dispatcher.hpp"
#include "sim/scenario/fp8_scaling.hpp"
#include "sim/scenario/reliability_cluster.hpp"
#include "sim/scenario/schedules.hpp"
#include "sim/scenario/schema.hpp"

namespace sim {

namespace {

// Bases of bases ("from"): the shipped files use one; a longer chain is a mistake.
constexpr size_t MAX_FROM_CHAIN = 16;

// "llama3-405b" -> models/llama3-405b.json; "x.json" or "dir/x" -> relative to the naming file's
// folder (the working directory for a name given with --set: ParamReader::directory) first, then
// to the data folder. A file may itself name a base with "from" (below); `chain`
// holds the files on the way here, so that a loop is named instead of followed.
ParamReader resolve(const ParamReader& ref, const std::string& data_dir, const std::string& folder,
                    std::vector<std::string>& chain);

// An object that names a base file with "from": that file (its own "from" followed) with this
// object's keys replacing its own; any other object as it is.
ParamReader derive(const ParamReader& s, const std::string& data_dir, const std::string& folder,
                   std::vector<std::string>& chain) {
  s.expect_object();
  auto from = s.find("from");
  if (!from) return s;
  auto base = resolve(*from, data_dir, folder, chain);
  base.expect_object();
  // An empty object over one of the base's replaces none of its keys: it would change nothing.
  for (const auto& key : s.keys())
    if (base.find(key) && base.at(key).is_object())
      s.at(key).expect_not_empty("the keys of '" + key + "' to replace, or no '" + key + "'");
  return base.merged_with(s).without_key("from");
}

ParamReader resolve(const ParamReader& ref, const std::string& data_dir, const std::string& folder,
                    std::vector<std::string>& chain) {
  const std::string name = ref.as_string();
  const std::string base_dir = ref.directory();
  const std::string path = find_data_file(name, folder, data_dir, base_dir);
  if (path.empty()) {
    const auto [what, expected] =
        missing_data_file(name, folder == "models" ? "model" : "cluster", folder, data_dir, base_dir);
    ref.fail(what, expected);
  }
  std::error_code error;
  const std::string id = std::filesystem::weakly_canonical(path, error).string();
  const std::string key = error ? path : id;
  if (std::find(chain.begin(), chain.end(), key) != chain.end()) {
    std::string loop;
    for (auto it = std::find(chain.begin(), chain.end(), key); it != chain.end(); ++it) loop += *it + " -> ";
    ref.fail("the \"from\" chain loops: " + loop + key, "a chain of bases that ends in a file without \"from\"");
  }
  if (chain.size() >= MAX_FROM_CHAIN)
    ref.fail("the \"from\" chain is more than " + std::to_string(MAX_FROM_CHAIN) + " files long",
             "at most " + std::to_string(MAX_FROM_CHAIN) + " bases, one after another");
  chain.push_back(key);
  auto file = ParamReader::load_file(path);
  return file.is_object() ? derive(file, data_dir, folder, chain) : file;
}

ParamReader section(const ParamReader& r, const std::string& key, const std::string& data_dir,
                    const std::string& folder) {
  auto s = r.at(key);
  std::vector<std::string> chain;
  if (s.is_string()) return resolve(s, data_dir, folder, chain);
  if (!s.is_object())
    s.fail("is neither a name nor an object",
           "a name in the data folder's " + folder + "/, a path to a JSON file, or an object");
  return derive(s, data_dir, folder, chain);
}

std::string i2s(int64_t v) { return std::to_string(v); }

// "dp": "auto" takes the GPUs that tp, pp and cp leave.
void resolve_dp(Scenario& s, const ParamReader& r) {
  auto& p = s.plan;
  if (!p.dp_auto) return;
  const int64_t others = p.tp * p.pp * p.cp;  // each at most 2^20, so 2^60 at most
  if (s.cluster.gpus % others != 0)
    r.at("parallelism")
        .at("dp")
        .fail("\"auto\" needs tp*pp*cp = " + i2s(others) + " to divide the cluster's " + i2s(s.cluster.gpus) + " GPUs",
              "tp*pp*cp a divisor of cluster.gpus, or a number");
  p.dp = s.cluster.gpus / others;
}

// An explicit placement list: a permutation of the cluster's GPUs, one per global rank.
void check_placement(const Scenario& s, const ParamReader& par) {
  auto pl = par.find("placement");
  if (!pl || !pl->is_array()) return;
  const auto& list = s.plan.gpu_of_rank;
  const int64_t gpus = s.cluster.gpus, n = static_cast<int64_t>(list.size());
  const std::string expected =
      "one GPU per global rank: " + i2s(gpus) + " entries, each of [0, " + i2s(gpus) + ") once";
  if (n > gpus) pl->fail(i2s(n) + " GPUs listed for the plan's " + i2s(gpus) + " global ranks", expected);
  std::vector<int64_t> rank_on(static_cast<size_t>(gpus), -1);
  for (int64_t g = 0; g < n; ++g) {
    const int64_t gpu = list[static_cast<size_t>(g)];
    const auto at = (*pl)[static_cast<size_t>(g)];
    if (gpu >= gpus) at.fail("GPU " + i2s(gpu) + " is out of range", "a GPU in [0, " + i2s(gpus) + ")");
    int64_t& other = rank_on[static_cast<size_t>(gpu)];
    if (other >= 0) at.fail("ranks " + i2s(other) + " and " + i2s(g) + " both run on GPU " + i2s(gpu), "each GPU once");
    other = g;
  }
  if (n < gpus) {
    const auto missing = std::find(rank_on.begin(), rank_on.end(), -1) - rank_on.begin();
    pl->fail(i2s(n) + " GPUs listed for the plan's " + i2s(gpus) + " global ranks (GPU " + i2s(missing) + " runs none)",
             expected);
  }
}

void cross_check(const Scenario& s, const ParamReader& r) {
  const auto& p = s.plan;
  const auto& m = s.model;
  auto par = r.at("parallelism");
  // Each degree may be up to 2^20 (plan.cpp), so four of them can overflow int64.
  int64_t product = 1;
  bool overflow = false;
  for (int64_t d : {p.tp, p.pp, p.dp, p.cp}) {
    overflow = overflow || product > INT64_MAX / d;
    if (!overflow) product *= d;
  }
  if (overflow || product != s.cluster.gpus)
    par.fail("tp*pp*dp*cp = " + i2s(p.tp) + "*" + i2s(p.pp) + "*" + i2s(p.dp) + "*" + i2s(p.cp) + " = " +
                 (overflow ? std::string("more than 2^63") : i2s(product)) + " but the cluster has " +
                 i2s(s.cluster.gpus) + " GPUs",
             "tp*pp*dp*cp = cluster.gpus");
  check_placement(s, par);
  for (const auto& [kind, algo] : p.algorithms)
    if ((algo == CollectiveAlgo::NVLS || algo == CollectiveAlgo::NVLS_TREE) && !s.cluster.nvls())
      par.at("collective_algorithms")
          .at("all_reduce")  // NVLS runs all-reduces only (plan.cpp refuses it for the others)
          .fail(std::string("'") + to_string(algo) + "' needs NVLink SHARP, which " +
                    (s.cluster.scale_up.nvls ? "device " + s.cluster.device.name + " has not"
                                             : std::string("cluster.scale_up.nvls turns off")),
                "ring, tree or \"auto\"");
  if (m.heads % p.tp != 0)
    par.at("tp").fail(i2s(p.tp) + " does not divide heads=" + i2s(m.heads), "a divisor of the model's heads");
  if (!m.kv_shardable(p.tp))
    par.at("tp").fail(i2s(p.tp) + " neither divides nor is a multiple of kv_heads=" + i2s(m.kv_heads),
                      "a divisor or a multiple of the model's kv_heads");
  if (m.ffn_hidden % p.tp != 0)
    par.at("tp").fail(i2s(p.tp) + " does not divide ffn_hidden=" + i2s(m.ffn_hidden), "a divisor of ffn_hidden");
  // The experts' tensor parallelism: whole experts or split over the tensor-parallel group, that
  // group's ranks gathering what the dispatch brings (ops.cpp), as the alltoall dispatcher does.
  if (p.etp > 0) {
    const ParamReader etp = par.at("etp");
    if (!m.moe) etp.fail("splits experts, and model " + m.name + " has none (moe)", "no etp for a dense model");
    if (p.etp != 1 && p.etp != p.tp)
      etp.fail(i2s(p.etp) + " is neither 1 nor tp=" + i2s(p.tp) +
                   " (an expert split over part of the tensor-parallel "
                   "group is not modelled)",
               "1 (whole experts) or " + i2s(p.tp));
    if (p.ep == 1 && p.etp != p.tp)
      etp.fail("with ep 1 every rank holds its tp share of every expert, as of a dense MLP",
               i2s(p.tp) + " (= tp), or ep > 1");
    if (p.ep > 1 && p.etp > 1 && p.dispatcher != Dispatcher::ALLTOALL)
      etp.fail("experts split over tp " + i2s(p.etp) + " under the '" + dispatcher(p.dispatcher).name +
                   "' dispatcher are not modelled (the alltoall dispatcher's gather over tp is)",
               "etp 1, or dispatcher alltoall");
  }
  if (m.moe && m.moe->expert_ffn_hidden % p.expert_tp() != 0)  // each rank its tp share of every expert
    par.at(p.etp > 0 ? "etp" : "tp")
        .fail(i2s(p.expert_tp()) + " does not divide moe.expert_ffn_hidden=" + i2s(m.moe->expert_ffn_hidden),
              "a divisor of the experts' FFN width");
  if (p.ep > 1 && !m.moe) par.at("ep").fail("expert parallelism needs an MoE model", "ep = 1 for a dense model");
  // Expert parallelism (ops.cpp, moe_mlp_ops; ring_channels.hpp, the expert-parallel and expert-
  // data-parallel groups): folded over tp x cp x dp (ParallelPlan::expert_tp). Beside tensor
  // parallelism it needs sequence parallelism, as Megatron-Core asserts for MoE with tp > 1. What
  // it does not model yet is refused: hybrid sharding (whose replicas would reduce the experts
  // over yet another group).
  const std::string expert_ranks = p.expert_tp() < p.tp ? "tp*dp*cp" : "dp*cp";
  if (p.expert_ranks() % p.ep != 0)
    par.at("ep").fail(i2s(p.ep) + " does not divide " + expert_ranks + "=" + i2s(p.expert_ranks()),
                      "a divisor of " + expert_ranks);
  if (m.moe && p.ep > 1 && p.tp > 1 && !p.sequence_parallel)
    par.at("ep").fail("expert parallelism beside tensor parallelism (tp " + i2s(p.tp) +
                          ") needs sequence parallelism (Megatron-Core runs MoE with tp > 1 only so)",
                      "\"sequence_parallel\": true, or ep 1");
  if (dispatcher(p.dispatcher).own_kernels()) {
    const std::string name = dispatcher(p.dispatcher).name;
    if (s.cluster.scale_up.chip_grid())
      par.at("dispatcher")
          .fail("'" + name + "' forwards tokens over NVSwitch nodes' NVLink, which this cluster's " +
                    s.cluster.scale_up.kind + " scale-up does not have",
                "alltoall or allgather");
    if (p.algorithms.count(CollectiveKind::ALL_TO_ALL))
      par.at("collective_algorithms")
          .at("all_to_all")
          .fail("the '" + name + "' dispatcher runs the all-to-alls with its own kernels",
                "\"auto\" with dispatcher " + name + ", or another dispatcher");
  }
  if (m.moe && p.ep > 1 && p.zero == 3 && p.dp_shard > 0 && p.dp_shard != p.dp)
    par.at("ep").fail("expert parallelism under hybrid sharding (dp_shard " + i2s(p.dp_shard) + " of dp " + i2s(p.dp) +
                          ") is not modelled yet",
                      "dp_shard absent (FSDP over all of dp) with ep > 1, or ep 1");
  // Megatron-Core refuses --overlap-moe-expert-parallel-comm without expert parallelism, with the
  // allgather dispatcher, under full recomputation, and on a pipeline without virtual stages; on pp 1
  // it pairs 1F1B's microbatches.
  if (p.ep_comm_overlap) {
    const auto overlap = par.at("ep_comm_overlap");
    if (p.ep == 1 || !m.moe)
      overlap.fail("overlaps expert-parallel all-to-alls, and this plan has none (ep = " + i2s(p.ep) + ")",
                   "ep > 1 on an MoE model with it, or no ep_comm_overlap");
    if (p.dispatcher == Dispatcher::ALLGATHER)
      overlap.fail("pairs all-to-alls with computation; the allgather dispatcher has none",
                   "dispatcher alltoall or deepep with it");
    if (s.training.recompute == Recompute::FULL)
      overlap.fail("Megatron-Core runs it without full recomputation", "recompute none or selective with it");
    if (p.pp == 1 && p.schedule != Schedule::ONE_F_ONE_B)
      overlap.fail(
          "on pp 1 pairs each microbatch's forward with the backward of the one before (combined_1f1b.py); "
          "'" +
              std::string(to_string(p.schedule)) + "' runs every forward first",
          "schedule 1f1b (the default) on pp 1");
    if (p.pp > 1 && p.schedule != Schedule::INTERLEAVED)
      overlap.fail(
          "pairs the steady state of the interleaved schedule (Megatron-Core asks for virtual stages "
          "on a pipeline); '" +
              std::string(to_string(p.schedule)) + "' is not it",
          "schedule interleaved");
  }
  if (m.moe && m.moe->experts % p.ep != 0)
    par.at("ep").fail(i2s(p.ep) + " does not divide experts=" + i2s(m.moe->experts), "a divisor of moe.experts");
  if (s.training.seq_len % (p.cp > 1 ? 2 * p.cp : 1) != 0)
    par.at("cp").fail("seq_len=" + i2s(s.training.seq_len) + " does not split into 2*cp chunks",
                      "seq_len divisible by 2*cp");
  // A ring's blocks of keys under a sliding window (which blocks a window reaches) are not modelled.
  if (p.cp > 1 && m.sliding_window > 0)
    par.at("cp").fail(i2s(p.cp) + " splits the sequence of a model with a sliding window (sliding_window=" +
                          i2s(m.sliding_window) + "), which trainsim does not model",
                      "cp 1 for a sliding-window model");
  if (p.overlap_param_gather_given && p.overlap_param_gather && (p.zero == 0 || p.zero == 3 || !p.overlap_grad_reduce))
    par.at("overlap_param_gather")
        .fail(p.zero == 0   ? "needs the distributed optimizer's parameter all-gather, and zero is 0"
              : p.zero == 3 ? "is the distributed optimizer's (zero 1 or 2); zero 3 (FSDP) prefetches its own gathers"
                            : "needs overlap_grad_reduce (Megatron-Core overlaps the gather only with it)",
              "zero 1 or 2 with \"overlap_grad_reduce\": true, or no overlap_param_gather");
  if (p.dp_shard > 0 && p.dp_shard != p.dp) {
    if (p.zero != 3)
      par.at("dp_shard")
          .fail(fmt::format("shards ZeRO-3's (FSDP's) state, and zero is {}", p.zero),
                "zero 3, or no dp_shard (or dp_shard = dp)");
    if (p.dp % p.dp_shard != 0)
      par.at("dp_shard").fail(i2s(p.dp_shard) + " does not divide dp=" + i2s(p.dp), "a divisor of dp");
  }
  if (p.reshard_after_forward && p.zero != 3)
    par.at("reshard_after_forward")
        .fail(fmt::format("is ZeRO-3's (FSDP's) setting, and zero is {}", p.zero),
              "zero 3, or no reshard_after_forward");
  // Megatron-Core asserts both (megatron/training/arguments.py: "Tensor parallel communication/GEMM
  // overlap can happen only when sequence parallelism is enabled"); XLA on a torus needs only tp.
  if (p.tp_comm_overlap && (p.tp < 2 || (!p.sequence_parallel && !s.cluster.scale_up.overlaps_tp_without_sp())))
    par.at("tp_comm_overlap")
        .fail(p.tp < 2 ? "needs tensor parallelism (tp=1)" : "needs sequence_parallel",
              "tp > 1 and \"sequence_parallel\": true, or no tp_comm_overlap");
  if (p.tp_library == TpLibrary::DTENSOR) {
    // tp_comm_overlap is Transformer Engine's userbuffers overlap (and XLA's collective matmul);
    // PyTorch's own (async tensor parallelism) is not modelled.
    if (s.cluster.scale_up.xla_runtime())
      par.at("tp_library")
          .fail("is PyTorch's, and this cluster's runtime is XLA (a torus or mesh scale-up)",
                "\"tp_library\": \"megatron\", or no tp_library");
    if (p.tp_comm_overlap)
      par.at("tp_library")
          .fail(
              "is given with tp_comm_overlap, which models Transformer Engine's userbuffers; PyTorch's async "
              "tensor parallelism is not modelled",
              "\"tp_library\": \"megatron\", or no tp_comm_overlap");
  }
  if (p.sequence_parallel && s.training.seq_len % p.tp != 0)
    par.at("sequence_parallel")
        .fail("seq_len=" + i2s(s.training.seq_len) + " is not divisible by tp=" + i2s(p.tp), "seq_len divisible by tp");
  auto tr = r.at("training");
  const auto& t = s.training;
  int64_t mb = t.micro_batch.is_auto() ? 1 : t.micro_batch.value;
  if (t.global_batch % (p.dp * mb) != 0)
    (t.micro_batch.is_auto() || !tr.has("micro_batch") ? tr.at("global_batch") : tr.at("micro_batch"))
        .fail("global_batch=" + i2s(t.global_batch) + " is not divisible by dp*micro_batch=" + i2s(p.dp * mb),
              "global_batch divisible by dp*micro_batch");
  if (s.cluster.device.dense_peak.count(t.precision) == 0)
    tr.at("precision")
        .fail("device " + s.cluster.device.name + " has no " + to_string(t.precision) + " peak",
              "a precision the device supports");
  for (const char* key : {"fp8_scaling", "fp8_library", "fp8_params"})
    if (tr.has(key) && t.precision != Precision::FP8)
      tr.at(key).fail(fmt::format("is an fp8 run's setting, and this run's precision is {}", to_string(t.precision)),
                      fmt::format("\"precision\": \"fp8\", or no {}", key));
  if (t.fp8_params && !fp8_library(t.fp8_library).caches_fp8_weights)
    tr.at("fp8_params")
        .fail(fmt::format("keeps the weights in FP8, which {} does not", fp8_library(t.fp8_library).name),
              "\"fp8_library\": \"te\", or no fp8_params");
  if (t.precision == Precision::FP8 && t.fp8_scaling == Fp8Scaling::MXFP8 &&
      s.cluster.device.compute_capability < MXFP8_COMPUTE_CAPABILITY)
    tr.at("fp8_scaling")
        .fail(fmt::format("'mxfp8' needs block-scaled tensor cores (compute capability 10.0, Blackwell); device {} {}",
                          s.cluster.device.name,
                          s.cluster.device.compute_capability > 0
                              ? fmt::format("is {}.{}", s.cluster.device.compute_capability / 10,
                                            s.cluster.device.compute_capability % 10)
                              : std::string("gives no compute capability")),
              "fp8_scaling delayed, current or blockwise, or a Blackwell device");
  if (t.precision == Precision::FP8 && s.cluster.device.dense_peak.count(Precision::BF16) == 0)
    tr.at("precision")
        .fail("device " + s.cluster.device.name +
                  " has no bf16 peak, and an fp8 run keeps attention and the output layer in bf16",
              "a device profile with both fp8 and bf16 peaks");
  if (fused(t.attention) && !s.cluster.device.attention_curve(t.attention)) {
    const AttentionKernel& k = attention_kernel(t.attention);
    (t.attention_given ? tr.at("attention") : tr)
        .fail(fmt::format("device {} has no {} efficiency in its profile for the '{}' kernel{}", s.cluster.device.name,
                          attention_kernel(curve_kernel(t.attention)).profile_key, k.name,
                          t.attention_given ? "" : ", the default attention on it (no \"attention\" given)"),
              "\"attention\": \"unfused\", another fused kernel the profile prices, or a device profile with "
              "published figures for this one");
  }
  // torchtitan's per-op checkpointing (recompute "op") saves SDPA's output and, with tensor
  // parallelism, the reduce-scatters' outputs of its sequence-parallel plan.
  // training.recompute_modules: selective recomputation's, each a part the model has.
  if (tr.has("recompute_modules") && t.recompute != Recompute::SELECTIVE)
    tr.at("recompute_modules")
        .fail(fmt::format("are what recompute \"selective\" reruns; this run's recompute is \"{}\"",
                          to_string(t.recompute)),
              "\"recompute\": \"selective\", or no recompute_modules");
  int64_t dense = 0;  // the model's layers without experts
  for (int64_t l = 0; l < m.layers && !t.recompute_modules.empty(); ++l) dense += m.moe_layer(l) ? 0 : 1;
  for (size_t i = 0; i < t.recompute_modules.size(); ++i) {
    const RecomputeModule module = t.recompute_modules[i];
    const char* missing = module == RecomputeModule::MLA_UP_PROJ && !m.mla ? "no latent attention (mla)"
                          : module == RecomputeModule::MLP && dense == 0   ? "no dense layer"
                          : module == RecomputeModule::MOE_ACT && !m.moe   ? "no experts (moe)"
                          : module == RecomputeModule::SHARED_EXPERTS && (!m.moe || m.moe->shared_experts == 0)
                              ? "no shared experts"
                              : nullptr;
    if (missing)
      tr.at("recompute_modules")[i].fail(
          fmt::format("'{}' reruns a part model {} has not: it has {}",
                      registry_entry(recompute_module_entries(), module).name, m.name, missing),
          "modules of parts the model has");
  }
  // training.offload_modules: over a host link the cluster states, of parts the model has and
  // keeps (a part recomputed keeps nothing to copy), under recompute none or selective.
  if (!t.offload_modules.empty()) {
    const ParamReader modules = tr.at("offload_modules");
    if (s.cluster.host_link.value <= 0)
      modules.fail("go to host memory over the host link, and the cluster states none",
                   "a cluster.host_link (e.g. \"55 GB/s\", PCIe Gen5 x16), or no offload_modules");
    if (t.recompute == Recompute::FULL || t.recompute == Recompute::OP)
      modules.fail(fmt::format("copy saved inputs that recompute \"{}\" does not keep", to_string(t.recompute)),
                   "recompute \"none\" or \"selective\" with them");
    for (size_t i = 0; i < t.offload_modules.size(); ++i) {
      const OffloadModule module = t.offload_modules[i];
      const std::string name = registry_entry(offload_module_entries(), module).name;
      if (offload_module_needs_moe(module) && !m.moe)
        modules[i].fail(fmt::format("'{}' copies a part model {} has not: it has no experts (moe)", name, m.name),
                        "modules of parts the model has");
      if (t.recompute_drops(module, m.mla.has_value()))
        modules[i].fail(fmt::format("'{}' copies an input that recompute_modules reruns instead of keeping", name),
                        "a module either offloaded or recomputed");
    }
  }
  // training.low_precision_inputs: of parts the model has, under a recompute that keeps them.
  if (!t.low_precision_inputs.empty()) {
    const ParamReader inputs = tr.at("low_precision_inputs");
    if (t.recompute == Recompute::FULL || t.recompute == Recompute::OP)
      inputs.fail(fmt::format("caches saved inputs that recompute \"{}\" does not keep", to_string(t.recompute)),
                  "recompute \"none\" or \"selective\" with them");
    for (size_t i = 0; i < t.low_precision_inputs.size(); ++i) {
      const LowPrecisionInput input = t.low_precision_inputs[i];
      if (low_precision_input_needs_moe(input) && !m.moe)
        inputs[i].fail(fmt::format("'{}' is an input of a part model {} has not: it has no experts (moe)",
                                   registry_entry(low_precision_input_entries(), input).name, m.name),
                       "inputs of parts the model has");
    }
  }
  if (t.recompute == Recompute::OP && !fused(t.attention))
    tr.at("recompute")
        .fail("'op' (torchtitan's per-op checkpointing) saves the fused attention kernel's output",
              "a fused attention (\"flash\" or \"cudnn\") with it, or another recompute");
  if (t.recompute == Recompute::OP && p.tp > 1 && !p.sequence_parallel)
    tr.at("recompute")
        .fail("'op' with tp > 1 follows torchtitan's tensor-parallel plan, which is sequence parallel",
              "\"sequence_parallel\": true with it, or another recompute");
  // None of MoE, latent-attention and multi-token prediction layers with torchtitan's per-op
  // checkpointing, whose saved matmuls are a dense block's.
  const bool moe_like = m.moe || m.mla || m.mtp_layers > 0;
  const char* moe_keys = m.moe ? "\"moe\"" : m.mla ? "\"mla\"" : "\"mtp_layers\"";
  // Routing (routing.hpp): a histogram or a Zipf draw of an MoE model's experts, each key only with
  // the routing it serves.
  const std::string routing = registry_entry(routings(), t.routing).name;
  if (t.routing != Routing::BALANCED && !m.moe)
    tr.at("routing").fail("'" + routing + "' spreads an MoE layer's tokens; this model has none", "\"balanced\"");
  if (t.routing == Routing::HISTOGRAM) {
    if (t.expert_load.empty())
      tr.at("routing").fail("'histogram' needs training.expert_load, one share per expert",
                            "an expert_load list, or routing \"balanced\"");
    if (static_cast<int64_t>(t.expert_load.size()) != m.moe->experts)
      tr.at("expert_load")
          .fail(i2s(static_cast<int64_t>(t.expert_load.size())) + " shares for the model's " + i2s(m.moe->experts) +
                    " experts",
                "one share per expert");
  }
  if (t.routing == Routing::ZIPF && !tr.has("routing_skew"))
    tr.at("routing").fail("'zipf' needs training.routing_skew, the exponent s of its 1/rank^s popularity",
                          "a routing_skew (e.g. 1.0), or routing \"balanced\"");
  const auto only = [&](const char* key, bool applies, const std::string& which) {
    if (tr.has(key) && !applies)
      tr.at(key).fail("applies to routing " + which + " only; this scenario's routing is " + routing,
                      "routing " + which + " with it, or no " + key);
  };
  only("expert_load", t.routing == Routing::HISTOGRAM, "\"histogram\"");
  only("routing_skew", t.routing == Routing::ZIPF, "\"zipf\"");
  only("capacity_factor", t.routing != Routing::BALANCED, "\"histogram\" or \"zipf\"");
  if (moe_like && t.recompute == Recompute::OP)
    tr.at("recompute")
        .fail(fmt::format("'op' (torchtitan's per-op checkpointing of a dense block) is not simulated for a model "
                          "with {}",
                          moe_keys),
              "\"none\", \"selective\" or \"full\"");
  if (p.virtual_stages.value > 1 && p.pp == 1)
    par.at("virtual_stages").fail("virtual stages need pipeline parallelism (pp = 1)", "1 or \"auto\" when pp = 1");
  const ScheduleChoice& schedule = schedule_choice(p.schedule);
  const bool v_shape = schedule.v_shape;  // two chunks per rank in a V (schedule.hpp)
  const std::string name = to_string(p.schedule);
  if (v_shape && p.pp == 1)
    par.at("schedule")
        .fail("'" + name + "' runs a V of two stages on each rank of a pipeline; pp is 1", "pp > 1 with " + name);
  if (schedule.two_copies && p.pp % 2 != 0)
    par.at("pp").fail("'" + name + "' pairs rank r with rank pp-1-r; pp is " + i2s(p.pp) + ", odd",
                      "an even pp with " + name);
  if (v_shape && !p.virtual_stages.is_auto() && p.virtual_stages.value != 2)
    par.at(par.has("virtual_stages") ? "virtual_stages" : "schedule")
        .fail("'" + name + "' runs two chunks per rank, in a V", "virtual_stages 2 (or \"auto\") with " + name);
  if (p.pp > 1 && !t.micro_batch.is_auto() && !schedule.runs(p.pp, t.global_batch / (p.dp * mb)))
    tr.at(tr.has("global_batch") ? "global_batch" : "micro_batch")
        .fail("'" + name + "' runs at least " + i2s(schedule.min_microbatches_per_rank * p.pp) +
                  (schedule.even_microbatches ? ", and an even number of," : "") + " microbatches per step on pp=" +
                  i2s(p.pp) + "; global_batch/(dp*micro_batch) is " + i2s(t.global_batch / (p.dp * mb)),
              "global_batch/(dp*micro_batch) >= " + i2s(schedule.min_microbatches_per_rank * p.pp) +
                  (schedule.even_microbatches ? " and even" : ""));
  if (p.schedule_given && p.virtual_stages.value > 1 && p.schedule != Schedule::INTERLEAVED && !v_shape)
    par.at("schedule")
        .fail(std::string("'") + to_string(p.schedule) + "' cannot run virtual stages",
              "\"interleaved\" when virtual_stages > 1");
  if (p.schedule_given && p.schedule == Schedule::INTERLEAVED && p.virtual_stages.value == 1)
    par.at("schedule").fail("'interleaved' needs virtual_stages > 1", "\"1f1b\", or virtual_stages > 1");
  if (!v_shape && !p.virtual_stages.is_auto() && p.virtual_stages.value > 1 && !t.micro_batch.is_auto() &&
      (t.global_batch / (p.dp * mb)) % p.pp != 0)
    par.at("virtual_stages")
        .fail("the interleaved schedule needs the microbatch count (" + i2s(t.global_batch / (p.dp * mb)) +
                  ") to be a multiple of pp=" + i2s(p.pp),
              "global_batch/(dp*micro_batch) divisible by pp");
}

}  // namespace

Scenario parse_scenario_sections(const ParamReader& r, const std::string& data_dir) {
  schema_expect_keys(r, "");
  if (auto k = r.find("kind")) k->as_choice(schema_choices("/kind"));
  Scenario s;
  s.file = r.file();
  s.pointer = r.path();
  s.name = schema_value(r, "/name")->as_string();
  s.seed = static_cast<uint64_t>(schema_count(r, "/seed"));
  s.model = ModelSpec::parse(section(r, "model", data_dir, "models"));
  s.cluster = ClusterSpec::parse(section(r, "cluster", data_dir, "topologies"), data_dir);
  s.plan = ParallelPlan::parse(r.at("parallelism"));
  s.training = TrainingSpec::parse(r.at("training"));
  if (!s.training.attention_given) s.training.attention = default_attention(s.cluster.device);
  if (auto f = r.find("step_faults")) s.step_faults = StepFaults::parse(*f, s.cluster, s.seed);
  if (s.plan.pp == 1 && s.plan.virtual_stages.is_auto()) s.plan.virtual_stages.value = 1;
  if (!s.plan.schedule_given && s.plan.virtual_stages.value > 1) s.plan.schedule = Schedule::INTERLEAVED;
  // A V (ZB-V, DualPipe, DualPipeV) runs two chunks per rank: its virtual stages unless the
  // scenario says otherwise.
  if (schedule_choice(s.plan.schedule).v_shape && s.plan.pp > 1 && !r.at("parallelism").has("virtual_stages"))
    s.plan.virtual_stages.value = 2;
  // A section that is there takes effect: an empty one, which would change nothing, is refused.
  auto failures = r.find("failures");
  auto recovery = r.find("recovery");
  if (failures) {
    failures->expect_object();
    failures->expect_not_empty("a failure model: {\"kind\": \"poisson\", ...}, or no failures section");
    s.reliability = ReliabilitySpec::parse(*failures, recovery);
    fit_reliability_to_cluster(*s.reliability, s.cluster, r);
  } else if (recovery) {
    recovery->fail("a recovery strategy needs a failures section",
                   "a \"failures\" object with a kind, or no recovery section");
  }
  return s;
}

Scenario parse_scenario(const ParamReader& r, const std::string& data_dir) {
  Scenario s = parse_scenario_sections(r, data_dir);
  resolve_dp(s, r);
  cross_check(s, r);
  return s;
}

ParamReader scenario_reader(const std::string& path,
                            const std::vector<std::pair<std::string, std::string>>& overrides) {
  auto r = ParamReader::load_file(path);
  r.expect_object();
  for (const auto& [key, value] : overrides) r = r.with_value(key, value);
  return r;
}

Scenario load_scenario(const std::string& path, const std::vector<std::pair<std::string, std::string>>& overrides,
                       const std::string& data_dir) {
  return parse_scenario(scenario_reader(path, overrides), data_dir);
}

}  // namespace sim
