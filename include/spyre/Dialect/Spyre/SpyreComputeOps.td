//===- SpyreComputeOps.td - spyre compute-level ops --------*- tablegen -*-===//

#ifndef SPYRE_COMPUTE_OPS_TD
#define SPYRE_COMPUTE_OPS_TD

include "spyre/Dialect/Spyre/SpyreBase.td"
include "spyre/Dialect/Spyre/SpyreAttrs.td"
include "spyre/Dialect/Spyre/SpyreEnums.td"
include "spyre/Dialect/Spyre/SpyreInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class Spyre_ComputeOp<string mnemonic, list<Trait> traits = []>
    : Spyre_Op<mnemonic, !listconcat(traits,
        [Pure, DeclareOpInterfaceMethods<Spyre_ComputeOpInterface>])>;

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

def Spyre_AttentionOp : Spyre_ComputeOp<"attention",
    [AttrSizedOperandSegments]> {
  let summary = "softmax(q @ k^T * scale + mask) @ v in one kernel";
  let description = [{
    `result[..., m, :] = sum_s p[..., m, s] * value[..., s, :]` with
    `p[..., m, :] = softmax_s(scale * (query[..., m, :] . key[..., s, :]) +
    mask[..., m, s])`: scaled dot-product attention. Scores and the softmax
    are fp32, the probabilities are rounded to the value's element type
    before they multiply it (as PyTorch's math form), the products
    accumulate in fp32. `mask` is additive (`-inf` masks) and broadcasts to
    `[..., M, S]`; a row whose every score is `-inf` gives 0 (PyTorch's
    `_safe_softmax`). Query, key and value share their element type; a
    batch dim of key and value is the query's or 1 (one key/value head
    serving several query heads: grouped-query attention without copies).
    With `causal`, query row `m` also masks every key position `s > m`
    (PyTorch's `is_causal`, top-left aligned; needs M <= S).

    With `sinks` (attention sinks, gpt-oss), each row's softmax also
    counts one more logit that selects no value: `p[..., m, s] =
    exp(x[..., m, s]) / (sum_s' exp(x[..., m, s']) + exp(sinks[..., m, 0]))`
    for the scaled, masked scores `x`; `sinks` broadcasts to `[..., M, 1]`
    (one logit per head: `[..., H, 1, 1]`). PyTorch writes it as the
    softmax of the scores with the sink column concatenated, that column
    dropped after.

    Lowered as one flash-style kernel: the key and value stream through LX
    in tiles of S, the softmax is online (running fp32 max and sum per
    row), and the scores never leave LX; with `causal` the key tiles past
    a query tile's diagonal are skipped. Sinks start each row's running
    max at its sink and its running sum at 1.

    With `rope(cos, sin, rotation)` (rotary position embedding of the
    query, as Llama, Granite and Mistral apply it), the query first becomes
    `query * cos + (query @ rotation) * sin`, each step rounded to the
    query's element type as PyTorch's eager ops round: `cos` and `sin`
    broadcast to the query's `[..., M, E]` and share its element type,
    `rotation` is `[E, E]` (transformers' `rotate_half` is a signed
    permutation). The kernel rotates each query tile in LX after loading
    it: the rotated query never goes to device memory.
  }];
  let arguments = (ins AnyRankedTensor:$query, AnyRankedTensor:$key,
                       AnyRankedTensor:$value,
                       Optional<AnyRankedTensor>:$mask,
                       Optional<AnyRankedTensor>:$sinks,
                       Optional<AnyRankedTensor>:$rope_cos,
                       Optional<AnyRankedTensor>:$rope_sin,
                       Optional<AnyRankedTensor>:$rope_rotation,
                       F64Attr:$scale, UnitAttr:$causal);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` $mask^)?
    (`sinks` `(` $sinks^ `:` type($sinks) `)`)?
    (`rope` `(` $rope_cos^ `,` $rope_sin `,` $rope_rotation `:`
     type($rope_cos) `,` type($rope_sin) `,` type($rope_rotation) `)`)?
    attr-dict `:`
    type($query) `,` type($key) `,` type($value) (`,` type($mask)^)? `->`
    type($result)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Spyre_UnaryOp : Spyre_ComputeOp<"unary", [Spyre_Pointwise,
    SameOperandsAndResultShape]> {
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

def Spyre_BinaryOp : Spyre_ComputeOp<"binary", [Spyre_Pointwise]> {
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

def Spyre_CompareOp : Spyre_ComputeOp<"compare", [Spyre_Pointwise]> {
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

def Spyre_SelectOp : Spyre_ComputeOp<"select", [Spyre_Pointwise]> {
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

def Spyre_CastOp : Spyre_ComputeOp<"cast", [Spyre_Pointwise,
    SameOperandsAndResultShape]> {
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

def Spyre_BroadcastOp : Spyre_ComputeOp<"broadcast", [Spyre_Pointwise]> {
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

#endif // SPYRE_COMPUTE_OPS_TD
