#include "sim/reliability/closed_forms.hpp"

#include <cmath>
#include <limits>

namespace sim::reliability {

Seconds young_interval(Seconds write, Seconds mttf) { return Seconds(std::sqrt(2.0 * write.value * mttf.value)); }

Seconds daly_interval(Seconds write, Seconds mttf) {
  const double d = write.value, m = mttf.value;
  if (std::isinf(m)) return Seconds(std::numeric_limits<double>::infinity());
  if (d >= 2.0 * m) return mttf;
  const double x = d / (2.0 * m);
  return Seconds(std::sqrt(2.0 * d * m) * (1.0 + std::sqrt(x) / 3.0 + x / 9.0) - d);
}

double first_order_ettr(Seconds interval, Seconds write, Seconds restart, Seconds mttf) {
  return (1.0 - (restart.value + interval.value / 2.0) / mttf.value) / (1.0 + write.value / interval.value);
}

Seconds daly_wallclock(Seconds solve, Seconds interval, Seconds write, Seconds restart, Seconds mttf) {
  const double m = mttf.value;
  return Seconds(solve.value / interval.value * m * std::exp(restart.value / m) *
                 std::expm1((interval.value + write.value) / m));
}

}  // namespace sim::reliability
