// Least squares for calibration fits (docs/calibration.md): every fit here is
// linear in its coefficients once written as "a measured time against
// features", and is solved so that the *relative* error of each measurement
// counts equally -- a 10 us kernel and a 10 ms one weigh the same.
#pragma once

#include <vector>

namespace sim {

// Minimizes sum_i ((x_i . c) / t_i - 1)^2 over c, for rows x_i and measured t_i
// > 0. `fixed[j]` >= 0 pins coefficient j to that value instead of fitting it
// (pass {} for none). Returns the coefficients; `rms` (if given) receives the
// root-mean-square relative error.
std::vector<double> fit_relative(const std::vector<std::vector<double>>& rows, const std::vector<double>& t,
                                 const std::vector<double>& fixed = {}, double* rms = nullptr);

}  // namespace sim
