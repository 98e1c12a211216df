//===- AttachArch.cpp - spyre-attach-arch ---------------------------------===//

#include "spyre/Transforms/Passes.h"

namespace spyre {
#define GEN_PASS_DEF_SPYREATTACHARCH
#include "spyre/Transforms/Passes.h.inc"
} // namespace spyre

using namespace mlir;
using namespace spyre;

namespace {
struct AttachArchPass : public spyre::impl::SpyreAttachArchBase<AttachArchPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (file.empty()) {
      if (!module->hasAttr(kArchAttrName))
        module->setAttr(kArchAttrName,
                        ArchAttr::get(&getContext(), Arch::builtinDefault()));
      return;
    }
    Arch arch;
    std::string error;
    if (!Arch::load(file, arch, error)) {
      module.emitError("cannot read the machine description: ") << error;
      return signalPassFailure();
    }
    module->setAttr(kArchAttrName, ArchAttr::get(&getContext(), arch));
  }
};
} // namespace
