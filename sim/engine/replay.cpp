#include <xbt/asserts.h>
#include <xbt/log.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <simgrid/Exception.hpp>
#include <simgrid/s4u.hpp>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <xbt/config.hpp>

#include "sim/comm/comm_plan.hpp"
#include "sim/comm/dp_fold.hpp"
#include "sim/comm/ring_channels.hpp"
#include "sim/core/error.hpp"
#include "sim/core/sanitizer.hpp"
#include "sim/engine/engine.hpp"
#include "sim/engine/failure_watch.hpp"
#include "sim/engine/fluid_network.hpp"
#include "sim/engine/folded_nic_penalty.hpp"
#include "sim/engine/fork_call.hpp"
#include "sim/engine/platform.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/topology/fabric.hpp"
#include "sim/workload/pipeline.hpp"

namespace sg4 = simgrid::s4u;

// Under AddressSanitizer (TRAINSIM_SANITIZE, the fuzz build) SimGrid's default raw contexts switch
// actor stacks behind ASan's back -- Debian's libsimgrid is built without ASan's fiber
// annotations -- and ASan warns "ignoring requested __asan_handle_no_return ... False positive
// error reports may follow". Thread contexts give each actor a real thread that ASan tracks, at
// the price of far slower switches (a 1,024-actor ring ran 43x slower than on raw contexts),
// which only the sanitizer builds pay.

namespace sim {
namespace {

using CollectiveKey = std::tuple<int, int, double>;  // (CommGroup, CollectiveKind, buffer bytes)

// A rank's gradient-reduction flows in flight; `broken` when a ring needed the failed component
// (its flows were not started: the reduction can never finish).
struct InFlight {
  std::vector<sg4::CommPtr> comms;
  int32_t fluid = -1;            // when folded: the group of its flows in the fluid network
  std::vector<GradBucket> held;  // buckets waiting for the reduction's circuits (an optical circuit switch)
  bool broken = false;
  double latency = 0;  // the largest latency term of the all-reduces in flight, paid after them
};

// Whether the step is folded (Replay, "Folding"): at class fidelity, without a failure in the step,
// with a gradient reduction.
bool folds(const Scenario& s, const EngineOptions& o) {
  return o.fold_rings && !o.full_fidelity && !s.step_faults.failure() && s.plan.grad_group_size() > 1;
}

// The route ends SimGrid's platform needs: all of them, or, when the step folds and its flows move
// in the fluid network, those the driver and the probes use: GPU 0 and the first class's tensor-
// and context-parallel groups.
std::vector<int64_t> simgrid_ends(const Scenario& s, const Placement& place, const EngineOptions& o) {
  if (!folds(s, o)) return {};
  const auto fabric = Fabric::of(s.cluster);
  std::set<int64_t> ends{0};
  for (CommGroup g : {CommGroup::TP, CommGroup::CP, CommGroup::EP}) {
    const std::vector<int64_t> members = model_group(s.plan, place, g);
    for (int64_t a : members)
      for (int64_t b : members)
        if (a != b) {
          const auto [ea, eb] = fabric->ends(a, b);
          ends.insert(ea);
          ends.insert(eb);
        }
  }
  return {ends.begin(), ends.end()};
}

struct Replay {
  const Scenario& s;
  const Pipeline& p;
  const EngineOptions& opt;
  Placement place;
  Platform plat;
  CommPlan comm;
  EngineResult result;
  std::map<CollectiveKey, double> collective_cost;
  // Collectives whose flows leave the scale-up domain: run live, under contention (below).
  std::set<CollectiveKey> live_;
  std::map<std::pair<int, int64_t>, sg4::BarrierPtr> group_barrier_;  // full fidelity: by group and first member
  std::vector<sg4::BarrierPtr> stage_barrier;
  double t0 = 0;
  // A data edge's signal to one rank coordinate: the time (the sender's clock, which may be ahead
  // of the simulated time) its data was ready, negative until then; and the semaphore a receiver
  // that came first waits on.
  struct Ready {
    double at = -1;
    sg4::SemaphorePtr waiter;
  };
  std::unordered_map<uint64_t, Ready> ready_;  // by ready_key()
  FailureWatch watch;
  // Per rank actor, outside its stack: a stalled or killed actor leaves flows unwaited, and
  // destroying those SimGrid reports as a bug (the Replay is never destroyed: run()). A deque:
  // actors hold references to theirs while others are added.
  std::deque<InFlight> in_flight_;
  // Per rank actor, the time it has still to spend on purely local work (kernels, tensor-parallel
  // collectives priced by their probe, latency terms) before its next interaction with another
  // actor or the network; see wait_for().
  std::vector<double> lag_;
  sg4::SemaphorePtr never_ = sg4::Semaphore::create(0);  // what a stalled actor waits on
  FoldedNicPenalty nic_penalty;
  // A folded class's pipeline transfer carries its members' (CommPlan::class_share), per pair of
  // pipeline ranks.
  std::map<std::pair<int64_t, int64_t>, double> class_shares_;
  double class_share(int64_t from_pp, int64_t to_pp) {
    auto [it, fresh] = class_shares_.try_emplace({from_pp, to_pp}, 1.0);
    if (fresh) it->second = comm.class_share(from_pp, to_pp);
    return it->second;
  }
  // An optical circuit switch that changes circuits between the pipeline's transfers and the
  // gradient reduction (CommPlan::reconfiguration): transfers that leave a domain wait for the
  // pipeline's circuits (ready `reconfig` after the step starts); once the last of them, of
  // `crossing_left`, has arrived, the switch turns to the reduction's, which every gradient
  // reduction waits for (`waiting`, released then).
  double reconfig = 0;
  double pipeline_ready = 0, reduction_ready = -1;
  int64_t crossing_left = 0;
  std::vector<sg4::SemaphorePtr> waiting;
  // Folding (below): per pipeline rank, the flows one gradient-reduction launch starts; empty
  // when not folding.
  struct FoldedFlow {
    int32_t cell = 0;   // of the fold's quotient: the flows it stands for
    int64_t index = 0;  // a member's, among the flows of its group's all-reduce
  };
  // Per pipeline rank, data-parallel group and variant (algorithm and protocol), a flow per cell.
  std::vector<std::map<std::pair<int64_t, int64_t>, std::vector<FoldedFlow>>> folded_;
  // Per (pipeline rank, group, variant, bytes reduced): the bytes of each of its folded flows (a
  // model's layers make the same buckets again and again; the collective's flows are O(dp)).
  std::map<std::tuple<int64_t, int64_t, int64_t, double>, std::vector<uint64_t>> folded_bytes_;
  std::shared_ptr<const DpFold> fold_;
  std::vector<int32_t> cell_route_, cell_link_;  // per cell, per link cell: the fluid network's (-1: not yet)
  // When folding, the step's flows -- gradient reductions, pipeline transfers, live collectives --
  // share the links in the fluid network (fluid_network.hpp) instead of SimGrid's, which a daemon
  // actor steps with SimGrid's clock ("Folding", below).
  std::unique_ptr<FluidNetwork> fluid_;
  std::unordered_map<uint64_t, int32_t> fluid_link_;              // by the fabric's directed link id
  std::map<std::pair<int64_t, int64_t>, int32_t> fluid_route_;    // by its GPUs (from, to)
  std::map<std::pair<int64_t, int64_t>, int64_t> foreign_of_;     // a foreign route's index by its GPUs
  std::unordered_map<int32_t, sg4::SemaphorePtr> fluid_waiting_;  // by group
  sg4::SemaphorePtr fluid_wake_ = sg4::Semaphore::create(0);
  double fluid_wake_at_ = 0;  // when the daemon wakes next

  Replay(const Scenario& sc, const Pipeline& pl, const EngineOptions& o)
      : s(sc),
        p(pl),
        opt(o),
        place(sc.cluster, sc.plan),
        plat(sc.cluster, place, sc.step_faults, sc.plan.pp, simgrid_ends(sc, place, o)),
        comm(sc, place, plat.fabric()),
        watch(place, sc.plan, o.full_fidelity, sc.step_faults.failure()),
        nic_penalty(place, sc.plan, sc.step_faults),
        reconfig(comm.reconfiguration().value) {
    result.spans.assign(boost::num_vertices(p.graph), TaskSpan{});
  }

  // The transfers into `me` over its program that leave a domain.
  int64_t crossing_receives(const RankCoord& me) const {
    int64_t n = 0;
    for (TaskId v : p.program[static_cast<size_t>(me.pp)])
      for (auto [it, end] = boost::in_edges(v, p.graph); it != end; ++it) {
        if (p.graph[*it].kind != EdgeKind::DATA) continue;
        RankCoord from = me;
        from.pp = p.graph[boost::source(*it, p.graph)].rank;
        n += !place.same_domain(place.gpu(from), place.gpu(me));
      }
    return n;
  }

  // Waits, its lag paid, until the switch carries the reduction's circuits.
  void await_reduction(int actor) {
    if (reconfig <= 0) return;
    catch_up(actor);
    if (reduction_ready < 0) {
      waiting.push_back(sg4::Semaphore::create(0));
      waiting.back()->acquire();
    }
    if (now() < reduction_ready) sg4::this_actor::sleep_for(reduction_ready - now());
  }

  // One more crossing transfer has arrived; after the last, the switch turns to the reduction.
  void crossed() {
    if (reconfig <= 0 || --crossing_left > 0) return;
    reduction_ready = now() + reconfig;
    result.dark.emplace_back(now() - t0, reduction_ready - t0);
    for (auto& w : std::exchange(waiting, {})) w->release();
  }

  double now() const { return sg4::Engine::get_clock(); }

  // Local time, without a simulation event per kernel. Between two interactions with other actors
  // or the network (a receive, a send's release, a gradient reduction, a live collective) a rank
  // actor only waits: for its kernels (one actor per host, so an execution of f flops takes
  // f / speed), for a probed collective's cost, for latency terms. Those waits add up in its lag,
  // which catch_up() pays in one sleep right before the next interaction: the interaction starts
  // at the same simulated time, and 1,024 actors at full fidelity spend no SimGrid activity on each
  // piece (a 1,024-GPU job at full fidelity). With a failure in the step a rank can be stopped in the
  // middle of local work (its host turned off), so nothing is deferred then.
  void wait_for(int actor, double seconds) {
    if (watch.armed())
      sg4::this_actor::sleep_for(seconds);
    else
      lag_[static_cast<size_t>(actor)] += seconds;
  }
  void execute(int actor, double flops) {
    if (watch.armed())
      sg4::this_actor::execute(flops);
    else
      lag_[static_cast<size_t>(actor)] += flops / sg4::this_actor::get_host()->get_speed();
  }
  void catch_up(int actor) {
    const double lag = std::exchange(lag_[static_cast<size_t>(actor)], 0.0);  // no reference across the sleep
    if (lag > 0) sg4::this_actor::sleep_for(lag);
  }
  // The actor's own clock: the simulated time once its lag is paid.
  double clock(int actor) const { return now() + lag_[static_cast<size_t>(actor)]; }

  // The actor can no longer progress: it waits for good (SimGrid then finds the deadlock, ends
  // the run and kills the waiting actors; run() reads the times from `watch`).
  void stall(int actor) {
    watch.block(actor, now());
    never_->acquire();
  }

  // Runs a blocking network operation; when SimGrid fails it (a link or an endpoint host was
  // turned off), the actor stalls right here: unwinding would destroy comms still in flight, which
  // SimGrid reports as freed before completion.
  template <class F>
  void or_stall(int actor, F&& op) {
    bool failed = false;
    try {
      op();
    } catch (const simgrid::NetworkFailureException&) {
      failed = true;
    } catch (const simgrid::HostFailureException&) {
      failed = true;
    }
    if (failed) stall(actor);
  }

  // Starts a flow of `bytes` (whole bytes) from GPU a to GPU b, between their route ends' hosts.
  void send_flow(int64_t ga, int64_t gb, uint64_t bytes, std::vector<sg4::CommPtr>& out) {
    if (bytes == 0) return;
    auto [a, b] = plat.endpoints(ga, gb);
    SIM_ASSERT(!watch.armed() || (a->is_on() && b->is_on()),
               "a flow from or to a failed GPU was started");  // SimGrid would abort
    out.push_back(sg4::Comm::sendto_async(a, b, bytes));
    ++result.transfers;
  }

  // Starts the flows of a collective of the communication plan.
  void launch(const CommOp& op, std::vector<sg4::CommPtr>& out) {
    for (const auto& f : op.flows) send_flow(f.from, f.to, static_cast<uint64_t>(f.bytes.value), out);
  }

  // Simulates every distinct TP, CP and EP collective once, on the groups of the first class.
  void probe_collectives() {
    const std::vector<int64_t> groups[3] = {model_group(s.plan, place, CommGroup::TP),
                                            model_group(s.plan, place, CommGroup::CP),
                                            model_group(s.plan, place, CommGroup::EP)};
    for (size_t v = 0; v < boost::num_vertices(p.graph); ++v)
      for (const auto& use : p.graph[v].collectives) {
        CollectiveKey key{static_cast<int>(use.group), static_cast<int>(use.kind), use.bytes.value};
        if (collective_cost.count(key)) continue;
        const CommOp op = comm.collective(use.kind, groups[int(use.group)], use.bytes);
        double begin = sg4::Engine::get_clock();
        std::vector<sg4::CommPtr> comms;
        launch(op, comms);
        sg4::Comm::wait_all(comms);
        collective_cost[key] = sg4::Engine::get_clock() - begin + op.choice.latency.value;
        if (comm.leaves_domain(op)) live_.insert(key);
      }
  }

  // Folding the gradient reductions by symmetry (class fidelity, no failure in the step).
  //
  // A folded rank class launches every data-parallel all-reduce of its pipeline rank -- tp groups'
  // rings or trees, channels of flows per member and gradient bucket -- so the engine would hold
  // O(GPUs) flows in flight. Most of them are copies of each other, and under CM02's max-min
  // sharing a copy need not be simulated:
  //
  // - A tree channel's edges, which NCCL pipelines (collective_flows.hpp, MemberFlow::pipe), are
  //   one flow that crosses every edge's links at one rate (dp_flow_set). This is the fold's
  //   model, not SimGrid's: unfolded, the edges are flows of their own (docs/speed.md measures
  //   the difference).
  // - Links that no allocation saturates are left out of the flows' routes, and a link
  //   that several groups share and can saturate (an oversubscribed pod uplink) is split into one
  //   per group, of its capacity times the group's weight over the weights of the groups using it
  //   (shared_links.hpp, the one approximation: exact for alike groups launched together, as a
  //   rank's rails are, and for groups using the link at different times).
  // - A *class* is a rank's flows of one tier on one route (same endpoints, hence the same links;
  //   same start, the rank's launches; same bytes per launch: same algorithm, protocol and share of
  //   the buffer). Classes that share a link form a *component*, closed under sharing: no flow
  //   outside it crosses any of its links. A component is *clean* when no other traffic of the
  //   step ever crosses one of its links: no pipeline transfer (at class fidelity those run between
  //   the rank classes' representatives, tp = cp = dp = 0; every pair of ranks is counted), no
  //   live tensor- or context-parallel collective of the representatives' groups (their probes end
  //   before the step starts). A clean component, over all of its rank's launches, is a closed
  //   system: the max-min allocation of a set of constraints that share no variable with the rest
  //   is the allocation of that set alone, so its flows' rates, and their finishing times, depend
  //   on nothing outside it.
  // - Two clean components with equal signatures (ring_channels.cpp: their flows in launch order,
  //   each with its rank, tier, route shape and links numbered in the order the component first
  //   crosses them) are the same system under a renaming of links and flows: their flows start
  //   together, with the same bytes, and finish together. One of them is simulated; the rank waits
  //   for all of its flows, so waiting for the representative's is the same wait.
  // - In a simulated component where every class has a multiple of m copies, replicating every
  //   flow m times scales the max-min sharing of the unreplicated system by m (substitute z = m x in
  //   the constraints sum m x_f <= C), so m copies may travel as one flow of m times the bytes.
  // - What is simulated -- the clean representatives and every component that touches other
  //   traffic -- is reduced once more by its quotient (flow_quotient.hpp): flows that the sharing
  //   always treats alike are one cell, simulated as one flow that loads each link as its cell's
  //   flows load each link of that link's cell.
  //
  // SimGrid 3.32 has no such per-flow load, and it unlinks each finished flow from one list of all
  // flows in flight by a linear scan. So a folded step's flows -- the cells' flows, the pipeline
  // transfers, the live collectives -- move in the engine's fluid network (fluid_network.hpp):
  // CM02's max-min sharing with CM02's weights, solved per component as SimGrid's selective update
  // does, whose events a daemon actor handles at SimGrid's clock. The fold is exact wherever it
  // applies but where groups that differ overlap on a split link (the step time is the unfolded
  // one, simulated by SimGrid, up to floating-point rounding: test/unit/engine_fold.cpp, which
  // also holds the split's approximation to its bound; docs/speed.md). With a failure in the
  // step, links and hosts go down under flows in flight, so nothing is folded and SimGrid moves
  // every flow; slow NICs are links of other capacities, hence other shapes, and are simulated as
  // they are.
  bool folding() const { return folds(s, opt); }

  void fold_rings() {
    fold_ = fold_dp_flows(s, comm, place, dp_buffers(p.steps), plat.capacities());
    const FlowQuotient& q = fold_->quotient;
    folded_.assign(static_cast<size_t>(s.plan.pp), {});
    for (size_t c = 0; c < q.cells.size(); ++c) {
      const auto i = static_cast<size_t>(q.cells[c].flow);
      const DpFlow& f = fold_->flows[i];
      folded_[static_cast<size_t>(fold_->set.flows[i].rank)][{f.group, f.variant}].push_back(
          {static_cast<int32_t>(c), f.index});
    }
    cell_route_.assign(q.cells.size(), -1);
    cell_link_.assign(q.link_capacity.size(), -1);
  }

  // The fluid network: a daemon actor handles its events as SimGrid's clock reaches them.
  void start_fluid() {
    fluid_ = std::make_unique<FluidNetwork>([this](int32_t group) {
      if (auto it = fluid_waiting_.find(group); it != fluid_waiting_.end()) {
        it->second->release();
        fluid_waiting_.erase(it);
      }
    });
    for (const FoldedSharedLink& l : fold_->shared) {  // the shared links' shares (dp_fold.hpp)
      const int32_t y = fluid_->add_shared_link(l.capacity);
      for (const FoldedShare& share : l.shares)
        fluid_->add_share(y, cell_link(fold_->quotient.link_cell.at(share.link)), share.weight, share.own);
    }
    sg4::Actor::create("network", plat.control_host(), [this] {
      for (;;) {
        fluid_->advance(now());
        fluid_wake_at_ = fluid_->next_event();
        if (std::isinf(fluid_wake_at_))
          fluid_wake_->acquire();
        else
          fluid_wake_->acquire_timeout(fluid_wake_at_ - now());
      }
    })->daemonize();
  }

  // Starts a flow of `bytes` from GPU a to GPU b in the fluid network, into `group`. On a link of
  // the fold's quotient it stands for itself and its images in the other data-parallel replicas
  // on each link of the link's cell (FlowQuotient::foreign_load).
  void fluid_flow(int64_t a, int64_t b, uint64_t bytes, int32_t group) {
    auto [it, fresh] = fluid_route_.try_emplace({a, b}, 0);
    if (fresh) {
      if (foreign_of_.empty())
        for (size_t i = 0; i < fold_->set.foreign_ends.size(); ++i)
          foreign_of_.try_emplace(fold_->set.foreign_ends[i], static_cast<int64_t>(i));
      const auto foreign = foreign_of_.find({a, b});
      std::vector<int32_t> links;
      std::vector<double> load;
      double latency = 0;
      plat.fabric().for_each_link(a, b, [&](uint64_t id, int64_t l) {
        latency += plat.fabric().network().links()[static_cast<size_t>(l)].latency.value;
        if (auto y = fold_->quotient.link_cell.find(id); y != fold_->quotient.link_cell.end()) {
          if (y->second < 0) return;  // a link no allocation saturates (flow_quotient.hpp)
          SIM_ASSERT(
              foreign != foreign_of_.end() || fold_->quotient.link_cell_size[static_cast<size_t>(y->second)] == 1,
              "a flow outside the fold's foreign routes crosses a link the fold took for a class of links");
          links.push_back(cell_link(y->second));
          load.push_back(foreign == foreign_of_.end() ? 1.0 : fold_->quotient.foreign_load.at({foreign->second, id}));
          return;
        }
        auto [k, added] = fluid_link_.try_emplace(id, 0);
        if (added) k->second = fluid_->add_link(plat.capacities()[static_cast<size_t>(l)]);
        links.push_back(k->second);
        load.push_back(1.0);
      });
      it->second = fluid_->add_route(std::move(links), latency, std::move(load));
    }
    fluid_->start(now(), static_cast<double>(bytes), it->second, group);
    ++result.transfers;
  }
  // The fluid network's link for a link cell of the fold's quotient.
  int32_t cell_link(int32_t y) {
    int32_t& l = cell_link_[static_cast<size_t>(y)];
    if (l < 0) l = fluid_->add_link(fold_->quotient.link_capacity[static_cast<size_t>(y)]);
    return l;
  }
  // Starts cell c's flow of `bytes` (each of its flows') into `group`: it loads each link cell's
  // link as its flows load each link of that cell.
  void fluid_cell(int32_t c, uint64_t bytes, int32_t group) {
    int32_t& route = cell_route_[static_cast<size_t>(c)];
    if (route < 0) {
      const auto& cell = fold_->quotient.cells[static_cast<size_t>(c)];
      std::vector<int32_t> links;
      std::vector<double> load;
      for (const auto& [y, n] : cell.load) {
        links.push_back(cell_link(y));
        load.push_back(n);
      }
      const DpFlow& f = fold_->flows[static_cast<size_t>(cell.flow)];
      route = fluid_->add_route(std::move(links), f.latency, std::move(load));
    }
    fluid_->start(now(), static_cast<double>(bytes), route, group);
    ++result.transfers;
  }

  // After starting flows: the daemon wakes earlier if one of them brings its next event forward.
  void fluid_started() {
    const double next = fluid_->next_event();
    if (next < fluid_wake_at_) {
      fluid_wake_at_ = next;
      fluid_wake_->release();
    }
  }
  void fluid_wait(int32_t group) {
    fluid_->advance(now());
    if (fluid_->pending(group) == 0) return;
    auto wait = sg4::Semaphore::create(0);
    fluid_waiting_[group] = wait;
    wait->acquire();
  }

  // A bucket's latency terms: its shard groups' collectives run at once, and with hybrid sharding
  // its replicas' all-reduce after them (ring_channels.hpp, grad_groups).
  struct BucketLatency {
    double shard = 0, replicas = 0;
    void add(const ParallelPlan& pl, int64_t g, Seconds l) {
      double& kind = replicates(pl, g) ? replicas : shard;
      kind = std::max(kind, l.value);
    }
    double total() const { return shard + replicas; }
  };

  // Starts rank r's folded gradient all-reduce of `buffer`: each data-parallel group's kept flows
  // for the algorithm and protocol NCCL runs it with.
  void launch_folded(int64_t r, const GradBucket& buffer, InFlight& in_flight) {
    const auto& rank = folded_[static_cast<size_t>(r)];
    BucketLatency latency;
    for (int64_t g = 0; g < grad_groups(s.plan); ++g) {
      const Bytes share = group_buffer(s.plan, g, buffer);
      if (share.value <= 0) continue;  // an expert group of a bucket without experts
      const auto members = dp_group(s.plan, place, r, g);
      const CollectiveChoice choice = comm.choose(buffer.kind, members, share);
      latency.add(s.plan, g, choice.latency);
      const auto& variants = fold_->variants;
      const auto v = std::find(variants.begin(), variants.end(), DpVariant{buffer.kind, choice.algo, choice.protocol});
      SIM_ASSERT(v != variants.end(), "a gradient reduction of a buffer the fold did not see");
      const auto kept = rank.find({g, v - variants.begin()});
      if (kept == rank.end()) continue;  // all its flows folded into other groups'
      auto [sizes, fresh] = folded_bytes_.try_emplace({r, g, v - variants.begin(), share.value});
      if (fresh) {
        const CommOp op = comm.collective(buffer.kind, members, share);
        for (const auto& f : kept->second)
          sizes->second.push_back(static_cast<uint64_t>(op.flows[static_cast<size_t>(f.index)].bytes.value));
      }
      if (in_flight.fluid < 0) in_flight.fluid = fluid_->new_group();
      for (size_t k = 0; k < kept->second.size(); ++k)
        if (const uint64_t bytes = sizes->second[k]; bytes > 0)
          fluid_cell(kept->second[k].cell, bytes, in_flight.fluid);
    }
    fluid_started();
    in_flight.latency = std::max(in_flight.latency, latency.total());
  }

  // Starts the gradient all-reduce of `buffer` over dp for every tp/cp index of pipeline rank r.
  void launch_dp(int64_t r, const GradBucket& buffer, InFlight& in_flight) {
    if (buffer.total() <= 0) return;
    if (!folded_.empty()) return launch_folded(r, buffer, in_flight);
    BucketLatency latency;
    for (int64_t g = 0; g < grad_groups(s.plan); ++g) {
      const Bytes part = group_buffer(s.plan, g, buffer);
      if (part.value <= 0) continue;
      const std::vector<int64_t> members = dp_group(s.plan, place, r, g);
      if (watch.touches(members)) {
        in_flight.broken = true;
        continue;
      }
      const CommOp op = comm.collective(buffer.kind, members, part);
      latency.add(s.plan, g, op.choice.latency);
      launch(op, in_flight.comms);
    }
    in_flight.latency = std::max(in_flight.latency, latency.total());
  }

  // The rank's gradient reduction: `buffer` now, plus the overlapped buckets already in flight.
  void dp_reduce(int64_t r, const GradBucket& buffer, InFlight& in_flight, int actor) {
    await_reduction(actor);
    for (const GradBucket& b : std::exchange(in_flight.held, {})) launch_dp(r, b, in_flight);
    launch_dp(r, buffer, in_flight);
    if (in_flight.broken) stall(actor);
    or_stall(actor, [&] { sg4::Comm::wait_all(in_flight.comms); });
    in_flight.comms.clear();
    if (in_flight.fluid >= 0) fluid_wait(std::exchange(in_flight.fluid, -1));
    wait_for(actor, in_flight.latency);
    in_flight.latency = 0;
  }

  // Starts buckets [first, last) of rank r at once (held while an optical switch serves the pipeline).
  void launch_buckets(std::vector<GradBucket>::const_iterator first, std::vector<GradBucket>::const_iterator last,
                      int64_t r, bool launches, InFlight& in_flight, int actor) {
    if (!launches || first == last) return;
    catch_up(actor);
    for (auto b = first; b != last; ++b) {
      if (reconfig > 0)
        in_flight.held.push_back(*b);
      else
        launch_dp(r, *b, in_flight);
    }
  }

  // Waits for rank me.pp's data-parallel traffic in flight, `buffer` with it: its representative
  // reduces, the stage's other GPUs wait at the stage's barriers (full fidelity). How long it took.
  double sync_dp(const RankCoord& me, bool rep, const GradBucket& buffer, InFlight& in_flight, int actor) {
    catch_up(actor);
    double begin = sg4::Engine::get_clock();
    watch.block(actor, begin);
    if (opt.full_fidelity) {
      stage_barrier[static_cast<size_t>(me.pp)]->wait();
      if (rep) {
        dp_reduce(me.pp, buffer, in_flight, actor);
        catch_up(actor);  // the stage waits for the reduction's latency term too
      }
      stage_barrier[static_cast<size_t>(me.pp)]->wait();
    } else {
      dp_reduce(me.pp, buffer, in_flight, actor);
    }
    watch.unblock(actor);
    return clock(actor) - begin;
  }

  // Runs a task's kernels; with overlapped gradient buckets, in one piece per bucket, starting
  // each bucket's reduction as its piece ends.
  void compute(const Task& t, int64_t r, bool launches, InFlight& in_flight, int actor) {
    if (t.compute.value <= 0) return;
    if (t.dp_buckets.empty()) {
      execute(actor, t.compute.value * 1e12);
      return;
    }
    const std::vector<double> ready = bucket_ready(t);
    double done = 0;
    for (size_t k = 0; k < t.dp_buckets.size(); ++k) {
      execute(actor, t.compute.value * (ready[k] - done) * 1e12);
      done = ready[k];
      if (!launches) continue;
      if (reconfig > 0) {  // the pipeline's circuits are up: it waits for the reduction's
        in_flight.held.push_back(t.dp_buckets[k]);
        continue;
      }
      catch_up(actor);
      launch_dp(r, t.dp_buckets[k], in_flight);
    }
  }

  // "The sender's data is ready", per data edge and rank coordinate (pure synchronisation, no
  // network action). Actors run one at a time, so the sender stamps the time its data is ready in
  // plain memory, without paying its lag first; a receiver that finds no stamp waits on a
  // semaphore the sender then releases (at a simulated time no later than either's clock). The
  // receiver starts the transfer at the later of the two clocks: one sleep serves both, and most
  // edges cost no synchronisation activity at all.
  uint64_t ready_key(size_t u, size_t v, const RankCoord& c) const {
    const auto tasks = static_cast<uint64_t>(boost::num_vertices(p.graph));
    const auto rank = static_cast<uint64_t>((c.dp * s.plan.cp + c.cp) * s.plan.tp + c.tp);
    return (static_cast<uint64_t>(v) * tasks + u) * static_cast<uint64_t>(s.plan.tp * s.plan.cp * s.plan.dp) + rank;
  }

  // Returns the seconds the transfer itself took (after the sender was ready). The receiver blocks
  // from the moment it waits; a transfer that needs the failed component never ends.
  double receive(size_t u, size_t v, Bytes bytes, const RankCoord& me, int actor) {
    const int64_t from_pp = p.graph[u].rank;
    watch.block(actor, now());
    if (watch.transfer_blocked(me, from_pp)) stall(actor);
    const uint64_t key = ready_key(u, v, me);
    Ready& ready = ready_[key];        // a node of its own: stays put while other actors add theirs
    const double mine = clock(actor);  // before the wait: waiting moves the simulated time
    if (ready.at < 0) {
      ready.waiter = sg4::Semaphore::create(0);
      ready.waiter->acquire();
    }
    const double start = std::max(mine, ready.at);
    ready_.erase(key);  // each edge signals once
    lag_[static_cast<size_t>(actor)] = 0;
    if (start > now()) sg4::this_actor::sleep_for(start - now());
    if (watch.transfer_blocked(me, from_pp)) stall(actor);
    double begin = sg4::Engine::get_clock();
    RankCoord from = me;
    from.pp = from_pp;
    int64_t src = place.gpu(from), dst = place.gpu(me);
    double share = 1.0;
    bool out = !place.same_domain(src, dst);  // leaves NVLink, through the NICs
    if (out && !opt.full_fidelity) share = class_share(from_pp, me.pp) * nic_penalty(from_pp, me.pp);
    if (out && reconfig > 0 && now() < pipeline_ready) sg4::this_actor::sleep_for(pipeline_ready - now());
    const auto flow = static_cast<uint64_t>(bytes.value * share);
    if (fluid_) {
      const int32_t group = fluid_->new_group();
      fluid_flow(src, dst, flow, group);
      fluid_started();
      fluid_wait(group);
    } else {
      const auto ends = plat.endpoints(src, dst);  // a pair, not a structured binding: lambdas capture it (C++17)
      SIM_ASSERT(!watch.armed() || (ends.first->is_on() && ends.second->is_on()),
                 "a transfer from or to a failed GPU was started");  // SimGrid would abort
      or_stall(actor, [&] { sg4::Comm::sendto(ends.first, ends.second, flow); });
      ++result.transfers;
    }
    if (out) crossed();
    wait_for(actor, comm.send_latency(src, dst).value);
    watch.unblock(actor);
    return clock(actor) - begin;
  }

  // Whether `use` runs live (below): it leaves the scale-up domain and is not overlapped with
  // kernels (an overlapped one -- tp_comm_overlap, context parallel's ring -- is priced by its
  // probe, as the estimate prices it, without the contention of a live run).
  bool runs_live(const CollectiveUse& use) const {
    return use.chunks == 0 && live_.count({static_cast<int>(use.group), static_cast<int>(use.kind), use.bytes.value});
  }

  // A tensor- or context-parallel collective whose flows leave the scale-up domain runs live, so
  // that it shares the network with the gradient reductions and pipeline transfers in flight
  // (inside a domain its flows meet only NVLink ports, and the probe's cost stands). At class
  // fidelity the class's actor runs its own group's collective, each flow carrying the bytes of
  // the class's groups behind its NIC (as a pipeline transfer does); at full fidelity the group's
  // first member runs it between two barriers of the group. Returns the seconds it took.
  double run_live(const CollectiveUse& use, const RankCoord& me, int actor) {
    const std::vector<int64_t> members = model_group(s.plan, place, use.group, me);
    const auto n = static_cast<int64_t>(members.size());
    catch_up(actor);
    const double begin = now();
    sg4::BarrierPtr barrier;
    if (opt.full_fidelity) {  // the group's barrier, named by its first member
      auto& b = group_barrier_[{static_cast<int>(use.group), members.front()}];
      if (!b) b = sg4::Barrier::create(static_cast<unsigned>(n));
      barrier = b;
      barrier->wait();
    }
    const CommOp op = comm.collective(use.kind, members, use.bytes);
    if (!opt.full_fidelity || place.gpu(me) == members.front()) {
      std::vector<sg4::CommPtr> comms;
      const int32_t group = fluid_ ? fluid_->new_group() : -1;
      const auto& f = plat.fabric();
      for (const auto& x : op.flows) {
        double share = 1.0;
        if (!opt.full_fidelity && f.ends(x.from, x.to).first >= f.gpus())
          share = double(std::max(place.class_peers_on_nic(me.pp, x.from), place.class_peers_on_nic(me.pp, x.to)));
        const auto bytes = static_cast<uint64_t>(x.bytes.value * share);
        if (!fluid_)
          send_flow(x.from, x.to, bytes, comms);
        else if (bytes > 0)
          fluid_flow(x.from, x.to, bytes, group);
      }
      if (fluid_) {
        fluid_started();
        fluid_wait(group);
      }
      or_stall(actor, [&] { sg4::Comm::wait_all(comms); });
    }
    if (barrier) barrier->wait();
    wait_for(actor, op.choice.latency.value);
    return clock(actor) - begin;
  }

  // A rank actor walks its program; it stalls where an operation needs the failed component or
  // SimGrid fails one of its transfers.
  void run_rank(const RankCoord& me, int actor) {
    const bool rep = me.tp == 0 && me.cp == 0 && me.dp == 0;
    const auto& g = p.graph;
    InFlight& dp_in_flight = in_flight_[static_cast<size_t>(actor)];  // overlapped gradient buckets
    // Where each rank starts its next step as it ends (StepProgram::overlaps_steps), the step is
    // timed from the rank's first task's start.
    double begins = -1;
    for (TaskId v : p.program[static_cast<size_t>(me.pp)]) {
      const Task& t = g[v];
      double ready = clock(actor);
      TaskSpan span;
      // The weights awaited before the kernels start, launched before the input arrives (where the
      // task has one: a pipeline's, whose first chunk's gathers the optimizer dispatched as the
      // step began); the others prefetched behind them once the kernels may start.
      const auto& gathers = t.dp_gathers;
      const auto awaited = static_cast<std::ptrdiff_t>(std::min(t.dp_awaited.value_or(0), gathers.size()));
      launch_buckets(gathers.begin(), gathers.begin() + awaited, me.pp, rep, dp_in_flight, actor);
      for (auto [it, end] = boost::in_edges(v, g); it != end; ++it)
        if (g[*it].kind == EdgeKind::DATA) span.p2p += receive(boost::source(*it, g), v, g[*it].bytes, me, actor);
      span.start = clock(actor);
      span.wait = span.start - ready;
      if (begins < 0) begins = p.steps.overlaps_steps ? span.start : t0;
      // Under circuits that serve the pipeline first (reconfig), the gathers are held for the
      // reduction's phase: no task but the reduction waits for data-parallel traffic.
      if (t.dp_awaited && reconfig <= 0) span.dp += sync_dp(me, rep, GradBucket{}, dp_in_flight, actor);
      launch_buckets(gathers.begin() + awaited, gathers.end(), me.pp, rep, dp_in_flight, actor);
      compute(t, me.pp, rep, dp_in_flight, actor);
      bool live = false, uses[3] = {false, false, false};
      for (const auto& use : t.collectives) {
        uses[static_cast<int>(use.group)] = true;
        const CollectiveKey key{static_cast<int>(use.group), static_cast<int>(use.kind), use.bytes.value};
        if (runs_live(use)) {
          live = true;
          continue;
        }
        span.of(use.group) += exposed(use, Seconds(collective_cost.at(key))).value * double(use.count);
      }
      if (span.collectives() > 0 || live) {
        auto blocked = [&] {
          for (CommGroup group : {CommGroup::TP, CommGroup::CP, CommGroup::EP})
            if (uses[static_cast<int>(group)] && watch.collective_blocked(me, group)) return true;
          return false;
        };
        watch.block(actor, clock(actor));
        if (blocked()) stall(actor);
        wait_for(actor, span.collectives());
        for (const auto& use : t.collectives)
          if (runs_live(use))
            for (int64_t i = 0; i < use.count; ++i) span.of(use.group) += run_live(use, me, actor);
        if (blocked()) stall(actor);  // the failure came while the collectives ran
        watch.unblock(actor);
      }
      if (t.kind == TaskKind::DP_REDUCE || (t.dp_sync && reconfig <= 0))
        span.dp += sync_dp(me, rep, t.dp_bytes, dp_in_flight, actor);
      span.end = clock(actor);
      for (auto [it, end] = boost::out_edges(v, g); it != end; ++it)
        if (g[*it].kind == EdgeKind::DATA) {
          // A send to a peer behind the failed component never completes (NCCL send/recv pair up).
          if (watch.transfer_blocked(me, g[boost::target(*it, g)].rank)) stall(actor);
          Ready& ready = ready_[ready_key(v, boost::target(*it, g), me)];
          ready.at = clock(actor);
          if (ready.waiter) ready.waiter->release();
        }
      if (rep) {
        span.start -= t0, span.end -= t0;
        result.spans[v] = span;
      }
      result.step = std::max(result.step, Seconds(clock(actor) - begins));
    }
    catch_up(actor);
    watch.finish(actor);
  }

  void start() {
    probe_collectives();
    if (folding()) {
      fold_rings();
      start_fluid();
    }
    t0 = sg4::Engine::get_clock();
    const auto& pl = s.plan;
    if (reconfig > 0) {
      pipeline_ready = t0 + reconfig;
      result.dark.emplace_back(0.0, reconfig);
    }
    for (int64_t r = 0; r < pl.pp; ++r) {
      stage_barrier.push_back(sg4::Barrier::create(static_cast<unsigned>(pl.tp * pl.cp * pl.dp)));
      for (int64_t d = 0; d < (opt.full_fidelity ? pl.dp : 1); ++d)
        for (int64_t c = 0; c < (opt.full_fidelity ? pl.cp : 1); ++c)
          for (int64_t t = 0; t < (opt.full_fidelity ? pl.tp : 1); ++t) {
            RankCoord me{t, c, r, d};
            if (reconfig > 0) crossing_left += crossing_receives(me);
            const int actor = watch.add_actor();
            in_flight_.emplace_back();
            lag_.push_back(0);
            sg4::Actor::create("rank-" + std::to_string(place.gpu(me)),
                               opt.full_fidelity ? plat.gpu_host(place.gpu(me)) : plat.class_host(r),
                               [this, me, actor] { run_rank(me, actor); });
            ++result.actors;
          }
    }
    if (reconfig > 0 && crossing_left == 0) reduction_ready = t0;  // nothing to wait for
    // The failure: at its time, SimGrid turns the GPU's host off (killing the actor on it, at
    // full fidelity, and failing the transfers from or to it) or the NIC's link (failing the
    // flows through it). A daemon: it dies with the step when the step ends first.
    if (auto f = s.step_faults.failure())
      sg4::Actor::create("fault", plat.control_host(), [this, ev = *f] {
        sg4::this_actor::sleep_for(ev.at.value);
        watch.fail(now());
        if (ev.target == FaultTarget::GPU)
          plat.gpu_host(ev.index)->turn_off();
        else
          plat.nic_link(ev.index)->turn_off();
      })->daemonize();
  }
};

template <class T>
void put(std::string& out, const T& v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

template <class T>
T take(const std::string& in, size_t& pos) {
  SIM_ASSERT(pos + sizeof(T) <= in.size(), "engine result truncated");
  T v;
  std::memcpy(&v, in.data() + pos, sizeof v);
  pos += sizeof v;
  return v;
}

std::string run(const Scenario& s, const Pipeline& p, const EngineOptions& opt) {
  char name[] = "trainsim";
  char factory[] = "--cfg=contexts/factory:thread";  // read when the engine starts, so not set_config
  char* argv[] = {name, ADDRESS_SANITIZER ? factory : nullptr, nullptr};
  int argc = ADDRESS_SANITIZER ? 2 : 1;
  // SimGrid's log goes to this child's standard error, which the parent keeps from the user
  // (child_stderr.hpp): critical lines only, and no backtrace after a failed xbt_assert, so that
  // its message is the last line the parent quotes.
  xbt_log_control_set("root.thresh:critical");
  xbt_log_no_loc = 1;
  // Engine and replay are left to the process's exit: this runs in a child that exits right after
  // sending its result, and tearing down 10^5 activities' state would only cost time.
  auto& e = *new sg4::Engine(&argc, argv);
  e.set_config("network/model:CM02");      // textbook max-min sharing (SimGrid's network/model)
  e.set_config("network/crosstraffic:0");  // RDMA: acknowledgements do not load the reverse path
  e.set_config("contexts/guard-size:0");   // many actors: no guard pages (SimGrid's contexts/guard-size)
  // No TCP window: NCCL moves data by RDMA writes and NVLink stores, and the cost layer prices an
  // idle flow at bytes / capacity (nccl_tuning.hpp), which the engine must match. CM02's default
  // window (4 MiB) capped a flow at 4 MiB / (2 x route latency), about 1 TB/s over two 1 us hops:
  // beyond it a faster link made the LL protocol's flows (bytes / bandwidth_factor, which grows
  // with the link's rate) slower. 1e100 B keeps the cap finite and far above any accepted rate.
  e.set_config("network/TCP-gamma:1e100");
  auto& replay = *new Replay(s, p, opt);
  sg4::Actor::create("driver", replay.plat.gpu_host(0), [&replay] { replay.start(); });
  bool deadlock = false;
  sg4::Engine::on_deadlock_cb([&deadlock] { deadlock = true; });
  e.run();
  // A failure ends the step in what SimGrid calls a deadlock: the stalled actors wait for good.
  // Any other deadlock left work that could never finish (a transfer over a link of no bandwidth,
  // say), and the step's time would leave it out: no result then.
  if (deadlock && !(s.step_faults.failure() && replay.watch.stalled_at()))
    throw std::runtime_error("the simulation engine deadlocked: some of the step's work could never finish");
  EngineResult& r = replay.result;
  if (auto f = s.step_faults.failure()) {
    StepFaultOutcome o;
    o.failed_at = f->at;
    if (auto stalled = replay.watch.stalled_at()) {
      o.stalled = true;
      o.stalled_at = Seconds(std::max(f->at.value, *stalled - replay.t0));  // t0 + at - t0 may round below at
      o.detected_at = o.stalled_at + s.step_faults.nccl_timeout;
    }
    r.failure = o;
  }
  std::string out;
  put(out, r.step.value);
  put(out, r.actors);
  put(out, r.transfers);
  put(out, static_cast<uint64_t>(r.spans.size()));
  for (const auto& sp : r.spans) put(out, sp);
  put(out, static_cast<uint64_t>(r.dark.size()));
  for (const auto& [from, to] : r.dark) put(out, from), put(out, to);
  put(out, r.failure.has_value());
  if (r.failure) put(out, *r.failure);
  return out;
}

}  // namespace

EngineResult simulate_step(const Scenario& s, const Pipeline& p, const EngineOptions& opt) {
  if (opt.full_fidelity && s.cluster.gpus > MAX_FULL_FIDELITY_GPUS)
    throw SimulationLimit(s.file, s.json_path("/cluster/gpus"),
                          "--fidelity full would simulate " + std::to_string(s.cluster.gpus) +
                              " GPUs, more than the limit of " + std::to_string(MAX_FULL_FIDELITY_GPUS),
                          "--fidelity class, or a cluster of at most that many GPUs");
  std::string data =
      run_in_child([&] { return run(s, p, opt); }, opt.deadline, MemoryBound{opt.max_memory, s.file, s.pointer});
  EngineResult r;
  size_t pos = 0;
  r.step = Seconds(take<double>(data, pos));
  r.actors = take<int64_t>(data, pos);
  r.transfers = take<int64_t>(data, pos);
  auto n = take<uint64_t>(data, pos);
  r.spans.resize(n);
  for (auto& sp : r.spans) sp = take<TaskSpan>(data, pos);
  r.dark.resize(take<uint64_t>(data, pos));
  for (auto& d : r.dark) {
    d.first = take<double>(data, pos);
    d.second = take<double>(data, pos);
  }
  if (take<bool>(data, pos)) r.failure = take<StepFaultOutcome>(data, pos);
  return r;
}

}  // namespace sim
