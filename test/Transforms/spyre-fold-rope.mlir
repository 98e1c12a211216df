// RUN: spyre-opt %s --split-input-file --spyre-fold-rope | FileCheck %s

// spyre-fold-rope: the rope of an attention's query becomes the op's
// rope(cos, sin, rotation) operands (lib/Transforms/FoldRope.cpp).

// Granite's and Llama's form: the rope over the 4 query heads, then the
// view into 2 key/value heads of 2 grouped queries. The view moves before
// the rope (it keeps the positions and the head dim), the tables become
// [positions, head dim], and the rope's ops are gone.
// CHECK-LABEL: func.func @through_heads_view
// CHECK-NEXT: %[[X:.*]] = spyre.reshape %arg0 : tensor<1x4x12x16xf16> -> tensor<1x2x2x12x16xf16>
// CHECK-NEXT: %[[C:.*]] = spyre.reshape %arg1 : tensor<1x1x12x16xf16> -> tensor<12x16xf16>
// CHECK-NEXT: %[[S:.*]] = spyre.reshape %arg2 : tensor<1x1x12x16xf16> -> tensor<12x16xf16>
// CHECK-NEXT: spyre.attention %[[X]], %arg4, %arg5 rope(%[[C]], %[[S]], %arg3 : tensor<12x16xf16>, tensor<12x16xf16>, tensor<16x16xf16>) {causal, scale = 2.500000e-01 : f64}
// CHECK-NEXT: return
func.func @through_heads_view(%x: tensor<1x4x12x16xf16>, %cos: tensor<1x1x12x16xf16>, %sin: tensor<1x1x12x16xf16>, %r: tensor<16x16xf16>, %k: tensor<1x2x1x12x16xf16>, %v: tensor<1x2x1x12x16xf16>) -> tensor<1x2x2x12x16xf16> {
  %0 = spyre.binary mul %x, %cos : tensor<1x4x12x16xf16>, tensor<1x1x12x16xf16> -> tensor<1x4x12x16xf16>
  %1 = spyre.matmul %x, %r : tensor<1x4x12x16xf16>, tensor<16x16xf16> -> tensor<1x4x12x16xf16>
  %2 = spyre.binary mul %1, %sin : tensor<1x4x12x16xf16>, tensor<1x1x12x16xf16> -> tensor<1x4x12x16xf16>
  %3 = spyre.binary add %0, %2 : tensor<1x4x12x16xf16>, tensor<1x4x12x16xf16> -> tensor<1x4x12x16xf16>
  %4 = spyre.reshape %3 : tensor<1x4x12x16xf16> -> tensor<1x2x2x12x16xf16>
  %5 = spyre.attention %4, %k, %v {causal, scale = 2.500000e-01 : f64} : tensor<1x2x2x12x16xf16>, tensor<1x2x1x12x16xf16>, tensor<1x2x1x12x16xf16> -> tensor<1x2x2x12x16xf16>
  return %5 : tensor<1x2x2x12x16xf16>
}

// -----

// The terms in either order, the table on either side of its multiply, no
// view; a product by the rotation that is read elsewhere stays.
// CHECK-LABEL: func.func @either_order
// CHECK-NEXT: %[[R:.*]] = spyre.matmul %arg0, %arg3
// CHECK-NEXT: spyre.attention %arg0, %arg4, %arg5 rope(%arg1, %arg2, %arg3 : tensor<12x16xf32>, tensor<12x16xf32>, tensor<16x16xf32>) {scale
// CHECK-NEXT: return %{{.*}}, %[[R]]
func.func @either_order(%x: tensor<2x12x16xf32>, %cos: tensor<12x16xf32>, %sin: tensor<12x16xf32>, %r: tensor<16x16xf32>, %k: tensor<2x20x16xf32>, %v: tensor<2x20x8xf32>) -> (tensor<2x12x8xf32>, tensor<2x12x16xf32>) {
  %1 = spyre.matmul %x, %r : tensor<2x12x16xf32>, tensor<16x16xf32> -> tensor<2x12x16xf32>
  %2 = spyre.binary mul %sin, %1 : tensor<12x16xf32>, tensor<2x12x16xf32> -> tensor<2x12x16xf32>
  %0 = spyre.binary mul %cos, %x : tensor<12x16xf32>, tensor<2x12x16xf32> -> tensor<2x12x16xf32>
  %3 = spyre.binary add %2, %0 : tensor<2x12x16xf32>, tensor<2x12x16xf32> -> tensor<2x12x16xf32>
  %5 = spyre.attention %3, %k, %v {scale = 2.500000e-01 : f64} : tensor<2x12x16xf32>, tensor<2x20x16xf32>, tensor<2x20x8xf32> -> tensor<2x12x8xf32>
  return %5, %1 : tensor<2x12x8xf32>, tensor<2x12x16xf32>
}

// -----

// A decode step: one position, tables of one row ([1, 1, 1, 16]); the view
// makes the 2 grouped query heads rows of one tile, which one row of the
// tables serves alike.
// CHECK-LABEL: func.func @decode_rows_view
// CHECK: spyre.attention %{{.*}}, %arg4, %arg5 mask %arg6 rope(%{{.*}}, %{{.*}}, %arg3 : tensor<1x16xf16>, tensor<1x16xf16>, tensor<16x16xf16>)
// CHECK-NOT: spyre.binary
func.func @decode_rows_view(%x: tensor<1x4x1x16xf16>, %cos: tensor<1x1x1x16xf16>, %sin: tensor<1x1x1x16xf16>, %r: tensor<16x16xf16>, %k: tensor<1x2x30x16xf16>, %v: tensor<1x2x30x16xf16>, %m: tensor<1x1x1x30xf16>) -> tensor<1x2x2x16xf16> {
  %0 = spyre.binary mul %x, %cos : tensor<1x4x1x16xf16>, tensor<1x1x1x16xf16> -> tensor<1x4x1x16xf16>
  %1 = spyre.matmul %x, %r : tensor<1x4x1x16xf16>, tensor<16x16xf16> -> tensor<1x4x1x16xf16>
  %2 = spyre.binary mul %1, %sin : tensor<1x4x1x16xf16>, tensor<1x1x1x16xf16> -> tensor<1x4x1x16xf16>
  %3 = spyre.binary add %0, %2 : tensor<1x4x1x16xf16>, tensor<1x4x1x16xf16> -> tensor<1x4x1x16xf16>
  %4 = spyre.reshape %3 : tensor<1x4x1x16xf16> -> tensor<1x2x2x16xf16>
  %5 = spyre.attention %4, %k, %v mask %m {scale = 2.500000e-01 : f64} : tensor<1x2x2x16xf16>, tensor<1x2x30x16xf16>, tensor<1x2x30x16xf16>, tensor<1x1x1x30xf16> -> tensor<1x2x2x16xf16>
  return %5 : tensor<1x2x2x16xf16>
}

// -----

// Eager attention with a mask (Mistral, Llama with padding): the view
// makes 2 grouped query heads rows of one tile ([1, 4, 12, 16] ->
// [1, 2, 24, 16]; row r is position r mod 12), through two reshapes: the
// tables are repeated twice down the rows (a broadcast, the only kernel
// left of the rope).
// CHECK-LABEL: func.func @rows_view_of_positions
// CHECK-NEXT: %[[X:.*]] = spyre.reshape %arg0 : tensor<1x4x12x16xf16> -> tensor<1x2x24x16xf16>
// CHECK-NEXT: %[[C1:.*]] = spyre.reshape %arg1 : tensor<12x16xf16> -> tensor<1x12x16xf16>
// CHECK-NEXT: %[[C2:.*]] = spyre.broadcast %[[C1]] : tensor<1x12x16xf16> -> tensor<2x12x16xf16>
// CHECK-NEXT: %[[C:.*]] = spyre.reshape %[[C2]] : tensor<2x12x16xf16> -> tensor<24x16xf16>
// CHECK: spyre.attention %[[X]], %arg4, %arg5 rope(%[[C]], %{{.*}}, %arg3 : tensor<24x16xf16>, tensor<24x16xf16>, tensor<16x16xf16>)
// CHECK-NOT: spyre.binary
func.func @rows_view_of_positions(%x: tensor<1x4x12x16xf16>, %cos: tensor<12x16xf16>, %sin: tensor<12x16xf16>, %r: tensor<16x16xf16>, %k: tensor<1x2x20x16xf16>, %v: tensor<1x2x20x16xf16>) -> tensor<1x2x24x16xf16> {
  %0 = spyre.binary mul %x, %cos : tensor<1x4x12x16xf16>, tensor<12x16xf16> -> tensor<1x4x12x16xf16>
  %1 = spyre.matmul %x, %r : tensor<1x4x12x16xf16>, tensor<16x16xf16> -> tensor<1x4x12x16xf16>
  %2 = spyre.binary mul %1, %sin : tensor<1x4x12x16xf16>, tensor<12x16xf16> -> tensor<1x4x12x16xf16>
  %3 = spyre.binary add %0, %2 : tensor<1x4x12x16xf16>, tensor<1x4x12x16xf16> -> tensor<1x4x12x16xf16>
  %4 = spyre.reshape %3 : tensor<1x4x12x16xf16> -> tensor<1x2x2x12x16xf16>
  %5 = spyre.reshape %4 : tensor<1x2x2x12x16xf16> -> tensor<1x2x24x16xf16>
  %6 = spyre.attention %5, %k, %v {scale = 2.500000e-01 : f64} : tensor<1x2x24x16xf16>, tensor<1x2x20x16xf16>, tensor<1x2x20x16xf16> -> tensor<1x2x24x16xf16>
  return %6 : tensor<1x2x24x16xf16>
}

// -----

// Near-misses, unchanged: the rotated query is also an output; the tables
// differ per head; a view that interleaves positions with heads ([1, 4,
// 12, 16] -> [1, 12, 4, 16] rows no table lines up with); the product by
// the rotation of another tensor.
// CHECK-LABEL: func.func @rotated_is_output
// CHECK: spyre.binary add
// CHECK: spyre.attention %{{.*}}, %arg4, %arg5 {scale
func.func @rotated_is_output(%x: tensor<2x12x16xf16>, %cos: tensor<12x16xf16>, %sin: tensor<12x16xf16>, %r: tensor<16x16xf16>, %k: tensor<2x20x16xf16>, %v: tensor<2x20x16xf16>) -> (tensor<2x12x16xf16>, tensor<2x12x16xf16>) {
  %0 = spyre.binary mul %x, %cos : tensor<2x12x16xf16>, tensor<12x16xf16> -> tensor<2x12x16xf16>
  %1 = spyre.matmul %x, %r : tensor<2x12x16xf16>, tensor<16x16xf16> -> tensor<2x12x16xf16>
  %2 = spyre.binary mul %1, %sin : tensor<2x12x16xf16>, tensor<12x16xf16> -> tensor<2x12x16xf16>
  %3 = spyre.binary add %0, %2 : tensor<2x12x16xf16>, tensor<2x12x16xf16> -> tensor<2x12x16xf16>
  %5 = spyre.attention %3, %k, %v {scale = 2.500000e-01 : f64} : tensor<2x12x16xf16>, tensor<2x20x16xf16>, tensor<2x20x16xf16> -> tensor<2x12x16xf16>
  return %5, %3 : tensor<2x12x16xf16>, tensor<2x12x16xf16>
}

// CHECK-LABEL: func.func @tables_per_head
// CHECK: spyre.binary add
// CHECK: spyre.attention %{{.*}}, %arg4, %arg5 {scale
func.func @tables_per_head(%x: tensor<2x12x16xf16>, %cos: tensor<2x12x16xf16>, %sin: tensor<12x16xf16>, %r: tensor<16x16xf16>, %k: tensor<2x20x16xf16>, %v: tensor<2x20x16xf16>) -> tensor<2x12x16xf16> {
  %0 = spyre.binary mul %x, %cos : tensor<2x12x16xf16>, tensor<2x12x16xf16> -> tensor<2x12x16xf16>
  %1 = spyre.matmul %x, %r : tensor<2x12x16xf16>, tensor<16x16xf16> -> tensor<2x12x16xf16>
  %2 = spyre.binary mul %1, %sin : tensor<2x12x16xf16>, tensor<12x16xf16> -> tensor<2x12x16xf16>
  %3 = spyre.binary add %0, %2 : tensor<2x12x16xf16>, tensor<2x12x16xf16> -> tensor<2x12x16xf16>
  %5 = spyre.attention %3, %k, %v {scale = 2.500000e-01 : f64} : tensor<2x12x16xf16>, tensor<2x20x16xf16>, tensor<2x20x16xf16> -> tensor<2x12x16xf16>
  return %5 : tensor<2x12x16xf16>
}

// CHECK-LABEL: func.func @rows_view_interleaved
// CHECK: spyre.binary add
// CHECK: spyre.attention %{{.*}}, %arg4, %arg5 {scale
func.func @rows_view_interleaved(%x: tensor<1x4x12x16xf16>, %cos: tensor<12x16xf16>, %sin: tensor<12x16xf16>, %r: tensor<16x16xf16>, %k: tensor<1x12x20x16xf16>, %v: tensor<1x12x20x16xf16>) -> tensor<1x12x4x16xf16> {
  %0 = spyre.binary mul %x, %cos : tensor<1x4x12x16xf16>, tensor<12x16xf16> -> tensor<1x4x12x16xf16>
  %1 = spyre.matmul %x, %r : tensor<1x4x12x16xf16>, tensor<16x16xf16> -> tensor<1x4x12x16xf16>
  %2 = spyre.binary mul %1, %sin : tensor<1x4x12x16xf16>, tensor<12x16xf16> -> tensor<1x4x12x16xf16>
  %3 = spyre.binary add %0, %2 : tensor<1x4x12x16xf16>, tensor<1x4x12x16xf16> -> tensor<1x4x12x16xf16>
  %4 = spyre.reshape %3 : tensor<1x4x12x16xf16> -> tensor<1x12x4x16xf16>
  %5 = spyre.attention %4, %k, %v {scale = 2.500000e-01 : f64} : tensor<1x12x4x16xf16>, tensor<1x12x20x16xf16>, tensor<1x12x20x16xf16> -> tensor<1x12x4x16xf16>
  return %5 : tensor<1x12x4x16xf16>
}

// CHECK-LABEL: func.func @rotation_of_another
// CHECK: spyre.binary add
// CHECK: spyre.attention %{{.*}}, %arg4, %arg5 {scale
func.func @rotation_of_another(%x: tensor<2x12x16xf16>, %cos: tensor<12x16xf16>, %sin: tensor<12x16xf16>, %r: tensor<16x16xf16>, %k: tensor<2x20x16xf16>, %v: tensor<2x20x16xf16>, %y: tensor<2x12x16xf16>) -> tensor<2x12x16xf16> {
  %0 = spyre.binary mul %x, %cos : tensor<2x12x16xf16>, tensor<12x16xf16> -> tensor<2x12x16xf16>
  %1 = spyre.matmul %y, %r : tensor<2x12x16xf16>, tensor<16x16xf16> -> tensor<2x12x16xf16>
  %2 = spyre.binary mul %1, %sin : tensor<2x12x16xf16>, tensor<12x16xf16> -> tensor<2x12x16xf16>
  %3 = spyre.binary add %0, %2 : tensor<2x12x16xf16>, tensor<2x12x16xf16> -> tensor<2x12x16xf16>
  %5 = spyre.attention %3, %k, %v {scale = 2.500000e-01 : f64} : tensor<2x12x16xf16>, tensor<2x20x16xf16>, tensor<2x20x16xf16> -> tensor<2x12x16xf16>
  return %5 : tensor<2x12x16xf16>
}
