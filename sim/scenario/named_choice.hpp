// A registry entry that names one variant of a scenario choice: its enum value, the name a
// scenario gives and the line `trainsim list` prints (the registries of elementwise.hpp and
// fp8_scaling.hpp; tp_library.hpp's entries extend it; others define their own), and the lookup
// of any registry's entry by its kind.
#pragma once

#include "sim/core/error.hpp"

namespace sim {

template <class Kind>
struct NamedChoice {
  Kind kind;
  const char* name;
  const char* description;
};

// The entry of a registry (a vector of entries with a `kind`) for `kind`: every kind has one.
template <class Entries, class Kind>
const auto& registry_entry(const Entries& entries, Kind kind) {
  for (const auto& e : entries)
    if (e.kind == kind) return e;
  SIM_ASSERT(false, "every kind has a registry entry");
  return entries.front();
}

}  // namespace sim
