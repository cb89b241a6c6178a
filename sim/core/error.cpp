#include "sim/core/error.hpp"

#include <cstdio>
#include <cstdlib>

#include "sim/core/text_escape.hpp"

namespace sim {

static std::string compose(const std::string& file, const std::string& path, const std::string& what,
                           const std::string& expected) {
  std::string msg = file.empty() ? std::string("<input>") : file;
  msg += ": ";
  msg += path.empty() ? std::string("/") : path;
  msg += ": " + what;
  if (!expected.empty()) msg += " (expected " + expected + ")";
  // One line, whatever the input held: control characters and bytes that are not UTF-8 escaped.
  return escape_for_terminal(msg);
}

InputError::InputError(const std::string& file, const std::string& path, const std::string& what,
                       const std::string& expected)
    : std::runtime_error(compose(file, path, what, expected)) {}

void assertion_failed(const char* cond, const char* file, int line, const std::string& msg) {
  std::fprintf(stderr, "trainsim: internal error: %s:%d: assertion '%s' failed: %s\n", file, line, cond, msg.c_str());
  std::abort();
}

}  // namespace sim
