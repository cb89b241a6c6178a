// fuzz_scenario: a small scenario built from fuzzed parameters, planned and priced end to end.
//
// The bytes choose a model (layers, heads, head size, KV heads, FFN width, vocabulary, activation,
// norm; experts), a cluster (device, GPUs per node, NICs, oversubscription), a plan (tp, pp, dp, cp,
// sequence parallelism, virtual stages, schedule, ZeRO, gradient overlap, layer split) and the
// training settings (sequence length, batch sizes, recompute, precision, attention), mostly within
// bounds that keep one input under a few milliseconds; one field in each input may instead take
// an arbitrary 64-bit or floating-point value, which the limits must reject (or survive) cleanly.
// The scenario text then goes through parse_scenario (one input in 8 with "dp": "auto"),
// plan_space (the plans `trainsim search` tries: each must split the GPUs exactly, and the
// scenario's own plan must be among them when its tp stays in an NVLink domain and it has a layer per
// stage), resolve_plan (the closed-form estimate and the memory estimate of every candidate) and
// both estimates again on the chosen plan, which must reproduce the planner's numbers exactly, and
// the step lower bound the planner prunes by, which must not pass the estimate.
//
// Plans over 2048 tasks are only parsed (planning them takes seconds), unless the planner rejects
// them all by its task limit. The SimGrid engine (a forked child per run, ~25 ms) simulates the
// chosen plan for one input in 256 with at most 512 tasks on at most 256 GPUs, so that 100,000
// executions stay within CI's time; see .ci/run. (Larger runs are legitimate but slow: 512 tasks
// on 2048 GPUs with overlapped gradient buckets, 32 dp rings per bucket, took 3.5 s here and over
// the 10 s timeout on CI -- regressions/fuzz_scenario/engine-on-2048-gpus-took-seconds.)
// FUZZ_PRINT=1 prints each input's scenario, to reproduce a finding with `trainsim run`.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/comm/comm_costs.hpp"
#include "sim/core/params.hpp"
#include "sim/cost/compute_model.hpp"
#include "sim/engine/engine.hpp"
#include "sim/plan/estimate.hpp"
#include "sim/plan/plan_space.hpp"
#include "sim/plan/planner.hpp"
#include "sim/plan/resource_estimate.hpp"
#include "sim/plan/step_bound.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/memory.hpp"
#include "test/fuzz/fuzz_check.hpp"
#include "test/fuzz/fuzz_draw.hpp"

namespace {

using namespace sim;

using fuzz::check;
using fuzz::Draw;

std::string quoted(const std::string& s) { return "\"" + s + "\""; }

std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t d = 1; d <= n; ++d)
    if (n % d == 0) out.push_back(d);
  return out;
}

// Field name -> JSON value text, grouped by section; `wild` replaces one numeric field.
using Section = std::map<std::string, std::string>;

std::string object(const Section& s) {
  std::string out = "{";
  for (const auto& [k, v] : s) out += (out.size() > 1 ? ", " : "") + quoted(k) + ": " + v;
  return out + "}";
}

struct Input {
  std::string text;     // the scenario JSON
  bool engine = false;  // also simulate it on the engine
};

// `hash` (of all the bytes) picks what draws no byte, so that the corpus keeps its meaning.
Input scenario(Draw& d, uint64_t hash) {
  Input input;
  const int64_t tp = d.pick<int64_t>({1, 2, 4, 8});
  const int64_t pp = d.in(1, 8), dp = d.in(1, 8), cp = d.pick<int64_t>({1, 1, 2, 4});
  const int64_t heads = tp * d.in(1, 8);
  const int64_t head_dim = d.pick<int64_t>({1, 2, 8, 64, 80, 128});
  const int64_t hidden = heads * head_dim;
  std::vector<int64_t> kv_choices;
  for (int64_t k : divisors(heads))
    if (k % tp == 0) kv_choices.push_back(k);
  const int64_t micro_batch = d.in(1, 4), microbatches = d.in(1, 16);
  const int64_t seq_unit = (cp > 1 ? 2 * cp : 1) * tp;

  Section model{{"layers", std::to_string(d.in(1, 32))},
                {"hidden", std::to_string(hidden)},
                {"heads", std::to_string(heads)},
                {"kv_heads", std::to_string(d.pick(kv_choices))},
                {"ffn_hidden", std::to_string(tp * d.in(1, 4 * hidden / tp + 1))},
                {"vocab", std::to_string(d.in(1, 65535))},
                {"activation", quoted(d.pick<std::string>({"gelu", "swiglu"}))},
                {"norm", quoted(d.pick<std::string>({"layernorm", "rmsnorm"}))},
                {"tied_embeddings", d.flag() ? "true" : "false"}};
  const int64_t gpus = tp * pp * dp * cp;
  const int64_t per_node = std::min<int64_t>(gpus, d.pick<int64_t>({1, 2, 4, 8}));
  Section scale_out{{"kind", quoted("fat-tree")},
                    {"nics_per_node", std::to_string(d.pick(divisors(per_node)))},
                    {"nic_bandwidth", quoted(d.pick<std::string>({"200 Gb/s", "400 Gb/s", "1 Gb/s"}))},
                    {"oversubscription", std::to_string(d.in(1, 4))},
                    {"latency", quoted("1 us")}};
  if (d.flag()) scale_out["pod_gpus"] = std::to_string(d.in(1, 64));
  Section cluster{
      {"gpu", quoted(d.pick<std::string>({"a100-sxm-40gb", "a100-sxm-80gb", "h100-sxm", "h200-sxm", "b200"}))},
      {"gpus", std::to_string(gpus)},
      {"gpus_per_node", std::to_string(per_node)},
      {"scale_up", R"({"kind": "nvswitch", "bandwidth": "300 GB/s", "latency": "1 us"})"},
      {"scale_out", object(scale_out)}};
  Section plan{{"tp", std::to_string(tp)},
               {"pp", std::to_string(pp)},
               {"dp", std::to_string(dp)},
               {"cp", std::to_string(cp)},
               {"sequence_parallel", d.flag() ? "true" : "false"},
               {"zero", std::to_string(d.in(0, 3))},
               {"overlap_grad_reduce", d.flag() ? "true" : "false"}};
  int64_t virtual_stages = 1;
  switch (d.in(0, 3)) {
    case 0: break;
    case 1:
      plan["virtual_stages"] = quoted("auto");
      virtual_stages = 0;
      break;
    default: virtual_stages = d.in(1, 4); plan["virtual_stages"] = std::to_string(virtual_stages);
  }
  if (virtual_stages > 0 && d.in(0, 3) == 0) {  // an explicit layer split; the model gets its sum
    std::string list;
    int64_t layers = 0;
    for (int64_t i = 0; i < pp * virtual_stages; ++i) {
      const int64_t n = d.in(1, 8);
      layers += n;
      list += (i ? ", " : "") + std::to_string(n);
    }
    plan["layers_per_stage"] = "[" + list + "]";
    model["layers"] = std::to_string(layers);
  }
  if (d.flag()) plan["schedule"] = quoted(d.pick<std::string>({"gpipe", "1f1b", "interleaved"}));
  if ((hash >> 8) % 8 == 0) plan["dp"] = quoted("auto");  // one input in 8: dp from the GPUs left
  Section training{{"seq_len", std::to_string(seq_unit * d.in(1, 2048 / seq_unit + 1))},
                   {"global_batch", std::to_string(dp * micro_batch * microbatches)},
                   {"micro_batch", d.flag() ? quoted("auto") : std::to_string(micro_batch)},
                   {"recompute", quoted(d.pick<std::string>({"none", "selective", "full"}))},
                   {"precision", quoted(d.pick<std::string>({"bf16", "bf16", "fp16", "fp8"}))},
                   {"attention", quoted(d.pick<std::string>({"unfused", "flash"}))}};

  // One field, sometimes, out of bounds.
  std::vector<std::pair<Section*, std::string>> numeric;
  for (Section* s : {&model, &plan, &training})
    for (const auto& [k, v] : *s)
      if (!v.empty() && (std::isdigit(static_cast<unsigned char>(v[0])) != 0)) numeric.emplace_back(s, k);
  numeric.emplace_back(&cluster, "gpus");
  numeric.emplace_back(&cluster, "gpus_per_node");
  const int64_t which = d.in(0, 3 * static_cast<int64_t>(numeric.size()));
  if (which < static_cast<int64_t>(numeric.size())) {
    auto& [section, key] = numeric[static_cast<size_t>(which)];
    (*section)[key] = d.wild();
  }
  // Fields added since draw last, so that the corpus keeps its meaning: an NVLink domain of several
  // nodes (GB200 NVL72-like; it may not divide the GPUs, which must be refused), a forced collective
  // algorithm (which some groups cannot run, which must be refused), the gradients' precision.
  if (d.flag())
    cluster["scale_up"] = R"({"kind": "nvswitch", "bandwidth": "300 GB/s", "latency": "1 us", "domain_gpus": )" +
                          std::to_string(per_node * d.in(1, 4)) + "}";
  if (d.flag()) {  // the collective drawn before its algorithm, whatever order the compiler evaluates `+` in
    const std::string kind = quoted(d.pick<std::string>({"all_reduce", "all_gather", "reduce_scatter", "all_to_all"}));
    plan["collective_algorithms"] =
        "{" + kind + ": " + quoted(d.pick<std::string>({"auto", "ring", "tree", "nvls", "nvls_tree", "hierarchical"})) +
        "}";
  }
  if (d.flag()) training["grad_reduce_in_fp32"] = d.flag() ? "true" : "false";
  // Then TP communication overlap (refused without sequence parallel, tp > 1, or a TP group
  // inside an NVLink domain).
  if (d.flag()) plan["tp_comm_overlap"] = d.flag() ? "true" : "false";
  if (d.flag()) plan["cp_comm"] = d.flag() ? quoted("p2p") : quoted("all_gather");
  // Then torchtitan's per-op checkpointing (refused without FlashAttention, or with tp > 1 and no
  // sequence parallel) and the model's dropout.
  if (d.flag()) training["recompute"] = quoted("op");
  if (d.flag()) model["dropout"] = d.flag() ? "true" : "false";
  // Then tori (dims that may not tile the GPUs or whole nodes, a twist their shape may not
  // admit: both refused), optical circuit switches (ports that may be too few: refused), heads of
  // their own width, and the TPU v4.
  if (d.flag()) {
    std::string dims;
    for (int64_t i = 0, n = d.in(1, 3); i < n; ++i)
      dims += (i ? ", " : "") + std::to_string(d.pick<int64_t>({1, 2, 4, 8, gpus}));
    cluster["scale_up"] = R"({"kind": "torus", "bandwidth": "45 GB/s", "latency": "1 us", "dims": [)" + dims +
                          "], \"twisted\": " + (d.flag() ? "true" : "false") + "}";
  }
  if (d.flag()) {
    Section ocs{{"kind", quoted("ocs")},
                {"nics_per_node", scale_out["nics_per_node"]},
                {"nic_bandwidth", scale_out["nic_bandwidth"]},
                {"reconfiguration", quoted(d.pick<std::string>({"1 ns", "10 us", "10 ms", "10 s"}))}};
    if (d.flag()) ocs["ports"] = std::to_string(d.in(1, 64));
    cluster["scale_out"] = object(ocs);
  }
  if (d.flag()) model["head_dim"] = std::to_string(d.pick<int64_t>({1, 64, 256}));
  if (d.flag()) cluster["gpu"] = quoted("tpu-v4");
  // Then meshes and tori of cubes through optical switches (cubes that may not divide the dims or
  // match their count, a twisted mesh, switches without cubes: refused).
  if (d.flag()) {
    std::string dims, cube;
    const int64_t n = d.in(1, 3);
    for (int64_t i = 0; i < n; ++i) dims += (i ? ", " : "") + std::to_string(d.pick<int64_t>({1, 2, 4, 8, gpus}));
    for (int64_t i = 0, m = d.in(n - 1, n); i < m; ++i)
      cube += (i ? ", " : "") + std::to_string(d.pick<int64_t>({1, 2, 4}));
    std::string up = std::string(R"({"kind": ")") + (d.flag() ? "mesh" : "torus") +
                     R"(", "bandwidth": "45 GB/s", "latency": "1 us", "dims": [)" + dims + "]";
    if (d.flag()) up += ", \"twisted\": " + std::string(d.flag() ? "true" : "false");
    if (d.flag()) up += ", \"cube\": [" + cube + "]";
    if (d.flag()) up += ", \"ocs\": " + std::string(d.flag() ? "true" : "false");
    cluster["scale_up"] = up + "}";
  }
  // Then direct-connect networks, designed with the plan or on the user's strides (strides that
  // exceed the ports, lie out of range or leave nodes apart, one port per node: refused).
  if (d.flag()) {
    Section direct{{"kind", quoted("direct")},
                   {"nics_per_node", scale_out["nics_per_node"]},
                   {"nic_bandwidth", scale_out["nic_bandwidth"]},
                   {"latency", quoted("1 us")}};
    if (d.flag()) {
      std::string strides;
      for (int64_t i = 0, n = d.in(1, 4); i < n; ++i) strides += (i ? ", " : "") + std::to_string(d.in(0, 9));
      direct["strides"] = "[" + strides + "]";
    }
    cluster["scale_out"] = object(direct);
  }
  // Then mixture of experts (experts that ep does not divide, a top_k above them, expert
  // parallelism beside tp without sequence parallelism, an etp neither 1 nor tp or under another
  // dispatcher than alltoall, deepep off NVSwitch: refused), its routing (a Zipf draw with a
  // capacity factor) and inputs cached in fewer bits (the experts' on a dense model: refused).
  if (d.flag()) {
    Section moe{{"experts", std::to_string(d.pick<int64_t>({1, 2, 4, 8, 16}))}, {"top_k", std::to_string(d.in(1, 4))}};
    if (d.flag()) moe["expert_ffn_hidden"] = std::to_string(tp * d.in(1, 64));
    if (d.flag()) moe["shared_experts"] = std::to_string(d.in(0, 2));
    model["moe"] = object(moe);
    plan["ep"] = std::to_string(d.pick<int64_t>({1, 2, 4, 8}));
    if (d.flag()) plan["dispatcher"] = quoted(d.pick<std::string>({"alltoall", "allgather", "deepep"}));
    if (d.flag()) plan["etp"] = std::to_string(d.pick<int64_t>({1, 2, tp}));
    if (d.flag()) {
      training["routing"] = quoted("zipf");
      training["routing_skew"] = d.pick<std::string>({"0.5", "1", "2.5"});
      if (d.flag()) training["capacity_factor"] = "1.5";
    }
  }
  if (d.flag())
    training["low_precision_inputs"] =
        d.pick<std::string>({R"(["attn_proj"])", R"(["moe_act"])", R"(["expert_fc1", "attn_proj"])"});
  input.text = R"({"kind": "scenario", "name": "fuzz", "seed": 1, "model": )" + object(model) +
               ", \"cluster\": " + object(cluster) + ", \"parallelism\": " + object(plan) +
               ", \"training\": " + object(training) + "}";
  return input;
}

// Most forward and backward tasks any candidate plan of `s` can have, and fewest (bounds).
std::pair<double, double> task_bounds(const Scenario& s) {
  const double per_replica = static_cast<double>(s.training.global_batch / s.plan.dp);
  const bool auto_b = s.training.micro_batch.is_auto();
  const double b = static_cast<double>(s.training.micro_batch.value);
  const double most_m = auto_b ? per_replica : per_replica / b, fewest_m = auto_b ? per_replica / 64 : most_m;
  const double most_v = s.plan.virtual_stages.is_auto()
                            ? static_cast<double>(std::max<int64_t>(1, s.model.layers / s.plan.pp))
                            : static_cast<double>(s.plan.virtual_stages.value);
  const double pp = static_cast<double>(s.plan.pp);
  return {2 * most_m * pp * most_v, 2 * fewest_m * pp};
}

// `trainsim search`'s plans: each one splits the GPUs exactly and divides what it must, and the
// scenario's own plan is among them when its tp stays inside an NVLink domain.
void check_plan_space(const Scenario& s, const std::string& text) {
  const auto space = plan_space(s);
  bool own = false;
  for (const auto& c : space) {
    check(c.tp * c.pp * c.dp * c.cp == s.cluster.gpus, "a searched plan does not use every GPU", text);
    // K/V heads: tp shards them (divides them) or gives each rank a whole one (a multiple of them).
    const bool kv = s.model.kv_heads % c.tp == 0 || c.tp % s.model.kv_heads == 0;
    // Expert parallelism folds over tp x dp x cp, or over dp x cp with the experts split over tp
    // (ParallelPlan::expert_ranks), and divides the experts.
    const int64_t expert_ranks = (c.etp > 0 ? 1 : c.tp) * c.dp * c.cp;
    const bool experts = c.ep == 1 || (expert_ranks % c.ep == 0 && s.model.moe && s.model.moe->experts % c.ep == 0);
    check(s.model.heads % c.tp == 0 && kv && c.pp <= s.model.layers && s.training.global_batch % c.dp == 0 &&
              s.training.seq_len % (c.cp > 1 ? 2 * c.cp : 1) == 0 && experts,
          "a searched plan breaks a divisibility rule", text);
    check(c.etp == 0 || (c.etp == c.tp && c.ep > 1), "a searched plan splits its experts over other than tp", text);
    own = own || (c.tp == s.plan.tp && c.cp == s.plan.cp && c.pp == s.plan.pp && c.dp == s.plan.dp &&
                  c.sequence_parallel == (s.plan.sequence_parallel && s.plan.tp > 1) &&
                  c.recompute == s.training.recompute && c.precision == s.training.precision && c.zero == s.plan.zero);
  }
  // (A plan of more stages than layers parses; the planner rejects it.)
  if (s.cluster.domain_gpus() % s.plan.tp == 0 && s.plan.pp <= s.model.layers)
    check(own, "the scenario's own plan is not among the searched ones", text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The engine for one input in 256, chosen by a hash of all the bytes: a field the fuzzer could
  // set would soon have most of the corpus forking.
  const uint64_t hash = fuzz::fnv1a(data, size);
  Draw d(data, size);
  Input input = scenario(d, hash);
  input.engine = hash % 256 == 0;
  const std::string& text = input.text;
  if (std::getenv("FUZZ_PRINT") != nullptr)  // to reproduce by hand
    std::fprintf(stderr, "%s%s\n", input.engine ? "[engine] " : "", text.c_str());
  fuzz::expect_input_errors_only([&] {
    Scenario s = parse_scenario(ParamReader::from_text(text, "fuzz_scenario.json"), default_data_dir());
    check_plan_space(s, text);
    // A plan of up to 2^20 tasks is legitimate but takes seconds: too slow for fuzzing, so only
    // plans of up to 2048 tasks are planned -- and those whose every candidate is over the
    // planner's limit, which it rejects without building a graph.
    const auto [most, fewest] = task_bounds(s);
    if (most > 2048 && fewest <= double(1 << 20)) return;
    ComputeModel cm(s.cluster.device, s.training.precision);
    ResolvedPlan p = resolve_plan(s, cm);
    const Seconds step = p.estimated_step;
    check(std::isfinite(step.value) && step.value > 0, "estimated step time is not a positive number", text);
    // A plan over memory is planned too, reported as not fitting by how much (memory_budget.hpp).
    const MemoryEstimate& m = p.memory;
    check(std::isfinite(m.peak.value) && m.fits == (m.reserved <= m.usable) &&
              m.over.value == (m.fits ? 0.0 : m.reserved.value - m.usable.value),
          "the memory verdict is not the reserved peak against the usable memory", text);
    // The resolved scenario reproduces the planner's numbers.
    check(estimate_step(s, *p.pipeline, CommCosts(s)).step == step, "estimate differs on the resolved plan", text);
    check(estimate_memory(s, p.layout, p.micro_batch).peak == p.memory.peak, "memory differs on the resolved plan",
          text);
    // The bound the planner and search prune by never passes the estimate (pipeline.hpp).
    check(step_lower_bound(s, p.layout, p.micro_batch, cm, CommCosts(s)).value <= step.value * (1 + 1e-12),
          "the step lower bound passes the estimate", text);
    // The fuzz build (ASan, SimGrid's thread contexts, -O1) runs the engine about 40 times slower
    // than a release build: only runs estimated under 50 ms there, a second or two here.
    if (input.engine && most <= 512 && s.cluster.gpus <= 256 &&
        estimate_resources(s, engine_shape(s, &p.pipeline->steps), p.pipeline->steps,
                           estimate_step(p.pipeline->steps, CommCosts(s)), false)
                .wall.value < 0.05) {
      EngineResult r = simulate_step(s, *p.pipeline);
      check(std::isfinite(r.step.value) && r.step.value > 0, "simulated step time is not a positive number", text);
    }
  });
  return 0;
}
