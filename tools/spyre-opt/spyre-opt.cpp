//===- spyre-opt.cpp - The spyre pass driver ------------------------------===//
//
// The developer tool: runs spyre passes and pipelines on MLIR files
// (MlirOptMain: --mlir-print-ir-after-all, --mlir-timing, reproducers...).
//
//===----------------------------------------------------------------------===//

#include "spyre/Dialect/Spyre/SpyreDialect.h"
#include "spyre/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<spyre::SpyreDialect, mlir::func::FuncDialect>();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
  spyre::registerSpyrePasses();
  spyre::registerSpyrePipeline();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "spyre-opt: spyre dialect passes and pipelines\n",
      registry));
}
