// Test helper: templated JSON text for scenarios built in tests.
#pragma once

#include <initializer_list>
#include <string>
#include <utility>

// Replaces each {key} of `text` by its value.
inline std::string fill(std::string text, std::initializer_list<std::pair<const char*, std::string>> values) {
  for (const auto& [key, value] : values) {
    const std::string k = std::string("{") + key + "}";
    for (size_t at = text.find(k); at != std::string::npos; at = text.find(k, at + value.size()))
      text.replace(at, k.size(), value);
  }
  return text;
}
