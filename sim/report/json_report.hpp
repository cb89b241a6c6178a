// Writers for a run: the JSON report (DESIGN.md "Report") and the Chrome/Perfetto trace of one
// step (one track per simulated rank class; open at ui.perfetto.dev). The terminal summary is
// rendered from the report (summary.hpp). Numbers are written locale-free with fixed formatting,
// so the same run gives the same bytes.
#pragma once

#include <string>

namespace sim {

struct RunResult;

std::string report_json(const RunResult& r);
std::string trace_json(const RunResult& r);

}  // namespace sim
