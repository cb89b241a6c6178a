// The files this process has read: every input enters through read_regular_file (params.hpp),
// which records the file here, so that no output ever replaces one of them (output_file.hpp) --
// the scenario, its `from` chain, the model, cluster and device files it names, a failure trace,
// a calibration's base profile and measurements alike.
//
// A file is identified by its device and inode, so a link, a hard link or another spelling of the
// path is the same file. The record only grows; it is per process (a forked simulation child's
// reads stay in the child, which writes no output).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace sim {

struct InputFile {
  dev_t device = 0;
  ino_t inode = 0;
  std::string path;  // as the user or the naming file gave it, for messages
};

void record_input_file(const std::string& path, dev_t device, ino_t inode);
// Every file read so far, in the order first read, each once.
const std::vector<InputFile>& input_files();

}  // namespace sim
