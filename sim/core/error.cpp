#include "sim/core/error.hpp"

#include <cstdio>
#include <cstdlib>

#include "sim/core/text_escape.hpp"

namespace sim {

// Each part's bound, in bytes: a file name or JSON path is a few dozen characters, a list of
// valid keys or names a few hundred; what passes a bound came from the input (a 1 MB key, a 100 kB
// path) and is cut, so that the error stays one readable line.
constexpr size_t MAX_NAME = 300, MAX_TEXT = 1500;

static std::string compose(const std::string& file, const std::string& path, const std::string& what,
                           const std::string& expected) {
  // One line, whatever the input held: control characters and bytes that are not UTF-8 escaped.
  std::string msg = file.empty() ? std::string("<input>") : bounded(file, MAX_NAME);
  msg += ": ";
  msg += path.empty() ? std::string("/") : bounded(path, MAX_NAME);
  msg += ": " + bounded(what, MAX_TEXT);
  if (!expected.empty()) msg += " (expected " + bounded(expected, MAX_TEXT) + ")";
  return msg;
}

InputError::InputError(const std::string& file, const std::string& path, const std::string& what,
                       const std::string& expected)
    : std::runtime_error(compose(file, path, what, expected)) {}

void assertion_failed(const char* cond, const char* file, int line, const std::string& msg) {
  std::fprintf(stderr, "trainsim: internal error: %s:%d: assertion '%s' failed: %s\n", file, line, cond, msg.c_str());
  std::abort();
}

}  // namespace sim
