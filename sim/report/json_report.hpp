// Writers for a run: the JSON report (DESIGN.md "Report"), the Chrome/Perfetto trace of one step
// (one track per simulated rank class; open at ui.perfetto.dev) and the terminal summary. Numbers
// are written locale-free with fixed formatting, so the same run gives the same bytes.
#pragma once

#include <string>

namespace sim {

struct RunResult;

std::string report_json(const RunResult& r);
std::string trace_json(const RunResult& r);
std::string summary_text(const RunResult& r);

// Writes `text` to `path` through a temporary file beside it and a rename, so a reader never sees
// a truncated file; throws InputError when the path cannot be written. A failed write removes its
// temporary file and leaves an existing `path` as it was (only a process killed between the two
// steps leaves a `path.tmp.PID.N` behind). A path that is not a regular file (a pipe,
// /dev/stdout) is written in place.
void write_file_atomic(const std::string& path, const std::string& text);

}  // namespace sim
