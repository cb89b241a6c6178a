// The `failures` and `recovery` sections: schema, defaults and their sources.
//
//   "failures": {"kind": "poisson" | "weibull" | "trace",
//                "per_node_day": 0.0065,            poisson, weibull (instead of scale)
//                "shape": 0.8, "scale": "30 d",      weibull
//                "trace": "traces/x.csv",            trace (required)
//                "components": "llama3" | {"faulty-gpu": 0.001, "my-cause": {"per_node_day": 1e-4,
//                              "scope": "gpu", "takes": "node" | "pod" | 4, "silent": "6 h"}},
//                                                    poisson, weibull
//                "planned": {"every": "1 d", "duration": "10 min"},
//                "horizon": "54 d", "trials": 200}
//   "recovery": {"kind": "checkpoint-restart", "checkpoint_interval": "auto" | "30 min",
//                "checkpoint_write": "auto" | "20 s", "reload": "auto" | "1 min", "blocking": true,
//                "detection": "30 s", "restart": "5 min"}
//   "recovery": {"kind": "in-memory-checkpoint", "interval": "step" | "30 s", "memory_write": "0.04 s",
//                "memory_reload": "auto" | "2 s", "replicas": 2, "storage_interval": "3 h" | "auto", ...}
//   "recovery": {"kind": "just-in-time-checkpoint", "checkpoint_interval": "auto" | "none" | "6 h",
//                "jit_cost": "5 s", ...}
//   "recovery": {"kind": "spares", "spares": "auto" | 16, "swap": "1 min", "repair": "1 d", ...}
//   "recovery": {"kind": "reconfigure" | "redundant" | "reroute" | "swarm", "pause": "auto" | "20 s",
//                "repair": "5 min" (default: restart), "warning": "2 min" (reconfigure), ...}
//   any strategy: "blocking": false, "snapshot": "auto" | "1 s", "background_slowdown": "auto" | 0.05
//
// The labels in the comments below name these sources:
//   A1: Grattafiori et al., "The Llama 3 Herd of Models" (arXiv:2407.21783), §3.3.1, §3.3.4 and
//       Table 5 (419 unexpected interruptions in a 54-day snapshot on up to 16K H100s);
//   A2: Kokolis, Kuchnik et al., "Revisiting Reliability in Large-Scale Machine Learning Research
//       Clusters", HPCA 2025 (arXiv:2410.21680): Meta RSC-1/RSC-2 failure rates, ETTR model;
//   A3: other production failure data: MegaScale (Jiang et al., NSDI'24), the OPT-175B logbook
//       (facebookresearch/metaseq), BLOOM's tr11 README (bigscience-workshop), Delta/NCSA;
//   B1: Young (CACM 1974), Daly (FGCS 2006, Eq. 37), Gemini's wasted-time model (Wang et al., SOSP'23);
//   B3, B4: checkpointing systems: Gemini (SOSP'23), ByteRobust (SOSP'25), Just-In-Time
//       checkpointing (Gupta et al., EuroSys'24), CheckFreq (FAST'21);
//   C: recovery systems (Lumion's optical swap, Oobleck, Bamboo, ReCycle, SWARM);
//   D1: Jouppi et al., "TPU v4" (ISCA'23, arXiv:2304.01433) and the Gemini 1.0 report.
// [P] marks a figure read in the primary source, [S] one from a secondary account.
#include "sim/scenario/reliability_spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "sim/core/error.hpp"
#include "sim/core/params.hpp"
#include "sim/core/text_escape.hpp"
#include "sim/scenario/schema.hpp"

namespace sim {

const char* to_string(RecoveryKind k) {
  switch (k) {
    case RecoveryKind::CHECKPOINT_RESTART: return "checkpoint-restart";
    case RecoveryKind::IN_MEMORY_CHECKPOINT: return "in-memory-checkpoint";
    case RecoveryKind::JUST_IN_TIME_CHECKPOINT: return "just-in-time-checkpoint";
    case RecoveryKind::SPARES: return "spares";
    case RecoveryKind::REWIRE: return "rewire";
    case RecoveryKind::RECONFIGURE: return "reconfigure";
    case RecoveryKind::REDUNDANT: return "redundant";
    case RecoveryKind::REROUTE: return "reroute";
    case RecoveryKind::SWARM: return "swarm";
  }
  return "checkpoint-restart";
}

bool is_continuing(RecoveryKind k) {
  return k == RecoveryKind::RECONFIGURE || k == RecoveryKind::REDUNDANT || k == RecoveryKind::REROUTE ||
         k == RecoveryKind::SWARM;
}

const char* to_string(FailureScope s) {
  switch (s) {
    case FailureScope::GPU: return "gpu";
    case FailureScope::NODE: return "node";
    case FailureScope::NETWORK: return "network";
    case FailureScope::JOB: return "job";
  }
  return "node";
}

namespace {

constexpr double DAY = 86400.0;
// A trace replays the same failures every time, so one trial (the schema's note on trials).
constexpr int64_t TRACE_TRIALS = 1;
// Trace files (format below).
constexpr size_t MAX_TRACE_BYTES = size_t{64} << 20;
constexpr size_t MAX_TRACE_ROWS = size_t{1} << 20;

// The schema's bounds (schema_reliability.cpp), in the units of the messages.
double max_per_node_day() { return schema_range("/failures/per_node_day").max; }
double max_horizon_days() { return schema_range("/failures/horizon").max / DAY; }

const std::vector<std::string> MIXES = {"llama3"};

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + v[i];
  return out;
}

std::string g(double v) { return fmt::format("{:g}", v); }

std::string unknown(const std::string& what, const std::string& name, const std::vector<std::string>& names) {
  const std::string guess = did_you_mean(name, names);
  return what + " " + quote_value(name) + (guess.empty() ? "" : " (did you mean '" + guess + "'?)");
}

double rate(const ParamReader& r) {
  const double v = r.as_number();
  const std::string expected = "failures per node-day, a number > 0 and at most " + g(max_per_node_day());
  if (!(v > 0)) r.fail(g(v) + " is not positive", expected);
  if (v > max_per_node_day()) r.fail(g(v) + " is out of range", expected);
  return v;
}

std::vector<std::string> known_names() {
  std::vector<std::string> known;
  for (const auto& row : llama3_components()) known.push_back(row.name);
  for (const char* n : {"gpu", "node", "network", "job"}) known.push_back(n);
  return known;
}

// "takes": "node" (1), "pod" (TAKES_POD, resolved with the cluster) or N >= 1 consecutive nodes.
int64_t read_takes(const ParamReader& t) {
  const std::string expected = "\"node\", \"pod\" or a whole number of consecutive nodes >= 1";
  if (t.is_string()) {
    const std::string word = t.as_string();
    if (word == "node") return 1;
    if (word == "pod") return TAKES_POD;
    t.fail(unknown("unknown group", word, {"node", "pod"}), expected);
  }
  if (!t.is_number()) t.fail("is not a string or a number", expected);
  const KeySpec& k = key_spec("/failures/components/*/takes");
  return t.as_count(k.min, k.max);
}

// `rates`: each component has a rate (poisson, weibull); without (a trace, whose rows are its
// failures), each is an object of what its failures do: scope, takes, silent.
std::vector<FailureComponent> read_components(const ParamReader& c, bool rates) {
  if (c.is_string()) {
    const std::string name = c.as_string();
    if (name == "llama3") return llama3_components();
    c.fail(unknown("unknown component mix", name, MIXES), "one of " + join(MIXES) + ", or an object of rates");
  }
  if (!c.is_object()) c.fail("is not a string or an object", "\"llama3\" or an object of name: rate per node-day");
  const auto known = known_names();
  std::vector<FailureComponent> out;
  for (const auto& name : c.keys()) {
    auto v = c.at(name);
    FailureComponent f;
    f.name = name;
    if (name.empty() || escape_for_terminal(name) != name)
      v.fail("a component name must be printable text, not empty", "a name such as faulty-gpu");
    if (!rates && !v.is_object())
      v.fail("a trace's failures are its rows: its components take no rate",
             "{\"scope\": \"gpu|node|network|job\", \"takes\": ..., \"silent\": ...}");
    if (v.is_object()) {  // {"per_node_day": r, "scope": "gpu", "takes": .., "silent": ..}: a cause of the user's own
      if (!rates && v.has("per_node_day"))
        v.at("per_node_day")
            .fail("a trace's failures are its rows: its components take no rate", "scope, takes or silent");
      schema_expect_keys(v, "/failures/components/*");
      if (auto t = v.find("takes")) f.takes_nodes = read_takes(*t);
      if (auto l = v.find("silent")) {
        f.silent_latency = l->as_seconds();  // refuses 0, negatives and non-durations
        if (f.silent_latency.value > schema_range("/failures/components/*/silent").max)
          l->fail(format_seconds(f.silent_latency) + " is out of range",
                  "a mean detection latency of at most " + g(max_horizon_days()) + " d");
      }
      if (rates) f.per_node_day = rate(v.at("per_node_day"));
      const auto known_scope = known_component_scope(name);
      if (v.has("scope")) {
        const std::string s = v.at("scope").as_choice(schema_choices("/failures/components/*/scope"));
        f.scope = s == "gpu"       ? FailureScope::GPU
                  : s == "network" ? FailureScope::NETWORK
                  : s == "job"     ? FailureScope::JOB
                                   : FailureScope::NODE;
      } else {
        f.scope = known_scope.value_or(FailureScope::NODE);
      }
    } else {
      f.per_node_day = rate(v);
      auto scope = known_component_scope(name);
      // A plain rate under a name close to a known one is a typo; a name far from all of them is a
      // cause of the user's own, scope NODE (or give {"per_node_day", "scope"}).
      if (!scope && !did_you_mean(name, known).empty())
        v.fail(
            unknown("unknown component", name, known),
            "a known component (" + join(known) + "), or {\"per_node_day\": r, \"scope\": \"gpu|node|network|job\"}");
      f.scope = scope.value_or(FailureScope::NODE);
    }
    out.push_back(f);
  }
  if (out.empty()) c.fail("has no components", "at least one name: rate per node-day");
  return out;
}

double total_rate(const std::vector<FailureComponent>& cs) {
  double sum = 0;
  for (const auto& c : cs) sum += c.per_node_day;
  return sum;
}

std::optional<Seconds> auto_seconds(const ParamReader& r) {
  if (r.is_string() && r.as_string() == "auto") return std::nullopt;
  return r.as_seconds();
}

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

void parse_failures(FailureSpec& f, const ParamReader& r) {
  r.expect_object();
  const std::string kind = r.at("kind").as_string();
  const auto kinds = schema_choices("/failures/kind");
  if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end())
    r.at("kind").fail(unknown("unknown failure model", kind, kinds), "one of " + join(kinds));
  f.law = kind == "poisson" ? FailureLaw::POISSON : kind == "weibull" ? FailureLaw::WEIBULL : FailureLaw::TRACE;
  // A key of another kind ("shape" with poisson) is named as such, before the did-you-mean check.
  schema_expect_kind_keys(r, "/failures", kind, "kind");

  if (f.law == FailureLaw::TRACE) {
    auto t = r.at("trace");
    f.trace_file = t.as_string();
    if (f.trace_file.empty()) t.fail("is empty", "the path of a CSV file, relative to the scenario's folder");
    const std::string dir = t.directory();  // "" for a path given with --set: the working directory
    const std::string path = f.trace_file.front() == '/' || dir.empty() ? f.trace_file : dir + "/" + f.trace_file;
    f.trace = read_failure_trace(path);
    if (auto c = r.find("components")) {
      f.components = read_components(*c, false);
      std::vector<std::string> names;  // the trace's causes: a component naming none of them is a typo
      for (const auto& row : f.trace)
        if (std::find(names.begin(), names.end(), row.component) == names.end()) names.push_back(row.component);
      for (const auto& comp : f.components)
        if (std::find(names.begin(), names.end(), comp.name) == names.end() && !c->is_string())
          c->at(comp.name).fail("component '" + comp.name + "' names no row of the trace",
                                "one of the trace's components: " + join(names));
    }
  } else {
    // The node rate comes from at most one of per_node_day, scale (weibull) and explicit component
    // rates; "llama3" is a split that per_node_day or scale rescales.
    std::optional<double> given;
    if (auto p = r.find("per_node_day")) given = rate(*p);
    if (auto c = r.find("components")) {
      f.components = read_components(*c, true);
      const bool explicit_rates = !c->is_string();
      if (explicit_rates && given)
        r.at("per_node_day")
            .fail("the explicit component rates already give the node rate",
                  "either per_node_day (with \"components\": \"llama3\" or none) or component rates");
      if (explicit_rates) given = total_rate(f.components);
    }
    if (f.law == FailureLaw::WEIBULL) {
      f.weibull_shape = schema_default("/failures/shape").as_number();
      if (auto s = r.find("shape")) {
        f.weibull_shape = s->as_number();
        const QuantityRange shapes = schema_range("/failures/shape");
        if (!shapes.contains(f.weibull_shape))
          s->fail(g(f.weibull_shape) + " is out of range",
                  "a Weibull shape from " + g(shapes.min) + " to " + g(shapes.max));
      }
      const double mean_factor = std::tgamma(1.0 + 1.0 / f.weibull_shape);  // mean = scale · Γ(1 + 1/k)
      if (auto s = r.find("scale")) {
        if (given)
          s->fail("the node rate is already given by " +
                      std::string(r.has("per_node_day") ? "per_node_day" : "the component rates"),
                  "scale, or a rate, not both");
        f.weibull_scale = s->as_seconds();
        given = DAY / (f.weibull_scale.value * mean_factor);
        if (*given > max_per_node_day())
          s->fail("a mean time between failures of " + format_seconds(f.weibull_scale * mean_factor) +
                      " per node is out of range",
                  "at most " + g(max_per_node_day()) + " failures per node-day");
      }
    }
    f.per_node_day = given.value_or(schema_default("/failures/per_node_day").as_number());
    if (!f.components.empty()) {  // scale the split to the node rate
      const double k = f.per_node_day / total_rate(f.components);
      for (auto& c : f.components) c.per_node_day *= k;
    }
    if (f.law == FailureLaw::WEIBULL && !r.has("scale"))
      f.weibull_scale = Seconds(DAY / f.per_node_day / std::tgamma(1.0 + 1.0 / f.weibull_shape));
  }

  if (auto p = r.find("planned")) {
    schema_expect_keys(*p, "/failures/planned");
    f.planned_every = p->at("every").as_seconds();
    if (auto d = p->find("duration")) {
      f.planned_duration = d->as_seconds();
      if (!(f.planned_duration < f.planned_every))
        d->fail(format_seconds(f.planned_duration) + " is not shorter than every = " + format_seconds(f.planned_every),
                "a stop shorter than the period between stops");
    }
  }
  f.horizon = schema_value(r, "/failures/horizon")->as_seconds();
  if (auto h = r.find("horizon"); h && f.horizon.value > schema_range("/failures/horizon").max)
    h->fail(format_seconds(f.horizon) + " is out of range", "a horizon of at most " + g(max_horizon_days()) + " d");
  const KeySpec& trials = key_spec("/failures/trials");
  f.trials = f.law == FailureLaw::TRACE ? TRACE_TRIALS : schema_default(trials.path).as_count(trials.min, trials.max);
  if (auto t = r.find("trials")) {
    if (t->is_number() && t->as_number() > static_cast<double>(trials.max))
      t->fail(fmt::format(std::floor(t->as_number()) == t->as_number() && t->as_number() < 1e18 ? "{:.0f}" : "{:g}",
                          t->as_number()) +
                  " trials is above the limit of " + std::to_string(trials.max),
              "a whole number in [" + std::to_string(trials.min) + ", " + std::to_string(trials.max) + "]");
    f.trials = t->as_count(trials.min, trials.max);
  }
}

void parse_recovery(RecoverySpec& rec, const std::optional<ParamReader>& r) {
  for (auto [field, path] : {std::pair{&rec.detection, "/recovery/detection"},
                             {&rec.restart, "/recovery/restart"},
                             {&rec.memory_write, "/recovery/memory_write"},
                             {&rec.jit_cost, "/recovery/jit_cost"},
                             {&rec.swap, "/recovery/swap"},
                             {&rec.repair, "/recovery/repair"}})
    *field = schema_default(path).as_seconds();
  rec.repair_given = false;
  if (!r) return;
  r->expect_object();
  auto k = r->at("kind");
  const std::string kind = k.as_string();
  const auto kinds = schema_choices("/recovery/kind");
  if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end())
    k.fail(unknown("unknown recovery strategy", kind, kinds), "one of " + join(kinds));
  schema_expect_kind_keys(*r, "/recovery", kind, "strategy");
  rec.kind = kind == "in-memory-checkpoint"      ? RecoveryKind::IN_MEMORY_CHECKPOINT
             : kind == "just-in-time-checkpoint" ? RecoveryKind::JUST_IN_TIME_CHECKPOINT
             : kind == "spares"                  ? RecoveryKind::SPARES
             : kind == "rewire"                  ? RecoveryKind::REWIRE
             : kind == "reconfigure"             ? RecoveryKind::RECONFIGURE
             : kind == "redundant"               ? RecoveryKind::REDUNDANT
             : kind == "reroute"                 ? RecoveryKind::REROUTE
             : kind == "swarm"                   ? RecoveryKind::SWARM
                                                 : RecoveryKind::CHECKPOINT_RESTART;
  if (auto v = r->find("checkpoint_interval")) {
    if (rec.kind == RecoveryKind::JUST_IN_TIME_CHECKPOINT && v->is_string() && v->as_string() == "none")
      rec.checkpoint_interval = Seconds(std::numeric_limits<double>::infinity());
    else
      rec.checkpoint_interval = auto_seconds(*v);
  }
  if (rec.kind == RecoveryKind::IN_MEMORY_CHECKPOINT) {
    rec.checkpoint_interval = auto_seconds(*schema_value(*r, "/recovery/storage_interval"));
  }
  if (auto v = r->find("checkpoint_write")) rec.checkpoint_write = auto_seconds(*v);
  if (auto v = r->find("reload")) rec.reload = auto_seconds(*v);
  if (auto v = r->find("blocking")) rec.blocking = v->as_bool();
  for (const std::string key : {"snapshot", "background_slowdown"}) {
    auto v = r->find(key);
    if (v && rec.blocking)
      v->fail("'" + key + "' applies to asynchronous checkpoints only", "\"blocking\": false, or no '" + key + "'");
  }
  if (auto v = r->find("snapshot")) rec.snapshot = auto_seconds(*v);
  if (auto v = r->find("background_slowdown")) {
    if (!(v->is_string() && v->as_string() == "auto")) {
      const double x = v->as_number();
      const QuantityRange slowdowns = schema_range("/recovery/background_slowdown");
      if (!slowdowns.contains(x))
        v->fail(g(x) + " is out of range",
                "a fraction of the step in [" + g(slowdowns.min) + ", " + g(slowdowns.max) + "], or \"auto\"");
      rec.background_slowdown = x;
    }
  }
  if (auto v = r->find("pause")) rec.pause = auto_seconds(*v);
  if (auto v = r->find("warning")) rec.warning = v->as_seconds();
  if (auto v = r->find("detection")) rec.detection = v->as_seconds();
  if (auto v = r->find("restart")) rec.restart = v->as_seconds();
  if (auto v = r->find("interval")) {
    if (!(v->is_string() && v->as_string() == "step")) rec.memory_interval = v->as_seconds();
  }
  if (auto v = r->find("memory_write")) rec.memory_write = v->as_seconds();
  if (auto v = r->find("memory_reload")) rec.memory_reload = auto_seconds(*v);
  rec.replicas = schema_count(*r, "/recovery/replicas");
  if (auto v = r->find("jit_cost")) rec.jit_cost = v->as_seconds();
  if (auto v = r->find("spares")) {
    const KeySpec& spares = key_spec("/recovery/spares");
    if (!(v->is_string() && v->as_string() == "auto")) rec.spares = v->as_count(spares.min, spares.max);
  }
  if (rec.kind == RecoveryKind::REWIRE) rec.swap = Seconds(REWIRE_SWAP_S);
  if (auto v = r->find("swap")) rec.swap = v->as_seconds();
  if (auto v = r->find("repair")) {
    rec.repair = v->as_seconds();
    rec.repair_given = true;
  }
  // A continuing job gets a replacement for a failed node from the scheduler that would restart a
  // checkpoint-restart job: by default in the same `restart` time (the node itself is repaired
  // elsewhere, as for checkpoint-restart's restart).
  if (is_continuing(rec.kind) && !rec.repair_given) rec.repair = rec.restart;
}

}  // namespace

const std::vector<FailureComponent>& llama3_components() {
  // Table 5 (A1), in the paper's order. Scopes: the GPU category → GPU (the node's
  // other GPUs keep running but a synchronous job stops); "Network Switch/Cable" → NETWORK (what
  // sits under the switch); software bug, dependency and NCCL watchdog timeouts (category
  // "Unknown") → JOB (the whole job restarts, no hardware is lost); the Host category (NIC, SSD,
  // power supply, chassis, IO board, CPU, system memory) and unplanned host maintenance → NODE.
  // Every row takes one node per failure (takes_nodes 1): the paper does not say how many nodes a
  // switch/cable failure took. Its silent-data-corruption row is detected at once (silent_latency
  // 0) since the paper gives no detection latency; an explicit component can set "silent".
  static const std::vector<FailureComponent> rows = [] {
    const struct {
      const char* name;
      int count;
      FailureScope scope;
    } table[] = {
        {"faulty-gpu", 148, FailureScope::GPU},
        {"gpu-hbm3-memory", 72, FailureScope::GPU},
        {"software-bug", 54, FailureScope::JOB},
        {"network-switch-cable", 35, FailureScope::NETWORK},
        {"host-maintenance", 32, FailureScope::NODE},
        {"gpu-sram-memory", 19, FailureScope::GPU},
        {"gpu-system-processor", 17, FailureScope::GPU},
        {"nic", 7, FailureScope::NODE},
        {"nccl-watchdog-timeout", 7, FailureScope::JOB},
        {"silent-data-corruption", 6, FailureScope::GPU},
        {"gpu-thermal-interface-sensor", 6, FailureScope::GPU},
        {"ssd", 3, FailureScope::NODE},
        {"power-supply", 3, FailureScope::NODE},
        {"server-chassis", 2, FailureScope::NODE},
        {"io-expansion-board", 2, FailureScope::NODE},
        {"dependency", 2, FailureScope::JOB},
        {"cpu", 2, FailureScope::NODE},
        {"system-memory", 2, FailureScope::NODE},
    };
    std::vector<FailureComponent> out;
    for (const auto& t : table) out.push_back({t.name, t.count / (LLAMA3_NODES * LLAMA3_DAYS), t.scope});
    return out;
  }();
  return rows;
}

std::optional<FailureScope> known_component_scope(const std::string& name) {
  for (const auto& c : llama3_components())
    if (c.name == name) return c.scope;
  if (name == "gpu") return FailureScope::GPU;
  if (name == "node") return FailureScope::NODE;
  if (name == "network") return FailureScope::NETWORK;
  if (name == "job") return FailureScope::JOB;
  return std::nullopt;
}

// A failure trace is CSV text (UTF-8):
//   # comments and blank lines are skipped
//   time,component,location            the header, exactly these three names
//   3.5 h,faulty-gpu,node-117          one failure per line, sorted by time (ties allowed)
//   12600,nic,17
// `time` is since the job's start: a quantity ("3.5 h", "2 d") or a plain number of seconds, >= 0.
// `component` names the cause (its scope from known_component_scope, else NODE; a name one typo
// away from a known one is refused), `location` is free
// text (a node name or index, may be empty). No quoting: a field holds no comma. At most 2^20 rows
// and 64 MiB. Failures after the horizon are ignored by the simulation. `time` is when the failure
// was detected: for a component the spec declares silent, the process dates the corruption at
// time − its mean latency (clamped at 0); one the spec declares with "takes" takes that group.
std::vector<TracedFailure> read_failure_trace(const std::string& path) {
  return parse_failure_trace(
      read_regular_file(path, MAX_TRACE_BYTES, "CSV failure trace", "a failure trace of at most 64 MiB and 2^20 rows"),
      path);
}

std::vector<TracedFailure> parse_failure_trace(std::string_view text, const std::string& path) {
  const std::string format = "rows of time,component,location";
  if (text.size() > MAX_TRACE_BYTES)
    throw InputError(path, "", "is larger than 64 MiB", "a failure trace of at most 64 MiB and 2^20 rows");
  if (size_t bad = invalid_utf8_offset(text); bad != std::string::npos)
    throw InputError(path, "", "is not UTF-8 text (byte " + std::to_string(bad) + ")", "a CSV text file");
  std::vector<TracedFailure> out;
  bool header = false;
  size_t line_no = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line(text.substr(pos, end - pos));
    pos = end + 1;
    ++line_no;
    const std::string where = "line " + std::to_string(line_no);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    line = trim(line);
    if (line.empty() || line[0] == '#') continue;
    if (escape_for_terminal(line) != line)
      throw InputError(path, where, "contains a control character", "printable text");
    std::vector<std::string> fields;
    for (size_t start = 0;;) {
      size_t comma = line.find(',', start);
      fields.push_back(trim(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (!header) {
      if (fields != std::vector<std::string>{"time", "component", "location"})
        throw InputError(path, where,
                         "the header is not time,component,location (" + std::to_string(line.size()) +
                             " bytes; a trace's content is not quoted)",
                         "time,component,location");
      header = true;
      continue;
    }
    if (fields.size() != 3) throw InputError(path, where, std::to_string(fields.size()) + " fields", format);
    if (out.size() == MAX_TRACE_ROWS)
      throw InputError(path, where, "more than " + std::to_string(MAX_TRACE_ROWS) + " failures", "at most 2^20 rows");
    const std::string& t = fields[0];
    const bool plain = !t.empty() && t.find_first_not_of("0123456789.eE+-") == std::string::npos;
    auto time = parse_seconds(plain ? t + " s" : t);
    if (!time || !(time->value >= 0) || !(time->value <= max_horizon_days() * DAY))
      throw InputError(path, where, "the first field is not a time",
                       "seconds or a quantity such as \"3.5 h\", from 0 to " + g(max_horizon_days()) + " d");
    if (!out.empty() && *time < out.back().time)
      throw InputError(path, where,
                       "the time (" + format_seconds(*time) + ") comes before the previous row's (" +
                           format_seconds(out.back().time) + ")",
                       "rows sorted by time");
    if (fields[1].empty()) throw InputError(path, where, "the component is empty", "a component name");
    static const auto known = known_names();
    if (!known_component_scope(fields[1]) && !did_you_mean(fields[1], known).empty())
      throw InputError(path, where, "an unknown component (did you mean '" + did_you_mean(fields[1], known) + "'?)",
                       "a known component, or a name far from all of them (scope node)");
    out.push_back({*time, fields[1], fields[2]});
  }
  if (!header) throw InputError(path, "", "has no header line", "time,component,location, then " + format);
  return out;
}

ReliabilitySpec ReliabilitySpec::parse(const ParamReader& failures, const std::optional<ParamReader>& recovery) {
  ReliabilitySpec s;
  parse_failures(s.failures, failures);
  parse_recovery(s.recovery, recovery);
  return s;
}

int64_t spare_pool(const RecoverySpec& r, int64_t nodes) { return r.spares.value_or((nodes * 5 + 99) / 100); }

}  // namespace sim
