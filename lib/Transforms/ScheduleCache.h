//===- ScheduleCache.h - Kernel schedules kept across compiles --*- C++ -*-===//
//
// `spyre-schedule-cores{cache-dir=DIR}`: one file per kernel signature. The
// file's name is an XXH3 of everything the schedule depends on (the
// kernel's signature, the pass options, the machine description and the
// running compiler's executable); its contents repeat that text, so a hash
// collision or a file from elsewhere is never taken for a hit. A file that
// does not read back is ignored, and rewritten after the search.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_TRANSFORMS_SCHEDULECACHE_H
#define SPYRE_TRANSFORMS_SCHEDULECACHE_H

#include "spyre/Dialect/Spyre/SpyreAttrs.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace spyre {

class ScheduleCache {
public:
  /// `context`: what the schedules of this compile depend on besides the
  /// kernel (options, machine description).
  ScheduleCache(llvm::StringRef dir, std::string context);

  /// The schedule stored for a kernel of this signature, if any.
  std::optional<ScheduleAttr> lookup(const std::string &signature,
                                     mlir::MLIRContext *ctx) const;
  /// Stores a schedule (atomically: a file written aside, then renamed).
  /// False when the directory cannot be written (`error` says why).
  bool store(const std::string &signature, ScheduleAttr schedule,
             std::string &error) const;

private:
  std::string path(const std::string &key) const;
  std::string key(const std::string &signature) const;

  std::string dir_, context_;
};

} // namespace spyre

#endif // SPYRE_TRANSFORMS_SCHEDULECACHE_H
