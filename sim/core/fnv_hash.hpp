// FNV-1a over 64-bit words (Fowler, Noll, Vo): the hash of the fold's signatures and shapes
// (sim/comm/ring_channels.cpp, flow_quotient.cpp) and of random streams' names (rng.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace sim {

constexpr uint64_t FNV_OFFSET_BASIS = 1469598103934665603ULL;
constexpr uint64_t FNV_PRIME = 1099511628211ULL;

inline uint64_t fnv1a(uint64_t h, uint64_t word) { return (h ^ word) * FNV_PRIME; }

// A double as a word: equal words for equal doubles (the bits, as stored).
inline uint64_t word_of(double x) {
  uint64_t w = 0;
  std::memcpy(&w, &x, sizeof w);
  return w;
}

// The hash of a vector of integer words, for unordered containers keyed by one.
struct FnvHash {
  template <class T>
  size_t operator()(const std::vector<T>& v) const {
    uint64_t h = FNV_OFFSET_BASIS;
    for (const T& x : v) h = fnv1a(h, static_cast<uint64_t>(x));
    return static_cast<size_t>(h);
  }
};

}  // namespace sim
