//===- AttachArch.cpp - spyre-attach-arch ---------------------------------===//

#include "spyre/Transforms/Passes.h"

namespace spyre {
#define GEN_PASS_DEF_SPYREATTACHARCH
#include "spyre/Transforms/Passes.h.inc"
} // namespace spyre

using namespace mlir;
using namespace spyre;

namespace {
struct AttachArchPass
    : public spyre::impl::SpyreAttachArchBase<AttachArchPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!arch.empty() && !file.empty() &&
        std::string(arch) != std::string(file)) {
      module.emitError("spyre-attach-arch: arch= and its alias file= name "
                       "different files");
      return signalPassFailure();
    }
    std::string path = arch.empty() ? std::string(file) : std::string(arch);
    if (path.empty()) {
      if (!module->hasAttr(kArchAttrName))
        module->setAttr(kArchAttrName,
                        ArchAttr::get(&getContext(), Arch::builtinDefault()));
      return;
    }
    Arch loaded;
    std::string error;
    if (!Arch::load(path, loaded, error)) {
      module.emitError("cannot read the machine description: ") << error;
      return signalPassFailure();
    }
    module->setAttr(kArchAttrName, ArchAttr::get(&getContext(), loaded));
  }
};
} // namespace
