// RUN: spyre-opt %s --spyre-collapse-dims --split-input-file | FileCheck %s
// RUN: spyre-opt %s --spyre-collapse-dims=max-rank=2 --split-input-file | FileCheck %s --check-prefix=LOW

// A rank-5 slice whose inner dims are whole: dims 0-1 and 2-3 merge (the
// group's offset in units of the merged inner extent: 1 * 5), the
// innermost dim stays.
// CHECK-LABEL: func.func @slice5
// CHECK: %[[R:.*]] = spyre.reshape %arg0 : tensor<2x3x4x5x6xf32> -> tensor<6x20x6xf32>
// CHECK: %[[S:.*]] = spyre.slice %[[R]] offsets [0, 5, 0] strides [1, 1, 1] : tensor<6x20x6xf32> -> tensor<6x10x6xf32>
// CHECK: %[[B:.*]] = spyre.reshape %[[S]] : tensor<6x10x6xf32> -> tensor<2x3x2x5x6xf32>
// CHECK: return %[[B]]
func.func @slice5(%x: tensor<2x3x4x5x6xf32>) -> tensor<2x3x2x5x6xf32> {
  %0 = spyre.slice %x offsets [0, 0, 1, 0, 0] strides [1, 1, 1, 1, 1] : tensor<2x3x4x5x6xf32> -> tensor<2x3x2x5x6xf32>
  return %0 : tensor<2x3x2x5x6xf32>
}

// -----

// A strided dim does not merge with the dim before it (dim 1, step 2),
// nor does a dim that is not whole with the dim after it.
// CHECK-LABEL: func.func @slice_strided
// CHECK: spyre.slice %{{.*}} offsets [0, 1, 0, 0] strides [1, 2, 1, 1] : tensor<2x6x12x7xf32> -> tensor<2x2x12x7xf32>
func.func @slice_strided(%x: tensor<2x6x3x4x7xf32>) -> tensor<2x2x3x4x7xf32> {
  %0 = spyre.slice %x offsets [0, 1, 0, 0, 0] strides [1, 2, 1, 1, 1] : tensor<2x6x3x4x7xf32> -> tensor<2x2x3x4x7xf32>
  return %0 : tensor<2x2x3x4x7xf32>
}

// -----

// A chain of rank-6 pointwise ops: each operand reads merged dims whole or
// broadcast. The exp alone could merge every dim but the last; linked to
// the add by a value of their shape, it merges only what the add can, and
// reads the add's merged value (no reshape pair between them). The last dim
// is never merged.
// CHECK-LABEL: func.func @pointwise_chain
// CHECK: %[[X:.*]] = spyre.reshape %arg0 : tensor<2x3x4x5x6x7xf32> -> tensor<24x30x7xf32>
// CHECK: %[[Y:.*]] = spyre.reshape %arg1 : tensor<1x1x1x5x6x7xf32> -> tensor<1x30x7xf32>
// CHECK: %[[A:.*]] = spyre.binary add %[[X]], %[[Y]] : tensor<24x30x7xf32>, tensor<1x30x7xf32> -> tensor<24x30x7xf32>
// CHECK-NEXT: %[[U:.*]] = spyre.unary exp %[[A]] : tensor<24x30x7xf32> -> tensor<24x30x7xf32>
// CHECK-NEXT: spyre.reshape %[[U]] : tensor<24x30x7xf32> -> tensor<2x3x4x5x6x7xf32>
func.func @pointwise_chain(%x: tensor<2x3x4x5x6x7xf32>, %y: tensor<1x1x1x5x6x7xf32>) -> tensor<2x3x4x5x6x7xf32> {
  %0 = spyre.binary add %x, %y : tensor<2x3x4x5x6x7xf32>, tensor<1x1x1x5x6x7xf32> -> tensor<2x3x4x5x6x7xf32>
  %1 = spyre.unary exp %0 : tensor<2x3x4x5x6x7xf32> -> tensor<2x3x4x5x6x7xf32>
  return %1 : tensor<2x3x4x5x6x7xf32>
}

// -----

// A concat merges its dim with the dims after it (offsets scale with
// them), never a dim after it with the concat dim; a reduce keeps its dim
// alone; the last dim stays alone even when the dims before it are 1. A
// slice runs in a kernel of its own (DMA), so the pointwise op reading it
// merges as it can: dims of size 1 join either side.
// CHECK-LABEL: func.func @concat_reduce
// CHECK: spyre.concat %{{.*}}, %{{.*}} dim 1 : tensor<2x12x5xf32>, tensor<2x12x5xf32> -> tensor<2x24x5xf32>
// CHECK: spyre.reduce sum %{{.*}} dim 1 : tensor<6x4x5x1xf32> -> tensor<6x1x5x1xf32>
// CHECK: spyre.slice %{{.*}} offsets [0, 1, 0] strides [1, 1, 1] : tensor<6x4x5xf32> -> tensor<6x1x5xf32>
// CHECK: spyre.unary exp %{{.*}} : tensor<6x5xf32> -> tensor<6x5xf32>
func.func @concat_reduce(%x: tensor<2x3x4x1x5xf32>, %y: tensor<2x3x4x5x1x1xf32>) -> (tensor<2x6x4x1x5xf32>, tensor<2x3x1x5x1x1xf32>, tensor<2x3x1x1x1x5xf32>) {
  %0 = spyre.concat %x, %x dim 1 : tensor<2x3x4x1x5xf32>, tensor<2x3x4x1x5xf32> -> tensor<2x6x4x1x5xf32>
  %1 = spyre.reduce sum %y dim 2 : tensor<2x3x4x5x1x1xf32> -> tensor<2x3x1x5x1x1xf32>
  %z = spyre.reshape %x : tensor<2x3x4x1x5xf32> -> tensor<2x3x1x1x4x5xf32>
  %w = spyre.slice %z offsets [0, 0, 0, 0, 1, 0] strides [1, 1, 1, 1, 1, 1] : tensor<2x3x1x1x4x5xf32> -> tensor<2x3x1x1x1x5xf32>
  %2 = spyre.unary exp %w : tensor<2x3x1x1x1x5xf32> -> tensor<2x3x1x1x1x5xf32>
  return %0, %1, %2 : tensor<2x6x4x1x5xf32>, tensor<2x3x1x5x1x1xf32>, tensor<2x3x1x1x1x5xf32>
}

// -----

// Ops of rank <= max-rank are left alone.
// CHECK-LABEL: func.func @low_rank
// CHECK-NEXT: spyre.unary exp %arg0 : tensor<2x3x4xf32>
// LOW-LABEL: func.func @low_rank
// LOW: spyre.unary exp %{{.*}} : tensor<6x4xf32> -> tensor<6x4xf32>
func.func @low_rank(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = spyre.unary exp %x : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// Dims an operand reads partly whole and partly broadcast (here w over
// dims 1-3: whole, whole, broadcast) are kept apart for it; dims of size 1
// in the result fit either way.
// CHECK-LABEL: func.func @mixed_broadcast
// CHECK: spyre.binary mul %{{.*}}, %{{.*}} : tensor<2x3x4x5xf32>, tensor<1x3x1x1xf32> -> tensor<2x3x4x5xf32>
func.func @mixed_broadcast(%x: tensor<2x3x1x4x5xf32>, %w: tensor<1x3x1x1x1xf32>) -> tensor<2x3x1x4x5xf32> {
  %0 = spyre.binary mul %x, %w : tensor<2x3x1x4x5xf32>, tensor<1x3x1x1x1xf32> -> tensor<2x3x1x4x5xf32>
  return %0 : tensor<2x3x1x4x5xf32>
}

// -----

// A scatter merges the dims around its dim (renumbered); its 1-D indices
// stay as they are.
// CHECK-LABEL: func.func @scatter5
// CHECK: spyre.scatter %{{.*}} into %{{.*}}[%arg2] dim 1 : tensor<6x2x20x7xf32>, tensor<6x9x20x7xf32>, tensor<2xi64> -> tensor<6x9x20x7xf32>
func.func @scatter5(%d: tensor<2x3x9x4x5x7xf32>, %s: tensor<2x3x2x4x5x7xf32>, %i: tensor<2xi64>) -> tensor<2x3x9x4x5x7xf32> {
  %0 = spyre.scatter %s into %d [%i] dim 2 : tensor<2x3x2x4x5x7xf32>, tensor<2x3x9x4x5x7xf32>, tensor<2xi64> -> tensor<2x3x9x4x5x7xf32>
  return %0 : tensor<2x3x9x4x5x7xf32>
}
