#include "sim/cli/commands.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "sim/cli/options.hpp"
#include "sim/cli/progress.hpp"
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

}  // namespace

int run(const RunArgs& a) {
  EngineOptions opt = engine_options(a.fidelity, a.max_wall, a.max_memory, a.config);
  ProgressLine progress("reliability trials");
  if (!a.quiet) opt.trial_progress = [&progress](int64_t done, int64_t total) { progress.update(done, total); };
  check_outputs({{"-o", a.output}, {"--trace", a.trace}, {"--trials-csv", a.trials_csv}}, {a.config});
  Scenario s = load_scenario(a.config, parse_sets(a.sets));
  if (!a.trials_csv.empty() && !s.reliability)
    throw InputError(a.config, "/failures", "--trials-csv needs a failures section", "a scenario with failures");
  RunResult r = run_scenario(s, opt);
  // Every text before any file: a run stopped by --max-wall writes nothing.
  const std::string report = a.output.empty() ? std::string() : report_json(r);
  const std::string trace = a.trace.empty() ? std::string() : trace_json(r);
  std::ostringstream trials;
  if (!a.trials_csv.empty()) reliability::write_trials_csv(trials, r.reliability->horizon.rows);
  opt.deadline.check();
  if (!a.output.empty()) write_output(a.output, report);
  if (!a.trace.empty()) write_output(a.trace, trace);
  if (!a.trials_csv.empty()) write_output(a.trials_csv, trials.str());
  if (!a.quiet) std::fputs(summary_text(r).c_str(), stdout);
  return 0;
}

int check(const std::string& config, const std::vector<std::string>& sets) {
  Scenario s = load_scenario(config, parse_sets(sets));
  ComputeModel cm(s.cluster.device, s.training.precision);
  ResolvedPlan p = resolve_plan(s, cm);
  std::printf("%s: ok (%s on %lld x %s; micro_batch %lld, virtual_stages %lld; %s per GPU of %s)\n",
              escape_for_terminal(config).c_str(), s.model.name.c_str(), static_cast<long long>(s.cluster.gpus),
              s.cluster.device.name.c_str(), static_cast<long long>(p.micro_batch),
              static_cast<long long>(p.virtual_stages), format_bytes(p.memory.peak).c_str(),
              format_bytes(p.memory.capacity).c_str());
  return 0;
}

int validate(const std::string& table, const std::string& fidelity, double max_wall, const std::string& max_memory) {
  const EngineOptions opt = engine_options(fidelity, max_wall, max_memory, table);
  auto t = ParamReader::load_file(table);
  t.expect_keys({"kind", "description", "runs"});
  t.at("kind").as_choice({"validation"});
  auto runs = t.at("runs");
  if (runs.size() == 0) runs.fail("has no runs", "at least one run to compare");
  struct Row {
    std::string name, group;
    double published, predicted;
    Scenario scenario;
  };
  // Every row is read and checked before the first is simulated: a mistake in the last row of a
  // long table is reported at once, and nothing is printed for a table that is refused.
  std::vector<Row> rows;
  for (size_t i = 0; i < runs.size(); ++i) {
    auto run = runs[i];
    // `extra`: published settings the schema cannot state yet -- documentation, never input
    // (../shared/validation/README.md).
    run.expect_keys({"name", "group", "published", "note", "scenario", "extra"});
    rows.push_back(Row{run.string("name"), run.string("group"),
                       published_step_time(run.at("published").at("step_time_s")), 0,
                       parse_scenario(run.at("scenario"))});
  }
  std::printf("%-22s %-26s %10s %10s %8s %6s %4s %4s\n", "run", "group", "published", "predicted", "error", "MFU", "mb",
              "v");
  for (auto& row : rows) {
    RunResult r = run_scenario(row.scenario, opt);
    row.predicted = r.step_time_s;
    std::printf("%-22s %-26s %9.3fs %9.3fs %+7.1f%% %5.1f%% %4lld %4lld\n", row.name.c_str(), row.group.c_str(),
                row.published, row.predicted, 100 * (row.predicted / row.published - 1), 100 * r.mfu,
                static_cast<long long>(r.scenario.training.micro_batch.value),
                static_cast<long long>(r.scenario.plan.virtual_stages.value));
    std::fflush(stdout);
  }
  std::map<std::string, std::pair<double, int>> groups;
  double worst = 0;
  for (const auto& row : rows) {
    double e = std::fabs(row.predicted / row.published - 1);
    groups[row.group].first += e;
    groups[row.group].second += 1;
    worst = std::max(worst, e);
  }
  std::printf("\n");
  for (const auto& [g, acc] : groups)
    std::printf("%-26s MAPE %5.1f%% over %d runs\n", g.c_str(), 100 * acc.first / acc.second, acc.second);
  std::printf("%-26s %5.1f%%\n", "worst row", 100 * worst);
  return 0;
}

int list() {
  const std::string data = default_data_dir();
  auto print = [](const char* what, const std::vector<std::string>& names) {
    std::printf("%s:\n", what);
    for (const auto& n : names) std::printf("  %s\n", escape_for_terminal(n).c_str());
  };
  print("schedules",
        {"gpipe        all forwards, then all backwards", "1f1b         one-forward-one-backward (PipeDream-Flush)",
         "interleaved  1F1B over virtual stages (Narayanan et al. 2021)"});
  std::vector<std::string> algorithms;
  for (const auto& a : collective_algorithms()) algorithms.push_back(fmt::format("{:<12} {}", a.name, a.description));
  print("collectives", algorithms);
  print("recompute", {"none", "selective    attention core (Korthikanti et al. 2022)", "full"});
  const auto kinds = [](const std::vector<TopologyKind>& ks) {
    std::vector<std::string> out;
    for (const auto& k : ks) out.push_back(fmt::format("{:<12} {}", k.name, k.description));
    return out;
  };
  print("scale-up", kinds(scale_up_kinds()));
  print("scale-out", kinds(scale_out_kinds()));
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
