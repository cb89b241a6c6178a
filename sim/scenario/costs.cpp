#include "sim/scenario/costs.hpp"

#include <fstream>

#include "sim/core/params.hpp"
#include "sim/scenario/schema.hpp"

namespace sim {

namespace {

PartPrice part(const ParamReader& r, const std::string& path) {
  schema_expect_keys(r, path);
  PartPrice p;
  p.usd = r.number("usd");
  p.watts = r.number("watts");
  if (p.usd < 0) r.at("usd").fail("is negative", "a price >= 0");
  if (p.watts < 0) r.at("watts").fail("is negative", "a power >= 0");
  return p;
}

}  // namespace

CostTable CostTable::parse(const ParamReader& r) {
  schema_expect_keys(r, "@costs");
  if (auto k = r.find("kind")) k->as_choice(schema_choices("@costs/kind"));
  CostTable c;
  c.name = schema_value(r, "@costs/name")->as_string();
  c.port_bandwidth = r.at("port_bandwidth").as_bandwidth();
  c.switch_port = part(r.at("switch_port"), "@costs/switch_port");
  c.transceiver = part(r.at("transceiver"), "@costs/transceiver");
  c.ocs_port = part(r.at("ocs_port"), "@costs/ocs_port");
  return c;
}

std::optional<CostTable> load_costs(const std::string& data_dir) {
  const std::string path = data_dir + "/topologies/costs/network.json";
  if (!std::ifstream(path)) return std::nullopt;
  return CostTable::parse(ParamReader::load_file(path));
}

}  // namespace sim
