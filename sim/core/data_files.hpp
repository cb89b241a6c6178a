// The data files of a folder: the names (without ".json") of its JSON files, sorted, for
// listings and did-you-mean suggestions. A missing folder has none.
#pragma once

#include <string>
#include <vector>

namespace sim {

std::vector<std::string> json_names(const std::string& dir);

// Where a data file an input names may be, in the order to try: a bare NAME is
// DATA_DIR/FOLDER/NAME.json; a path (it has a '/' or ends in ".json") is itself when absolute, else
// relative to BASE_DIR (the naming file's folder; the working directory when empty) and then to
// DATA_DIR.
std::vector<std::string> data_file_candidates(const std::string& name, const std::string& folder,
                                              const std::string& data_dir, const std::string& base_dir);
// The first candidate that can be opened, "" when none can.
std::string find_data_file(const std::string& name, const std::string& folder, const std::string& data_dir,
                           const std::string& base_dir);

}  // namespace sim
