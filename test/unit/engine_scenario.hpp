// The small scenarios the engine tests simulate: a model on DGX A100 nodes with the degrees,
// NICs, pods and oversubscription a test sets (test/unit/engine_*.cpp).
#pragma once

#include <string>

#include "sim/core/params.hpp"
#include "sim/cost/compute_model.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/pipeline.hpp"
#include "sim/workload/stage_layout.hpp"
#include "test/unit/text_fill.hpp"

namespace engine_test {

using namespace sim;

struct Setup {
  const char* model = "gpt-7.5b";
  int64_t tp = 1, pp = 1, dp = 1, global_batch = 8, micro_batch = 1;
  const char* recompute = "full";
  const char* schedule = "1f1b";
  int64_t virtual_stages = 1;  // 1: none given (a V-shaped schedule's two then)
  int64_t gpus_per_node = 8, nics_per_node = 8;
  double oversubscription = 1;
  int64_t pod_gpus = 0;  // 0: one pod
  const char* cluster = "dgx-a100-superpod";
  const char* scale_up = "";   // a whole scale_up object to replace the cluster's, or ""
  const char* scale_out = "";  // a whole scale_out object to use instead of the fat-tree above, or ""
};

// DGX A100 nodes (topologies/dgx-a100-superpod.json) with the shipped A100 profile.
inline Scenario scenario(const Setup& u) {
  const std::string pod = u.pod_gpus > 0 ? ", \"pod_gpus\": " + std::to_string(u.pod_gpus) : std::string();
  const std::string up = *u.scale_up ? std::string(", \"scale_up\": ") + u.scale_up : std::string();
  const std::string v =
      u.virtual_stages > 1 ? ", \"virtual_stages\": " + std::to_string(u.virtual_stages) : std::string();
  const std::string fat_tree =
      fill(R"({"kind": "fat-tree", "nics_per_node": {nics}, "nic_bandwidth": "200 Gb/s",
                                        "latency": "1 us", "oversubscription": {over}{pod}})",
           {{"nics", std::to_string(u.nics_per_node)}, {"over", std::to_string(u.oversubscription)}, {"pod", pod}});
  const std::string text = fill(R"({"kind": "scenario", "name": "engine", "model": "{model}",
    "cluster": {"from": "{cluster}", "gpus": {gpus}, "gpus_per_node": {node}{up}, "scale_out": {out}},
    "parallelism": {"tp": {tp}, "pp": {pp}, "dp": {dp}, "overlap_grad_reduce": false,
                    "schedule": "{schedule}"{v}},
    "training": {"seq_len": 2048, "global_batch": {B}, "micro_batch": {b}, "recompute": "{recompute}",
                 "precision": "bf16"}})",
                                {{"model", u.model},
                                 {"cluster", u.cluster},
                                 {"up", up},
                                 {"gpus", std::to_string(u.tp * u.pp * u.dp)},
                                 {"node", std::to_string(u.gpus_per_node)},
                                 {"out", *u.scale_out ? std::string(u.scale_out) : fat_tree},
                                 {"tp", std::to_string(u.tp)},
                                 {"pp", std::to_string(u.pp)},
                                 {"dp", std::to_string(u.dp)},
                                 {"B", std::to_string(u.global_batch)},
                                 {"b", std::to_string(u.micro_batch)},
                                 {"recompute", u.recompute},
                                 {"schedule", u.schedule},
                                 {"v", v}});
  return parse_scenario(ParamReader::from_text(text, "engine test"), TRAINSIM_SOURCE_DIR);
}

// Chips four to a host on one torus (the cluster's scale_up replaced by `scale_up`, kind "torus").
inline Setup on_torus(Setup u, const char* scale_up) {
  u.gpus_per_node = 4;
  u.nics_per_node = 4;
  u.scale_up = scale_up;
  return u;
}

// GPT 1.7B data-parallel over one 4 x 4 x 4 torus of 50 GB/s ICI links with 1 us each.
inline Setup dp64_on_4x4x4() {
  Setup u;
  u.model = "gpt-1.7b";
  u.dp = 64;
  u.global_batch = 64;
  return on_torus(u, R"({"kind": "torus", "dims": [4, 4, 4], "bandwidth": "50 GB/s", "latency": "1 us"})");
}

inline Pipeline build(const Scenario& s) {
  ComputeModel cm(s.cluster.device, s.training.precision);
  StageLayout layout = make_stage_layout(s.model, s.plan, s.plan.virtual_stages.value, s.file);
  return build_pipeline(s, layout, s.training.micro_batch.value, cm);
}

}  // namespace engine_test
