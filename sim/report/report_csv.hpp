// Reports as CSV: one row per report, one column per scalar field, named by its path in the
// report with dots ("breakdown.compute_s", "reliability.ettr"). Columns are in the order the first
// report that has them writes them, a field a report lacks is an empty cell, and arrays (the
// per-stage memory, fault events) are left to the JSON. Numbers are written as the JSON writes
// them (the shortest text that reads back as the same double), booleans as true/false, null as an
// empty cell; a cell with a comma, a quote or a line break is quoted (RFC 4180).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace sim {

std::string reports_csv(const std::vector<nlohmann::ordered_json>& reports);

}  // namespace sim
