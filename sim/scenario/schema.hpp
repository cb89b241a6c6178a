// The scenario schema: one declarative entry per key a scenario (and the model, cluster and
// profile files it names) may hold -- its JSON path, type, unit, default, allowed values or range
// and one line of meaning. The readers (model.cpp, plan.cpp, ...) take each key's name, range,
// choices and default from here, and `trainsim keys` prints the same entries (docs/scenario.md is
// generated from that), so the reference and the reader cannot disagree.
//
// Paths are JSON pointers from the scenario's root ("/parallelism/tp"); "*" stands for any array
// element or any name of a map ("/failures/causes/*/per_node_day").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/quantity_range.hpp"

namespace sim {

class ParamReader;

struct KeySpec {
  std::string path;          // JSON pointer, e.g. "/parallelism/tp"
  std::string type;          // count, number, bool, choice, string, quantity, object, array, ...
  std::string unit;          // "" for none; else what a quantity is written in ("GB/s", "s")
  std::string default_json;  // the value the reader takes when the key is absent, as JSON; "" for none
  std::string default_note;  // "required", a derived default ("= heads") or the default's source
  std::string allowed;       // allowed values ("gelu, swiglu") or range text; "" derives it from min/max
  std::string meaning;       // one line
  int64_t min = 0;           // a count's range (type "count"), used by the reader
  int64_t max = 0;
  // A number's or quantity's range in the key's unit, "LO..HI" ("0.1..10", "0 s..3650 d") or "a NOUN
  // from LO to HI" ("a latency from 1 ns to 1 s", the text messages then give), read by the reader
  // (schema_range); "" for none beyond the type's own. A quantity is positive whatever LO says.
  std::string range = "";
  std::string why = "";    // where the range's bounds (or the default) come from
  std::string kinds = "";  // the values of the sibling "kind" this key applies to ("a, b"); "" for every kind
};

// Every entry, section by section, in the order `trainsim keys` prints them.
const std::vector<KeySpec>& scenario_schema();
// The sections' names ("model", "parallelism", ...) and the path each covers.
struct SchemaSection {
  const char* name;
  const char* path;
  const char* meaning;
};
const std::vector<SchemaSection>& schema_sections();

// The entry at `path`; a path the schema lacks is a programming error (asserted).
const KeySpec& key_spec(const std::string& path);
std::optional<KeySpec> find_key_spec(const std::string& path);
// The names of the keys directly under the object at `path` ("" for the root), for expect_keys.
std::vector<std::string> schema_keys_under(const std::string& path);
// A choice's values: `allowed` split at ", ".
std::vector<std::string> schema_choices(const std::string& path);
// The allowed text as printed: `allowed`, "MIN..MAX" for a count, or the range followed by `allowed`.
std::string allowed_text(const KeySpec& k);
// The range of a number or quantity key (`range` parsed in the key's unit, SI), with the text for
// messages; a key without one is a programming error (asserted).
QuantityRange schema_range(const std::string& path);
// The schema's default of `path`, parsed (asserted present).
ParamReader schema_default(const std::string& path);

// Reader helpers: the value of the key `path` names inside `obj` (the object at the path's
// parent), or the schema's default when absent; nullopt when absent and there is no default.
std::optional<ParamReader> schema_value(const ParamReader& obj, const std::string& path);
// A count in the schema's range, or its default.
int64_t schema_count(const ParamReader& obj, const std::string& path);
bool schema_bool(const ParamReader& obj, const std::string& path);
// A choice among the schema's values, or its default.
std::string schema_choice(const ParamReader& obj, const std::string& path);
// Rejects keys of `obj` not under `path` in the schema (ParamReader::expect_keys).
void schema_expect_keys(const ParamReader& obj, const std::string& path);
// The keys under `path` that apply to `kind` (their `kinds` empty or naming it), in schema order.
std::vector<std::string> schema_keys_for_kind(const std::string& path, const std::string& kind);
// Rejects keys of `obj` that do not apply to its `kind`: a key of another kind is named as such
// ("'shape' does not apply to NOUN 'poisson'"), any other with did-you-mean (expect_keys).
void schema_expect_kind_keys(const ParamReader& obj, const std::string& path, const std::string& kind,
                             const std::string& noun);

}  // namespace sim
