//===- Pt2ImportFuzz.cpp - Fuzzing the .pt2 importer (zip, JSON) ----------===//
//
// The input is a whole archive, handed to the importer as a file (an
// anonymous memfd, so no disk traffic). Import only: no pass runs. Every
// failure must come with a diagnostic.
//
//===----------------------------------------------------------------------===//

#include "FuzzInput.h"

#include "spyre/Dialect/Spyre/SpyreDialect.h"
#include "spyre/Target/Pt2/Pt2Importer.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <memory>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

namespace {

/// A context without threads, remade every 1000 inputs so that what it
/// interns stays small over millions of them.
mlir::MLIRContext &context() {
  static std::unique_ptr<mlir::MLIRContext> ctx;
  static unsigned uses = 0;
  if (!ctx || ++uses % 1000 == 0) {
    mlir::DialectRegistry registry;
    registry.insert<spyre::SpyreDialect, mlir::func::FuncDialect>();
    ctx = std::make_unique<mlir::MLIRContext>(
        registry, mlir::MLIRContext::Threading::DISABLED);
    ctx->loadAllAvailableDialects();
  }
  return *ctx;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int fd = memfd_create("fuzz.pt2", MFD_CLOEXEC);
  spyre::fuzz::require(fd >= 0, "memfd_create failed");
  for (size_t done = 0; done < size;) {
    ssize_t n = ::write(fd, data + done, size - done);
    spyre::fuzz::require(n > 0, "cannot write the memfd");
    done += size_t(n);
  }
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  mlir::MLIRContext &ctx = context();
  unsigned errors = 0;
  mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &d) {
    errors += d.getSeverity() == mlir::DiagnosticSeverity::Error;
    return mlir::success();
  });
  spyre::Pt2ImportOptions options;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      spyre::importPt2(path, &ctx, options);
  spyre::fuzz::require(module || errors, "import failed without an error");
  ::close(fd);
  return 0;
}
