// The scenario schema (sim/scenario/schema.hpp): every default it states passes the reader's own
// check for that key (a count in its range, a choice among its values), every key's parent is an
// object the schema lists, and no path is listed twice.
#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "sim/core/params.hpp"
#include "sim/core/quantity_range.hpp"
#include "sim/core/units.hpp"
#include "sim/scenario/schema.hpp"

using namespace sim;

TEST_CASE("schema: every stated default passes its key's check", "[schema]") {
  for (const auto& k : scenario_schema()) {
    if (k.default_json.empty()) continue;
    INFO(k.path);
    const auto v = ParamReader::from_text(k.default_json, "default");
    if (k.type == "count" || k.type.rfind("count or", 0) == 0) {
      if (v.is_string())  // "auto" and the like: a word the allowed text names
        CHECK(allowed_text(k).find("\"" + v.as_string() + "\"") != std::string::npos);
      else
        CHECK_NOTHROW(v.as_count(k.min, k.max));
    } else if (!k.range.empty() && !v.is_string()) {
      CHECK(schema_range(k.path).contains(v.as_number()));
    } else if (!k.range.empty() && k.unit == "s" && parse_seconds(v.as_string())) {
      CHECK(schema_range(k.path).contains(parse_seconds(v.as_string())->value));
    } else if (k.type == "choice") {
      CHECK_NOTHROW(v.as_choice(schema_choices(k.path)));
    } else if (k.type == "bool") {
      CHECK(v.is_bool());
    }
  }
}

TEST_CASE("schema: each path once, each parent an object of the schema", "[schema]") {
  std::set<std::string> seen;
  for (const auto& k : scenario_schema()) {
    INFO(k.path);
    CHECK(seen.insert(k.path).second);
    const std::string parent = k.path.substr(0, k.path.rfind('/'));
    if (parent.empty()) continue;
    const auto p = find_key_spec(parent);
    REQUIRE(p);
    CHECK((p->type.find("object") != std::string::npos || p->type.find("array") != std::string::npos));
  }
}

// The readers' shared windows (core/quantity_range.hpp) and the schema's text of them agree: a
// bandwidth key's range is BANDWIDTH (as_bandwidth's), a fraction of a rated speed EFFICIENCY.
TEST_CASE("schema: every range parses, low end below high, shared windows as the reader's", "[schema]") {
  int ranged = 0;
  for (const auto& k : scenario_schema()) {
    if (k.range.empty()) continue;
    INFO(k.path << ": " << k.range);
    ++ranged;
    const QuantityRange r = schema_range(k.path);
    CHECK(r.min <= r.max);
    CHECK(!k.why.empty());  // every range says where its bounds come from
    if (k.unit == "B/s") CHECK((r.min == BANDWIDTH.min && r.max == BANDWIDTH.max));
    if (k.range == EFFICIENCY.expected) CHECK((r.min == EFFICIENCY.min && r.max == EFFICIENCY.max));
  }
  CHECK(ranged > 40);
}
