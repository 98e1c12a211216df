// RUN: spyre-opt %s --spyre-expand-attention=all=true --split-input-file | FileCheck %s
// RUN: spyre-opt %s --spyre-expand-attention --split-input-file | FileCheck %s --check-prefix=FLASH
// RUN: spyre-opt %s --spyre-expand-attention=max-cores=1 --split-input-file | FileCheck %s --check-prefix=CORES1
// RUN: spyre-opt %s --spyre-expand-attention=max-cores=2 --split-input-file | FileCheck %s --check-prefix=CORES2

// spyre-expand-attention: the math form of spyre.attention, for the
// unfused baseline (all=true) and for head dims the flash kernel's
// smallest tiles do not fit in LX.

// scores = q @ k^T in f32, times the scale; softmax along the keys; the
// probabilities rounded to the value's type for p @ v.
// CHECK-LABEL: func.func @plain
// CHECK: %[[QK:.*]] = spyre.matmul %arg0, %arg1 {transpose_rhs} : tensor<2x9x40xf16>, tensor<2x12x40xf16> -> tensor<2x9x12xf32>
// CHECK: %[[SCALE:.*]] = spyre.constant dense<1.250000e-01> : tensor<f32>
// CHECK: %[[S:.*]] = spyre.binary mul %[[QK]], %[[SCALE]]
// CHECK: %[[MAX:.*]] = spyre.reduce max %[[S]] dim 2 : tensor<2x9x12xf32> -> tensor<2x9x1xf32>
// CHECK: %[[SH:.*]] = spyre.binary sub %[[S]], %[[MAX]]
// CHECK: %[[E:.*]] = spyre.unary exp %[[SH]]
// CHECK: %[[SUM:.*]] = spyre.reduce sum %[[E]] dim 2
// CHECK: %[[P:.*]] = spyre.binary div %[[E]], %[[SUM]]
// CHECK-NOT: spyre.select
// CHECK: %[[PH:.*]] = spyre.cast %[[P]] : tensor<2x9x12xf32> -> tensor<2x9x12xf16>
// CHECK: %[[O:.*]] = spyre.matmul %[[PH]], %arg2 : tensor<2x9x12xf16>, tensor<2x12x24xf16> -> tensor<2x9x24xf16>
// CHECK: return %[[O]]
// FLASH-LABEL: func.func @plain
// CORES1-LABEL: func.func @plain
// CORES1: spyre.attention
// FLASH: spyre.attention
func.func @plain(%q: tensor<2x9x40xf16>, %k: tensor<2x12x40xf16>, %v: tensor<2x12x24xf16>) -> tensor<2x9x24xf16> {
  %0 = spyre.attention %q, %k, %v {scale = 0.125 : f64} : tensor<2x9x40xf16>, tensor<2x12x40xf16>, tensor<2x12x24xf16> -> tensor<2x9x24xf16>
  return %0 : tensor<2x9x24xf16>
}

// -----

// A mask is added in f32 and the causal mask after it (col > row: -inf);
// with a mask a row can be masked entirely, so the softmax is the safe one
// (a row whose max is -inf gives 0). K and V broadcast over the grouped
// query heads (dim 2) through the matmuls' batch broadcasting; the result
// is cast to its own type.
// CHECK-LABEL: func.func @causal_mask_gqa
// CHECK: %[[QK:.*]] = spyre.matmul %arg0, %arg1 {transpose_rhs} : tensor<1x2x2x8x16xf16>, tensor<1x2x1x12x16xf16> -> tensor<1x2x2x8x12xf32>
// CHECK: %[[S:.*]] = spyre.binary mul %[[QK]]
// CHECK: %[[MASK:.*]] = spyre.cast %arg3 : tensor<1x1x1x8x12xf16> -> tensor<1x1x1x8x12xf32>
// CHECK: %[[SM:.*]] = spyre.binary add %[[S]], %[[MASK]]
// CHECK: %[[ABOVE:.*]] = spyre.compare gt %{{.*}}, %{{.*}} : tensor<1x12xi32>, tensor<8x1xi32> -> tensor<8x12xi1>
// CHECK: %[[CAUSAL:.*]] = spyre.select %[[ABOVE]], %{{.*}}, %{{.*}} : tensor<8x12xi1>, tensor<f32>, tensor<f32> -> tensor<8x12xf32>
// CHECK: %[[SC:.*]] = spyre.binary add %[[SM]], %[[CAUSAL]]
// CHECK: %[[MAX:.*]] = spyre.reduce max %[[SC]] dim 4
// CHECK: %[[DEAD:.*]] = spyre.compare eq %[[MAX]]
// CHECK: %[[SAFE:.*]] = spyre.select %[[DEAD]]
// CHECK: %[[PH:.*]] = spyre.cast %[[SAFE]] : tensor<1x2x2x8x12xf32> -> tensor<1x2x2x8x12xf16>
// CHECK: %[[O:.*]] = spyre.matmul %[[PH]], %arg2 : tensor<1x2x2x8x12xf16>, tensor<1x2x1x12x16xf16> -> tensor<1x2x2x8x16xf16>
// CHECK: spyre.cast %[[O]] : tensor<1x2x2x8x16xf16> -> tensor<1x2x2x8x16xf32>
// FLASH-LABEL: func.func @causal_mask_gqa
// FLASH: spyre.attention
// CORES1-LABEL: func.func @causal_mask_gqa
// CORES1: spyre.attention
func.func @causal_mask_gqa(%q: tensor<1x2x2x8x16xf16>, %k: tensor<1x2x1x12x16xf16>, %v: tensor<1x2x1x12x16xf16>, %m: tensor<1x1x1x8x12xf16>) -> tensor<1x2x2x8x16xf32> {
  %0 = spyre.attention %q, %k, %v mask %m {causal, scale = 0.25 : f64} : tensor<1x2x2x8x16xf16>, tensor<1x2x1x12x16xf16>, tensor<1x2x1x12x16xf16>, tensor<1x1x1x8x12xf16> -> tensor<1x2x2x8x16xf32>
  return %0 : tensor<1x2x2x8x16xf32>
}

// -----

// Grouped heads [1, 2, 2, ...] with more queries and keys than a stick
// holds (64 f16) on one core: two head loops, the query and the key loop
// are four hardware loops, one too many, so the math form runs; on two
// cores one head dim is split whole and the flash kernel stays.
// FLASH-LABEL: func.func @gqa_long
// FLASH: spyre.attention
// CORES1-LABEL: func.func @gqa_long
// CORES1-NOT: spyre.attention
// CORES1: spyre.matmul %arg0, %arg1 {transpose_rhs}
// CORES2-LABEL: func.func @gqa_long
// CORES2: spyre.attention
func.func @gqa_long(%q: tensor<1x2x2x72x16xf16>, %k: tensor<1x2x1x80x16xf16>, %v: tensor<1x2x1x80x16xf16>) -> tensor<1x2x2x72x16xf16> {
  %0 = spyre.attention %q, %k, %v {causal, scale = 0.25 : f64} : tensor<1x2x2x72x16xf16>, tensor<1x2x1x80x16xf16>, tensor<1x2x1x80x16xf16> -> tensor<1x2x2x72x16xf16>
  return %0 : tensor<1x2x2x72x16xf16>
}

// -----

// Head dims of 8192 f32: one query row, a stick of keys and their values
// need more than LX, so even without `all` the math form runs.
// CHECK-LABEL: func.func @huge_head
// CHECK: spyre.matmul %arg0, %arg1 {transpose_rhs}
// FLASH-LABEL: func.func @huge_head
// FLASH-NOT: spyre.attention
// FLASH: spyre.matmul %arg0, %arg1 {transpose_rhs} : tensor<4x8192xf32>, tensor<8x8192xf32> -> tensor<4x8xf32>
// FLASH: spyre.matmul %{{.*}}, %arg2 : tensor<4x8xf32>, tensor<8x8192xf32> -> tensor<4x8192xf32>
func.func @huge_head(%q: tensor<4x8192xf32>, %k: tensor<8x8192xf32>, %v: tensor<8x8192xf32>) -> tensor<4x8192xf32> {
  %0 = spyre.attention %q, %k, %v {scale = 0.01 : f64} : tensor<4x8192xf32>, tensor<8x8192xf32>, tensor<8x8192xf32> -> tensor<4x8192xf32>
  return %0 : tensor<4x8192xf32>
}

// -----

// An operand with a dim of size 0 (no keys): the math form, whose empty
// tensors fold to constants; no flash kernel with an empty loop.
// FLASH-LABEL: func.func @no_keys
// FLASH-NOT: spyre.attention
// FLASH: spyre.matmul
func.func @no_keys(%q: tensor<2x9x40xf16>, %k: tensor<2x0x40xf16>,
                   %v: tensor<2x0x40xf16>) -> tensor<2x9x40xf16> {
  %o = spyre.attention %q, %k, %v {scale = 0.125 : f64} : tensor<2x9x40xf16>, tensor<2x0x40xf16>, tensor<2x0x40xf16> -> tensor<2x9x40xf16>
  return %o : tensor<2x9x40xf16>
}

// -----

// Sinks: one more column of logits (the per-head sink broadcast over the
// queries, in f32) after the keys' scores; the softmax over all columns;
// the sink column dropped before p @ v.
// CHECK-LABEL: func.func @sinks
// CHECK: %[[S:.*]] = spyre.binary mul
// CHECK: %[[S32:.*]] = spyre.cast %arg3 : tensor<2x1x1xf16> -> tensor<2x1x1xf32>
// CHECK: %[[COL:.*]] = spyre.broadcast %[[S32]] : tensor<2x1x1xf32> -> tensor<2x9x1xf32>
// CHECK: %[[CAT:.*]] = spyre.concat %[[S]], %[[COL]] dim 2 : tensor<2x9x12xf32>, tensor<2x9x1xf32> -> tensor<2x9x13xf32>
// CHECK: %[[MAX:.*]] = spyre.reduce max %[[CAT]] dim 2 : tensor<2x9x13xf32> -> tensor<2x9x1xf32>
// CHECK: %[[P:.*]] = spyre.binary div
// CHECK: %[[KEPT:.*]] = spyre.slice %[[P]] offsets [0, 0, 0] strides [1, 1, 1] : tensor<2x9x13xf32> -> tensor<2x9x12xf32>
// CHECK: %[[PH:.*]] = spyre.cast %[[KEPT]] : tensor<2x9x12xf32> -> tensor<2x9x12xf16>
// CHECK: spyre.matmul %[[PH]], %arg2
// FLASH-LABEL: func.func @sinks
// FLASH: spyre.attention {{.*}} sinks(
func.func @sinks(%q: tensor<2x9x40xf16>, %k: tensor<2x12x40xf16>, %v: tensor<2x12x24xf16>, %s: tensor<2x1x1xf16>) -> tensor<2x9x24xf16> {
  %0 = spyre.attention %q, %k, %v sinks(%s : tensor<2x1x1xf16>) {scale = 0.125 : f64} : tensor<2x9x40xf16>, tensor<2x12x40xf16>, tensor<2x12x24xf16> -> tensor<2x9x24xf16>
  return %0 : tensor<2x9x24xf16>
}

// -----

// The query's rope comes first, one op a step (each rounded to f16):
// q * cos + (q @ rotation) * sin, then the scores of the rotated query.
// CHECK-LABEL: func.func @rope
// CHECK-NEXT: %[[R:.*]] = spyre.matmul %arg0, %arg5 : tensor<2x9x40xf16>, tensor<40x40xf16> -> tensor<2x9x40xf16>
// CHECK-NEXT: %[[C:.*]] = spyre.binary mul %arg0, %arg3 : tensor<2x9x40xf16>, tensor<9x40xf16> -> tensor<2x9x40xf16>
// CHECK-NEXT: %[[S:.*]] = spyre.binary mul %[[R]], %arg4 : tensor<2x9x40xf16>, tensor<9x40xf16> -> tensor<2x9x40xf16>
// CHECK-NEXT: %[[Q:.*]] = spyre.binary add %[[C]], %[[S]]
// CHECK-NEXT: spyre.matmul %[[Q]], %arg1 {transpose_rhs}
// FLASH-LABEL: func.func @rope
// FLASH-NEXT: spyre.attention %arg0, %arg1, %arg2 rope(%arg3, %arg4, %arg5
func.func @rope(%q: tensor<2x9x40xf16>, %k: tensor<2x12x40xf16>, %v: tensor<2x12x24xf16>, %c: tensor<9x40xf16>, %s: tensor<9x40xf16>, %r: tensor<40x40xf16>) -> tensor<2x9x24xf16> {
  %0 = spyre.attention %q, %k, %v rope(%c, %s, %r : tensor<9x40xf16>, tensor<9x40xf16>, tensor<40x40xf16>) {scale = 0.125 : f64} : tensor<2x9x40xf16>, tensor<2x12x40xf16>, tensor<2x12x24xf16> -> tensor<2x9x24xf16>
  return %0 : tensor<2x9x24xf16>
}
