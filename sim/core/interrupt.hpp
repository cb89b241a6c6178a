// What an interrupted trainsim leaves behind: nothing. SIGINT, SIGTERM and SIGHUP to the process
// kill the simulation child it is waiting for (sim/engine/fork_call.cpp) and remove the temporary
// output file it is writing (sim/core/output_file.cpp), then the signal takes its default action,
// so the process ends with status 128 + signal as a shell expects (130 for Ctrl-C).
//
// The handler only reads what the functions below stored (a pid in a sig_atomic_t, a path in a
// fixed buffer) and calls async-signal-safe functions (kill, waitpid, unlink, signal, raise).
// A signal the process inherited as ignored (`nohup` ignores SIGHUP) stays ignored. One child and
// one temporary file are watched at a time: watching another replaces the first. A temporary path
// longer than PATH_MAX cannot be watched (nor created).
//
// The child dying with its parent (a SIGKILLed parent runs no handler) is the child's side:
// fork_call.cpp sets PR_SET_PDEATHSIG.
#pragma once

#include <sys/types.h>

#include <string>

namespace sim::interrupt {

// Installs the handlers; call once, early in main. Safe to call again (it then does nothing).
void install();
// In a forked child: the three signals' actions as they were before install().
void restore_defaults();

void watch_child(pid_t pid);
void forget_child();
void watch_temp_file(const std::string& path);
void forget_temp_file();

}  // namespace sim::interrupt
