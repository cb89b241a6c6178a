// What `trainsim run` and `trainsim report` print for reports (json_report.hpp): the summary
// ("table", with colour on a terminal), the reports themselves ("json": one as written, several as
// an array), or one CSV row each ("csv", report_csv.hpp). Each report is read back through
// ParamReader and its summary rendered whatever the format, so a malformed one is one InputError
// naming its file and JSON path.
#pragma once

#include <string>
#include <vector>

namespace sim::cli {

inline const std::vector<std::string> REPORT_FORMATS = {"table", "json", "csv"};

// `texts[i]` is a report's JSON text, `files[i]` the name messages give it.
std::string report_output(const std::vector<std::string>& texts, const std::vector<std::string>& files,
                          const std::string& format);

}  // namespace sim::cli
