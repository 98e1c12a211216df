//===- SpyreOps.td - spyre operations ----------------------*- tablegen -*-===//

#ifndef SPYRE_OPS_TD
#define SPYRE_OPS_TD

include "spyre/Dialect/Spyre/SpyreBase.td"
include "spyre/Dialect/Spyre/SpyreAttrs.td"
include "spyre/Dialect/Spyre/SpyreEnums.td"
include "spyre/Dialect/Spyre/SpyreInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class Spyre_ComputeOp<string mnemonic, list<Trait> traits = []>
    : Spyre_Op<mnemonic, !listconcat(traits,
        [Pure, DeclareOpInterfaceMethods<Spyre_ComputeOpInterface>])>;

//===----------------------------------------------------------------------===//
// Graph level
//===----------------------------------------------------------------------===//

def Spyre_AtenOp : Spyre_Op<"aten", [Pure]> {
  let summary = "one node of an exported PyTorch graph, unchanged";
  let description = [{
    Carries an exported node as torch.export wrote it: `target` is the op's
    name with overload (`aten.gelu.default`), the tensor operands bind to the
    schema arguments named in `tensor_args` (one entry per operand, in
    order; a `Tensor[]` argument repeats its name), and every other argument
    is an entry of `args` (None is a unit attribute). A `Tensor?[]`
    argument has its present tensors as operands and, in `args`, an array
    of booleans marking which list positions hold a tensor (the rest are
    None). Results are the node's outputs in order (`none` for an output
    that is None).

    The importer is total: every node becomes a `spyre.aten`. The verifier
    checks ops whose schema is in the op-schema table (argument names, kinds
    and count); `spyre-decompose` rewrites the supported ones into compute
    ops and rejects the rest, naming the op at the node's location.

    ```mlir
    %0 = spyre.aten "aten.gelu.default"(%x) {args = {approximate = "tanh"},
           tensor_args = ["self"]} : (tensor<64x256xf16>) -> tensor<64x256xf16>
    ```
  }];
  let arguments = (ins StrAttr:$target, Variadic<AnyType>:$inputs,
                       StrArrayAttr:$tensor_args, DictionaryAttr:$args);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $target `(` $inputs `)` attr-dict `:` functional-type($inputs, $results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The operands bound to schema argument `name`, in order.
    ::llvm::SmallVector<::mlir::Value> getTensorArg(::llvm::StringRef name);
    /// The non-tensor argument `name`, or null.
    ::mlir::Attribute getArg(::llvm::StringRef name) {
      return getArgs().get(name);
    }
  }];
}

def Spyre_WeightOp : Spyre_Op<"weight", [Pure]> {
  let summary = "a parameter, buffer or lifted constant of the model";
  let description = [{
    A tensor whose value is known when the model is compiled. Small values
    are `value` (a dense or `dense_resource` elements attribute); large ones
    stay in the archive they came from (`external`). Exactly one is set.
    `name` is the PyTorch fully qualified name (`layers.0.mlp.fc1.weight`).

    Canonicalization turns a lifted constant, or a buffer that no result of
    the function mutates (`spyre.output = "buffer_mutation:<name>"`), held
    as a dense `value`, into a `spyre.constant` when an op reading it has
    only constant operands, so that the op folds. Parameters stay weights.
  }];
  let arguments = (ins StrAttr:$name, Spyre_WeightKind:$kind,
                       OptionalAttr<ElementsAttr>:$value,
                       OptionalAttr<Spyre_ExternalDataAttr>:$external);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $name $kind (`=` $value^)? (`external` $external^)? attr-dict `:`
    type($result)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Compute level
//===----------------------------------------------------------------------===//

def Spyre_MatmulOp : Spyre_ComputeOp<"matmul", [
    DeclareOpInterfaceMethods<Spyre_ComputeOpInterface, ["getRequiredLayout"]>]> {
  let summary = "batched matrix multiply with folded transposes";
  let description = [{
    `result[..., m, n] = sum_k lhs'[..., m, k] * rhs'[..., k, n]` where
    `lhs'` is `lhs` with its last two dims swapped when `transpose_lhs` is
    set (likewise `rhs'`). Batch dims broadcast numpy-style (missing leading
    dims and dims of size 1). Products accumulate in fp32 and are rounded
    once to the result type. After layout assignment the PT unit needs
    `lhs'` sticked along k and `rhs'` and the result along n.
  }];
  let arguments = (ins AnyRankedTensor:$lhs, AnyRankedTensor:$rhs,
                       UnitAttr:$transpose_lhs, UnitAttr:$transpose_rhs);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Spyre_UnaryOp : Spyre_ComputeOp<"unary", [SameOperandsAndResultShape]> {
  let summary = "elementwise function of one tensor";
  let description = [{
    `result[i] = kind(input[i])`, computed in fp32 and rounded to the result
    element type (which equals the input's).
  }];
  let arguments = (ins Spyre_UnaryKind:$kind, AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $kind $input attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Spyre_BinaryOp : Spyre_ComputeOp<"binary"> {
  let summary = "elementwise function of two broadcast tensors";
  let description = [{
    `result[i] = kind(lhs[bcast(i)], rhs[bcast(i)])` with numpy broadcasting
    of both operands to the result shape. Operands and result share their
    element type.
  }];
  let arguments = (ins Spyre_BinaryKind:$kind, AnyRankedTensor:$lhs,
                       AnyRankedTensor:$rhs);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $kind $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->`
    type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Spyre_CompareOp : Spyre_ComputeOp<"compare"> {
  let summary = "elementwise comparison of two broadcast tensors";
  let description = [{
    `result[i] = lhs[bcast(i)] predicate rhs[bcast(i)]`, an `i1` tensor.
  }];
  let arguments = (ins Spyre_ComparePredicate:$predicate,
                       AnyRankedTensor:$lhs, AnyRankedTensor:$rhs);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $predicate $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->`
    type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Spyre_SelectOp : Spyre_ComputeOp<"select"> {
  let summary = "elementwise choice between two broadcast tensors";
  let description = [{
    `result[i] = condition[bcast(i)] ? true_value[bcast(i)] :
    false_value[bcast(i)]`; the condition is an `i1` tensor.
  }];
  let arguments = (ins AnyRankedTensor:$condition,
                       AnyRankedTensor:$true_value,
                       AnyRankedTensor:$false_value);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $condition `,` $true_value `,` $false_value attr-dict `:`
    type($condition) `,` type($true_value) `,` type($false_value) `->`
    type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Spyre_ReduceOp : Spyre_ComputeOp<"reduce"> {
  let summary = "reduction along one dimension, keeping it with size 1";
  let description = [{
    `result[..., 0, ...] = kind_{j} input[..., j, ...]` along `dim`. The
    reduced dimension stays with size 1 (shape ops drop it). `argmax` and
    `argmin` produce integer indices of the first extreme element.
  }];
  let arguments = (ins Spyre_ReduceKind:$kind, AnyRankedTensor:$input,
                       Spyre_I64Attr:$dim);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $kind $input `dim` $dim attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Spyre_CastOp : Spyre_ComputeOp<"cast", [SameOperandsAndResultShape]> {
  let summary = "elementwise element type conversion";
  let description = [{
    Converts each element to the result element type (round to nearest even
    for floats, truncation toward zero float -> int, nonzero -> 1 for i1).
  }];
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasFolder = 1;
}

def Spyre_ConstantOp : Spyre_Op<"constant", [ConstantLike, Pure]> {
  let summary = "a constant tensor";
  let description = [{
    A tensor known at compile time: the hardware has no immediates, so
    scalars of the graph become splat constants that the emitter stores in
    device memory and kernels load like any tensor. Compute ops whose
    operands are all constants fold into constants (computed as the device
    would, within size limits: docs/passes.md).
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "attr-dict $value `:` type($result)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def Spyre_TransposeOp : Spyre_ComputeOp<"transpose", [
    DeclareOpInterfaceMethods<Spyre_ComputeOpInterface,
                              ["getRequiredLayout", "isLayoutFlexible"]>]> {
  let summary = "permutation of dimensions";
  let description = [{
    `result[i_perm(0), ..] = input[i_0, ..]`: result dim `d` is input dim
    `permutation[d]`.
  }];
  let arguments = (ins AnyRankedTensor:$input,
                       DenseI64ArrayAttr:$permutation);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input $permutation attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Spyre_ReshapeOp : Spyre_Op<"reshape", [Pure]> {
  let summary = "same elements, another static shape (row-major order)";
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Spyre_BroadcastOp : Spyre_ComputeOp<"broadcast"> {
  let summary = "numpy-style broadcast to a larger shape";
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Spyre_SliceOp : Spyre_ComputeOp<"slice"> {
  let summary = "a strided window of a tensor";
  let description = [{
    `result[i] = input[offsets + i * strides]` (per dim); the result's shape
    gives the window's sizes. Moved by DMA: a window that does not start on
    a stick, or strides along the stick dim, moves with exact byte runs.
  }];
  let arguments = (ins AnyRankedTensor:$input, DenseI64ArrayAttr:$offsets,
                       DenseI64ArrayAttr:$strides);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `offsets` $offsets `strides` $strides attr-dict `:` type($input)
    `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Spyre_ConcatOp : Spyre_ComputeOp<"concat"> {
  let summary = "tensors joined along one dimension";
  let description = [{
    The inputs, equal in every dim but `dim`, one after the other along
    `dim`. Moved by DMA, each input into its place in the result.
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs, Spyre_I64Attr:$dim);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $inputs `dim` $dim attr-dict `:` type($inputs) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Spyre_GatherOp : Spyre_ComputeOp<"gather"> {
  let summary = "rows of a table picked by an index tensor (embedding)";
  let description = [{
    `result[i..., :] = table[indices[i...], :]` for a 2-D `table` and an
    integer `indices` tensor; an index outside the table stops the program
    with an error. Moved by DMA gathers.
  }];
  let arguments = (ins AnyRankedTensor:$table, AnyRankedTensor:$indices);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $table `[` $indices `]` attr-dict `:` type($table) `,` type($indices)
    `->` type($result)
  }];
  let hasVerifier = 1;
}

def Spyre_ScatterOp : Spyre_ComputeOp<"scatter"> {
  let summary = "a copy of `dest` with slices replaced (index_copy)";
  let description = [{
    `result = dest`, then for each `i`: the slice of `result` at
    `indices[i]` along `dim` is the slice `i` of `source` along `dim` (a KV
    cache update). `dim` is not the innermost dim; later indices win when
    two are equal.
  }];
  let arguments = (ins AnyRankedTensor:$dest, AnyRankedTensor:$indices,
                       AnyRankedTensor:$source, Spyre_I64Attr:$dim);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $source `into` $dest `[` $indices `]` `dim` $dim attr-dict `:`
    type($source) `,` type($dest) `,` type($indices) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Spyre_RestickifyOp : Spyre_ComputeOp<"restickify", [
    SameOperandsAndResultShape,
    DeclareOpInterfaceMethods<Spyre_ComputeOpInterface, ["getRequiredLayout"]>]> {
  let summary = "change of stick layout";
  let description = [{
    Same logical tensor, another `#spyre.layout`: inserted by
    `spyre-assign-layouts` where a producer's layout differs from what a
    consumer needs. Executed as DMA (sticks moving whole) or as SFP
    transposes in LX (the stick dimension changes).
  }];
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

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
    * `sources` / `destinations`: where each input comes from and each
      result goes (`dma`, `ring`, `lx`);
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
    /// The yield terminating the body.
    YieldOp getYield();
  }];
}

def Spyre_YieldOp : Spyre_Op<"yield", [Pure, Terminator, ReturnLike,
                                        HasParent<"KernelOp">]> {
  let summary = "results of a kernel body";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let builders = [OpBuilder<(ins), [{ /* empty yield */ }]>];
}

//===----------------------------------------------------------------------===//
// Program level
//===----------------------------------------------------------------------===//

def Spyre_TensorOp : Spyre_Op<"tensor", [Symbol]> {
  let summary = "a symbolic device tensor of a compiled program";
  let description = [{
    One entry of the `.spy` tensor table: its device address is unknown at
    compile time and patched by the runtime (phase by role: weights and
    constants at load, workspace at bind, inputs and outputs at launch).
    `type` carries the layout encoding. Weights and constants have `value`
    or `external`; workspace tensors have `workspace_offset`; inputs and
    outputs have `io_index`.

    Mutations (torch.export `user_input_mutation` / `buffer_mutation`): an
    output with `aliases_input` holds the new contents of that input, one
    with `updates` the new contents of that weight (a buffer); the runtime
    copies it over its target after each launch.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, TypeAttr:$type,
                       Spyre_TensorRole:$role,
                       OptionalAttr<Spyre_I64Attr>:$io_index,
                       OptionalAttr<StrAttr>:$source_name,
                       OptionalAttr<ElementsAttr>:$value,
                       OptionalAttr<Spyre_ExternalDataAttr>:$external,
                       OptionalAttr<Spyre_I64Attr>:$workspace_offset,
                       OptionalAttr<Spyre_I64Attr>:$aliases_input,
                       OptionalAttr<FlatSymbolRefAttr>:$updates);
  let assemblyFormat = "$sym_name $role attr-dict `:` $type";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::RankedTensorType getTensorType() {
      return ::llvm::cast<::mlir::RankedTensorType>(getType());
    }
    /// Bytes of device memory the tensor occupies in its layout.
    int64_t getDeviceBytes();
  }];
}

def Spyre_ProgramOp : Spyre_Op<"program", [Symbol, IsolatedFromAbove,
    NoTerminator, SingleBlock,
    DeclareOpInterfaceMethods<RegionKindInterface>]> {
  let summary = "the per-core program of one kernel";
  let description = [{
    Instructions run by each of `num_cores` cores (docs/isa.md). What
    differs between cores is in `params`, `num_params` int64 values per core
    (core-major): instructions name a parameter slot instead of holding a
    core-specific value, so the program's size does not grow with the
    number of cores or tiles. `kernel` names the kernel it came from.
    `estimate_ns` is the cost model's estimate of the kernel, `macs` and
    `min_bytes` its multiply-accumulates and the device bytes it must move
    at least (each input read and each result written once): its roofline.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrAttr:$kernel,
                       Spyre_I64Attr:$num_cores, Spyre_I64Attr:$num_params,
                       DenseI64ArrayAttr:$params,
                       OptionalAttr<Spyre_I64Attr>:$estimate_ns,
                       OptionalAttr<Spyre_I64Attr>:$macs,
                       OptionalAttr<Spyre_I64Attr>:$min_bytes);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

def Spyre_PlanOp : Spyre_Op<"plan", [HasParent<"::mlir::ModuleOp">]> {
  let summary = "the launch plan: programs in execution order";
  let arguments = (ins FlatSymbolRefArrayAttr:$programs);
  let assemblyFormat = "$programs attr-dict";
  let hasVerifier = 1;
}

class Spyre_InstOp<string mnemonic, list<Trait> traits = []>
    : Spyre_Op<mnemonic, !listconcat(traits,
        [ParentOneOf<["ProgramOp", "LoopOp"]>])>;

def Spyre_LoopOp : Spyre_InstOp<"loop", [NoTerminator, SingleBlock,
    DeclareOpInterfaceMethods<RegionKindInterface>]> {
  let summary = "hardware loop";
  let description = [{
    Runs its body `count` times, or `P(count_param)` times when the trip
    count differs between cores. At most 3 loops nest.
  }];
  let arguments = (ins Spyre_I64Attr:$count, OptionalAttr<Spyre_I64Attr>:$count_param);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$count attr-dict-with-keyword $body";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Loop nesting level of this loop (0 = outermost).
    unsigned getLevel();
  }];
}

class Spyre_DmaOp<string mnemonic> : Spyre_InstOp<mnemonic> {
  let arguments = (ins Spyre_MemAddressAttr:$mem, Spyre_LxAddressAttr:$lx,
                       DenseI64ArrayAttr:$box, DenseI64ArrayAttr:$pitch,
                       Spyre_I64Attr:$run, OptionalAttr<Spyre_ClampAttr>:$clamp,
                       UnitAttr:$multicast,
                       OptionalAttr<Spyre_I64Attr>:$lx_pitch);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Spyre_DmaLoadOp : Spyre_DmaOp<"dma_load"> {
  let summary = "device memory -> LX box copy";
  let description = [{
    For `i0 < box[0]` (clampable), `i1 < box[1]`, `i2 < box[2]`: copies
    `run` bytes from `mem + i0*pitch[0] + i1*pitch[1] + i2*pitch[2]` to
    `lx + ((i0*box[1] + i1)*box[2] + i2)*run`, or, with `lx_pitch`,
    `lx + i0*lx_pitch + (i1*box[2] + i2)*run` (docs/isa.md).
  }];
}

def Spyre_DmaStoreOp : Spyre_DmaOp<"dma_store"> {
  let summary = "LX -> device memory box copy (the reverse of dma_load)";
}

class Spyre_DmaRowsOp<string mnemonic> : Spyre_InstOp<mnemonic> {
  let arguments = (ins Spyre_MemAddressAttr:$mem, Spyre_LxAddressAttr:$lx,
                       Spyre_LxAddressAttr:$indices, TypeAttr:$index_type,
                       Spyre_I64Attr:$rows, Spyre_I64Attr:$table_rows,
                       Spyre_I64Attr:$row_pitch, Spyre_I64Attr:$run,
                       OptionalAttr<Spyre_ClampAttr>:$clamp);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Spyre_DmaGatherOp : Spyre_DmaRowsOp<"dma_gather"> {
  let summary = "gather table rows picked by LX indices into LX";
  let description = [{
    For `r < rows` (clampable): copies `run` bytes from
    `mem + index[r] * row_pitch` to `lx + r * run`, `index` read from
    `indices` as `index_type` (i32 or i64); an index outside
    `[0, table_rows)` stops the program with an error.
  }];
}

def Spyre_DmaScatterOp : Spyre_DmaRowsOp<"dma_scatter"> {
  let summary = "scatter LX rows to table rows picked by LX indices";
  let description = [{
    The inverse of `dma_gather`: for `r < rows`, copies `run` bytes from
    `lx + r * run` to `mem + index[r] * row_pitch`.
  }];
}

def Spyre_PtMatmulOp : Spyre_InstOp<"pt_matmul"> {
  let summary = "systolic matrix multiply of LX tiles";
  let description = [{
    `dst[i, j] (+)= sum_{p < k} lhs[i, p] * rhs[p, j]` for `i < m`,
    `j < n`; row pitches in bytes; `accumulate` adds to `dst` except on
    iteration 0 of loop level `init_level`. The clamp may only target k.
  }];
  let arguments = (ins Spyre_LxAddressAttr:$dst, Spyre_LxAddressAttr:$lhs,
                       Spyre_LxAddressAttr:$rhs, Spyre_I64Attr:$m, Spyre_I64Attr:$k,
                       Spyre_I64Attr:$n, DenseI64ArrayAttr:$pitch,
                       TypeAttr:$dst_type, TypeAttr:$lhs_type,
                       TypeAttr:$rhs_type, UnitAttr:$accumulate,
                       OptionalAttr<Spyre_I64Attr>:$init_level,
                       OptionalAttr<Spyre_ClampAttr>:$clamp);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

class Spyre_SfpOp<string mnemonic> : Spyre_InstOp<mnemonic> {
  let arguments = (ins StrAttr:$fn, Spyre_LxAddressAttr:$dst,
                       Spyre_LxAddressAttr:$src0,
                       OptionalAttr<Spyre_LxAddressAttr>:$src1,
                       Spyre_I64Attr:$rows, Spyre_I64Attr:$cols,
                       DenseI64ArrayAttr:$pitch, TypeAttr:$dst_type,
                       TypeAttr:$src0_type, OptionalAttr<TypeAttr>:$src1_type,
                       UnitAttr:$bcast_col0, UnitAttr:$bcast_col1,
                       UnitAttr:$accumulate, UnitAttr:$reduce_rows,
                       OptionalAttr<Spyre_I64Attr>:$init_level,
                       OptionalAttr<Spyre_ClampAttr>:$clamp);
  let assemblyFormat = "$fn attr-dict";
  let hasVerifier = 1;
}

def Spyre_SfpUnaryOp : Spyre_SfpOp<"sfp_unary"> {
  let summary = "vector unary op on an LX region (fn: a unary SFP op name)";
}
def Spyre_SfpBinaryOp : Spyre_SfpOp<"sfp_binary"> {
  let summary = "vector binary op on LX regions (fn: a binary SFP op name)";
}
def Spyre_SfpSelectOp : Spyre_SfpOp<"sfp_select"> {
  let summary = "vector select: dst = src0 != 0 ? src1 : dst (fn: select)";
}
def Spyre_SfpReduceOp : Spyre_SfpOp<"sfp_reduce"> {
  let summary = "vector reduction of an LX region (fn: sum, max, ...)";
}
def Spyre_SfpTransposeOp : Spyre_SfpOp<"sfp_transpose"> {
  let summary = "transpose of an LX region (fn: transpose)";
}

#endif // SPYRE_OPS_TD
