// `trainsim search CONFIG`: the fastest parallel plan for a scenario's model, cluster and batch.
//
// Every plan of workload/plan_space.hpp is given to the scenario in turn (micro_batch and
// virtual_stages "auto") and checked and planned exactly as `trainsim run` would, which prices each
// candidate with the closed-form estimate and drops what does not fit in memory (memory_budget.hpp):
// a plan none of whose candidates fits cannot run here, as under `trainsim run --strict-memory`,
// so every plan listed fits. Plans that differ
// only in the ZeRO stage are one row: the stage with the best objective (ties: less memory, then
// the lower stage). Before a candidate's step program is built, its lower bound (pipeline.hpp) is
// compared with the `top`-th best estimate so far: a plan that cannot enter the top is bounded
// out, unbuilt -- the top is exactly what planning every plan in full would give. A plan whose
// simulation is estimated to take longer than --max-sim-wall cannot run here (listed with the
// estimate). The `top` best are then simulated on the engine and ranked by the objective: the
// simulated step time (ties: the earlier plan in plan_space's order), or, for "memory", the peak
// memory per GPU (ties: the simulated step). `-o FILE` writes the winner as a scenario that
// `trainsim run` takes: the input with its parallelism and training sections set to the plan.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>

#include "sim/cli/commands.hpp"
#include "sim/cli/options.hpp"
#include "sim/cli/progress.hpp"
#include "sim/core/error.hpp"
#include "sim/core/output_file.hpp"
#include "sim/core/params.hpp"
#include "sim/cost/compute_model.hpp"
#include "sim/plan/plan_space.hpp"
#include "sim/plan/resource_estimate.hpp"
#include "sim/run/run.hpp"
#include "sim/scenario/dispatcher.hpp"

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
  bool bounded_out = false;      // its lower bound could not beat the top
  bool too_slow = false;         // its simulation would pass --max-sim-wall (`rejected` says how long)
  double bound = 0;              // bounded out: the lowest lower bound of its candidates
};

ParamReader with_plan(const ParamReader& base, const PlanChoice& c, bool moe) {
  auto par = base.at("parallelism").without_key("layers_per_stage");  // the split follows pp
  // An explicit GPU list names the given plan's ranks; a dimension order applies to any plan.
  if (auto pl = par.find("placement"); pl && pl->is_array()) par = par.without_key("placement");
  // Hybrid sharding's group size applies to the ZeRO-3 plans whose dp it divides; the others shard
  // as they do without it.
  if (auto shard = par.find("dp_shard"); shard && (c.zero != 3 || !shard->is_number() || shard->as_number() < 1 ||
                                                   c.dp % static_cast<int64_t>(shard->as_number()) != 0))
    par = par.without_key("dp_shard");
  // The experts' tensor parallelism is the candidate's (plan_space.hpp), absent its default.
  par = par.without_key("etp");
  // The overlap of expert-parallel all-to-alls goes with ep 1, which has none, and with another
  // schedule than the scenario's (DualPipe's pairs are its own; the others refuse it).
  if ((moe && c.ep == 1) || c.schedule) par = par.without_key("ep_comm_overlap");
  // Recompute modules go with selective recomputation alone.
  auto training = base.at("training");
  if (c.recompute != Recompute::SELECTIVE) training = training.without_key("recompute_modules");
  ParamReader out = base.with_value("parallelism", par.dump())
                        .with_value("training", training.dump())
                        .with_value("parallelism.tp", std::to_string(c.tp))
                        .with_value("parallelism.pp", std::to_string(c.pp))
                        .with_value("parallelism.dp", std::to_string(c.dp))
                        .with_value("parallelism.cp", std::to_string(c.cp))
                        .with_value("parallelism.zero", std::to_string(c.zero))
                        .with_value("training.precision", std::string("\"") + to_string(c.precision) + "\"")
                        .with_value("parallelism.sequence_parallel", c.sequence_parallel ? "true" : "false")
                        .with_value("parallelism.virtual_stages", "\"auto\"")
                        .with_value("training.micro_batch", "\"auto\"")
                        .with_value("training.recompute", std::string("\"") + to_string(c.recompute) + "\"");
  // On an MoE model, the plan's expert parallelism and dispatcher (plan_space.hpp).
  if (moe)
    out = out.with_value("parallelism.ep", std::to_string(c.ep))
              .with_value("parallelism.dispatcher", std::string("\"") + dispatcher(c.dispatcher).name + "\"");
  if (moe && c.etp > 0) out = out.with_value("parallelism.etp", std::to_string(c.etp));
  if (c.schedule) out = out.with_value("parallelism.schedule", std::string("\"") + to_string(*c.schedule) + "\"");
  return out;
}

// The message of an InputError about `file` without the leading "FILE: ".
std::string reason(const InputError& e, const std::string& file) {
  std::string m = e.what();
  return m.rfind(file + ": ", 0) == 0 ? m.substr(file.size() + 2) : m;
}

// A reason without its JSON path and "(expected ...)": for a message that has its own.
std::string bare_reason(std::string why) {
  if (!why.empty() && why[0] == '/') why = why.substr(why.find(": ") + 2);
  if (auto e = why.rfind(" (expected "); e != std::string::npos) why.resize(e);
  return why;
}

std::string replace_first(std::string s, const std::string& from, const std::string& to) {
  if (auto at = s.find(from); at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

// A row of the table; on an MoE model with its expert parallelism (ep, etp) and dispatcher after the precision;
// the schedule the planner resolved last.
void print_row(size_t rank, const Candidate& c, bool moe) {
  const auto& p = c.choice;
  std::printf("%4zu %4lld %3lld %4lld %5lld  %-3s %-10s %4lld %-4s", rank, static_cast<long long>(p.tp),
              static_cast<long long>(p.cp), static_cast<long long>(p.pp), static_cast<long long>(p.dp),
              p.sequence_parallel ? "on" : "off", to_string(p.recompute), static_cast<long long>(p.zero),
              to_string(p.precision));
  if (moe)
    std::printf(" %4lld %3lld %-10s", static_cast<long long>(p.ep), static_cast<long long>(p.etp > 0 ? p.etp : 1),
                dispatcher(p.dispatcher).name);
  std::printf(" %4lld %4lld %12s %10.3fs", static_cast<long long>(c.micro_batch),
              static_cast<long long>(c.virtual_stages), format_bytes(c.memory).c_str(), c.estimated_s);
  if (c.run)
    std::printf(" %10.3fs %6.1f%%", c.run->step_time_s, 100 * c.run->mfu);
  else
    std::printf(" %11s %7s", "-", "-");
  std::printf(" %s\n", c.resolved ? to_string(c.resolved->plan.schedule) : "-");
}

}  // namespace

int search(const SearchArgs& a) {
  const EngineOptions opt = engine_options(a.fidelity, a.max_wall, a.max_memory, a.config);
  const ParamReader base = scenario_reader(a.config, parse_sets(a.sets));
  const Scenario given = parse_scenario_sections(base);
  check_outputs({{"-o", a.output}}, {a.config});
  const std::vector<PlanChoice> space = plan_space(given);
  if (space.empty())
    throw InputError(
        a.config, "/cluster/gpus",
        fmt::format("no plan splits {} GPUs ({} per NVLink domain) for this model and global batch", given.cluster.gpus,
                    given.cluster.domain_gpus()),
        "tp dividing the NVLink domain's GPUs and the heads, pp at most the layers, dp dividing global_batch");

  // The platform alone passing the budget refuses every plan: say so before planning thousands.
  {
    EngineOptions sim_opt = opt;
    sim_opt.sim_wall_limit_s = a.max_sim_wall;
    sim_opt.sim_wall_option = "--max-sim-wall";
    try {
      check_budget(given, platform_floor(given, opt.full_fidelity), simulation_budget(sim_opt));
    } catch (const SimulationLimit& e) {
      throw InputError(a.config, "/cluster/gpus",
                       fmt::format("no plan can run on {} GPUs, whatever the plan: {}", given.cluster.gpus,
                                   replace_first(bare_reason(reason(e, a.config)), "this plan", "any plan")),
                       "fewer GPUs, or a larger --max-sim-wall or --max-memory");
    }
  }

  const bool by_memory = a.objective == "memory";
  // Lower is better: the estimate (ties: memory), or the memory (ties: the estimate).
  auto better = [&](const Candidate& x, const Candidate& y) {
    const double x1 = by_memory ? x.memory.value : x.estimated_s, y1 = by_memory ? y.memory.value : y.estimated_s;
    const double x2 = by_memory ? x.estimated_s : x.memory.value, y2 = by_memory ? y.estimated_s : y.memory.value;
    return x1 < y1 || (x1 == y1 && x2 < y2);
  };
  auto runs = [](const Candidate& c) { return c.rejected.empty() && !c.bounded_out; };
  const size_t top = static_cast<size_t>(a.top);

  // Plans the space's plans [first, end) -- a run differing only in the ZeRO stage -- and keeps the
  // best stage; each candidate is bounded out when it cannot beat `cutoff`.
  auto plan_row = [&](size_t first, size_t end, Seconds cutoff) {
    std::optional<Candidate> row;
    for (size_t i = first; i < end; ++i) {
      opt.deadline.check();
      Candidate c{space[i],
                  with_plan(base, space[i], given.model.moe.has_value()),
                  std::nullopt,
                  0,
                  0,
                  Bytes(0),
                  0,
                  std::nullopt,
                  "",
                  false,
                  false,
                  0};
      try {
        Scenario s = parse_scenario(c.scenario);
        ComputeModel cm(s.cluster.device, s.training.precision);
        Seconds lowest;
        if (std::optional<ResolvedPlan> p =
                resolve_plan_below(s, cm, cutoff, opt.deadline, {}, &lowest, OverMemory::REFUSE)) {
          c.micro_batch = p->micro_batch;
          c.virtual_stages = p->virtual_stages;
          c.memory = p->memory.peak;
          c.estimated_s = p->estimated_step.value;
          c.resolved = s;
        } else {
          c.bounded_out = true;
          c.bound = lowest.value;
        }
      } catch (const InputError& e) {
        c.rejected = reason(e, a.config);
      }
      // A stage that runs beats one that does not; one bounded out beats a rejection (it could run).
      // A row bounded out holds the lowest bound of its stages.
      if (row && c.bounded_out && row->bounded_out) c.bound = std::min(c.bound, row->bound);
      if (!row || (runs(c) && (!runs(*row) || better(c, *row))) ||
          (!runs(c) && !runs(*row) && c.bounded_out && (!row->bounded_out || c.bound <= row->bound)))
        row = std::move(c);
    }
    return std::move(*row);
  };
  // The `top`-th best estimate of the rows that run and are not over the simulation budget: what
  // a plan must beat to matter (infinite for the memory objective, which bounds nothing).
  auto cutoff_of = [&](const std::vector<Candidate>& rows) {
    std::vector<double> estimates;
    for (const auto& c : rows)
      if (runs(c)) estimates.push_back(c.estimated_s);
    if (by_memory || estimates.size() < top) return Seconds(std::numeric_limits<double>::infinity());
    std::nth_element(estimates.begin(), estimates.begin() + static_cast<std::ptrdiff_t>(top - 1), estimates.end());
    return Seconds(estimates[top - 1]);
  };

  std::vector<Candidate> all;
  std::vector<std::pair<size_t, size_t>> range;  // each row's plans in `space`
  {
    std::vector<double> best;  // the `top` best estimates so far, ascending
    ProgressLine progress("search: planning");
    for (size_t i = 0; i < space.size();) {
      size_t end = i + 1;
      while (end < space.size() && space[end].same_but_zero(space[i])) ++end;
      const Seconds cutoff =
          !by_memory && best.size() == top ? Seconds(best.back()) : Seconds(std::numeric_limits<double>::infinity());
      all.push_back(plan_row(i, end, cutoff));
      range.emplace_back(i, end);
      if (runs(all.back())) {
        best.insert(std::upper_bound(best.begin(), best.end(), all.back().estimated_s), all.back().estimated_s);
        if (best.size() > top) best.pop_back();
      }
      i = end;
      progress.update(static_cast<int64_t>(i), static_cast<int64_t>(space.size()));
    }
  }

  // Simulates the best rows in turn until `top` have run. A row whose simulation would pass
  // --max-sim-wall cannot run here; when one drops out, rows bounded out against it may now
  // matter, and are planned again against the new cutoff.
  EngineOptions sim_opt = opt;
  sim_opt.sim_wall_limit_s = a.max_sim_wall;
  sim_opt.sim_wall_option = "--max-sim-wall";
  sim_opt.strict_memory = true;  // every plan it simulates was planned to fit
  std::vector<Candidate*> ok;
  size_t simulated = 0;
  ProgressLine sim_progress("search: simulating");
  for (bool replan = false;; replan = false) {
    ok.clear();
    for (auto& c : all)
      if (runs(c)) ok.push_back(&c);
    std::stable_sort(ok.begin(), ok.end(), [&](auto* x, auto* y) { return better(*x, *y); });
    simulated = 0;
    for (Candidate* c : ok) {
      if (simulated == top) break;
      if (!c->run) {
        const auto& p = c->choice;
        sim_progress.doing(fmt::format("tp {} cp {} pp {} dp {} sp {} recompute {} ZeRO {} {} (estimated {:.3f} s)",
                                       p.tp, p.cp, p.pp, p.dp, p.sequence_parallel ? "on" : "off",
                                       to_string(p.recompute), p.zero, to_string(p.precision), c->estimated_s));
        try {
          c->run = run_scenario(*c->resolved, sim_opt);
        } catch (const SimulationTimeLimit& e) {
          c->rejected = reason(e, a.config);
          c->too_slow = true;
          replan = true;
          continue;
        }
      }
      sim_progress.update(static_cast<int64_t>(++simulated), static_cast<int64_t>(std::min(top, ok.size())));
    }
    if (!replan) break;
    const Seconds cutoff = cutoff_of(all);
    for (size_t r = 0; r < all.size(); ++r)  // only a row whose bound is below the new cutoff can matter now
      if (all[r].bounded_out && all[r].bound < cutoff.value) all[r] = plan_row(range[r].first, range[r].second, cutoff);
  }
  ok.erase(std::remove_if(ok.begin(), ok.end(), [&](auto* c) { return !runs(*c); }), ok.end());
  int64_t bounded = 0;
  for (const auto& c : all) bounded += c.bounded_out;
  std::stable_sort(ok.begin(), ok.begin() + static_cast<std::ptrdiff_t>(simulated), [&](auto* x, auto* y) {
    if (by_memory && x->memory.value != y->memory.value) return x->memory.value < y->memory.value;
    return x->run->step_time_s < y->run->step_time_s;
  });

  if (ok.empty()) {
    // The most split plan (the last of the scenario's schedule: largest tp, then cp, then pp) says
    // why; typically memory. Its own JSON path and "(expected ...)" are dropped: this message has
    // its own.
    auto last = all.rbegin();
    while (last->choice.schedule && std::next(last) != all.rend()) ++last;
    const Candidate& most = *last;
    const std::string why = bare_reason(most.rejected);
    throw InputError(
        a.config, "/parallelism",
        fmt::format("no plan can run; the most split one (tp {}, cp {}, pp {}, dp {}, {} recompute, ZeRO {}): {}",
                    most.choice.tp, most.choice.cp, most.choice.pp, most.choice.dp, to_string(most.choice.recompute),
                    most.choice.zero, why),
        "a larger cluster, a smaller model or batch, or a device with more memory");
  }
  std::printf(
      "search: %s on %lld x %s, global batch %lld: %zu plans (%zu with their ZeRO stages), %zu can run, %lld bounded "
      "out (could not beat the %lld best estimates), %zu cannot; the %zu %s simulated\n",
      given.model.name.c_str(), static_cast<long long>(given.cluster.gpus), given.cluster.device.name.c_str(),
      static_cast<long long>(given.training.global_batch), all.size(), space.size(), ok.size(),
      static_cast<long long>(bounded), static_cast<long long>(a.top),
      all.size() - ok.size() - static_cast<size_t>(bounded), simulated,
      by_memory ? "smallest memory estimates" : "fastest estimates");
  const bool moe = given.model.moe.has_value();
  std::printf("%4s %4s %3s %4s %5s  %-3s %-10s %4s %-4s", "rank", "tp", "cp", "pp", "dp", "sp", "recompute", "zero",
              "prec");
  if (moe) std::printf(" %4s %3s %-10s", "ep", "etp", "dispatcher");
  std::printf(" %4s %4s %12s %11s %11s %7s %s\n", "mb", "v", "memory/GPU", "estimated", "simulated", "MFU", "schedule");
  const size_t shown = std::min(ok.size(), static_cast<size_t>(a.top) + 5);
  for (size_t i = 0; i < shown; ++i) print_row(i + 1, *ok[i], moe);
  if (ok.size() > shown) std::printf("  ... %zu more that can run\n", ok.size() - shown);
  // Plans skipped for the time their simulation would take: the best estimates are not always
  // among what was simulated, and the user should know which and what allowing them would cost.
  const Candidate* slow = nullptr;
  size_t slow_count = 0;
  for (const auto& c : all) {
    if (!c.too_slow) continue;
    ++slow_count;
    if (!slow || better(c, *slow)) slow = &c;
  }
  if (slow) {
    const auto& p = slow->choice;
    std::printf(
        "search: %zu plans among the best estimates were not simulated, each over --max-sim-wall %g s; the best of "
        "them (tp %lld cp %lld pp %lld dp %lld sp %s recompute %s ZeRO %lld %s, estimated %.3f s): %s\n",
        slow_count, a.max_sim_wall, static_cast<long long>(p.tp), static_cast<long long>(p.cp),
        static_cast<long long>(p.pp), static_cast<long long>(p.dp), p.sequence_parallel ? "on" : "off",
        to_string(p.recompute), static_cast<long long>(p.zero), to_string(p.precision), slow->estimated_s,
        slow->rejected.c_str());
  }

  const Candidate& best = *ok.front();
  if (!a.output.empty()) {
    const ParamReader chosen =
        best.scenario.with_value("training.micro_batch", std::to_string(best.micro_batch))
            .with_value("parallelism.virtual_stages", std::to_string(best.virtual_stages))
            .with_value("parallelism.schedule", std::string("\"") + to_string(best.resolved->plan.schedule) + "\"");
    const std::string text = nlohmann::json::parse(chosen.dump()).dump(2) + "\n";
    opt.deadline.check();
    write_output(a.output, text);
    std::printf("wrote %s (rank 1)\n", a.output.c_str());
  }
  return 0;
}

}  // namespace sim::cli
