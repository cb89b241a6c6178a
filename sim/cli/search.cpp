// `trainsim search CONFIG`: the fastest parallel plan for a scenario's model, cluster and batch.
//
// Every plan of workload/plan_space.hpp is given to the scenario in turn (micro_batch and
// virtual_stages "auto") and checked and planned exactly as `trainsim run` would, which prices each
// candidate with the closed-form estimate and drops what does not fit in memory. The `top`
// fastest estimates are then simulated on the engine, and ranked by their simulated step time
// (ties: the earlier plan in plan_space's order). `-o FILE` writes the winner as a scenario that
// `trainsim run` takes: the input with its parallelism and training sections set to the plan.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>

#include "sim/cli/commands.hpp"
#include "sim/cli/options.hpp"
#include "sim/core/error.hpp"
#include "sim/core/output_file.hpp"
#include "sim/core/params.hpp"
#include "sim/cost/compute_model.hpp"
#include "sim/run/run.hpp"
#include "sim/workload/plan_space.hpp"

namespace sim::cli {
namespace {

struct Candidate {
  PlanChoice choice;
  ParamReader scenario;  // the input with this plan, "auto" left for the planner
  std::optional<Scenario> resolved;
  int64_t micro_batch = 0, virtual_stages = 0;
  Bytes memory;
  double estimated_s = 0;
  std::optional<RunResult> run;  // the simulated ones
  std::string rejected;          // why the plan cannot run, "" when it can
};

ParamReader with_plan(const ParamReader& base, const PlanChoice& c) {
  auto par = base.at("parallelism").without_key("layers_per_stage");  // the split follows pp
  // An explicit GPU list names the given plan's ranks; a dimension order applies to any plan.
  if (auto pl = par.find("placement"); pl && pl->is_array()) par = par.without_key("placement");
  return base.with_value("parallelism", par.dump())
      .with_value("parallelism.tp", std::to_string(c.tp))
      .with_value("parallelism.pp", std::to_string(c.pp))
      .with_value("parallelism.dp", std::to_string(c.dp))
      .with_value("parallelism.sequence_parallel", c.sequence_parallel ? "true" : "false")
      .with_value("parallelism.virtual_stages", "\"auto\"")
      .with_value("training.micro_batch", "\"auto\"")
      .with_value("training.recompute", std::string("\"") + to_string(c.recompute) + "\"");
}

// The message of an InputError about `file` without the leading "FILE: ".
std::string reason(const InputError& e, const std::string& file) {
  std::string m = e.what();
  return m.rfind(file + ": ", 0) == 0 ? m.substr(file.size() + 2) : m;
}

void print_row(size_t rank, const Candidate& c) {
  const auto& p = c.choice;
  std::printf("%4zu %4lld %4lld %5lld  %-3s %-10s %4lld %4lld %12s %10.3fs", rank, static_cast<long long>(p.tp),
              static_cast<long long>(p.pp), static_cast<long long>(p.dp), p.sequence_parallel ? "on" : "off",
              to_string(p.recompute), static_cast<long long>(c.micro_batch), static_cast<long long>(c.virtual_stages),
              format_bytes(c.memory).c_str(), c.estimated_s);
  if (c.run)
    std::printf(" %10.3fs %6.1f%%\n", c.run->step_time_s, 100 * c.run->mfu);
  else
    std::printf(" %11s %7s\n", "-", "-");
}

}  // namespace

int search(const SearchArgs& a) {
  const EngineOptions opt = engine_options(a.fidelity, a.max_wall, a.max_memory, a.config);
  check_outputs({{"-o", a.output}}, {a.config});
  const ParamReader base = scenario_reader(a.config, parse_sets(a.sets));
  const Scenario given = parse_scenario_sections(base);
  const std::vector<PlanChoice> space = plan_space(given);
  if (space.empty())
    throw InputError(
        a.config, "/cluster/gpus",
        fmt::format("no plan splits {} GPUs ({} per NVLink domain) for this model and global batch", given.cluster.gpus,
                    given.cluster.domain_gpus()),
        "tp dividing the NVLink domain's GPUs and the heads, pp at most the layers, dp dividing global_batch");

  std::vector<Candidate> all;
  for (const PlanChoice& choice : space) {
    opt.deadline.check();
    Candidate c{choice, with_plan(base, choice), std::nullopt, 0, 0, Bytes(0), 0, std::nullopt, ""};
    try {
      Scenario s = parse_scenario(c.scenario);
      ComputeModel cm(s.cluster.device, s.training.precision);
      ResolvedPlan p = resolve_plan(s, cm, opt.deadline);
      c.micro_batch = p.micro_batch;
      c.virtual_stages = p.virtual_stages;
      c.memory = p.memory.peak;
      c.estimated_s = p.estimated_step.value;
      c.resolved = s;
    } catch (const InputError& e) {
      c.rejected = reason(e, a.config);
    }
    all.push_back(std::move(c));
  }

  std::vector<Candidate*> ok;
  for (auto& c : all)
    if (c.rejected.empty()) ok.push_back(&c);
  std::stable_sort(ok.begin(), ok.end(), [](auto* x, auto* y) { return x->estimated_s < y->estimated_s; });
  const size_t simulated = std::min(ok.size(), static_cast<size_t>(a.top));
  for (size_t i = 0; i < simulated; ++i) ok[i]->run = run_scenario(*ok[i]->resolved, opt);
  std::stable_sort(ok.begin(), ok.begin() + static_cast<std::ptrdiff_t>(simulated),
                   [](auto* x, auto* y) { return x->run->step_time_s < y->run->step_time_s; });

  if (ok.empty()) {
    // The most split plan (the last: largest tp, then pp) says why; typically memory. Its own JSON
    // path and "(expected ...)" are dropped: this message has its own.
    std::string why = all.back().rejected;
    if (!why.empty() && why[0] == '/') why = why.substr(why.find(": ") + 2);
    if (auto e = why.rfind(" (expected "); e != std::string::npos) why.resize(e);
    throw InputError(
        a.config, "/parallelism",
        fmt::format("no plan can run; the most split one (tp {}, pp {}, dp {}, {} recompute): {}", all.back().choice.tp,
                    all.back().choice.pp, all.back().choice.dp, to_string(all.back().choice.recompute), why),
        "a larger cluster, a smaller model or batch, or a device with more memory");
  }
  std::printf(
      "search: %s on %lld x %s, global batch %lld: %zu plans, %zu can run, %zu cannot; the %zu fastest "
      "estimates simulated\n",
      given.model.name.c_str(), static_cast<long long>(given.cluster.gpus), given.cluster.device.name.c_str(),
      static_cast<long long>(given.training.global_batch), all.size(), ok.size(), all.size() - ok.size(), simulated);
  std::printf("%4s %4s %4s %5s  %-3s %-10s %4s %4s %12s %11s %11s %7s\n", "rank", "tp", "pp", "dp", "sp", "recompute",
              "mb", "v", "memory/GPU", "estimated", "simulated", "MFU");
  const size_t shown = std::min(ok.size(), static_cast<size_t>(a.top) + 5);
  for (size_t i = 0; i < shown; ++i) print_row(i + 1, *ok[i]);
  if (ok.size() > shown) std::printf("  ... %zu more that can run\n", ok.size() - shown);

  const Candidate& best = *ok.front();
  if (!a.output.empty()) {
    const ParamReader chosen = best.scenario.with_value("training.micro_batch", std::to_string(best.micro_batch))
                                   .with_value("parallelism.virtual_stages", std::to_string(best.virtual_stages));
    const std::string text = nlohmann::json::parse(chosen.dump()).dump(2) + "\n";
    opt.deadline.check();
    write_output(a.output, text);
    std::printf("wrote %s (rank 1)\n", a.output.c_str());
  }
  return 0;
}

}  // namespace sim::cli
