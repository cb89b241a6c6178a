// `trainsim report FILE... [--format table|json|csv]`: reprints saved reports.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "sim/cli/commands.hpp"
#include "sim/cli/options.hpp"
#include "sim/cli/report_output.hpp"
#include "sim/core/error.hpp"
#include "sim/core/params.hpp"
#include "sim/report/report_csv.hpp"
#include "sim/report/summary.hpp"

namespace sim::cli {

// Reports are small (a 16-stage run writes 6 KB); a larger file is not one.
constexpr size_t MAX_REPORT_BYTES = size_t{64} << 20;

std::string report_output(const std::vector<std::string>& texts, const std::vector<std::string>& files,
                          const std::string& format) {
  const bool colour = format == "table" && stdout_colour();
  std::vector<nlohmann::ordered_json> docs;
  std::string table;
  for (size_t i = 0; i < texts.size(); ++i) {
    const ParamReader r = ParamReader::from_text(texts[i], files[i]);  // checks the text, names the file
    if (!r.is_object() || !r.has("step_time_s") || !r.has("breakdown"))
      r.fail("is not a trainsim report", "the JSON that trainsim run -o writes");
    table += (i ? "\n" : "") + summary_text(r, colour);
    docs.push_back(nlohmann::ordered_json::parse(texts[i]));  // the text passed the checked parser above
  }
  if (format == "json") return (docs.size() == 1 ? docs.front() : nlohmann::ordered_json(docs)).dump(2) + "\n";
  if (format == "csv") return reports_csv(docs);
  return table;
}

int report(const std::vector<std::string>& files, const std::string& format) {
  std::vector<std::string> texts;
  for (const auto& f : files)
    texts.push_back(read_regular_file(f, MAX_REPORT_BYTES, "report", "a report written by trainsim run -o"));
  std::fputs(report_output(texts, files, format).c_str(), stdout);
  return 0;
}

}  // namespace sim::cli
