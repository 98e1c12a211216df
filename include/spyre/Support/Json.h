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

#endif // SPYRE_SUPPORT_JSON_H
