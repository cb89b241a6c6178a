#include "sim/scenario/schema.hpp"

#include <algorithm>
#include <cstdlib>

#include "sim/core/error.hpp"
#include "sim/core/params.hpp"
#include "sim/core/units.hpp"
#include "sim/scenario/schema_sections.hpp"

namespace sim {

const std::vector<SchemaSection>& schema_sections() {
  static const std::vector<SchemaSection> sections = {
      {"scenario", "", "the scenario file's top level"},
      {"model", "/model", "the model (a name in models/, a path, or the object; models/*.json)"},
      {"cluster", "/cluster", "the cluster (a name in topologies/, a path, or the object; topologies/*.json)"},
      {"parallelism", "/parallelism", "how the job is split over the GPUs"},
      {"training", "/training", "the batch, sequence, precision and kernels of one step"},
      {"failures", "/failures", "the failure model of the long-horizon reliability simulation"},
      {"recovery", "/recovery", "how the job recovers from a failure (needs failures)"},
      {"step_faults", "/step_faults", "slow or failed components during the simulated step"},
      {"device", "@device",
       "a device profile, a file of its own (topologies/devices/*.json, or the path cluster.gpu names); @device is "
       "its root: peaks, memory, calibrated curves"},
      {"costs", "@costs",
       "the network cost table, a file of its own (topologies/costs/network.json); @costs is its root"},
      {"validation", "@validation",
       "a validation table, a file of its own (validation/*.json, trainsim validate); @validation is its root"},
  };
  return sections;
}

const std::vector<KeySpec>& scenario_schema() {
  static const std::vector<KeySpec> all = [] {
    std::vector<KeySpec> keys;
    for (auto* section : {&schema_scenario_keys, &schema_model_keys, &schema_cluster_keys, &schema_plan_keys,
                          &schema_training_keys, &schema_failures_keys, &schema_recovery_keys, &schema_step_faults_keys,
                          &schema_device_keys, &schema_costs_keys, &schema_validation_keys}) {
      auto part = (*section)();
      keys.insert(keys.end(), part.begin(), part.end());
    }
    return keys;
  }();
  return all;
}

std::optional<KeySpec> find_key_spec(const std::string& path) {
  for (const auto& k : scenario_schema())
    if (path == k.path) return k;
  return std::nullopt;
}

const KeySpec& key_spec(const std::string& path) {
  for (const auto& k : scenario_schema())
    if (path == k.path) return k;
  SIM_ASSERT(false, "every key a reader reads has a schema entry: " + path);
  return scenario_schema().front();
}

std::vector<std::string> schema_keys_under(const std::string& path) {
  std::vector<std::string> names;
  const std::string prefix = path + "/";
  for (const auto& k : scenario_schema()) {
    const std::string& p = k.path;
    if (p.compare(0, prefix.size(), prefix) == 0 && p.find('/', prefix.size()) == std::string::npos)
      names.push_back(p.substr(prefix.size()));
  }
  return names;
}

std::vector<std::string> schema_choices(const std::string& path) {
  std::vector<std::string> out;
  const std::string& text = key_spec(path).allowed;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(", ", start);
    out.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 2;
  }
  return out;
}

std::string allowed_text(const KeySpec& k) {
  if (!k.range.empty()) return k.range + (k.allowed.empty() ? "" : " " + k.allowed);
  const bool count = k.type == "count" || k.type.rfind("count or", 0) == 0;
  if (count && (k.allowed.empty() || k.allowed.rfind("or ", 0) == 0))  // "1..64", "0..131072 or \"auto\""
    return std::to_string(k.min) + ".." + std::to_string(k.max) + (k.allowed.empty() ? "" : " " + k.allowed);
  return k.allowed;
}

// One side of a range in the key's unit, in SI units.
static std::optional<double> range_bound(const KeySpec& k, const std::string& text) {
  if (k.type.rfind("quantity", 0) != 0) {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    return end && *end == '\0' && !text.empty() ? std::optional<double>(v) : std::nullopt;
  }
  const auto value = [](const auto& v) { return v ? std::optional<double>(v->value) : std::nullopt; };
  if (k.unit == "s") return value(parse_seconds(text));
  if (k.unit == "B/s") return value(parse_bandwidth(text));
  if (k.unit == "B") return value(parse_bytes(text));
  if (k.unit == "FLOP/s") return value(parse_flops_rate(text));
  if (k.unit == "FLOP") return value(parse_flops(text));
  return std::nullopt;
}

// A range is "LO..HI" (messages say "a number from LO to HI" or the reader's own words) or "a NOUN
// from LO to HI" (messages say that text).
QuantityRange schema_range(const std::string& path) {
  const KeySpec& k = key_spec(path);
  const size_t dots = k.range.find("..");
  const size_t from = k.range.find(" from "), to = k.range.rfind(" to ");
  std::optional<double> lo, hi;
  if (dots != std::string::npos) {
    lo = range_bound(k, k.range.substr(0, dots));
    hi = range_bound(k, k.range.substr(dots + 2));
  } else if (from != std::string::npos && to != std::string::npos && from < to) {
    lo = range_bound(k, k.range.substr(from + 6, to - from - 6));
    hi = range_bound(k, k.range.substr(to + 4));
  }
  SIM_ASSERT(lo && hi && *lo <= *hi, "the schema's range of " + path + " parses: " + k.range);
  return {*lo, *hi, dots == std::string::npos ? k.range.c_str() : nullptr};
}

ParamReader schema_default(const std::string& path) {
  const KeySpec& k = key_spec(path);
  SIM_ASSERT(!k.default_json.empty(), "the schema gives a default for " + path);
  return ParamReader::from_text(k.default_json, "the schema's default of " + k.path);
}

static bool applies(const KeySpec& k, const std::string& kind) {
  if (k.kinds.empty()) return true;
  const std::string list = ", " + k.kinds + ", ";
  return list.find(", " + kind + ", ") != std::string::npos;
}

std::vector<std::string> schema_keys_for_kind(const std::string& path, const std::string& kind) {
  std::vector<std::string> names;
  for (const auto& name : schema_keys_under(path))
    if (applies(key_spec(path + "/" + name), kind)) names.push_back(name);
  return names;
}

static std::string join_names(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

void schema_expect_kind_keys(const ParamReader& obj, const std::string& path, const std::string& kind,
                             const std::string& noun) {
  const auto allowed = schema_keys_for_kind(path, kind);
  const auto all = schema_keys_under(path);
  for (const auto& key : obj.keys()) {
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    if (std::find(all.begin(), all.end(), key) != all.end())
      obj.at(key).fail("'" + key + "' does not apply to " + noun + " '" + kind + "'", "one of " + join_names(allowed));
  }
  obj.expect_keys(allowed);
}

static std::string key_name(const std::string& path) { return path.substr(path.rfind('/') + 1); }

std::optional<ParamReader> schema_value(const ParamReader& obj, const std::string& path) {
  const KeySpec& k = key_spec(path);
  if (auto v = obj.find(key_name(path))) return v;
  if (k.default_json.empty()) return std::nullopt;
  return ParamReader::from_text(k.default_json, "the schema's default of " + k.path);
}

static ParamReader required(const ParamReader& obj, const std::string& path) {
  auto v = schema_value(obj, path);
  return v ? *v : obj.at(key_name(path));  // at() reports the missing key
}

int64_t schema_count(const ParamReader& obj, const std::string& path) {
  const KeySpec& k = key_spec(path);
  return required(obj, path).as_count(k.min, k.max);
}

bool schema_bool(const ParamReader& obj, const std::string& path) { return required(obj, path).as_bool(); }

std::string schema_choice(const ParamReader& obj, const std::string& path) {
  return required(obj, path).as_choice(schema_choices(path));
}

void schema_expect_keys(const ParamReader& obj, const std::string& path) { obj.expect_keys(schema_keys_under(path)); }

}  // namespace sim
