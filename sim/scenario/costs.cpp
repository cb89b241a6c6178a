#include "sim/scenario/costs.hpp"

#include <fstream>

#include "sim/core/params.hpp"

namespace sim {

namespace {

PartPrice part(const ParamReader& r) {
  r.expect_keys({"usd", "watts"});
  PartPrice p;
  p.usd = r.number("usd");
  p.watts = r.number("watts");
  if (p.usd < 0) r.at("usd").fail("is negative", "a price >= 0");
  if (p.watts < 0) r.at("watts").fail("is negative", "a power >= 0");
  return p;
}

}  // namespace

CostTable CostTable::parse(const ParamReader& r) {
  r.expect_keys({"kind", "name", "description", "source", "port_bandwidth", "switch_port", "transceiver", "ocs_port"});
  if (auto k = r.find("kind")) k->as_choice({"costs"});
  CostTable c;
  c.name = r.has("name") ? r.string("name") : std::string("costs");
  c.port_bandwidth = r.at("port_bandwidth").as_bandwidth();
  c.switch_port = part(r.at("switch_port"));
  c.transceiver = part(r.at("transceiver"));
  c.ocs_port = part(r.at("ocs_port"));
  return c;
}

std::optional<CostTable> load_costs(const std::string& data_dir) {
  const std::string path = data_dir + "/topologies/costs/network.json";
  if (!std::ifstream(path)) return std::nullopt;
  return CostTable::parse(ParamReader::load_file(path));
}

}  // namespace sim
