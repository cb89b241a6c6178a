#include "sim/report/report_numbers.hpp"

#include <fmt/format.h>

#include <limits>

#include "sim/core/params.hpp"

namespace sim {
namespace {

double in_range(const ParamReader& r, const std::string& key, double lo, bool lo_open, double hi,
                const char* expected) {
  const ParamReader v = r.at(key);
  const double x = v.as_number();  // finite
  if (x < lo || (lo_open && x == lo) || x > hi)
    v.fail(fmt::format("{:g} is out of range (the report was edited or damaged)", x), expected);
  return x;
}

constexpr double MAX = std::numeric_limits<double>::max();

}  // namespace

double positive(const ParamReader& r, const std::string& key) {
  return in_range(r, key, 0, true, MAX, "a number > 0, as trainsim run writes it");
}

double non_negative(const ParamReader& r, const std::string& key) {
  return in_range(r, key, 0, false, MAX, "a number >= 0, as trainsim run writes it");
}

double share(const ParamReader& r, const std::string& key) {
  return in_range(r, key, 0, false, 1, "a share in [0, 1], as trainsim run writes it");
}

std::optional<double> positive_or_null(const ParamReader& r, const std::string& key, bool zero_ok) {
  if (r.at(key).is_null()) return std::nullopt;
  return zero_ok ? non_negative(r, key) : positive(r, key);
}

}  // namespace sim
