// Shared by the fuzz targets that read their bytes as numbers rather than text: `Draw` takes small
// numbers, flags and choices from the bytes in order (zeros once they run out), and `fnv1a` hashes
// all of them, to choose what draws no byte (so that a seed keeps its meaning when a target draws
// more than it once did).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace sim::fuzz {

class Draw {
 public:
  Draw(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  uint64_t bytes(int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v = (v << 8) | (pos_ < size_ ? data_[pos_++] : 0);
    return v;
  }
  int64_t in(int64_t lo, int64_t hi) {  // uniform-ish in [lo, hi], hi - lo < 2^16
    const uint64_t range = static_cast<uint64_t>(hi - lo) + 1;
    return lo + static_cast<int64_t>(bytes(range <= 256 ? 1 : 2) % range);
  }
  bool flag() { return bytes(1) & 1; }
  template <class T>
  const T& pick(const std::vector<T>& choices) {
    return choices[static_cast<size_t>(in(0, static_cast<int64_t>(choices.size()) - 1))];
  }
  // A JSON number well outside the usual ranges: huge, negative, fractional or an edge value.
  std::string wild() {
    switch (in(0, 5)) {
      case 0: return std::to_string(static_cast<int64_t>(bytes(8)));
      case 1: return std::to_string(bytes(8) >> in(0, 63));
      case 2: return std::to_string(int64_t{1} << in(0, 62));
      case 3: return "1e" + std::to_string(in(0, 320));
      case 4: return std::to_string(in(0, 65535)) + ".5";
      default: return std::to_string(-in(0, 65535));
    }
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

inline uint64_t fnv1a(const uint8_t* data, size_t size) {
  uint64_t hash = 1469598103934665603ull;
  for (size_t i = 0; i < size; ++i) hash = (hash ^ data[i]) * 1099511628211ull;
  return hash;
}

}  // namespace sim::fuzz
