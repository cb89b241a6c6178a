// The scenario schema (sim/scenario/schema.hpp): every default it states passes the reader's own
// check for that key (a count in its range, a choice among its values), every key's parent is an
// object the schema lists, and no path is listed twice.
#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "sim/core/params.hpp"
#include "sim/scenario/schema.hpp"

using namespace sim;

TEST_CASE("schema: every stated default passes its key's check", "[schema]") {
  for (const auto& k : scenario_schema()) {
    if (k.default_json.empty()) continue;
    INFO(k.path);
    const auto v = ParamReader::from_text(k.default_json, "default");
    if (k.type == "count" || k.type.rfind("count or", 0) == 0) {
      REQUIRE(v.is_number());
      CHECK_NOTHROW(v.as_count(k.min, k.max));
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
