#include "sim/scenario/plan.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "sim/core/params.hpp"
#include "sim/core/text_escape.hpp"
#include "sim/scenario/defaults.hpp"
#include "sim/scenario/schedules.hpp"
#include "sim/scenario/schema.hpp"

namespace sim {

const char* to_string(ParallelDim d) {
  switch (d) {
    case ParallelDim::TP: return "tp";
    case ParallelDim::CP: return "cp";
    case ParallelDim::PP: return "pp";
    case ParallelDim::DP: return "dp";
  }
  return "?";
}

bool ParallelPlan::default_placement() const { return gpu_of_rank.empty() && order == ParallelPlan{}.order; }

const char* to_string(Schedule s) { return registry_entry(pipeline_schedules(), s).name; }

const char* to_string(Recompute r) {
  switch (r) {
    case Recompute::NONE: return "none";
    case Recompute::SELECTIVE: return "selective";
    case Recompute::OP: return "op";
    case Recompute::FULL: return "full";
  }
  return "?";
}

static AutoCount auto_count(const ParamReader& r, int64_t max) {
  if (r.is_string()) {
    r.as_choice({"auto"});
    return AutoCount{0};
  }
  if (!r.is_number()) r.fail("is not a count", "a whole number or \"auto\"");
  return AutoCount{r.as_count(1, max)};
}

// "tp-dp-pp-cp": the four dimensions, fastest first, each once.
static std::array<ParallelDim, 4> dim_order(const ParamReader& r) {
  const std::string expected = "tp, cp, pp and dp each once, fastest first, joined by '-' (e.g. \"tp-cp-pp-dp\")";
  const std::string text = r.as_string();
  const std::vector<std::string> names = {"tp", "cp", "pp", "dp"};
  std::array<ParallelDim, 4> order{};
  std::array<bool, 4> seen{};
  size_t count = 0, start = 0;
  while (true) {
    const size_t dash = text.find('-', start);
    const std::string name = text.substr(start, dash == std::string::npos ? std::string::npos : dash - start);
    size_t d = 0;
    while (d < names.size() && names[d] != name) ++d;
    if (d == names.size()) {
      const std::string close = name == "ep" ? "" : did_you_mean(name, names);
      r.fail("'" + text + "': '" + name + "' is not a dimension" +
                 (name == "ep"    ? " (expert parallelism runs over the dp*cp ranks)"
                  : close.empty() ? ""
                                  : " (did you mean '" + close + "'?)"),
             expected);
    }
    if (seen[d]) r.fail("'" + text + "' names " + name + " twice", expected);
    if (count == order.size()) r.fail("'" + text + "' names more than four dimensions", expected);
    seen[d] = true;
    order[count++] = static_cast<ParallelDim>(d);
    if (dash == std::string::npos) break;
    start = dash + 1;
  }
  for (size_t d = 0; d < names.size(); ++d)
    if (!seen[d]) r.fail("'" + text + "' does not name " + names[d], expected);
  return order;
}

// A string (the dimension order) or a list of GPUs, one per global rank; the list's length and
// range are checked against the cluster by parse_scenario.
// {"all_reduce": "tree", ...}: NCCL_ALGO per collective (NCCL 2.24's "allreduce:tree" form).
static void parse_algorithms(const ParamReader& r, ParallelPlan& p) {
  const std::vector<std::pair<const char*, CollectiveKind>> kinds = {{"all_reduce", CollectiveKind::ALL_REDUCE},
                                                                     {"all_gather", CollectiveKind::ALL_GATHER},
                                                                     {"reduce_scatter", CollectiveKind::REDUCE_SCATTER},
                                                                     {"all_to_all", CollectiveKind::ALL_TO_ALL}};
  r.expect_object();
  r.expect_not_empty("an algorithm per collective, e.g. {\"all_reduce\": \"tree\"}, or no collective_algorithms");
  schema_expect_keys(r, "/parallelism/collective_algorithms");
  for (const auto& [key, kind] : kinds) {
    const std::string path = std::string("/parallelism/collective_algorithms/") + key;
    const auto v = schema_value(r, path);
    const std::string name = v->as_choice(schema_choices(path));
    if (name == "auto") continue;
    const CollectiveAlgo algo = *parse_algo(name);
    if (auto why = cannot_run_kind(algo, kind))
      v->fail("'" + name + "': " + *why, std::string("ring or \"auto\" for ") + key);
    p.algorithms[kind] = algo;
  }
}

static void parse_placement(const ParamReader& r, ParallelPlan& p) {
  if (r.is_string()) {
    p.order = dim_order(r);
    return;
  }
  if (!r.is_array())
    r.fail(std::string("is ") + (r.is_number()   ? "number"
                                 : r.is_object() ? "object"
                                 : r.is_null()   ? "null"
                                                 : "boolean"),
           "a dimension order such as \"tp-cp-pp-dp\", or a list of GPUs, one per global rank");
  p.gpu_of_rank.reserve(r.size());
  for (size_t i = 0; i < r.size(); ++i) p.gpu_of_rank.push_back(r[i].as_count(0, INT64_MAX));
}

// The `kind` of the registry entry (attention_kernels.hpp, elementwise.hpp, fp8_scaling.hpp,
// fp8_library.hpp, tp_library.hpp) whose name `r` gives; the message lists the names otherwise.
template <class Entries>
static auto registry_choice(const ParamReader& r, const Entries& entries) {
  std::vector<std::string> names;
  for (const auto& e : entries) names.push_back(e.name);
  const std::string name = r.as_choice(names);
  return std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return name == e.name; })->kind;
}

ParallelPlan ParallelPlan::parse(const ParamReader& r) {
  schema_expect_keys(r, "/parallelism");
  ParallelPlan p;
  p.tp = schema_count(r, "/parallelism/tp");
  p.pp = schema_count(r, "/parallelism/pp");
  if (r.at("dp").is_string()) {
    r.at("dp").as_choice({"auto"});
    p.dp_auto = true;
  } else {
    p.dp = schema_count(r, "/parallelism/dp");
  }
  p.cp = schema_count(r, "/parallelism/cp");
  p.ep = schema_count(r, "/parallelism/ep");
  if (r.has("etp")) p.etp = schema_count(r, "/parallelism/etp");
  p.sequence_parallel = schema_bool(r, "/parallelism/sequence_parallel");
  p.virtual_stages =
      auto_count(*schema_value(r, "/parallelism/virtual_stages"), key_spec("/parallelism/virtual_stages").max);
  if (r.has("schedule")) {
    p.schedule = registry_choice(r.at("schedule"), pipeline_schedules());
    p.schedule_given = true;
  }
  p.zero = schema_count(r, "/parallelism/zero");
  p.overlap_grad_reduce = schema_bool(r, "/parallelism/overlap_grad_reduce");
  p.overlap_param_gather_given = r.has("overlap_param_gather");
  p.overlap_param_gather = p.overlap_param_gather_given ? schema_bool(r, "/parallelism/overlap_param_gather")
                                                        : default_overlap_param_gather(p);
  if (r.has("reshard_after_forward")) p.reshard_after_forward = schema_bool(r, "/parallelism/reshard_after_forward");
  if (r.has("dp_shard")) p.dp_shard = schema_count(r, "/parallelism/dp_shard");
  p.tp_comm_overlap = schema_bool(r, "/parallelism/tp_comm_overlap");
  p.ep_comm_overlap = schema_bool(r, "/parallelism/ep_comm_overlap");
  p.tp_library = registry_choice(*schema_value(r, "/parallelism/tp_library"), tp_libraries());
  p.dispatcher = registry_choice(*schema_value(r, "/parallelism/dispatcher"), dispatchers());
  p.cp_comm =
      schema_choice(r, "/parallelism/cp_comm") == "p2p" ? ParallelPlan::CpComm::P2P : ParallelPlan::CpComm::ALL_GATHER;
  if (auto l = r.find("layers_per_stage")) {
    l->expect_not_empty("the layers of each pipeline stage, e.g. [11, 13, 13, 11], or no layers_per_stage");
    const KeySpec& one = key_spec("/parallelism/layers_per_stage/*");
    for (size_t i = 0; i < l->size(); ++i) p.layers_per_stage.push_back((*l)[i].as_count(one.min, one.max));
  }
  parse_placement(*schema_value(r, "/parallelism/placement"), p);
  if (auto a = r.find("collective_algorithms")) parse_algorithms(*a, p);
  return p;
}

// Tokens to train: a whole number, or a string "<number>[ ]<T|B|M>" ("15.6T" = 1.56e13, Llama 3
// 405B's pre-training), in the schema's range (1 to 1e18).
static int64_t token_count(const ParamReader& r) {
  const double MAX_TOKENS = static_cast<double>(key_spec("/training/tokens").max);
  const std::string expected =
      "a token count: a whole number or a string such as \"15.6T\", \"300B\", \"50M\" (at most 1e18)";
  double v = 0;
  if (r.is_number()) {
    v = static_cast<double>(r.as_count(1, static_cast<int64_t>(MAX_TOKENS)));
  } else {
    if (!r.is_string()) r.fail("is not a number or a string", expected);
    const std::string text = r.as_string();
    const std::string suffixes = "TBM";
    const size_t last = text.find_last_not_of(' ');
    const size_t at = last == std::string::npos ? std::string::npos : suffixes.find(text[last]);
    std::string number = at == std::string::npos ? std::string() : text.substr(0, last);
    while (!number.empty() && number.back() == ' ') number.pop_back();
    char* end = nullptr;
    const bool digits = !number.empty() && number.find_first_not_of("0123456789.") == std::string::npos &&
                        std::isdigit(static_cast<unsigned char>(number.front()));
    v = digits ? std::strtod(number.c_str(), &end) : 0;
    if (!digits || end != number.c_str() + number.size()) r.fail(quote_value(text) + " is not a token count", expected);
    v *= at == 0 ? 1e12 : at == 1 ? 1e9 : 1e6;
    if (!(v >= 1 && v <= MAX_TOKENS)) r.fail(quote_value(text) + " is out of range", expected);
  }
  return static_cast<int64_t>(std::llround(v));
}

namespace {

// A list of a registry's modules (recompute_modules, offload_modules, low_precision_inputs): not empty, each once.
template <typename T>
std::vector<T> module_list(const ParamReader& list, const std::vector<NamedChoice<T>>& entries,
                           const std::string& expected) {
  list.expect_not_empty(expected);
  std::vector<T> out;
  for (size_t i = 0; i < list.size(); ++i) {
    const T m = registry_choice(list[i], entries);
    if (std::find(out.begin(), out.end(), m) != out.end()) list[i].fail("is listed twice", "each module once");
    out.push_back(m);
  }
  return out;
}

}  // namespace

TrainingSpec TrainingSpec::parse(const ParamReader& r) {
  schema_expect_keys(r, "/training");
  TrainingSpec t;
  t.seq_len = schema_count(r, "/training/seq_len");
  t.global_batch = schema_count(r, "/training/global_batch");
  t.micro_batch = auto_count(*schema_value(r, "/training/micro_batch"), key_spec("/training/micro_batch").max);
  const std::string s = schema_choice(r, "/training/recompute");
  t.recompute = s == "none"        ? Recompute::NONE
                : s == "selective" ? Recompute::SELECTIVE
                : s == "op"        ? Recompute::OP
                                   : Recompute::FULL;
  if (auto modules = r.find("recompute_modules"))
    t.recompute_modules =
        module_list(*modules, recompute_module_entries(),
                    "the parts selective recomputation reruns, e.g. [\"mla_up_proj\", \"layernorm\"]");
  if (auto modules = r.find("offload_modules"))
    t.offload_modules = module_list(*modules, offload_module_entries(),
                                    "the parts whose inputs go to host memory, e.g. [\"attn_norm\", \"moe_act\"]");
  if (auto inputs = r.find("low_precision_inputs"))
    t.low_precision_inputs = module_list(*inputs, low_precision_input_entries(),
                                         "the saved inputs cached in fewer bits, e.g. [\"attn_proj\", \"moe_act\"]");
  t.attention_given = r.has("attention");  // absent: parse_scenario resolves it for the device
  if (t.attention_given) t.attention = registry_choice(r.at("attention"), attention_kernels());
  t.elementwise = registry_choice(*schema_value(r, "/training/elementwise"), elementwise_modes());
  t.loss = r.has("loss") ? registry_choice(r.at("loss"), elementwise_modes()) : t.elementwise;
  t.fp8_scaling = registry_choice(*schema_value(r, "/training/fp8_scaling"), fp8_scaling_recipes());
  t.fp8_library = registry_choice(*schema_value(r, "/training/fp8_library"), fp8_libraries());
  t.precision = precision_from_string(schema_choice(r, "/training/precision"));
  t.grad_reduce_in_fp32 = schema_bool(r, "/training/grad_reduce_in_fp32");
  t.bf16_moments = schema_choice(r, "/training/adam_moments") == "bf16";
  t.fp8_params = schema_bool(r, "/training/fp8_params");
  t.cuda_graphs = schema_bool(r, "/training/cuda_graphs");
  t.routing = registry_choice(*schema_value(r, "/training/routing"), routings());
  if (auto load = r.find("expert_load")) {
    if (!load->is_array() || load->size() == 0)
      load->fail("is not a list of shares", "one number >= 0 per expert, e.g. [1200, 950, ...]");
    const QuantityRange range = schema_range("/training/expert_load/*");
    double sum = 0;
    for (size_t i = 0; i < load->size(); ++i) {
      t.expert_load.push_back((*load)[i].as_number_in(range));
      sum += t.expert_load.back();
    }
    if (!(sum > 0)) load->fail("gives no expert any tokens", "at least one share above 0");
  }
  if (auto c = r.find("capacity_factor"))
    t.capacity_factor = c->as_number_in(schema_range("/training/capacity_factor"));
  if (auto skew = r.find("routing_skew")) t.routing_skew = skew->as_number_in(schema_range("/training/routing_skew"));
  if (auto tok = r.find("tokens")) t.tokens = token_count(*tok);
  return t;
}

}  // namespace sim
