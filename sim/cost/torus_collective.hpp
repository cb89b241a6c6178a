// Collectives over a group laid out as a torus (issue #14), as TPU runtimes run them: dimension
// by dimension -- the 2-D torus all-reduce of TPU pods (Ying et al., "Image Classification at
// Supercomputer Scale", arXiv:1811.06992, its third optimisation), in up to three dimensions --
// each dimension a bidirectional ring along every one of its rings: half of what a chip sends goes
// one way round, half the other, so that both of its links in that dimension carry data.
//
// Members are numbered row-major in `dims` (the first dimension slowest), as torus_coords numbers
// chips (sim/topology/torus.hpp). For a buffer S (per member for all-reduce; the whole gathered
// or scattered buffer for all-gather and reduce-scatter) and sizes k_1 .. k_D:
//   reduce-scatter  phase d = 1 .. D scatters along dimension d what the phases before left,
//                   S_d = S / (k_1 ... k_{d-1}): each member sends (k_d - 1)/k_d x S_d / 2 to each
//                   of its two neighbours in dimension d (k_d = 2: one neighbour, all of it);
//   all-gather      the same phases in reverse order, from dimension D back to 1;
//   all-reduce      the reduce-scatter's phases, then the all-gather's.
// Dimensions of size 1 have no phase. The flows of a phase start together; a phase starts when
// the one before ends. On an idle regular torus of B per link and direction, phase d takes
// (k_d - 1)/k_d x S_d / (2B), twice that for k_d = 2 (both halves share its one link).
//
// The rings follow the group's coordinates. On a twisted torus the short dimensions' physical
// rings run through the +k seam (twice as long; libtpu's twisted-torus rings): not modelled yet.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/cost/collective_flows.hpp"
#include "sim/scenario/collective_names.hpp"

namespace sim {

struct TorusPhase {
  int64_t dim = 0;                // the dimension its rings run along
  std::vector<MemberFlow> flows;  // member indices, bytes each sends to that neighbour
};

// All-reduce, all-gather or reduce-scatter over a group of sizes `dims` (1 to 3 of them, each
// >= 1); std::invalid_argument for another kind or a shape outside that.
std::vector<TorusPhase> torus_collective(CollectiveKind kind, const std::vector<int64_t>& dims, Bytes buffer);

}  // namespace sim
