// Durations as a person reads them in a text summary: "13 min 20 s" rather than "800.161 s", and
// long spans in hours with their days beside ("37.6 h (1.57 days)"). Reports keep seconds.
#pragma once

#include <string>

#include "sim/core/units.hpp"

namespace sim {

// Under a minute: format_seconds ("6.498 s", "12.000 ms"); under an hour: "M min S s"; under a
// day: "H h M min"; longer: "D d H h". The total is rounded to the last unit shown before it is
// split, so 3599.7 s is "1 h 0 min", never "59 min 60 s". A zero trailing unit is printed.
std::string format_duration(Seconds t);

// A span of lost or spent time in hours and days: "37.6 h (1.57 days)".
std::string format_hours_days(Seconds t);

}  // namespace sim
