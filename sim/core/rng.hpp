// Seeded random streams (STYLE.md §8): one master seed, one named stream per subsystem, so adding
// draws in one subsystem never shifts another's sequence. splitmix64 of (seed, hash(name)).
#pragma once

#include <cstdint>
#include <random>
#include <string_view>

#include "sim/core/fnv_hash.hpp"

namespace sim {

inline uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

inline std::mt19937_64 make_stream(uint64_t seed, std::string_view name) {
  uint64_t h = FNV_OFFSET_BASIS;
  for (char c : name) h = fnv1a(h, static_cast<unsigned char>(c));
  return std::mt19937_64(splitmix64(seed ^ splitmix64(h)));
}

}  // namespace sim
