// How fast a job runs while some of its nodes are down, for the strategies that keep training
// through a failure instead of restarting (job_timeline.hpp): reconfigure (Oobleck), redundant
// (Bamboo), reroute (ReCycle) and swarm (SWARM).
//
// The job is dp data-parallel replicas of a pipeline. A replica is cut into `units`: the smallest
// groups of whole nodes that hold whole pipeline stages (one node when a node holds one or more
// stages; tp·cp/gpus_per_node nodes when a stage spans nodes). With the default placement
// (sim/topology/placement.hpp, Megatron-LM's order: a replica's nodes are consecutive), node n is
// unit (n mod nodes_per_replica) / nodes_per_unit of replica n / nodes_per_replica; when a replica
// is smaller than a node (replicas_per_node > 1), the node holds whole replicas of one unit each.
// Any other placement lists, per node, the (replica, unit) pairs its GPUs belong to (`node_parts`,
// from the Placement): a node may then hold one unit of several replicas (data parallel inside a
// node, "tp-dp-pp-cp"), and its failure takes that unit down in each of them.
//
// The rate is the job's throughput relative to its failure-free throughput (the strategy's own
// healthy plan), from tables the step simulator filled (sim/run/degraded_plans.hpp):
//   RECONFIGURE  each replica with j units down is re-instantiated from the pipeline template with
//                units − j units; its throughput relative to a full one is template_rate[j] (0 when
//                no template fits); the global batch is spread over the replicas in proportion,
//                so rate = Σ template_rate[j_replica] / dp. Fatal when no replica is left.
//   REDUNDANT    a unit's predecessor in its replica runs the failed unit's layers too; the
//                replicas synchronise at the gradient reduction, so the whole job runs at the
//                merged pipeline's pace, merged_rate, while any replica is degraded. Fatal when two
//                adjacent units of one replica are down (Bamboo's consecutive failures), or a
//                replica has a single unit.
//   REROUTE      a down unit's micro-batches run on the same unit of the other replicas; with d
//                copies of one unit down (d_max over units), the job runs at reroute_rate[d]
//                (the plan with dp − d replicas and the same global batch); past the table the
//                step's extra time grows as d / (dp − d). Fatal when every copy of a unit is down.
//   SWARM        every unit is a pool of dp peers that any micro-batch can be wired through; the
//                thinnest pool sets the pace: rate = (dp − d_max) / dp. Fatal when a pool is empty.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace sim::reliability {

enum class Continuing { RECONFIGURE, REDUNDANT, REROUTE, SWARM };

struct Degradation {
  Continuing kind = Continuing::RECONFIGURE;
  int64_t nodes = 1, dp = 1;
  int64_t units = 1;                          // pipeline units per replica
  int64_t nodes_per_unit = 1;                 // when a replica spans nodes
  int64_t replicas_per_node = 1;              // > 1 when a replica is smaller than a node (then units = 1)
  std::vector<double> template_rate = {1.0};  // RECONFIGURE, [j] for j = 0 … units; missing: 0
  double merged_rate = 1;                     // REDUNDANT
  std::vector<double> reroute_rate = {1.0};   // REROUTE, [d] for d = 0 … D (D ≥ 1 when dp ≥ 2)
  // Per node, its (replica, unit) pairs, sorted; empty: the default layout (the fields above).
  std::vector<std::vector<std::pair<int64_t, int64_t>>> node_parts;

  int64_t replica_of(int64_t node) const;  // the first replica the node holds
  int64_t unit_of(int64_t node) const;
};

// The nodes down now and what they leave of the job. Nodes outside [0, nodes) count as node 0.
class DownSet {
 public:
  explicit DownSet(const Degradation& d);

  bool is_down(int64_t node) const { return down_[index(node)] != 0; }
  void add(int64_t node);  // no effect when already down
  void remove(int64_t node);
  void clear();
  bool empty() const { return count_ == 0; }

  double rate() const;  // in [0, 1]; 1 when nothing is down
  bool fatal() const;   // the strategy cannot continue: restart from a checkpoint

 private:
  size_t index(int64_t node) const;
  void change(int64_t node, int delta);
  void change_unit(int64_t replica, int64_t unit, int delta);  // one node of it went down or up

  const Degradation* d_;
  std::vector<uint8_t> down_;             // per node
  std::vector<int64_t> replica_down_;     // per replica: units down
  std::vector<int64_t> unit_down_;        // per unit index: replicas with it down
  std::vector<int64_t> unit_histogram_;   // [k]: units with k copies down (REROUTE, SWARM)
  std::vector<int64_t> unit_nodes_down_;  // [replica · units + unit]: its nodes down
  int64_t count_ = 0;                     // nodes down
  int64_t degraded_replicas_ = 0;         // replicas with a unit down
  int64_t adjacent_ = 0;                  // REDUNDANT: adjacent down pairs in one replica
  int64_t max_down_ = 0;                  // the most copies of one unit down (REROUTE, SWARM)
  double template_sum_ = 0;               // RECONFIGURE: Σ template_rate over replicas
};

}  // namespace sim::reliability
