//===- SpyEmitter.cpp - Program-level IR to .spy --------------------------===//
//
// A mechanical translation: each `spyre.tensor` becomes a tensor-table entry
// (weights and constants written in their device layout), each instruction
// op one 128-byte instruction (docs/isa.md), each device-memory operand a
// relocation, and `spyre.plan` the launch plan.
//
//===----------------------------------------------------------------------===//

#include "spyre/Target/Spy/SpyEmitter.h"
#include "spyre/Dialect/Spyre/SpyreOps.h"
#include "spyre/Spy/SpyWriter.h"
#include "spyre/Target/Pt2/ExternalData.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;

namespace spyre {

namespace {

FailureOr<isa::DType> toDType(Operation *op, Type t) {
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

/// Looks an ISA op name up in a name table (isa::unaryOpName & co).
template <typename NameFn>
std::optional<uint16_t> lookupName(StringRef name, NameFn nameOf) {
  for (uint16_t i = 0; i < 64; ++i) {
    StringRef n = nameOf(i);
    if (n == "?")
      return std::nullopt;
    if (n == name)
      return i;
  }
  return std::nullopt;
}

class Emitter {
public:
  Emitter(ModuleOp module, const Arch &arch) : module(module), arch(arch),
                                               writer(arch) {}

  LogicalResult run(const SpyEmitOptions &options) {
    if (options.weightBufferBytes)
      streamBufferBytes = options.weightBufferBytes;
    if (!module.getOps<func::FuncOp>().empty() || module.getOps<PlanOp>().empty())
      return module.emitError("the module is not at program level (it needs "
                              "spyre.tensor, spyre.program and spyre.plan ops "
                              "and no functions); run spyre-opt "
                              "--spyre-pipeline first");
    for (TensorOp t : module.getOps<TensorOp>())
      if (failed(addTensor(t)))
        return failure();
    // Mutated buffers are declared after the outputs that update them.
    for (TensorOp t : module.getOps<TensorOp>())
      if (auto updates = t.getUpdatesAttr())
        writer.tensor(tensorIndex.lookup(t.getSymName())).updatesTensor =
            int32_t(tensorIndex.lookup(updates.getValue()));
    for (ProgramOp p : module.getOps<ProgramOp>())
      if (failed(addProgram(p)))
        return failure();
    for (PlanOp plan : module.getOps<PlanOp>())
      for (auto ref : plan.getPrograms().getAsRange<FlatSymbolRefAttr>())
        writer.addStep(programIndex.lookup(ref.getValue()));
    std::string source = options.sourceModel;
    if (auto s = module->getAttrOfType<StringAttr>("spyre.source"); s && source.empty())
      source = s.getValue().str();
    std::string pipeline = options.pipeline;
    if (auto p = module->getAttrOfType<StringAttr>("spyre.pipeline");
        p && pipeline.empty())
      pipeline = p.getValue().str();
    writer.setMetadata(source, SPYRE_VERSION_STRING, pipeline);
    if (auto ws = module->getAttrOfType<IntegerAttr>("spyre.workspace_bytes"))
      writer.setWorkspaceSize(ws.getInt());
    return success();
  }

  spy::SpyWriter &getWriter() { return writer; }

private:
  ModuleOp module;
  const Arch &arch;
  spy::SpyWriter writer;
  llvm::StringMap<uint32_t> tensorIndex;
  llvm::StringMap<uint32_t> programIndex;
  /// Host images of constants converted from attributes, kept alive until
  /// the file is written.
  std::vector<std::unique_ptr<std::vector<uint8_t>>> hostImages;
  ExternalData externals;
  uint64_t streamBufferBytes = spy::StreamedImage::kDefaultBudgetBytes;

  LogicalResult addTensor(TensorOp t) {
    RankedTensorType type = t.getTensorType();
    FailureOr<isa::DType> dtype = toDType(t, type.getElementType());
    if (failed(dtype))
      return failure();
    LayoutAttr layout = getLayout(type);
    spy::TensorDesc desc;
    desc.name = t.getSymName().str();
    desc.role = spy::Role(uint8_t(t.getRole()));
    desc.ioIndex = t.getIoIndex() ? int32_t(*t.getIoIndex()) : -1;
    desc.dtype = *dtype;
    desc.shape.assign(type.getShape().begin(), type.getShape().end());
    std::vector<int32_t> order;
    if (!layout.getDimOrder().empty())
      order.assign(layout.getDimOrder().begin(), layout.getDimOrder().end());
    std::string error;
    if (!spy::TensorLayout::make(*dtype, desc.shape, layout.getStickDim(),
                                 arch.stickBytes, desc.layout, error, order))
      return t.emitError("invalid layout: ") << error;
    desc.alignment = uint64_t(arch.stickBytes);
    if (auto off = t.getWorkspaceOffset())
      desc.workspaceOffset = *off;
    if (auto alias = t.getAliasesInput())
      desc.aliasesInput = int32_t(*alias);
    uint32_t index = writer.addTensor(desc);
    tensorIndex[t.getSymName()] = index;

    if (auto value = t.getValue())
      return setData(t, index, *dtype, desc, *value);
    if (auto ext = t.getExternal())
      return setExternalData(t, index, *dtype, desc, *ext);
    return success();
  }

  /// Row-major host bytes of an elements attribute (host formats: IEEE f16,
  /// bfloat16 bits, one byte per bool).
  FailureOr<const uint8_t *> hostBytes(TensorOp t, ElementsAttr value,
                                       uint64_t bytes) {
    if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
      AsmResourceBlob *blob = resource.getRawHandle().getBlob();
      if (!blob)
        return t.emitError("resource blob of the weight is missing");
      ArrayRef<char> data = blob->getData();
      if (data.size() != bytes)
        return t.emitError("resource blob has ")
               << data.size() << " bytes, the tensor needs " << bytes;
      return reinterpret_cast<const uint8_t *>(data.data());
    }
    auto dense = dyn_cast<DenseElementsAttr>(value);
    if (!dense)
      return t.emitError("unsupported weight value attribute");
    auto image = std::make_unique<std::vector<uint8_t>>(bytes);
    Type et = dense.getElementType();
    if (et.isInteger(1)) {
      size_t i = 0;
      for (bool v : dense.getValues<bool>())
        (*image)[i++] = v;
    } else {
      ArrayRef<char> raw = dense.getRawData();
      uint64_t elem = getElementBytes(et);
      if (dense.isSplat()) {
        for (uint64_t off = 0; off + elem <= bytes; off += elem)
          std::memcpy(image->data() + off, raw.data(), elem);
      } else {
        if (raw.size() != bytes)
          return t.emitError("dense value has ")
                 << raw.size() << " bytes, the tensor needs " << bytes;
        std::memcpy(image->data(), raw.data(), bytes);
      }
    }
    hostImages.push_back(std::move(image));
    return hostImages.back()->data();
  }

  LogicalResult setData(TensorOp t, uint32_t index, isa::DType dtype,
                        const spy::TensorDesc &desc, ElementsAttr value) {
    auto map = std::make_shared<spy::LayoutMap>();
    std::string error;
    if (!spy::LayoutMap::create(dtype, desc.shape, desc.layout, arch, *map,
                                error))
      return t.emitError("invalid layout: ") << error;
    FailureOr<const uint8_t *> host = hostBytes(t, value, map->hostBytes());
    if (failed(host))
      return failure();
    const uint8_t *src = *host;
    writer.setTensorData(
        index, map->deviceBytes(),
        [map, src](uint64_t offset, void *buffer, uint64_t size,
                   std::string &) {
          map->hostToDeviceRange(src, offset, size, buffer);
          return true;
        });
    return success();
  }

  LogicalResult setExternalData(TensorOp t, uint32_t index, isa::DType dtype,
                                const spy::TensorDesc &desc,
                                ExternalDataAttr ext) {
    spy::LayoutMap map;
    std::string error;
    if (!spy::LayoutMap::create(dtype, desc.shape, desc.layout, arch, map,
                                error))
      return t.emitError("invalid layout: ") << error;
    FailureOr<std::unique_ptr<spy::StreamedImage>> image =
        externals.open(t, ext, map, streamBufferBytes);
    if (failed(image))
      return failure();
    // Read at write time, in the writer's chunks, through a buffer of
    // bounded size: the weight is never in memory as a whole.
    std::shared_ptr<spy::StreamedImage> source = std::move(*image);
    // The model's name of the weight, as ExternalData's messages give it.
    std::string name = t.getSourceName() ? t.getSourceName()->str() : desc.name;
    writer.setTensorData(
        index, map.deviceBytes(),
        [source, name](uint64_t offset, void *buffer, uint64_t size,
                       std::string &error) {
          if (source->read(offset, buffer, size, error))
            return true;
          error = "weight '" + name + "': " + error;
          return false;
        });
    return success();
  }

  //===--- Instructions ---------------------------------------------------===//

  template <typename T> LogicalResult fits(Operation *op, int64_t v, T &out,
                                           StringRef what) {
    if (v < int64_t(std::numeric_limits<T>::min()) ||
        (v > 0 && uint64_t(v) > uint64_t(std::numeric_limits<T>::max())))
      return op->emitError(what) << " " << v
                                 << " does not fit its instruction field";
    out = T(v);
    return success();
  }

  LogicalResult setLx(Operation *op, isa::Inst &inst, unsigned slot,
                      LxAddressAttr lx) {
    if (failed(fits(op, lx.getOffset(), inst.lx[slot], "LX offset")) ||
        failed(fits(op, lx.getWrap(), inst.lxWrap[slot], "LX wrap")))
      return failure();
    for (auto [l, s] : llvm::enumerate(lx.getStrides()))
      if (failed(fits(op, s, inst.lxLoopStride[slot][l], "LX stride")))
        return failure();
    return success();
  }

  LogicalResult setPitch(Operation *op, isa::Inst &inst,
                         ArrayRef<int64_t> pitch) {
    for (auto [i, p] : llvm::enumerate(pitch))
      if (failed(fits(op, p, inst.pitch[i], "pitch")))
        return failure();
    return success();
  }

  LogicalResult setClamp(Operation *op, isa::Inst &inst,
                         std::optional<ClampAttr> clamp) {
    if (!clamp)
      return success();
    inst.clampLevel = isa::clampSelector(uint8_t(clamp->getLevel()),
                                         uint8_t(clamp->getArg()));
    inst.clampParam = clamp->getParam() < 0 ? isa::kNone
                                            : uint8_t(clamp->getParam());
    if (failed(fits(op, clamp->getStep(), inst.clampStep, "clamp step")) ||
        failed(fits(op, clamp->getTotal(), inst.clampTotal, "clamp total")))
      return failure();
    return success();
  }

  LogicalResult setDType(Operation *op, isa::Inst &inst, unsigned slot,
                         Type t) {
    FailureOr<isa::DType> d = toDType(op, t);
    if (failed(d))
      return failure();
    inst.dtype[slot] = uint8_t(*d);
    return success();
  }

  /// Encodes a DMA; returns the tensor to relocate against.
  template <typename DmaOp>
  LogicalResult encodeDma(DmaOp op, isa::Inst &inst, unsigned lxSlot,
                          MemAddressAttr &mem) {
    mem = op.getMem();
    for (auto [l, s] : llvm::enumerate(mem.getStrides()))
      if (failed(fits(op, s, inst.memLoopStride[l], "memory stride")))
        return failure();
    inst.memParam = mem.getParam() < 0 ? isa::kNone : uint8_t(mem.getParam());
    for (unsigned i = 0; i < 3; ++i)
      if (failed(fits(op, op.getBox()[i], inst.arg[i], "box count")))
        return failure();
    if (failed(fits(op, op.getRun(), inst.arg[3], "run")) ||
        failed(setPitch(op, inst, op.getPitch())) ||
        failed(setLx(op, inst, lxSlot, op.getLx())) ||
        failed(setClamp(op, inst, op.getClamp())))
      return failure();
    if (op.getMulticast())
      inst.flags |= isa::kFlagMulticast;
    if (auto pitch = op.getLxPitch())
      if (failed(fits(op, *pitch, inst.lx[2], "LX row pitch")))
        return failure();
    return success();
  }

  /// Encodes a gather or scatter of table rows.
  template <typename RowsOp>
  LogicalResult encodeRows(RowsOp op, isa::Inst &inst, unsigned lxSlot,
                           unsigned indexSlot, MemAddressAttr &mem) {
    mem = op.getMem();
    for (auto [l, s] : llvm::enumerate(mem.getStrides()))
      if (failed(fits(op, s, inst.memLoopStride[l], "memory stride")))
        return failure();
    inst.memParam = mem.getParam() < 0 ? isa::kNone : uint8_t(mem.getParam());
    if (failed(fits(op, op.getRows(), inst.arg[0], "rows")) ||
        failed(fits(op, op.getTableRows(), inst.arg[1], "table rows")) ||
        failed(fits(op, op.getRun(), inst.arg[3], "run")) ||
        failed(fits(op, op.getRowPitch(), inst.pitch[0], "row pitch")) ||
        failed(setLx(op, inst, lxSlot, op.getLx())) ||
        failed(setLx(op, inst, indexSlot, op.getIndices())) ||
        failed(setDType(op, inst, indexSlot, op.getIndexType())) ||
        failed(setClamp(op, inst, op.getClamp())))
      return failure();
    return success();
  }

  template <typename SfpOp>
  LogicalResult encodeSfp(SfpOp op, isa::Inst &inst) {
    if (failed(setLx(op, inst, 0, op.getDst())) ||
        failed(setLx(op, inst, 1, op.getSrc0())) ||
        (op.getSrc1() && failed(setLx(op, inst, 2, *op.getSrc1()))) ||
        failed(fits(op, op.getRows(), inst.arg[0], "rows")) ||
        failed(fits(op, op.getCols(), inst.arg[1], "cols")) ||
        failed(setPitch(op, inst, op.getPitch())) ||
        failed(setDType(op, inst, 0, op.getDstType())) ||
        failed(setDType(op, inst, 1, op.getSrc0Type())) ||
        (op.getSrc1Type() && failed(setDType(op, inst, 2, *op.getSrc1Type()))) ||
        failed(setClamp(op, inst, op.getClamp())))
      return failure();
    inst.arg[3] = op.getInitLevel() ? uint32_t(*op.getInitLevel()) : isa::kNone;
    if (op.getBcastCol0())
      inst.flags |= isa::kFlagBcastCol0;
    if (op.getBcastCol1())
      inst.flags |= isa::kFlagBcastCol1;
    if (op.getAccumulate())
      inst.flags |= isa::kFlagAccumulate;
    if (op.getReduceRows())
      inst.flags |= isa::kFlagReduceRows;
    return success();
  }

  LogicalResult encode(Operation *op, spy::ProgramDesc &desc,
                       SmallVectorImpl<std::pair<uint32_t, MemAddressAttr>>
                           &relocs) {
    auto push = [&](isa::Inst inst) {
      desc.insts.push_back(inst);
      return uint32_t(desc.insts.size() - 1);
    };
    if (auto loop = dyn_cast<LoopOp>(op)) {
      isa::Inst inst = isa::makeInst(isa::Opcode::Loop);
      if (failed(fits(op, loop.getCount(), inst.arg[0], "loop count")))
        return failure();
      if (auto p = loop.getCountParam())
        inst.countParam = uint8_t(*p);
      push(inst);
      for (Operation &inner : loop.getBody().front())
        if (failed(encode(&inner, desc, relocs)))
          return failure();
      push(isa::makeInst(isa::Opcode::EndLoop));
      return success();
    }
    if (auto dma = dyn_cast<DmaLoadOp>(op)) {
      isa::Inst inst = isa::makeInst(isa::Opcode::DmaLoad);
      MemAddressAttr mem;
      if (failed(encodeDma(dma, inst, 0, mem)))
        return failure();
      relocs.push_back({push(inst), mem});
      return success();
    }
    if (auto dma = dyn_cast<DmaStoreOp>(op)) {
      isa::Inst inst = isa::makeInst(isa::Opcode::DmaStore);
      MemAddressAttr mem;
      if (failed(encodeDma(dma, inst, 1, mem)))
        return failure();
      relocs.push_back({push(inst), mem});
      return success();
    }
    if (auto g = dyn_cast<DmaGatherOp>(op)) {
      isa::Inst inst = isa::makeInst(isa::Opcode::DmaGather);
      MemAddressAttr mem;
      if (failed(encodeRows(g, inst, 0, 1, mem)))
        return failure();
      relocs.push_back({push(inst), mem});
      return success();
    }
    if (auto sc = dyn_cast<DmaScatterOp>(op)) {
      isa::Inst inst = isa::makeInst(isa::Opcode::DmaScatter);
      MemAddressAttr mem;
      if (failed(encodeRows(sc, inst, 1, 2, mem)))
        return failure();
      relocs.push_back({push(inst), mem});
      return success();
    }
    if (auto pt = dyn_cast<PtMatmulOp>(op)) {
      isa::Inst inst = isa::makeInst(isa::Opcode::PtMatmul);
      if (failed(setLx(op, inst, 0, pt.getDst())) ||
          failed(setLx(op, inst, 1, pt.getLhs())) ||
          failed(setLx(op, inst, 2, pt.getRhs())) ||
          failed(fits(op, pt.getM(), inst.arg[0], "m")) ||
          failed(fits(op, pt.getK(), inst.arg[1], "k")) ||
          failed(fits(op, pt.getN(), inst.arg[2], "n")) ||
          failed(setPitch(op, inst, pt.getPitch())) ||
          failed(setDType(op, inst, 0, pt.getDstType())) ||
          failed(setDType(op, inst, 1, pt.getLhsType())) ||
          failed(setDType(op, inst, 2, pt.getRhsType())) ||
          failed(setClamp(op, inst, pt.getClamp())))
        return failure();
      inst.arg[3] = pt.getInitLevel() ? uint32_t(*pt.getInitLevel()) : isa::kNone;
      if (pt.getAccumulate())
        inst.flags |= isa::kFlagAccumulate;
      push(inst);
      return success();
    }
    auto sfp = [&](isa::Opcode opcode, std::optional<uint16_t> code,
                   auto sfpOp) -> LogicalResult {
      if (!code)
        return op->emitError("'") << sfpOp.getFn()
                                  << "' is not an SFP operation";
      isa::Inst inst = isa::makeInst(opcode);
      inst.op = *code;
      if (failed(encodeSfp(sfpOp, inst)))
        return failure();
      push(inst);
      return success();
    };
    if (auto u = dyn_cast<SfpUnaryOp>(op)) {
      StringRef fn = u.getFn() == "gelu" ? StringRef("gelu_erf") : u.getFn();
      return sfp(isa::Opcode::SfpUnary, lookupName(fn, isa::unaryOpName), u);
    }
    if (auto bin = dyn_cast<SfpBinaryOp>(op))
      return sfp(isa::Opcode::SfpBinary,
                 lookupName(bin.getFn(), isa::binaryOpName), bin);
    if (auto sel = dyn_cast<SfpSelectOp>(op))
      return sfp(isa::Opcode::SfpSelect, uint16_t(0), sel);
    if (auto red = dyn_cast<SfpReduceOp>(op))
      return sfp(isa::Opcode::SfpReduce,
                 lookupName(red.getFn(), isa::reduceOpName), red);
    if (auto tr = dyn_cast<SfpTransposeOp>(op))
      return sfp(isa::Opcode::SfpTranspose, uint16_t(0), tr);
    return op->emitError("cannot encode '") << op->getName() << "'";
  }

  LogicalResult addProgram(ProgramOp p) {
    spy::ProgramDesc desc;
    desc.name = p.getSymName().str();
    std::string loc;
    llvm::raw_string_ostream os(loc);
    p.getLoc().print(os);
    desc.location = loc;
    desc.numCores = int32_t(p.getNumCores());
    desc.numParams = int32_t(p.getNumParams());
    desc.params.assign(p.getParams().begin(), p.getParams().end());
    SmallVector<std::pair<uint32_t, MemAddressAttr>> relocs;
    for (Operation &op : p.getBody().front())
      if (failed(encode(&op, desc, relocs)))
        return failure();
    uint32_t index = writer.addProgram(std::move(desc));
    programIndex[p.getSymName()] = index;
    for (auto [inst, mem] : relocs) {
      auto it = tensorIndex.find(mem.getTensor().getValue());
      if (it == tensorIndex.end())
        return p.emitError("unknown tensor ") << mem.getTensor();
      writer.addRelocation(index, inst, it->second, mem.getOffset());
    }
    return success();
  }
};

} // namespace

LogicalResult emitSpy(ModuleOp module, raw_ostream &os,
                      const SpyEmitOptions &options) {
  Arch arch = getArch(module);
  Emitter emitter(module, arch);
  if (failed(emitter.run(options)))
    return failure();
  std::string error;
  bool ok = emitter.getWriter().writeTo(
      [&](const void *data, uint64_t size, std::string &) {
        os.write(static_cast<const char *>(data), size);
        return true;
      },
      error);
  if (!ok)
    return module.emitError("cannot write the .spy: ") << error;
  return success();
}

LogicalResult emitSpyFile(ModuleOp module, StringRef path,
                          const SpyEmitOptions &options) {
  Arch arch = getArch(module);
  Emitter emitter(module, arch);
  if (failed(emitter.run(options)))
    return failure();
  std::string error;
  if (!emitter.getWriter().write(path.str(), error))
    return module.emitError("cannot write '") << path << "': " << error;
  return success();
}

} // namespace spyre
