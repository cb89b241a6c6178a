// Output files: where a report, a trace, a profile or a CSV may be written, and writing it so that
// no reader ever sees half a file and nothing but the named file is touched.
//
// An output is "-" (standard output) or a path whose target -- after following symbolic links,
// dangling ones included -- is a regular file or a new name in an existing, writable folder. A
// FIFO, a device (/dev/full, /dev/stdout on a pipe or terminal), a directory or a socket is
// refused (a FIFO would block, a device would be replaced by a file when run as root), and so is a
// folder marked append-only or immutable (a file there cannot be renamed into place). A link is
// written through: the new file replaces the link's target, and the link stays a link. An output
// may not be one of the command's inputs -- any file the process has read (input_files.hpp) --
// nor another of its outputs.
#pragma once

#include <string>
#include <vector>

namespace sim {

struct OutputArg {
  std::string option;  // "-o", "--trace": names it in messages
  std::string path;    // "" when not given
};

// Throws InputError (naming the option and path) for the first output that cannot be written
// as described above; `inputs` are files the command will read, beside those already read. Call
// after loading the inputs and before the work, so that a long run never ends in an unwritable
// path and nothing is written when an output names an input. With an output "-",
// everything else the process prints from then on goes to standard error.
void check_outputs(const std::vector<OutputArg>& outputs, const std::vector<std::string>& inputs);

// Writes `text` to `path` ("-": standard output) through a temporary file beside the target and
// a rename; an existing target keeps its permission bits. A target that is a file the process has
// read is refused, whatever check_outputs() saw. On failure (full disk, read-only
// folder) the temporary file is removed, an existing target is left as it was, and InputError is
// thrown. The temporary file is removed too when SIGINT, SIGTERM or SIGHUP stop the process
// (sim/core/interrupt.hpp).
void write_output(const std::string& path, const std::string& text);

}  // namespace sim
