#include "sim/core/units.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>

namespace sim {
namespace {

struct Split {
  double number;
  std::string_view unit;
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// "<number> <unit>": a finite, non-negative decimal number followed by a unit.
std::optional<Split> split(std::string_view text) {
  text = trim(text);
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.' || text[i] == 'e' ||
                             text[i] == 'E' || text[i] == '+' || text[i] == '-')) {
    // An 'e' starts the exponent only when a digit or sign follows; otherwise it is a unit ("1 eb").
    if ((text[i] == 'e' || text[i] == 'E') &&
        !(i + 1 < text.size() &&
          (std::isdigit(static_cast<unsigned char>(text[i + 1])) || text[i + 1] == '-' || text[i + 1] == '+')))
      break;
    ++i;
  }
  if (i == 0) return std::nullopt;
  std::string number(text.substr(0, i));
  char* end = nullptr;
  double v = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size() || !std::isfinite(v)) return std::nullopt;
  return Split{v, trim(text.substr(i))};
}

// Decimal (k, M, G, T, P) and binary (Ki, Mi, Gi, Ti, Pi) prefixes; the rest of the unit is
// returned in `base`.
std::optional<double> prefix(std::string_view unit, std::string_view& base) {
  static constexpr struct {
    std::string_view p;
    double f;
  } table[] = {{"Ki", 1024.0},
               {"Mi", 1048576.0},
               {"Gi", 1073741824.0},
               {"Ti", 1099511627776.0},
               {"Pi", 1125899906842624.0},
               {"k", 1e3},
               {"K", 1e3},
               {"M", 1e6},
               {"G", 1e9},
               {"T", 1e12},
               {"P", 1e15},
               {"E", 1e18}};
  for (const auto& e : table)
    if (unit.size() > e.p.size() && unit.substr(0, e.p.size()) == e.p) {
      base = unit.substr(e.p.size());
      return e.f;
    }
  base = unit;
  return 1.0;
}

}  // namespace

std::optional<Seconds> parse_seconds(std::string_view text) {
  auto s = split(text);
  if (!s) return std::nullopt;
  static constexpr struct {
    std::string_view u;
    double f;
  } table[] = {{"ps", 1e-12},    {"ns", 1e-9},      {"us", 1e-6},   {"µs", 1e-6},  {"ms", 1e-3},
               {"s", 1.0},       {"sec", 1.0},      {"min", 60.0},  {"h", 3600.0}, {"d", 86400.0},
               {"day", 86400.0}, {"days", 86400.0}, {"w", 604800.0}};
  for (const auto& e : table)
    if (s->unit == e.u) return Seconds(s->number * e.f);
  return std::nullopt;
}

std::optional<Bytes> parse_bytes(std::string_view text) {
  auto s = split(text);
  if (!s) return std::nullopt;
  std::string_view base;
  auto f = prefix(s->unit, base);
  if (base == "B") return Bytes(s->number * *f);
  if (base == "b") return Bytes(s->number * *f / 8.0);
  return std::nullopt;
}

std::optional<BytesPerSecond> parse_bandwidth(std::string_view text) {
  auto s = split(text);
  if (!s) return std::nullopt;
  std::string_view base;
  auto f = prefix(s->unit, base);
  if (base == "B/s" || base == "Bps") return BytesPerSecond(s->number * *f);
  if (base == "b/s" || base == "bps") return BytesPerSecond(s->number * *f / 8.0);
  return std::nullopt;
}

std::optional<FlopsPerSecond> parse_flops_rate(std::string_view text) {
  auto s = split(text);
  if (!s) return std::nullopt;
  std::string_view base;
  auto f = prefix(s->unit, base);
  if (base == "FLOP/s" || base == "FLOPS" || base == "flop/s") return FlopsPerSecond(s->number * *f);
  return std::nullopt;
}

std::optional<Flops> parse_flops(std::string_view text) {
  auto s = split(text);
  if (!s) return std::nullopt;
  std::string_view base;
  auto f = prefix(s->unit, base);
  if (base == "FLOP" || base == "flop") return Flops(s->number * *f);
  return std::nullopt;
}

std::string format_seconds(Seconds t) {
  double v = t.value;
  if (v >= 86400.0) return fmt::format("{:.2f} d", v / 86400.0);
  if (v >= 3600.0) return fmt::format("{:.2f} h", v / 3600.0);
  if (v >= 1.0) return fmt::format("{:.3f} s", v);
  if (v >= 1e-3) return fmt::format("{:.3f} ms", v * 1e3);
  return fmt::format("{:.3f} us", v * 1e6);
}

std::string format_bytes(Bytes b) {
  double v = b.value;
  if (v >= 1099511627776.0) return fmt::format("{:.2f} TiB", v / 1099511627776.0);
  if (v >= 1073741824.0) return fmt::format("{:.2f} GiB", v / 1073741824.0);
  if (v >= 1048576.0) return fmt::format("{:.2f} MiB", v / 1048576.0);
  return fmt::format("{:.0f} B", v);
}

}  // namespace sim
