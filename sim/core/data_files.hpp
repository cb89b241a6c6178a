// The data files an input names, and how a name is found: a bare NAME (no '/', not ending in
// ".json") is DATA_DIR/FOLDER/NAME.json in the data folder (core/data_dir.hpp) and nowhere else; a
// path (it has a '/' or ends in ".json") is itself when absolute, else relative to the folder of
// the file that names it (for a --set value, the scenario's), then to the data folder.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace sim {

// The names (without ".json") of a folder's JSON files, sorted, for listings and did-you-mean
// suggestions. A missing folder has none.
std::vector<std::string> json_names(const std::string& dir);

// Whether `name` is a path rather than a bare name (above).
bool names_a_path(const std::string& name);
// Where a data file an input names may be, in the order to try (above). BASE_DIR is the naming
// file's folder; the working directory when empty.
std::vector<std::string> data_file_candidates(const std::string& name, const std::string& folder,
                                              const std::string& data_dir, const std::string& base_dir);
// The first candidate that can be opened, "" when none can.
std::string find_data_file(const std::string& name, const std::string& folder, const std::string& data_dir,
                           const std::string& base_dir);
// Why `name` found no file, as {what, expected} for an InputError: a bare name is an unknown NOUN
// (with a did-you-mean among FOLDER's names, and a hint when NAME.json lies in BASE_DIR, which a
// bare name does not read); a path says where it was looked for, as the user wrote it.
std::pair<std::string, std::string> missing_data_file(const std::string& name, const std::string& noun,
                                                      const std::string& folder, const std::string& data_dir,
                                                      const std::string& base_dir);

}  // namespace sim
