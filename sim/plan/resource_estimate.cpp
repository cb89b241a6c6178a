#include "sim/plan/resource_estimate.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <mutex>
#include <numeric>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/comm/comm_plan.hpp"
#include "sim/comm/dp_fold.hpp"
#include "sim/comm/ring_channels.hpp"
#include "sim/core/error.hpp"
#include "sim/plan/estimate.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/topology/fabric.hpp"
#include "sim/topology/placement.hpp"
#include "sim/workload/grad_sync.hpp"
#include "sim/workload/pipeline.hpp"
#include "sim/workload/schedule.hpp"
#include "sim/workload/stage_layout.hpp"

namespace sim {
namespace {

// Coefficients, each measured with `/usr/bin/time -f "%e %M" trainsim run CONFIG -q` on the
// development machine (2 cores, 23 GiB, SimGrid 3.32, Release build; the faster of two runs, one for runs over 30 s).
// "G GPUs tp/pp/dp" is a scenario generated for the purpose: gpt3-175b (or gpt-7.5b where said)
// on dgx-a100-superpod with G GPUs, tp/pp/dp as given, sequence parallel, ZeRO 1, micro_batch 1,
// 8 microbatches unless said. Memory is the peak resident set (the simulation process's); wall the
// whole command's.
//
// memory
//   BASE_BYTES       configs/quickstart.json: 35.1 MB (32 hosts, 10 tasks): the process itself.
//   BYTES_PER_HOST   16384 GPUs 8/8/256 with 64 NICs per node (147,456 hosts) 437.0 MB, minus with
//                    1 NIC per node (18,432 hosts) 85.4 MB, same flows: 2,725 B per host.
//   BYTES_PER_TASK   64 GPUs 8/8/1, 12 virtual stages: 5,456 microbatches (1,047,562 tasks)
//                    780.6 MB minus 1,360 (261,130 tasks) 213.7 MB: 721 B per task.
//   BYTES_PER_FLOW   gpt-7.5b, 16384 GPUs 8/1/2048 (16,384 flows in flight) 125.2 MB minus 8/32/64
//                    (3,584 in flight) 103.9 MB, same hosts: 1,660 B per flow.
//   BYTES_PER_ACTOR  16384 GPUs 8/8/256 at full fidelity (16,384 actors) 358.1 MB minus class
//                    fidelity (8 actors) 124.8 MB: 14.2 KB per actor.
// wall: the simulation's CPU time (user + system, its child included: trainsim runs one thread
// at a time, so on an idle machine that is its wall), measured by scripts/estimate-check on the
// 2-core development machine at load 6 to 20 (other builds running: the walls were 2 to 9 times the
// CPU time, which is why CPU time was taken), the smaller of two runs, over its whole set: every
// scenario of configs/ (the reliability ones without their failures: the Monte Carlo has its own
// estimate, job_reliability.cpp), every row of validation/published-{a100,h100,tpu-v4}.json and
// scripts/bench's cases (GPT-3 175B TP 8 PP 8 at 1,024 to 131,072 GPUs; Llama 3 405B on 16,384 H100;
// GPT-3 175B on 1,024 A100 at full fidelity), and the 16384-GPU 8/8/256 run of BYTES_PER_HOST at
// class and at full fidelity (0.86 s and 37.7 s): 88 runs of 0.14 s to 37.7 s, 1 to 2.3 million
// transfers. S_PER_HOST, S_PER_TRANSFER, S_PER_IN_FLIGHT_SCAN and S_PER_ACTOR_RUN were fitted
// together over all of them (the others held at their own sources below), minimising the largest
// factor between estimate and CPU time, runs under 0.5 s counted as 0.5 s (their time is the
// process's start, not what the terms count). With a folded rank's ring flows counted as the
// variant NCCL picks at each of its buffers (fold_shape) and every flow in flight walked past
// (the maestro's list, below), scripts/estimate-check's 96 runs on the idle machine lie at 0.47
// to 2.0 times their CPU time with jemalloc, whose S_PER_IN_FLIGHT_SCAN, S_PER_ACTOR_RUN and
// S_PER_COUPLED_PAIR are measured below (0.47 to 3.1 with glibc's malloc and its own). The least:
// the in-memory checkpoint study (its step alone was priced then; its trials are added since,
// job_reliability.cpp) and the deepest
// interleaved pipelines (k22-1T); the most, the Llama 3 405B reliability configs' step (0.9 s
// measured for 1.75 s: its platform of 49,152 hosts costs less per host than S_PER_HOST).
// With glibc's malloc, past about 10,000 flows in flight a scan step costs more than
// S_PER_IN_FLIGHT_SCAN (the list's nodes, scattered among larger objects, no longer fit the
// caches): GPT-3 175B on 4,096 to 16,384 H100, whose NVLS-tree reductions do not fold, took 32 to
// 46 ns per step at a mean list of 11,000 to 19,000 (16,384: 38.6 s, estimated 9.6 s).
//   S_PER_HOST       34 us a route end (two per GPU): building the platform and SimGrid's name-keyed
//                    maps; GPT-3 175B at 131,072 GPUs, 262,144 hosts, took 10.6 s (3.4 s idle).
//   S_PER_TRANSFER   7 us a transfer the engine starts (pipeline, gradient-reduction and probe flows):
//                    k22-1T-full, 130,074 transfers of the pipeline, 1.7 s.
//   S_PER_IN_FLIGHT_SCAN  per flow in flight when a flow ends: SimGrid 3.32's CommImpl::finish
//                    unlinks a detached flow from the maestro's activity list with
//                    std::list::remove, which walks the whole list. With glibc's malloc 9.4 ns
//                    (perf: 72% of nemo-b200-gpt3-175b-512g-fp8's 2.8 s in that loop, 1.4e8 such
//                    steps), more past about 10,000 in flight (above). With jemalloc, which keeps
//                    the list's nodes together, 3 ns: fitted with the other coefficients held, over
//                    scripts/estimate-check's 95 runs on the idle machine (largest factor 2.7, the
//                    in-memory checkpoint study, whose Monte Carlo the step's estimate leaves out;
//                    9.4 ns there: 2.9); GPT-3 175B TP 8 PP 8 on 16,384 H100 (7.5e8 steps) took 4.0 s.
//   S_PER_ACTOR_RUN  4.4 ns per actor and task run: full fidelity's actors switching (16,384 actors,
//                    299,008 task runs: 37.7 s), with glibc's malloc; the same run measured 238 s of
//                    CPU on the idle machine against an estimate of 253 s. With jemalloc 0.7 ns: that
//                    run (5.23e10 actor task runs, 3.19e6 transfers, 32,768 hosts) took 60.2 s of
//                    CPU, less 23.5 s of its other terms.
//   S_PER_LIVE_FLOW  a fuzz_scenario input (test/fuzz/regressions/fuzz_scenario/live-tp-collectives-took-seconds):
//                    a 76-layer model on 192 b200, tp 8 across two 4-GPU nodes, pp 8, dp 3, 16
//                    microbatches, class fidelity: 317,616 flows, all but 2,328 of them live TP
//                    collectives, 0.85 s; the same with 8 GPUs per node (TP inside a node, no live
//                    flow) 0.04 s: 2.55 us per live flow, kept for a step SimGrid moves (not folded).
//                    In the fluid network, since it solves routes, 0.5 us: that input at global batch
//                    1,920 (3.16e6 flows) took 1.09 s of CPU, and DeepSeek-V3 on 512 H100 with ep 64
//                    across 8 nodes (11.4e6 live all-to-all flows) 6.3 s, both on the loaded
//                    development machine (0.35 and 0.55 us).
//   BYTES_PER_FOLDED_RING_FLOW  the fold's workspace (routes and groups, in the planner and the
//                    engine's child): gpt3-175b 8/8/2048 on 131,072 GPUs, 96 microbatches,
//                    virtual_stages 1 (131,072 ring flows folded to 3 per rank) 744 MiB, and
//                    resources.sh's 10^6 GPUs 8/8/15625 (10^6 ring flows) 5.48 GiB, less the other
//                    terms: 225 and 403 B per ring flow; the larger is taken.
// The folded step (the engine's fluid network, replay.cpp "Folding"; nothing of it in SimGrid):
// fitted together, minimising the largest factor between estimate and CPU time (runs under 0.5 s
// counted as 0.5 s), over scripts/estimate-check's 184 runs on the idle machine (every config,
// validation row and bench case, scripts/bench's matrix included) but for four it cannot price
// (below): the worst factor 2.7 (TPU v4 HSDP at 65,536 and 131,072 chips, 0.37; TPU v4 ZeRO-1 at
// 16,384, 2.3).
//   S_PER_FABRIC_END  2.5 us a route end: the fabric, the placement and the fold's pass over every
//                    data-parallel group (A100 nodes, 131,072 GPUs, ZeRO-1: 262,144 ends, 0.76 s
//                    of CPU with its other terms).
//   S_PER_FLUID_TRANSFER  5 us a pipeline transfer (the receiver's wait, the network daemon's
//                    wake, the solve of its links): t1-gpt-1008B, 130,202 transfers, 0.61 s.
//                    Both refitted (they were 5 and 14 us) when a tree channel came to move as one
//                    pipeline (collective_flows.hpp, MemberFlow::pipe) and the fluid network to
//                    solve routes: scripts/estimate-check's 216 runs on the idle machine lie at
//                    0.64 (DGX A100 HSDP at 131k) to 2.08 (DGX B200 ZeRO-2 at 65k) times their CPU
//                    time, where the old coefficients put 12 of them at 2.7 to 3.06.
//   S_PER_FLUID_RING_FLOW  1 us a gradient-reduction flow the engine starts (a cell's), and
//   S_PER_FLUID_SCAN  0.08 us a flow in flight when its component is solved again (fluid_scans):
//                    refitted with the others held when the fluid network came to solve routes
//                    rather than flows (each route's flows one rate; those whose rate stands left
//                    as they are), over the bench matrix's 96 cells (scripts/estimate-check's CPU
//                    times, the terms from `trainsim check`), minimising the largest factor: 0.49
//                    (GB200 HSDP at 16k, Llama 3 cluster HSDP at 131k, whose components of
//                    thousands of cells the scans undercount) to 2.05 (A100 ZeRO-1 at 131k). They
//                    were 4 us and 0.3 us: DGX B200 ZeRO-3 at 65k, 1.1 s, was estimated at 4.3 s.
//   S_PER_FOLD_LINK  1.4 us a link of a flow's route in the fold (EngineShape::fold_links): its
//                    routes, split, classes and quotient, timed around fold_dp_flows (at d704bad)
//                    on the bench matrix's 65k cells and two at 16k, per link: 1.0 (DGX A100 ZeRO-1,
//                    H100 HSDP, Llama 3 HSDP, TPU v4 16k ZeRO-1), 1.1 and 1.3 (A100, Llama 3
//                    ZeRO-3), 1.4 to 1.5 (TPU v4 ZeRO-3, H100 ZeRO-3), 1.8 to 1.9 (TPU v4 HSDP at
//                    16k and 65k, GB200 HSDP) us: 1.4 is within 1.4 times of each.
//                    Before the fold split shared uplinks and kept replicas alike (d70b4aa),
//                    ZeRO-3 and HSDP at 65,536 GPUs and HSDP at 131,072 took 90 s, 146 s and 371 s
//                    against 28 to 60 s estimated.
//   S_PER_COUPLED_PAIR  (41 ns, ring flows in flight not priced by their square:
//                    the 178.8 s run below less its other terms over its 4.16e9 pairs) components that do not fold
//                    (resource_estimate.hpp, "coupled pairs"): llama3-405b on llama3-24k's 16,384 H100 (pods of 3,072
//                    GPUs, 1:7 above), fp8, NVLS-tree gradient reductions whose trees cross the pod uplinks, one
//                    component of 64,512 flows (4.16e9 pairs): tp 1, cp 8, pp 32, dp 64, v 2, 24,204 flows in flight,
//                    109.5 s less 5.8 s of the other terms: 25 ns, taken as 26. Then tp 4, cp 8, pp 32, dp 16, v 2
//                    (64,544 in flight, whose in-flight term is 86 s) is estimated at 194 s and took 178.8 s at global
//                    batch 512, 188.8 s at 1,024 (at 1:1, where the trees fold, 3.7 s). SimGrid re-solves a component's
//                    max-min sharing at each of its flows' events (lmm::MaxMin::do_solve and
//                    update_modified_cnst_set_rec were 27% of a perf profile, its flow list most of the rest).
//                    That is with glibc's malloc. With jemalloc 3.5 ns: the tp 1, cp 8 run took 17.2 s of CPU
//                    on the idle machine, less 2.7 s of its other terms, over its 4.16e9 pairs; tp 8, pp 16,
//                    dp 128, v 4, ZeRO-2 with overlapped buckets (4.23e9 pairs, 3.7e9 in-flight scans) is
//                    then estimated at 29.6 s and took 23.4 s. (All measured at d70b4aa; since, the fold
//                    splits the uplinks per group and these runs fold: 37,584 transfers, 1.0 s for tp 4,
//                    cp 8. Coupled pairs remain where groups share a link they cannot split: a route's
//                    first or last link, e.g. a NIC two groups cross.)
// Against all 31 runs of the set (class and full fidelity, 16 to 65,536 GPUs, pp 1 to 36, 10 to
// 10^6 tasks; 0.01 s to 127 s, 35 MB to 781 MB): memory estimates are 1.0 to 1.7 times the
// measured peak (the most over on small runs, whose child process has not touched the parent's
// libraries). Those ratios are from before the fold; since, the gpt3-175b runs at 8/8/(GPUs/64) with 96 microbatches
// measured 0.96 (131,072 GPUs) and 0.97 (10^6) of their memory before the fold's term, 1.03 and 1.0 with it.
constexpr double BASE_BYTES = 35.1e6;
constexpr double BYTES_PER_HOST = 2725;
constexpr double BYTES_PER_TASK = 721;
constexpr double BYTES_PER_FLOW = 1660;
constexpr double BYTES_PER_ACTOR = 14.2e3;
constexpr double S_PER_HOST = 34e-6;
constexpr double S_PER_TRANSFER = 7e-6;
constexpr double BYTES_PER_FOLDED_RING_FLOW = 400;
constexpr double S_PER_FOLD_LINK = 1.4e-6;
constexpr double S_PER_LIVE_FLOW = 2.55e-6;
constexpr double S_PER_FLUID_LIVE_FLOW = 0.5e-6;
constexpr double S_PER_FABRIC_END = 2.5e-6;
constexpr double S_PER_FLUID_TRANSFER = 5e-6;
constexpr double S_PER_FLUID_RING_FLOW = 1e-6;
constexpr double S_PER_FLUID_SCAN = 0.08e-6;
#ifdef TRAINSIM_JEMALLOC  // the trainsim binary's allocator (CMakeLists.txt)
constexpr double S_PER_IN_FLIGHT_SCAN = 3e-9;
constexpr double S_PER_ACTOR_RUN = 0.7e-9;
constexpr double S_PER_COUPLED_PAIR = 3.5e-9;
#else
constexpr double S_PER_IN_FLIGHT_SCAN = 9.4e-9;
constexpr double S_PER_ACTOR_RUN = 4.4e-9;
constexpr double S_PER_COUPLED_PAIR = 41e-9;
#endif

// How many times rank r launches its rings: once per gradient bucket when overlapped (grad_sync.hpp,
// grad_buckets), else once.
int64_t launches(const Scenario& s, const StageLayout& layout, int64_t r) {
  if (s.plan.grad_group_size() < 2) return 0;
  if (!s.plan.overlap_grad_reduce) return 1;
  int64_t n = 0;
  for (int64_t c = 0; c < layout.virtual_stages; ++c) n += static_cast<int64_t>(grad_buckets(s, layout, r, c).size());
  return n;
}

double replicas(const Scenario& s, bool full) { return full ? double(s.plan.tp * s.plan.cp * s.plan.dp) : 1.0; }

// The ring flows rank r launches at once: the engine folds them at class fidelity without a failure.
bool folds(const Scenario& s, const EngineShape& c, bool full) {
  return !full && !s.step_faults.failure() && !c.folded_rank_flows.empty();
}
double launch_flows(const Scenario& s, const EngineShape& c, int64_t r, bool full) {
  return (folds(s, c, full) ? c.folded_rank_flows : c.rank_flows)[static_cast<size_t>(r)];
}
double folded_ring_flows(const Scenario& s, const EngineShape& c, bool full) {
  return folds(s, c, full) ? std::accumulate(c.rank_flows.begin(), c.rank_flows.end(), 0.0) : 0.0;
}

// The engine's fold (replay.cpp, "Folding") of the same flows on the same fabric, without slow
// NICs, for the gradient buffers of each rank (engine_shape): the flows each rank launches per
// launch (one per cell of the quotient, flow_quotient.hpp), and the sum over the components the
// engine simulates of the square of their cells (EngineShape::coupled_pairs).
void fold_shape(const Scenario& s, const Placement& place, const Fabric& fabric,
                const std::vector<std::vector<GradBucket>>& buffers, EngineShape& shape) {
  std::vector<double> capacity;
  for (int64_t l = 0; l < static_cast<int64_t>(fabric.network().links().size()); ++l)
    capacity.push_back(fabric.capacity(l));
  const CommPlan comm(s, place, fabric);
  const auto fold = fold_dp_flows(s, comm, place, buffers, capacity);
  const auto& [set, flows, variants, keep, component, shared, quotient] = *fold;
  std::map<int64_t, double> kept;                                  // cells per component
  std::map<std::tuple<int64_t, int64_t, int64_t>, double> of_run;  // cells per (rank, group, variant)
  std::map<int64_t, int64_t> rank_of;                              // per component, a rank of its cells
  shape.coupled = false;
  for (const auto& cell : quotient.cells) {
    const auto i = static_cast<size_t>(cell.flow);
    of_run[std::make_tuple(set.flows[i].rank, flows[i].group, flows[i].variant)] += 1;
    kept[component[i]] += 1;
    const int64_t r = rank_of.try_emplace(component[i], set.flows[i].rank).first->second;
    shape.coupled = shape.coupled || r != set.flows[i].rank;
  }
  // A launch runs each group's all-reduce with the one variant NCCL picks at its buffer: a rank's
  // flows per launch are the mean over its buffers of those variants' kept flows.
  shape.folded_rank_flows.assign(static_cast<size_t>(s.plan.pp), 0.0);
  for (int64_t r = 0; r < s.plan.pp; ++r) {
    const auto& mine = buffers[static_cast<size_t>(r)];
    if (mine.empty()) continue;
    double sum = 0;
    for (int64_t g = 0; g < grad_groups(s.plan); ++g) {
      const auto members = dp_group(s.plan, place, r, g);
      for (const GradBucket& b : mine) {
        const Bytes buffer = group_buffer(s.plan, g, b);
        if (buffer.value <= 0) continue;
        const CollectiveChoice ch = comm.choose(b.kind, members, buffer);
        const auto v =
            std::find(variants.begin(), variants.end(), DpVariant{b.kind, ch.algo, ch.protocol}) - variants.begin();
        if (auto it = of_run.find(std::make_tuple(r, g, static_cast<int64_t>(v))); it != of_run.end())
          sum += it->second;
      }
    }
    shape.folded_rank_flows[static_cast<size_t>(r)] = sum / double(mine.size());
  }
  shape.coupled_pairs = 0;
  for (const auto& [c, n] : kept) shape.coupled_pairs += n * n;
  shape.fold_links = 0;
  for (const auto& f : set.flows) shape.fold_links += double(set.routes[static_cast<size_t>(f.route)].links.size());
}

// The flows of the step's live collectives (resource_estimate.hpp): the engine decides which run
// live from the groups of the first rank class (replay.cpp, probe_collectives), and so does this.
double live_flows(const Scenario& s, const StepProgram& p, bool full) {
  const auto& pl = s.plan;
  const auto fabric = Fabric::of(s.cluster);
  const Placement place(s.cluster, pl);
  const CommPlan comm(s, place, *fabric);
  const std::vector<int64_t> groups[3] = {model_group(pl, place, CommGroup::TP), model_group(pl, place, CommGroup::CP),
                                          model_group(pl, place, CommGroup::EP)};
  // At full fidelity each group's first member runs it: cp*dp groups of tp, tp*dp of cp, tp*cp*dp/ep of ep.
  const double runs[3] = {full ? double(pl.cp * pl.dp) : 1.0, full ? double(pl.tp * pl.dp) : 1.0,
                          full ? double(pl.tp * pl.cp * pl.dp / pl.ep) : 1.0};
  std::map<std::tuple<int, int, double>, double> per_use;
  double n = 0;
  std::vector<double> runs_of(p.tasks.size(), 0.0);  // how many slots run each task
  for (const auto& program : p.ranks)
    for (const StepSlot& slot : program) runs_of[static_cast<size_t>(slot.task)] += 1;
  for (size_t k = 0; k < p.tasks.size(); ++k)
    for (const auto& use : p.tasks[k].collectives) {
      if (use.chunks != 0) continue;  // overlapped: priced by its probe (replay.cpp, runs_live)
      const int group = static_cast<int>(use.group);
      const auto key = std::make_tuple(group, static_cast<int>(use.kind), use.bytes.value);
      auto found = per_use.find(key);
      if (found == per_use.end()) {
        const CommOp op = comm.collective(use.kind, groups[group], use.bytes);
        found = per_use.emplace(key, comm.leaves_domain(op) ? double(op.flows.size()) : 0.0).first;
      }
      n += found->second * double(use.count) * runs[group] * runs_of[k];
    }
  return n;
}

// The wall time of a step of size n, its flows in the fluid network (folded) or in SimGrid's.
double wall_of(const SimulationSize& n, bool fluid) {
  const double pipeline = n.flows - n.live_flows - (fluid ? n.ring_flows : 0.0);
  return (fluid ? S_PER_FABRIC_END : S_PER_HOST) * double(n.hosts) +
         (fluid ? S_PER_FLUID_TRANSFER : S_PER_TRANSFER) * pipeline +
         (fluid ? S_PER_FLUID_RING_FLOW : 0.0) * n.ring_flows + S_PER_IN_FLIGHT_SCAN * n.in_flight_scans +
         S_PER_ACTOR_RUN * double(n.actors) * double(n.task_runs) + S_PER_FOLD_LINK * n.fold_links +
         (fluid ? S_PER_FLUID_LIVE_FLOW : S_PER_LIVE_FLOW) * n.live_flows +
         (fluid ? 0.0 : S_PER_COUPLED_PAIR) * n.coupled_pairs + S_PER_FLUID_SCAN * n.fluid_scans;
}

// A lower bound (`lower`) takes the cheaper of the two engines where the plan alone does not yet
// decide which one runs (platform_floor, the estimate before the step program).
ResourceEstimate price(SimulationSize n, bool lower = false) {
  ResourceEstimate e;
  e.size = n;
  e.memory = Bytes(BASE_BYTES + BYTES_PER_HOST * double(n.hosts) + BYTES_PER_TASK * double(n.tasks) +
                   BYTES_PER_ACTOR * double(n.actors) + BYTES_PER_FLOW * n.peak_flows +
                   BYTES_PER_FOLDED_RING_FLOW * n.folded_ring_flows);
  e.wall = Seconds(lower ? std::min(wall_of(n, true), wall_of(n, false)) : wall_of(n, n.fluid));
  e.lower_bound = lower;
  return e;
}

// "0.0031 s", "594 s", "5.43e+04 s (15.1 h)"
std::string seconds_text(double s) {
  std::string t = s < 10    ? fmt::format("{:.2g} s", s)
                  : s < 1e5 ? fmt::format("{:.0f} s", s)
                            : fmt::format("{:.3g} s", s);
  if (s >= 3600) t += fmt::format(" ({:.1f} h)", s / 3600);
  return t;
}

}  // namespace

EngineShape counted_shape(const Scenario& s) {
  const auto& pl = s.plan;
  EngineShape n;
  n.hosts = Fabric::of(s.cluster)->ends();
  n.rank_flows.assign(static_cast<size_t>(pl.pp), 0.0);
  if (pl.grad_group_size() < 2) return n;
  const Placement place(s.cluster, pl);
  for (int64_t r = 0; r < pl.pp; ++r)
    for (int64_t g = 0; g < grad_groups(pl); ++g) {
      const auto members = dp_group(pl, place, r, g);
      n.rank_flows[static_cast<size_t>(r)] += double(ring_channels(place, members)) * double(members.size());
    }
  n.folded_rank_flows.assign(static_cast<size_t>(pl.pp), 0.0);
  n.fold_links = std::accumulate(n.rank_flows.begin(), n.rank_flows.end(), 0.0);
  return n;
}

EngineShape engine_shape(const Scenario& s, const StepProgram* p) {
  const auto& c = s.cluster;
  const auto& pl = s.plan;
  const auto fabric = Fabric::of(c);
  if (pl.grad_group_size() < 2) return counted_shape(s);
  constexpr double kLargest = 1024.0 * 1024 * 1024 * 1024;
  const auto buffers = p ? dp_buffers(*p)
                         : std::vector<std::vector<GradBucket>>(static_cast<size_t>(pl.pp),
                                                                {GradBucket{Bytes(kLargest), Bytes(kLargest)}});
  // The shape follows from the plan's communication shape and the buffers alone, and a search
  // prices many plans that differ in neither (only in recompute, sequence parallelism or
  // precision): the shapes computed last are kept, at most kKept.
  constexpr size_t kKept = 256;
  using Key = std::pair<CommShape, std::vector<std::vector<double>>>;
  static std::mutex mutex;
  static std::map<Key, EngineShape> kept;
  Key key{comm_shape(fabric->serial(), s), {}};
  for (const auto& rank : buffers) {
    key.second.emplace_back();
    for (const GradBucket& b : rank) {
      key.second.back().push_back(b.dense.value);
      key.second.back().push_back(b.expert.value);
      key.second.back().push_back(static_cast<double>(b.kind));
    }
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = kept.find(key); it != kept.end()) return it->second;
  }
  EngineShape n = counted_shape(s);
  fold_shape(s, Placement(c, pl), *fabric, buffers, n);
  std::lock_guard<std::mutex> lock(mutex);
  if (kept.size() >= kKept) kept.clear();
  kept.emplace(std::move(key), n);
  return n;
}

ResourceEstimate estimate_resources(const Scenario& s, const EngineShape& c, const StageLayout& layout,
                                    int64_t microbatches, bool full_fidelity) {
  const auto& pl = s.plan;
  SimulationSize n;
  n.hosts = c.hosts;
  n.actors = full_fidelity ? s.cluster.gpus : pl.pp;
  // Forward and backward (and weight gradients) per microbatch and virtual stage, then a reduction
  // and an optimizer step per rank (and the embedding exchange): every task but the first receives
  // at most once.
  const int64_t units = pipeline_schedule(pl.schedule).splits_backward ? 3 : 2;
  n.tasks = units * microbatches * layout.virtual_stages * pl.pp + 3 * pl.pp;
  n.task_runs = int64_t(double(n.tasks) * replicas(s, full_fidelity));
  n.flows = double(n.task_runs);
  n.folded_ring_flows = folded_ring_flows(s, c, full_fidelity);
  n.coupled_pairs = folds(s, c, full_fidelity) ? c.coupled_pairs : 0.0;
  n.fold_links = c.fold_links;
  n.fluid = folds(s, c, full_fidelity);
  for (int64_t r = 0; r < pl.pp; ++r) {
    const double f = launch_flows(s, c, r, full_fidelity) * double(launches(s, layout, r));
    n.flows += f;
    n.ring_flows += f;
    n.peak_flows = std::max(n.peak_flows, f);
  }
  return price(n, true);
}

ResourceEstimate estimate_resources(const Scenario& s, const EngineShape& c, const StepProgram& p,
                                    const Estimate& timeline, bool full_fidelity) {
  const auto& pl = s.plan;
  SimulationSize n;
  n.hosts = c.hosts;
  n.actors = full_fidelity ? s.cluster.gpus : pl.pp;
  n.tasks = p.slots();
  n.task_runs = int64_t(double(n.tasks) * replicas(s, full_fidelity));
  double data_edges = 0;
  for (const auto& program : p.ranks)
    for (const StepSlot& slot : program) data_edges += slot.from_rank >= 0 ? 1 : 0;
  n.flows = data_edges * replicas(s, full_fidelity);
  n.folded_ring_flows = folded_ring_flows(s, c, full_fidelity);
  n.coupled_pairs = folds(s, c, full_fidelity) ? c.coupled_pairs : 0.0;
  n.fold_links = c.fold_links;
  n.fluid = folds(s, c, full_fidelity);
  n.live_flows = live_flows(s, p, full_fidelity);
  n.flows += n.live_flows;
  // The flows in flight when each flow ends: SimGrid 3.32 starts a host-to-host flow detached
  // (s4u::Comm::sendto_init), which files it in the maestro's one list of activities, and unlinks
  // it when it ends by a scan of that whole list (CommImpl::finish, std::list::remove): every flow
  // in flight, of every rank and actor, is walked past once per flow that ends. (Counted in the
  // engine through Activity::on_completion: GPT-3 175B TP 8 PP 8 on 16,384 GPUs, 2.96e7 steps on
  // A100 nodes and 7.51e8 on H100 nodes, against 3.2e7 and 7.9e8 here.) A launch's flows are in
  // flight from its start until the closed-form timeline's channel has carried it (estimate.hpp,
  // dp_launches); at full fidelity the launch is every actor's of the rank.
  // (time, +flows at a start / -flows at an end) of rank r's launches, or every rank's (r < 0), in
  // time order, starts first.
  const auto launch_events = [&](int64_t only) {
    std::vector<std::pair<double, double>> events;
    for (size_t r = 0; r < timeline.dp_launches.size(); ++r) {
      if (only >= 0 && static_cast<int64_t>(r) != only) continue;
      const double per_launch = launch_flows(s, c, static_cast<int64_t>(r), full_fidelity);
      for (const auto& l : timeline.dp_launches[r]) {
        events.emplace_back(l.start.value, per_launch * double(l.buffers));
        events.emplace_back(l.end.value, -per_launch * double(l.buffers));
      }
    }
    std::sort(events.begin(), events.end(), [](const auto& a, const auto& b) {
      return a.first < b.first || (a.first == b.first && a.second > b.second);
    });
    return events;
  };
  const auto ends = launch_events(-1);
  double in_flight = 0;
  for (const auto& [time, delta] : ends) {
    if (delta < 0 && !n.fluid) n.in_flight_scans += -delta * in_flight;
    in_flight += delta;
  }
  // The fluid network solves a component again at each of its events, over the flows in flight in
  // it: a launch's starts and ends (its flows' latencies paid, its flows ended) each meet the
  // flows in flight then, every rank's where the fold's components join ranks (a shared pod
  // uplink), else the rank's own; a pipeline transfer's start and end meet the flows in flight
  // then, on average the area under them over the step.
  const auto fluid_scans = [&](const std::vector<std::pair<double, double>>& events, double transfers) {
    double active = 0, area = 0, last = 0;
    for (const auto& [time, delta] : events) {
      area += active * (time - last);
      last = time;
      active += delta;
      n.fluid_scans += std::max(active, -delta);
    }
    if (timeline.step.value > 0) n.fluid_scans += 2 * transfers * area / timeline.step.value;
  };
  if (n.fluid && c.coupled) fluid_scans(ends, data_edges);
  if (n.fluid && !c.coupled)
    for (size_t r = 0; r < timeline.dp_launches.size(); ++r)
      fluid_scans(launch_events(static_cast<int64_t>(r)), data_edges / double(p.ranks.size()));
  // Each rank's ring flows are in flight from its first launch (at the latest, when the task
  // before the launching one ends) until its reduction task ends.
  std::vector<std::pair<double, double>> events;  // (time, +flows at a launch / -flows at the end)
  for (size_t r = 0; r < p.ranks.size(); ++r) {
    const auto& prog = p.ranks[r];
    double launched = 0, start = -1;
    for (size_t i = 0; i < prog.size(); ++i) {
      const Task& t = p.task(r, i);
      const double per_launch = launch_flows(s, c, static_cast<int64_t>(r), full_fidelity);
      const double here = t.kind == TaskKind::DP_REDUCE ? (t.dp_bytes.total() > 0 ? per_launch : 0.0)
                                                        : per_launch * double(t.dp_buckets.size());
      if (here > 0 && start < 0) start = i > 0 ? timeline.finish[r][i - 1].value : 0.0;
      launched += here;
      if (t.kind == TaskKind::DP_REDUCE && launched > 0) {
        events.emplace_back(start, launched);
        events.emplace_back(timeline.finish[r][i].value, -launched);
        n.flows += launched;
        n.ring_flows += launched;
        launched = 0, start = -1;
      }
    }
  }
  std::sort(events.begin(), events.end(), [](const auto& a, const auto& b) {
    return a.first < b.first || (a.first == b.first && a.second > b.second);  // launches first
  });
  double now = 0;
  for (const auto& [time, delta] : events) n.peak_flows = std::max(n.peak_flows, now += delta);
  return price(n);
}

ResourceEstimate platform_floor(const Scenario& s, bool full_fidelity) {
  SimulationSize n;
  n.hosts = Fabric::of(s.cluster)->ends();
  n.actors = full_fidelity ? s.cluster.gpus : 1;
  ResourceEstimate e = price(n, !full_fidelity);  // full fidelity never folds
  e.lower_bound = true;
  return e;
}

bool within(const ResourceEstimate& e, const SimulationBudget& b) {
  return !(b.max_memory.value > 0 && e.memory > b.max_memory) && !(b.max_wall.value > 0 && e.wall > b.max_wall);
}

void check_budget(const Scenario& s, const ResourceEstimate& e, const SimulationBudget& b) {
  const std::string about = e.lower_bound ? "at least about " : "about ";
  // A floor (platform_floor) has hosts and actors only: the platform alone passes the limit.
  const std::string counts =
      e.size.task_runs == 0
          ? fmt::format("hosts {}, actors {}: the platform alone, before any task or flow", e.size.hosts, e.size.actors)
          : fmt::format("hosts {}, actors {}, task runs {}, flows in flight {:.3g}", e.size.hosts, e.size.actors,
                        e.size.task_runs, e.size.peak_flows);
  const std::string counts_live =
      (e.size.live_flows > 0 ? fmt::format(", live tensor/context-parallel flows {:.3g}", e.size.live_flows) : "") +
      (e.size.coupled_pairs > 1e6 ? fmt::format(", pairs of flows sharing links {:.3g}", e.size.coupled_pairs) : "");
  const std::string fewer =
      std::string(b.full_fidelity ? "--fidelity class, " : "") +
      "fewer GPUs, microbatches or gradient buckets (overlap_grad_reduce: one per layer under ZeRO-3)";
  if (b.max_memory.value > 0 && e.memory > b.max_memory)
    throw SimulationLimit(s.file, s.json_path("/cluster/gpus"),
                          "simulating this plan would need " + about + format_bytes(e.memory) + " of memory (" +
                              counts + counts_live + "), more than --max-memory " + format_bytes(b.max_memory),
                          fewer + ", or a larger --max-memory");
  if (b.max_wall.value > 0 && e.wall > b.max_wall)
    throw SimulationTimeLimit(s.file, s.json_path("/cluster/gpus"),
                              "simulating this plan would take " + about + seconds_text(e.wall.value) + " (" + counts +
                                  counts_live + "), more than the limit of " + seconds_text(b.max_wall.value),
                              fewer + ", or a " + b.wall_option + " above the estimate to allow it");
}

Bytes machine_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  double bytes = pages > 0 && page > 0 ? double(pages) * double(page) : 0.0;
  // A container's limit (cgroup v2), when there is one and it is smaller: "max" means none.
  std::ifstream cgroup("/sys/fs/cgroup/memory.max");
  double limit = 0;
  if (cgroup >> limit && limit > 0 && (bytes <= 0 || limit < bytes)) bytes = limit;
  return Bytes(bytes);
}

Bytes default_max_memory() {
  const Bytes m = machine_memory();
  return m.value > 0 ? m * 0.5 : Bytes(8.0 * 1073741824.0);  // unknown machine: 8 GiB
}

}  // namespace sim
