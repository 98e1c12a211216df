//===- KernelPlan.h - How a scheduled kernel runs ---------------*- C++ -*-===//
//
// A KernelPlan is everything about one kernel that follows from its IR (loop
// nest, body, layouts), a schedule and the machine: the kind of kernel, its
// loops and their roles, the tile of every tensor it reads or writes, the
// body values kept in LX, the buffers, each core's share and the per-tile
// work. spyre-schedule-cores evaluates plans of candidate schedules,
// spyre-allocate-scratchpad places a plan's buffers and
// spyre-lower-to-program emits instructions from it, so the three always
// agree.
//
// Kernel kinds (docs/passes.md has the details and limits):
//   * Matmul: a `spyre.matmul` root with an elementwise epilogue; loops
//     (batch..., m, n, k), k accumulated on the PT unit;
//   * Elementwise: unary/binary/compare/select/cast ops and data movement
//     that keeps the stick dim innermost (transpose, broadcast, restickify);
//   * Reduction: elementwise ops and `spyre.reduce`s along one loop: the
//     stick loop (whole rows in a tile: softmax, norms) or another loop
//     (accumulated over its tiles: column sums);
//   * Transpose: a transpose/restickify that moves the stick dim (SFP
//     transposes of tiles);
//   * Copy: slices, concatenations and reshapes that move bytes by DMA only;
//   * Gather: rows of a table picked by an index tensor (embedding);
//   * Scatter: a copy of a tensor with slices replaced at runtime indices
//     (index_copy into a KV cache), on one core so that the copy precedes
//     the scatter;
//   * Attention: a flash-attention kernel (one `spyre.attention`): loops
//     (batch..., m, ev, s, e), the key positions s streamed with an online
//     softmax (lib/Transforms/AttentionKernel.cpp).
// In every kind one loop is the *stick loop* (the innermost dim of the
// results), one the *row loop* (tiles of several rows), and the other
// parallel loops are *outer* loops with tiles of 1.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_TRANSFORMS_KERNELPLAN_H
#define SPYRE_TRANSFORMS_KERNELPLAN_H

#include "spyre/Dialect/Spyre/SpyreOps.h"
#include "spyre/Transforms/CostModel.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"

namespace spyre {

enum class KernelKind {
  Matmul,
  Elementwise,
  Reduction,
  Transpose,
  Copy,
  Gather,
  Scatter,
  Attention
};

/// For data movement ops: whether the stick dim of the result is read from
/// the stick dim of the input (each tile moves as it is).
bool keepsStick(mlir::Operation *op);
/// Whether `slice` reads a window of a kernel input in place: unit
/// strides, the input's layout, on a kernel input (the window's offsets
/// are in the input's map). Not `yielded`: a tile alias starting a body
/// (spyre-reorder-on-chip folded a window kernel into the kernel);
/// `yielded`: the whole body of such a window kernel.
bool isWindowRead(SliceOp slice, bool yielded = false);

/// A data movement op that leaves every tile as it is (a transpose or
/// restickify keeping the stick dim, a window of an input): an alias of its
/// operand's tile, the kernel reads or writes the tensor through a permuted
/// or offset map.
bool isTileAlias(mlir::Operation *op);
/// A gather of kernel inputs (table rows picked by an index input) that
/// starts a compute kernel's body: spyre-reorder-on-chip folded a gather
/// kernel into its reader, which loads the rows by DmaGather. A tile alias
/// of the table.
bool isGatherRead(mlir::Operation *op);
/// A broadcast of a kernel input along outer dims only (its last two dims
/// are the input's): every tile is the input's tile, so the kernel reads
/// the input once for all the copies (an expert's `x.repeat(E, 1)`,
/// `expand`). A tile alias of the input.
bool isBroadcastRead(mlir::Operation *op);
/// The kernel input a body value is, looking through tile aliases; -1 when
/// the value is computed.
int64_t aliasedInput(mlir::Value v);

/// Name of a kernel kind for messages.
llvm::StringRef kernelKindName(KernelKind kind);

enum class LoopRole { Outer, Row, Stick, Reduction };

struct PlanLoop {
  int64_t size = 1;
  int64_t tile = 1;
  int64_t split = 1;
  LoopRole role = LoopRole::Outer;
  bool reduction = false;
  int64_t numTiles() const { return (size + tile - 1) / tile; }
  bool hasEdge() const { return size % tile != 0; }
};

/// A kernel input or result as the kernel moves it between device memory
/// and LX, tile by tile. Tiles are `rows` rows of `sticks` sticks.
struct PlanTensor {
  /// `value` (input or result `index`, of a laid-out type) with its type,
  /// element and stick sizes filled in and no bytes along any of
  /// `numLoops` loops yet.
  static PlanTensor of(mlir::Value value, bool isResult, unsigned index,
                       size_t numLoops);

  mlir::Value value; // kernel operand or result (outside the kernel)
  bool isResult = false;
  unsigned index = 0; // input or result number
  mlir::RankedTensorType type;
  int64_t elementBytes = 0;
  int64_t elementsPerStick = 0;
  /// Loop whose tiles are this tensor's LX rows (-1: one row).
  int64_t rowLoop = -1;
  /// Loop indexing this tensor's stick dim (-1: broadcast along sticks).
  int64_t stickLoop = -1;
  int64_t rows = 1;
  int64_t sticks = 1;
  /// Device bytes between consecutive rows / sticks of a tile.
  int64_t rowPitch = 0;
  int64_t stickPitch = 0;
  /// Device bytes per element of each loop (0: independent of it). For the
  /// stick loop this is per stick of elements (starts are whole sticks).
  llvm::SmallVector<int64_t> loopBytes;
  /// Bytes from the tensor's base to the kernel's first element (slices).
  int64_t baseOffset = 0;
  /// Rotating copies in LX.
  int64_t copies = 1;
  /// Depends on no loop that has more than one tile: moved once.
  bool hoisted = false;
  /// A matmul's lhs the schedule holds whole along k (`sticks` cover all
  /// of k) while k runs in several tiles: moved once, and each k step's
  /// matmul reads its part in place (not read again for every n tile). An
  /// attention's keys or values held whole along the key positions (`rows`
  /// cover them all): loaded once per head, read in place by every query
  /// tile.
  bool resident = false;
  /// A result the schedule keeps whole per core (`ScheduleAttr::keep`):
  /// its buffer is one slab holding every tile the core writes at its
  /// place (the tile at row tile r and stick tile s starts r * rows rows
  /// and s * sticks sticks in). It moves once: kept in LX for a reader
  /// (`lx`), or stored after the core's last tile.
  bool slab = false;
  /// Cores that read the same tile at the same time (the product of the
  /// splits of loops the tensor does not depend on): an input read by
  /// several is multicast over the ring, one memory read for all.
  int64_t sharers = 1;
  /// Varies along the kernel's accumulation loop (k, or a reduced loop).
  bool variesInAccLoop = false;
  /// Where the tile comes from or goes (the kernel's `sources` /
  /// `destinations`): an `lx` tile stays in its buffer between kernels and
  /// moves no bytes.
  DataPath path = DataPath::dma;
  /// An earlier input (its index) that is the same tensor and moves the
  /// same bytes into the same LX arrangement at every step (a RoPE reads q
  /// as a matmul's lhs and as a multiplicand): this input reads that one's
  /// buffer and moves nothing; -1 otherwise.
  int64_t sameTileAs = -1;
  /// A table the body reads through a gather (`isGatherRead`): the input
  /// (its index) whose tile holds the row indices. Its tile's rows are the
  /// table rows those name along `rowLoop` (the indices' stick loop),
  /// moved by one DmaGather after the indices' load; no multicast.
  int64_t gatherIndex = -1;
  /// ... and the loops the indices move along, which pick other rows.
  llvm::SmallVector<int64_t, 1> indexLoops;
  /// The indices of a gather read: the loop along which the tile is one
  /// run of elements (the table tile's rows), moved as exact bytes from
  /// any element on (`loopBytes` per element there, no stick loop); -1
  /// otherwise.
  int64_t runLoop = -1;
  /// Whether the tile changes along loop `l`.
  bool movesAlong(int64_t l) const {
    return loopBytes[l] || l == rowLoop || l == runLoop ||
           llvm::is_contained(indexLoops, l);
  }
  /// Whether the tensor moves between device memory and LX (a result kept
  /// in LX and stored, `lx_dma`, does).
  bool movesBytes() const { return isStored(path) && sameTileAs < 0; }
  /// The slab of a result kept whole per core (`slab`): `slabRows` rows
  /// of `slabSticks` sticks.
  int64_t slabRows = 0, slabSticks = 0;
  /// What the tensor's LX buffer holds: the slab, or one tile.
  int64_t lxRows() const { return slab ? slabRows : rows; }
  int64_t lxSticks() const { return slab ? slabSticks : sticks; }
  int64_t lxBytes(int64_t stickBytes) const {
    return lxRows() * lxSticks() * stickBytes;
  }

  /// Whether `o`'s LX buffer holds the same as this one's: the same rows
  /// of the same sticks, from the same device pitches, of the same type.
  bool sameTileShape(const PlanTensor &o) const {
    return lxRows() == o.lxRows() && lxSticks() == o.lxSticks() &&
           rowPitch == o.rowPitch && stickPitch == o.stickPitch &&
           type == o.type;
  }
  int64_t rowBytes(int64_t stickBytes) const { return sticks * stickBytes; }
  int64_t tileBytes(int64_t stickBytes) const {
    return rows * rowBytes(stickBytes);
  }
  /// The bytes of the tensor's padded device layout (whole sticks).
  int64_t deviceBytes() const;
  /// One tile's transfer as the cost model charges it (CostModel.cpp).
  DmaTransfer tileTransfer(const Arch &arch) const;
  /// Device bytes from the tensor's base to the element at loop indices
  /// `starts` (the stick loop's start must be a whole number of sticks).
  int64_t offsetOf(llvm::ArrayRef<int64_t> starts) const;
};

/// The shape of a body value's tile, relative to the kernel's tile.
enum class TileShape {
  Full,       // rows x sticks of the kernel tile
  RowReduced, // one element per row (reduced along the stick loop)
  ColReduced, // one row (reduced along the row loop)
};

/// A value computed inside the kernel body, kept in LX.
struct PlanValue {
  mlir::Operation *op = nullptr; // the body op producing it
  mlir::Type lxElementType;      // f32 for matmul accumulators
  TileShape shape = TileShape::Full;
  int64_t rows = 1;
  int64_t sticks = 1;
  int64_t copies = 1;
  /// Computed inside the accumulation loop (the matmul, a reduction's
  /// inputs and the reduction itself); otherwise after it.
  bool inner = true;
  /// Index in the tensor list when the value is stored as a kernel result
  /// directly from its buffer (-1 otherwise).
  int64_t storedAs = -1;
  /// Data movement that leaves the tile as it is (a transpose keeping the
  /// stick dim, a restickify changing only the dim order): the value is
  /// its operand's buffer, no instruction runs.
  bool alias = false;
  /// Computed over an operand whose buffer nothing reads afterwards (an
  /// elementwise op on an f32 temporary): the value takes that buffer.
  bool inPlace = false;
};

/// One LX buffer (a tensor tile, a body value or a staging copy).
struct PlanBuffer {
  std::string name;
  int64_t bytes = 0; // per copy, aligned
  int64_t copies = 1;
  int64_t offset = -1; // set by allocation
  /// Body-op positions [first, last] when the buffer is in use; {} = the
  /// whole kernel.
  llvm::SmallVector<int64_t, 2> live;
};

/// One core's share of the kernel.
struct CoreShare {
  llvm::SmallVector<int64_t> start; // per loop, first index
  llvm::SmallVector<int64_t> tiles; // per loop, number of tiles
};

class KernelPlan {
public:
  /// Loops one program can nest (the ISA's loop depth).
  static constexpr size_t kMaxHardwareLoops = 3;

  /// Builds the plan of `kernel` under `schedule` (which may be a candidate
  /// not yet attached). Emits a diagnostic at the kernel and returns
  /// failure when the kernel's shape is not supported or the schedule does
  /// not respect the plan's rules (whole-stick tiles, tile-1 outer loops).
  /// Without `withPaths` every tensor moves by DMA, whatever the kernel's
  /// `sources` and `destinations` say.
  static mlir::FailureOr<KernelPlan>
  build(KernelOp kernel, ScheduleAttr schedule, const Arch &arch,
        bool emitErrors = true, bool withPaths = true);

  /// The kind of `kernel`, or a diagnostic when its body is not one the
  /// program lowering supports.
  static mlir::FailureOr<KernelKind> classify(KernelOp kernel,
                                              bool emitErrors = true);

  /// The loop roles of `kernel` (the same for every schedule): row, stick
  /// and accumulation loops, -1 when absent.
  struct Roles {
    KernelKind kind = KernelKind::Elementwise;
    int64_t rowLoop = -1, stickLoop = -1, accLoop = -1;
    /// Loops whose tile must be the whole loop (a reduced stick loop).
    llvm::SmallVector<int64_t> wholeLoops;
    /// The kernel runs on one core (its steps must stay in order).
    bool singleCore = false;
  };
  static mlir::FailureOr<Roles> roles(KernelOp kernel, bool emitErrors = true);

  /// The candidate tiles of each loop, smallest first: the whole loop where
  /// the plan needs it; whole sticks (of every tensor stored along the
  /// loop, a matmul's f32 accumulator included) dividing the padded stick
  /// count; powers of two along row and accumulation loops; 1 elsewhere.
  static llvm::SmallVector<llvm::SmallVector<int64_t>>
  tileChoices(KernelOp kernel, const Roles &roles, const Arch &arch);
  /// The plan of `kernel` on one core at its smallest tiles: what it needs
  /// of LX at least.
  static mlir::FailureOr<KernelPlan>
  smallestPlan(KernelOp kernel, const Roles &roles, const Arch &arch,
               int64_t depth, bool emitErrors = true);
  /// Whether the program lowering supports `kernel` (a plan at a schedule
  /// every supported kernel accepts), it fits LX single-buffered at its
  /// smallest tiles and, split over at most `maxCores` cores (0: all), its
  /// tile loops fit the program's hardware loops: the test a pass applies
  /// to a kernel it rewrites, so that spyre-schedule-cores finds a schedule.
  static bool isRunnable(KernelOp kernel, const Arch &arch,
                         int64_t maxCores = 0);
  /// 1, 2, 4, ... below `limit`, then `limit`.
  static llvm::SmallVector<int64_t> powersUpTo(int64_t limit);

  mutable KernelOp kernel;
  Arch arch;
  ScheduleAttr schedule;
  KernelKind kind = KernelKind::Elementwise;
  llvm::SmallVector<PlanLoop> loops;
  int64_t rowLoop = -1, stickLoop = -1;
  /// The loop accumulated into the results: k of a matmul, the reduced
  /// loop of a column reduction; -1 when none.
  int64_t accLoop = -1;
  llvm::SmallVector<PlanTensor> tensors;          // inputs, then results
  llvm::MapVector<mlir::Value, PlanValue> values; // body values, in order
  llvm::SmallVector<PlanBuffer> buffers;
  /// Buffer index of each tensor / body value.
  llvm::SmallVector<int64_t> tensorBuffer;
  llvm::DenseMap<mlir::Value, int64_t> valueBuffer;

  bool isMatmul() const { return kind == KernelKind::Matmul; }
  /// Kinds that move data by DMA only (lib/Transforms/DataMovement.cpp).
  bool isDataMovement() const {
    return kind == KernelKind::Copy || kind == KernelKind::Gather ||
           kind == KernelKind::Scatter;
  }
  /// For a reshape that is not a view: elements per chunk (a common
  /// multiple of both row lengths) and chunks per tile.
  int64_t repackChunk = 0, repackTileChunks = 0;
  /// For an attention holding its keys and values: key tiles per load of
  /// them (the count the cost model finds fastest).
  int64_t heldKeyTiles = 1;
  /// ... and whether each of a head's query tiles has its own copy of Q
  /// and of the result (when they fit LX beside the keys and values).
  bool heldQueryTiles = false;
  int64_t numCores() const { return schedule.getNumCores(); }
  /// The cores that share each tile's accumulation: a matmul's k split
  /// over them (K-split), 1 otherwise. k is the last loop, so they are
  /// adjacent on the ring; each computes the partial sums of its k tiles,
  /// the partial sums flow down the partial-sum ring to the first of them,
  /// which alone runs the epilogue and stores (docs/passes.md).
  int64_t kSplit() const {
    return isMatmul() && accLoop >= 0 ? loops[accLoop].split : 1;
  }
  /// Whether a K-split plan is one the lowering handles; a diagnostic
  /// otherwise (everything through device memory, a loop level for the
  /// reduction's guard; the partial sums are the f32 accumulator's).
  mlir::LogicalResult checkKSplit(bool emitErrors) const;
  /// An input of a K-split fixed along k (a bias or residual of the
  /// epilogue): only the first core of each k group, which runs the
  /// epilogue, reads it.
  bool readByFirstOfKGroup(const PlanTensor &t) const {
    return kSplit() > 1 && !t.isResult && !t.variesInAccLoop;
  }
  /// Nanoseconds a K-split adds to the busiest core: each tile's partial
  /// sums received and passed on, and the chain's latency to the first
  /// core (0 without a K-split).
  double partialSumNs() const;
  /// The share of core `core` (mixed radix over splits, last loop fastest).
  CoreShare share(int64_t core) const;
  /// Core `core`'s coordinate along loop `loop`'s split (share()'s order).
  int64_t splitCoord(int64_t core, int64_t loop) const;
  /// The most tiles any core runs along each loop.
  llvm::SmallVector<int64_t> maxTilesPerLoop() const;
  /// LX bytes one core needs (buffers aligned and summed).
  int64_t lxBytes() const;
  /// Loops that need a hardware loop (more than one tile on some core), in
  /// nest order: outer loops, row, stick, then the accumulation loop.
  llvm::SmallVector<int64_t> hardwareLoops() const;
  /// The tile loop the lowering software-pipelines, or -1. With depth >= 2
  /// it is the innermost hardware loop over tiles: the loads of its next
  /// tile go into the other copy of each streamed buffer before the
  /// current tile's compute and stores, so that a core's one in-order DMA
  /// queue never holds a load behind a store that waits for compute. Not
  /// when the accumulation loop is a hardware loop: its loads stream
  /// ahead by themselves (no store between them).
  int64_t pipelinedLoop() const;
  /// Whether tensor `t` can stay in LX between this kernel and another:
  /// it moves once per core (one tile, or a result kept whole in a slab)
  /// and the kernel's transfers are the plan's tensors (not data movement
  /// or attention, which schedule their own).
  bool canHandOffInLx(const PlanTensor &t) const;
  /// The inputs a schedule may hold whole along the accumulation loop
  /// (`ScheduleAttr::hold`, PlanTensor::resident), all or none of them:
  ///  * a matmul's lhs, sticked along k, when k runs in several tiles on
  ///    some core and the lhs moves along no other loop that does;
  ///  * an attention's keys and values, when a core runs several query
  ///    tiles of several key tiles (each would stream them again) and,
  ///    causal, the query tiles split over at most 8 cores (the diagonal's
  ///    code comes once per first query tile).
  llvm::SmallVector<int64_t> holdableInputs() const;
  /// The plan's buffers as attributes (offsets must be assigned).
  mlir::ArrayAttr getBufferAttrs(mlir::MLIRContext *ctx) const;
  /// Estimated nanoseconds of the kernel (without launch overheads): its
  /// synchronization (Arch::syncNs) and its work.
  double estimateNs() const;
  /// Estimated nanoseconds of the kernel's instructions on its cores.
  double estimateWorkNs() const;
  /// Records the plan on the kernel's program: the estimate, MACs, minimum
  /// bytes, the schedule and the LX bytes per core.
  void describe(ProgramOp program) const;
  /// A note on `diag` per LX buffer: its name, bytes and copies (what an
  /// LX overflow is made of).
  void noteBuffers(mlir::InFlightDiagnostic &diag) const;
  /// The LX buffer called `name` (it must exist).
  const PlanBuffer &buffer(llvm::StringRef name) const;
  /// Total multiply-accumulates and minimum device bytes, all and the
  /// written ones (for rooflines).
  int64_t totalMacs() const;
  int64_t totalBytes() const;
  int64_t totalWrittenBytes() const;
  /// The tensors and buffers of a data-movement kernel
  /// (lib/Transforms/DataMovement.cpp).
  mlir::LogicalResult buildDataMovement(bool emitErrors);
  /// Estimated nanoseconds of a data-movement kernel.
  double estimateDataMovementNs() const;
  /// Reads each tensor's data path from the kernel; a diagnostic when a
  /// path is one this kind of kernel cannot take.
  mlir::LogicalResult readDataPaths(bool emitErrors);
  /// The tensors and buffers of an attention kernel
  /// (lib/Transforms/AttentionKernel.cpp).
  mlir::LogicalResult buildAttention(bool emitErrors);
  /// Estimated nanoseconds of an attention kernel.
  double estimateAttentionNs() const;
  /// The keys and values an attention's schedule may hold (see
  /// holdableInputs()).
  llvm::SmallVector<int64_t> attentionHoldableInputs() const;

  /// Elements of the tile along the stick loop (1 without one).
  int64_t stickTile() const {
    return stickLoop >= 0 ? loops[stickLoop].tile : 1;
  }
  /// Rows of the tile along the row loop (1 without one).
  int64_t rowTile() const { return rowLoop >= 0 ? loops[rowLoop].tile : 1; }
};

/// Elements per stick of `type`'s element type on `arch`.
int64_t elementsPerStick(mlir::Type elementType, const Arch &arch);

/// The f32 constants an attention kernel's SFP ops read (the SFP has no
/// immediates), in its last input, at these indices; a causal kernel's
/// positions 0, 1, ... follow from kIota (its diagonal tile's mask).
enum AttentionConstant {
  kScale,
  kLowest,
  kSmallest,
  kZero,
  kNegInf,
  kOne,
  kIota = 8, // a 32-byte header
};

/// The constants tensor of `op`'s kernel (FormKernels appends it).
mlir::Value createAttentionConstants(mlir::OpBuilder &b, AttentionOp op);

} // namespace spyre

#endif // SPYRE_TRANSFORMS_KERNELPLAN_H
