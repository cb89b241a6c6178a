#include "sim/core/error.hpp"

#include <cstdio>
#include <cstdlib>

namespace sim {

static std::string compose(const std::string& file, const std::string& path, const std::string& what,
                           const std::string& expected) {
  std::string msg = file.empty() ? std::string("<input>") : file;
  msg += ": ";
  msg += path.empty() ? std::string("/") : path;
  msg += ": " + what;
  if (!expected.empty()) msg += " (expected " + expected + ")";
  // One line, whatever the input held: control characters in a key or a value are escaped.
  std::string line;
  for (char c : msg) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n') line += "\\n";
    else if (c == '\t') line += "\\t";
    else if (u < 0x20 || u == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", u);
      line += hex;
    } else {
      line += c;
    }
  }
  return line;
}

InputError::InputError(const std::string& file, const std::string& path, const std::string& what,
                       const std::string& expected)
    : std::runtime_error(compose(file, path, what, expected)) {}

void assertion_failed(const char* cond, const char* file, int line, const std::string& msg) {
  std::fprintf(stderr, "trainsim: internal error: %s:%d: assertion '%s' failed: %s\n", file, line, cond,
               msg.c_str());
  std::abort();
}

}  // namespace sim
