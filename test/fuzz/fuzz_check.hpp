// Shared by the fuzz targets: what counts as a finding.
//
// Rejecting the input with a sim::InputError is the expected outcome for most fuzzed bytes, but
// the rejection must keep DESIGN.md's promise of a one-line message. Anything else thrown,
// a crash, a hang (libFuzzer -timeout) or a sanitizer report is a finding: the target aborts so
// libFuzzer saves the input (then kept in test/fuzz/regressions/<target>/).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include "sim/core/error.hpp"

namespace sim::fuzz {

[[noreturn]] inline void finding(const char* what, const char* detail) {
  std::fprintf(stderr, "fuzz finding: %s: %s\n", what, detail);
  std::abort();
}

// A property of an accepted input: a finding, naming `what` and the input, when it does not hold.
inline void check(bool ok, const char* what, const std::string& input) {
  if (!ok) finding(what, input.c_str());
}

// Runs `f`; an InputError is fine if its message is one non-empty line.
template <class F>
void expect_input_errors_only(F f) {
  try {
    f();
  } catch (const InputError& e) {
    const char* msg = e.what();
    if (*msg == '\0' || std::strchr(msg, '\n') != nullptr || std::strchr(msg, '\r') != nullptr)
      finding("InputError message is not one line", msg);
  } catch (const std::exception& e) {
    finding("exception other than InputError", e.what());
  }
}

}  // namespace sim::fuzz
