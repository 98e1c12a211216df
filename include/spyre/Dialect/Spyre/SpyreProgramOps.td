//===- SpyreProgramOps.td - spyre program-level ops --------*- tablegen -*-===//

#ifndef SPYRE_PROGRAM_OPS_TD
#define SPYRE_PROGRAM_OPS_TD

include "spyre/Dialect/Spyre/SpyreBase.td"
include "spyre/Dialect/Spyre/SpyreAttrs.td"
include "spyre/Dialect/Spyre/SpyreEnums.td"
include "spyre/Dialect/Spyre/SpyreInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

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
    at least (each input read and each result written once), of which
    `min_written_bytes` are written: its roofline.
    `schedule` is the kernel's split, tiles and depth, `lx_bytes` the LX
    each core's buffers span (what `spyre-compile --report` shows).
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrAttr:$kernel,
                       Spyre_I64Attr:$num_cores, Spyre_I64Attr:$num_params,
                       DenseI64ArrayAttr:$params,
                       OptionalAttr<Spyre_I64Attr>:$estimate_ns,
                       OptionalAttr<Spyre_I64Attr>:$macs,
                       OptionalAttr<Spyre_I64Attr>:$min_bytes,
                       OptionalAttr<Spyre_I64Attr>:$min_written_bytes,
                       OptionalAttr<Spyre_ScheduleAttr>:$schedule,
                       OptionalAttr<Spyre_I64Attr>:$lx_bytes);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

def Spyre_ReferenceOp : Spyre_Op<"reference", [IsolatedFromAbove,
    HasParent<"::mlir::ModuleOp">,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "what a program computes, as compute ops on whole tensors";
  let description = [{
    The body of the kernel `program` was lowered from: its compute ops on
    the kernel's whole inputs (the block arguments, each a view of the
    device tensor `inputs` names, same elements in row-major order) giving
    the tensors `results` names. It runs nothing on the device:
    `spyre-run --check` evaluates it on the host with the device's element
    semantics (spyre/ISA/ElementMath.h) and compares every kernel's results
    with what the program wrote (docs/debugging.md).

    ```mlir
    spyre.reference @k0_add [@in0, @in1] -> [@out0] {
    ^bb0(%a: tensor<4x64xf16, #l>, %b: tensor<4x64xf16, #l>):
      %0 = spyre.binary add %a, %b : ...
      spyre.yield %0 : tensor<4x64xf16, #l>
    }
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$program,
                       FlatSymbolRefArrayAttr:$inputs,
                       FlatSymbolRefArrayAttr:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $program $inputs `->` $results attr-dict-with-keyword
    $body
  }];
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "::mlir::FlatSymbolRefAttr":$program,
                   "::llvm::ArrayRef<::mlir::Attribute>":$inputs,
                   "::llvm::ArrayRef<::mlir::Attribute>":$results)>
  ];
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
  }];
}

def Spyre_PlanOp : Spyre_Op<"plan", [HasParent<"::mlir::ModuleOp">]> {
  let summary = "the launch plan: programs in execution order";
  let arguments = (ins FlatSymbolRefArrayAttr:$programs);
  let assemblyFormat = "$programs attr-dict";
  let hasVerifier = 1;
}

class Spyre_InstOp<string mnemonic, list<Trait> traits = []>
    : Spyre_Op<mnemonic, !listconcat(traits,
        [ParentOneOf<["ProgramOp", "LoopOp"]>,
         DeclareOpInterfaceMethods<Spyre_InstructionOpInterface>])>;

def Spyre_LoopOp : Spyre_InstOp<"loop", [NoTerminator, SingleBlock,
    DeclareOpInterfaceMethods<RegionKindInterface>]> {
  let summary = "hardware loop";
  let description = [{
    Runs its body `count` times, or `P(count_param)` times when the trip
    count differs between cores, plus `count_step` times the iteration
    counter of the enclosing loop at `count_level` when both are given (a
    triangular nest: the key tiles up to a causal diagonal). At most 3
    loops nest.
  }];
  let arguments = (ins Spyre_I64Attr:$count, OptionalAttr<Spyre_I64Attr>:$count_param,
                       OptionalAttr<Spyre_I64Attr>:$count_step,
                       OptionalAttr<Spyre_I64Attr>:$count_level);
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

class Spyre_RingOp<string mnemonic> : Spyre_InstOp<mnemonic> {
  let arguments = (ins Spyre_LxAddressAttr:$lx, Spyre_I64Attr:$peer,
                       OptionalAttr<Spyre_I64Attr>:$peer_param,
                       Spyre_I64Attr:$tag, Spyre_I64Attr:$bytes,
                       UnitAttr:$partial_sum, UnitAttr:$accumulate);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Spyre_RingSendOp : Spyre_RingOp<"ring_send"> {
  let summary = "LX -> another core's LX over the ring";
  let description = [{
    Sends `bytes` contiguous bytes from `lx` to core `peer + P(peer_param)`
    (`peer_param` absent: `peer`) with `tag`, the shorter way round the
    ring (`partial_sum`: the partial-sum rings). The send completes once
    the bytes are on their way; the matching `ring_recv` (same sender,
    receiver, tag and ring, in order) takes them (docs/isa.md `RingSend`).
    `accumulate` is for receives only.
  }];
}

def Spyre_RingRecvOp : Spyre_RingOp<"ring_recv"> {
  let summary = "receive bytes another core sent over the ring into LX";
  let description = [{
    Receives `bytes` bytes from core `peer + P(peer_param)` with `tag` into
    `lx`; the core's ring unit waits until they arrive (docs/isa.md
    `RingRecv`). `partial_sum`: over the partial-sum rings; with
    `accumulate` as well the bytes are f32 partial sums added to what `lx`
    holds (a K-split matmul's reduction).
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

#endif // SPYRE_PROGRAM_OPS_TD
