// Which library runs a run's tensor parallelism -- scenario key `parallelism.tp_library`, printed
// by `trainsim list`. Both split the same linear layers and run the same collectives (ops.cpp,
// tp_in/tp_out); they differ in the layout of the activations the sequence-parallel collectives
// gather and scatter, and so in the copies around them. Each entry states it; the ops read it.
#pragma once

#include <vector>

#include "sim/scenario/named_choice.hpp"

namespace sim {

enum class TpLibrary { MEGATRON, DTENSOR };

struct TpLibraryEntry : NamedChoice<TpLibrary> {
  // Whether each sequence-parallel collective copies the whole tensor once more, through memory:
  // an all-gather its output (read and write), a reduce-scatter its input, at the collective's
  // own bytes per element.
  bool copies_around_sequence_parallel_collectives;
};

const std::vector<TpLibraryEntry>& tp_libraries();
const TpLibraryEntry& tp_library(TpLibrary kind);

}  // namespace sim
