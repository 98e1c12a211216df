//===- SpyreScheduleOps.td - spyre schedule-level ops ------*- tablegen -*-===//

#ifndef SPYRE_SCHEDULE_OPS_TD
#define SPYRE_SCHEDULE_OPS_TD

include "spyre/Dialect/Spyre/SpyreBase.td"
include "spyre/Dialect/Spyre/SpyreAttrs.td"
include "spyre/Dialect/Spyre/SpyreEnums.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Schedule level
//===----------------------------------------------------------------------===//

def Spyre_KernelOp : Spyre_Op<"kernel", [IsolatedFromAbove,
    SingleBlockImplicitTerminator<"YieldOp">,
    DeclareOpInterfaceMethods<RegionKindInterface>]> {
  let summary = "one launchable unit whose intermediates stay on chip";
  let description = [{
    Groups compute ops (its body, with the kernel inputs as block
    arguments) into one unit run on a grid of cores. The loop nest is
    explicit: `space` gives the loop sizes, `iterators` their kinds and
    `indexing_maps` one map per input then per result, from loops to tensor
    indices. The later passes add the rest of the schedule, all visible
    here:

    * `schedule` (`spyre-schedule-cores`): the split over cores, tile sizes,
      pipeline depth and the cost model's estimate;
    * `buffers` (`spyre-allocate-scratchpad`): every LX buffer, its offset
      and size, on every core;
    * `sources` / `destinations` (`spyre-allocate-scratchpad`): where each
      input comes from and each result goes: `dma` (device memory, the
      default when absent), `lx` (kept in this core's LX from its producer
      to its last consumer: the producer's destination and every
      consumer's source are `lx` or `ring`), `lx_dma` (a result kept in LX
      for the consumers whose source is `lx` or `ring` and also stored to
      device memory for the others), `ring` (an input gathered from other
      cores' LX over the ring);
    * `result_offsets` (`spyre-allocate-scratchpad`): the device memory
      workspace offset of each result, -1 for graph outputs.

    ```mlir
    %r = spyre.kernel "mlp.fc1"(%x, %w) {space = array<i64: 64, 1024, 256>,
        iterators = ["parallel", "parallel", "reduction"],
        indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                         affine_map<(m, n, k) -> (n, k)>,
                         affine_map<(m, n, k) -> (m, n)>]}
        : (tensor<64x256xf16>, tensor<1024x256xf16>) -> tensor<64x1024xf16> {
    ^bb0(%a: tensor<64x256xf16>, %b: tensor<1024x256xf16>):
      %0 = spyre.matmul %a, %b {transpose_rhs} : ...
      spyre.yield %0 : tensor<64x1024xf16>
    }
    ```
  }];
  let arguments = (ins StrAttr:$name, Variadic<AnyRankedTensor>:$inputs,
                       DenseI64ArrayAttr:$space, StrArrayAttr:$iterators,
                       AffineMapArrayAttr:$indexing_maps,
                       OptionalAttr<Spyre_ScheduleAttr>:$schedule,
                       OptionalAttr<TypedArrayAttrBase<Spyre_BufferAttr,
                           "LX buffers">>:$buffers,
                       OptionalAttr<StrArrayAttr>:$sources,
                       OptionalAttr<StrArrayAttr>:$destinations,
                       OptionalAttr<DenseI64ArrayAttr>:$result_offsets);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $name `(` $inputs `)` attr-dict `:` functional-type($inputs, $results)
    $body
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes, "::llvm::StringRef":$name,
                   "::mlir::ValueRange":$inputs)>
  ];
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
    /// The iterator kinds of `iterators` as an enum.
    ::llvm::SmallVector<::spyre::IteratorKind> getIteratorKinds();
    /// `indexing_maps` as maps: the inputs', then the results'.
    ::llvm::SmallVector<::mlir::AffineMap> getIndexingMapList();
    /// The yield terminating the body.
    YieldOp getYield();
    /// Where input `i` comes from and result `j` goes (`sources`,
    /// `destinations`; `dma` when absent).
    ::spyre::DataPath getSourcePath(unsigned i);
    ::spyre::DataPath getDestinationPath(unsigned j);
  }];
}

def Spyre_YieldOp : Spyre_Op<"yield", [Pure, Terminator, ReturnLike,
    ParentOneOf<["KernelOp", "ReferenceOp"]>]> {
  let summary = "results of a kernel body or of a kernel's reference";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let builders = [OpBuilder<(ins), [{ /* empty yield */ }]>];
}

#endif // SPYRE_SCHEDULE_OPS_TD
