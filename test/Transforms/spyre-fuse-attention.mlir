// RUN: spyre-opt %s --spyre-fuse-attention --split-input-file | FileCheck %s

// spyre-fuse-attention: eager attention chains (two matmuls around a
// softmax) become one spyre.attention.

// transformers' eager form: f16 scores, cast to f32, scaled, an additive
// mask, softmax, probabilities back to f16. The mask is aligned to the
// query's rank; no intermediate remains.
// CHECK-LABEL: func.func @masked
// CHECK: %[[M:.*]] = spyre.reshape %arg3 : tensor<16x24xf32> -> tensor<1x16x24xf32>
// CHECK: %[[O:.*]] = spyre.attention %arg0, %arg1, %arg2 mask %[[M]] {scale = 1.250000e-01 : f64} : tensor<4x16x32xf16>, tensor<4x24x32xf16>, tensor<4x24x32xf16>, tensor<1x16x24xf32> -> tensor<4x16x32xf16>
// CHECK-NOT: spyre.matmul
// CHECK-NOT: spyre.reduce
// CHECK: return %[[O]]
func.func @masked(%q: tensor<4x16x32xf16>, %k: tensor<4x24x32xf16>,
                  %v: tensor<4x24x32xf16>, %mask: tensor<16x24xf32>)
    -> tensor<4x16x32xf16> {
  %c = spyre.constant dense<1.250000e-01> : tensor<f32> : tensor<f32>
  %s = spyre.matmul %q, %k {transpose_rhs} : tensor<4x16x32xf16>, tensor<4x24x32xf16> -> tensor<4x16x24xf16>
  %s32 = spyre.cast %s : tensor<4x16x24xf16> -> tensor<4x16x24xf32>
  %x0 = spyre.binary mul %s32, %c : tensor<4x16x24xf32>, tensor<f32> -> tensor<4x16x24xf32>
  %x = spyre.binary add %x0, %mask : tensor<4x16x24xf32>, tensor<16x24xf32> -> tensor<4x16x24xf32>
  %mx = spyre.reduce max %x dim 2 : tensor<4x16x24xf32> -> tensor<4x16x1xf32>
  %sh = spyre.binary sub %x, %mx : tensor<4x16x24xf32>, tensor<4x16x1xf32> -> tensor<4x16x24xf32>
  %e = spyre.unary exp %sh : tensor<4x16x24xf32> -> tensor<4x16x24xf32>
  %sum = spyre.reduce sum %e dim 2 : tensor<4x16x24xf32> -> tensor<4x16x1xf32>
  %p = spyre.binary div %e, %sum : tensor<4x16x24xf32>, tensor<4x16x1xf32> -> tensor<4x16x24xf32>
  %p16 = spyre.cast %p : tensor<4x16x24xf32> -> tensor<4x16x24xf16>
  %o = spyre.matmul %p16, %v : tensor<4x16x24xf16>, tensor<4x24x32xf16> -> tensor<4x16x32xf16>
  return %o : tensor<4x16x32xf16>
}

// -----

// repeat_kv after canonicalization: 4 query heads as rows of 2 K/V heads.
// With a mask that varies along the queries, the heads are split back
// ([1, 2, 2, 5, 40] over K/V [1, 2, 1, 9, 40]): K and V are not copied.
// A division by a splat is a scale; a scale outside the mask scales it.
// CHECK-LABEL: func.func @grouped
// CHECK: %[[MS:.*]] = spyre.binary mul %arg3, %{{.*}} : tensor<1x1x5x9xf16>, tensor<f16> -> tensor<1x1x5x9xf16>
// CHECK: %[[Q:.*]] = spyre.reshape %arg0 : tensor<1x2x10x40xf16> -> tensor<1x4x5x40xf16>
// CHECK: %[[QG:.*]] = spyre.reshape %[[Q]] : tensor<1x4x5x40xf16> -> tensor<1x2x2x5x40xf16>
// CHECK: %[[K:.*]] = spyre.reshape %arg1 : tensor<1x2x9x40xf16> -> tensor<1x2x1x9x40xf16>
// CHECK: %[[V:.*]] = spyre.reshape %arg2 : tensor<1x2x9x40xf16> -> tensor<1x2x1x9x40xf16>
// CHECK: %[[MG:.*]] = spyre.reshape %[[MS]] : tensor<1x1x5x9xf16> -> tensor<1x1x1x5x9xf16>
// CHECK: %[[O:.*]] = spyre.attention %[[QG]], %[[K]], %[[V]] mask %[[MG]] {scale = 2.500000e-01 : f64} : tensor<1x2x2x5x40xf16>, tensor<1x2x1x9x40xf16>, tensor<1x2x1x9x40xf16>, tensor<1x1x1x5x9xf16> -> tensor<1x2x2x5x40xf16>
// CHECK: %[[R:.*]] = spyre.reshape %[[O]] : tensor<1x2x2x5x40xf16> -> tensor<1x2x10x40xf16>
// CHECK: return %[[R]]
func.func @grouped(%q: tensor<1x2x10x40xf16>, %k: tensor<1x2x9x40xf16>,
                   %v: tensor<1x2x9x40xf16>, %mask: tensor<1x1x5x9xf16>)
    -> tensor<1x2x10x40xf16> {
  %two = spyre.constant dense<2.000000e+00> : tensor<f16> : tensor<f16>
  %half = spyre.constant dense<5.000000e-01> : tensor<f16> : tensor<f16>
  %s = spyre.matmul %q, %k {transpose_rhs} : tensor<1x2x10x40xf16>, tensor<1x2x9x40xf16> -> tensor<1x2x10x9xf16>
  %h = spyre.reshape %s : tensor<1x2x10x9xf16> -> tensor<1x4x5x9xf16>
  %d = spyre.binary div %h, %two : tensor<1x4x5x9xf16>, tensor<f16> -> tensor<1x4x5x9xf16>
  %a = spyre.binary add %mask, %d : tensor<1x1x5x9xf16>, tensor<1x4x5x9xf16> -> tensor<1x4x5x9xf16>
  %x = spyre.binary mul %half, %a : tensor<f16>, tensor<1x4x5x9xf16> -> tensor<1x4x5x9xf16>
  %mx = spyre.reduce max %x dim 3 : tensor<1x4x5x9xf16> -> tensor<1x4x5x1xf16>
  %sh = spyre.binary sub %x, %mx : tensor<1x4x5x9xf16>, tensor<1x4x5x1xf16> -> tensor<1x4x5x9xf16>
  %e = spyre.unary exp %sh : tensor<1x4x5x9xf16> -> tensor<1x4x5x9xf16>
  %sum = spyre.reduce sum %e dim 3 : tensor<1x4x5x9xf16> -> tensor<1x4x5x1xf16>
  %p = spyre.binary div %e, %sum : tensor<1x4x5x9xf16>, tensor<1x4x5x1xf16> -> tensor<1x4x5x9xf16>
  %r = spyre.reshape %p : tensor<1x4x5x9xf16> -> tensor<1x2x10x9xf16>
  %o = spyre.matmul %r, %v : tensor<1x2x10x9xf16>, tensor<1x2x9x40xf16> -> tensor<1x2x10x40xf16>
  return %o : tensor<1x2x10x40xf16>
}

// -----

// The _safe_softmax form (a fully masked row gives 0), no scale, no mask.
// CHECK-LABEL: func.func @safe
// CHECK: %[[O:.*]] = spyre.attention %arg0, %arg1, %arg2 {scale = 1.000000e+00 : f64} : tensor<8x32xf32>, tensor<12x32xf32>, tensor<12x32xf32> -> tensor<8x32xf32>
// CHECK-NOT: spyre.select
// CHECK: return %[[O]]
func.func @safe(%q: tensor<8x32xf32>, %k: tensor<12x32xf32>,
                %v: tensor<12x32xf32>) -> tensor<8x32xf32> {
  %zero = spyre.constant dense<0.000000e+00> : tensor<f32> : tensor<f32>
  %ninf = spyre.constant dense<0xFF800000> : tensor<f32> : tensor<f32>
  %x = spyre.matmul %q, %k {transpose_rhs} : tensor<8x32xf32>, tensor<12x32xf32> -> tensor<8x12xf32>
  %mx = spyre.reduce max %x dim 1 : tensor<8x12xf32> -> tensor<8x1xf32>
  %sh = spyre.binary sub %x, %mx : tensor<8x12xf32>, tensor<8x1xf32> -> tensor<8x12xf32>
  %e = spyre.unary exp %sh : tensor<8x12xf32> -> tensor<8x12xf32>
  %sum = spyre.reduce sum %e dim 1 : tensor<8x12xf32> -> tensor<8x1xf32>
  %p = spyre.binary div %e, %sum : tensor<8x12xf32>, tensor<8x1xf32> -> tensor<8x12xf32>
  %all = spyre.compare eq %mx, %ninf : tensor<8x1xf32>, tensor<f32> -> tensor<8x1xi1>
  %ps = spyre.select %all, %zero, %p : tensor<8x1xi1>, tensor<f32>, tensor<8x12xf32> -> tensor<8x12xf32>
  %o = spyre.matmul %ps, %v : tensor<8x12xf32>, tensor<12x32xf32> -> tensor<8x32xf32>
  return %o : tensor<8x32xf32>
}

// -----

// Not fused: the probabilities are a graph output too (they would have to
// leave LX anyway).
// CHECK-LABEL: func.func @probabilities_used
// CHECK-NOT: spyre.attention
// CHECK: spyre.matmul %{{.*}}, %arg2
func.func @probabilities_used(%q: tensor<8x32xf32>, %k: tensor<12x32xf32>,
                              %v: tensor<12x32xf32>)
    -> (tensor<8x32xf32>, tensor<8x12xf32>) {
  %x = spyre.matmul %q, %k {transpose_rhs} : tensor<8x32xf32>, tensor<12x32xf32> -> tensor<8x12xf32>
  %mx = spyre.reduce max %x dim 1 : tensor<8x12xf32> -> tensor<8x1xf32>
  %sh = spyre.binary sub %x, %mx : tensor<8x12xf32>, tensor<8x1xf32> -> tensor<8x12xf32>
  %e = spyre.unary exp %sh : tensor<8x12xf32> -> tensor<8x12xf32>
  %sum = spyre.reduce sum %e dim 1 : tensor<8x12xf32> -> tensor<8x1xf32>
  %p = spyre.binary div %e, %sum : tensor<8x12xf32>, tensor<8x1xf32> -> tensor<8x12xf32>
  %o = spyre.matmul %p, %v : tensor<8x12xf32>, tensor<12x32xf32> -> tensor<8x32xf32>
  return %o, %p : tensor<8x32xf32>, tensor<8x12xf32>
}

// -----

// Not fused: a softmax along another dim than the keys'.
// CHECK-LABEL: func.func @softmax_over_queries
// CHECK-NOT: spyre.attention
func.func @softmax_over_queries(%q: tensor<12x32xf32>, %k: tensor<12x32xf32>,
                                %v: tensor<12x32xf32>) -> tensor<12x32xf32> {
  %x = spyre.matmul %q, %k {transpose_rhs} : tensor<12x32xf32>, tensor<12x32xf32> -> tensor<12x12xf32>
  %mx = spyre.reduce max %x dim 0 : tensor<12x12xf32> -> tensor<1x12xf32>
  %sh = spyre.binary sub %x, %mx : tensor<12x12xf32>, tensor<1x12xf32> -> tensor<12x12xf32>
  %e = spyre.unary exp %sh : tensor<12x12xf32> -> tensor<12x12xf32>
  %sum = spyre.reduce sum %e dim 0 : tensor<12x12xf32> -> tensor<1x12xf32>
  %p = spyre.binary div %e, %sum : tensor<12x12xf32>, tensor<1x12xf32> -> tensor<12x12xf32>
  %o = spyre.matmul %p, %v : tensor<12x12xf32>, tensor<12x32xf32> -> tensor<12x32xf32>
  return %o : tensor<12x32xf32>
}

// -----

// Not fused: the mask is added to the grouped rows (before the reshape
// into query heads), where it does not read as the attention op's mask.
// CHECK-LABEL: func.func @mask_in_rows
// CHECK-NOT: spyre.attention
func.func @mask_in_rows(%q: tensor<1x2x10x40xf16>, %k: tensor<1x2x9x40xf16>,
                        %v: tensor<1x2x9x40xf16>, %mask: tensor<10x9xf16>)
    -> tensor<1x2x10x40xf16> {
  %s = spyre.matmul %q, %k {transpose_rhs} : tensor<1x2x10x40xf16>, tensor<1x2x9x40xf16> -> tensor<1x2x10x9xf16>
  %a = spyre.binary add %s, %mask : tensor<1x2x10x9xf16>, tensor<10x9xf16> -> tensor<1x2x10x9xf16>
  %x = spyre.reshape %a : tensor<1x2x10x9xf16> -> tensor<1x4x5x9xf16>
  %mx = spyre.reduce max %x dim 3 : tensor<1x4x5x9xf16> -> tensor<1x4x5x1xf16>
  %sh = spyre.binary sub %x, %mx : tensor<1x4x5x9xf16>, tensor<1x4x5x1xf16> -> tensor<1x4x5x9xf16>
  %e = spyre.unary exp %sh : tensor<1x4x5x9xf16> -> tensor<1x4x5x9xf16>
  %sum = spyre.reduce sum %e dim 3 : tensor<1x4x5x9xf16> -> tensor<1x4x5x1xf16>
  %p = spyre.binary div %e, %sum : tensor<1x4x5x9xf16>, tensor<1x4x5x1xf16> -> tensor<1x4x5x9xf16>
  %r = spyre.reshape %p : tensor<1x4x5x9xf16> -> tensor<1x2x10x9xf16>
  %o = spyre.matmul %r, %v : tensor<1x2x10x9xf16>, tensor<1x2x9x40xf16> -> tensor<1x2x10x40xf16>
  return %o : tensor<1x2x10x40xf16>
}

// -----

// The mask may itself be computed (here cast from f16 and scaled): the side
// that leads to q @ k^T is the scores, the other the mask.
// CHECK-LABEL: func.func @computed_mask
// CHECK: %[[M:.*]] = spyre.binary mul
// CHECK: spyre.attention %arg0, %arg1, %arg2 mask %[[M]] {scale = 1.250000e-01 : f64}
// CHECK-NOT: spyre.reduce
func.func @computed_mask(%q: tensor<8x32xf16>, %k: tensor<12x32xf16>,
                         %v: tensor<12x32xf16>, %mask: tensor<8x12xf16>)
    -> tensor<8x32xf16> {
  %c = spyre.constant dense<1.250000e-01> : tensor<f32> : tensor<f32>
  %two = spyre.constant dense<2.000000e+00> : tensor<f32> : tensor<f32>
  %s = spyre.matmul %q, %k {transpose_rhs} : tensor<8x32xf16>, tensor<12x32xf16> -> tensor<8x12xf16>
  %s32 = spyre.cast %s : tensor<8x12xf16> -> tensor<8x12xf32>
  %x0 = spyre.binary mul %s32, %c : tensor<8x12xf32>, tensor<f32> -> tensor<8x12xf32>
  %m32 = spyre.cast %mask : tensor<8x12xf16> -> tensor<8x12xf32>
  %m2 = spyre.binary mul %m32, %two : tensor<8x12xf32>, tensor<f32> -> tensor<8x12xf32>
  %x = spyre.binary add %x0, %m2 : tensor<8x12xf32>, tensor<8x12xf32> -> tensor<8x12xf32>
  %mx = spyre.reduce max %x dim 1 : tensor<8x12xf32> -> tensor<8x1xf32>
  %sh = spyre.binary sub %x, %mx : tensor<8x12xf32>, tensor<8x1xf32> -> tensor<8x12xf32>
  %e = spyre.unary exp %sh : tensor<8x12xf32> -> tensor<8x12xf32>
  %sum = spyre.reduce sum %e dim 1 : tensor<8x12xf32> -> tensor<8x1xf32>
  %p = spyre.binary div %e, %sum : tensor<8x12xf32>, tensor<8x1xf32> -> tensor<8x12xf32>
  %p16 = spyre.cast %p : tensor<8x12xf32> -> tensor<8x12xf16>
  %o = spyre.matmul %p16, %v : tensor<8x12xf16>, tensor<12x32xf16> -> tensor<8x32xf16>
  return %o : tensor<8x32xf16>
}

// -----

// Attention sinks as gpt-oss writes them (transformers' GptOss eager
// attention): a per-head logit broadcast to a column, concatenated to the
// scores, the row max subtracted, softmax, the sink column dropped. The
// column's broadcast is peeled: the sinks are [1, 4, 1, 1], split with the
// grouped query heads ([1, 2, 2, 1, 1]; they vary along the heads, not the
// queries, so the heads are not folded into rows).
// CHECK-LABEL: func.func @sinks
// CHECK: %[[Q:.*]] = spyre.reshape %arg0 : tensor<1x2x10x40xf16> -> tensor<1x4x5x40xf16>
// CHECK: %[[QG:.*]] = spyre.reshape %[[Q]] : tensor<1x4x5x40xf16> -> tensor<1x2x2x5x40xf16>
// CHECK: %[[K:.*]] = spyre.reshape %arg1 : tensor<1x2x9x40xf16> -> tensor<1x2x1x9x40xf16>
// CHECK: %[[V:.*]] = spyre.reshape %arg2 : tensor<1x2x9x40xf16> -> tensor<1x2x1x9x40xf16>
// CHECK: %[[MG:.*]] = spyre.reshape %arg3 : tensor<1x1x5x9xf16> -> tensor<1x1x1x5x9xf16>
// CHECK: %[[SG:.*]] = spyre.reshape %arg4 : tensor<1x4x1x1xf16> -> tensor<1x2x2x1x1xf16>
// CHECK: %[[O:.*]] = spyre.attention %[[QG]], %[[K]], %[[V]] mask %[[MG]] sinks(%[[SG]] : tensor<1x2x2x1x1xf16>) {scale = 1.250000e-01 : f64}
// CHECK-NOT: spyre.concat
// CHECK-NOT: spyre.reduce
// CHECK-NOT: spyre.slice
// CHECK: return
func.func @sinks(%q: tensor<1x2x10x40xf16>, %k: tensor<1x2x9x40xf16>,
                 %v: tensor<1x2x9x40xf16>, %mask: tensor<1x1x5x9xf16>,
                 %sinks: tensor<1x4x1x1xf16>) -> tensor<1x2x10x40xf16> {
  %c = spyre.constant dense<1.250000e-01> : tensor<f16> : tensor<f16>
  %s = spyre.matmul %q, %k {transpose_rhs} : tensor<1x2x10x40xf16>, tensor<1x2x9x40xf16> -> tensor<1x2x10x9xf16>
  %h = spyre.reshape %s : tensor<1x2x10x9xf16> -> tensor<1x4x5x9xf16>
  %x0 = spyre.binary mul %h, %c : tensor<1x4x5x9xf16>, tensor<f16> -> tensor<1x4x5x9xf16>
  %x = spyre.binary add %x0, %mask : tensor<1x4x5x9xf16>, tensor<1x1x5x9xf16> -> tensor<1x4x5x9xf16>
  %col = spyre.broadcast %sinks : tensor<1x4x1x1xf16> -> tensor<1x4x5x1xf16>
  %cat = spyre.concat %x, %col dim 3 : tensor<1x4x5x9xf16>, tensor<1x4x5x1xf16> -> tensor<1x4x5x10xf16>
  %cm = spyre.reduce max %cat dim 3 : tensor<1x4x5x10xf16> -> tensor<1x4x5x1xf16>
  %shifted = spyre.binary sub %cat, %cm : tensor<1x4x5x10xf16>, tensor<1x4x5x1xf16> -> tensor<1x4x5x10xf16>
  %x32 = spyre.cast %shifted : tensor<1x4x5x10xf16> -> tensor<1x4x5x10xf32>
  %mx = spyre.reduce max %x32 dim 3 : tensor<1x4x5x10xf32> -> tensor<1x4x5x1xf32>
  %sh = spyre.binary sub %x32, %mx : tensor<1x4x5x10xf32>, tensor<1x4x5x1xf32> -> tensor<1x4x5x10xf32>
  %e = spyre.unary exp %sh : tensor<1x4x5x10xf32> -> tensor<1x4x5x10xf32>
  %sum = spyre.reduce sum %e dim 3 : tensor<1x4x5x10xf32> -> tensor<1x4x5x1xf32>
  %p = spyre.binary div %e, %sum : tensor<1x4x5x10xf32>, tensor<1x4x5x1xf32> -> tensor<1x4x5x10xf32>
  %p16 = spyre.cast %p : tensor<1x4x5x10xf32> -> tensor<1x4x5x10xf16>
  %kept = spyre.slice %p16 offsets [0, 0, 0, 0] strides [1, 1, 1, 1] : tensor<1x4x5x10xf16> -> tensor<1x4x5x9xf16>
  %r = spyre.reshape %kept : tensor<1x4x5x9xf16> -> tensor<1x2x10x9xf16>
  %o = spyre.matmul %r, %v : tensor<1x2x10x9xf16>, tensor<1x2x9x40xf16> -> tensor<1x2x10x40xf16>
  return %o : tensor<1x2x10x40xf16>
}

// -----

// Near-miss: the slice keeps the sink column and drops a key's: not sinks,
// not fused.
// CHECK-LABEL: func.func @sinks_wrong_column
// CHECK-NOT: spyre.attention
// CHECK: spyre.concat
func.func @sinks_wrong_column(%q: tensor<4x5x40xf16>, %k: tensor<4x9x40xf16>,
                              %v: tensor<4x8x40xf16>, %col: tensor<4x5x1xf16>)
    -> tensor<4x5x40xf16> {
  %s = spyre.matmul %q, %k {transpose_rhs} : tensor<4x5x40xf16>, tensor<4x9x40xf16> -> tensor<4x5x9xf16>
  %cat = spyre.concat %col, %s dim 2 : tensor<4x5x1xf16>, tensor<4x5x9xf16> -> tensor<4x5x10xf16>
  %mx = spyre.reduce max %cat dim 2 : tensor<4x5x10xf16> -> tensor<4x5x1xf16>
  %sh = spyre.binary sub %cat, %mx : tensor<4x5x10xf16>, tensor<4x5x1xf16> -> tensor<4x5x10xf16>
  %e = spyre.unary exp %sh : tensor<4x5x10xf16> -> tensor<4x5x10xf16>
  %sum = spyre.reduce sum %e dim 2 : tensor<4x5x10xf16> -> tensor<4x5x1xf16>
  %p = spyre.binary div %e, %sum : tensor<4x5x10xf16>, tensor<4x5x1xf16> -> tensor<4x5x10xf16>
  %kept = spyre.slice %p offsets [0, 0, 0] strides [1, 1, 1] : tensor<4x5x10xf16> -> tensor<4x5x8xf16>
  %o = spyre.matmul %kept, %v : tensor<4x5x8xf16>, tensor<4x8x40xf16> -> tensor<4x5x40xf16>
  return %o : tensor<4x5x40xf16>
}

// -----

// Near-miss: the scores with the sink column are also a result (read
// twice): not fused.
// CHECK-LABEL: func.func @sinks_scores_read_twice
// CHECK-NOT: spyre.attention
func.func @sinks_scores_read_twice(%q: tensor<4x5x40xf16>, %k: tensor<4x9x40xf16>,
                                   %v: tensor<4x9x40xf16>, %col: tensor<4x5x1xf16>)
    -> (tensor<4x5x40xf16>, tensor<4x5x10xf16>) {
  %s = spyre.matmul %q, %k {transpose_rhs} : tensor<4x5x40xf16>, tensor<4x9x40xf16> -> tensor<4x5x9xf16>
  %cat = spyre.concat %s, %col dim 2 : tensor<4x5x9xf16>, tensor<4x5x1xf16> -> tensor<4x5x10xf16>
  %mx = spyre.reduce max %cat dim 2 : tensor<4x5x10xf16> -> tensor<4x5x1xf16>
  %sh = spyre.binary sub %cat, %mx : tensor<4x5x10xf16>, tensor<4x5x1xf16> -> tensor<4x5x10xf16>
  %e = spyre.unary exp %sh : tensor<4x5x10xf16> -> tensor<4x5x10xf16>
  %sum = spyre.reduce sum %e dim 2 : tensor<4x5x10xf16> -> tensor<4x5x1xf16>
  %p = spyre.binary div %e, %sum : tensor<4x5x10xf16>, tensor<4x5x1xf16> -> tensor<4x5x10xf16>
  %kept = spyre.slice %p offsets [0, 0, 0] strides [1, 1, 1] : tensor<4x5x10xf16> -> tensor<4x5x9xf16>
  %o = spyre.matmul %kept, %v : tensor<4x5x9xf16>, tensor<4x9x40xf16> -> tensor<4x5x40xf16>
  return %o, %cat : tensor<4x5x40xf16>, tensor<4x5x10xf16>
}
