#include "sim/cli/commands.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "sim/cli/options.hpp"
#include "sim/cli/progress.hpp"
#include "sim/cli/report_output.hpp"
#include "sim/core/data_dir.hpp"
#include "sim/core/data_files.hpp"
#include "sim/core/error.hpp"
#include "sim/core/output_file.hpp"
#include "sim/core/params.hpp"
#include "sim/core/text_escape.hpp"
#include "sim/cost/collective.hpp"
#include "sim/cost/compute_model.hpp"
#include "sim/reliability/strategies.hpp"
#include "sim/report/json_report.hpp"
#include "sim/run/run.hpp"
#include "sim/scenario/dispatcher.hpp"
#include "sim/scenario/low_precision_inputs.hpp"
#include "sim/scenario/offload_modules.hpp"
#include "sim/scenario/recompute_modules.hpp"
#include "sim/scenario/schedules.hpp"
#include "sim/workload/memory_budget.hpp"

namespace sim::cli {

int run(const RunArgs& a) {
  EngineOptions opt = engine_options(a.fidelity, a.max_wall, a.max_memory, a.config);
  opt.strict_memory = a.strict_memory;
  ProgressLine progress("reliability trials");
  if (!a.quiet) opt.trial_progress = [&progress](int64_t done, int64_t total) { progress.update(done, total); };
  Scenario s = load_scenario(a.config, parse_sets(a.sets));
  check_outputs({{"-o", a.output}, {"--trace", a.trace}, {"--trials-csv", a.trials_csv}}, {a.config});
  if (!a.trials_csv.empty() && !s.reliability)
    throw InputError(a.config, "/failures", "--trials-csv needs a failures section", "a scenario with failures");
  RunResult r = run_scenario(s, opt);
  // Every text before any file: a run stopped by --max-wall writes nothing.
  const std::string report = report_json(r);
  const std::string trace = a.trace.empty() ? std::string() : trace_json(r);
  std::ostringstream trials;
  if (!a.trials_csv.empty()) reliability::write_trials_csv(trials, r.reliability->horizon.rows);
  opt.deadline.check();
  if (!a.output.empty()) write_output(a.output, report);
  if (!a.trace.empty()) write_output(a.trace, trace);
  if (!a.trials_csv.empty()) write_output(a.trials_csv, trials.str());
  if (!a.quiet) std::fputs(report_output({report}, {"the report of " + a.config}, a.format).c_str(), stdout);
  return 0;
}

int check(const CheckArgs& a) {
  const std::string& config = a.config;
  // What `trainsim run` with the same options checks before it simulates.
  EngineOptions opt = engine_options(a.fidelity, a.max_wall, a.max_memory, config);
  opt.strict_memory = a.strict_memory;
  Scenario s = load_scenario(config, parse_sets(a.sets));
  const ResolvedPlan p = check_run(s, opt).plan;
  const MemoryEstimate& m = p.memory;
  std::printf(
      "%s: ok (%s on %lld x %s; micro_batch %lld, virtual_stages %lld; %s per GPU, %s reserved, of %s usable: "
      "%s)\n",
      escape_for_terminal(config).c_str(), s.model.name.c_str(), static_cast<long long>(s.cluster.gpus),
      s.cluster.device.name.c_str(), static_cast<long long>(p.micro_batch), static_cast<long long>(p.virtual_stages),
      format_bytes(m.peak).c_str(), format_bytes(m.reserved).c_str(), format_bytes(m.usable).c_str(),
      memory_verdict_text(m.fits, m.over, memory_model_error()).c_str());
  return 0;
}

int list() {
  const DataDir where = current_data_dir();
  const std::string& data = where.path;
  std::printf("data folder: %s (%s)\n", escape_for_terminal(data).c_str(), where.origin.c_str());
  auto print = [](const char* what, const std::vector<std::string>& names) {
    std::printf("%s:\n", what);
    for (const auto& n : names) std::printf("  %s\n", escape_for_terminal(n).c_str());
  };
  // A registry's entries, each as its name and description.
  const auto described = [](const auto& entries) {
    std::vector<std::string> out;
    for (const auto& e : entries) out.push_back(fmt::format("{:<12} {}", e.name, e.description));
    return out;
  };
  print("schedules", described(pipeline_schedules()));
  print("collectives", described(collective_algorithms()));
  print("attention", described(attention_kernels()));
  print("elementwise (and loss, the cross entropy apart)", described(elementwise_modes()));
  print("fp8_scaling", described(fp8_scaling_recipes()));
  print("fp8_library", described(fp8_libraries()));
  print("tp_library", described(tp_libraries()));
  print("recompute", {"none", "selective    attention core (Korthikanti et al. 2022)",
                      "op           torchtitan's per-op selective checkpointing: every second matmul and every "
                      "non-matmul op",
                      "full"});
  print("recompute_modules (with recompute selective)", described(recompute_module_entries()));
  print("offload_modules (activations to host memory over cluster.host_link)", described(offload_module_entries()));
  print("low_precision_inputs (saved inputs cached in fewer bits)", described(low_precision_input_entries()));
  print("context parallel (cp_comm)",
        {"p2p          keys and values around the cp ring, each transfer beside attention (Megatron-Core's default)",
         "all_gather   gathered before attention, their gradients reduce-scattered after it (Llama 3)"});
  print("dispatcher (MoE expert parallelism)", described(dispatchers()));
  print("routing (MoE)", described(routings()));
  print("scale-up", described(scale_up_kinds()));
  print("scale-out", described(scale_out_kinds()));
  print("devices", json_names(data + "/topologies/devices"));
  print("topologies", json_names(data + "/topologies"));
  print("models", json_names(data + "/models"));
  // The reliability registries (sim/reliability/strategies.hpp): what a scenario's failures.kind and
  // recovery.kind may name, each with its mechanism and source.
  const auto registry = [](const std::vector<reliability::RegistryEntry>& entries) {
    std::vector<std::string> lines;
    for (const auto& e : entries) lines.push_back(fmt::format("{:<20} {} ({})", e.name, e.mechanism, e.source));
    return lines;
  };
  print("failure models", registry(reliability::failure_models()));
  print("recovery strategies", registry(reliability::recovery_strategies()));
  return 0;
}

}  // namespace sim::cli
