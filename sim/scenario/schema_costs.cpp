// The schema of the network cost table (topologies/costs/network.json; costs.cpp reads it), a file
// of its own rather than a scenario key: its paths start at "@costs", the file's root.
#include "sim/scenario/schema_sections.hpp"

namespace sim {

std::vector<KeySpec> schema_costs_keys() {
  std::vector<KeySpec> keys = {
      {"@costs", "object", "", "", "", "", "the cost table file", 0, 0},
      {"@costs/kind", "choice", "", "", "optional", "costs", "what the file is", 0, 0},
      {"@costs/name", "string", "", "\"costs\"", "", "", "the table's name in reports", 0, 0},
      {"@costs/description", "string", "", "", "documentation only", "", "free text", 0, 0},
      {"@costs/source", "string", "", "", "documentation only", "", "where the prices come from", 0, 0},
      {"@costs/port_bandwidth", "quantity", "B/s", "", "required", "",
       "the port rate the prices are for (a link of another rate counts as its share of ports)", 0, 0,
       "a bandwidth from 1 Mb/s to 1 PB/s", "BANDWIDTH (core/quantity_range.hpp)"},
  };
  for (const char* part : {"switch_port", "transceiver", "ocs_port"}) {
    const std::string p = std::string("@costs/") + part;
    keys.push_back({p, "object", "", "", "required", "", std::string("one ") + part + ": price and power", 0, 0});
    keys.push_back({p + "/usd", "number", "USD", "", "required", ">= 0", "capital cost per unit", 0, 0});
    keys.push_back({p + "/watts", "number", "W", "", "required", ">= 0", "power per unit", 0, 0});
  }
  return keys;
}

}  // namespace sim
