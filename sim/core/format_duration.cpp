#include "sim/core/format_duration.hpp"

#include <fmt/format.h>

#include <cmath>

namespace sim {

namespace {

// `v` seconds rounded to whole `small` units, then split into whole `big` units and the rest.
std::string split(double v, double big, const char* big_name, double small, const char* small_name) {
  const double units = std::round(v / small);
  const double per = big / small;
  const double whole = std::floor(units / per);
  return fmt::format("{:.0f} {} {:.0f} {}", whole, big_name, units - whole * per, small_name);
}

}  // namespace

std::string format_duration(Seconds t) {
  const double v = t.value;
  if (!std::isfinite(v)) return format_seconds(t);
  // Thresholds on the rounded value, so 59.9996 s is "1 min 0 s" rather than "60.000 s".
  if (v < 59.9995) return format_seconds(t);
  if (std::round(v) < 3600.0) return split(v, 60.0, "min", 1.0, "s");
  if (std::round(v / 60.0) < 1440.0) return split(v, 3600.0, "h", 60.0, "min");
  return split(v, 86400.0, "d", 3600.0, "h");
}

std::string format_hours_days(Seconds t) {
  return fmt::format("{:.1f} h ({:.2f} days)", t.value / 3600.0, t.value / 86400.0);
}

}  // namespace sim
