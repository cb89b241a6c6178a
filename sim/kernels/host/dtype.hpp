// Host-side decoding of the narrow floating-point formats the suite reads back from the GPU, so
// references can be computed from exactly the values the kernels saw.
//
// bf16: 1 sign, 8 exponent, 7 mantissa bits, the top half of an IEEE float.
// fp8 E4M3 (OCP "e4m3fn"): 1 sign, 4 exponent (bias 7), 3 mantissa bits; no infinities;
// S.1111.111 is NaN; largest finite value 448; subnormals m/8 * 2^-6.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace sim::kernels {

inline float bf16_to_float(uint16_t bits) {
  const uint32_t u = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// Round to nearest even; NaN stays NaN.
inline uint16_t float_to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if (std::isnan(f)) return static_cast<uint16_t>((u >> 16) | 0x40);
  u += 0x7fff + ((u >> 16) & 1);
  return static_cast<uint16_t>(u >> 16);
}

inline float fp8_e4m3_to_float(uint8_t bits) {
  const bool negative = bits & 0x80;
  const int exponent = (bits >> 3) & 0xf;
  const int mantissa = bits & 0x7;
  if (exponent == 0xf && mantissa == 0x7) return std::numeric_limits<float>::quiet_NaN();
  const float magnitude = exponent == 0 ? std::ldexp(static_cast<float>(mantissa) / 8.0f, -6)
                                        : std::ldexp(1.0f + static_cast<float>(mantissa) / 8.0f, exponent - 7);
  return negative ? -magnitude : magnitude;
}

}  // namespace sim::kernels
