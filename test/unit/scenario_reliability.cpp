// The `failures` and `recovery` sections (sim/scenario/reliability_spec.hpp), `training.tokens` and
// `cluster.storage_bandwidth`: the Llama 3 Table 5 mix, defaults and their sources, trace files,
// and one refusal per rule, each a one-line message naming the file and the JSON path (or line).
//
// Expected values: Llama 3 (arXiv:2407.21783 §3.3.4, Table 5: 419 unexpected interruptions in 54
// days on 2,048 nodes, 268 of them in the GPU category; Tectonic 2 TB/s sustained for 16,384 GPUs),
// Kokolis et al., HPCA 2025 (health checks every 5 min, restart 5 min), as stated at each check.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/core/error.hpp"
#include "sim/core/params.hpp"
#include "sim/scenario/reliability_spec.hpp"
#include "sim/scenario/scenario.hpp"
#include "test/unit/input_error_of.hpp"
#include "test/unit/temp_dir.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

const std::string DATA = TRAINSIM_SOURCE_DIR;

sim::ReliabilitySpec parse(const std::string& failures, const std::string& recovery = "") {
  auto f = sim::ParamReader::from_text(failures, "s.json");
  std::optional<sim::ParamReader> r;
  if (!recovery.empty()) r = sim::ParamReader::from_text(recovery, "s.json");
  return sim::ReliabilitySpec::parse(f, r);
}

[[maybe_unused]] std::string refusal(const std::string& failures, const std::string& recovery = "") {
  return error_of([&] { parse(failures, recovery); });
}

const double DAY = 86400;
const double LLAMA3_RATE = 419.0 / (2048.0 * 54.0);  // Llama 3 Table 5, per node-day

// A shipped scenario without failures (64 A100s).
const std::string QUICKSTART = DATA + "/configs/quickstart.json";

}  // namespace

TEST_CASE("the Llama 3 mix is Table 5's 18 rows at count / (2048 nodes · 54 days)", "[scenario]") {
  const auto& rows = sim::llama3_components();
  REQUIRE(rows.size() == 18);
  double total = 0, gpu = 0;
  for (const auto& r : rows) {
    total += r.per_node_day;
    if (r.scope == sim::FailureScope::GPU) gpu += r.per_node_day;
  }
  // Σ counts = 419 (the consistency notes: counts are authoritative) → 419/(2048·54) = 3.79e-3.
  CHECK(total == Approx(LLAMA3_RATE).epsilon(1e-12));
  CHECK(total == Approx(3.79e-3).epsilon(1e-3));
  // The GPU category (faulty GPU 148, HBM3 72, SRAM 19, system processor 17, SDC 6, thermal 6)
  // is 268/419 = 64.0%, not the printed 58.7%.
  CHECK(gpu / total == Approx(268.0 / 419.0).epsilon(1e-12));
  CHECK(rows[0].name == "faulty-gpu");
  CHECK(rows[0].per_node_day * 2048 * 54 == Approx(148));
  CHECK(sim::known_component_scope("network-switch-cable") == sim::FailureScope::NETWORK);
  CHECK(sim::known_component_scope("nccl-watchdog-timeout") == sim::FailureScope::JOB);
  CHECK(sim::known_component_scope("host-maintenance") == sim::FailureScope::NODE);
  CHECK(!sim::known_component_scope("my-cause"));
  CHECK(std::string(sim::to_string(sim::FailureScope::NETWORK)) == "network");
}

TEST_CASE("failures: defaults and their sources", "[scenario]") {
  auto s = parse(R"({"kind": "poisson"})");
  const auto& f = s.failures;
  CHECK(f.law == sim::FailureLaw::POISSON);
  CHECK(f.per_node_day == Approx(LLAMA3_RATE));  // Llama 3, A1
  CHECK(f.components.empty());                   // one cause, "node"
  CHECK(f.horizon.value == Approx(54 * DAY));    // Llama 3's snapshot
  CHECK(f.trials == 100);
  CHECK(f.planned_every.value == 0);
  // Recovery absent: checkpoint-restart, everything "auto", detection 2.5 min (half of RSC's 5-min
  // health-check period), restart 5 min (Kokolis et al.'s assumption, HPCA 2025).
  const auto& r = s.recovery;
  CHECK(r.kind == sim::RecoveryKind::CHECKPOINT_RESTART);
  CHECK(!r.checkpoint_interval);
  CHECK(!r.checkpoint_write);
  CHECK(!r.reload);
  CHECK(r.blocking);
  CHECK(r.detection.value == Approx(150));
  CHECK(r.restart.value == Approx(300));
}

TEST_CASE("failures: the llama3 mix, scaled, explicit rates, weibull, planned stops", "[scenario]") {
  auto mix = parse(R"({"kind": "poisson", "components": "llama3"})").failures;
  CHECK(mix.components.size() == 18);
  CHECK(mix.per_node_day == Approx(LLAMA3_RATE));
  // per_node_day rescales the mix to RSC-1's 6.5e-3 (Kokolis et al., HPCA 2025), keeping the shares.
  auto scaled = parse(R"({"kind": "poisson", "components": "llama3", "per_node_day": 0.0065})").failures;
  double total = 0;
  for (const auto& c : scaled.components) total += c.per_node_day;
  CHECK(total == Approx(0.0065));
  CHECK(scaled.components[0].per_node_day == Approx(0.0065 * 148 / 419));
  // Explicit rates: known names take their scope, others NODE or the scope given.
  auto expl = parse(R"({"kind": "poisson", "components": {"faulty-gpu": 0.001, "software-bug": 0.0005,
                        "cosmic-rays": 0.0002, "pdu": {"per_node_day": 0.0001, "scope": "network"}}})")
                  .failures;
  CHECK(expl.per_node_day == Approx(0.0018));
  REQUIRE(expl.components.size() == 4);  // sorted by name
  CHECK(expl.components[0].name == "cosmic-rays");
  CHECK(expl.components[0].scope == sim::FailureScope::NODE);
  CHECK(expl.components[1].scope == sim::FailureScope::GPU);
  CHECK(expl.components[2].scope == sim::FailureScope::NETWORK);
  CHECK(expl.components[3].scope == sim::FailureScope::JOB);
  // Weibull: the mean time between a node's failures is scale·Γ(1 + 1/shape).
  auto w = parse(R"({"kind": "weibull", "shape": 0.7, "scale": "200 d"})").failures;
  CHECK(w.weibull_shape == 0.7);
  CHECK(w.per_node_day == Approx(1.0 / (200 * std::tgamma(1 + 1 / 0.7))));
  auto wd = parse(R"({"kind": "weibull", "per_node_day": 0.005})").failures;
  CHECK(wd.weibull_shape == 0.8);
  CHECK(wd.weibull_scale.value * std::tgamma(1 + 1 / 0.8) == Approx(DAY / 0.005));
  auto p = parse(R"({"kind": "poisson", "planned": {"every": "1 d", "duration": "10 min"}, "horizon": "7 d",
                     "trials": 200})")
               .failures;
  CHECK(p.planned_every.value == Approx(DAY));
  CHECK(p.planned_duration.value == Approx(600));
  CHECK(p.horizon.value == Approx(7 * DAY));
  CHECK(p.trials == 200);
  auto r = parse(R"({"kind": "poisson"})", R"({"kind": "checkpoint-restart", "checkpoint_interval": "30 min",
      "checkpoint_write": "20 s", "reload": "auto", "blocking": false, "detection": "30 s", "restart": "5 min"})")
               .recovery;
  CHECK(r.checkpoint_interval->value == Approx(1800));
  CHECK(r.checkpoint_write->value == Approx(20));
  CHECK(!r.reload);
  CHECK(!r.blocking);
  CHECK(r.detection.value == Approx(30));
}

TEST_CASE("failures: refusals, one line each, naming the path", "[scenario]") {
  struct Case {
    const char* failures;
    const char* recovery;
    const char* where;
    const char* fragment;
  };
  const Case cases[] = {
      {R"({"kind": "poisson", "per_node_day": -0.001})", "", "/per_node_day", "-0.001 is not positive"},
      {R"({"kind": "poisson", "per_node_day": 0})", "", "/per_node_day", "0 is not positive"},
      {R"({"kind": "poisson", "per_node_day": 1e5})", "", "/per_node_day", "is out of range"},
      {R"({"kind": "poisson", "per_node_day": "0.001"})", "", "/per_node_day", "is string"},
      {R"({"kind": "poisson", "components": {"faulty-gpu": 0}})", "", "/components/faulty-gpu", "0 is not positive"},
      {R"({"kind": "poisson", "horizon": "0 d"})", "", "/horizon", "'0 d' is not positive"},
      {R"({"kind": "poisson", "horizon": "20 y"})", "", "/horizon", "does not parse"},
      {R"({"kind": "poisson", "horizon": "11000 d"})", "", "/horizon", "at most 3650 d"},
      {R"({"kind": "poison"})", "", "/kind", "unknown failure model 'poison' (did you mean 'poisson'?)"},
      {R"({"per_node_day": 0.001})", "", "/kind", "missing required key"},
      {R"({"kind": "poisson", "components": "llama2"})", "", "/components",
       "unknown component mix 'llama2' (did you mean 'llama3'?)"},
      {R"({"kind": "poisson", "components": {"faulty-gpus": 0.001}})", "", "/components/faulty-gpus",
       "unknown component 'faulty-gpus' (did you mean 'faulty-gpu'?)"},
      {R"({"kind": "poisson", "components": {"x": {"per_node_day": 0.001, "scope": "rack"}}})", "",
       "/components/x/scope", "'rack' is not known"},
      {R"({"kind": "poisson", "components": {}})", "", "/components", "has no components"},
      {R"({"kind": "poisson", "components": {"gpu": 0.001}, "per_node_day": 0.002})", "", "/per_node_day",
       "already give the node rate"},
      {R"({"kind": "poisson", "shape": 0.8})", "", "/shape", "'shape' does not apply to kind 'poisson'"},
      {R"({"kind": "trace", "trace": "t.csv", "per_node_day": 0.001})", "", "/per_node_day",
       "'per_node_day' does not apply to kind 'trace'"},
      {R"({"kind": "poisson", "horizn": "1 d"})", "", "/horizn", "unknown key 'horizn' (did you mean 'horizon'?)"},
      {R"({"kind": "weibull", "shape": 0})", "", "/shape", "0 is out of range"},
      {R"({"kind": "weibull", "scale": "30 d", "per_node_day": 0.001})", "", "/scale", "scale, or a rate, not both"},
      {R"({"kind": "poisson", "trials": 100001})", "", "/trials", "100001 trials is above the limit of 100000"},
      {R"({"kind": "poisson", "trials": 0})", "", "/trials", "0 is out of range"},
      {R"({"kind": "poisson", "planned": {"every": "1 h", "duration": "2 h"}})", "", "/planned/duration",
       "is not shorter than every"},
      {R"({"kind": "trace", "trace": "no-such-trace.csv"})", "", "", "no such file"},
      {R"({"kind": "poisson"})", R"({"kind": "checkpoint-restrat"})", "/kind",
       "unknown recovery strategy 'checkpoint-restrat' (did you mean 'checkpoint-restart'?)"},
      {R"({"kind": "poisson"})", R"({"kind": "swarm", "warning": "30 s"})", "/warning",
       "'warning' does not apply to strategy 'swarm'"},
      {R"({"kind": "poisson"})", R"({"kind": "checkpoint-restart", "snapshot": "1 s"})", "/snapshot",
       "'snapshot' applies to asynchronous checkpoints only"},
      {R"({"kind": "poisson"})", R"({"kind": "checkpoint-restart", "blocking": false, "background_slowdown": 0.9})",
       "/background_slowdown", "0.9 is out of range"},
      {R"({"kind": "poisson"})", R"({"kind": "reconfigure", "pause": "-1 s"})", "/pause", "'-1 s' is not positive"},
      {R"({"kind": "poisson"})", R"({"kind": "checkpoint-restart", "checkpoint_interval": "0 s"})",
       "/checkpoint_interval", "'0 s' is not positive"},
      {R"({"kind": "poisson"})", R"({"kind": "checkpoint-restart", "checkpoint_write": "sometimes"})",
       "/checkpoint_write", "does not parse"},
      {R"({"kind": "poisson"})", R"({"kind": "checkpoint-restart", "detectoin": "1 s"})", "/detectoin",
       "did you mean 'detection'?"},
  };
  for (const auto& c : cases) {
    INFO(c.failures << " / " << c.recovery);
    auto msg = error_of([&] { parse(c.failures, c.recovery); });
    if (std::string(c.where).empty())
      CHECK_THAT(msg, Contains(c.fragment));
    else
      CHECK_THAT(msg, StartsWith(std::string("s.json: ") + c.where + ": "));
    CHECK_THAT(msg, Contains(c.fragment));
    CHECK(msg.find('\n') == std::string::npos);
  }
}

TEST_CASE("failure traces: the format, the example, and malformed files", "[scenario]") {
  // The shipped example parses: 6 rows, sorted, times in seconds.
  auto example = sim::read_failure_trace(DATA + "/configs/traces/example-failures.csv");
  REQUIRE(example.size() == 6);
  CHECK(example[0].time.value == Approx(1.2 * 3600));
  CHECK(example[2].time.value == Approx(12600));
  CHECK(example[2].location.empty());
  CHECK(example[0].location == "node-0117");

  TempDir dir;
  auto scenario = dir.write("s.json", R"({"kind": "trace", "trace": "traces/t.csv", "horizon": "1 d"})");
  auto trace_of = [&](const std::string& text) {
    dir.write("traces/t.csv", text);
    auto r = sim::ParamReader::load_file(scenario);
    return sim::ReliabilitySpec::parse(r, std::nullopt).failures;
  };
  // The path is relative to the scenario's folder; CRLF, comments and blank lines are accepted.
  auto ok = trace_of("# a comment\r\ntime,component,location\r\n\r\n0,nic,3\r\n1 h,my-cause,node-9\r\n1 h,gpu,x\r\n");
  CHECK(ok.law == sim::FailureLaw::TRACE);
  CHECK(ok.trials == 1);  // a trace is the same every trial
  REQUIRE(ok.trace.size() == 3);
  CHECK(ok.trace[1].component == "my-cause");
  CHECK(ok.trace[2].time.value == Approx(3600));

  const std::string file = dir.write("traces/t.csv", "");
  struct Case {
    const char* text;
    const char* where;
    const char* fragment;
  };
  const Case cases[] = {
      {"time,component,location\n2 h,nic,1\n1 h,nic,2\n", "line 3", "comes before the previous row's"},
      {"time,component,location\n1 h,nic\n", "line 2", "2 fields (expected"},
      {"time,component,location\nsoon,nic,1\n", "line 2", "the first field is not a time"},
      {"time,component,location\n-5,nic,1\n", "line 2", "the first field is not a time"},
      {"time,component,location\n1 h,,1\n", "line 2", "the component is empty"},
      {"time,component,location\n1 h,faulty-gpus,1\n", "line 2", "did you mean 'faulty-gpu'?"},
      {"when,what,where\n1 h,nic,1\n", "line 1", "the header is not time,component,location (15 bytes"},
      {"", "/", "has no header line"},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    auto msg = error_of([&] { trace_of(c.text); });
    CHECK_THAT(msg, StartsWith(file + ": " + c.where + ": "));
    CHECK_THAT(msg, Contains(c.fragment));
  }
  // A directory where the trace should be: refused before opening.
  std::filesystem::remove(file);
  std::filesystem::create_directories(file);
  auto msg = error_of([&] { sim::ReliabilitySpec::parse(sim::ParamReader::load_file(scenario), std::nullopt); });
  CHECK_THAT(msg, StartsWith(file + ": /: is a directory, not a regular file"));
}

TEST_CASE("scenario: failures, recovery, training.tokens and cluster.storage_bandwidth", "[scenario]") {
  auto base = sim::scenario_reader(QUICKSTART);
  auto plain = sim::parse_scenario(base, DATA);
  CHECK(!plain.reliability);
  CHECK(!plain.training.tokens);
  // Llama 3: 2 TB/s for 16,384 GPUs (arXiv:2407.21783 §3.3.4), per GPU, times this cluster's GPUs.
  CHECK(plain.cluster.storage_bandwidth.value == Approx(2e12 / 16384 * plain.cluster.gpus));
  auto with = sim::parse_scenario(base.with_value("failures", R"({"kind": "poisson", "components": "llama3"})"), DATA);
  REQUIRE(with.reliability);
  CHECK(with.reliability->failures.components.size() == 18);
  auto tok = [&](const std::string& v) {
    return *sim::parse_scenario(base.with_value("training.tokens", v), DATA).training.tokens;
  };
  CHECK(tok("\"15.6T\"") == 15600000000000);  // Llama 3 405B's pre-training tokens
  CHECK(tok("\"300 B\"") == 300000000000);
  CHECK(tok("\"50M\"") == 50000000);
  CHECK(tok("1000000") == 1000000);
  auto sb = sim::parse_scenario(base.with_value("cluster.storage_bandwidth", "\"100 GB/s\""), DATA);
  CHECK(sb.cluster.storage_bandwidth.value == Approx(1e11));

  struct Case {
    const char* key;
    const char* value;
    const char* where;
    const char* fragment;
  };
  const Case cases[] = {
      {"recovery", R"({"kind": "checkpoint-restart"})", "/recovery", "a recovery strategy needs a failures section"},
      {"failures", "[]", "/failures", "is array (expected an object)"},
      {"training.tokens", "\"15.6Q\"", "/training/tokens", "'15.6Q' is not a token count"},
      {"training.tokens", "\"T\"", "/training/tokens", "'T' is not a token count"},
      {"training.tokens", "\"-1T\"", "/training/tokens", "is not a token count"},
      {"training.tokens", "\"2000000T\"", "/training/tokens", "is out of range"},
      {"training.tokens", "0", "/training/tokens", "0 is out of range"},
      {"training.tokens", "1.5", "/training/tokens", "is not a whole number"},
      {"cluster.storage_bandwidth", "\"0 TB/s\"", "/cluster/storage_bandwidth", "is not positive"},
      {"cluster.storage_bandwidth", "\"2 TB\"", "/cluster/storage_bandwidth", "does not parse"},
  };
  for (const auto& c : cases) {
    INFO(c.key << " = " << c.value);
    auto msg = error_of([&] { sim::parse_scenario(base.with_value(c.key, c.value), DATA); });
    CHECK_THAT(msg, StartsWith(QUICKSTART + ": " + c.where + ": "));
    CHECK_THAT(msg, Contains(c.fragment));
  }
}

TEST_CASE("recovery strategies: in-memory, just-in-time and spares parameters, defaults, refusals", "[scenario]") {
  const char* f = R"({"kind": "poisson"})";
  // in-memory-checkpoint (Gemini, SOSP'23): every step (nullopt), 0.04 s
  // blocking (ByteRobust Table 8), reload "auto" (a node's shard over its NICs), 2 replicas,
  // storage every 3 h (BLOOM's interval, Gemini's Strawman).
  auto im = parse(f, R"({"kind": "in-memory-checkpoint"})").recovery;
  CHECK(im.kind == sim::RecoveryKind::IN_MEMORY_CHECKPOINT);
  CHECK(!im.memory_interval);
  CHECK(im.memory_write.value == Approx(0.04));
  CHECK(!im.memory_reload);
  CHECK(im.replicas == 2);
  CHECK(im.checkpoint_interval->value == Approx(3 * 3600));
  auto im2 = parse(f, R"({"kind": "in-memory-checkpoint", "interval": "30 s", "memory_write": "0.5 s",
                          "memory_reload": "3 s", "replicas": 3, "storage_interval": "auto"})")
                 .recovery;
  CHECK(im2.memory_interval->value == Approx(30));
  CHECK(im2.memory_reload->value == Approx(3));
  CHECK(im2.replicas == 3);
  CHECK(!im2.checkpoint_interval);
  // just-in-time-checkpoint (Gupta et al., EuroSys'24): "a few seconds per GPU" -> 5 s; storage
  // checkpoints "auto" (Daly against job-scope failures) or "none".
  auto jit = parse(f, R"({"kind": "just-in-time-checkpoint"})").recovery;
  CHECK(jit.kind == sim::RecoveryKind::JUST_IN_TIME_CHECKPOINT);
  CHECK(jit.jit_cost.value == Approx(5));
  CHECK(!jit.checkpoint_interval);
  auto none = parse(f, R"({"kind": "just-in-time-checkpoint", "checkpoint_interval": "none"})").recovery;
  CHECK(std::isinf(none.checkpoint_interval->value));
  // spares: pool "auto" (5% of nodes, Delta/NCSA), swap 60 s and repair 24 h (assumptions).
  auto sp = parse(f, R"({"kind": "spares"})").recovery;
  CHECK(sp.kind == sim::RecoveryKind::SPARES);
  CHECK(!sp.spares);
  CHECK(sp.swap.value == Approx(60));
  CHECK(sp.repair.value == Approx(86400));
  CHECK(*parse(f, R"({"kind": "spares", "spares": 0})").recovery.spares == 0);
  // rewire: spares an optical circuit switch wires in, its reconfiguration (10 s, the TPU v4 slice
  // reconfiguration of the Gemini report) the swap; otherwise spares' defaults and keys.
  auto rw = parse(f, R"({"kind": "rewire"})").recovery;
  CHECK(rw.kind == sim::RecoveryKind::REWIRE);
  CHECK(std::string(to_string(rw.kind)) == "rewire");
  CHECK(!rw.spares);
  CHECK(rw.swap.value == Approx(10));
  CHECK(rw.repair.value == sp.repair.value);
  CHECK(parse(f, R"({"kind": "rewire", "swap": "2 ms", "spares": 3})").recovery.swap.value == Approx(2e-3));

  struct Case {
    const char* recovery;
    const char* where;
    const char* fragment;
  };
  const Case cases[] = {
      {R"({"kind": "in-memory-checkpoint", "replicas": 0})", "/replicas", "0 is out of range"},
      {R"({"kind": "in-memory-checkpoint", "replicas": 1.5})", "/replicas", "is not a whole number"},
      {R"({"kind": "in-memory-checkpoint", "replica": 2})", "/replica", "did you mean 'replicas'?"},
      {R"({"kind": "in-memory-checkpoint", "checkpoint_interval": "1 h"})", "/checkpoint_interval",
       "'checkpoint_interval' does not apply to strategy 'in-memory-checkpoint'"},
      {R"({"kind": "in-memory-checkpoint", "interval": "0 s"})", "/interval", "is not positive"},
      {R"({"kind": "checkpoint-restart", "spares": 4})", "/spares",
       "'spares' does not apply to strategy 'checkpoint-restart'"},
      {R"({"kind": "checkpoint-restart", "checkpoint_interval": "none"})", "/checkpoint_interval", "does not parse"},
      {R"({"kind": "spares", "spares": -1})", "/spares", "-1 is out of range"},
      {R"({"kind": "spares", "swap": "fast"})", "/swap", "does not parse"},
      {R"({"kind": "just-in-time-checkpoint", "jit_cost": "0 s"})", "/jit_cost", "is not positive"},
      {R"({"kind": "just-in-time-checkpoint", "replicas": 2})", "/replicas",
       "'replicas' does not apply to strategy 'just-in-time-checkpoint'"},
  };
  for (const auto& c : cases) {
    INFO(c.recovery);
    auto msg = error_of([&] { parse(f, c.recovery); });
    CHECK_THAT(msg, StartsWith(std::string("s.json: ") + c.where + ": "));
    CHECK_THAT(msg, Contains(c.fragment));
    CHECK(msg.find('\n') == std::string::npos);
  }
}

TEST_CASE("components: takes (node, pod, N nodes) and silent (mean detection latency), refusals", "[scenario]") {
  const auto f = parse(R"({"kind": "poisson", "components": {
      "leaf": {"per_node_day": 1e-3, "takes": 4, "silent": "6 h"},
      "spine": {"per_node_day": 1e-3, "takes": "pod"},
      "host": {"per_node_day": 1e-3, "takes": "node"},
      "faulty-gpu": 1e-3}})")
                     .failures;
  REQUIRE(f.components.size() == 4);  // in key order: faulty-gpu, host, leaf, spine
  CHECK(f.components[0].takes_nodes == 1);
  CHECK(f.components[0].silent_latency.value == 0);
  CHECK(f.components[1].takes_nodes == 1);
  CHECK(f.components[2].takes_nodes == 4);
  CHECK(f.components[2].silent_latency.value == Approx(6 * 3600));
  CHECK(f.components[3].takes_nodes == sim::TAKES_POD);  // resolved with the cluster, below
  // The Llama 3 rows take one node each and none is silent (Table 5 gives neither).
  for (const auto& c : sim::llama3_components()) CHECK((c.takes_nodes == 1 && c.silent_latency.value == 0));

  // "pod" through parse_scenario: pod_gpus / gpus_per_node nodes. 64 A100s = 8 nodes of 8 GPUs;
  // pods of 32 GPUs = 4 nodes; pods of 128 GPUs = all 8; quickstart's own 4,480-GPU pod is larger
  // than its 16 GPUs, so the whole 2-node cluster.
  auto base = sim::scenario_reader(QUICKSTART);
  const std::string pod = R"({"kind": "poisson", "components": {"spine": {"per_node_day": 1e-3, "takes": "pod"}}})";
  auto takes_of = [&](const sim::ParamReader& r) {
    return sim::parse_scenario(r.with_value("failures", pod), DATA).reliability->failures.components[0].takes_nodes;
  };
  auto big = base.with_value("cluster.gpus", "64").with_value("parallelism.dp", "\"auto\"");
  CHECK(takes_of(big.with_value("cluster.scale_out.pod_gpus", "32")) == 32 / 8);
  CHECK(takes_of(big.with_value("cluster.scale_out.pod_gpus", "128")) == 8);  // a pod beyond the cluster: all of it
  CHECK(takes_of(base) == 2);

  struct Case {
    const char* component;
    const char* where;
    const char* fragment;
  };
  const Case cases[] = {
      {R"({"per_node_day": 1e-3, "takes": 0})", "/takes", "0 is out of range"},
      {R"({"per_node_day": 1e-3, "takes": -1})", "/takes", "-1 is out of range"},
      {R"({"per_node_day": 1e-3, "takes": 2.5})", "/takes", "is not a whole number"},
      {R"({"per_node_day": 1e-3, "takes": "rack"})", "/takes", "unknown group 'rack'"},
      {R"({"per_node_day": 1e-3, "takes": "pods"})", "/takes", "unknown group 'pods' (did you mean 'pod'?)"},
      {R"({"per_node_day": 1e-3, "silent": "0 s"})", "/silent", "'0 s' is not positive"},
      {R"({"per_node_day": 1e-3, "silent": "-6 h"})", "/silent", "'-6 h' is not positive"},
      {R"({"per_node_day": 1e-3, "silent": "soon"})", "/silent", "'soon' does not parse"},
      {R"({"per_node_day": 1e-3, "silent": 6})", "/silent", "is number"},
      {R"({"per_node_day": 1e-3, "silent": "3651 d"})", "/silent", "is out of range"},
  };
  for (const auto& c : cases) {
    INFO(c.component);
    auto msg = refusal(std::string(R"({"kind": "poisson", "components": {"sw": )") + c.component + "}}");
    CHECK_THAT(msg, StartsWith(std::string("s.json: /components/sw") + c.where + ": "));
    CHECK_THAT(msg, Contains(c.fragment));
  }
  // More nodes than the cluster's (quickstart: 2): refused where the scenario is read.
  auto msg = error_of([&] {
    sim::parse_scenario(
        base.with_value("failures", R"({"kind": "poisson", "components": {"sw": {"per_node_day": 1e-3, "takes": 3}}})"),
        DATA);
  });
  CHECK_THAT(msg, StartsWith(QUICKSTART + ": /failures/components/sw/takes: 3 nodes but the cluster has 2"));
}

TEST_CASE("failure traces: components say what a cause's rows take down, without rates", "[scenario]") {
  TempDir dir;
  dir.write("traces/t.csv", "time,component,location\n1 h,leaf-switch,17\n2 h,silent-data-corruption,3\n");
  auto spec_of = [&](const std::string& components) {
    auto scenario =
        dir.write("s.json", R"({"kind": "trace", "trace": "traces/t.csv", "components": )" + components + "}");
    auto r = sim::ParamReader::load_file(scenario);
    return sim::ReliabilitySpec::parse(r, std::nullopt).failures;
  };
  const auto f =
      spec_of(R"({"leaf-switch": {"scope": "network", "takes": 16}, "silent-data-corruption": {"silent": "6 h"}})");
  REQUIRE(f.components.size() == 2);
  CHECK(f.components[0].takes_nodes == 16);
  CHECK(f.components[0].scope == sim::FailureScope::NETWORK);
  CHECK(f.components[1].silent_latency.value == Approx(6 * 3600));
  // (What the rows then take and when they were corrupted: test/unit/reliability_failure_process_groups.cpp.)
  // Refusals: a rate (the rows are the failures), a name no row uses (a typo).
  CHECK_THAT(error_of([&] { spec_of(R"({"leaf-switch": 0.001})"); }),
             Contains("/components/leaf-switch: a trace's failures are its rows: its components take no rate"));
  CHECK_THAT(error_of([&] { spec_of(R"({"leaf-switch": {"per_node_day": 0.001}})"); }),
             Contains("/components/leaf-switch/per_node_day: a trace's failures are its rows"));
  CHECK_THAT(error_of([&] { spec_of(R"({"leaf-swich": {"takes": 16}})"); }),
             Contains("/components/leaf-swich: component 'leaf-swich' names no row of the trace"));
}
