//===- Json.h - nlohmann/json for untrusted input ---------------*- C++ -*-===//
//
// Every file that uses nlohmann/json includes it through this header, so
// that the library's inline functions have one definition in each binary,
// and is built with -fexceptions (spyre_enable_exceptions).
//
// Reading a missing key through a const json (`j["name"]`) is an assertion
// inside nlohmann/json (an abort, or undefined behaviour without asserts).
// Here it throws like every other JSON error, so a malformed file is a
// diagnostic from the reader's catch, never a crash.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_SUPPORT_JSON_H
#define SPYRE_SUPPORT_JSON_H

#ifdef INCLUDE_NLOHMANN_JSON_HPP_
#error "include spyre/Support/Json.h before (instead of) nlohmann/json.hpp"
#endif

#include <stdexcept>

#define JSON_ASSERT(condition)                                                 \
  ((condition) ? static_cast<void>(0)                                          \
               : throw std::out_of_range("a required JSON field is missing"))

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace spyre {

/// Deepest nesting `parseJsonUntrusted` accepts. torch.export's JSON nests
/// about a dozen levels; the limit keeps every recursive walk of a parsed
/// value (copy, dump, comparison) within a few hundred stack frames.
constexpr int kMaxJsonDepth = 256;

/// json::parse for text from a file: throws json::parse_error on malformed
/// text and std::length_error when the text nests deeper than `maxDepth`
/// (nlohmann's parser is iterative, but copying or printing the value it
/// builds recurses once per level). The depth is found by a scan of the
/// text (strings skipped) before parsing: a parser callback would check it
/// too, at ten times the parse time.
inline nlohmann::json parseJsonUntrusted(std::string_view text,
                                         int maxDepth = kMaxJsonDepth) {
  int depth = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i; // the escaped character, whatever it is
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > maxDepth)
        throw std::length_error("JSON nested more than " +
                                std::to_string(maxDepth) + " levels deep");
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return nlohmann::json::parse(text);
}

} // namespace spyre

#endif // SPYRE_SUPPORT_JSON_H
