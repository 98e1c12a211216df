//===- SpyreAttrs.td - spyre attributes --------------------*- tablegen -*-===//

#ifndef SPYRE_ATTRS_TD
#define SPYRE_ATTRS_TD

include "spyre/Dialect/Spyre/SpyreBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/TensorEncoding.td"

// Integer lists print as `[1, 2]` (the default prints them bare).
def Spyre_I64List : ArrayRefParameter<"int64_t"> {
  let parser = "::spyre::parseI64List($_parser)";
  let printer = "::spyre::printI64List($_printer, $_self)";
}
def Spyre_OptionalI64List : OptionalArrayRefParameter<"int64_t"> {
  let parser = "::spyre::parseI64List($_parser)";
  let printer = "::spyre::printI64List($_printer, $_self)";
}

//===----------------------------------------------------------------------===//
// Stick layout (tensor encoding)
//===----------------------------------------------------------------------===//

def Spyre_LayoutAttr : Spyre_Attr<"Layout", "layout",
    [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "how a tensor's elements sit in 128-byte sticks";
  let description = [{
    A stick layout describes a tensor in device memory (and its tiles in LX)
    by strides over a row-major *device shape*: the stick dimension
    `stick_dim` is padded to whole sticks of `stick_elems` elements, split
    into (stick index, element in stick), and the element part is innermost:

    ```
    device_shape = [for d in dim_order: d == stick_dim ? ceil(size[d] / E)
                                                       : size[d]] ++ [E]
    ```

    `dim_order` (default: identity) orders the outer device dimensions, so
    a `[N, K]` weight can be stored K-major with sticks along N:
    `#spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>`
    has device shape `[K, ceil(N/64), 64]`. `stick_elems` times the element
    size is the machine's stick size (checked against `#spyre.arch` where an
    op sees its module). Padding elements hold unspecified values: no
    consumer may read them as data (reductions and the K dimension of
    matmuls clamp to the logical extent).

    Rank-0 tensors use `stick_dim = -1`: one stick holding the element.
  }];
  let parameters = (ins
    "int64_t":$stick_dim,
    "int64_t":$stick_elems,
    Spyre_OptionalI64List:$dim_order);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The identity-ordered layout with the given stick dimension.
    static LayoutAttr get(::mlir::MLIRContext *ctx, int64_t stickDim,
                          int64_t stickElems) {
      return get(ctx, stickDim, stickElems, {});
    }
    /// The canonical layout of `type`: sticks along the innermost dim,
    /// identity order (rank 0: stick_dim -1).
    static LayoutAttr getCanonical(::mlir::RankedTensorType type,
                                   int64_t stickBytes);
    /// The layout whose sticks run along `stickDim`, with the dims ordered
    /// so that `stickDim` is innermost (a transposed view stored row-major).
    static LayoutAttr getStickInnermost(::mlir::RankedTensorType type,
                                        int64_t stickDim, int64_t stickBytes);
    /// `type` with this layout as its encoding.
    ::mlir::RankedTensorType apply(::mlir::RankedTensorType type) const;
    /// dim_order, with the identity spelled out for a tensor of `rank`.
    ::llvm::SmallVector<int64_t> getOrder(int64_t rank) const;
    /// Device shape of a tensor with logical `shape` (see description).
    ::llvm::SmallVector<int64_t> getDeviceShape(
        ::llvm::ArrayRef<int64_t> shape) const;
    /// Number of elements (including padding) the device shape holds.
    int64_t getDeviceElements(::llvm::ArrayRef<int64_t> shape) const;
    /// Element stride, in the device layout, of logical dimension `dim`.
    /// For the stick dimension this is the stride of the *stick index*
    /// (moving one whole stick); within a stick elements are contiguous.
    int64_t getDimStride(::llvm::ArrayRef<int64_t> shape, int64_t dim) const;
    /// Same layout with another stick dimension / order.
    bool isIdentityOrder() const;
  }];
}

//===----------------------------------------------------------------------===//
// Machine description
//===----------------------------------------------------------------------===//

def Spyre_ArchAttr : Spyre_Attr<"Arch", "arch"> {
  let summary = "the machine description a module is compiled for";
  let description = [{
    Carries every field of `arch/spyre.json` (the keys of the JSON file).
    Attached to the module as `spyre.arch` by the importer (`--arch FILE`)
    or by `spyre-attach-arch`; passes read it through `spyre::getArch(op)`,
    which falls back to the built-in default description when absent.
  }];
  let parameters = (ins "::mlir::DictionaryAttr":$fields);
  let assemblyFormat = "`<` $fields `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Converts to the machine description (checked by the verifier).
    ::spyre::Arch getArch() const;
    /// Builds the attribute describing `arch`.
    static ArchAttr get(::mlir::MLIRContext *ctx, const ::spyre::Arch &arch);
  }];
}

//===----------------------------------------------------------------------===//
// Weights stored outside the IR
//===----------------------------------------------------------------------===//

def Spyre_ExternalDataAttr : Spyre_Attr<"ExternalData", "external"> {
  let summary = "weight bytes kept in a file outside the IR";
  let description = [{
    Large weights never become MLIR attributes: the importer records where
    the bytes are (`file`: the .pt2 archive or a raw file; `entry`: the
    archive member, empty for a raw file; `offset`: byte offset inside the
    entry; `strides`: element strides of the stored tensor, in the order of
    the logical dims) and the emitter streams them into `.spy` segments.
  }];
  let parameters = (ins
    StringRefParameter<>:$file,
    StringRefParameter<>:$entry,
    "int64_t":$offset,
    Spyre_OptionalI64List:$strides);
  let assemblyFormat = "`<` struct(params) `>`";
}

//===----------------------------------------------------------------------===//
// Schedule level
//===----------------------------------------------------------------------===//

def Spyre_ScheduleAttr : Spyre_Attr<"Schedule", "schedule"> {
  let summary = "how a kernel's iteration space is split and tiled";
  let description = [{
    For each loop of the kernel's iteration space: `split` cores share it
    (the kernel runs on the product of `split` cores; core `c` has the
    mixed-radix coordinates of `c` over `split`, last loop fastest, which
    keeps cores sharing an operand adjacent on the ring) and each core walks
    its share in tiles of `tile` iterations. Parallel loops are split in
    contiguous ranges; splitting a reduction loop makes partial results that
    are combined over the ring. `depth` is the number of rotating buffers
    per streamed input (2 = double buffering). `cost_ns` is the cost
    model's estimate of the kernel's time, kept for inspection. `hold`
    (omitted when empty) lists kernel inputs held whole along the
    accumulation loop: a matmul's lhs loaded once, each k step reading its
    part in place, instead of streamed again for every n tile. `keep`
    (omitted when empty) lists kernel results kept whole per core: each
    core's tiles of the result are written into one LX slab, in the
    arrangement of one tile of all of the core's rows and sticks, so that
    a reader holding that slab (a matmul's held lhs) reads it in place;
    without a reader in LX the slab is stored once after the last tile.
  }];
  let parameters = (ins
    Spyre_I64List:$split,
    Spyre_I64List:$tile,
    "int64_t":$depth,
    "int64_t":$cost_ns,
    Spyre_OptionalI64List:$hold,
    Spyre_OptionalI64List:$keep);
  let assemblyFormat = "`<` struct(params) `>`";
  let extraClassDeclaration = [{
    /// Number of cores the kernel runs on.
    int64_t getNumCores() const;
  }];
}

def Spyre_BufferAttr : Spyre_Attr<"Buffer", "buffer"> {
  let summary = "one LX buffer of a kernel";
  let description = [{
    A tile buffer at byte `offset` of every core's LX (all cores run the same
    program, so offsets are the same on every core), `bytes` per copy,
    `copies` rotating copies (the pipeline depth for streamed inputs).
    `name` says what it holds: `in<i>` kernel input i, `out<i>` output i,
    `acc` the matmul accumulator, `t<i>` a value of the fused body. `live`
    (`[first, last]`, positions of body ops) bounds when the buffer is in
    use; buffers whose live ranges do not meet may share bytes. Without
    `live` a buffer lives for the whole kernel.
  }];
  let parameters = (ins
    StringRefParameter<>:$name,
    "int64_t":$offset,
    "int64_t":$bytes,
    "int64_t":$copies,
    Spyre_OptionalI64List:$live);
  let assemblyFormat = "`<` struct(params) `>`";
}

//===----------------------------------------------------------------------===//
// Program level
//===----------------------------------------------------------------------===//

def Spyre_LxAddressAttr : Spyre_Attr<"LxAddress", "lx"> {
  let summary = "an LX operand address of an instruction";
  let description = [{
    `offset + W(sum_l iv[l] * strides[l], wrap)` (docs/isa.md): the byte
    offset in LX, advanced by `strides` per iteration of the enclosing
    hardware loops (outermost first), taken modulo `wrap` (0: none) for
    rotating buffers.
  }];
  let parameters = (ins
    "int64_t":$offset,
    Spyre_OptionalI64List:$strides,
    DefaultValuedParameter<"int64_t", "0">:$wrap);
  let assemblyFormat = "`<` struct(params) `>`";
}

def Spyre_ClampAttr : Spyre_Attr<"Clamp", "clamp"> {
  let summary = "edge-tile clamp of one instruction argument";
  let description = [{
    The clamped argument (`arg`, the index into the instruction's counts)
    becomes `clamp(total - (P(param) + iv[level] * step), 0, arg)`:
    the last tile of a dimension that the tile size does not divide.
    `level` -1 means no loop (iteration 0: the tile at the core's start);
    `param` -1 means no per-core start.
  }];
  let parameters = (ins
    "int64_t":$level,
    "int64_t":$arg,
    "int64_t":$step,
    "int64_t":$total,
    DefaultValuedParameter<"int64_t", "-1">:$param);
  let assemblyFormat = "`<` struct(params) `>`";
}

def Spyre_MemAddressAttr : Spyre_Attr<"MemAddress", "mem"> {
  let summary = "a device memory operand address of an instruction";
  let description = [{
    `&tensor + offset + P(param) + sum_l iv[l] * strides[l]`: a byte address
    relative to the symbolic device tensor `tensor` (resolved by relocation
    in the runtime), plus the per-core parameter `param` (-1: none).
  }];
  let parameters = (ins
    "::mlir::FlatSymbolRefAttr":$tensor,
    "int64_t":$offset,
    Spyre_OptionalI64List:$strides,
    DefaultValuedParameter<"int64_t", "-1">:$param);
  let assemblyFormat = "`<` struct(params) `>`";
}

#endif // SPYRE_ATTRS_TD
