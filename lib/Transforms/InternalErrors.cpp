//===- InternalErrors.cpp - Telling compiler bugs from refusals -----------===//

#include "spyre/Transforms/InternalErrors.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"

using namespace mlir;

namespace spyre {
namespace {

class InternalErrorCheck : public PassInstrumentation {
public:
  explicit InternalErrorCheck(InternalErrorRecord &record) : record(record) {}

  void runAfterPassFailed(Pass *pass, Operation *op) override {
    if (record.found())
      return;
    // The verifier's messages were already printed by the pass manager (or
    // the pass's own error was); this second run only decides the class.
    ScopedDiagnosticHandler quiet(op->getContext(),
                                  [](Diagnostic &) { return success(); });
    if (failed(verify(op)))
      record.pass = pass->getArgument().str();
  }

private:
  InternalErrorRecord &record;
};

} // namespace

void addInternalErrorCheck(PassManager &pm, InternalErrorRecord &record) {
  pm.addInstrumentation(std::make_unique<InternalErrorCheck>(record));
}

} // namespace spyre
