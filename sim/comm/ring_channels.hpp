// How many NCCL ring channels a ring collective over `members` (GPU ids in rank order) runs: one
// per member in an NVLink domain when the ring leaves its domain (each channel leaves through a
// different member's NIC; at most NCCL's MAXCHANNELS: nccl_channels), one when it stays inside. NCCL takes an NVLink
// domain for one node (a node, or a multi-node NVLink rack such as GB200 NVL72). Members of one domain are taken to be
// consecutive (Megatron's placement, topology/placement.hpp); the first domain's count decides.
// The engine launches ring_channels * members flows per ring collective (at class fidelity, the
// gradient reduction's after folding copies by symmetry: fold_ring_flows); the resource estimate
// counts them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/cost/collective.hpp"
#include "sim/cost/grad_bucket.hpp"
#include "sim/cost/nccl_tuning.hpp"
#include "sim/topology/placement.hpp"

namespace sim {

class CommPlan;
struct ParallelPlan;

// The members grouped by NVLink domain (NCCL's node), in ring order.
std::vector<std::vector<int64_t>> members_by_domain(const Placement& place, const std::vector<int64_t>& members);
// 0 for fewer than two members.
int64_t ring_channels(const Placement& place, const std::vector<int64_t>& members);

// The data-parallel ring flows of a step, described for folding by symmetry: the engine launches
// only what fold_ring_flows keeps (sim/engine/replay.cpp, "Folding", gives the conditions and why
// the step time is unchanged), and the resource estimate counts the same. Links are opaque ids.
struct RingFlowSet {
  struct Flow {
    int64_t rank = 0;   // pipeline rank launching it (with all of its rank's ring flows at once)
    int64_t route = 0;  // index into routes: one per (source, destination) endpoint pair
    int64_t tier = 0;   // flows of one tier carry the same bytes per launch
  };
  struct Route {
    std::vector<uint64_t> links;  // the directed links it crosses
    int64_t shape = 0;            // equal when the links' capacities and latencies are, in order
    // A pipeline's (MemberFlow::pipe), whose flow stands for its edges at one rate: where each
    // edge's links start in `links` (a link crossed by k edges is loaded k times). Empty: one
    // transfer's.
    std::vector<uint32_t> starts;
  };
  std::vector<Flow> flows;  // in launch order
  std::vector<Route> routes;
  std::vector<std::vector<uint64_t>> foreign_routes;      // any other traffic's of the step (links in order)
  std::vector<std::pair<int64_t, int64_t>> foreign_ends;  // per foreign route, its GPUs (from, to); may be empty
  // The same traffic of the other data-parallel replicas, which at class fidelity run what the
  // simulated one does when it does: per image, the index of its route in foreign_routes and its links.
  std::vector<std::pair<int64_t, std::vector<uint64_t>>> foreign_images;
};

// Per flow: 0 when it is not launched, else the number of flows' bytes it carries (1: itself).
// Components of flows that share links are kept whole when they touch a foreign link; of clean
// ones with equal signatures the first in launch order is kept, its copies merged by the largest
// count that divides every class's (sim/engine/replay.cpp, "Folding").
// `component` (if given) receives, per flow, the component it belongs to (an id shared by the
// flows of one component); `simulated_by` (if given), per flow, the kept flow that stands for it
// (itself, the one its copies are merged into, or its counterpart in the twin that is simulated),
// whose route's links correspond to its own, position by position.
std::vector<int64_t> fold_ring_flows(const RingFlowSet& set, std::vector<int64_t>* component = nullptr,
                                     std::vector<int64_t>* simulated_by = nullptr);

// The gradient-reduction flows of a step, every one a rank class launches: per pipeline rank,
// the data-parallel all-reduce of each tp and cp index, once for each algorithm and protocol
// NCCL runs it with at the buffers that rank reduces (`buffers`, per rank; a variant's flows
// scale with the buffer), as the communication plan lays them out (comm_plan.hpp), on the
// fabric's routes: one route per pair of route ends (links as Fabric's directed ids), shaped by
// the links' capacities (`capacity`, per network link: the engine's, slow NICs included) and
// latencies. A pipeline's edges (MemberFlow::pipe: NCCL's tree channels), which move at one rate,
// are one flow whose route crosses each edge's links (RingFlowSet::Route::starts). A flow's tier is
// its variant and its bytes (flows of one tier carry the same bytes at every buffer). The foreign links are those
// of the pipeline transfers between the rank classes' representatives and of their tensor- and
// context-parallel groups (whose collectives may run live, replay.cpp, run_live). `flows` receives, parallel to
// the set's flows, what the engine needs to launch them; `variants` the (collective, algorithm,
// protocol) their variant indices name.
using DpVariant = std::tuple<CollectiveKind, CollectiveAlgo, Protocol>;
struct DpFlow {
  int64_t from = 0, to = 0;  // GPUs
  int64_t group = 0;         // the rank's gradient-reduction group: its tp index (grad_group)
  int64_t variant = 0;       // index into the variants
  int64_t index = 0;         // among the flows of its group's all-reduce (a pipeline's: its first)
  // Equal for the groups of one rank that run the same variant at each of its buffers: their flows
  // of one variant start together whenever any of them do.
  int64_t launch = 0;
  double latency = 0;  // its route's (a pipeline's: its slowest edge's), CM02's sharing penalty
};
// The gradient-reduction groups of a pipeline rank, each an all-reduce of its share of a bucket
// (grad_group_share): per tp index, the ParallelPlan::shard_group_size() GPUs of each replica
// (dp_shard consecutive data-parallel ranks x cp; with one replica, all dp x cp of them), which
// gather and reduce-scatter the bucket (share 1: it is counted in all-reduces, reduction_passes);
// with hybrid sharding, per tp index and position in a shard group, the replicas of that
// shard, which all-reduce its gradient: 1 / (reduction_passes x shard_group_size) of the bucket;
// and with expert parallelism, per expert-tp index and position in an expert-parallel group
// (model_group), the ParallelPlan::expert_dp() ranks at that position (every ep-th of the ranks the
// groups partition), which all-reduce the bucket's routed experts' part (GradBucket::expert; the
// groups before, its dense part).
int64_t grad_groups(const ParallelPlan& plan);
// Whether group `group` reduces the routed experts' gradients, and the buffer it all-reduces of a
// bucket: its part (dense or expert) times its share.
bool reduces_experts(const ParallelPlan& plan, int64_t group);
Bytes group_buffer(const ParallelPlan& plan, int64_t group, const GradBucket& bucket);
// Gradient-reduction group `group` of pipeline rank r, in rank order.
std::vector<int64_t> dp_group(const ParallelPlan& plan, const Placement& place, int64_t r, int64_t group);
double grad_group_share(const ParallelPlan& plan, int64_t group);
// Whether group `group` is one of a shard's replicas (hybrid sharding), whose all-reduce follows
// the shard groups' collectives.
bool replicates(const ParallelPlan& plan, int64_t group);
// The tensor-, context- or expert-parallel group of rank `at` (its other coordinates held), in
// rank order. An expert-parallel group is ep consecutive ranks of the cp x dp ranks of its tensor-
// and pipeline-parallel coordinates, cp varying fastest (Megatron-Core's tp-cp-ep-dp-pp order with
// the experts' tensor parallelism that of the attention's), or, folded beside tensor parallelism
// (ParallelPlan::expert_tp), of the tp x cp x dp ranks of its pipeline coordinate, tp fastest
// (Megatron-Core's expert order tp-ep-dp-pp with expert_tensor_parallel_size 1).
// The rank classes' groups are alike; the first class's, at = {0, 0, 0, 0}, is the one the probes,
// the closed-form estimate and the resource estimate price.
std::vector<int64_t> model_group(const ParallelPlan& plan, const Placement& place, CommGroup group,
                                 const RankCoord& at = {});
RingFlowSet dp_flow_set(const CommPlan& comm, const ParallelPlan& plan, const Placement& place,
                        const std::vector<std::vector<GradBucket>>& buffers, const std::vector<double>& capacity,
                        std::vector<DpFlow>& flows, std::vector<DpVariant>& variants);

}  // namespace sim
