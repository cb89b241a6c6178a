// Runs a function in a forked child process and returns the bytes it produced: SimGrid keeps
// global state (one engine, its clock) per process, so every simulation gets a fresh process.
#pragma once

#include <functional>
#include <string>

#include "sim/core/deadline.hpp"

namespace sim {

// The child calls `work` and its return value is sent back; an exception in the child becomes a
// std::runtime_error with its message in the parent. When `deadline` passes first, the child is
// killed and WallTimeExceeded thrown.
std::string run_in_child(const std::function<std::string()>& work, const Deadline& deadline = {});

}  // namespace sim
