// The terminal summary of a run, rendered from its JSON report (json_report.hpp): `trainsim run`
// prints it from the report it has just built and `trainsim report` from one read back, so the two
// are the same text. Every field is read through ParamReader: a report that lacks one, or holds the
// wrong type, is an InputError naming the file and the JSON path.
#pragma once

#include <string>

namespace sim {

class ParamReader;

// `colour`: ANSI bold for the headline numbers, green or red for whether the plan fits in memory
// (for a terminal; never in a file or a pipe).
std::string summary_text(const ParamReader& report, bool colour);

}  // namespace sim
