// RUN: spyre-opt %s --spyre-decompose --split-input-file | FileCheck %s

// Convolutions (lib/Transforms/Decompositions/Convolution.cpp): one strided
// window of the padded input per kernel tap.

// Depthwise (one input channel per group), as mamba's causal conv1d: the
// input padded by concatenation, four windows, each times its tap's
// weights in f32, summed; the bias added and the result rounded once.
// CHECK-LABEL: func.func @conv1d_depthwise
// CHECK: %[[P:.*]] = spyre.concat %{{.*}}, %arg0, %{{.*}} dim 2 : {{.*}} -> tensor<2x6x16xf16>
// CHECK: %[[W0:.*]] = spyre.slice %[[P]] offsets [0, 0, 0] strides [1, 1, 1] : tensor<2x6x16xf16> -> tensor<2x6x13xf16>
// CHECK: spyre.slice %[[P]] offsets [0, 0, 3] strides [1, 1, 1] : tensor<2x6x16xf16> -> tensor<2x6x13xf16>
// CHECK: %[[K0:.*]] = spyre.slice %arg1 offsets [0, 0, 0] strides [1, 1, 1] : tensor<6x1x4xf16> -> tensor<6x1x1xf16>
// CHECK: spyre.binary mul %{{.*}}, %{{.*}} : tensor<2x6x1x13xf32>, tensor<6x1x1xf32> -> tensor<2x6x1x13xf32>
// CHECK-COUNT-3: spyre.binary add %{{.*}} : tensor<2x6x1x13xf32>, tensor<2x6x1x13xf32>
// CHECK: spyre.binary add %{{.*}}, %{{.*}} : tensor<2x6x13xf32>, tensor<1x6x1xf32> -> tensor<2x6x13xf32>
// CHECK: spyre.cast %{{.*}} : tensor<2x6x13xf32> -> tensor<2x6x13xf16>
// CHECK-NOT: spyre.matmul
func.func @conv1d_depthwise(%x: tensor<2x6x10xf16>, %w: tensor<6x1x4xf16>, %b: tensor<6xf16>) -> tensor<2x6x13xf16> {
  %0 = spyre.aten "aten.conv1d.default"(%x, %w, %b) {args = {stride = [1], padding = [3], dilation = [1], groups = 6 : i64}, tensor_args = ["input", "weight", "bias"]} : (tensor<2x6x10xf16>, tensor<6x1x4xf16>, tensor<6xf16>) -> tensor<2x6x13xf16>
  return %0 : tensor<2x6x13xf16>
}

// -----

// Grouped conv2d, stride 2, 'valid': nine strided windows stacked after the
// channels (im2col), one batched matmul per group of the weights viewed as
// [groups, out / groups, in / groups * taps].
// CHECK-LABEL: func.func @conv2d_im2col
// CHECK: spyre.slice %arg0 offsets [0, 0, 0, 0] strides [1, 1, 2, 2] : tensor<1x4x7x7xf32> -> tensor<1x4x3x3xf32>
// CHECK: spyre.slice %arg0 offsets [0, 0, 2, 2] strides [1, 1, 2, 2] : tensor<1x4x7x7xf32> -> tensor<1x4x3x3xf32>
// CHECK: %[[C:.*]] = spyre.concat {{.*}} dim 2 : {{.*}} -> tensor<1x4x9x3x3xf32>
// CHECK: %[[COLS:.*]] = spyre.reshape %[[C]] : tensor<1x4x9x3x3xf32> -> tensor<1x2x18x9xf32>
// CHECK: %[[W:.*]] = spyre.reshape %arg1 : tensor<6x2x3x3xf32> -> tensor<2x3x18xf32>
// CHECK: %[[M:.*]] = spyre.matmul %[[W]], %[[COLS]] : tensor<2x3x18xf32>, tensor<1x2x18x9xf32> -> tensor<1x2x3x9xf32>
// CHECK: spyre.reshape %[[M]] : tensor<1x2x3x9xf32> -> tensor<1x6x3x3xf32>
func.func @conv2d_im2col(%x: tensor<1x4x7x7xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<1x6x3x3xf32> {
  %0 = spyre.aten "aten.conv2d.padding"(%x, %w) {args = {bias, stride = [2, 2], padding = "valid", dilation = [1, 1], groups = 2 : i64}, tensor_args = ["input", "weight"]} : (tensor<1x4x7x7xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x3x3xf32>
  return %0 : tensor<1x6x3x3xf32>
}

// -----

// 'same' with an even kernel: the odd pad goes after; dilation 2 spaces the
// taps (offsets 0, 2, 4, 6); a single stride entry applies to every dim.
// CHECK-LABEL: func.func @conv1d_same_dilated
// CHECK: spyre.concat %{{.*}}, %arg0, %{{.*}} dim 2 : tensor<1x2x3xf32>, tensor<1x2x9xf32>, tensor<1x2x3xf32> -> tensor<1x2x15xf32>
// CHECK: spyre.slice %{{.*}} offsets [0, 0, 6] strides [1, 1, 1] : tensor<1x2x15xf32> -> tensor<1x2x9xf32>
func.func @conv1d_same_dilated(%x: tensor<1x2x9xf32>, %w: tensor<3x2x4xf32>) -> tensor<1x3x9xf32> {
  %0 = spyre.aten "aten.conv1d.padding"(%x, %w) {args = {bias, stride = [1], padding = "same", dilation = [2], groups = 1 : i64}, tensor_args = ["input", "weight"]} : (tensor<1x2x9xf32>, tensor<3x2x4xf32>) -> tensor<1x3x9xf32>
  return %0 : tensor<1x3x9xf32>
}

// -----

// The ATen-IR form (convolution.default) and an unbatched input.
// CHECK-LABEL: func.func @convolution_unbatched
// CHECK: spyre.reshape %arg0 : tensor<2x9xf32> -> tensor<1x2x9xf32>
// CHECK: spyre.matmul
// CHECK: spyre.reshape %{{.*}} : tensor<1x1x3x7xf32> -> tensor<3x7xf32>
func.func @convolution_unbatched(%x: tensor<2x9xf32>, %w: tensor<3x2x3xf32>) -> tensor<3x7xf32> {
  %0 = spyre.aten "aten.convolution.default"(%x, %w) {args = {bias, stride = [1], padding = [0], dilation = [1], transposed = false, output_padding = [0], groups = 1 : i64}, tensor_args = ["input", "weight"]} : (tensor<2x9xf32>, tensor<3x2x3xf32>) -> tensor<3x7xf32>
  return %0 : tensor<3x7xf32>
}
