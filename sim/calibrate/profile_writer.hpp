// The fitted device profile as JSON: the base profile's file with every fitted
// parameter replaced by {"value", "source"}, the source naming the
// measurements, the fit and its error, and a "calibration" section carrying the
// measurements' provenance (GPU, driver, library versions, date, commit).
// Parameters the data could not fit keep the base profile's value and source.
#pragma once

#include <string>

#include "sim/calibrate/fit.hpp"

namespace sim {

std::string fitted_profile_json(const std::string& base_file, const Calibration& c, const Measurements& m,
                                const std::string& name);

}  // namespace sim
