// Runs a function in a forked child process and returns the bytes it produced: SimGrid keeps
// global state (one engine, its clock) per process, so every simulation gets a fresh process.
#pragma once

#include <functional>
#include <string>

namespace sim {

// The child calls `work` and its return value is sent back; an exception in the child becomes a
// std::runtime_error with its message in the parent.
std::string run_in_child(const std::function<std::string()>& work);

}  // namespace sim
