#include "sim/core/text_escape.hpp"

#include <cstdio>

// No fmt here: the kernel suite, built on GPU machines with the CUDA toolkit alone, compiles this
// file with the output writer (sim/kernels/CMakeLists.txt).
namespace sim {
namespace {

std::string hex_escape(const char* form, unsigned value) {
  char buf[8];
  std::snprintf(buf, sizeof buf, form, value);
  return buf;
}

// Length of the well-formed UTF-8 sequence at s[i] (1-4), or 0 when there is none (RFC 3629
// Table 3: the second byte's range depends on the first, which rules out overlong forms,
// surrogates and code points past U+10FFFF).
size_t utf8_sequence(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  if (c < 0x80) return 1;
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF)
    n = 2;
  else if (c == 0xE0)
    n = 3, lo = 0xA0;
  else if (c >= 0xE1 && c <= 0xEC)
    n = 3;
  else if (c == 0xED)
    n = 3, hi = 0x9F;
  else if (c >= 0xEE && c <= 0xEF)
    n = 3;
  else if (c == 0xF0)
    n = 4, lo = 0x90;
  else if (c >= 0xF1 && c <= 0xF3)
    n = 4;
  else if (c == 0xF4)
    n = 4, hi = 0x8F;
  else
    return 0;
  if (i + n > s.size()) return 0;
  if (b(1) < lo || b(1) > hi) return 0;
  for (size_t k = 2; k < n; ++k)
    if (b(k) < 0x80 || b(k) > 0xBF) return 0;
  return n;
}

}  // namespace

size_t invalid_utf8_offset(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8_sequence(s, i);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

std::string escape_for_terminal(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8_sequence(s, i);
    const auto c = static_cast<unsigned char>(s[i]);
    if (n == 0) {
      out += hex_escape("\\x%02X", c);
      i += 1;
      continue;
    }
    if (n == 1) {
      if (c == '\n')
        out += "\\n";
      else if (c == '\r')
        out += "\\r";
      else if (c == '\t')
        out += "\\t";
      else if (c < 0x20 || c == 0x7F)
        out += hex_escape("\\x%02X", c);
      else
        out += static_cast<char>(c);
    } else if (n == 2 && c == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0) {
      out += hex_escape("\\u%04X", static_cast<unsigned char>(s[i + 1]));  // C1 controls U+0080-U+009F
    } else {
      out.append(s.substr(i, n));
    }
    i += n;
  }
  return out;
}

namespace {

// The length of the longest prefix of `s` of at most `max` bytes that ends between UTF-8 sequences.
size_t utf8_prefix(std::string_view s, size_t max) {
  if (s.size() <= max) return s.size();
  size_t n = max;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return n;
}

}  // namespace

std::string quote_value(std::string_view s) {
  if (s.size() <= QUOTED_MAX) return "'" + escape_for_terminal(s) + "'";
  return "'" + escape_for_terminal(s.substr(0, utf8_prefix(s, QUOTED_MAX))) + "...' (" + std::to_string(s.size()) +
         " bytes)";
}

std::string bounded(std::string_view s, size_t max) {
  if (s.size() <= max) return escape_for_terminal(s);
  const size_t head = utf8_prefix(s, max / 2);
  size_t tail_from = s.size() - max / 2;
  while (tail_from < s.size() && (static_cast<unsigned char>(s[tail_from]) & 0xC0) == 0x80) ++tail_from;
  return escape_for_terminal(s.substr(0, head)) + "... (" + std::to_string(s.size()) + " bytes) ..." +
         escape_for_terminal(s.substr(tail_from));
}

}  // namespace sim
