// fuzz_platform: device profiles and cluster descriptions, fuzzed, then priced.
//
// An input that starts with '{' is JSON: a device profile (DeviceSpec::parse) or a cluster
// (ClusterSpec::parse; through parse_scenario also one that derives from a file with "from"), the
// shipped files being its seeds. Any other input chooses numbers: a shipped device profile and
// cluster (16 GPUs; 64 chips of a torus), and up to four of their numeric fields -- peaks, HBM,
// curve parameters, efficiencies, NCCL latencies; the cluster's bandwidths, latencies,
// oversubscription and node shape -- set to what the bytes pick: an edge value (5e-324, 1e-320,
// 1e-300, 0, -1, 1e18, 1e24, 1e308, 1e400, ...), the shipped value times 2^k, an arbitrary double,
// or a decimal with an exponent to +-330, each in one of the field's units; so the physical ranges
// of core/quantity_range.hpp are probed at and beyond their edges on every input.
//
// What the readers accept then prices a fixed scenario, configs/quickstart.json's model, plan and
// training (gpt-7.5b, tp 4, pp 2, dp from the GPUs, 16 sequences per replica, micro-batch chosen by
// the planner), with the closed-form planner. A fuzzed profile replaces the cluster's after
// parse_scenario (a scenario names its device by file), the run in bf16 or, on a profile without
// it, fp16 -- with unfused attention, the only device checks parse_scenario makes. Properties: the
// step estimate is finite and > 0; every task's kernel times, TP/CP collectives, pipeline
// transfers, gradient reductions and the estimate's slot ends are finite and >= 0; and, monotony,
// one bandwidth, efficiency or peak of the platform doubled (an efficiency at most to 1), or one
// latency halved, where the reader still accepts it, never makes the estimate slower (relative
// 1e-12, as test/unit/workload_monotone.cpp). For one input in 128 the SimGrid engine also
// simulates the step, which must take a finite, positive time. See fuzz_check.hpp for findings.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/comm/comm_costs.hpp"
#include "sim/core/data_files.hpp"
#include "sim/core/params.hpp"
#include "sim/cost/compute_model.hpp"
#include "sim/engine/engine.hpp"
#include "sim/plan/estimate.hpp"
#include "sim/plan/planner.hpp"
#include "sim/scenario/cluster.hpp"
#include "sim/scenario/device.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/step_program.hpp"
#include "test/fuzz/fuzz_check.hpp"
#include "test/fuzz/fuzz_draw.hpp"

namespace {

using namespace sim;
using fuzz::check;
using fuzz::Draw;

const std::string& data_dir() {
  static const std::string dir = default_data_dir();
  return dir;
}

// The inputs of a platform: a cluster section ("from" allowed) and, when fuzzed, the device
// profile that replaces its GPU's.
struct Platform {
  ParamReader cluster;
  std::optional<ParamReader> device;
};

// The reader at a dotted path ("collectives.base_latency"), if every key on the way is there.
std::optional<ParamReader> find_path(const ParamReader& r, const std::string& dotted) {
  std::optional<ParamReader> at = r;
  for (size_t start = 0; at;) {
    const size_t dot = dotted.find('.', start);
    if (!at->is_object()) return std::nullopt;
    at = at->find(dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return at;
}

// A field's value as a number and the unit after it ("450 GB/s" -> 450, " GB/s"; 0.8 -> 0.8, "").
std::optional<std::pair<double, std::string>> number_of(const ParamReader& r, const std::string& dotted) {
  const auto f = find_path(r, dotted);
  if (!f) return std::nullopt;
  if (f->is_number()) return std::make_pair(f->as_number(), std::string());
  if (!f->is_string()) return std::nullopt;
  const std::string text = f->as_string();
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str()) return std::nullopt;
  return std::make_pair(v, std::string(end));
}

std::string number_text(double v) {
  if (!std::isfinite(v)) return "1e999";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// At most this many GPUs are priced: a shipped cluster's thousands take a second an input under the
// sanitizers (llama3-24k: 3 s). A larger cluster is priced on that many of its GPUs, whole nodes
// and NVLink domains; a larger torus (whose dims fix its size) is not priced.
constexpr int64_t MAX_PRICED_GPUS = 1024;

// configs/quickstart.json's model, plan and training on the platform, 16 sequences per
// data-parallel replica; none when the cluster is too large to price.
std::optional<Scenario> scenario_on(const Platform& p) {
  ParamReader cluster = p.cluster;
  int64_t gpus = 16;
  if (auto g = cluster.find("gpus"); g && g->is_number()) gpus = g->as_count(1, int64_t{1} << 20);
  if (gpus > MAX_PRICED_GPUS) {
    if (find_path(cluster, "scale_up.dims")) return std::nullopt;
    int64_t unit = 8;  // tp x pp
    for (const char* key : {"gpus_per_node", "scale_up.domain_gpus"})
      if (auto v = find_path(cluster, key); v && v->is_number()) {
        const int64_t n = v->as_count(1, int64_t{1} << 20);
        if (n > MAX_PRICED_GPUS) return std::nullopt;
        unit = std::lcm(unit, n);
      }
    gpus = MAX_PRICED_GPUS / unit * unit;
    if (gpus == 0) return std::nullopt;
    cluster = cluster.with_value("gpus", std::to_string(gpus));
  }
  const std::string text = R"({"kind": "scenario", "name": "fuzz_platform", "seed": 1, "model": "gpt-7.5b", )"
                           R"("cluster": )" +
                           cluster.dump() +
                           R"(, "parallelism": {"tp": 4, "pp": 2, "dp": "auto", "zero": 0}, "training": )"
                           R"({"seq_len": 2048, "global_batch": )" +
                           std::to_string(16 * std::max<int64_t>(1, gpus / 8)) +
                           R"(, "micro_batch": "auto", "recompute": "full", "precision": "bf16", )"
                           R"("attention": "unfused"}})";
  Scenario s = parse_scenario(ParamReader::from_text(text, "fuzz_platform.json"), data_dir());
  if (p.device) {
    s.cluster.device = DeviceSpec::parse(*p.device);
    const auto& peak = s.cluster.device.dense_peak;
    if (!peak.count(Precision::BF16)) s.training.precision = Precision::FP16;
    if (!peak.count(s.training.precision)) throw InputError("the profile has neither a bf16 nor an fp16 peak");
  }
  return s;
}

bool finite_time(Seconds t) { return std::isfinite(t.value) && t.value >= 0; }

// Plans the scenario and checks every price the estimate is made of; returns the estimate.
double price(Scenario& s, const std::string& input, bool engine) {
  const ComputeModel cm(s.cluster.device, s.training.precision);
  const ResolvedPlan p = resolve_plan(s, cm);
  const double step = p.estimated_step.value;
  if (std::getenv("FUZZ_PRINT") != nullptr) std::fprintf(stderr, "priced: %.17g s\n", step);
  check(std::isfinite(step) && step > 0, "estimated step time is not a positive number", input);
  const StepProgram& program = p.pipeline->steps;
  const CommCosts comm(s);
  for (const Task& t : program.tasks) {
    check(finite_time(t.compute) && finite_time(t.gemm) && finite_time(t.attention) && finite_time(t.elementwise) &&
              finite_time(t.host_wait),
          "a task's kernel time is not a finite time >= 0", input);
    check(finite_time(collective_time(t, comm)), "a task's collectives take no finite time >= 0", input);
    for (const CollectiveUse& c : t.collectives)
      check(finite_time(comm.group_collective(c.group, c.kind, c.bytes)),
            "a TP/CP collective takes no finite time >= 0", input);
    for (const GradBucket& b : t.dp_buckets)
      check(finite_time(comm.dp_all_reduce(t.rank, b)), "a gradient bucket takes no finite time >= 0", input);
    if (t.dp_bytes.total() > 0)
      check(finite_time(comm.dp_all_reduce(t.rank, t.dp_bytes)), "the gradient reduction takes no finite time >= 0",
            input);
  }
  for (size_t r = 0; r < program.ranks.size(); ++r)
    for (const StepSlot& slot : program.ranks[r])
      if (slot.from_rank >= 0)
        check(finite_time(comm.p2p(slot.from_rank, static_cast<int64_t>(r), slot.bytes)),
              "a pipeline transfer takes no finite time >= 0", input);
  for (const auto& ends : estimate_step(program, comm).finish)
    for (Seconds end : ends) check(finite_time(end), "a slot of the estimate ends at no finite time >= 0", input);
  if (engine && s.cluster.gpus <= 64) {
    const EngineResult r = simulate_step(s, *p.pipeline);
    check(std::isfinite(r.step.value) && r.step.value > 0, "simulated step time is not a positive number", input);
  }
  return step;
}

enum class Kind { RATE, BYTES, BANDWIDTH, FLOPS, SECONDS, NUMBER, COUNT };

struct Field {
  const char* path;
  Kind kind;
};

const std::vector<Field> DEVICE_FIELDS = {{"peak.bf16", Kind::RATE},
                                          {"peak.fp16", Kind::RATE},
                                          {"peak.fp8", Kind::RATE},
                                          {"hbm.capacity", Kind::BYTES},
                                          {"hbm.bandwidth", Kind::BANDWIDTH},
                                          {"sms", Kind::COUNT},
                                          {"sustained_compute", Kind::NUMBER},
                                          {"gemm.efficiency_max", Kind::NUMBER},
                                          {"gemm.half_flops", Kind::FLOPS},
                                          {"gemm_fp8.efficiency_max", Kind::NUMBER},
                                          {"gemm_fp8.half_flops", Kind::FLOPS},
                                          {"memory_ops.efficiency_max", Kind::NUMBER},
                                          {"memory_ops.half_bytes", Kind::BYTES},
                                          {"flash_attention.efficiency_max", Kind::NUMBER},
                                          {"flash_attention.half_seq_len", Kind::COUNT},
                                          {"flash_attention.head_dims.64", Kind::NUMBER},
                                          {"collectives.base_latency", Kind::SECONDS},
                                          {"collectives.scale_up_step_latency", Kind::SECONDS},
                                          {"collectives.scale_out_step_latency", Kind::SECONDS},
                                          {"collectives.scale_up_efficiency", Kind::NUMBER},
                                          {"collectives.scale_out_efficiency", Kind::NUMBER},
                                          {"collectives.nvls_efficiency", Kind::NUMBER},
                                          {"collectives.nvls_latency", Kind::SECONDS}};
const std::vector<Field> CLUSTER_FIELDS = {
    {"scale_up.bandwidth", Kind::BANDWIDTH},  {"scale_up.latency", Kind::SECONDS},
    {"scale_up.domain_gpus", Kind::COUNT},    {"scale_out.nic_bandwidth", Kind::BANDWIDTH},
    {"scale_out.latency", Kind::SECONDS},     {"scale_out.oversubscription", Kind::NUMBER},
    {"scale_out.nics_per_node", Kind::COUNT}, {"gpus_per_node", Kind::COUNT},
    {"storage_bandwidth", Kind::BANDWIDTH}};

const std::vector<std::string>& units_of(Kind k) {
  static const std::vector<std::vector<std::string>> units = {{" FLOP/s", " TFLOP/s", " PFLOP/s", " EFLOP/s"},
                                                              {" B", " GiB", " MB", " PiB"},
                                                              {" B/s", " GB/s", " Gb/s", " PB/s"},
                                                              {" FLOP", " GFLOP", " PFLOP"},
                                                              {" s", " us", " ns", " d"},
                                                              {""},
                                                              {""}};
  return units[static_cast<size_t>(k)];
}

// Numbers at and past the readers' edges: the smallest subnormals, a tiny normal, the ends of the
// quantity window (1e-15, 1e24) and the physical ranges inside it, double's largest and past it.
const std::vector<std::string> EDGES = {"5e-324",
                                        "1e-320",
                                        "1e-300",
                                        "1e-15",
                                        "0",
                                        "-0",
                                        "-1",
                                        "0.01",
                                        "1",
                                        "1e18",
                                        "1e24",
                                        "1e300",
                                        "1.7976931348623157e308",
                                        "1e400"};

// A value for field `f` of `r`, as JSON text.
std::string draw_value(Draw& d, const ParamReader& r, const Field& f) {
  if (f.kind == Kind::COUNT) return d.flag() ? d.wild() : std::to_string(d.in(-2, 300));
  const auto shipped = number_of(r, f.path);
  std::string unit = d.pick(units_of(f.kind)), v;
  switch (d.in(0, 3)) {
    case 0: v = d.pick(EDGES); break;
    case 1:
      if (shipped) unit = shipped->second;
      v = number_text(std::ldexp(shipped ? shipped->first : 1.0, static_cast<int>(d.in(-80, 80))));
      break;
    case 2: {
      const uint64_t bits = d.bytes(8);
      double x = 0;
      std::memcpy(&x, &bits, sizeof x);
      v = number_text(x);
      break;
    }
    default: {
      const int64_t mantissa = d.in(1, 999);  // drawn before the exponent, whatever the compiler
      v = std::to_string(mantissa) + "e" + std::to_string(d.in(-330, 330));
    }
  }
  return unit.empty() ? v : "\"" + v + unit + "\"";
}

// A shipped device and cluster (16 GPUs; a torus 4x4x4 chips of its own GPU), some of their
// fields set by the bytes; `described` receives their names and the fields set.
Platform draw_platform(Draw& d, std::string& described) {
  static const std::vector<std::string> devices = json_names(data_dir() + "/topologies/devices");
  static const std::vector<std::string> clusters = json_names(data_dir() + "/topologies");
  const std::string& device_name = d.pick(devices);
  const std::string& cluster_name = d.pick(clusters);
  described = "device " + device_name + ", cluster " + cluster_name;
  ParamReader device = ParamReader::load_file(device_file(device_name, data_dir()));
  ParamReader cluster = ParamReader::load_file(data_dir() + "/topologies/" + cluster_name + ".json");
  if (find_path(cluster, "scale_up.dims")) {
    cluster = cluster.with_value("gpus", "64").with_value("scale_up.dims", "[4, 4, 4]");
    if (find_path(cluster, "scale_up.cube")) cluster = cluster.with_value("scale_up.cube", "[4, 4, 4]");
  } else {
    cluster = cluster.with_value("gpus", "16");
  }
  for (int64_t i = 0, n = d.in(1, 4); i < n; ++i) {
    ParamReader& r = d.flag() ? device : cluster;
    const Field& f = d.pick(&r == &device ? DEVICE_FIELDS : CLUSTER_FIELDS);
    const std::string value = draw_value(d, r, f);
    described += std::string(", ") + (&r == &device ? "device." : "cluster.") + f.path + " = " + value;
    r = r.with_value(f.path, value);
  }
  return {cluster, device};
}

// A field that makes the step no slower when multiplied by `factor`, up to `cap`.
struct Improvement {
  bool device;  // a field of the device profile, else of the cluster
  const char* path;
  double factor;
  double cap;
};

constexpr double NO_CAP = std::numeric_limits<double>::infinity();
const std::vector<Improvement> IMPROVEMENTS = {{true, "peak.bf16", 2, NO_CAP},
                                               {true, "peak.fp16", 2, NO_CAP},
                                               {true, "hbm.bandwidth", 2, NO_CAP},
                                               {true, "sustained_compute", 2, 1},
                                               {true, "gemm.efficiency_max", 2, 1},
                                               {true, "memory_ops.efficiency_max", 2, 1},
                                               {true, "collectives.scale_up_efficiency", 2, 1},
                                               {true, "collectives.scale_out_efficiency", 2, 1},
                                               {true, "collectives.base_latency", 0.5, NO_CAP},
                                               {true, "collectives.scale_up_step_latency", 0.5, NO_CAP},
                                               {true, "collectives.scale_out_step_latency", 0.5, NO_CAP},
                                               {false, "scale_up.bandwidth", 2, NO_CAP},
                                               {false, "scale_up.latency", 0.5, NO_CAP},
                                               {false, "scale_out.nic_bandwidth", 2, NO_CAP},
                                               {false, "scale_out.latency", 0.5, NO_CAP}};

// `p` with improvement `i` applied; none when the field is not there (or not in a reader here).
std::optional<Platform> improved(const Platform& p, const Improvement& i) {
  const ParamReader* r = i.device ? (p.device ? &*p.device : nullptr) : &p.cluster;
  if (r == nullptr) return std::nullopt;
  const auto v = number_of(*r, i.path);
  if (!v) return std::nullopt;
  const std::string x = number_text(std::min(v->first * i.factor, i.cap));
  const ParamReader changed = r->with_value(i.path, v->second.empty() ? x : "\"" + x + v->second + "\"");
  Platform out = p;
  (i.device ? *out.device : out.cluster) = changed;
  return out;
}

void price_platform(const Platform& p, uint64_t hash, const std::string& input) {
  std::optional<Scenario> s = scenario_on(p);
  if (!s) return;
  const double step = price(*s, input, hash % 128 == 0);
  const Improvement& i = IMPROVEMENTS[(hash >> 8) % IMPROVEMENTS.size()];
  const auto better = improved(p, i);
  if (!better) return;
  std::optional<Scenario> t;
  try {
    t = scenario_on(*better);
  } catch (const InputError&) {
    return;  // the improved value is past the reader's range
  }
  if (!t) return;
  const double faster = price(*t, input, false);
  // A lower latency constant can move NCCL's choice (its own model, nccl_tuning.hpp) to a protocol
  // whose flows the fabric prices a little higher, as NCCL itself would run it: a protocol switch on
  // a tiny bucket is worth microseconds (regressions/fuzz_platform/protocol-switch-at-lower-latency:
  // 0.4 us of a 0.97 s step when halving scale_out_step_latency with 25.6 TB/s NICs). A latency
  // improvement is held to a millionth of the step; every other one to rounding.
  const double slack = i.factor < 1 ? 1e-6 : 1e-12;
  if (faster > step * (1 + slack)) {
    const std::string what = std::string(i.path) + (i.factor > 1 ? " raised" : " lowered") + " from " +
                             number_text(step) + " s to " + number_text(faster) + " s; input: " + input;
    fuzz::finding("a better platform made the step slower", what.c_str());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const uint64_t hash = fuzz::fnv1a(data, size);
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  if (!bytes.empty() && bytes[0] == '{') {
    fuzz::expect_input_errors_only([&] {
      const ParamReader r = ParamReader::from_text(bytes, "fuzz.json");
      bool device = false, cluster = false;
      fuzz::expect_input_errors_only([&] {
        (void)DeviceSpec::parse(r);
        device = true;
      });
      fuzz::expect_input_errors_only([&] {
        (void)ClusterSpec::parse(r, data_dir());
        cluster = true;
      });
      static const ParamReader quickstart =
          ParamReader::from_text(R"({"from": "dgx-a100-superpod", "gpus": 16})", "quickstart-cluster.json");
      if (device) fuzz::expect_input_errors_only([&] { price_platform({quickstart, r}, hash, bytes); });
      if (cluster || (r.is_object() && r.has("from")))
        fuzz::expect_input_errors_only([&] { price_platform({r, std::nullopt}, hash, bytes); });
    });
    return 0;
  }
  Draw d(data, size);
  fuzz::expect_input_errors_only([&] {
    std::string described;
    const Platform p = draw_platform(d, described);
    if (std::getenv("FUZZ_PRINT") != nullptr) std::fprintf(stderr, "%s\n", described.c_str());
    price_platform(p, hash, described);
  });
  return 0;
}
