//===- InstEncoder.cpp - Instruction ops into ISA words -------------------===//

#include "spyre/Dialect/Spyre/InstEncoder.h"
#include "spyre/Dialect/Spyre/SpyreOps.h"

using namespace mlir;

namespace spyre {

FailureOr<isa::DType> deviceDType(Operation *op, Type t) {
  if (t.isF32())
    return isa::DType::F32;
  if (t.isF16())
    return isa::DType::F16;
  if (t.isBF16())
    return isa::DType::BF16;
  if (t.isInteger(1))
    return isa::DType::Bool;
  if (t.isInteger(8))
    return isa::DType::I8;
  if (t.isInteger(32))
    return isa::DType::I32;
  if (t.isInteger(64))
    return isa::DType::I64;
  op->emitError("element type ") << t << " has no device representation";
  return failure();
}

uint32_t InstEncoder::push(const isa::Inst &inst) {
  insts.push_back(inst);
  return uint32_t(insts.size() - 1);
}

void InstEncoder::pushRelocated(const isa::Inst &inst, MemAddressAttr mem) {
  relocations.push_back({push(inst), mem});
}

LogicalResult InstEncoder::encodeBlock(Block &block) {
  for (Operation &op : block) {
    auto inst = dyn_cast<InstructionOpInterface>(op);
    if (!inst)
      return op.emitError("cannot encode '") << op.getName() << "'";
    if (failed(inst.encode(*this)))
      return failure();
  }
  return success();
}

LogicalResult InstEncoder::setLx(Operation *op, isa::Inst &inst, unsigned slot,
                                 LxAddressAttr lx) {
  if (failed(fits(op, lx.getOffset(), inst.lx[slot], "LX offset")) ||
      failed(fits(op, lx.getWrap(), inst.lxWrap[slot], "LX wrap")))
    return failure();
  for (auto [l, s] : llvm::enumerate(lx.getStrides()))
    if (failed(fits(op, s, inst.lxLoopStride[slot][l], "LX stride")))
      return failure();
  return success();
}

LogicalResult InstEncoder::setMem(Operation *op, isa::Inst &inst,
                                  MemAddressAttr mem) {
  for (auto [l, s] : llvm::enumerate(mem.getStrides()))
    if (failed(fits(op, s, inst.memLoopStride[l], "memory stride")))
      return failure();
  inst.memParam = mem.getParam() < 0 ? isa::kNone : uint8_t(mem.getParam());
  return success();
}

LogicalResult InstEncoder::setPitch(Operation *op, isa::Inst &inst,
                                    ArrayRef<int64_t> pitch) {
  for (auto [i, p] : llvm::enumerate(pitch))
    if (failed(fits(op, p, inst.pitch[i], "pitch")))
      return failure();
  return success();
}

LogicalResult InstEncoder::setDType(Operation *op, isa::Inst &inst,
                                    unsigned slot, Type type) {
  FailureOr<isa::DType> d = deviceDType(op, type);
  if (failed(d))
    return failure();
  inst.dtype[slot] = uint8_t(*d);
  return success();
}

LogicalResult InstEncoder::setClamp(Operation *op, isa::Inst &inst,
                                    std::optional<ClampAttr> clamp) {
  if (!clamp)
    return success();
  inst.clampLevel =
      isa::clampSelector(uint8_t(clamp->getLevel()), uint8_t(clamp->getArg()));
  inst.clampParam =
      clamp->getParam() < 0 ? isa::kNone : uint8_t(clamp->getParam());
  if (failed(fits(op, clamp->getStep(), inst.clampStep, "clamp step")) ||
      failed(fits(op, clamp->getTotal(), inst.clampTotal, "clamp total")))
    return failure();
  return success();
}

} // namespace spyre
