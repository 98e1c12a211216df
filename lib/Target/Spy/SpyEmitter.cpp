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
#include "spyre/Spy/WeightsFile.h"
#include "spyre/Target/Pt2/ExternalData.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace mlir;

namespace spyre {

namespace {

class Emitter {
public:
  Emitter(ModuleOp module, const Arch &arch)
      : module(module), arch(arch), writer(arch) {}

  /// `spyPath`: where the .spy goes (empty: a stream).
  LogicalResult run(const SpyEmitOptions &options, StringRef spyPath) {
    if (options.weightBufferBytes)
      streamBufferBytes = options.weightBufferBytes;
    if (failed(checkProgramLevel()) || failed(addTensors()) ||
        failed(placeExternalWeights(options, spyPath)))
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
  /// A `#spyre.external` weight, placed once all are known.
  struct ExternalWeight {
    TensorOp op;
    uint32_t index;
    ExternalDataAttr ext;
    spy::LayoutMap map;
  };
  std::vector<ExternalWeight> externalWeights;

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
      return addExternalWeight(t, index, *dtype, desc, *ext);
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

  LogicalResult addExternalWeight(TensorOp t, uint32_t index, isa::DType dtype,
                                  const spy::TensorDesc &desc,
                                  ExternalDataAttr ext) {
    ExternalWeight w{t, index, ext, spy::LayoutMap()};
    std::string error;
    if (!spy::LayoutMap::create(dtype, desc.shape, desc.layout, arch, w.map,
                                error))
      return t.emitError("invalid layout: ") << error;
    externalWeights.push_back(std::move(w));
    return success();
  }

  /// The device image of `w`, read from its archive when the source is
  /// called, in chunks, through a buffer of bounded size: the weight is
  /// never in memory as a whole.
  FailureOr<spy::DataSource> imageSource(const ExternalWeight &w) {
    FailureOr<std::unique_ptr<spy::StreamedImage>> image =
        externals.open(w.op, w.ext, w.map, streamBufferBytes);
    if (failed(image))
      return failure();
    std::shared_ptr<spy::StreamedImage> source = std::move(*image);
    // The model's name of the weight, as ExternalData's messages give it.
    TensorOp op = w.op;
    std::string name =
        op.getSourceName() ? op.getSourceName()->str() : op.getSymName().str();
    return spy::DataSource([source, name](uint64_t offset, void *buffer,
                                          uint64_t size, std::string &error) {
      if (source->read(offset, buffer, size, error))
        return true;
      error = "weight '" + name + "': " + error;
      return false;
    });
  }

  /// The weights file the options ask for, "" for none.
  FailureOr<std::string> weightsFilePath(const SpyEmitOptions &options,
                                         StringRef spyPath) {
    using Placement = SpyEmitOptions::WeightsPlacement;
    uint64_t total = 0;
    for (const ExternalWeight &w : externalWeights)
      total += w.map.deviceBytes();
    if (options.weights == Placement::Inline || externalWeights.empty() ||
        (options.weights == Placement::Auto &&
         (spyPath.empty() || total < kAutoWeightsFileBytes)))
      return std::string();
    if (!options.weightsFile.empty())
      return options.weightsFile;
    if (spyPath.empty())
      return module.emitError("the weights go to a weights file, but the .spy "
                              "is written to a stream: name the weights file");
    return defaultWeightsFile(spyPath);
  }

  /// Streams the external weights into the .spy, or into a weights file
  /// (reused when it already holds the same images) that the .spy names.
  LogicalResult placeExternalWeights(const SpyEmitOptions &options,
                                     StringRef spyPath) {
    FailureOr<std::string> path = weightsFilePath(options, spyPath);
    if (failed(path))
      return failure();
    return path->empty() ? streamIntoSpy()
                         : placeInWeightsFile(*path, spyPath, options);
  }

  LogicalResult streamIntoSpy() {
    for (const ExternalWeight &w : externalWeights) {
      FailureOr<spy::DataSource> source = imageSource(w);
      if (failed(source))
        return failure();
      writer.setTensorData(w.index, w.map.deviceBytes(), std::move(*source));
    }
    return success();
  }

  LogicalResult placeInWeightsFile(const std::string &path, StringRef spyPath,
                                   const SpyEmitOptions &options) {
    // Keys first: they read no weight data, and decide whether the file
    // there can stay.
    std::vector<spy::WeightsImage> images;
    for (const ExternalWeight &w : externalWeights) {
      FailureOr<uint64_t> key = externals.imageKey(w.op, w.ext, w.map);
      if (failed(key))
        return failure();
      images.push_back({*key, w.map.deviceBytes(), nullptr});
    }
    spy::WeightsIndex index;
    if (!spy::weightsFileMatches(path, images, index) &&
        failed(writeWeightsFile(path, options, images, index)))
      return failure();
    for (size_t i = 0; i < images.size(); ++i) {
      const spy::WeightsEntry &e = index.entries[i];
      writer.setExternalTensorData(externalWeights[i].index,
                                   {e.offset, e.size, e.digest});
    }
    writer.setWeightsFile(recordedWeightsPath(path, spyPath), index.key,
                          index.dataSize);
    return success();
  }

  /// Converts every external weight into a new weights file at `path`.
  LogicalResult writeWeightsFile(const std::string &path,
                                 const SpyEmitOptions &options,
                                 std::vector<spy::WeightsImage> &images,
                                 spy::WeightsIndex &index) {
    if (!options.weightBufferBytes)
      streamBufferBytes = spy::weightsImageBudget(
          spy::weightsWriterThreads(options.weightThreads, images.size()));
    for (size_t i = 0; i < images.size(); ++i) {
      FailureOr<spy::DataSource> source = imageSource(externalWeights[i]);
      if (failed(source))
        return failure();
      images[i].source = std::move(*source);
    }
    std::string error;
    if (!spy::writeWeightsFile(path, images, options.weightThreads, index,
                               error))
      return module.emitError("cannot write the weights file: ") << error;
    return success();
  }

  /// How the .spy names its weights file: a bare name when the two are in
  /// the same directory (the pair can move together), else an absolute
  /// path.
  static std::string recordedWeightsPath(StringRef weights, StringRef spyPath) {
    SmallString<256> absWeights(weights), absSpy(spyPath);
    llvm::sys::fs::make_absolute(absWeights);
    llvm::sys::path::remove_dots(absWeights, /*remove_dot_dot=*/true);
    if (!spyPath.empty()) {
      llvm::sys::fs::make_absolute(absSpy);
      llvm::sys::path::remove_dots(absSpy, /*remove_dot_dot=*/true);
      if (llvm::sys::path::parent_path(absWeights) ==
          llvm::sys::path::parent_path(absSpy))
        return llvm::sys::path::filename(absWeights).str();
    }
    return absWeights.str().str();
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

std::string defaultWeightsFile(StringRef spyPath) {
  SmallString<256> path(spyPath);
  if (llvm::sys::path::extension(path) == ".spy")
    llvm::sys::path::replace_extension(path, ".spyw");
  else
    path += ".spyw";
  return path.str().str();
}

LogicalResult emitSpy(ModuleOp module, raw_ostream &os,
                      const SpyEmitOptions &options) {
  Arch arch = getArch(module);
  Emitter emitter(module, arch);
  if (failed(emitter.run(options, StringRef())))
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
  if (failed(emitter.run(options, path)))
    return failure();
  std::string error;
  if (!emitter.getWriter().write(path.str(), error))
    return module.emitError("cannot write '") << path << "': " << error;
  return success();
}

} // namespace spyre
