// The data files of a folder: the names (without ".json") of its JSON files, sorted, for
// listings and did-you-mean suggestions. A missing folder has none.
#pragma once

#include <string>
#include <vector>

namespace sim {

std::vector<std::string> json_names(const std::string& dir);

}  // namespace sim
