//===- SpyEmitter.cpp - Program-level IR to .spy --------------------------===//
//
// A mechanical translation: each `spyre.tensor` becomes a tensor-table entry
// (weights and constants written in their device layout), each instruction
// op one 128-byte instruction (docs/isa.md), each device-memory operand a
// relocation, `spyre.plan` the launch plan and each `spyre.reference` the
// reference of its program (ReferenceEmitter.h).
//
//===----------------------------------------------------------------------===//

#include "spyre/Target/Spy/SpyEmitter.h"
#include "ReferenceEmitter.h"
#include "spyre/Dialect/Spyre/InstEncoder.h"
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

class Emitter {
public:
  Emitter(ModuleOp module, const Arch &arch)
      : module(module), arch(arch), writer(arch) {}

  LogicalResult run(const SpyEmitOptions &options) {
    if (options.weightBufferBytes)
      streamBufferBytes = options.weightBufferBytes;
    if (failed(checkProgramLevel()) || failed(addTensors()))
      return failure();
    linkUpdatedTensors();
    if (failed(addPrograms()))
      return failure();
    addPlan();
    setMetadata(options);
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

  /// The emitter reads only program-level modules: spyre.tensor,
  /// spyre.program and spyre.plan ops, no functions.
  LogicalResult checkProgramLevel() {
    if (!module.getOps<func::FuncOp>().empty() ||
        module.getOps<PlanOp>().empty())
      return module.emitError("the module is not at program level (it needs "
                              "spyre.tensor, spyre.program and spyre.plan ops "
                              "and no functions); run spyre-opt "
                              "--spyre-pipeline first");
    return success();
  }

  LogicalResult addTensors() {
    for (TensorOp t : module.getOps<TensorOp>())
      if (failed(addTensor(t)))
        return failure();
    return success();
  }

  /// Mutated buffers are declared after the outputs that update them, so
  /// the links are set once every tensor has its index.
  void linkUpdatedTensors() {
    for (TensorOp t : module.getOps<TensorOp>())
      if (auto updates = t.getUpdatesAttr())
        writer.tensor(tensorIndex.lookup(t.getSymName())).updatesTensor =
            int32_t(tensorIndex.lookup(updates.getValue()));
  }

  LogicalResult addPrograms() {
    llvm::StringMap<ReferenceOp> references;
    for (ReferenceOp ref : module.getOps<ReferenceOp>())
      references[ref.getProgram()] = ref;
    for (ProgramOp p : module.getOps<ProgramOp>())
      if (failed(addProgram(p, references.lookup(p.getSymName()))))
        return failure();
    return success();
  }

  /// The plan: the programs to run, in order.
  void addPlan() {
    for (PlanOp plan : module.getOps<PlanOp>())
      for (auto ref : plan.getPrograms().getAsRange<FlatSymbolRefAttr>())
        writer.addStep(programIndex.lookup(ref.getValue()));
  }

  /// The metadata strings (the options win over the module's attributes)
  /// and the workspace size.
  void setMetadata(const SpyEmitOptions &options) {
    std::string source = options.sourceModel;
    if (auto s = module->getAttrOfType<StringAttr>("spyre.source");
        s && source.empty())
      source = s.getValue().str();
    std::string pipeline = options.pipeline;
    if (auto p = module->getAttrOfType<StringAttr>("spyre.pipeline");
        p && pipeline.empty())
      pipeline = p.getValue().str();
    writer.setMetadata(source, SPYRE_VERSION_STRING, pipeline);
    if (auto ws = module->getAttrOfType<IntegerAttr>("spyre.workspace_bytes"))
      writer.setWorkspaceSize(ws.getInt());
  }

  LogicalResult addTensor(TensorOp t) {
    RankedTensorType type = t.getTensorType();
    FailureOr<isa::DType> dtype = deviceDType(t, type.getElementType());
    if (failed(dtype))
      return failure();
    LayoutAttr layout = getLayout(type);
    spy::TensorDesc desc;
    desc.name = t.getSymName().str();
    if (std::optional<StringRef> source = t.getSourceName())
      desc.sourceName = source->str();
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
        // Non-bool dense data is stored element by element, as the host
        // image is.
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
    writer.setTensorData(index, map->deviceBytes(),
                         [map, src](uint64_t offset, void *buffer,
                                    uint64_t size, std::string &) {
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
    writer.setTensorData(index, map.deviceBytes(),
                         [source, name](uint64_t offset, void *buffer,
                                        uint64_t size, std::string &error) {
                           if (source->read(offset, buffer, size, error))
                             return true;
                           error = "weight '" + name + "': " + error;
                           return false;
                         });
    return success();
  }

  //===--- Programs -------------------------------------------------------===//

  LogicalResult addProgram(ProgramOp p, ReferenceOp reference) {
    spy::ProgramDesc desc;
    if (reference) {
      FailureOr<spy::KernelReferenceDesc> ref =
          buildKernelReference(reference, tensorIndex);
      if (failed(ref))
        return failure();
      desc.reference = std::move(*ref);
    }
    desc.name = p.getSymName().str();
    std::string loc;
    llvm::raw_string_ostream os(loc);
    p.getLoc().print(os);
    desc.location = loc;
    desc.numCores = int32_t(p.getNumCores());
    desc.numParams = int32_t(p.getNumParams());
    desc.params.assign(p.getParams().begin(), p.getParams().end());
    InstEncoder encoder;
    if (failed(encoder.encodeBlock(p.getBody().front())))
      return failure();
    desc.insts = std::move(encoder.insts);
    uint32_t index = writer.addProgram(std::move(desc));
    programIndex[p.getSymName()] = index;
    // The instruction verifiers check that every tensor symbol exists.
    for (auto [inst, mem] : encoder.relocations)
      writer.addRelocation(index, inst,
                           tensorIndex.lookup(mem.getTensor().getValue()),
                           mem.getOffset());
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
