// Writes the measurements file of schema 1 (sim/calibrate/measurements.hpp) without a JSON
// library, so the kernel suite builds on machines with nothing but the CUDA toolkit.
//
// A Record is an ordered list of key/value pairs rendered as JSON as they are added; keys appear in
// the file in the order given. Times are written as "<number> us" with 7 significant digits
// (relative rounding error below 1e-6), plain numbers in the shortest form that reads back exactly.
// Output never depends on the locale.
//
// The file is written to "<path>.tmp" and renamed, so a run that fails leaves no partial file.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/kernels/host/stats.hpp"

namespace sim::kernels {

// JSON string literal of `text`, quotes included; control characters become \u00XX.
std::string json_quote(std::string_view text);

// "812.3451 us": a duration in seconds as microseconds with 7 significant digits.
std::string format_time(double seconds);

class Record {
 public:
  // Each adder throws std::logic_error on a key already present or a non-finite number (bugs).
  Record& text(const std::string& key, std::string_view value);
  Record& integer(const std::string& key, int64_t value);
  Record& number(const std::string& key, double value);
  Record& flag(const std::string& key, bool value);
  Record& time(const std::string& key, double seconds);
  // "time" (the median), "p10", "p90" and "reps".
  Record& timing(const Stats& s);

  bool empty() const { return fields_.empty(); }
  // {"key": value, ...} on one line.
  std::string to_json() const;

 private:
  Record& add(const std::string& key, std::string json);
  std::vector<std::pair<std::string, std::string>> fields_;  // key, rendered JSON value
};

enum class Section { GEMM, MEMORY, ATTENTION, HOST_COPY, COLLECTIVES };
const char* section_name(Section s);  // "gemm", "memory", "attention", "host_copy", "collectives"

class MeasurementWriter {
 public:
  // Must hold "gpu" and "source" (the reader requires them); checked by to_json().
  void set_provenance(Record provenance) { provenance_ = std::move(provenance); }
  // Nominal per-GPU scale-up line rate, e.g. "450 GB/s"; written only when set.
  void set_scale_up_bandwidth(std::string bandwidth) { scale_up_bandwidth_ = std::move(bandwidth); }
  void add(Section section, Record record);
  size_t size() const;

  // The whole file. Throws std::logic_error without provenance.
  std::string to_json() const;
  // Writes the file atomically (sim/core/output_file.hpp); throws sim::InputError when it cannot.
  void write(const std::string& path) const;

 private:
  Record provenance_;
  std::string scale_up_bandwidth_;
  std::vector<std::pair<Section, Record>> records_;
};

}  // namespace sim::kernels
