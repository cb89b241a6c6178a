#include "sim/report/report_csv.hpp"

#include <map>
#include <utility>

namespace sim {
namespace {

using ojson = nlohmann::ordered_json;

// The scalar leaves of `v` under `prefix`, in order.
void flatten(const ojson& v, const std::string& prefix, std::vector<std::pair<std::string, const ojson*>>& out) {
  if (v.is_object()) {
    for (const auto& [key, child] : v.items()) flatten(child, prefix.empty() ? key : prefix + "." + key, out);
  } else if (!v.is_array()) {
    out.emplace_back(prefix, &v);
  }
}

std::string cell(const ojson& v) {
  if (v.is_null()) return "";
  const std::string text = v.is_string() ? v.get<std::string>() : v.dump();
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string line(const std::vector<std::string>& cells) {
  std::string out;
  for (size_t i = 0; i < cells.size(); ++i) out += (i ? "," : "") + cells[i];
  return out + "\n";
}

}  // namespace

std::string reports_csv(const std::vector<ojson>& reports) {
  std::vector<std::vector<std::pair<std::string, const ojson*>>> rows(reports.size());
  std::vector<std::string> columns;
  std::map<std::string, size_t> column_of;
  for (size_t i = 0; i < reports.size(); ++i) {
    flatten(reports[i], "", rows[i]);
    for (const auto& [name, value] : rows[i])
      if (column_of.emplace(name, columns.size()).second) columns.push_back(name);
  }
  std::string out = line(columns);
  for (const auto& row : rows) {
    std::vector<std::string> cells(columns.size());
    for (const auto& [name, value] : row) cells[column_of.at(name)] = cell(*value);
    out += line(cells);
  }
  return out;
}

}  // namespace sim
