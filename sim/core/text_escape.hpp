// Text from users, made safe to print: a message that quotes a file's content or a name must stay
// one line and must not send control sequences to the terminal.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace sim {

// Offset of the first byte that does not start a well-formed UTF-8 sequence (RFC 3629: no
// overlong forms, no surrogates, nothing past U+10FFFF), or std::string_view::npos.
size_t invalid_utf8_offset(std::string_view s);

// `s` with control characters (C0, DEL, C1) and bytes that are not well-formed UTF-8 escaped
// (\n, \t, \r, \\xNN, \\u0085 ...); other text, including well-formed non-ASCII, is kept.
std::string escape_for_terminal(std::string_view s);

// `s` in single quotes for a message, escaped as above and cut to its first QUOTED_MAX characters
// (whole UTF-8 sequences) with its length when longer: "'abc...' (1048576 bytes)". A value the user
// typed is quoted so; a megabyte key or path never floods the one-line error.
constexpr size_t QUOTED_MAX = 100;
std::string quote_value(std::string_view s);

// `s` escaped, and when longer than `max` bytes its head and tail around "... (N bytes) ...": the
// parts of an error line (file, JSON path, what, expected) are bounded so.
std::string bounded(std::string_view s, size_t max);

}  // namespace sim
