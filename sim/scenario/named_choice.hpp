// A registry entry that names one variant of a scenario choice: its enum value, the name a
// scenario gives and the line `trainsim list` prints (the registries of elementwise.hpp and
// fp8_scaling.hpp; registries whose entries carry more define their own).
#pragma once

namespace sim {

template <class Kind>
struct NamedChoice {
  Kind kind;
  const char* name;
  const char* description;
};

}  // namespace sim
