#include "sim/kernels/host/compare.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace sim::kernels {

Comparison compare(const std::vector<double>& got, const std::vector<double>& want,
                   const std::vector<double>& tolerance) {
  if (got.size() != want.size() || got.size() != tolerance.size()) throw std::invalid_argument("compare: sizes differ");
  Comparison c;
  c.count = got.size();
  double worst_ratio = -1.0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double err = std::fabs(got[i] - want[i]);
    const bool bad = !(err <= tolerance[i]);  // NaN fails
    const double ratio = std::isfinite(err) ? err / std::fmax(tolerance[i], 1e-300) : INFINITY;
    if (bad) ++c.failures;
    if (std::isfinite(err)) c.max_abs_error = std::fmax(c.max_abs_error, err);
    if (ratio > worst_ratio) {
      worst_ratio = ratio;
      c.worst = i;
      c.got = got[i];
      c.want = want[i];
      c.tolerance = tolerance[i];
    }
  }
  return c;
}

Comparison compare(const std::vector<double>& got, const std::vector<double>& want, double atol, double rtol) {
  std::vector<double> tolerance(want.size());
  for (size_t i = 0; i < want.size(); ++i) tolerance[i] = atol + rtol * std::fabs(want[i]);
  return compare(got, want, tolerance);
}

std::string Comparison::describe() const {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%zu of %zu outside tolerance; worst [%zu]: got %.6g, want %.6g, tolerance %.3g",
                failures, count, worst, got, want, tolerance);
  return buf;
}

double max_abs(const std::vector<double>& v) {
  double m = 0.0;
  for (double x : v) m = std::fmax(m, std::fabs(x));
  return m;
}

}  // namespace sim::kernels

namespace sim::kernels {

void require(const Comparison& c, const std::string& what) {
  if (!c.ok()) throw CheckFailure(what + ": " + c.describe());
}

}  // namespace sim::kernels
