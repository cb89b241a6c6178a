#include "sim/report/summary.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/format_duration.hpp"
#include "sim/core/params.hpp"
#include "sim/core/units.hpp"
#include "sim/report/report_numbers.hpp"
#include "sim/workload/memory_budget.hpp"

namespace sim {
namespace {

// ANSI SGR sequences, or nothing.
struct Style {
  bool on;
  std::string bold(const std::string& s) const { return on ? "\x1b[1m" + s + "\x1b[0m" : s; }
  std::string good(const std::string& s) const { return on ? "\x1b[32m" + s + "\x1b[0m" : s; }
  std::string bad(const std::string& s) const { return on ? "\x1b[1;31m" + s + "\x1b[0m" : s; }
};

std::string seconds(double s) { return format_seconds(Seconds(s)); }
std::string duration(double s) { return format_duration(Seconds(s)); }

std::string step_faults_text(const ParamReader& f, double step) {
  std::string out;
  if (f.has("healthy_step_time_s")) {
    const double healthy = positive(f, "healthy_step_time_s");
    out += fmt::format("  stragglers  step {:.3f} s against {:.3f} s healthy ({:+.1f}%)\n", step, healthy,
                       100 * (step / healthy - 1));
  }
  if (f.has("failed_component")) {
    const std::string what = f.string("failed_component");
    if (f.string("failure_effect") == "stall")
      out += fmt::format(
          "  failure     {} fails at {:.3f} s: the step stalls at {:.3f} s, the NCCL timeout ({}) detects it at "
          "{:.3f} s; {:.3f} s lost\n",
          what, non_negative(f, "failed_at_s"), non_negative(f, "stalled_at_s"), seconds(positive(f, "nccl_timeout_s")),
          non_negative(f, "detected_at_s"), non_negative(f, "lost_s"));
    else
      out += fmt::format("  failure     {} fails at {:.3f} s: no effect (the step never needs it afterwards)\n", what,
                         non_negative(f, "failed_at_s"));
  }
  return out;
}

// Where the time lost to failures went, per trial over the horizon, largest first (ties in the
// report's order), each in hours and days; parts that cost nothing are left out.
std::string lost_text(const ParamReader& lost) {
  const std::pair<const char*, const char*> parts[] = {
      {"restart", "restart"},     {"detection", "detection"},
      {"lost_work", "lost work"}, {"checkpoint_writes", "checkpoint writes"},
      {"reload", "reload"},       {"planned", "planned"},
      {"degraded", "degraded"}};
  std::vector<std::pair<double, const char*>> spent;
  for (const auto& [key, name] : parts)
    if (const double v = non_negative(lost, key); v > 0) spent.emplace_back(v, name);
  std::stable_sort(spent.begin(), spent.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  if (spent.empty()) return "  time lost   none\n";
  double total = 0;
  std::string list;
  for (const auto& [v, name] : spent) {
    total += v;
    list += fmt::format("{}{} {}", list.empty() ? "" : ", ", name, format_hours_days(Seconds(v)));
  }
  return fmt::format("  time lost   {} per trial: {}\n", format_hours_days(Seconds(total)), list);
}

std::string reliability_text(const ParamReader& rel) {
  std::string out;
  const auto mttf = positive_or_null(rel, "mttf_s");
  out += fmt::format("  failures    {:.0f} days x {} trials: {:.1f} interruptions (+{:.1f} planned), job MTTF {}\n",
                     positive(rel, "horizon_s") / 86400, rel.count("trials"), non_negative(rel, "interruptions"),
                     non_negative(rel, "planned_interruptions"), mttf ? duration(*mttf) : std::string("none"));
  const auto mean_recovery = positive_or_null(rel, "mean_recovery_s", true);
  const std::string recoveries = mean_recovery
                                     ? fmt::format("recovery {} mean, {} p99 (pessimistic)", duration(*mean_recovery),
                                                   duration(non_negative(rel, "p99_recovery_s")))
                                     : std::string("no recovery finished");
  const auto interval = positive_or_null(rel, "checkpoint_interval_s");  // null: never (+infinity)
  out += fmt::format("  recovery    checkpoint {}{} ({} written in {}), {}\n",
                     interval ? "every " + duration(*interval) : std::string("never"),
                     rel.boolean("checkpoint_interval_auto") ? " (Daly)" : "",
                     format_bytes(Bytes(positive(rel, "checkpoint_bytes"))),
                     duration(positive(rel, "checkpoint_write_s")), recoveries);
  out += lost_text(rel.at("lost_s"));
  if (rel.has("strategy_step_time_s"))
    out += fmt::format(
        "  continuing  pause {} per membership change, {:.1f}% throughput with one node down, "
        "failure-free step {}\n",
        duration(non_negative(rel, "pause_s")), 100 * share(rel, "one_node_down_throughput"),
        duration(positive(rel, "strategy_step_time_s")));
  if (rel.has("snapshot_s"))
    out += fmt::format("  async       snapshot {} blocking, then the write in the background at {:.2f}% slowdown\n",
                       duration(positive(rel, "snapshot_s")), 100 * share(rel, "background_slowdown"));
  const ParamReader ettr = rel.at("distribution").at("ettr");
  // ETTR's pessimistic tail is its low one (p1); reports saved before p1 was reported show p99,
  // said to be the optimistic one.
  const bool low = ettr.has("p1");
  out += fmt::format("  ETTR        {:.1f}% (p50 {:.1f}%, {} {:.1f}%)    goodput {:.1f}%\n", 100 * share(rel, "ettr"),
                     100 * share(ettr, "p50"), low ? "p1 (pessimistic)" : "p99 (optimistic)",
                     100 * share(ettr, low ? "p1" : "p99"), 100 * share(rel, "goodput"));
  if (rel.has("time_to_train_days")) {
    const ParamReader t = rel.at("time_to_train_days");
    const ParamReader with = t.at("with_failures");
    const int64_t unfinished = t.count("unfinished_trials", 0);
    out += fmt::format(
        "  to train    {:.1f} days failure-free, {}{:.1f} days with failures (p99 (pessimistic) {:.1f} days){}\n",
        positive(t, "failure_free"), unfinished > 0 ? "over " : "", positive(with, "mean"), positive(with, "p99"),
        unfinished > 0
            ? fmt::format(": {} of {} trials unfinished at 10x the failure-free time", unfinished, rel.count("trials"))
            : std::string());
  }
  return out;
}

}  // namespace

std::string summary_text(const ParamReader& r, bool colour) {
  const Style st{colour};
  const ParamReader plan = r.at("plan"), chosen = r.at("chosen"), b = r.at("breakdown"), m = r.at("memory");
  const ParamReader cluster = r.at("cluster");
  const double step_s = positive(r, "step_time_s");
  std::string out;
  out += st.bold(fmt::format("{} — {} on {} x {}", r.string("name"), r.string("model"), cluster.count("gpus"),
                             cluster.string("device"))) +
         "\n";
  // Expert parallelism, where the plan has it (reports before it had none).
  const int64_t ep = plan.has("ep") ? plan.count("ep") : 1;
  // The experts' tensor parallelism where it is not 1 (saved reports before it have none).
  const int64_t etp = plan.has("etp") ? plan.count("etp") : 1;
  const std::string experts =
      ep > 1 ? fmt::format(" ep {}{} ({})", ep, etp > 1 ? fmt::format(" etp {}", etp) : "", plan.string("dispatcher"))
             : "";
  // Selective recomputation's modules, where they are not its default (the attention core alone).
  std::string recompute = plan.string("recompute");
  const auto names = [&](const char* key) {
    std::vector<std::string> modules;
    const ParamReader list = plan.at(key);
    for (size_t i = 0; i < list.size(); ++i) modules.push_back(list[i].as_string());
    return modules;
  };
  if (plan.has("recompute_modules")) {
    const std::vector<std::string> modules = names("recompute_modules");
    if (modules != std::vector<std::string>{"core_attn"})
      recompute += " (" + fmt::format("{}", fmt::join(modules, ", ")) + ")";
  }
  // Offloaded modules and inputs cached in fewer bits, where the plan has them.
  if (plan.has("offload_modules"))
    recompute += "  offload " + fmt::format("{}", fmt::join(names("offload_modules"), ", "));
  if (plan.has("low_precision_inputs"))
    recompute += "  low-precision " + fmt::format("{}", fmt::join(names("low_precision_inputs"), ", "));
  out += fmt::format(
      "  plan        tp {} pp {} dp {} cp {}{}  sp {}  {} (v={})  micro_batch {}  {} microbatches  "
      "recompute {}\n",
      plan.count("tp"), plan.count("pp"), plan.count("dp"), plan.count("cp"), experts,
      plan.boolean("sequence_parallel") ? "on" : "off", chosen.string("schedule"), chosen.count("virtual_stages"),
      chosen.count("micro_batch"), chosen.count("microbatches"), recompute);
  out += fmt::format("  step time   {}    tokens/s {:.0f}\n", st.bold(fmt::format("{:.3f} s", step_s)),
                     positive(r, "tokens_per_s"));
  out += fmt::format("  throughput  {:.1f} TFLOP/s/GPU (model)    MFU {}    HFU {:.1f}%\n",
                     positive(r, "model_tflops_per_gpu"), st.bold(fmt::format("{:.1f}%", 100 * positive(r, "mfu"))),
                     100 * positive(r, "hfu"));
  const bool fits = m.boolean("fits");
  // Reports saved before the reserve was reported have none.
  const auto reserved = m.find("reserved_bytes_per_gpu");
  const std::string reserve =
      reserved ? fmt::format(" ({} reserved)", format_bytes(Bytes(non_negative(m, "reserved_bytes_per_gpu"))))
               : std::string();
  // The verdict (memory_budget.hpp): fits, or over the usable memory by how much, against the
  // model's measured error. Reports saved before the usable memory was reported say only whether.
  std::string verdict = fits ? "fits" : "DOES NOT FIT";
  if (m.find("usable_bytes")) {
    const ParamReader e = m.at("model_error");
    verdict = memory_verdict_text(fits, Bytes(non_negative(m, "over_bytes")),
                                  {non_negative(e, "mean"), non_negative(e, "worst"), 0});
    out += fmt::format("  memory      {} peak per GPU{} of {} usable ({} HBM): {}\n",
                       format_bytes(Bytes(positive(m, "peak_bytes_per_gpu"))), reserve,
                       format_bytes(Bytes(non_negative(m, "usable_bytes"))),
                       format_bytes(Bytes(positive(m, "capacity_bytes"))), fits ? st.good(verdict) : st.bad(verdict));
  } else {
    out += fmt::format("  memory      {} peak per GPU{} of {} ({})\n",
                       format_bytes(Bytes(positive(m, "peak_bytes_per_gpu"))), reserve,
                       format_bytes(Bytes(positive(m, "capacity_bytes"))), fits ? st.good(verdict) : st.bad(verdict));
  }
  if (auto n = r.find("network"))
    out += fmt::format(
        "  network     ${:.0f} capex, {:.1f} kW ({:.0f} switch ports, {:.0f} transceivers, {:.0f} "
        "OCS ports)\n",
        non_negative(*n, "capex_usd"), non_negative(*n, "power_w") / 1e3, non_negative(*n, "switch_ports"),
        non_negative(*n, "transceivers"), non_negative(*n, "ocs_ports"));
  if (auto c = cluster.find("circuits")) {
    std::string strides;
    const ParamReader list = c->at("ring_strides");
    for (size_t i = 0; i < list.size(); ++i) strides += (i ? ", " : "") + fmt::format("{:.0f}", list[i].as_number());
    out += fmt::format("  circuits    {:.0f} between nodes, {} ({:.0f} of {:.0f} ports per node){}\n",
                       non_negative(*c, "count"),
                       strides.empty() ? std::string("no reduction rings") : "reduction rings of strides " + strides,
                       non_negative(*c, "most_ports_used"), non_negative(*c, "ports_per_node"),
                       c->boolean("designed") ? ", designed for the plan" : "");
  }
  auto row = [&](const char* name, const char* key) {
    const double v = non_negative(b, key);
    return fmt::format("    {:<14} {:>10.3f} s  {:5.1f}%\n", name, v, 100 * v / step_s);
  };
  out += fmt::format("  where the time goes (pipeline rank {}):\n", b.count("pipeline_rank", 0));
  out += row("compute", "compute_s");
  out += row("  gemm", "gemm_s");
  out += row("  attention", "attention_s");
  out += row("  elementwise", "elementwise_s");
  if (b.has("host_wait_s") && non_negative(b, "host_wait_s") > 0) out += row("  host wait", "host_wait_s");
  out += row("optimizer", "optimizer_s");
  out += row("tp comm", "tp_comm_s");
  if (non_negative(b, "cp_comm_s") > 0) out += row("cp comm", "cp_comm_s");
  if (b.has("ep_comm_s") && non_negative(b, "ep_comm_s") > 0) out += row("ep comm", "ep_comm_s");
  out += row("pp comm", "pp_comm_s");
  out += row("dp comm", "dp_comm_s");
  out += row("bubble/idle", "bubble_s");
  if (auto f = r.find("step_faults")) out += step_faults_text(*f, step_s);
  if (auto rel = r.find("reliability")) out += reliability_text(*rel);
  return out;
}

}  // namespace sim
