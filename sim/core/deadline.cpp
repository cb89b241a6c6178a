#include "sim/core/deadline.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace sim {

Deadline::Deadline(double seconds, std::string what)
    : set_(true),
      seconds_(seconds),
      what_(std::move(what)),
      at_(std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                 std::chrono::duration<double>(std::min(seconds, 1e9)))) {}

int Deadline::remaining_ms() const {
  if (!set_) return -1;
  auto left = std::chrono::ceil<std::chrono::milliseconds>(at_ - std::chrono::steady_clock::now()).count();
  return static_cast<int>(std::clamp<decltype(left)>(left, 0, 1 << 30));
}

void Deadline::check() const {
  if (passed()) exceeded();
}

void Deadline::exceeded() const {
  throw WallTimeExceeded(fmt::format("{}: the run was stopped: it exceeded --max-wall {:g} s", what_, seconds_));
}

}  // namespace sim
