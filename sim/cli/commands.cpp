#include "sim/cli/commands.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
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
    double published = 0, predicted = 0;
    std::optional<Scenario> scenario;
    std::string failure;  // why the row could not be simulated; empty when it was
  };
  // Every row is read before the first is simulated: a mistake in the table's own fields (a name,
  // a group, a published time) stops it at once. A scenario the simulator cannot run -- a device
  // it does not know, a plan that does not fit -- is a finding about the simulator, not about the
  // table: that row is reported as failed and counted, and the others still run. Limits of this
  // machine (--max-memory, --max-wall) stop the table (SimulationLimit).
  std::vector<Row> rows;
  for (size_t i = 0; i < runs.size(); ++i) {
    auto run = runs[i];
    // `extra`: published settings the schema cannot state yet -- documentation, never input
    // (../shared/validation/README.md).
    run.expect_keys({"name", "group", "published", "note", "scenario", "extra"});
    Row row{run.string("name"),
            run.string("group"),
            published_step_time(run.at("published").at("step_time_s")),
            0,
            std::nullopt,
            ""};
    try {
      row.scenario = parse_scenario(run.at("scenario"));
    } catch (const SimulationLimit&) {
      throw;
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
        std::fputs(fmt::format("{} {:9.3f}s {:+7.1f}% {:5.1f}% {:4} {:4}\n", lead(row), row.predicted,
                               100 * (row.predicted / row.published - 1), 100 * r.mfu,
                               r.scenario.training.micro_batch.value, r.scenario.plan.virtual_stages.value)
                       .c_str(),
                   stdout);
      } catch (const SimulationLimit&) {
        throw;
      } catch (const InputError& e) {
        row.failure = e.what();
      }
    if (!row.failure.empty())
      std::fputs(fmt::format("{} {:>10}  failed: {}\n", lead(row), "-", row.failure).c_str(), stdout);
    std::fflush(stdout);
  }
  struct Group {
    double error = 0;
    int simulated = 0, failed = 0;
  };
  std::map<std::string, Group> groups;
  double worst = 0;
  int failed = 0;
  for (const auto& row : rows) {
    Group& g = groups[row.group];
    if (!row.failure.empty()) {
      ++g.failed, ++failed;
      continue;
    }
    const double e = std::fabs(row.predicted / row.published - 1);
    g.error += e;
    ++g.simulated;
    worst = std::max(worst, e);
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
  if (failed == 0) return 0;
  std::fputs(fmt::format("{:<{}} {} of {} runs could not be simulated\n", "failed", gw, failed, rows.size()).c_str(),
             stdout);
  return 1;
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
