//===- InternalErrorsTest.cpp - Compiler bugs told from refusals ----------===//

#include "spyre/Transforms/InternalErrors.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/Pass.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace {

/// Fails with an error and leaves the IR as it was (a refusal).
struct RefusingPass : PassWrapper<RefusingPass, OperationPass<ModuleOp>> {
  StringRef getArgument() const final { return "test-refuse"; }
  void runOnOperation() override {
    getOperation().emitError("this input is not supported");
    signalPassFailure();
  }
};

/// Succeeds but leaves a function without a terminator (a bug).
struct BreakingPass : PassWrapper<BreakingPass, OperationPass<ModuleOp>> {
  StringRef getArgument() const final { return "test-break"; }
  void runOnOperation() override {
    getOperation().walk([](func::ReturnOp ret) { ret.erase(); });
  }
};

struct PassRun {
  bool failed;
  spyre::InternalErrorRecord record;
};

template <typename PassT> PassRun runOnEmptyFunction() {
  MLIRContext ctx;
  ctx.loadDialect<func::FuncDialect>();
  ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &) { return success(); });
  OpBuilder b(&ctx);
  OwningOpRef<ModuleOp> module = ModuleOp::create(b.getUnknownLoc());
  b.setInsertionPointToEnd(module->getBody());
  auto fn = func::FuncOp::create(b, b.getUnknownLoc(), "main",
                                 b.getFunctionType({}, {}));
  b.setInsertionPointToEnd(fn.addEntryBlock());
  func::ReturnOp::create(b, b.getUnknownLoc());
  PassManager pm(&ctx);
  pm.addPass(std::make_unique<PassT>());
  PassRun run;
  spyre::addInternalErrorCheck(pm, run.record);
  run.failed = mlir::failed(pm.run(*module));
  return run;
}

TEST(InternalErrors, RefusalIsNotInternal) {
  PassRun run = runOnEmptyFunction<RefusingPass>();
  EXPECT_TRUE(run.failed);
  EXPECT_FALSE(run.record.found());
}

TEST(InternalErrors, InvalidIrNamesThePass) {
  PassRun run = runOnEmptyFunction<BreakingPass>();
  EXPECT_TRUE(run.failed);
  EXPECT_EQ(run.record.pass, "test-break");
}

} // namespace
