//===- SpyDump.h - .spy binaries as text ------------------------*- C++ -*-===//

#ifndef SPYRE_TARGET_SPY_SPYDUMP_H
#define SPYRE_TARGET_SPY_SPYDUMP_H

#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace spyre {

/// Validates the .spy at `path` with the runtime's loader and prints every
/// table and every instruction readably (stable text, for lit tests).
/// Returns false and sets `error` when the file is invalid. `weightsFile`:
/// its weights file, when not where the .spy says (format 3.0).
bool dumpSpy(const std::string &path, llvm::raw_ostream &os, std::string &error,
             const std::string &weightsFile = "");
/// The same for a .spy held in memory (read from stdin).
bool dumpSpy(std::vector<uint8_t> bytes, llvm::raw_ostream &os,
             std::string &error, const std::string &weightsFile = "");

} // namespace spyre

#endif // SPYRE_TARGET_SPY_SPYDUMP_H
