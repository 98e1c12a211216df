//===- DataMovement.cpp - Kernels that only move bytes --------------------===//
//
// Plans and programs of the kernels that move data by DMA alone:
//   * copies: slices (any offsets and steps), concatenations (each input
//     into its region of the result) and reshapes that are not views
//     (repacked through LX in chunks holding whole rows of both shapes);
//   * gathers: table rows picked by an index tensor (embedding);
//   * scatters: a copy of a tensor with slices replaced at runtime indices.
// Tiles are whole rows: a copied row may start anywhere inside a stick, so
// device-side runs are exact bytes while LX rows stay whole sticks (the DMA
// `lx_pitch`), and nothing outside a region is ever written.
//
//===----------------------------------------------------------------------===//

#include "ProgramScope.h"
#include "spyre/Support/MathExtras.h"
#include "spyre/Transforms/CostModel.h"
#include "spyre/Transforms/KernelLowering.h"

#include "llvm/ADT/TypeSwitch.h"

#include <numeric>

using namespace mlir;

namespace spyre {

namespace {

int64_t lastDim(RankedTensorType t) {
  return t.getRank() ? t.getShape().back() : 1;
}

/// Bytes of one row (the innermost dim, padded to whole sticks).
int64_t rowBytes(RankedTensorType t, const Arch &arch) {
  int64_t e = elementsPerStick(t.getElementType(), arch);
  return llvm::divideCeil(lastDim(t), e) * arch.stickBytes;
}

/// Byte stride of dim `d` of a canonical tensor (for the last dim: of one
/// element).
int64_t dimBytes(RankedTensorType t, int64_t d, const Arch &arch) {
  int64_t eb = getElementBytes(t.getElementType());
  if (d == t.getRank() - 1)
    return eb;
  int64_t stride = rowBytes(t, arch);
  for (int64_t i = t.getRank() - 2; i > d; --i)
    stride *= t.getDimSize(i);
  return stride;
}

/// Byte offset of the element at tensor index `idx` of a canonical tensor.
int64_t byteOffset(RankedTensorType t, ArrayRef<int64_t> idx,
                   const Arch &arch) {
  int64_t off = 0;
  for (auto [d, i] : llvm::enumerate(idx))
    off += i * dimBytes(t, d, arch);
  return off;
}

/// Per-core start/count of `size` iterations in tiles of `tile`, split
/// over `split` cores (core coordinate `coord`).
std::pair<int64_t, int64_t> shareOf(int64_t size, int64_t tile, int64_t split,
                                    int64_t coord) {
  int64_t tiles = llvm::divideCeil(size, tile);
  split = std::max<int64_t>(1, std::min(split, tiles));
  if (coord >= split)
    return {0, 0};
  int64_t first = coord * tiles / split, end = (coord + 1) * tiles / split;
  return {first * tile, end - first};
}

/// One strided access of a tensor: region index i maps to tensor index
/// offsets + i * steps.
struct Access {
  unsigned tensor; // index into the kernel's tensor symbols
  RankedTensorType type;
  SmallVector<int64_t> offsets, steps;
};

/// A region of `shape` copied from `src` to `dst`.
struct RegionCopy {
  Access src, dst;
  SmallVector<int64_t> shape;
};

class DataMovementLowering {
public:
  DataMovementLowering(const KernelPlan &plan, OpBuilder &b,
                       ArrayRef<FlatSymbolRefAttr> symbols)
      : plan(plan), arch(plan.arch),
        scope(b, plan.kernel.getLoc(), plan.numCores()), b(b), symbols(symbols),
        ctx(b.getContext()) {}

  LogicalResult lower(StringRef name) {
    ProgramOp program = scope.begin(name, plan.kernel.getName());
    Operation *op = &plan.kernel.getBodyBlock().front();
    LogicalResult result =
        TypeSwitch<Operation *, LogicalResult>(op)
            .Case([&](SliceOp slice) { return copySlice(slice); })
            .Case([&](ConcatOp concat) { return copyConcat(concat); })
            .Case([&](ReshapeOp) {
              repack();
              return success();
            })
            .Case([&](GatherOp gather) { return lowerGather(gather); })
            .Case([&](ScatterOp scatter) { return lowerScatter(scatter); })
            .Default([](Operation *op) {
              return op->emitError("not a data movement kernel body");
            });
    scope.finish();
    if (failed(result))
      return failure();
    plan.describe(program);
    return success();
  }

private:
  const KernelPlan &plan;
  const Arch &arch;
  ProgramScope scope;
  OpBuilder &b;
  ArrayRef<FlatSymbolRefAttr> symbols;
  MLIRContext *ctx;

  Location loc() { return scope.loc; }
  unsigned resultIndex() { return plan.kernel.getInputs().size(); }
  LxAddressAttr lxOf(const PlanBuffer &buf) {
    return scope.lx(buf.offset, buf.bytes, buf.copies);
  }

  MemAddressAttr mem(unsigned tensor, int64_t offset, ArrayRef<int64_t> perCore,
                     ArrayRef<int64_t> strides) {
    return MemAddressAttr::get(ctx, symbols[tensor], offset, strides,
                               scope.params.slot(perCore));
  }

  void dma(bool store, MemAddressAttr m, LxAddressAttr lx,
           ArrayRef<int64_t> box, ArrayRef<int64_t> pitch, int64_t run,
           ClampAttr clamp, int64_t lxPitch) {
    IntegerAttr pitchAttr;
    if (lxPitch && lxPitch != box[1] * box[2] * run)
      pitchAttr = scope.i64(lxPitch);
    if (store)
      DmaStoreOp::create(b, loc(), m, lx, b.getDenseI64ArrayAttr(box),
                         b.getDenseI64ArrayAttr(pitch), scope.i64(run), clamp,
                         UnitAttr(), pitchAttr);
    else
      DmaLoadOp::create(b, loc(), m, lx, b.getDenseI64ArrayAttr(box),
                        b.getDenseI64ArrayAttr(pitch), scope.i64(run), clamp,
                        UnitAttr(), pitchAttr);
  }

  //===--- Region copies --------------------------------------------------===//

  LogicalResult copySlice(SliceOp slice) {
    auto out = cast<RankedTensorType>(slice.getType());
    RegionCopy c;
    c.src = {0, cast<RankedTensorType>(slice.getInput().getType()),
             SmallVector<int64_t>(slice.getOffsets()),
             SmallVector<int64_t>(slice.getStrides())};
    c.dst = {resultIndex(), out, SmallVector<int64_t>(out.getRank(), 0),
             SmallVector<int64_t>(out.getRank(), 1)};
    c.shape = SmallVector<int64_t>(out.getShape());
    return copyRegion(c);
  }

  LogicalResult copyConcat(ConcatOp concat) {
    auto out = cast<RankedTensorType>(concat.getType());
    int64_t offset = 0;
    for (auto [i, v] : llvm::enumerate(concat.getInputs())) {
      auto in = cast<RankedTensorType>(v.getType());
      RegionCopy c;
      c.src = {unsigned(i), in, SmallVector<int64_t>(in.getRank(), 0),
               SmallVector<int64_t>(in.getRank(), 1)};
      c.dst = {resultIndex(), out, SmallVector<int64_t>(out.getRank(), 0),
               SmallVector<int64_t>(out.getRank(), 1)};
      c.dst.offsets[concat.getDim()] = offset;
      c.shape = SmallVector<int64_t>(in.getShape());
      offset += in.getDimSize(concat.getDim());
      if (failed(copyRegion(c)))
        return failure();
    }
    return success();
  }

  /// How the columns (innermost dim) of an access move: whole sticks,
  /// an exact run of bytes, or one element at a time (a step along them).
  struct Columns {
    int64_t offset; // bytes from the row's start to the first column
    SmallVector<int64_t> box, pitch;
    int64_t run;
  };
  Columns columns(const Access &a, int64_t cols, bool isDst) {
    RankedTensorType t = a.type;
    int64_t eb = getElementBytes(t.getElementType());
    int64_t e = elementsPerStick(t.getElementType(), arch);
    int64_t off = t.getRank() ? a.offsets.back() : 0;
    int64_t step = t.getRank() ? a.steps.back() : 1;
    Columns c;
    c.offset = off / e * arch.stickBytes + off % e * eb;
    bool aligned = off % e == 0 && step == 1 &&
                   (!isDst || (off == 0 && cols == lastDim(t)));
    if (aligned) {
      c.box = {0, 1, 1};
      c.run = llvm::divideCeil(cols, e) * arch.stickBytes;
    } else if (step == 1) {
      c.box = {0, 1, 1};
      c.run = cols * eb;
    } else {
      c.box = {0, cols, 1};
      c.pitch = {0, step * eb, 0};
      c.run = eb;
    }
    if (c.pitch.empty())
      c.pitch = {0, 0, 0};
    return c;
  }

  /// How the loops over a region's outer dims (tile 1) and its row dim
  /// (tile `tr`) are shared among the cores: each core's first index and
  /// tile count per loop (loop d is dim d).
  struct LoopShare {
    int64_t rowDim = -1, tr = 1;
    SmallVector<SmallVector<int64_t>> starts, counts;
  };

  /// Shares the loops over all dims of `shape` but the last among the
  /// cores as the schedule splits them.
  LoopShare shareLoops(ArrayRef<int64_t> shape, int64_t rowDim, int64_t tr) {
    int64_t numLoops = std::max<int64_t>(int64_t(shape.size()) - 1, 0);
    LoopShare s;
    s.rowDim = rowDim;
    s.tr = tr;
    s.starts.resize(numLoops);
    s.counts.resize(numLoops);
    for (int64_t core = 0; core < plan.numCores(); ++core) {
      int64_t rest = core;
      for (int64_t d = numLoops - 1; d >= 0; --d) {
        int64_t split = plan.loops[d].split;
        auto [start, count] =
            shareOf(shape[d], d == rowDim ? tr : 1, split, rest % split);
        rest /= split;
        s.starts[d].push_back(start);
        s.counts[d].push_back(count);
      }
    }
    return s;
  }

  /// Opens a loop per shared dim where some core runs other than one
  /// iteration (a core with nothing to do must not run the body once).
  /// Returns how many were opened.
  size_t openSharedLoops(const LoopShare &s) {
    size_t opened = 0;
    for (auto [d, counts] : llvm::enumerate(s.counts))
      if (llvm::any_of(counts, [](int64_t n) { return n != 1; })) {
        scope.openLoop(counts, d);
        ++opened;
      }
    return opened;
  }

  void closeLoops(size_t n) {
    for (size_t i = 0; i < n; ++i)
      scope.closeLoop();
  }

  /// Each core's byte offset to its first tile (`bytesOfDim`: bytes per
  /// index of a dim).
  SmallVector<int64_t>
  perCoreOffsets(const LoopShare &s,
                 function_ref<int64_t(int64_t)> bytesOfDim) {
    SmallVector<int64_t> offsets;
    for (int64_t core = 0; core < plan.numCores(); ++core) {
      int64_t off = 0;
      for (int64_t d = 0; d < int64_t(s.starts.size()); ++d)
        off += s.starts[d][core] * bytesOfDim(d);
      offsets.push_back(off);
    }
    return offsets;
  }

  /// The bytes each open loop advances by (a tile along the row dim, one
  /// index along the others).
  SmallVector<int64_t> loopStrides(const LoopShare &s,
                                   function_ref<int64_t(int64_t)> bytesOfDim) {
    return scope.memStrides(
        [&](int64_t d) { return (d == s.rowDim ? s.tr : 1) * bytesOfDim(d); });
  }

  /// Bytes from the tensor's base to the region's first row, plus the
  /// columns' offset into it.
  int64_t regionBase(const Access &a, const Columns &col, int64_t rank) {
    SmallVector<int64_t> idx(a.offsets);
    if (rank)
      idx.back() = 0;
    return byteOffset(a.type, idx, arch) + col.offset;
  }

  /// The clamp of the region's row tiles at the edge (null without rows).
  ClampAttr regionRowClamp(const LoopShare &s, const RegionCopy &c) {
    if (s.rowDim < 0)
      return nullptr;
    SmallVector<int64_t> rowStarts;
    for (int64_t core = 0; core < plan.numCores(); ++core)
      rowStarts.push_back(s.starts.back()[core]);
    return scope.clamp(s.rowDim, 0, s.tr, c.shape[s.rowDim], rowStarts);
  }

  /// Loads a tile of the region's rows into LX, then stores it.
  void moveRegionTile(const RegionCopy &c, const LoopShare &s, int64_t cols,
                      LxAddressAttr lx, ClampAttr clamp, int64_t lxRow) {
    for (bool store : {false, true}) {
      const Access &a = store ? c.dst : c.src;
      auto bytesOfDim = [&](int64_t d) {
        return a.steps[d] * dimBytes(a.type, d, arch);
      };
      Columns col = columns(a, cols, store);
      SmallVector<int64_t> box = col.box, pitch = col.pitch;
      box[0] = s.tr;
      pitch[0] = s.rowDim >= 0 ? bytesOfDim(s.rowDim) : 0;
      dma(store,
          mem(a.tensor, regionBase(a, col, c.shape.size()),
              perCoreOffsets(s, bytesOfDim), loopStrides(s, bytesOfDim)),
          lx, box, pitch, col.run, clamp, lxRow);
    }
  }

  /// Copies a region: outer dims and row tiles split over the cores as the
  /// schedule says (clamped to the region), whole rows per tile.
  LogicalResult copyRegion(const RegionCopy &c) {
    int64_t rank = c.shape.size();
    if (rank > 4)
      return plan.kernel.emitError("copies of rank ")
             << rank << " are not supported (at most 4)";
    if (llvm::is_contained(c.shape, 0))
      return success();
    int64_t rowDim = rank >= 2 ? rank - 2 : -1;
    int64_t cols = rank ? c.shape.back() : 1;
    int64_t tr =
        rowDim >= 0 ? std::min(plan.loops[rowDim].tile, c.shape[rowDim]) : 1;
    const PlanBuffer &tile = plan.buffer("tile");
    int64_t lxRow = rowBytes(
        RankedTensorType::get({cols}, c.dst.type.getElementType()), arch);
    // Loops: outer dims (tile 1) and the row dim (tile tr).
    LoopShare s = shareLoops(c.shape, rowDim, tr);
    size_t opened = openSharedLoops(s);
    ClampAttr clamp = regionRowClamp(s, c);
    LxAddressAttr lx = lxOf(tile);
    moveRegionTile(c, s, cols, lx, clamp, lxRow);
    closeLoops(opened);
    return success();
  }

  //===--- Reshapes that are not views ------------------------------------===//

  /// Rows of both shapes are moved through LX as flat, packed elements:
  /// each tile holds whole chunks of lcm(Lin, Lout) elements.
  void repack() {
    auto in = cast<RankedTensorType>(plan.kernel.getInputs()[0].getType());
    auto out = cast<RankedTensorType>(plan.kernel.getResult(0).getType());
    int64_t eb = getElementBytes(in.getElementType());
    int64_t lin = lastDim(in), lout = lastDim(out);
    int64_t total = in.getNumElements();
    int64_t chunk = plan.repackChunk, per = plan.repackTileChunks;
    int64_t chunks = total / chunk;
    int64_t cores = plan.numCores();
    SmallVector<int64_t> starts, counts;
    for (int64_t core = 0; core < cores; ++core) {
      auto [start, count] = shareOf(chunks, per, cores, core);
      starts.push_back(start);
      counts.push_back(count);
    }
    bool looped = llvm::any_of(counts, [](int64_t n) { return n != 1; });
    if (looped)
      scope.openLoop(counts, 0);
    const PlanBuffer &buf = plan.buffer("tile");
    LxAddressAttr lx = lxOf(buf);
    for (bool store : {false, true}) {
      RankedTensorType t = store ? out : in;
      int64_t len = store ? lout : lin;
      int64_t rowsPerChunk = chunk / len;
      int64_t pitch = rowBytes(t, arch);
      SmallVector<int64_t> rowStarts, offsets;
      for (int64_t core = 0; core < cores; ++core) {
        rowStarts.push_back(starts[core] * rowsPerChunk);
        offsets.push_back(starts[core] * rowsPerChunk * pitch);
      }
      ClampAttr clamp =
          scope.clamp(0, 0, per * rowsPerChunk, total / len, rowStarts);
      SmallVector<int64_t> strides =
          scope.memStrides([&](int64_t) { return per * rowsPerChunk * pitch; });
      dma(store, mem(store ? resultIndex() : 0, 0, offsets, strides), lx,
          {per * rowsPerChunk, 1, 1}, {pitch, 0, 0}, len * eb, clamp, 0);
    }
    if (looped)
      scope.closeLoop();
  }

  //===--- Gathers --------------------------------------------------------===//

  LogicalResult lowerGather(GatherOp gather) {
    auto table = cast<RankedTensorType>(gather.getTable().getType());
    auto idx = cast<RankedTensorType>(gather.getIndices().getType());
    auto out = cast<RankedTensorType>(gather.getType());
    int64_t rank = out.getRank();
    if (rank > 4)
      return gather.emitError("gathers with more than 3 index dims are not "
                              "supported");
    int64_t ieb = getElementBytes(idx.getElementType());
    int64_t rowDim = rank - 2;
    int64_t tr = std::min(plan.loops[rowDim].tile, out.getDimSize(rowDim));
    LoopShare s = shareLoops(out.getShape(), rowDim, tr);
    size_t opened = openSharedLoops(s);
    SmallVector<int64_t> rowStarts = s.starts[rowDim];
    ClampAttr rowClamp =
        scope.clamp(rowDim, 0, tr, out.getDimSize(rowDim), rowStarts);
    // The tile's indices: tr consecutive elements of the index tensor's
    // last dim (an exact run, clamped in bytes at the edge).
    auto idxBytes = [&](int64_t d) { return dimBytes(idx, d, arch); };
    SmallVector<int64_t> byteStarts;
    for (int64_t start : rowStarts)
      byteStarts.push_back(start * ieb);
    ClampAttr runClamp = scope.clamp(rowDim, 3, tr * ieb,
                                     out.getDimSize(rowDim) * ieb, byteStarts);
    const PlanBuffer &idxBuf = plan.buffer("idx");
    const PlanBuffer &tile = plan.buffer("tile");
    dma(false, mem(1, 0, perCoreOffsets(s, idxBytes), loopStrides(s, idxBytes)),
        lxOf(idxBuf), {1, 1, 1}, {0, 0, 0}, tr * ieb, runClamp, 0);
    int64_t row = rowBytes(out, arch);
    DmaGatherOp::create(b, loc(), mem(0, 0, {}, {}), lxOf(tile), lxOf(idxBuf),
                        TypeAttr::get(idx.getElementType()), scope.i64(tr),
                        scope.i64(table.getDimSize(0)),
                        scope.i64(rowBytes(table, arch)), scope.i64(row),
                        rowClamp);
    auto outBytes = [&](int64_t d) { return dimBytes(out, d, arch); };
    dma(true,
        mem(resultIndex(), 0, perCoreOffsets(s, outBytes),
            loopStrides(s, outBytes)),
        lxOf(tile), {tr, 1, 1}, {outBytes(rowDim), 0, 0}, row, rowClamp, 0);
    closeLoops(opened);
    return success();
  }

  //===--- Scatters -------------------------------------------------------===//

  LogicalResult lowerScatter(ScatterOp scatter) {
    auto dest = cast<RankedTensorType>(scatter.getDest().getType());
    auto src = cast<RankedTensorType>(scatter.getSource().getType());
    auto idx = cast<RankedTensorType>(scatter.getIndices().getType());
    int64_t dim = scatter.getDim();
    int64_t rank = dest.getRank();
    // 1. The copy of dest (one core: the scatter below must follow it).
    RegionCopy copy;
    copy.src = {0, dest, SmallVector<int64_t>(rank, 0),
                SmallVector<int64_t>(rank, 1)};
    copy.dst = {resultIndex(), dest, SmallVector<int64_t>(rank, 0),
                SmallVector<int64_t>(rank, 1)};
    copy.shape = SmallVector<int64_t>(dest.getShape());
    if (failed(copyRegion(copy)))
      return failure();
    // 2. The indices, whole.
    int64_t n = idx.getDimSize(0);
    int64_t ieb = getElementBytes(idx.getElementType());
    const PlanBuffer &idxBuf = plan.buffer("idx");
    const PlanBuffer &rows = plan.buffer("src");
    dma(false, mem(1, 0, {}, {}), lxOf(idxBuf), {1, 1, 1}, {0, 0, 0}, n * ieb,
        nullptr, 0);
    // 3. Per outer index of the source, its n rows along `dim` scattered.
    SmallVector<int64_t> outer;
    for (int64_t d = 0; d + 1 < rank; ++d)
      if (d != dim && src.getDimSize(d) > 1)
        outer.push_back(d);
    if (outer.size() > 3)
      return scatter.emitError("scatters with more than 3 outer dims are not "
                               "supported");
    for (int64_t d : outer)
      scope.openLoop({src.getDimSize(d)}, d);
    int64_t row = rowBytes(src, arch);
    auto srcStrides =
        scope.memStrides([&](int64_t d) { return dimBytes(src, d, arch); });
    auto dstStrides =
        scope.memStrides([&](int64_t d) { return dimBytes(dest, d, arch); });
    dma(false, mem(2, 0, {}, srcStrides), lxOf(rows), {n, 1, 1},
        {dimBytes(src, dim, arch), 0, 0}, row, nullptr, 0);
    DmaScatterOp::create(
        b, loc(), mem(resultIndex(), 0, {}, dstStrides), lxOf(rows),
        lxOf(idxBuf), TypeAttr::get(idx.getElementType()), scope.i64(n),
        scope.i64(dest.getDimSize(dim)), scope.i64(dimBytes(dest, dim, arch)),
        scope.i64(row), nullptr);
    for (size_t i = 0; i < outer.size(); ++i)
      scope.closeLoop();
    return success();
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// Plans
//===----------------------------------------------------------------------===//

/// Reports `msg` at the plan's kernel when `emitErrors`; always fails.
static LogicalResult planError(const KernelPlan &plan, bool emitErrors,
                               const Twine &msg) {
  if (emitErrors)
    plan.kernel.emitError(msg);
  return failure();
}

/// The kernel's inputs and results, which must have canonical layouts (no
/// buffers of their own: the data moves through "tile").
static LogicalResult addDataMovementTensors(KernelPlan &plan, bool emitErrors) {
  KernelOp kernel = plan.kernel;
  SmallVector<Value> all(kernel.getInputs());
  llvm::append_range(all, kernel.getResults());
  for (auto [i, v] : llvm::enumerate(all)) {
    PlanTensor t;
    t.value = v;
    t.isResult = i >= kernel.getInputs().size();
    t.index = t.isResult ? i - kernel.getInputs().size() : i;
    t.type = cast<RankedTensorType>(v.getType());
    LayoutAttr layout = getLayout(t.type);
    if (!layout ||
        layout != LayoutAttr::getCanonical(t.type, plan.arch.stickBytes))
      return planError(plan, emitErrors,
                       "data movement needs canonical layouts (sticks along "
                       "the innermost dim)");
    t.elementBytes = getElementBytes(t.type.getElementType());
    t.elementsPerStick = layout.getStickElems();
    t.loopBytes.assign(plan.loops.size(), 0);
    plan.tensors.push_back(t);
    plan.tensorBuffer.push_back(-1);
  }
  return success();
}

static void addDataMovementBuffer(KernelPlan &plan, StringRef name,
                                  int64_t bytes, int64_t copies) {
  plan.buffers.push_back(
      {name.str(),
       alignTo(std::max<int64_t>(bytes, 1), plan.arch.lxAlignment),
       copies,
       -1,
       {}});
}

/// A reshape repacks chunks of lcm(Lin, Lout) elements (whole rows of both
/// shapes), as many per tile as LX and the core's share allow.
static LogicalResult planRepack(KernelPlan &plan, ReshapeOp reshape,
                                RankedTensorType out, bool emitErrors) {
  const Arch &arch = plan.arch;
  int64_t depth = plan.schedule.getDepth();
  auto in = cast<RankedTensorType>(reshape.getInput().getType());
  int64_t eb = getElementBytes(in.getElementType());
  int64_t chunk = std::lcm(lastDim(in), lastDim(out));
  int64_t budget = arch.usableLxBytes() / (2 * depth);
  if (chunk * eb > budget)
    return planError(plan, emitErrors,
                     "the reshape from " + Twine(lastDim(in)) + "- to " +
                         Twine(lastDim(out)) +
                         "-element rows needs chunks of " + Twine(chunk) +
                         " elements, more than LX holds");
  int64_t chunks = in.getNumElements() / chunk;
  int64_t perCore = llvm::divideCeil(chunks, plan.numCores());
  plan.repackChunk = chunk;
  plan.repackTileChunks =
      std::max<int64_t>(1, std::min(perCore, budget / (chunk * eb)));
  addDataMovementBuffer(plan, "tile", plan.repackTileChunks * chunk * eb,
                        depth);
  return success();
}

/// A gather's tile of indices and tile of table rows.
static LogicalResult planGather(KernelPlan &plan, RankedTensorType out,
                                bool emitErrors) {
  int64_t depth = plan.schedule.getDepth();
  int64_t rows = plan.rowTile();
  auto idx = cast<RankedTensorType>(plan.kernel.getInputs()[1].getType());
  if (lastDim(idx) != out.getDimSize(out.getRank() - 2))
    return planError(plan, emitErrors,
                     "gather indices do not match the result rows");
  addDataMovementBuffer(plan, "idx",
                        rows * getElementBytes(idx.getElementType()), depth);
  addDataMovementBuffer(plan, "tile", rows * rowBytes(out, plan.arch), depth);
  return success();
}

/// A scatter's copy tile, its whole source rows and its whole indices.
static LogicalResult planScatter(KernelPlan &plan, ScatterOp scatter,
                                 RankedTensorType out) {
  const Arch &arch = plan.arch;
  int64_t rows = plan.rowTile();
  auto src = cast<RankedTensorType>(scatter.getSource().getType());
  auto idx = cast<RankedTensorType>(scatter.getIndices().getType());
  addDataMovementBuffer(plan, "tile", rows * rowBytes(out, arch),
                        plan.schedule.getDepth());
  addDataMovementBuffer(
      plan, "src", src.getDimSize(scatter.getDim()) * rowBytes(src, arch), 1);
  addDataMovementBuffer(
      plan, "idx", idx.getDimSize(0) * getElementBytes(idx.getElementType()),
      1);
  return success();
}

LogicalResult KernelPlan::buildDataMovement(bool emitErrors) {
  Operation *op = &kernel.getBodyBlock().front();
  if (failed(addDataMovementTensors(*this, emitErrors)))
    return failure();
  auto out = cast<RankedTensorType>(kernel.getResult(0).getType());
  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](ReshapeOp reshape) {
        return planRepack(*this, reshape, out, emitErrors);
      })
      .Case([&](GatherOp) { return planGather(*this, out, emitErrors); })
      .Case([&](ScatterOp scatter) { return planScatter(*this, scatter, out); })
      .Default([&](Operation *) {
        // Slices and concatenations: LX rows of the result's row bytes.
        addDataMovementBuffer(*this, "tile", rowTile() * rowBytes(out, arch),
                              schedule.getDepth());
        return success();
      });
}

LogicalResult lowerDataMovement(const KernelPlan &plan, OpBuilder &b,
                                StringRef name,
                                ArrayRef<FlatSymbolRefAttr> tensorSymbols) {
  DataMovementLowering lowering(plan, b, tensorSymbols);
  return lowering.lower(name);
}

} // namespace spyre
