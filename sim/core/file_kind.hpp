// What a path's st_mode says it is, for messages: "a FIFO", "a character device", ...
#pragma once

#include <sys/types.h>

#include <string>

namespace sim {

std::string file_kind(mode_t mode);

}  // namespace sim
