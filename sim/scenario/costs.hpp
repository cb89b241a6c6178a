// What the parts of a scale-out network cost, per unit (topologies/costs/network.json): an electrical
// switch port, an optical transceiver, an optical circuit switch port, each its capital cost and
// its power, for ports of `port_bandwidth`. sim/topology/network_cost.hpp counts the parts of a
// cluster's network; the report prices them.
#pragma once

#include <optional>
#include <string>

#include "sim/core/units.hpp"

namespace sim {

class ParamReader;

struct PartPrice {
  double usd = 0;
  double watts = 0;
};

struct CostTable {
  std::string name;
  BytesPerSecond port_bandwidth;
  PartPrice switch_port, transceiver, ocs_port;

  static CostTable parse(const ParamReader& r);
};

// topologies/costs/network.json under `data_dir`; std::nullopt when there is none.
std::optional<CostTable> load_costs(const std::string& data_dir);

}  // namespace sim
