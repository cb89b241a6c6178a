#include "sim/kernels/host/json_writer.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <system_error>

#include "sim/core/output_file.hpp"

namespace sim::kernels {

namespace {

constexpr Section kSections[] = {Section::GEMM, Section::MEMORY, Section::ATTENTION, Section::HOST_COPY,
                                 Section::COLLECTIVES};

std::string render(double value, int precision) {
  std::array<char, 64> buf{};
  auto res = precision > 0
                 ? std::to_chars(buf.data(), buf.data() + buf.size(), value, std::chars_format::general, precision)
                 : std::to_chars(buf.data(), buf.data() + buf.size(), value);
  if (res.ec != std::errc()) throw std::logic_error("json_writer: cannot format a number");
  return std::string(buf.data(), res.ptr);
}

}  // namespace

std::string json_quote(std::string_view text) {
  std::string out = "\"";
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20) {
          char esc[8];
          std::snprintf(esc, sizeof esc, "\\u%04x", c);
          out += esc;
        } else {
          out += ch;  // UTF-8 passes through unchanged
        }
    }
  }
  return out + "\"";
}

std::string format_time(double seconds) {
  if (!std::isfinite(seconds)) throw std::logic_error("json_writer: non-finite time");
  return render(seconds * 1e6, 7) + " us";
}

Record& Record::add(const std::string& key, std::string json) {
  for (const auto& f : fields_)
    if (f.first == key) throw std::logic_error("json_writer: key '" + key + "' added twice");
  fields_.emplace_back(key, std::move(json));
  return *this;
}

Record& Record::text(const std::string& key, std::string_view value) { return add(key, json_quote(value)); }
Record& Record::integer(const std::string& key, int64_t value) { return add(key, std::to_string(value)); }
Record& Record::flag(const std::string& key, bool value) { return add(key, value ? "true" : "false"); }
Record& Record::time(const std::string& key, double seconds) { return add(key, json_quote(format_time(seconds))); }

Record& Record::number(const std::string& key, double value) {
  if (!std::isfinite(value)) throw std::logic_error("json_writer: non-finite value for '" + key + "'");
  return add(key, render(value, 0));
}

Record& Record::timing(const Stats& s) {
  time("time", s.median);
  time("p10", s.p10);
  time("p90", s.p90);
  return integer("reps", s.reps);
}

std::string Record::to_json() const {
  std::string out = "{";
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (i) out += ", ";
    out += json_quote(fields_[i].first) + ": " + fields_[i].second;
  }
  return out + "}";
}

const char* section_name(Section s) {
  switch (s) {
    case Section::GEMM: return "gemm";
    case Section::MEMORY: return "memory";
    case Section::ATTENTION: return "attention";
    case Section::HOST_COPY: return "host_copy";
    case Section::COLLECTIVES: return "collectives";
  }
  return "?";
}

void MeasurementWriter::add(Section section, Record record) { records_.emplace_back(section, std::move(record)); }

size_t MeasurementWriter::size() const { return records_.size(); }

std::string MeasurementWriter::to_json() const {
  if (provenance_.empty()) throw std::logic_error("json_writer: no provenance");
  std::string out = "{\n  \"kind\": \"measurements\",\n  \"schema\": 1,\n";
  out += "  \"provenance\": " + provenance_.to_json();
  if (!scale_up_bandwidth_.empty()) out += ",\n  \"scale_up_bandwidth\": " + json_quote(scale_up_bandwidth_);
  for (Section s : kSections) {
    std::string list;
    for (const auto& [section, record] : records_) {
      if (section != s) continue;
      list += list.empty() ? "\n    " : ",\n    ";
      list += record.to_json();
    }
    if (!list.empty()) out += std::string(",\n  ") + json_quote(section_name(s)) + ": [" + list + "\n  ]";
  }
  return out + "\n}\n";
}

void MeasurementWriter::write(const std::string& path) const { write_output(path, to_json()); }

}  // namespace sim::kernels
