// Launch geometry of the row kernels (norms, softmax): one block per row, each thread holding up
// to kRowVecs 16-byte vectors of the row, at most kRowThreadsMax threads. 512 x 4 x 8 covers
// kMaxRowHidden = 16384.
#pragma once

#include <algorithm>
#include <cstdint>

namespace sim::kernels {

constexpr int kRowVecs = 4;
constexpr int kRowThreadsMax = 512;

// Threads for a row of `hidden` bf16 elements: enough warps for hidden/8 vectors at kRowVecs each.
inline unsigned row_threads(int64_t hidden) {
  const int64_t vecs = hidden / 8;
  const int64_t threads = (vecs + kRowVecs - 1) / kRowVecs;
  return static_cast<unsigned>(std::clamp<int64_t>((threads + 31) / 32 * 32, 32, kRowThreadsMax));
}

}  // namespace sim::kernels
