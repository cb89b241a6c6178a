// `trainsim validate TABLE`: every published run of a validation table simulated and compared with
// its published step time (and, where the source gives it, its peak memory per GPU).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/cli/commands.hpp"
#include "sim/cli/options.hpp"
#include "sim/core/error.hpp"
#include "sim/core/params.hpp"
#include "sim/core/text_escape.hpp"
#include "sim/run/run.hpp"

namespace sim::cli {
namespace {

// A published step time the error can be taken against: 0, a negative or a subnormal time would
// print an infinite or meaningless error. No published training step is under a millisecond or
// over a day.
double published_step_time(const ParamReader& r) {
  const double t = r.as_number();
  if (!(t >= 1e-3 && t <= 86400)) r.fail(fmt::format("{:g} s is not a step time", t), "seconds, from 0.001 to 86400");
  return t;
}

// `extra.published_peak_memory_gib`, where a source publishes the peak memory per GPU (issue #12:
// torchtitan's rows). This figure is only compared with the prediction; of `extra` only the
// settings of kPublishedSettings enter one. It is compared with the peak the allocator reserves
// (MemoryEstimate::reserved): torchtitan logs "memory: <max_reserved_gib>GiB" each step, from
// torch.cuda.memory_stats()["reserved_bytes.all.peak"] (train.py and metrics.py at 9dec370 and
// e7c0cae, the versions of the rows).
std::optional<double> published_peak_memory(const ParamReader& run) {
  const auto extra = run.find("extra");
  if (!extra || !extra->is_object()) return std::nullopt;
  const auto gib = extra->find("published_peak_memory_gib");
  if (!gib) return std::nullopt;
  const double m = gib->as_number();
  if (!(m >= 0.01 && m <= 1e6)) gib->fail(fmt::format("{:g} GiB is not a peak memory", m), "GiB, from 0.01 to 10^6");
  return m;
}

// Published settings a row states in `extra` (issue #12: "published settings not yet in the
// schema") for which the scenario schema now has a key: applied to the row's scenario where the
// scenario does not set that key itself, so a row is simulated as it ran. Only booleans are read;
// anything else in `extra` stays documentation.
struct PublishedSetting {
  const char* extra_key;
  const char* scenario_key;  // dotted
  const char* if_true;       // JSON
  const char* if_false;
};
constexpr PublishedSetting kPublishedSettings[] = {
    {"torch_compile", "training.elementwise", "\"fused\"", "\"eager\""},
    {"overlap_grad_reduce", "parallelism.overlap_grad_reduce", "true", "false"},
    {"grad_reduce_in_fp32", "training.grad_reduce_in_fp32", "true", "false"},
    {"tp_comm_overlap", "parallelism.tp_comm_overlap", "true", "false"},
};

// Published settings a row states in words that name, in the framework's own option spelling, a
// variant of what its scenario says: where the scenario's `when_key` says `when_value` (and, for a
// setting the row states per model, its model is `model`), the scenario key is set to the variant
// trainsim has for it -- `when_key` itself refined, or a key the scenario leaves out. Without a
// `when_key`, a key the scenario leaves out is set whatever the scenario says. Only the exact
// spelling is read.
struct PublishedRefinement {
  const char* extra_key;
  const char* spelling;         // as the framework's configuration or its authors write it
  const char* when_key;         // dotted; nullptr: unconditional
  const char* when_value;       // the scenario's value there
  const char* scenario_key;     // dotted: when_key, or one the scenario does not set
  const char* refined;          // JSON
  const char* model = nullptr;  // the model's name, where the spelling names the models it covers
};
constexpr PublishedRefinement kPublishedRefinements[] = {
    // torchtitan's [activation_checkpointing] mode = "selective" with selective_ac_option = "op" is
    // its per-op policy (trainsim's "op"), not Korthikanti's attention-core recompute.
    {"activation_checkpointing", "selective_ac_option='op'", "training.recompute", "selective", "training.recompute",
     "\"op\""},
    // llm-foundry's attention implementation (its model config's attn_impl; 'triton' was the
    // default in 2023) and a pinned FlashAttention-1 (pip's flash-attn==1.x): variants of "flash".
    {"settings", "attn_impl default 'triton'", "training.attention", "flash", "training.attention", "\"triton\""},
    {"settings", "attn_impl triton", "training.attention", "flash", "training.attention", "\"triton\""},
    // llm-foundry's 2024 benchmark sweep: "attn_impl flash ... for 1b/3b/7b/70b and triton for
    // 13b/30b" (scripts/train/benchmarking/sweep.py at 5e85bd62d).
    {"settings", "triton for 13b/30b", "training.attention", "flash", "training.attention", "\"triton\"", "mpt-13b"},
    {"settings", "triton for 13b/30b", "training.attention", "flash", "training.attention", "\"triton\"", "mpt-30b"},
    {"settings", "flash-attn==1.", "training.attention", "flash", "training.attention", "\"flash1\""},
    // ... and its FlashAttention-2, which it calls on unpadded tokens (attention_kernels.hpp): the
    // sweep's "attn_impl flash (FlashAttention-2 ..." for the models it does not give triton.
    {"settings", "attn_impl flash (FlashAttention-2", "training.attention", "flash", "training.attention",
     "\"flash_varlen\""},
    // Transformer Engine's attention on Hopper and later is cuDNN's: with both backends enabled it
    // drops FlashAttention "to give FusedAttention preference on Hopper+ for performance reasons"
    // (transformer_engine/pytorch/attention.py, get_attention_backend, v2.0 and v2.1), and cuDNN's
    // arbitrary-length kernel covers head dims up to 128 on sm_100 (common/fused_attn/fused_attn.cpp).
    // A row may say so; NeMo's v2.2.0 performance scripts run with both enabled (NVTE_FUSED_ATTN=1,
    // NVTE_FLASH_ATTN=1: scripts/llm/performance/utils.py, slurm_executor).
    {"attention", "TransformerEngine fused attention", "training.attention", "flash", "training.attention",
     "\"cudnn\""},
    {"framework", "NeMo v2.2.0 scripts/llm/performance", "training.attention", "flash", "training.attention",
     "\"cudnn\""},
    // torchao's Float8Linear scales dynamically, per tensor ("dynamic tensorwise"): current scaling.
    {"fp8_recipe", "dynamic tensorwise scaling", "training.precision", "fp8", "training.fp8_scaling", "\"current\""},
    // ... and is torchao's, not Transformer Engine's (fp8_library.hpp).
    {"fp8_recipe", "torchao Float8Linear", "training.precision", "fp8", "training.fp8_library", "\"torchao\""},
    // NeMo's fp8_params (Megatron-Core's --fp8-param-gather): primary weights in FP8.
    {"fp8_recipe", "fp8_params=True", "training.precision", "fp8", "training.fp8_params", "true"},
    // torchtitan compiles its transformer blocks, and its loss only since bbb1b61 (2025-04-02,
    // #1033): from e8977b0 on, train.py had "TODO: compiling loss function causes CUDA errors,
    // turning off for now" above a commented-out torch.compile(loss_fn). A compiled run of a
    // version in between -- 9dec370 (2024-12-26) is one -- ran the loss eager.
    {"framework", "torchtitan 9dec370", "training.elementwise", "fused", "training.loss", "\"eager\""},
    // torchtitan's tensor parallelism is PyTorch DTensor's (tp_library.hpp).
    {"framework", "torchtitan", nullptr, nullptr, "parallelism.tp_library", "\"dtensor\""},
};

// The name of the scenario's model: the one it names, or its inline model's `name`.
std::string model_name(const ParamReader& scenario) {
  const auto model = scenario.find("model");
  if (!model) return {};
  if (model->is_string()) return model->as_string();
  const auto name = model->is_object() ? model->find("name") : std::nullopt;
  return name && name->is_string() ? name->as_string() : std::string();
}

// The section of a dotted scenario key and the key within it.
std::pair<std::optional<ParamReader>, std::string> scenario_slot(const ParamReader& scenario, const std::string& key) {
  const auto dot = key.find('.');
  auto section = scenario.find(key.substr(0, dot));
  if (section && !section->is_object()) section.reset();
  return {section, key.substr(dot + 1)};
}

// The row's scenario with the settings above applied; `applied` lists them ("key=value"), for the
// row's line.
ParamReader with_published_settings(const ParamReader& run, ParamReader scenario, std::vector<std::string>& applied) {
  const auto extra = run.find("extra");
  if (!extra || !extra->is_object() || !scenario.is_object()) return scenario;
  for (const auto& s : kPublishedSettings) {
    const auto given = extra->find(s.extra_key);
    if (!given || !given->is_bool()) continue;
    const auto [section, name] = scenario_slot(scenario, s.scenario_key);
    if (!section || section->has(name)) continue;
    const char* value = given->as_bool() ? s.if_true : s.if_false;
    scenario = scenario.with_value(s.scenario_key, value);
    applied.push_back(fmt::format("{}={}", s.scenario_key, value));
  }
  for (const auto& r : kPublishedRefinements) {
    const auto given = extra->find(r.extra_key);
    if (!given || !given->is_string() || given->as_string().find(r.spelling) == std::string::npos) continue;
    if (r.model && model_name(scenario) != r.model) continue;
    if (r.when_key) {
      const auto [section, name] = scenario_slot(scenario, r.when_key);
      const auto value = section ? section->find(name) : std::nullopt;
      if (!value || !value->is_string() || value->as_string() != r.when_value) continue;
    }
    if (!r.when_key || std::string(r.scenario_key) != r.when_key) {
      const auto [target, key] = scenario_slot(scenario, r.scenario_key);
      if (!target || target->has(key)) continue;
    }
    scenario = scenario.with_value(r.scenario_key, r.refined);
    applied.push_back(fmt::format("{}={}", r.scenario_key, r.refined));
  }
  return scenario;
}

constexpr double GIB = 1024.0 * 1024 * 1024;

struct Row {
  std::string name, group;
  double published = 0, predicted = 0;
  std::optional<double> published_memory, predicted_memory;  // GiB per GPU
  std::optional<Scenario> scenario;
  std::vector<std::string> applied;  // settings taken from the row's `extra` (with_published_settings)
  std::string failure;               // why the row could not be simulated; empty when it was
};

struct Tally {
  double error = 0;
  int simulated = 0, failed = 0;
};

double relative_error(double predicted, double published) { return predicted / published - 1; }

}  // namespace

int validate(const std::string& table, const std::string& fidelity, double max_wall, const std::string& max_memory) {
  const EngineOptions opt = engine_options(fidelity, max_wall, max_memory, table);
  auto t = ParamReader::load_file(table);
  t.expect_keys({"kind", "description", "runs"});
  t.at("kind").as_choice({"validation"});
  auto runs = t.at("runs");
  if (runs.size() == 0) runs.fail("has no runs", "at least one run to compare");
  // Every row is read before the first is simulated: a mistake in the table's own fields (a name,
  // a group, a published figure) stops it at once. A scenario the simulator cannot run -- a device
  // it does not know, a plan that does not fit -- is a finding about the simulator, not about the
  // table: that row is reported as failed (its message naming the row's place in the table) and
  // counted, and the others still run; so is a row past a limit of this machine (--max-memory, the
  // simulation-time estimate). --max-wall, the whole table's bound, stops it.
  std::vector<Row> rows;
  for (size_t i = 0; i < runs.size(); ++i) {
    auto run = runs[i];
    run.expect_keys({"name", "group", "published", "note", "scenario", "extra"});
    Row row;
    row.name = run.string("name");
    row.group = run.string("group");
    row.published = published_step_time(run.at("published").at("step_time_s"));
    row.published_memory = published_peak_memory(run);
    try {
      row.scenario = parse_scenario(with_published_settings(run, run.at("scenario"), row.applied));
    } catch (const InputError& e) {
      row.failure = e.what();
    }
    rows.push_back(std::move(row));
  }
  size_t nw = 22, gw = 26;  // the name and group columns: as wide as the longest
  for (const auto& row : rows) nw = std::max(nw, row.name.size()), gw = std::max(gw, row.group.size());
  const auto lead = [&](const Row& row) {
    return fmt::format("{:<{}} {:<{}} {:9.3f}s", row.name, nw, row.group, gw, row.published);
  };
  std::fputs(fmt::format("{:<{}} {:<{}} {:>10} {:>10} {:>8} {:>6} {:>4} {:>4}\n", "run", nw, "group", gw, "published",
                         "predicted", "error", "MFU", "mb", "v")
                 .c_str(),
             stdout);
  for (auto& row : rows) {
    if (row.scenario) try {
        RunResult r = run_scenario(*row.scenario, opt);
        row.predicted = r.step_time_s;
        std::string memory;
        if (row.published_memory) {
          // The published peaks are what the allocator reserved (published_peak_memory).
          row.predicted_memory = r.plan.memory.reserved.value / GIB;
          memory = fmt::format("  peak memory {:.1f} GiB reserved ({:.1f} allocated), published {:.1f} ({:+.1f}%)",
                               *row.predicted_memory, r.plan.memory.peak.value / GIB, *row.published_memory,
                               100 * relative_error(*row.predicted_memory, *row.published_memory));
        }
        const std::string applied =
            row.applied.empty() ? std::string() : fmt::format("  from extra: {}", fmt::join(row.applied, ", "));
        std::fputs(
            fmt::format("{} {:9.3f}s {:+7.1f}% {:5.1f}% {:4} {:4}{}{}\n", lead(row), row.predicted,
                        100 * relative_error(row.predicted, row.published), 100 * r.mfu,
                        r.scenario.training.micro_batch.value, r.scenario.plan.virtual_stages.value, memory, applied)
                .c_str(),
            stdout);
      } catch (const InputError& e) {
        // A limit of this machine (--max-memory, the simulation-time estimate) is this row's
        // failure too: the other rows still run. Only --max-wall (the table's bound) stops it.
        row.failure = e.what();
      }
    if (!row.failure.empty())
      std::fputs(fmt::format("{} {:>10}  failed: {}\n", lead(row), "-", row.failure).c_str(), stdout);
    std::fflush(stdout);
  }
  std::map<std::string, Tally> groups;
  Tally memory;
  double worst = 0, worst_memory = 0;
  int failed = 0;
  for (const auto& row : rows) {
    Tally& g = groups[row.group];
    if (!row.failure.empty()) {
      ++g.failed, ++failed;
      continue;
    }
    const double e = std::fabs(relative_error(row.predicted, row.published));
    g.error += e;
    ++g.simulated;
    worst = std::max(worst, e);
    if (row.predicted_memory) {
      const double m = std::fabs(relative_error(*row.predicted_memory, *row.published_memory));
      memory.error += m;
      ++memory.simulated;
      worst_memory = std::max(worst_memory, m);
    }
  }
  std::printf("\n");
  for (const auto& [name, g] : groups) {
    const std::string not_run = g.failed > 0 ? fmt::format(", {} failed", g.failed) : std::string();
    if (g.simulated > 0)
      std::fputs(fmt::format("{:<{}} MAPE {:5.1f}% over {} runs{}\n", name, gw, 100 * g.error / g.simulated,
                             g.simulated, not_run)
                     .c_str(),
                 stdout);
    else
      std::fputs(fmt::format("{:<{}} no run simulated{}\n", name, gw, not_run).c_str(), stdout);
  }
  std::fputs(fmt::format("{:<{}} {:5.1f}%\n", "worst row", gw, 100 * worst).c_str(), stdout);
  if (memory.simulated > 0)
    std::fputs(fmt::format("{:<{}} MAPE {:5.1f}% over {} runs, worst {:.1f}%\n", "peak memory", gw,
                           100 * memory.error / memory.simulated, memory.simulated, 100 * worst_memory)
                   .c_str(),
               stdout);
  if (failed == 0) return 0;
  std::fputs(fmt::format("{:<{}} {} of {} runs could not be simulated\n", "failed", gw, failed, rows.size()).c_str(),
             stdout);
  const auto first = std::find_if(rows.begin(), rows.end(), [](const Row& row) { return !row.failure.empty(); });
  std::fflush(stdout);
  std::fprintf(stderr, "trainsim: validate: %s: %d of %zu runs could not be simulated, the first %s (see its row)\n",
               bounded(table, 300).c_str(), failed, rows.size(), quote_value(first->name).c_str());
  return 1;
}

}  // namespace sim::cli
