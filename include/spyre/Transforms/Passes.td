//===- Passes.td - spyre passes ----------------------------*- tablegen -*-===//

#ifndef SPYRE_TRANSFORMS_PASSES_TD
#define SPYRE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Setup
//===----------------------------------------------------------------------===//

def SpyreAttachArch : Pass<"spyre-attach-arch", "::mlir::ModuleOp"> {
  let summary = "Attach a machine description to the module";
  let description = [{
    Input: any module. Output: the module carries `spyre.arch =
    #spyre.arch<...>` read from `arch` (or the built-in `arch/spyre.json`
    when it is empty and the module has none). Every later pass reads its
    hardware numbers from that attribute. `arch=` is the spelling of
    `--spyre-pipeline` and the tools; `file=` is kept as an alias.
  }];
  let options = [
    Option<"arch", "arch", "std::string", "\"\"",
           "Machine description JSON (default: the built-in arch/spyre.json)">,
    Option<"file", "file", "std::string", "\"\"",
           "Alias of arch (the earlier spelling)">,
  ];
  let dependentDialects = ["::spyre::SpyreDialect"];
}

//===----------------------------------------------------------------------===//
// Graph level -> compute level
//===----------------------------------------------------------------------===//

def SpyreDecompose : Pass<"spyre-decompose", "::mlir::ModuleOp"> {
  let summary = "Rewrite spyre.aten nodes into compute-level ops";
  let description = [{
    Input: graph-level IR (`spyre.aten`, `spyre.weight`, func ops).
    Lowering: every `spyre.aten` is matched by name against the
    decomposition registry (lib/Transforms/Decompositions, one family a
    file: matmul, pointwise, ...) and replaced by compute ops; adapters
    rewrite forms that lower badly into equal ones. Scalars become splat
    `spyre.constant`s (the hardware has no immediates).
    Output: no `spyre.aten` remains; an op without a decomposition is an
    error at the node's location naming the op.

    ```mlir
    // before
    %0 = spyre.aten "aten.linear.default"(%x, %w) {args = {},
           tensor_args = ["input", "weight"]} : (...) -> tensor<64x1024xf16>
    // after
    %0 = spyre.matmul %x, %w {transpose_rhs} : ... -> tensor<64x1024xf16>
    ```
  }];
  let dependentDialects = ["::spyre::SpyreDialect"];
}

//===----------------------------------------------------------------------===//
// Compute level
//===----------------------------------------------------------------------===//

def SpyreFuseAttention : Pass<"spyre-fuse-attention", "::mlir::ModuleOp"> {
  let summary = "Make eager attention chains one spyre.attention";
  let description = [{
    Eager attention as transformers writes it, `softmax(q @ k^T * scale +
    mask) @ v`, decomposes into `matmul(q, k) {transpose_rhs}`, casts,
    splat scale factors (`mul`, `div`), an additive mask, a softmax along
    the last dim (`reduce max`, `sub`, `exp`, `reduce sum`, `div`, with or
    without the `_safe_softmax` select) and `matmul(p, v)`. This pass
    replaces such a chain by one `spyre.attention`, the flash kernel whose
    scores never leave LX.

    Input: compute-level IR after canonicalization, where transformers'
    `repeat_kv` has become grouped-query rows (`[.., Hk, G * L, S]` scores
    reshaped to `[.., Hk * G, L, S]` around the softmax): the attention is
    then built per query head with each K/V head serving its G query heads
    (no copies). Not fused: a chain whose intermediates (scores,
    probabilities, row maxima) are used elsewhere, a second mask, a mask
    added in the grouped rows' space, a key given untransposed, a scale that
    is not a splat constant. A scale applied after the mask scales the mask
    too. Attention sinks (gpt-oss) fuse as the op's `sinks`: probabilities
    that are the first S columns of the softmax of `cat(scores, column)`
    along the keys (casts and a shift by the row max around the `cat`),
    the column a broadcast per-head logit. Output: the same values, except that a row masked entirely with
    `-inf` gives 0 where the plain softmax gives NaN (transformers' masks
    use the dtype's minimum, never `-inf`).

    ```mlir
    // before (abridged)
    %s = spyre.matmul %q, %k {transpose_rhs} : ... -> tensor<1x4x5x9xf16>
    ... softmax(cast(%s) * 0.125 + %mask) along dim 3, cast to f16 -> %p ...
    %o = spyre.matmul %p, %v : ... -> tensor<1x4x5x40xf16>
    // after
    %o = spyre.attention %q, %k, %v mask %mask {scale = 0.125 : f64} : ...
    ```
  }];
  let dependentDialects = ["::spyre::SpyreDialect"];
}

def SpyreFoldRope : Pass<"spyre-fold-rope", "::mlir::ModuleOp"> {
  let summary = "Fold the rotary embedding of an attention's query into it";
  let description = [{
    Llama, Granite and Mistral rotate the query before attention: `q * cos
    + rotate_half(q) * sin` decomposes to `add(mul(x, cos), mul(matmul(x,
    R), sin))` with `R` a `[E, E]` signed permutation. Run as kernels of
    their own, the rotated query goes to device memory and back. This pass
    makes such a query the attention's `rope(cos, sin, rotation)` operands,
    so the flash kernel rotates each query tile in LX after loading it.

    Input: compute-level IR after spyre-fuse-attention. The rope may reach
    the attention through a reshape into its heads. Folded when the rotated
    query has no other reader, `x`, the tables, the rotation and the query
    share one element type, the tables broadcast over every dim of `x` but
    its last two (one table for all heads), and the reshape keeps the last
    two dims (or the head dim, with tables of one row: a decode step). Not
    folded: a rotated query that is also an output or read elsewhere,
    tables per head, a reshape that makes grouped heads rows of one tile
    with tables of several positions. The key's rope stays a kernel of its
    own (K tiles are read once per query tile; rotating them there would
    repeat the work). Output: the same values, rounded at the same steps.

    ```mlir
    // before
    %c = spyre.binary mul %x, %cos : ...
    %r = spyre.matmul %x, %rot : tensor<1x32x512x128xf16>, tensor<128x128xf16> -> ...
    %s = spyre.binary mul %r, %sin : ...
    %q = spyre.binary add %c, %s : ...
    %o = spyre.attention %q, %k, %v {causal, scale = 0.088 : f64} : ...
    // after
    %o = spyre.attention %x, %k, %v rope(%cos, %sin, %rot : ...) {causal, ...} : ...
    ```
  }];
  let dependentDialects = ["::spyre::SpyreDialect"];
}

def SpyreExpandAttention : Pass<"spyre-expand-attention", "::mlir::ModuleOp"> {
  let summary = "Rewrite spyre.attention into the math form where asked";
  let description = [{
    `spyre.attention` runs as one flash kernel (the scores stay in LX). This
    pass rewrites it into the math form, three kernels through device
    memory: `matmul(q, k^T)` (f32), times the scale, plus the mask, a
    softmax (PyTorch's `_safe_softmax` when there is a mask), the
    probabilities rounded to the value's type, `matmul(p, v)`.

    Input: compute-level IR. Lowering: with `all` (the unfused baseline,
    `--fusion=false`) every attention op is expanded; otherwise those with
    an operand dim of size 0 (the math form folds empty tensors, no kernel
    runs), those whose head dims leave no room in LX for the flash
    kernel's smallest tiles (one query row, one stick of keys), and those
    whose head dims, split over at most `max-cores` cores, would leave the
    flash kernel more than three hardware loops (grouped-query heads
    `[B, KVH, G, S, D]` on fewer than G cores). Output: the same values.

    ```mlir
    // before
    %o = spyre.attention %q, %k, %v {scale = 0.125 : f64}
        : tensor<64x32xf16>, tensor<80x32xf16>, tensor<80x32xf16>
          -> tensor<64x32xf16>
    // after (abridged)
    %s = spyre.matmul %q, %k {transpose_rhs} : ... -> tensor<64x80xf32>
    ... softmax of %s * 0.125 ...
    %o = spyre.matmul %p, %v : ... -> tensor<64x32xf16>
    ```
  }];
  let options = [
    Option<"all", "all", "bool", "false",
           "Expand every attention op (the unfused baseline)">,
    Option<"maxCores", "max-cores", "int64_t", /*default=*/"0",
           "Most cores a kernel may use (0: all), as spyre-schedule-cores">,
  ];
  let dependentDialects = ["::spyre::SpyreDialect"];
}

def SpyreSinkTransposes : Pass<"spyre-sink-transposes", "::mlir::ModuleOp"> {
  let summary = "Apply pointwise ops before the transposes that move the "
                "innermost dim";
  let description = [{
    A transpose that moves the innermost (stick) dim is a kernel of its own
    that nothing fuses into, so a pointwise op reading it costs one more
    kernel and one more device-memory round trip. Applied before the
    transpose, the op fuses with the producer of the transposed value.

    Input: compute-level IR without layouts. Lowering, repeated until
    nothing changes: `pointwise(transpose(x, p), y, ..)` becomes
    `transpose(pointwise(x, y', ..), p)` when the transpose moves the
    innermost dim and has no other user, the transposed operand has the
    result's shape (the transpose never grows), and every other operand
    reads the same untransposed for free: the input of another such
    transpose by `p`, a scalar, or a broadcast operand whose size-1 dims
    alone move and whose innermost dim stays (a reshape view of it, also
    on the device). Transposes that keep the innermost
    dim are left to `spyre-reorder-on-chip`; broadcasts do not sink.
    Output: the same values. In `--spyre-pipeline` unless `on-chip=false`.

    ```mlir
    %t = spyre.transpose %r [1, 0] : tensor<64x32xf16> -> tensor<32x64xf16>
    %m = spyre.binary mul %t, %two : tensor<32x64xf16>, tensor<f16> -> tensor<32x64xf16>
    // becomes
    %p = spyre.binary mul %r, %two : tensor<64x32xf16>, tensor<f16> -> tensor<64x32xf16>
    %m = spyre.transpose %p [1, 0] : tensor<64x32xf16> -> tensor<32x64xf16>
    ```
  }];
  let dependentDialects = ["::spyre::SpyreDialect"];
}

def SpyreCollapseDims : Pass<"spyre-collapse-dims", "::mlir::ModuleOp"> {
  let summary = "Walk high-rank ops over fewer, merged dimensions";
  let description = [{
    A kernel walks its tiles with at most three hardware loops plus the
    stick dim, and its DMA boxes are three-dimensional, so a rank-6 slice
    cannot run as it is. Most such ops do not need every dim walked
    separately: adjacent dims that every operand reads the same way (all
    whole, or all broadcast; for a slice, the inner one taken whole with
    step 1) are one dim in row-major order.

    Input: compute-level IR without layouts (before
    `spyre-assign-layouts`). Lowering: each pointwise op (unary, binary,
    compare, select, cast, broadcast), slice, concat, reduce and scatter
    whose result rank exceeds `max-rank` is rewritten on merged dims: its operands are
    reshaped to the merged shape, the op runs at the lower rank and its
    result is reshaped back. The innermost dim (the stick dim of the
    canonical layout) is never merged with another dim of size > 1, so every
    reshape keeps it and is a view (no data moves). Chains of such ops reuse
    each other's merged values, so no reshape pair is left between them.
    Output: the same values; ops whose dims cannot merge (e.g. a slice
    strided in every dim) keep their rank, and later passes report what
    they cannot run.

    ```mlir
    // before
    %0 = spyre.slice %x offsets [0, 0, 1, 0, 0] strides [1, 1, 1, 1, 1]
        : tensor<2x3x4x5x6xf32> -> tensor<2x3x2x5x6xf32>
    // after
    %r = spyre.reshape %x : tensor<2x3x4x5x6xf32> -> tensor<6x20x6xf32>
    %s = spyre.slice %r offsets [0, 5, 0] strides [1, 1, 1]
        : tensor<6x20x6xf32> -> tensor<6x10x6xf32>
    %0 = spyre.reshape %s : tensor<6x10x6xf32> -> tensor<2x3x2x5x6xf32>
    ```
  }];
  let options = [
    Option<"maxRank", "max-rank", "int64_t", "4",
           "Ops of a higher result rank are collapsed">,
  ];
  let dependentDialects = ["::spyre::SpyreDialect"];
}

def SpyreAssignLayouts : Pass<"spyre-assign-layouts", "::mlir::ModuleOp"> {
  let summary = "Choose a stick layout for every tensor";
  let description = [{
    Input: compute-level IR without layouts. Lowering: each value gets a
    `#spyre.layout` encoding: matmul operands as the PT unit needs them
    (lhs sticked along K, rhs and result along N), elementwise ops share the
    stick dimension of their operands, weights and graph inputs take the
    layout their consumers want (the runtime converts inputs on upload and
    weights are written in it by the emitter, so their layout is free).
    Where a producer's layout differs from a consumer's need a
    `spyre.restickify` is inserted; one per (value, layout) pair, so their
    number is the number of distinct layouts a value is needed in minus one.
    A weight or constant needed in several layouts is instead copied, one
    `spyre.weight`/`spyre.constant` per layout, each written in its layout
    by the emitter: no load-time tensor is re-laid-out on the device in
    every run (a tied embedding and lm_head table costs its bytes twice in
    the `.spy` instead). A buffer that the program mutates stays one tensor
    and is restickified.
    Output: every tensor type in functions has a layout; function
    signatures are updated.

    ```mlir
    // before
    %0 = spyre.matmul %x, %w {transpose_rhs} : tensor<64x256xf16>, ...
    // after
    %0 = spyre.matmul %x, %w {transpose_rhs}
        : tensor<64x256xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>,
          tensor<1024x256xf16, #spyre.layout<stick_dim = 0, stick_elems = 64,
                                             dim_order = [1, 0]>> -> ...
    ```
  }];
  let dependentDialects = ["::spyre::SpyreDialect"];
}

def SpyreFormKernels : Pass<"spyre-form-kernels", "::mlir::ModuleOp"> {
  let summary = "Fuse compute ops into spyre.kernel units";
  let description = [{
    Input: compute-level IR with layouts. Lowering: every compute op starts
    a kernel; an elementwise consumer is fused into its producer's kernel
    when its loops map onto the producer's parallel loops, the producer
    result has no other user, and the fused body fits LX at the smallest
    tile (the elementwise tail of a matmul: bias, activation, residual).
    A chain of reductions over long rows (topk over a vocabulary) stops
    fusing where the grown kernel, single-buffered at its smallest tiles,
    would no longer fit LX, and continues in a new kernel.
    Then, the other way round, a kernel of pointwise ops whose one result
    only another kernel reads, as operands of that kernel's pointwise ops
    (not a matmul or attention operand), is computed inside it: the
    consumer reads the producer's inputs through composed maps and runs a
    copy of its body (RoPE's `q * cos` inside the kernel adding it to
    `rotate_half(q) * sin`). Likewise a matmul kernel read that way by
    another matmul kernel over the same loops and of the same lhs: the
    gated MLP's gate projection and its SiLU run in the up projection's
    kernel, two accumulators fed by one lhs stream. Matmul kernels of one
    lhs over the same loops that nothing connects (k and v projections
    under grouped-query attention) become one kernel with a result each
    where its fastest schedule beats the two kernels' (each alone, the
    search of `spyre-schedule-cores` at `depth`).
    With `leave-permutes`, nothing is fused into a kernel that only
    permutes (a transpose keeping the stick dim): it stays pure for
    `spyre-reorder-on-chip` to fold into its neighbours.
    Layout-only ops (`spyre.reshape` that keeps the device layout) stay
    outside kernels as views. Each kernel states its loop nest (`space`,
    `iterators`, `indexing_maps`).
    Output: every compute op is inside a `spyre.kernel`.
  }];
  let options = [
    Option<"fuseConsumers", "fusion", "bool", /*default=*/"true",
           "Fuse consumers into their producers' kernels (false: one kernel "
           "per compute op, the unfused baseline of bench/perf)">,
    Option<"maxCores", "max-cores", "int64_t", /*default=*/"0",
           "Most cores a kernel may use (0: all), as spyre-schedule-cores: a "
           "fusion is kept only if the fused kernel still has a schedule">,
    Option<"leavePermutes", "leave-permutes", "bool", /*default=*/"true",
           "Fuse nothing into a kernel that only permutes (spyre-reorder-on-"
           "chip folds it into its neighbours; false with --on-chip=false)">,
    Option<"depth", "depth", "int64_t", /*default=*/"2",
           "Buffer copies of the schedules weighed when sibling projections "
           "may merge, as spyre-schedule-cores">
  ];
  let dependentDialects = ["::spyre::SpyreDialect"];
}

def SpyreReorderOnChip : Pass<"spyre-reorder-on-chip", "::mlir::ModuleOp"> {
  let summary = "Fold data reordering between kernels into their access "
                "patterns";
  let description = [{
    Input: kernels (spyre-form-kernels has run), not yet scheduled.
    Lowering: a kernel whose body is one transpose keeping the stick dim
    (attention's head transposes) reads a tensor from device memory and
    writes it back permuted; it disappears. Its permutation is folded into
    its producer, which stores its result permuted (the result map is
    permuted and a tile alias ends the body), or else into each consumer,
    which reads the input permuted (the input map is permuted and a tile
    alias starts the body). Reshape views between the kernels are looked
    through when the permutation keeps the view's split dims together and in
    order (the GQA head views around attention): it is lifted to the view's
    other side and the view rebuilt. A fold is kept only where the rewritten
    kernel is one the program lowering supports, still fits LX and, split
    over at most `max-cores` cores, nests at most three hardware loops.
    A kernel that only copies a window of its input (a slice with unit
    steps: `chunk`, `split`, `narrow`, `x[a:b]`) is folded into each kernel
    reading its result: the consumer reads the input through its map offset
    by the window's start, and a window-read alias (the slice, which runs no
    instruction) starts its body. A window of the stick dim must start on a
    stick and end on one or at the dim's end (no tile may read elements
    outside it); attention kernels and data-movement kernels do not take
    windows. A kernel that only gathers table rows by indices (MoE
    dispatch and combine, an embedding) is folded into each kernel reading
    its result: that input becomes the table (its map reads the stick dim
    only), the indices a new input, and a gather read (the gather, which
    KernelPlan lowers to a DmaGather of each tile's rows) starts its body;
    not into attention or another gather. A kernel that only broadcasts
    its input along outer dims (expand; repeat, decomposed as a broadcast
    and views) is folded into each kernel reading its result: the
    consumer's map drops the broadcast dims and a broadcast read (the
    broadcast, which runs no instruction) starts its body, so the input is
    read once for all the copies.
    Not here: ring transfers between kernels whose distributions over the
    cores differ and residency in LX (spyre-schedule-cores and
    spyre-allocate-scratchpad decide those); a transpose that moves the
    stick dim stays a kernel.
    Output: the same program with fewer pure data-movement kernels.
  }];
  let options = [
    Option<"maxCores", "max-cores", "int64_t", /*default=*/"0",
           "Most cores a kernel may use (0: all), as spyre-schedule-cores: a "
           "fold is kept only if the rewritten kernel still has a schedule">
  ];
  let dependentDialects = ["::spyre::SpyreDialect"];
}

//===----------------------------------------------------------------------===//
// Schedule level
//===----------------------------------------------------------------------===//

def SpyreScheduleCores : Pass<"spyre-schedule-cores", "::mlir::ModuleOp"> {
  let summary = "Split each kernel over the cores with a cost model";
  let description = [{
    Input: kernels without `schedule`. Lowering: enumerates splits of the
    parallel loops over up to `max-cores` cores (stick dimensions split on
    whole sticks) and tile sizes that fit the usable LX with `depth`
    rotating buffers per streamed input, and keeps the candidate with the
    lowest estimated time. The estimate, from `#spyre.arch`, is the sum of
    per-tile pipeline stages: max(DMA time with the memory node shared by
    all cores, PT time, SFP time) per tile plus the pipeline fill; cores
    that share an operand are made ring-adjacent by the core numbering.
    When no candidate fits with `depth` buffers, the search is repeated
    single-buffered (depth 1) before reporting "no schedule fits".
    Kernels that already have a `schedule` are kept (so tests and users can
    pin one). The search runs once per distinct kernel: kernels equal in
    everything but their name and location (the layers of a model) get the
    schedule found for the first of them, so a 40-layer model costs about
    one layer's search, with the same output as searching each. With
    `cache-dir`, schedules are also kept in files of that directory, keyed by
    the kernel's signature, the options, the machine description and the
    compiler's own executable, and a later compile reads them instead of
    searching (the output is byte-identical either way; an entry that does
    not read back is searched again and rewritten).
    With `resident` (the default), kernels are then revisited in plan
    order: a consumer whose input is a result only kernels read, written
    once per core by its producer, takes the fastest schedule that reads
    that input on the same cores, in the same tiles (so
    spyre-allocate-scratchpad can keep it in LX), when that schedule
    without the load, less its share of the producer's saved store, beats
    the consumer's own best; a producer that streams the result in several
    tiles per core may be re-planned with it, to write the result once per
    core in one tile or kept whole in a slab of its tiles (`keep`, read in
    place by a matmul holding those rows as its lhs), when the pair costs
    less than the two own bests. With `ring` as well (the default), a consumer
    that is its input's only reader may instead take the fastest schedule
    that gathers that input over the ring from the producer's tiles (the
    producer re-planned to write once per core where it must), when that
    beats device memory and the consumer's own best. Kernels the input
    pinned are left alone.
    Output: every kernel has `schedule`.
  }];
  let options = [
    Option<"maxCores", "max-cores", "int64_t", "0",
           "Most cores a kernel may use (0: all cores of the machine)">,
    Option<"depth", "depth", "int64_t", "2",
           "Rotating buffers per streamed input (2 = double buffering)">,
    Option<"cacheDir", "cache-dir", "std::string", "",
           "Directory of schedules kept across compiles (empty: none)">,
    Option<"resident", "resident", "bool", /*default=*/"true",
           "Let a consumer take the schedule that reads an input where its "
           "producer leaves it in LX, when that is faster for the pair">,
    Option<"ring", "ring", "bool", /*default=*/"true",
           "With resident: also weigh schedules that gather an input over "
           "the ring from its producer's tiles">
  ];
  let dependentDialects = ["::spyre::SpyreDialect"];
}

def SpyreAllocateScratchpad
    : Pass<"spyre-allocate-scratchpad", "::mlir::ModuleOp"> {
  let summary = "Place LX buffers per core and plan device memory";
  let description = [{
    Input: scheduled kernels. Lowering: lists the tile buffers each core
    needs (streamed inputs with `depth` rotating copies, the fp32
    accumulator, intermediates of the fused body, output tiles), assigns
    them 128-byte aligned offsets in the usable LX (intermediates of the
    body reuse space once dead) and proves the total fits; then plans
    device-memory workspace offsets for tensors passed between kernels by
    liveness (first fit, reusing dead tensors' space).
    With `resident` (the default), LX is planned over the whole launch
    plan: a result whose every consumer reads, on every core, exactly the
    tile its producer wrote there (the same cores, the same slices, one
    tile per core in both) stays in LX from its producer to its last
    consumer. The producer stores nothing and the consumers load nothing;
    every other kernel in between places its buffers around the tile, and
    a handoff is dropped (largest first) where a kernel would not fit
    beside it.
    With `ring` as well (the default), a result read by one kernel whose
    cores' tiles are not the producer's (another split, the same tile on
    another core) also stays in the producer's LX when the cost model says
    the ring is faster than device memory: the reader gathers its tile
    over the ring before it computes (a ring send/receive per piece, an
    SFP copy for the piece on its own core), and the region stays free
    through the reader.
    Output: every kernel has `buffers` and `result_offsets`; kernels with a
    handoff state it in `sources` / `destinations` (`lx`, `ring`; absent
    entries are `dma`), and a kept result has no workspace offset; a kernel whose
    buffers cannot fit is an error at its location with the bytes needed
    and available.
  }];
  let options = [
    Option<"resident", "resident", "bool", /*default=*/"true",
           "Keep a result in LX for its consumers when they read the "
           "slices it was written in on the same cores (false: every "
           "result goes through device memory)">,
    Option<"ring", "ring", "bool", /*default=*/"true",
           "With resident: also keep a result with one reader whose tiles "
           "differ, the reader gathering them over the ring where the cost "
           "model finds that faster than device memory">
  ];
  let dependentDialects = ["::spyre::SpyreDialect"];
}

def SpyreLowerToProgram : Pass<"spyre-lower-to-program", "::mlir::ModuleOp"> {
  let summary = "Turn scheduled kernels into per-core programs";
  let description = [{
    Input: allocated kernels in one function. Lowering: the function's
    inputs, outputs, weights, constants and workspace tensors become
    `spyre.tensor` symbols; each kernel becomes a `spyre.program` of
    instructions (docs/isa.md): hardware loops over the core's tiles, DMA
    loads into rotating buffers, PT matmuls accumulating over K, SFP ops
    for the fused body, DMA stores, with per-core parameter tables for the
    core's offsets, trip counts and edge clamps; `spyre.plan` lists the
    programs in order. Each program gets a `spyre.reference`, a copy of its
    kernel's compute ops, which `spyre-run --check` evaluates on the host
    (none for a kernel with an empty output, which has no storage).
    Output: a module of `spyre.tensor`, `spyre.program`, `spyre.reference`
    and `spyre.plan` ops, ready for `spyre-translate --spyre-to-spy`.
  }];
  let dependentDialects = ["::spyre::SpyreDialect"];
}

def SpyreRecordPipeline : Pass<"spyre-record-pipeline", "::mlir::ModuleOp"> {
  let summary = "Record the pipeline that compiled the module";
  let description = [{
    Input: any module. Output: the module carries `spyre.pipeline =
    "<text>"`, which `spyre-translate --spyre-to-spy` writes into the .spy's
    metadata. `--spyre-pipeline` ends with it, so a staged compile
    (import | spyre-opt | spyre-translate) records what spyre-compile does.
  }];
  let options = [
    Option<"pipeline", "pipeline", "std::string", "\"\"",
           "The pipeline's textual form">,
  ];
}

#endif // SPYRE_TRANSFORMS_PASSES_TD
