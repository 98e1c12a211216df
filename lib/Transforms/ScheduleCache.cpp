//===- ScheduleCache.cpp - Kernel schedules kept across compiles ----------===//

#include "ScheduleCache.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

using namespace mlir;

namespace spyre {

namespace {

constexpr llvm::StringLiteral kHeader = "spyre-schedule-cache 1\n";

/// Identifies the compiler: XXH3 of the running executable (the passes are
/// linked into it), so that an entry written by another build, whose cost
/// model may differ, is never read.
uint64_t compilerIdentity() {
  static const uint64_t id = [] {
    auto buffer = llvm::MemoryBuffer::getFile("/proc/self/exe",
                                              /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    return buffer ? llvm::xxh3_64bits((*buffer)->getBuffer()) : 0;
  }();
  return id;
}

} // namespace

ScheduleCache::ScheduleCache(llvm::StringRef dir, std::string context)
    : dir_(dir.str()) {
  llvm::raw_string_ostream os(context_);
  os << "compiler " << llvm::format_hex(compilerIdentity(), 18) << '\n'
     << context << '\n';
}

std::string ScheduleCache::key(const std::string &signature) const {
  return context_ + signature;
}

std::string ScheduleCache::path(const std::string &key) const {
  llvm::SmallString<256> p(dir_);
  llvm::sys::path::append(
      p, llvm::utohexstr(llvm::xxh3_64bits(key), /*LowerCase=*/true, 16) +
             ".schedule");
  return p.str().str();
}

std::optional<ScheduleAttr> ScheduleCache::lookup(const std::string &signature,
                                                  MLIRContext *ctx) const {
  std::string k = key(signature);
  auto buffer = llvm::MemoryBuffer::getFile(path(k), /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return std::nullopt;
  // kHeader, the schedule on one line, then the key it was stored for.
  llvm::StringRef text = (*buffer)->getBuffer();
  if (!text.consume_front(kHeader))
    return std::nullopt;
  auto [line, rest] = text.split('\n');
  if (rest != k)
    return std::nullopt;
  Attribute attr = parseAttribute(line, ctx);
  if (auto schedule = llvm::dyn_cast_or_null<ScheduleAttr>(attr))
    return schedule;
  return std::nullopt;
}

bool ScheduleCache::store(const std::string &signature, ScheduleAttr schedule,
                          std::string &error) const {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir_)) {
    error = "cannot create '" + dir_ + "': " + ec.message();
    return false;
  }
  std::string k = key(signature);
  std::string target = path(k);
  std::string aside =
      target + ".tmp" + std::to_string(llvm::sys::Process::getProcessId());
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(aside, ec);
    if (!ec) {
      os << kHeader << schedule << '\n' << k;
      os.close();
      ec = os.error();
    }
    if (ec) {
      error = "cannot write '" + aside + "': " + ec.message();
      llvm::sys::fs::remove(aside);
      return false;
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(aside, target)) {
    error = "cannot rename '" + aside + "': " + ec.message();
    llvm::sys::fs::remove(aside);
    return false;
  }
  return true;
}

} // namespace spyre
