// The numbers of a report read back (summary.cpp: `trainsim run` and `trainsim report` render the
// summary from the JSON): each must lie in the range `trainsim run` writes it in, so a report
// edited by hand or damaged ("step_time_s": -1) is one InputError naming the file and the JSON
// path, never a summary of impossible numbers.
#pragma once

#include <optional>
#include <string>

namespace sim {

class ParamReader;

// Finite and > 0: a step time, a rate, a size.
double positive(const ParamReader& r, const std::string& key);
// Finite and >= 0: a part of a step, a count of events, a time lost.
double non_negative(const ParamReader& r, const std::string& key);
// In [0, 1]: ETTR, goodput, a throughput share.
double share(const ParamReader& r, const std::string& key);
// null (none: no failure, no recovery finished, no checkpoint) or finite and > 0 (`zero_ok`: >= 0).
std::optional<double> positive_or_null(const ParamReader& r, const std::string& key, bool zero_ok = false);

}  // namespace sim
