//===- spyre-opt.cpp - The spyre pass driver ------------------------------===//
//
// The developer tool: runs spyre passes and pipelines on MLIR files
// (MlirOptMain: --mlir-print-ir-after-all, --mlir-timing, reproducers...).
// `spyre-opt --spyre-list-decompositions` prints docs/supported-ops.md,
// `--spyre-list-sfp-functions` docs/generated/SfpFunctions.md.
//
//===----------------------------------------------------------------------===//

#include "spyre/Dialect/Spyre/SpyreDialect.h"
#include "spyre/ISA/ISA.h"
#include "spyre/Transforms/Decompositions.h"
#include "spyre/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

/// Hides LLVM's own options (backend flags, Polly, remarks, colors:
/// registered by libLLVM before main) from --help; they still work. MLIR's
/// and the passes' options, registered later by MlirOptMain, stay. (LLVM
/// hides them itself: a member call here on an option defined in libLLVM
/// trips UBSan's vptr check.)
static void hideLlvmOptions() {
  static llvm::cl::OptionCategory spyreOpt("spyre-opt options");
  llvm::cl::HideUnrelatedOptions(spyreOpt);
}

int main(int argc, char **argv) {
  // Writes docs/supported-ops.md from the decomposition registry (a lit
  // test checks the committed file is up to date).
  if (argc == 2 && llvm::StringRef(argv[1]) == "--spyre-list-decompositions") {
    spyre::printSupportedOpsMarkdown(llvm::outs());
    return 0;
  }
  if (argc == 2 && llvm::StringRef(argv[1]) == "--spyre-list-sfp-functions") {
    llvm::outs() << spyre::isa::sfpFunctionsMarkdown();
    return 0;
  }
  hideLlvmOptions();
  mlir::DialectRegistry registry;
  registry.insert<spyre::SpyreDialect, mlir::func::FuncDialect>();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
  spyre::registerSpyrePasses();
  spyre::registerSpyrePipeline();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "spyre-opt: spyre dialect passes and pipelines\n", registry));
}
