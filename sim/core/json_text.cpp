#include "sim/core/json_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/core/text_escape.hpp"

namespace sim {
namespace {

using json = nlohmann::json;

// Where a byte offset lies, for messages: "line L, column C, near '...'" quoting at most a few
// escaped characters up to the offending one (the text may be anything a user named by mistake,
// a token file included, so the line itself is never quoted).
std::string position_text(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  const auto begin = text.begin();
  const size_t line = 1 + static_cast<size_t>(std::count(begin, begin + static_cast<std::ptrdiff_t>(offset), '\n'));
  const size_t line_start = offset == 0 ? std::string_view::npos : text.rfind('\n', offset - 1);
  const size_t column = offset - (line_start == std::string_view::npos ? 0 : line_start + 1) + 1;
  std::string out = fmt::format("line {}, column {}", line, column);
  if (offset >= text.size()) return out + " (the end of the text)";
  constexpr size_t QUOTED = 6;
  const size_t from = std::max(offset + 1, QUOTED) - QUOTED;
  std::string_view before = text.substr(from, offset - from);
  const size_t nl = before.rfind('\n');
  if (nl != std::string_view::npos) before.remove_prefix(nl + 1);
  return out + ", near '" + escape_for_terminal(before) + escape_for_terminal(text.substr(offset, 1)) + "'";
}

// The first NUL byte, or the first bracket that nests deeper than MAX_JSON_DEPTH, outside strings.
std::optional<std::pair<size_t, std::string>> scan_bytes(std::string_view text) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\0') return std::make_pair(i, std::string("a NUL byte"));
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"')
      in_string = true;
    else if (c == '[' || c == '{') {
      if (++depth > MAX_JSON_DEPTH)
        return std::make_pair(i, fmt::format("arrays and objects nested more than {} deep", MAX_JSON_DEPTH));
    } else if (c == ']' || c == '}') {
      depth = std::max(0, depth - 1);  // unbalanced text is the parser's to report
    }
  }
  return std::nullopt;
}

// nlohmann's DOM builder with two refusals of its own: a key repeated in an object and more than
// MAX_JSON_VALUES values. Iterative, like nlohmann's parser: the stack holds the open containers.
class StrictDom {
 public:
  explicit StrictDom(json& root) : root_(root) {}

  bool null() { return add(nullptr) != nullptr; }
  bool boolean(bool v) { return add(v) != nullptr; }
  bool number_integer(json::number_integer_t v) { return add(v) != nullptr; }
  bool number_unsigned(json::number_unsigned_t v) { return add(v) != nullptr; }
  bool number_float(json::number_float_t v, const std::string& /*text*/) { return add(v) != nullptr; }
  bool string(std::string& v) { return add(std::move(v)) != nullptr; }
  bool binary(json::binary_t& v) { return add(std::move(v)) != nullptr; }
  bool start_object(std::size_t /*elements*/) { return open(json::object()); }
  bool start_array(std::size_t /*elements*/) { return open(json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(std::string& k) {
    if (stack_.back().node->contains(k)) {
      failure_ = Failure{pointer() + "/" + escape_pointer(k), "key '" + k + "' appears twice in this object",
                         "each key once per object"};
      return false;
    }
    key_ = std::move(k);
    return true;
  }
  bool parse_error(std::size_t position, const std::string& last_token, const nlohmann::detail::exception& e) {
    error_position_ = position;
    error_ = describe(e, last_token);
    return false;
  }

  struct Failure {
    std::string path, what, expected;
  };
  const std::optional<Failure>& failure() const { return failure_; }
  const std::optional<std::string>& error() const { return error_; }
  size_t error_position() const { return error_position_; }

 private:
  struct Open {
    json* node;
    std::string segment;  // its JSON pointer segment in the parent
  };

  json* add(json v) {
    if (++values_ > MAX_JSON_VALUES) {
      failure_ = Failure{pointer(), fmt::format("more than {} values in the document", MAX_JSON_VALUES),
                         "a configuration or data file of at most that many values"};
      return nullptr;
    }
    if (stack_.empty()) {
      root_ = std::move(v);
      segment_.clear();
      return &root_;
    }
    json& parent = *stack_.back().node;
    if (parent.is_array()) {
      parent.push_back(std::move(v));
      segment_ = std::to_string(parent.size() - 1);
      return &parent.back();
    }
    json& slot = parent[key_];
    slot = std::move(v);
    segment_ = escape_pointer(key_);
    return &slot;
  }
  bool open(json v) {
    json* node = add(std::move(v));
    if (node == nullptr) return false;
    stack_.push_back({node, segment_});
    return true;
  }
  bool close() {
    stack_.pop_back();
    return true;
  }
  std::string pointer() const {
    std::string out;
    for (size_t i = 1; i < stack_.size(); ++i) out += "/" + stack_[i].segment;
    return out;
  }
  // nlohmann's message without its prefix and without the token it quotes ("last read: '...'").
  static std::string describe(const nlohmann::detail::exception& e, const std::string& token) {
    if (e.id == 406) return "a number too large for a double";
    std::string what = e.what();
    const size_t column = what.find(", column ");
    const size_t colon = column == std::string::npos ? what.find("] ") : what.find(": ", column);
    if (colon != std::string::npos) what.erase(0, colon + 2);
    const std::string quoted = "; last read: '" + token + "'";
    const size_t at = what.find(quoted);
    if (at != std::string::npos) what.erase(at, quoted.size());
    return what;
  }

  json& root_;
  std::vector<Open> stack_;
  std::string key_, segment_;
  size_t values_ = 0;
  std::optional<Failure> failure_;
  std::optional<std::string> error_;
  size_t error_position_ = 0;
};

}  // namespace

std::string escape_pointer(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

json parse_json_text(std::string_view text, const std::string& file) {
  if (auto bad = scan_bytes(text))
    throw InputError(file, "", "invalid JSON at " + position_text(text, bad->first) + ": " + bad->second,
                     "a JSON document");
  json root;
  StrictDom dom(root);
  const bool ok = json::sax_parse(text, &dom, json::input_format_t::json, /*strict=*/true);
  if (const auto& f = dom.failure()) throw InputError(file, f->path, f->what, f->expected);
  if (const auto& e = dom.error())
    throw InputError(
        file, "",
        "invalid JSON at " + position_text(text, dom.error_position() == 0 ? 0 : dom.error_position() - 1) + ": " + *e,
        "a valid JSON document");
  SIM_ASSERT(ok, "the JSON parser stopped without saying why");
  return root;
}

}  // namespace sim
