#include "sim/report/json_report.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "sim/comm/comm_costs.hpp"
#include "sim/core/error.hpp"
#include "sim/run/run.hpp"
#include "sim/scenario/circuits.hpp"
#include "sim/scenario/dispatcher.hpp"
#include "sim/scenario/low_precision_inputs.hpp"
#include "sim/scenario/offload_modules.hpp"
#include "sim/scenario/recompute_modules.hpp"
#include "sim/workload/memory_budget.hpp"

namespace sim {

using ojson = nlohmann::ordered_json;

namespace {

ojson stat_json(const reliability::Stat& st) {
  return {{"mean", st.mean}, {"p50", st.p50}, {"p99", st.p99}, {"p1", st.p1}};
}

// DESIGN.md "Report": the reliability section. Means are per trial over the horizon; recovery
// times are over every recovery of every trial, null when none finished. A job MTTF with no
// failure at all is null.
ojson reliability_json(const JobReliability& rel) {
  const reliability::MonteCarloResult& h = rel.horizon;
  const reliability::TimeLost& l = h.lost;
  ojson j;
  j["strategy"] = rel.strategy;
  j["mttf_s"] = std::isfinite(h.mttf.value) ? ojson(h.mttf.value) : ojson(nullptr);
  j["ettr"] = h.ettr.mean;
  j["goodput"] = h.goodput.mean;
  j["interruptions"] = h.interruptions.mean;
  j["planned_interruptions"] = h.planned.mean;
  j["checkpoint_interval_s"] = h.interval.value;
  j["checkpoint_interval_auto"] = rel.interval_auto;
  j["checkpoint_write_s"] = rel.checkpoint_write.value;
  j["checkpoint_bytes"] = rel.checkpoint_bytes.value;
  j["reload_s"] = rel.reload.value;
  const auto recovery = [&](double reliability::Stat::*field) {
    return h.recovery ? ojson((*h.recovery).*field) : ojson(nullptr);
  };
  j["mean_recovery_s"] = recovery(&reliability::Stat::mean);
  j["p50_recovery_s"] = recovery(&reliability::Stat::p50);
  j["p99_recovery_s"] = recovery(&reliability::Stat::p99);
  j["lost_s"] = {{"detection", l.detection.value},
                 {"restart", l.restart.value},
                 {"reload", l.reload.value},
                 {"lost_work", l.lost_work.value},
                 {"checkpoint_writes", l.checkpoint_writes.value},
                 {"planned", l.planned.value},
                 {"degraded", l.degraded.value}};
  j["distribution"] = {
      {"ettr", stat_json(h.ettr)}, {"goodput", stat_json(h.goodput)}, {"interruptions", stat_json(h.interruptions)}};
  if (rel.snapshot) {
    j["snapshot_s"] = rel.snapshot->value;
    j["background_slowdown"] = *rel.background_slowdown;
  }
  if (rel.continuing) {
    j["strategy_step_time_s"] = rel.continuing->step.value;
    j["one_node_down_throughput"] = rel.continuing->one_down_rate;
    j["pause_s"] = rel.continuing->pause.value;
  }
  j["horizon_s"] = rel.horizon_s.value;
  j["trials"] = rel.trials;
  if (rel.train_days_failure_free)
    j["time_to_train_days"] = {{"failure_free", *rel.train_days_failure_free},
                               {"with_failures", stat_json(*rel.train_days)},
                               {"unfinished_trials", rel.unfinished_trials}};
  return j;
}

// The scenario's step_faults: the healthy step when a component is slow, and what a failure did
// (README "Report"). A failure with no effect has null stall and detection times and lost_s 0.
ojson step_faults_json(const RunResult& r) {
  const StepFaultsResult& f = *r.step_faults;
  ojson j;
  j["nccl_timeout_s"] = f.nccl_timeout.value;
  ojson events = ojson::array();
  for (const auto& e : r.scenario.step_faults.events) {
    ojson ev;
    ev["kind"] = e.kind == StepFaultKind::SLOW ? "slow" : "fail";
    ev[e.target == FaultTarget::GPU ? "gpu" : "nic"] = e.index;
    if (e.kind == StepFaultKind::SLOW)
      ev["factor"] = e.factor;
    else
      ev["at_s"] = e.at.value;
    events.push_back(ev);
  }
  j["events"] = events;
  const auto& sf = r.scenario.step_faults;
  if (sf.stragglers > 0) {  // the drawn ones are the last events; the slowest sets its rank class's pace
    auto first = sf.events.end() - sf.stragglers;
    auto slowest = std::max_element(
        first, sf.events.end(), [](const StepFaultEvent& a, const StepFaultEvent& b) { return a.factor < b.factor; });
    j["stragglers"] = {{"count", sf.stragglers}, {"slowest_gpu", slowest->index}, {"slowest_factor", slowest->factor}};
  }
  if (f.healthy_step_time_s) {
    j["healthy_step_time_s"] = *f.healthy_step_time_s;
    j["slowdown"] = r.step_time_s / *f.healthy_step_time_s;
  }
  if (f.failure) {
    const StepFaultOutcome& o = *f.outcome;
    j["failed_component"] = to_string(f.failure->target, f.failure->index);
    j["failed_at_s"] = o.failed_at.value;
    j["failure_fidelity"] = f.full_fidelity ? "full" : "class";
    j["failure_effect"] = o.stalled ? "stall" : "none";
    j["stalled_at_s"] = o.stalled ? ojson(o.stalled_at.value) : ojson(nullptr);
    j["detected_at_s"] = o.stalled ? ojson(o.detected_at.value) : ojson(nullptr);
    j["lost_s"] = f.lost_s;
  }
  return j;
}

}  // namespace

std::string report_json(const RunResult& r) {
  const Scenario& s = r.scenario;
  ojson j;
  j["name"] = s.name;
  j["seed"] = s.seed;
  j["model"] = s.model.name;
  j["cluster"] = {{"gpus", s.cluster.gpus}, {"device", s.cluster.device.name}};
  if (!s.cluster.scale_out.circuits.empty()) {  // a direct-connect network's, as designed or given
    const auto& o = s.cluster.scale_out;
    const auto used = ports_used(s.cluster.nodes(), o.circuits);
    j["cluster"]["circuits"] = {{"count", o.circuits.size()},
                                {"ring_strides", o.ring_strides},
                                {"designed", o.circuits_designed()},
                                {"most_ports_used", *std::max_element(used.begin(), used.end())},
                                {"ports_per_node", o.nics_per_node}};
  }
  j["plan"] = {{"tp", s.plan.tp},
               {"pp", s.plan.pp},
               {"dp", s.plan.dp},
               {"cp", s.plan.cp},
               {"ep", s.plan.ep},
               {"sequence_parallel", s.plan.sequence_parallel},
               {"zero", s.plan.zero},
               {"dp_shard", s.plan.shard_group_size() / s.plan.cp},
               {"recompute", to_string(s.training.recompute)},
               {"precision", to_string(s.training.precision)}};
  if (s.training.recompute == Recompute::SELECTIVE) {
    j["plan"]["recompute_modules"] = ojson::array();
    for (RecomputeModule m : s.training.selective_modules())
      j["plan"]["recompute_modules"].push_back(registry_entry(recompute_module_entries(), m).name);
  }
  if (!s.training.offload_modules.empty()) {
    j["plan"]["offload_modules"] = ojson::array();
    for (OffloadModule m : s.training.offload_modules)
      j["plan"]["offload_modules"].push_back(registry_entry(offload_module_entries(), m).name);
  }
  if (!s.training.low_precision_inputs.empty()) {
    j["plan"]["low_precision_inputs"] = ojson::array();
    for (LowPrecisionInput m : s.training.low_precision_inputs)
      j["plan"]["low_precision_inputs"].push_back(registry_entry(low_precision_input_entries(), m).name);
  }
  if (s.plan.ep > 1) j["plan"]["dispatcher"] = dispatcher(s.plan.dispatcher).name;
  if (s.plan.ep > 1) j["plan"]["etp"] = s.plan.expert_tp();
  j["step_time_s"] = r.step_time_s;
  j["tokens_per_s"] = r.tokens_per_s;
  j["model_flops_per_step"] = r.model_flops_per_step;
  j["hardware_flops_per_step"] = r.hardware_flops_per_step;
  j["model_tflops_per_gpu"] = r.model_tflops_per_gpu;
  j["mfu"] = r.mfu;
  j["hfu"] = r.hfu;
  j["mfu_precision_peak"] = r.mfu_precision_peak;
  j["model_flops_causal_per_step"] = r.causal_flops_per_step;
  j["mfu_causal"] = r.mfu_causal;
  const Breakdown& b = r.breakdown;
  j["breakdown"] = {{"pipeline_rank", b.rank},
                    {"compute_s", b.compute_s},
                    {"gemm_s", b.gemm_s},
                    {"attention_s", b.attention_s},
                    {"elementwise_s", b.elementwise_s},
                    {"host_wait_s", b.host_wait_s},
                    {"optimizer_s", b.optimizer_s},
                    {"tp_comm_s", b.tp_comm_s},
                    {"cp_comm_s", b.cp_comm_s},
                    {"ep_comm_s", b.ep_comm_s},
                    {"pp_comm_s", b.pp_comm_s},
                    {"dp_comm_s", b.dp_comm_s},
                    {"exposed_comm_s", b.exposed_comm_s},
                    {"bubble_s", b.bubble_s}};
  const MemoryEstimate& m = r.plan.memory;
  ojson stages = ojson::array();
  for (const auto& st : m.stages)
    stages.push_back({{"pipeline_rank", st.rank},
                      {"weights_bytes", st.weights.value},
                      {"grads_bytes", st.grads.value},
                      {"optimizer_bytes", st.optimizer.value},
                      {"activations_bytes", st.activations.value},
                      {"workspace_bytes", st.workspace.value},
                      {"total_bytes", st.total().value}});
  // The verdict (memory_budget.hpp): the reserved peak against the usable memory, the HBM less the
  // CUDA context and NCCL's buffers; over by over_bytes, beside the model's measured error.
  const MemoryModelError error = memory_model_error();
  j["memory"] = {{"peak_bytes_per_gpu", m.peak.value},
                 {"reserved_bytes_per_gpu", m.reserved.value},
                 {"capacity_bytes", m.capacity.value},
                 {"cuda_context_bytes", m.cuda_context.value},
                 {"nccl_buffer_bytes", m.nccl_buffers.value},
                 {"usable_bytes", m.usable.value},
                 {"fits", m.fits},
                 {"over_bytes", m.over.value},
                 {"model_error", {{"mean", error.mean}, {"worst", error.worst}, {"rows", error.rows}}},
                 {"stages", stages}};
  j["chosen"] = {{"dp", s.plan.dp},
                 {"micro_batch", s.training.micro_batch.value},
                 {"virtual_stages", s.plan.virtual_stages.value},
                 {"schedule", to_string(s.plan.schedule)},
                 {"microbatches", s.microbatches()},
                 {"candidates_evaluated", r.plan.candidates_tried}};
  // What NCCL runs for the largest all-reduce over the tensor-parallel group and for the largest
  // gradient reduction of the first pipeline rank (a group of one runs nothing).
  Bytes tp_bytes, dp_bytes;
  const auto& g = r.plan.pipeline->graph;
  for (size_t v = 0; v < boost::num_vertices(g); ++v) {
    for (const auto& use : g[v].collectives)
      if (use.group == CommGroup::TP && use.kind == CollectiveKind::ALL_REDUCE)
        tp_bytes = std::max(tp_bytes, use.bytes);
    if (g[v].rank != 0) continue;
    dp_bytes = std::max(dp_bytes, g[v].dp_bytes.dense);  // the data-parallel groups' (not the experts')
    for (const GradBucket& b : g[v].dp_buckets) dp_bytes = std::max(dp_bytes, b.dense);
  }
  const CommCosts comm(s);
  j["chosen"]["all_reduce"] = {{"tp", to_string(comm.group_all_reduce_algo(CommGroup::TP, tp_bytes))},
                               {"dp", to_string(comm.dp_all_reduce_algo(0, dp_bytes))}};
  j["simulation"] = {{"fidelity", r.full_fidelity ? "full" : "class"},
                     {"actors", r.engine.actors},
                     {"transfers", r.engine.transfers},
                     {"estimated_step_time_s", r.plan.estimated_step.value},
                     // What the run-time estimate (resource_estimate.hpp) put this simulation's wall at, on
                     // the development machine, the reliability trials' included (job_reliability.hpp):
                     // deterministic, so the same config gives the same report.
                     {"estimated_wall_s", r.plan.resources.wall.value + r.estimated_reliability_wall.value}};
  if (r.reliability) j["simulation"]["estimated_reliability_wall_s"] = r.estimated_reliability_wall.value;
  if (r.network)  // the scale-out network's parts, in ports of the cost table's bandwidth
    j["network"] = {{"switch_ports", r.network->switch_ports},
                    {"transceivers", r.network->transceivers},
                    {"ocs_ports", r.network->ocs_ports},
                    {"capex_usd", r.network->usd},
                    {"power_w", r.network->watts},
                    {"energy_per_step_j", r.network->watts * r.step_time_s}};
  if (r.reliability) j["reliability"] = reliability_json(*r.reliability);
  if (r.step_faults) j["step_faults"] = step_faults_json(r);
  return j.dump(2) + "\n";
}

std::string trace_json(const RunResult& r) {
  const auto& g = r.plan.pipeline->graph;
  ojson events = ojson::array();
  for (int64_t rank = 0; rank < r.scenario.plan.pp; ++rank)
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", 0},
                      {"tid", rank},
                      {"args", {{"name", "pipeline rank " + std::to_string(rank)}}}});
  for (size_t v = 0; v < boost::num_vertices(g); ++v) {
    const Task& t = g[v];
    const TaskSpan& sp = r.engine.spans[v];
    std::string name = to_string(t.kind);
    if (t.kind == TaskKind::FORWARD || t.kind == TaskKind::BACKWARD || t.kind == TaskKind::WEIGHT_GRAD)
      name = std::string(t.kind == TaskKind::FORWARD    ? "F"
                         : t.kind == TaskKind::BACKWARD ? "B"
                                                        : "W") +
             std::to_string(t.microbatch) + "." + std::to_string(t.chunk);
    auto us = [](double s) { return s * 1e6; };
    if (sp.p2p > 0)
      events.push_back({{"name", "recv"},
                        {"cat", "pp_comm"},
                        {"ph", "X"},
                        {"pid", 0},
                        {"tid", t.rank},
                        {"ts", us(sp.start - sp.p2p)},
                        {"dur", us(sp.p2p)}});
    events.push_back({{"name", name},
                      {"cat", t.kind == TaskKind::DP_REDUCE ? "dp_comm" : "compute"},
                      {"ph", "X"},
                      {"pid", 0},
                      {"tid", t.rank},
                      {"ts", us(sp.start)},
                      {"dur", us(sp.end - sp.start)},
                      {"args",
                       {{"tp_comm_us", us(sp.tp)},
                        {"cp_comm_us", us(sp.cp)},
                        {"ep_comm_us", us(sp.ep)},
                        {"microbatch", t.microbatch},
                        {"chunk", t.chunk}}}});
  }
  // An optical circuit switch's reconfigurations: its circuits dark on a track of their own.
  if (!r.engine.dark.empty())
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", 0},
                      {"tid", r.scenario.plan.pp},
                      {"args", {{"name", "optical circuit switch"}}}});
  for (const auto& [from, to] : r.engine.dark)
    events.push_back({{"name", "reconfigure (dark)"},
                      {"cat", "ocs"},
                      {"ph", "X"},
                      {"pid", 0},
                      {"tid", r.scenario.plan.pp},
                      {"ts", from * 1e6},
                      {"dur", (to - from) * 1e6}});
  ojson j;
  j["traceEvents"] = events;
  j["displayTimeUnit"] = "ms";
  return j.dump() + "\n";
}

}  // namespace sim
