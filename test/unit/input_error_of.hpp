// Test helper: the message of the sim::InputError that `f` throws; fails the test when `f` throws
// nothing or something else.
#pragma once

#include <catch2/catch.hpp>
#include <string>

#include "sim/core/error.hpp"

template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const sim::InputError& e) {
    return e.what();
  }
  FAIL("expected a sim::InputError");
  return "";
}
