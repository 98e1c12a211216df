//===- InstructionEncoding.cpp - Each instruction op encodes itself -------===//
//
// InstructionOpInterface::encode for the program-level ops: one isa::Inst
// per op (a loop: its opening word, its body, its closing word), fields as
// docs/isa.md lays them out.
//
//===----------------------------------------------------------------------===//

#include "spyre/Dialect/Spyre/InstEncoder.h"
#include "spyre/Dialect/Spyre/SpyreOps.h"

using namespace mlir;

namespace spyre {
namespace {

/// The code of an SFP function name in an ISA name table (isa::unaryOpName
/// & co.); the op verifiers accept only names the table has.
template <typename NameFn> uint16_t lookupName(StringRef name, NameFn nameOf) {
  for (uint16_t i = 0;; ++i) {
    StringRef n = nameOf(i);
    if (n == name)
      return i;
    if (n == "?")
      llvm_unreachable("SFP function name not in the ISA table");
  }
}

/// Sets a DMA's box counts, run and pitch.
template <typename DmaOp>
LogicalResult setDmaBox(DmaOp op, InstEncoder &e, isa::Inst &inst) {
  Operation *o = op.getOperation();
  for (unsigned i = 0; i < 3; ++i)
    if (failed(e.fits(o, op.getBox()[i], inst.arg[i], "box count")))
      return failure();
  if (failed(e.fits(o, op.getRun(), inst.arg[3], "run")) ||
      failed(e.setPitch(o, inst, op.getPitch())))
    return failure();
  return success();
}

/// A DMA box copy; the LX operand is slot `lxSlot` (0 load, 1 store).
template <typename DmaOp>
LogicalResult encodeDma(DmaOp op, InstEncoder &e, isa::Opcode opcode,
                        unsigned lxSlot) {
  isa::Inst inst = isa::makeInst(opcode);
  Operation *o = op.getOperation();
  if (failed(e.setMem(o, inst, op.getMem())) ||
      failed(setDmaBox(op, e, inst)) ||
      failed(e.setLx(o, inst, lxSlot, op.getLx())) ||
      failed(e.setClamp(o, inst, op.getClamp())))
    return failure();
  if (op.getMulticast())
    inst.flags |= isa::kFlagMulticast;
  if (auto pitch = op.getLxPitch())
    if (failed(e.fits(o, *pitch, inst.lx[2], "LX row pitch")))
      return failure();
  e.pushRelocated(inst, op.getMem());
  return success();
}

/// A gather or scatter of table rows: the rows and the indices are LX
/// operands `lxSlot` and `indexSlot`.
template <typename RowsOp>
LogicalResult encodeRows(RowsOp op, InstEncoder &e, isa::Opcode opcode,
                         unsigned lxSlot, unsigned indexSlot) {
  isa::Inst inst = isa::makeInst(opcode);
  Operation *o = op.getOperation();
  if (failed(e.setMem(o, inst, op.getMem())) ||
      failed(e.fits(o, op.getRows(), inst.arg[0], "rows")) ||
      failed(e.fits(o, op.getTableRows(), inst.arg[1], "table rows")) ||
      failed(e.fits(o, op.getRun(), inst.arg[3], "run")) ||
      failed(e.fits(o, op.getRowPitch(), inst.pitch[0], "row pitch")) ||
      failed(e.setLx(o, inst, lxSlot, op.getLx())) ||
      failed(e.setLx(o, inst, indexSlot, op.getIndices())) ||
      failed(e.setDType(o, inst, indexSlot, op.getIndexType())) ||
      failed(e.setClamp(o, inst, op.getClamp())))
    return failure();
  e.pushRelocated(inst, op.getMem());
  return success();
}

/// A ring send or receive; the LX operand is slot `lxSlot` (1 send, 0
/// receive), the peer arg[0] + P(memParam).
template <typename RingOp>
LogicalResult encodeRing(RingOp op, InstEncoder &e, isa::Opcode opcode,
                         unsigned lxSlot) {
  isa::Inst inst = isa::makeInst(opcode);
  Operation *o = op.getOperation();
  if (failed(e.fits(o, op.getPeer(), inst.arg[0], "peer")) ||
      failed(e.fits(o, op.getTag(), inst.arg[1], "tag")) ||
      failed(e.fits(o, op.getBytes(), inst.arg[2], "bytes")) ||
      failed(e.setLx(o, inst, lxSlot, op.getLx())))
    return failure();
  if (auto p = op.getPeerParam())
    inst.memParam = uint8_t(*p);
  if (op.getPartialSum())
    inst.flags |= isa::kFlagPartialSum;
  if (op.getAccumulate())
    inst.flags |= isa::kFlagAccumulate;
  e.push(inst);
  return success();
}

/// Sets an SFP instruction's LX operands: dst, src0 and the optional src1.
template <typename SfpOp>
LogicalResult setSfpLxOperands(SfpOp op, InstEncoder &e, isa::Inst &inst) {
  Operation *o = op.getOperation();
  if (failed(e.setLx(o, inst, 0, op.getDst())) ||
      failed(e.setLx(o, inst, 1, op.getSrc0())) ||
      (op.getSrc1() && failed(e.setLx(o, inst, 2, *op.getSrc1()))))
    return failure();
  return success();
}

/// Sets an SFP instruction's tile size and pitch.
template <typename SfpOp>
LogicalResult setSfpTile(SfpOp op, InstEncoder &e, isa::Inst &inst) {
  Operation *o = op.getOperation();
  if (failed(e.fits(o, op.getRows(), inst.arg[0], "rows")) ||
      failed(e.fits(o, op.getCols(), inst.arg[1], "cols")) ||
      failed(e.setPitch(o, inst, op.getPitch())))
    return failure();
  return success();
}

/// Sets the element types of an SFP instruction's operands.
template <typename SfpOp>
LogicalResult setSfpDTypes(SfpOp op, InstEncoder &e, isa::Inst &inst) {
  Operation *o = op.getOperation();
  if (failed(e.setDType(o, inst, 0, op.getDstType())) ||
      failed(e.setDType(o, inst, 1, op.getSrc0Type())) ||
      (op.getSrc1Type() && failed(e.setDType(o, inst, 2, *op.getSrc1Type()))))
    return failure();
  return success();
}

/// Sets the flags of an SFP instruction's options.
template <typename SfpOp> void setSfpFlags(SfpOp op, isa::Inst &inst) {
  if (op.getBcastCol0())
    inst.flags |= isa::kFlagBcastCol0;
  if (op.getBcastCol1())
    inst.flags |= isa::kFlagBcastCol1;
  if (op.getAccumulate())
    inst.flags |= isa::kFlagAccumulate;
  if (op.getReduceRows())
    inst.flags |= isa::kFlagReduceRows;
}

/// An SFP instruction of function `code`.
template <typename SfpOp>
LogicalResult encodeSfp(SfpOp op, InstEncoder &e, isa::Opcode opcode,
                        uint16_t code) {
  Operation *o = op.getOperation();
  isa::Inst inst = isa::makeInst(opcode);
  inst.op = code;
  if (failed(setSfpLxOperands(op, e, inst)) ||
      failed(setSfpTile(op, e, inst)) || failed(setSfpDTypes(op, e, inst)) ||
      failed(e.setClamp(o, inst, op.getClamp())))
    return failure();
  inst.arg[3] = op.getInitLevel() ? uint32_t(*op.getInitLevel()) : isa::kNone;
  setSfpFlags(op, inst);
  e.push(inst);
  return success();
}

/// Sets a PT matmul's LX operands: dst, lhs and rhs.
LogicalResult setPtMatmulLxOperands(PtMatmulOp op, InstEncoder &e,
                                    isa::Inst &inst) {
  Operation *o = op.getOperation();
  if (failed(e.setLx(o, inst, 0, op.getDst())) ||
      failed(e.setLx(o, inst, 1, op.getLhs())) ||
      failed(e.setLx(o, inst, 2, op.getRhs())))
    return failure();
  return success();
}

/// Sets a PT matmul's sizes m, k, n and its pitch.
LogicalResult setPtMatmulSizes(PtMatmulOp op, InstEncoder &e, isa::Inst &inst) {
  Operation *o = op.getOperation();
  if (failed(e.fits(o, op.getM(), inst.arg[0], "m")) ||
      failed(e.fits(o, op.getK(), inst.arg[1], "k")) ||
      failed(e.fits(o, op.getN(), inst.arg[2], "n")) ||
      failed(e.setPitch(o, inst, op.getPitch())))
    return failure();
  return success();
}

/// Sets the element types of a PT matmul's operands.
LogicalResult setPtMatmulDTypes(PtMatmulOp op, InstEncoder &e,
                                isa::Inst &inst) {
  Operation *o = op.getOperation();
  if (failed(e.setDType(o, inst, 0, op.getDstType())) ||
      failed(e.setDType(o, inst, 1, op.getLhsType())) ||
      failed(e.setDType(o, inst, 2, op.getRhsType())))
    return failure();
  return success();
}

} // namespace

LogicalResult LoopOp::encode(InstEncoder &e) {
  isa::Inst inst = isa::makeInst(isa::Opcode::Loop);
  if (failed(e.fits(*this, getCount(), inst.arg[0], "loop count")))
    return failure();
  if (auto p = getCountParam())
    inst.countParam = uint8_t(*p);
  if (auto step = getCountStep()) {
    inst.arg[1] = uint32_t(int32_t(*step));
    inst.arg[2] = uint32_t(*getCountLevel());
  }
  e.push(inst);
  if (failed(e.encodeBlock(getBody().front())))
    return failure();
  e.push(isa::makeInst(isa::Opcode::EndLoop));
  return success();
}

LogicalResult DmaLoadOp::encode(InstEncoder &e) {
  return encodeDma(*this, e, isa::Opcode::DmaLoad, 0);
}

LogicalResult DmaStoreOp::encode(InstEncoder &e) {
  return encodeDma(*this, e, isa::Opcode::DmaStore, 1);
}

LogicalResult DmaGatherOp::encode(InstEncoder &e) {
  return encodeRows(*this, e, isa::Opcode::DmaGather, 0, 1);
}

LogicalResult DmaScatterOp::encode(InstEncoder &e) {
  return encodeRows(*this, e, isa::Opcode::DmaScatter, 1, 2);
}

LogicalResult RingSendOp::encode(InstEncoder &e) {
  return encodeRing(*this, e, isa::Opcode::RingSend, 1);
}

LogicalResult RingRecvOp::encode(InstEncoder &e) {
  return encodeRing(*this, e, isa::Opcode::RingRecv, 0);
}

LogicalResult PtMatmulOp::encode(InstEncoder &e) {
  isa::Inst inst = isa::makeInst(isa::Opcode::PtMatmul);
  if (failed(setPtMatmulLxOperands(*this, e, inst)) ||
      failed(setPtMatmulSizes(*this, e, inst)) ||
      failed(setPtMatmulDTypes(*this, e, inst)) ||
      failed(e.setClamp(getOperation(), inst, getClamp())))
    return failure();
  inst.arg[3] = getInitLevel() ? uint32_t(*getInitLevel()) : isa::kNone;
  if (getAccumulate())
    inst.flags |= isa::kFlagAccumulate;
  e.push(inst);
  return success();
}

LogicalResult SfpUnaryOp::encode(InstEncoder &e) {
  // The IR's "gelu" is the exact (erf) form of the ISA.
  StringRef fn = getFn() == "gelu" ? StringRef("gelu_erf") : getFn();
  return encodeSfp(*this, e, isa::Opcode::SfpUnary,
                   lookupName(fn, isa::unaryOpName));
}

LogicalResult SfpBinaryOp::encode(InstEncoder &e) {
  return encodeSfp(*this, e, isa::Opcode::SfpBinary,
                   lookupName(getFn(), isa::binaryOpName));
}

LogicalResult SfpSelectOp::encode(InstEncoder &e) {
  return encodeSfp(*this, e, isa::Opcode::SfpSelect, uint16_t(0));
}

LogicalResult SfpReduceOp::encode(InstEncoder &e) {
  return encodeSfp(*this, e, isa::Opcode::SfpReduce,
                   lookupName(getFn(), isa::reduceOpName));
}

LogicalResult SfpTransposeOp::encode(InstEncoder &e) {
  return encodeSfp(*this, e, isa::Opcode::SfpTranspose, uint16_t(0));
}

} // namespace spyre
