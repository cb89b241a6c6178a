#include "sim/core/params.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <locale>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/core/error.hpp"
#include "sim/core/file_kind.hpp"
#include "sim/core/input_files.hpp"
#include "sim/core/json_text.hpp"
#include "sim/core/text_escape.hpp"

namespace sim {

using json = nlohmann::json;

namespace {

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

bool is_wrapped(const json& j) {
  return j.is_object() && j.contains("value") && j.size() <= 2 && (j.size() == 1 || j.contains("source"));
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out;
}

// A configuration or data file larger than this is not one (the largest shipped: 235 KB).
constexpr size_t MAX_FILE_BYTES = size_t{64} << 20;

std::string fmt_number_text(double v) {
  std::ostringstream os;
  os.imbue(std::locale::classic());
  os << v;
  return os.str();
}

}  // namespace

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = SIZE_MAX;
  for (const auto& c : candidates) {
    size_t d = edit_distance(word, c);
    if (d < best_d) best_d = d, best = c;
  }
  return best_d <= std::max<size_t>(2, word.size() / 3) ? best : std::string();
}

ParamReader::ParamReader(std::shared_ptr<const json> root, const json* node, std::string file, std::string path,
                         std::shared_ptr<const std::vector<std::string>> set_paths)
    : root_(std::move(root)),
      node_(node),
      file_(std::move(file)),
      path_(std::move(path)),
      set_paths_(std::move(set_paths)) {}

std::string read_regular_file(const std::string& path, size_t max_bytes, const std::string& noun,
                              const std::string& too_large_expected) {
  // Only regular files: a FIFO with no writer would block open() forever, and a device (/dev/zero,
  // a terminal) never ends or blocks. The check follows links, so a link to a file is read.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) throw InputError(path, "", "no such file", "an existing " + noun);
    throw InputError(path, "", std::string("cannot access the file: ") + std::strerror(errno), "a readable " + noun);
  }
  if (!S_ISREG(st.st_mode))
    throw InputError(path, "", "is " + file_kind(st.st_mode) + ", not a regular file", "a " + noun);
  // O_NONBLOCK: should the path have been swapped for a FIFO since the check, open() still
  // returns at once (and the read finds no data).
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    throw InputError(path, "", std::string("cannot open the file: ") + std::strerror(errno), "a readable " + noun);
  // The file opened, which may not be the one stat() saw: that one is what no output may replace.
  struct stat opened {};
  if (::fstat(fd, &opened) == 0) record_input_file(path, opened.st_dev, opened.st_ino);
  // Read in bounded pieces rather than trusting the size, which may change while reading.
  std::string text;
  char buf[1 << 16];
  bool ok = true;
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) ok = false;
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
    if (text.size() > max_bytes) {
      ::close(fd);
      throw InputError(path, "", fmt::format("file is larger than {} MiB", max_bytes >> 20), too_large_expected);
    }
  }
  ::close(fd);
  if (!ok) throw InputError(path, "", "cannot read the file", "a readable " + noun);
  return text;
}

ParamReader ParamReader::load_file(const std::string& path) {
  return from_text(read_regular_file(path, MAX_FILE_BYTES, "JSON file", "a JSON configuration or data file"), path);
}

ParamReader ParamReader::from_text(const std::string& text, const std::string& file) {
  auto root = std::make_shared<json>(parse_json_text(text, file));
  const json* node = root.get();
  return ParamReader(std::move(root), node, file, "");
}

std::string ParamReader::directory() const {
  // A value set from the command line, or one inside it: "" (the working directory).
  if (set_paths_)
    for (const auto& p : *set_paths_)
      if (path_.compare(0, p.size(), p) == 0 && (path_.size() == p.size() || path_[p.size()] == '/')) return "";
  auto slash = file_.find_last_of('/');
  return slash == std::string::npos ? std::string(".") : file_.substr(0, slash);
}

const json& ParamReader::value() const { return is_wrapped(*node_) ? (*node_)["value"] : *node_; }

std::string ParamReader::type_name() const { return value().type_name(); }

bool ParamReader::is_object() const { return value().is_object(); }
bool ParamReader::is_array() const { return value().is_array(); }
bool ParamReader::is_string() const { return value().is_string(); }
bool ParamReader::is_bool() const { return value().is_boolean(); }
bool ParamReader::is_number() const { return value().is_number(); }
bool ParamReader::is_null() const { return value().is_null(); }

bool ParamReader::has(const std::string& key) const { return value().is_object() && value().contains(key); }

std::vector<std::string> ParamReader::keys() const {
  std::vector<std::string> out;
  if (!value().is_object()) return out;
  for (auto it = value().begin(); it != value().end(); ++it) out.push_back(it.key());
  std::sort(out.begin(), out.end());
  return out;
}

void ParamReader::fail(const std::string& what, const std::string& expected) const {
  throw InputError(file_, path_, what, expected);
}

void ParamReader::expect_object() const {
  if (!value().is_object()) fail("is " + type_name(), "an object");
}

void ParamReader::expect_not_empty(const std::string& expected) const {
  if ((value().is_object() || value().is_array()) && value().empty())
    fail(std::string("is an empty ") + (value().is_object() ? "object" : "array") + ", which would change nothing",
         expected);
}

void ParamReader::expect_keys(std::initializer_list<const char*> allowed) const {
  expect_keys(std::vector<std::string>(allowed.begin(), allowed.end()));
}

void ParamReader::expect_keys(const std::vector<std::string>& names) const {
  expect_object();
  for (const auto& key : keys()) {
    if (std::find(names.begin(), names.end(), key) != names.end()) continue;
    std::string guess = did_you_mean(key, names);
    std::string what = "unknown key " + quote_value(key);
    if (!guess.empty()) what += " (did you mean '" + guess + "'?)";
    auto sorted = names;
    std::sort(sorted.begin(), sorted.end());
    throw InputError(file_, path_ + "/" + escape_pointer(key), what, "one of " + join(sorted));
  }
}

ParamReader ParamReader::at(const std::string& key) const {
  expect_object();
  auto it = value().find(key);
  if (it == value().end()) throw InputError(file_, path_ + "/" + escape_pointer(key), "missing required key");
  return ParamReader(root_, &*it, file_, path_ + "/" + escape_pointer(key), set_paths_);
}

std::optional<ParamReader> ParamReader::find(const std::string& key) const {
  if (!value().is_object()) return std::nullopt;
  auto it = value().find(key);
  if (it == value().end()) return std::nullopt;
  return ParamReader(root_, &*it, file_, path_ + "/" + escape_pointer(key), set_paths_);
}

size_t ParamReader::size() const {
  if (!value().is_array()) fail("is " + type_name(), "an array");
  return value().size();
}

ParamReader ParamReader::operator[](size_t i) const {
  if (i >= size()) fail("index " + std::to_string(i) + " out of range");
  return ParamReader(root_, &value()[i], file_, path_ + "/" + std::to_string(i), set_paths_);
}

std::string ParamReader::as_string() const {
  if (!value().is_string()) fail("is " + type_name(), "a string");
  std::string s = value().get<std::string>();
  check_printable(s, file_, path_);
  return s;
}

void check_printable(const std::string& s, const std::string& file, const std::string& path) {
  // Every string trainsim reads is a name, a path or a choice, and may be printed: a NUL would cut
  // it in every C call it reaches, other control characters would reach the terminal.
  if (s.find('\0') != std::string::npos)
    throw InputError(file, path, "contains a NUL character (\\u0000)", "a string without NUL characters");
  if (escape_for_terminal(s) != s)
    throw InputError(file, path, quote_value(s) + " contains a control character",
                     "printable text (no \\n, \\t, \\u001b ...)");
}

bool ParamReader::as_bool() const {
  if (!value().is_boolean()) fail("is " + type_name(), "true or false");
  return value().get<bool>();
}

double ParamReader::as_number() const {
  if (!value().is_number()) fail("is " + type_name(), "a number");
  double v = value().get<double>();
  if (!std::isfinite(v)) fail("is not a finite number", "a number");
  return v;
}

int64_t ParamReader::as_count(int64_t min, int64_t max) const {
  const json& v = value();
  std::string range = max == INT64_MAX ? "a whole number >= " + std::to_string(min)
                                       : "a whole number in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  if (!v.is_number()) fail("is " + type_name(), range);
  // A JSON integer is read exactly (the parser keeps it as int64 or uint64): no rounding through
  // double, where 9007199254740993 is 2^53 and 2^62 - 1 is 2^62.
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(max) || (min > 0 && u < static_cast<uint64_t>(min)))
      fail(std::to_string(u) + " is out of range", range);
    return static_cast<int64_t>(u);
  }
  if (v.is_number_integer()) {
    const int64_t i = v.get<int64_t>();
    if (i < min || i > max) fail(std::to_string(i) + " is out of range", range);
    return i;
  }
  double d = v.get<double>();
  if (!std::isfinite(d) || std::floor(d) != d) fail("is not a whole number", range);
  if (d < static_cast<double>(min) || d > static_cast<double>(max))
    fail(fmt_number_text(d) + " is out of range", range);
  // Written with a fraction or an exponent ("1e3", "5.0"), it went through a double, which holds
  // every whole number only below 2^53: from there on the text may have named a neighbour
  // (9.007199254740993e15 reads as 2^53).
  if (std::fabs(d) >= 0x1p53)
    fail(fmt_number_text(d) +
             " is a whole number of 2^53 or more written as a decimal fraction or exponent, which a "
             "double cannot hold exactly",
         range + ", written as digits only");
  return static_cast<int64_t>(d);
}

double ParamReader::as_fraction() const {
  double v = as_number();
  if (!(v > 0.0 && v <= 1.0)) fail(fmt_number_text(v) + " is out of range", "a number in (0, 1]");
  return v;
}

double ParamReader::as_efficiency() const { return as_number_in(EFFICIENCY); }

double ParamReader::as_number_in(const QuantityRange& range) const {
  const double v = as_number();
  if (!range.contains(v))
    fail(fmt_number_text(v) + " is out of range",
         range.expected ? range.expected : fmt::format("a number from {:g} to {:g}", range.min, range.max));
  return v;
}

template <class Q, class Parse>
static Q parse_positive(const ParamReader& r, const json& v, Parse parse, const char* example, const char* unit,
                        const QuantityRange& range) {
  std::string expected = std::string("a positive quantity with a unit, e.g. \"") + example + "\"";
  if (!v.is_string()) r.fail("is " + std::string(v.type_name()), expected);
  const std::string text = v.get<std::string>();
  auto q = parse(text);
  if (!q) r.fail(quote_value(text) + " does not parse", expected);
  if (!(q->value > 0.0)) r.fail(quote_value(text) + " is not positive", expected);
  if (!range.contains(q->value))
    r.fail(
        quote_value(text) + " is out of range",
        range.expected ? range.expected : fmt::format("a quantity from {:g} to {:g} {}", range.min, range.max, unit));
  return *q;
}

Seconds ParamReader::as_seconds(const QuantityRange& range) const {
  return parse_positive<Seconds>(*this, value(), parse_seconds, "2.5 us", "s", range);
}
Bytes ParamReader::as_bytes(const QuantityRange& range) const {
  return parse_positive<Bytes>(*this, value(), parse_bytes, "80 GiB", "B", range);
}
BytesPerSecond ParamReader::as_bandwidth() const {
  return parse_positive<BytesPerSecond>(*this, value(), parse_bandwidth, "400 Gb/s", "B/s", BANDWIDTH);
}
FlopsPerSecond ParamReader::as_flops_rate(const QuantityRange& range) const {
  return parse_positive<FlopsPerSecond>(*this, value(), parse_flops_rate, "989 TFLOP/s", "FLOP/s", range);
}
Flops ParamReader::as_flops(const QuantityRange& range) const {
  return parse_positive<Flops>(*this, value(), parse_flops, "5 GFLOP", "FLOP", range);
}

std::string ParamReader::as_choice(std::initializer_list<const char*> choices) const {
  return as_choice(std::vector<std::string>(choices.begin(), choices.end()));
}

std::string ParamReader::as_choice(const std::vector<std::string>& names) const {
  std::string expected = "one of " + join(names);
  if (!value().is_string()) fail("is " + type_name(), expected);
  std::string s = value().get<std::string>();
  if (std::find(names.begin(), names.end(), s) != names.end()) return s;
  std::string guess = did_you_mean(s, names);
  fail(quote_value(s) + " is not known" + (guess.empty() ? "" : " (did you mean '" + guess + "'?)"), expected);
}

std::string ParamReader::source() const {
  if (is_wrapped(*node_) && node_->contains("source") && (*node_)["source"].is_string())
    return (*node_)["source"].get<std::string>();
  return "";
}

ParamReader ParamReader::merged_with(const ParamReader& overlay) const {
  auto root = std::make_shared<json>(value());
  for (auto it = overlay.value().begin(); it != overlay.value().end(); ++it) {
    // An object of another kind ({"kind": "ocs"} over a fat-tree's) replaces the base's whole:
    // the keys of one kind mean nothing to another.
    const auto kind_changes = [&](const json& base) {
      return it->contains("kind") && base.contains("kind") && (*it)["kind"] != base["kind"];
    };
    if (it->is_object() && root->contains(it.key()) && (*root)[it.key()].is_object() && !is_wrapped(*it) &&
        !kind_changes((*root)[it.key()]))
      (*root)[it.key()].update(*it);
    else
      (*root)[it.key()] = *it;
  }
  const json* node = root.get();
  return ParamReader(std::move(root), node, overlay.file_, overlay.path_, overlay.set_paths_);
}

ParamReader ParamReader::with_value(const std::string& dotted, const std::string& value_text) const {
  if (size_t bad = invalid_utf8_offset(value_text); bad != std::string::npos)
    throw InputError("--set", "/" + escape_pointer(dotted),
                     "the value is not valid UTF-8 (byte " + std::to_string(bad) + ")", "UTF-8 text");
  if (value_text.find('\0') != std::string::npos)
    throw InputError("--set", "/" + escape_pointer(dotted), "the value contains a NUL byte", "text without NUL bytes");
  if (std::count(dotted.begin(), dotted.end(), '.') >= MAX_JSON_DEPTH)
    throw InputError("--set", "", "the path has more than " + std::to_string(MAX_JSON_DEPTH) + " parts",
                     "a dotted path into the scenario, e.g. parallelism.tp");
  auto root = std::make_shared<json>(*node_);  // this object, wherever it sits in its file
  json parsed;
  // Text that starts like a JSON array, object or string is JSON and must parse as such; any
  // other text that does not parse (a bare word, a number out of range) is taken as a string.
  const size_t first = value_text.find_first_not_of(" \t\r\n");
  const bool looks_json = first != std::string::npos && std::strchr("[{\"", value_text[first]) != nullptr;
  try {
    parsed = parse_json_text(value_text, "--set " + dotted);
  } catch (const InputError&) {
    if (looks_json) throw;
    parsed = value_text;
  }
  json* cur = root.get();
  std::string pointer;
  size_t start = 0;
  while (true) {
    size_t dot = dotted.find('.', start);
    std::string part = dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    pointer += "/" + escape_pointer(part);
    if (part.empty() || !cur->is_object())
      throw InputError("--set", pointer, "cannot set " + quote_value(dotted),
                       "a dotted path into objects, e.g. parallelism.tp");
    if (dot == std::string::npos) {
      (*cur)[part] = parsed;
      break;
    }
    if (!cur->contains(part)) (*cur)[part] = json::object();
    cur = &(*cur)[part];
    start = dot + 1;
  }
  auto set_paths = std::make_shared<std::vector<std::string>>();
  if (set_paths_) *set_paths = *set_paths_;
  set_paths->push_back(path_ + pointer);
  const json* node = root.get();
  return ParamReader(std::move(root), node, file_, path_, std::move(set_paths));
}

ParamReader ParamReader::without_key(const std::string& key) const {
  auto root = std::make_shared<json>(value());
  root->erase(key);
  const json* node = root.get();
  return ParamReader(std::move(root), node, file_, path_, set_paths_);
}

std::string ParamReader::dump() const { return node_->dump(); }

}  // namespace sim
