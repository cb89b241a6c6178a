// JSON text to a document: the one parser every configuration, data file and --set value goes
// through, with the limits that keep a hostile file from crashing or exhausting trainsim.
//
// Beyond RFC 8259 it refuses, each as one InputError line naming the file and the position (line,
// column and a few escaped characters, never the offending line itself, which may be a secret):
// a NUL byte anywhere (nlohmann's lexer would stop reading there and accept what came before),
// nesting deeper than MAX_JSON_DEPTH (copying and destroying a document recurse), more than
// MAX_JSON_VALUES values (a 63 MB file of empty objects would take gigabytes as a document),
// and a key repeated in one object (nlohmann would keep the last silently). Strings are UTF-8
// (the lexer checks every byte).
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace sim {

// Configurations nest 5-7 levels (validation tables: runs/N/scenario/cluster/scale_out/...).
inline constexpr int MAX_JSON_DEPTH = 64;
// The largest shipped file (a kernel-suite run, 949 records) holds about 20,000 values.
inline constexpr size_t MAX_JSON_VALUES = size_t{1} << 20;

// Parses `text`; `file` names it in messages ("--set" for a command-line value).
nlohmann::json parse_json_text(std::string_view text, const std::string& file);

// `key` as one segment of a JSON pointer (RFC 6901: "~" is "~0", "/" is "~1").
std::string escape_pointer(const std::string& key);

}  // namespace sim
