// fuzz_trace: arbitrary bytes as a failure trace (CSV), then the reliability simulation over it.
//
// The bytes go through parse_failure_trace, the reader behind read_failure_trace. A refusal must
// be one line (fuzz_check.hpp) and must not quote the trace: no line of it longer than 8
// characters, other than the header, appears in the message -- unless the text is the message's
// own (it still appears when every copy of that line is replaced by other characters). The text
// with CRLF line ends must read as the text does (the same rows, or a refusal too). An accepted
// trace has at most 2^20 rows, sorted by time, each time finite and in [0, 3650 d], each component
// named.
//
// An accepted trace then replaces the trace of a small scenario: configs/quickstart.json's model
// and plan on 16 GPUs (2 nodes) or 256 (32 nodes), its components "faulty-gpu" silent and
// "network-switch-cable" taking a pod, under checkpoint-restart (blocking or not),
// in-memory-checkpoint, just-in-time-checkpoint or spares, with or without planned maintenance
// and a number of tokens to train, over 1, 3 or 7 days and 1 to 3 trials, all chosen by a hash of
// the bytes. check_job_reliability (whose refusal is fine) and simulate_job_reliability then run,
// and: ETTR and goodput are finite and in [0, 1] (mean, p50, p99); the trace's MTTF and the
// trials' are > 0; the checkpoint interval is > 0; each trial's wall time is its useful time plus
// its losses (job_timeline.hpp, relative 1e-9); no trial has more interruptions than the trace
// has rows; and no time to train is shorter than the failure-free one.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/params.hpp"
#include "sim/run/job_reliability.hpp"
#include "sim/run/run.hpp"
#include "sim/scenario/reliability_spec.hpp"
#include "sim/scenario/scenario.hpp"
#include "test/fuzz/fuzz_check.hpp"
#include "test/fuzz/fuzz_draw.hpp"

namespace {

using namespace sim;
using fuzz::check;

constexpr const char* PATH = "fuzz.csv";
constexpr double DAY = 86400;

// The reader's message for `text`, "" when it accepts it.
std::string message_of(std::string_view text) {
  try {
    (void)parse_failure_trace(text, PATH);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// The lines of `text` as the reader cuts them (at '\n', without a '\r' before it), with offsets.
std::vector<std::pair<size_t, std::string_view>> lines_of(std::string_view text) {
  std::vector<std::pair<size_t, std::string_view>> out;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.emplace_back(pos, line);
    pos = end + 1;
  }
  return out;
}

std::string_view trimmed(std::string_view s) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

void check_not_quoted(std::string_view text, const std::string& message) {
  const auto lines = lines_of(text);
  for (const auto& [offset, line] : lines) {
    if (line.size() <= 8 || trimmed(line) == "time,component,location") continue;
    if (message.find(line) == std::string::npos) continue;
    // The message's own text, or the line's? Every copy of the line replaced, character by
    // character, by another: the message's own text stays.
    std::string other(text);
    for (const auto& [at, same] : lines)
      if (same == line)
        for (size_t i = 0; i < same.size(); ++i) other[at + i] = same[i] == 'x' ? 'y' : 'x';
    if (message_of(other).find(line) == std::string::npos)
      fuzz::finding("a refusal quotes a line of the trace", message.c_str());
  }
}

std::string with_crlf(std::string_view text) {
  std::string out;
  for (char c : text) out += c == '\n' ? std::string("\r\n") : std::string(1, c);
  return out;
}

bool same_rows(const std::vector<TracedFailure>& a, const std::vector<TracedFailure>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].time != b[i].time || a[i].component != b[i].component || a[i].location != b[i].location) return false;
  return true;
}

void check_rows(const std::vector<TracedFailure>& rows, const std::string& input) {
  check(rows.size() <= size_t{1} << 20, "a trace of more than 2^20 rows was accepted", input);
  for (size_t i = 0; i < rows.size(); ++i) {
    const double t = rows[i].time.value;
    check(std::isfinite(t) && t >= 0 && t <= 3650 * DAY, "a row's time is not in [0, 3650 d]", input);
    check(i == 0 || rows[i - 1].time <= rows[i].time, "the rows are not sorted by time", input);
    check(!rows[i].component.empty(), "a row has no component", input);
  }
}

// A resolved scenario with failures from configs/traces/example-failures.csv and its planner's
// step, for variant `v` (cluster size, recovery, extras); made once each.
struct Base {
  Scenario scenario;
  double step_s = 0;
  MemoryEstimate memory;  // the plan's
};

const Base& base(int v) {
  static std::map<int, Base> made;
  if (auto it = made.find(v); it != made.end()) return it->second;
  static const char* recoveries[] = {R"({"kind": "checkpoint-restart"})",
                                     R"({"kind": "checkpoint-restart", "blocking": false})",
                                     R"({"kind": "in-memory-checkpoint", "interval": "10 min"})",
                                     R"({"kind": "just-in-time-checkpoint"})", R"({"kind": "spares"})"};
  const bool large = v % 2 != 0, planned = (v / 2) % 2 != 0, tokens = (v / 4) % 2 != 0;
  const std::string text =
      std::string(R"({"kind": "scenario", "name": "fuzz_trace", "seed": 1, "model": "gpt-7.5b", )") +
      R"("cluster": {"from": "dgx-a100-superpod", "gpus": )" + (large ? "256" : "16") +
      R"(}, "parallelism": {"tp": 4, "pp": 2, "dp": "auto", "zero": 0}, )" +
      R"("training": {"seq_len": 2048, "global_batch": 64, "micro_batch": 2, "recompute": "full", )" +
      R"("precision": "bf16", "attention": "unfused")" + (tokens ? R"(, "tokens": 10000000000)" : "") + "}, " +
      R"("failures": {"kind": "trace", "trace": "", "components": )" +
      R"({"faulty-gpu": {"silent": "6 h"}, "network-switch-cable": {"takes": "pod"}})" +
      (planned ? R"(, "planned": {"every": "1 d", "duration": "10 min"})" : "") +
      "}, \"recovery\": " + recoveries[v / 8] + "}";
  Base b;
  try {
    b.scenario =
        parse_scenario(ParamReader::from_text(text, "fuzz_trace.json")
                           .with_value("failures.trace", default_data_dir() + "/configs/traces/example-failures.csv"),
                       default_data_dir());
    const ResolvedPlan p = check_run(b.scenario).plan;
    b.step_s = p.estimated_step.value;
    b.memory = p.memory;
  } catch (const InputError& e) {
    fuzz::finding("the target's own scenario is refused", e.what());
  }
  return made.emplace(v, std::move(b)).first->second;
}

bool in_unit(const reliability::Stat& s) {
  const auto unit = [](double x) { return std::isfinite(x) && x >= 0 && x <= 1; };
  return unit(s.mean) && unit(s.p50) && unit(s.p99);
}

void simulate(const std::vector<TracedFailure>& rows, uint64_t hash, const std::string& input) {
  const Base& b = base(static_cast<int>(hash % 40));
  RunResult healthy;
  healthy.scenario = b.scenario;
  FailureSpec& f = healthy.scenario.reliability->failures;
  f.trace = rows;
  static const double days[] = {1, 3, 7};
  f.horizon = Seconds(DAY * days[(hash >> 8) % 3]);
  f.trials = static_cast<int64_t>(1 + (hash >> 16) % 3);
  healthy.step_time_s = b.step_s;
  healthy.tokens_per_s =
      static_cast<double>(healthy.scenario.training.global_batch * healthy.scenario.training.seq_len) / b.step_s;
  const EngineOptions opt;
  check_job_reliability(healthy.scenario, Seconds(b.step_s), b.memory, opt);

  const Seconds mttf = reliability::job_mttf(f, healthy.scenario.cluster.nodes());
  check(mttf.value > 0, "the trace's MTTF is not positive", input);
  const JobReliability r = simulate_job_reliability(healthy, opt);
  const auto& h = r.horizon;
  if (std::getenv("FUZZ_PRINT") != nullptr)  // what the trace ran as
    std::fprintf(stderr, "%zu rows, variant %d, %s, %g d, %lld trials: ETTR %g, goodput %g, MTTF %g s\n", rows.size(),
                 static_cast<int>(hash % 40), r.strategy.c_str(), f.horizon.value / DAY,
                 static_cast<long long>(f.trials), h.ettr.mean, h.goodput.mean, h.mttf.value);
  check(in_unit(h.ettr), "ETTR is not in [0, 1]", input);
  check(in_unit(h.goodput), "goodput is not in [0, 1]", input);
  check(h.mttf.value > 0, "the trials' MTTF is not positive", input);
  check(r.interval.value > 0 && h.interval.value > 0, "the checkpoint interval is not positive", input);
  for (const auto& row : h.rows) {
    const double accounted = row.useful.value + row.lost.total().value;
    check(std::abs(accounted - row.wall.value) <= 1e-9 * std::max(1.0, row.wall.value),
          "a trial's useful time and losses do not add up to its wall time", input);
    check(row.unexpected <= static_cast<int64_t>(rows.size()), "a trial has more interruptions than the trace", input);
  }
  if (r.train_days && r.train_days_failure_free)
    check(r.train_days->mean >= *r.train_days_failure_free * (1 - 1e-12) &&
              r.train_days->p50 >= *r.train_days_failure_free * (1 - 1e-12),
          "training with failures took less time than without", input);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string input = "trace of " + std::to_string(size) + " bytes";
  std::vector<TracedFailure> rows;
  bool accepted = false;
  fuzz::expect_input_errors_only([&] {
    try {
      rows = parse_failure_trace(text, PATH);
      accepted = true;
    } catch (const InputError& e) {
      check_not_quoted(text, e.what());
      throw;
    }
  });
  // The same text with CRLF line ends reads alike.
  fuzz::expect_input_errors_only([&] {
    const std::string crlf = with_crlf(text);
    try {
      const auto again = parse_failure_trace(crlf, PATH);
      check(accepted && same_rows(rows, again), "the trace reads differently with CRLF line ends", input);
    } catch (const InputError&) {
      check(!accepted, "the trace is refused with CRLF line ends", input);
      throw;
    }
  });
  if (!accepted) return 0;
  check_rows(rows, input);
  fuzz::expect_input_errors_only([&] { simulate(rows, fuzz::fnv1a(data, size), input); });
  return 0;
}
