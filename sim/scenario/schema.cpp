#include "sim/scenario/schema.hpp"

#include "sim/core/error.hpp"
#include "sim/core/params.hpp"
#include "sim/scenario/schema_sections.hpp"

namespace sim {

const std::vector<SchemaSection>& schema_sections() {
  static const std::vector<SchemaSection> sections = {
      {"scenario", "", "the scenario file's top level"},
      {"model", "/model", "the model (a name in models/, a path, or the object; models/*.json)"},
      {"cluster", "/cluster", "the cluster (a name in topologies/, a path, or the object; topologies/*.json)"},
      {"parallelism", "/parallelism", "how the job is split over the GPUs"},
      {"training", "/training", "the batch, sequence, precision and kernels of one step"},
  };
  return sections;
}

const std::vector<KeySpec>& scenario_schema() {
  static const std::vector<KeySpec> all = [] {
    std::vector<KeySpec> keys;
    for (auto* section :
         {&schema_scenario_keys, &schema_model_keys, &schema_cluster_keys, &schema_plan_keys, &schema_training_keys}) {
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
  if (!k.allowed.empty() || k.type != "count") return k.allowed;
  return std::to_string(k.min) + ".." + std::to_string(k.max);
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
