// Collectives over a group laid out as a torus, as TPU runtimes run them: dimension
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
// As one operation (torus_collective_flows), the group's D dimensions of more than one member are
// kept busy at once: the buffer splits into D parts, part j taking the phases from dimension j on,
// wrapping round, and the parts' phases are pipelined by chunks, so every part's flows start
// together (as the hierarchical algorithm's phases, collective_flows.hpp). On an idle k x ... x k
// torus (k > 2) of B per link and direction every link then carries the same bytes, and an all-reduce
// takes 2(N-1)/N x S / (2 D B): what each chip must send, over its 2D links -- the bandwidth
// bound. (The exact schedule TPU runtimes use is not published; any schedule that meets the bound
// prices the same.)
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

// The collective as one operation: the D parts' phases all started together, one flow per
// (sender, receiver) with their bytes summed.
std::vector<MemberFlow> torus_collective_flows(CollectiveKind kind, const std::vector<int64_t>& dims, Bytes buffer);

// Its steps, each a latency term: k_d - 1 per dimension for a reduce-scatter or all-gather, twice
// that for an all-reduce (the parts run their steps side by side).
int64_t torus_steps(CollectiveKind kind, const std::vector<int64_t>& dims);

}  // namespace sim
