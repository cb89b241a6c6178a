#include "sim/calibrate/least_squares.hpp"

#include <Eigen/Dense>
#include <cmath>

#include "sim/core/error.hpp"

namespace sim {

std::vector<double> fit_relative(const std::vector<std::vector<double>>& rows, const std::vector<double>& t,
                                 const std::vector<double>& fixed, double* rms) {
  SIM_ASSERT(!rows.empty() && rows.size() == t.size(), "one measured time per row");
  const size_t cols = rows.front().size();
  std::vector<size_t> free_cols;
  for (size_t j = 0; j < cols; ++j)
    if (j >= fixed.size() || fixed[j] < 0) free_cols.push_back(j);
  // Row i scaled by 1/t_i: (x_i . c) / t_i = 1, with the pinned columns moved
  // to the right side.
  Eigen::MatrixXd a(rows.size(), free_cols.size());
  Eigen::VectorXd b(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    SIM_ASSERT(rows[i].size() == cols && t[i] > 0, "rows of equal width, positive times");
    double rhs = 1.0;
    for (size_t j = 0; j < cols; ++j)
      if (j < fixed.size() && fixed[j] >= 0) rhs -= fixed[j] * rows[i][j] / t[i];
    for (size_t f = 0; f < free_cols.size(); ++f) a(i, f) = rows[i][free_cols[f]] / t[i];
    b(i) = rhs;
  }
  std::vector<double> c(cols, 0.0);
  for (size_t j = 0; j < cols && j < fixed.size(); ++j)
    if (fixed[j] >= 0) c[j] = fixed[j];
  if (!free_cols.empty()) {
    // Equilibrate the columns: features span many decades (bytes vs. one),
    // which QR handles better when each column has unit norm.
    Eigen::VectorXd scale = a.colwise().norm().transpose();
    for (Eigen::Index j = 0; j < scale.size(); ++j)
      if (scale(j) == 0) scale(j) = 1;
    Eigen::MatrixXd as = a * scale.cwiseInverse().asDiagonal();
    Eigen::VectorXd x = as.colPivHouseholderQr().solve(b);
    for (size_t f = 0; f < free_cols.size(); ++f) c[free_cols[f]] = x(static_cast<Eigen::Index>(f)) / scale(f);
  }
  if (rms) {
    double sum = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
      double pred = 0;
      for (size_t j = 0; j < cols; ++j) pred += rows[i][j] * c[j];
      sum += (pred / t[i] - 1) * (pred / t[i] - 1);
    }
    *rms = std::sqrt(sum / static_cast<double>(rows.size()));
  }
  return c;
}

}  // namespace sim
