// The strict JSON reader: the only door through which configuration enters trainsim.
//
// A ParamReader is a view of one JSON value together with the file it came from and its JSON
// pointer (e.g. "/parallelism/tp"). Every accessor checks type, range and units and throws
// sim::InputError naming FILE and path on any problem. `expect_keys` rejects unknown keys with a
// did-you-mean suggestion, so typos never pass silently.
//
// Quantities with units are strings ("450 GB/s"); a value may also be written as
// {"value": "450 GB/s", "source": "..."} so that data files carry their provenance; the reader
// accepts both forms wherever a number or quantity is read.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/quantity_range.hpp"
#include "sim/core/units.hpp"

namespace sim {

class ParamReader {
 public:
  // Reads and parses a JSON file; throws InputError if it is missing or not valid JSON.
  static ParamReader load_file(const std::string& path);
  // Parses JSON text (for --set values and tests); `file` names it in messages.
  static ParamReader from_text(const std::string& text, const std::string& file);

  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }
  // The folder that relative names in this value are relative to: the folder of the file it came
  // from, or "" (the working directory) for a value set from the command line (with_value), as the
  // user typed it there.
  std::string directory() const;

  bool is_object() const;
  bool is_array() const;
  bool is_string() const;
  bool is_bool() const;
  bool is_number() const;
  bool is_null() const;
  bool has(const std::string& key) const;
  std::vector<std::string> keys() const;  // object keys in sorted order

  // Rejects any key not in `allowed`: "unknown key 'tpp' (did you mean 'tp'?; expected one of ...)".
  void expect_keys(std::initializer_list<const char*> allowed) const;
  void expect_keys(const std::vector<std::string>& allowed) const;
  void expect_object() const;
  // Refuses an empty object or array, which would change nothing: "is empty (expected EXPECTED)".
  void expect_not_empty(const std::string& expected) const;

  ParamReader at(const std::string& key) const;  // required key
  std::optional<ParamReader> find(const std::string& key) const;
  size_t size() const;  // array length
  ParamReader operator[](size_t i) const;

  // Scalars of this value.
  std::string as_string() const;
  bool as_bool() const;
  double as_number() const;  // finite
  // A whole number in [min, max].
  int64_t as_count(int64_t min = 1, int64_t max = INT64_MAX) const;
  double as_fraction() const;  // a number in (0, 1]
  // A fraction of a rated speed, in EFFICIENCY (quantity_range.hpp).
  double as_efficiency() const;
  // A plain number in `range`.
  double as_number_in(const QuantityRange& range) const;
  // Quantities with units, each in `range` (in SI units) where given, else in ANY_QUANTITY.
  Seconds as_seconds() const { return as_seconds(ANY_QUANTITY); }
  Seconds as_seconds(const QuantityRange& range) const;
  Bytes as_bytes() const { return as_bytes(ANY_QUANTITY); }
  Bytes as_bytes(const QuantityRange& range) const;
  BytesPerSecond as_bandwidth() const;  // always in BANDWIDTH
  FlopsPerSecond as_flops_rate() const { return as_flops_rate(ANY_QUANTITY); }
  FlopsPerSecond as_flops_rate(const QuantityRange& range) const;
  Flops as_flops() const { return as_flops(ANY_QUANTITY); }
  Flops as_flops(const QuantityRange& range) const;
  // One of `choices` (a string); the message lists them otherwise.
  std::string as_choice(std::initializer_list<const char*> choices) const;
  std::string as_choice(const std::vector<std::string>& choices) const;
  // The provenance text of a {"value", "source"} entry, "" when absent.
  std::string source() const;

  // Shorthands for at(key).as_*().
  std::string string(const std::string& key) const { return at(key).as_string(); }
  int64_t count(const std::string& key, int64_t min = 1, int64_t max = INT64_MAX) const {
    return at(key).as_count(min, max);
  }
  double number(const std::string& key) const { return at(key).as_number(); }
  bool boolean(const std::string& key) const { return at(key).as_bool(); }

  [[noreturn]] void fail(const std::string& what, const std::string& expected = "") const;

  // A copy of this object with `overlay`'s keys replacing its own (one level deep per nested
  // object, unless the overlay's names another `kind`: then it replaces the base's whole); used for
  // `"cluster": {"from": "name", "gpus": 512}` and `--set`.
  ParamReader merged_with(const ParamReader& overlay) const;
  // A copy of this object without `key`.
  ParamReader without_key(const std::string& key) const;
  // A copy of this object with the value at `dotted` ("parallelism.tp") set to `value_text` parsed as JSON
  // (or taken as a string if it is not JSON). The value comes from no file: relative names in it
  // are relative to the working directory (directory()).
  ParamReader with_value(const std::string& dotted, const std::string& value_text) const;
  // The value serialized compactly (for reports and hashing).
  std::string dump() const;

  // `set_paths`: the JSON pointers (from the file's root) of values set by with_value.
  ParamReader(std::shared_ptr<const nlohmann::json> root, const nlohmann::json* node, std::string file,
              std::string path, std::shared_ptr<const std::vector<std::string>> set_paths = nullptr);

 private:
  const nlohmann::json& value() const;  // unwraps {"value", "source"}
  std::string type_name() const;

  std::shared_ptr<const nlohmann::json> root_;
  const nlohmann::json* node_;
  std::string file_;
  std::string path_;
  std::shared_ptr<const std::vector<std::string>> set_paths_;
};

// The bytes of the regular file at `path` (stat before open: a FIFO or a device is refused), at
// most `max_bytes`; one-line InputErrors naming the file otherwise ("no such file (expected an
// existing NOUN)", "file is larger than N MiB (expected TOO_LARGE_EXPECTED)").
std::string read_regular_file(const std::string& path, size_t max_bytes, const std::string& noun,
                              const std::string& too_large_expected);

// The rule every string read through ParamReader::as_string obeys -- no NUL, no control
// character -- for text that arrives another way (a name given on the command line and written
// into a file); throws InputError naming FILE and PATH.
void check_printable(const std::string& s, const std::string& file, const std::string& path);

// The closest candidate by edit distance, or "" if none is close.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace sim
