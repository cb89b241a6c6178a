// The C library's allocator, set for the engine's allocation pattern.
//
// SimGrid allocates and frees a handful of small objects per simulated transfer (the activity,
// its model action, its max-min variable and elements, the simcall's observer). A full-fidelity
// step moves millions of transfers, a thousand actors at a time, so the same sizes are freed and
// allocated again in bursts of hundreds. glibc keeps 7 freed chunks per size in its per-thread
// cache by default; the rest go through the arena's bins, which took a tenth of the run
// (perf, GPT-3 175B on 1,024 A100 at full fidelity). With 2,000 per size the run takes about 20 %
// less wall time (median of 7 runs each: 16.1 s -> 12.9 s) and the same peak memory; the output is
// byte-identical (test/cli/allocator_tuning.sh).
//
// glibc reads that setting (the glibc.malloc.tcache_count tunable) from the environment once, when
// the process starts, and offers no call to change it later. So the first thing main() does is
// re-execute the program with the tunable added to GLIBC_TUNABLES, once: not when GLIBC_TUNABLES
// already sets tcache_count (the user's choice, or the re-executed process), not under Valgrind
// or a sanitizer (their allocators replace glibc's), and not when /proc/self/exe cannot be
// executed (the program then runs as it is).
#pragma once

namespace sim {

// Re-executes the program with the allocator tuned (see above), or returns and changes nothing.
// Call first in main(), before anything else has run: an exec replaces the process.
void tune_allocator(char** argv);

}  // namespace sim
