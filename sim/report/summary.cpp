#include <fmt/format.h>

#include <cmath>

#include "sim/report/json_report.hpp"
#include "sim/run/run.hpp"

namespace sim {

std::string summary_text(const RunResult& r) {
  const Scenario& s = r.scenario;
  const Breakdown& b = r.breakdown;
  const auto& m = r.plan.memory;
  std::string out;
  out += fmt::format("{} — {} on {} x {}\n", s.name, s.model.name, s.cluster.gpus, s.cluster.device.name);
  out += fmt::format(
      "  plan        tp {} pp {} dp {} cp {}  sp {}  {} (v={})  micro_batch {}  {} microbatches  "
      "recompute {}\n",
      s.plan.tp, s.plan.pp, s.plan.dp, s.plan.cp, s.plan.sequence_parallel ? "on" : "off", to_string(s.plan.schedule),
      s.plan.virtual_stages.value, s.training.micro_batch.value, r.plan.pipeline->microbatches,
      to_string(s.training.recompute));
  out += fmt::format("  step time   {:.3f} s    tokens/s {:.0f}\n", r.step_time_s, r.tokens_per_s);
  out += fmt::format("  throughput  {:.1f} TFLOP/s/GPU (model)    MFU {:.1f}%    HFU {:.1f}%\n", r.model_tflops_per_gpu,
                     100 * r.mfu, 100 * r.hfu);
  out += fmt::format("  memory      {} peak per GPU of {} ({})\n", format_bytes(m.peak), format_bytes(m.capacity),
                     m.fits ? "fits" : "DOES NOT FIT");
  double step = r.step_time_s > 0 ? r.step_time_s : 1.0;
  auto row = [&](const char* name, double v) {
    return fmt::format("    {:<14} {:>10.3f} s  {:5.1f}%\n", name, v, 100 * v / step);
  };
  out += fmt::format("  where the time goes (pipeline rank {}):\n", b.rank);
  out += row("compute", b.compute_s);
  out += row("  gemm", b.gemm_s);
  out += row("  attention", b.attention_s);
  out += row("  elementwise", b.elementwise_s);
  out += row("optimizer", b.optimizer_s);
  out += row("tp comm", b.tp_comm_s);
  if (b.cp_comm_s > 0) out += row("cp comm", b.cp_comm_s);
  out += row("pp comm", b.pp_comm_s);
  out += row("dp comm", b.dp_comm_s);
  out += row("bubble/idle", b.bubble_s);
  if (r.step_faults) {
    const StepFaultsResult& f = *r.step_faults;
    if (f.healthy_step_time_s)
      out += fmt::format("  stragglers  step {:.3f} s against {:.3f} s healthy ({:+.1f}%)\n", r.step_time_s,
                         *f.healthy_step_time_s, 100 * (r.step_time_s / *f.healthy_step_time_s - 1));
    if (f.failure) {
      const StepFaultOutcome& o = *f.outcome;
      const std::string what = to_string(f.failure->target, f.failure->index);
      if (o.stalled)
        out += fmt::format(
            "  failure     {} fails at {:.3f} s: the step stalls at {:.3f} s, the NCCL timeout ({}) detects it at "
            "{:.3f} s; {:.3f} s lost\n",
            what, o.failed_at.value, o.stalled_at.value, format_seconds(f.nccl_timeout), o.detected_at.value, f.lost_s);
      else
        out += fmt::format("  failure     {} fails at {:.3f} s: no effect (the step never needs it afterwards)\n", what,
                           o.failed_at.value);
    }
  }
  if (r.reliability) {
    const auto& rel = *r.reliability;
    const auto& h = rel.horizon;
    out += fmt::format("  failures    {:.0f} days x {} trials: {:.1f} interruptions (+{:.1f} planned), job MTTF {}\n",
                       rel.horizon_s.value / 86400, rel.trials, h.interruptions.mean, h.planned.mean,
                       std::isfinite(h.mttf.value) ? format_seconds(h.mttf) : std::string("none"));
    out += fmt::format("  recovery    checkpoint every {}{} ({} written in {}), recovery {} mean, {} p99\n",
                       format_seconds(h.interval), rel.interval_auto ? " (Daly)" : "",
                       format_bytes(rel.checkpoint_bytes), format_seconds(rel.checkpoint_write),
                       format_seconds(Seconds(h.recovery.mean)), format_seconds(Seconds(h.recovery.p99)));
    if (rel.continuing)
      out += fmt::format(
          "  continuing  pause {} per membership change, {:.1f}% throughput with one node down, "
          "failure-free step {}\n",
          format_seconds(rel.continuing->pause), 100 * rel.continuing->one_down_rate,
          format_seconds(rel.continuing->step));
    if (rel.snapshot)
      out += fmt::format("  async       snapshot {} blocking, then the write in the background at {:.2f}% slowdown\n",
                         format_seconds(*rel.snapshot), 100 * *rel.background_slowdown);
    out += fmt::format("  ETTR        {:.1f}% (p50 {:.1f}%, p99 {:.1f}%)    goodput {:.1f}%\n", 100 * h.ettr.mean,
                       100 * h.ettr.p50, 100 * h.ettr.p99, 100 * h.goodput.mean);
    if (rel.train_days_failure_free)
      out += fmt::format("  to train    {:.1f} days failure-free, {}{:.1f} days with failures (p99 {:.1f}){}\n",
                         *rel.train_days_failure_free, rel.unfinished_trials > 0 ? "over " : "", rel.train_days->mean,
                         rel.train_days->p99,
                         rel.unfinished_trials > 0
                             ? fmt::format(": {} of {} trials unfinished at 10x the failure-free time",
                                           rel.unfinished_trials, rel.trials)
                             : std::string());
  }
  return out;
}

}  // namespace sim
