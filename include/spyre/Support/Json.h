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
/// builds recurses once per level).
inline nlohmann::json parseJsonUntrusted(std::string_view text,
                                         int maxDepth = kMaxJsonDepth) {
  auto limit = [maxDepth](int depth, nlohmann::json::parse_event_t,
                          nlohmann::json &) {
    if (depth > maxDepth)
      throw std::length_error("JSON nested more than " +
                              std::to_string(maxDepth) + " levels deep");
    return true;
  };
  return nlohmann::json::parse(text, limit);
}

} // namespace spyre

#endif // SPYRE_SUPPORT_JSON_H
