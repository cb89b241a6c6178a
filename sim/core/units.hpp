// Strong unit types for the quantities trainsim reasons about, and their parsers.
//
// Every quantity is a double in SI base units (seconds, bytes, FLOPs, bytes/s, FLOP/s); the type
// says which. Only the meaningful operators exist: Bytes / BytesPerSecond -> Seconds,
// Flops / FlopsPerSecond -> Seconds, same-type sums and scaling by a plain number.
//
// Parsing (parse_*): "<number> <unit>" with optional spaces, e.g. "450 GB/s", "400 Gb/s",
// "2.5 us", "80 GiB", "989 TFLOP/s", "54 d". Decimal prefixes are powers of 1000, binary
// ones (Ki, Mi, Gi, Ti) powers of 1024; "b" is bits, "B" bytes. Returns std::nullopt when the
// text does not parse; callers turn that into an InputError naming the JSON path.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace sim {

template <class Tag>
struct Quantity {
  double value = 0.0;
  constexpr Quantity() = default;
  constexpr explicit Quantity(double v) : value(v) {}
  constexpr Quantity operator+(Quantity o) const { return Quantity(value + o.value); }
  constexpr Quantity operator-(Quantity o) const { return Quantity(value - o.value); }
  constexpr Quantity& operator+=(Quantity o) {
    value += o.value;
    return *this;
  }
  constexpr Quantity& operator-=(Quantity o) {
    value -= o.value;
    return *this;
  }
  constexpr Quantity operator*(double k) const { return Quantity(value * k); }
  constexpr Quantity operator/(double k) const { return Quantity(value / k); }
  constexpr double operator/(Quantity o) const { return value / o.value; }
  constexpr bool operator<(Quantity o) const { return value < o.value; }
  constexpr bool operator>(Quantity o) const { return value > o.value; }
  constexpr bool operator<=(Quantity o) const { return value <= o.value; }
  constexpr bool operator>=(Quantity o) const { return value >= o.value; }
  constexpr bool operator==(Quantity o) const { return value == o.value; }
  constexpr bool operator!=(Quantity o) const { return value != o.value; }
};
template <class Tag>
constexpr Quantity<Tag> operator*(double k, Quantity<Tag> q) {
  return q * k;
}

using Seconds = Quantity<struct SecondsTag>;
using Bytes = Quantity<struct BytesTag>;
using Flops = Quantity<struct FlopsTag>;
using BytesPerSecond = Quantity<struct BytesPerSecondTag>;
using FlopsPerSecond = Quantity<struct FlopsPerSecondTag>;

constexpr Seconds operator/(Bytes b, BytesPerSecond r) { return Seconds(b.value / r.value); }
constexpr Seconds operator/(Flops f, FlopsPerSecond r) { return Seconds(f.value / r.value); }
constexpr Bytes operator*(BytesPerSecond r, Seconds t) { return Bytes(r.value * t.value); }
constexpr Flops operator*(FlopsPerSecond r, Seconds t) { return Flops(r.value * t.value); }

std::optional<Seconds> parse_seconds(std::string_view text);
std::optional<Bytes> parse_bytes(std::string_view text);
std::optional<BytesPerSecond> parse_bandwidth(std::string_view text);
std::optional<FlopsPerSecond> parse_flops_rate(std::string_view text);
std::optional<Flops> parse_flops(std::string_view text);

// Human-readable forms for the terminal summary ("1.23 s", "45.6 GiB").
std::string format_seconds(Seconds t);
std::string format_bytes(Bytes b);

}  // namespace sim
