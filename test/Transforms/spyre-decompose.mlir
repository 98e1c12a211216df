// RUN: spyre-opt %s --spyre-decompose --split-input-file --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @linear_bias
// CHECK-SAME: (%[[X:.*]]: tensor<64x256xf16>, %[[W:.*]]: tensor<1024x256xf16>, %[[B:.*]]: tensor<1024xf16>)
// CHECK: %[[MM:.*]] = spyre.matmul %[[X]], %[[W]] {transpose_rhs} : tensor<64x256xf16>, tensor<1024x256xf16> -> tensor<64x1024xf16>
// CHECK: %[[ADD:.*]] = spyre.binary add %[[MM]], %[[B]] : tensor<64x1024xf16>, tensor<1024xf16> -> tensor<64x1024xf16>
// CHECK: return %[[ADD]]
func.func @linear_bias(%x: tensor<64x256xf16>, %w: tensor<1024x256xf16>, %b: tensor<1024xf16>) -> tensor<64x1024xf16> {
  %0 = spyre.aten "aten.linear.default"(%x, %w, %b) {args = {}, tensor_args = ["input", "weight", "bias"]} : (tensor<64x256xf16>, tensor<1024x256xf16>, tensor<1024xf16>) -> tensor<64x1024xf16>
  return %0 : tensor<64x1024xf16>
}

// -----

// A 3-D input keeps its batch dims: the weight broadcasts over them.
// CHECK-LABEL: func.func @linear_3d_no_bias
// CHECK: %[[MM:.*]] = spyre.matmul %{{.*}}, %{{.*}} {transpose_rhs} : tensor<2x8x32xf32>, tensor<16x32xf32> -> tensor<2x8x16xf32>
// CHECK-NOT: spyre.binary
// CHECK: return %[[MM]]
func.func @linear_3d_no_bias(%x: tensor<2x8x32xf32>, %w: tensor<16x32xf32>) -> tensor<2x8x16xf32> {
  %0 = spyre.aten "aten.linear.default"(%x, %w) {args = {}, tensor_args = ["input", "weight"]} : (tensor<2x8x32xf32>, tensor<16x32xf32>) -> tensor<2x8x16xf32>
  return %0 : tensor<2x8x16xf32>
}

// -----

// addmm: alpha and beta become multiplies by splat constants.
// CHECK-LABEL: func.func @addmm_scaled
// CHECK-DAG: %[[ALPHA:.*]] = spyre.constant dense<5.000000e-01> : tensor<f32>
// CHECK-DAG: %[[BETA:.*]] = spyre.constant dense<2.000000e+00> : tensor<f32>
// CHECK: %[[MM:.*]] = spyre.matmul %arg1, %arg2 : tensor<32x128xf32>, tensor<128x64xf32> -> tensor<32x64xf32>
// CHECK: %[[A:.*]] = spyre.binary mul %[[MM]], %[[ALPHA]]
// CHECK: %[[B:.*]] = spyre.binary mul %arg0, %[[BETA]]
// CHECK: spyre.binary add %[[A]], %[[B]]
func.func @addmm_scaled(%bias: tensor<64xf32>, %a: tensor<32x128xf32>, %b: tensor<128x64xf32>) -> tensor<32x64xf32> {
  %0 = spyre.aten "aten.addmm.default"(%bias, %a, %b) {args = {alpha = 5.000000e-01 : f64, beta = 2.000000e+00 : f64}, tensor_args = ["self", "mat1", "mat2"]} : (tensor<64xf32>, tensor<32x128xf32>, tensor<128x64xf32>) -> tensor<32x64xf32>
  return %0 : tensor<32x64xf32>
}

// -----

// addmm with the defaults torch.export omits (beta = alpha = 1).
// CHECK-LABEL: func.func @addmm_defaults
// CHECK-NOT: spyre.constant
// CHECK: %[[MM:.*]] = spyre.matmul %arg1, %arg2
// CHECK: spyre.binary add %[[MM]], %arg0
func.func @addmm_defaults(%bias: tensor<64xf16>, %a: tensor<32x128xf16>, %b: tensor<128x64xf16>) -> tensor<32x64xf16> {
  %0 = spyre.aten "aten.addmm.default"(%bias, %a, %b) {args = {}, tensor_args = ["self", "mat1", "mat2"]} : (tensor<64xf16>, tensor<32x128xf16>, tensor<128x64xf16>) -> tensor<32x64xf16>
  return %0 : tensor<32x64xf16>
}

// -----

// t + mm: the transpose folds into the matmul (the PT unit reads either
// orientation through layouts).
// CHECK-LABEL: func.func @t_mm
// CHECK-NOT: spyre.transpose
// CHECK: spyre.matmul %arg0, %arg1 {transpose_rhs} : tensor<32x128xf16>, tensor<64x128xf16> -> tensor<32x64xf16>
func.func @t_mm(%x: tensor<32x128xf16>, %w: tensor<64x128xf16>) -> tensor<32x64xf16> {
  %t = spyre.aten "aten.t.default"(%w) {args = {}, tensor_args = ["self"]} : (tensor<64x128xf16>) -> tensor<128x64xf16>
  %0 = spyre.aten "aten.mm.default"(%x, %t) {args = {}, tensor_args = ["self", "mat2"]} : (tensor<32x128xf16>, tensor<128x64xf16>) -> tensor<32x64xf16>
  return %0 : tensor<32x64xf16>
}

// -----

// permute with negative dims before an mm, on the lhs.
// CHECK-LABEL: func.func @permute_mm
// CHECK: spyre.matmul %arg0, %arg1 {transpose_lhs} : tensor<128x32xf32>, tensor<128x64xf32> -> tensor<32x64xf32>
func.func @permute_mm(%x: tensor<128x32xf32>, %w: tensor<128x64xf32>) -> tensor<32x64xf32> {
  %p = spyre.aten "aten.permute.default"(%x) {args = {dims = [-1, 0]}, tensor_args = ["self"]} : (tensor<128x32xf32>) -> tensor<32x128xf32>
  %0 = spyre.aten "aten.mm.default"(%p, %w) {args = {}, tensor_args = ["self", "mat2"]} : (tensor<32x128xf32>, tensor<128x64xf32>) -> tensor<32x64xf32>
  return %0 : tensor<32x64xf32>
}

// -----

// A permutation that is not a matmul operand stays a transpose.
// CHECK-LABEL: func.func @permute_alone
// CHECK: spyre.transpose %arg0 [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
func.func @permute_alone(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  %p = spyre.aten "aten.permute.default"(%x) {args = {dims = [1, 0]}, tensor_args = ["self"]} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  return %p : tensor<8x4xf32>
}

// -----

// add.Tensor with alpha scales `other`; a scalar `other` is a splat.
// CHECK-LABEL: func.func @add_alpha_and_scalar
// CHECK-DAG: %[[TWO:.*]] = spyre.constant dense<2.000000e+00> : tensor<f16>
// CHECK-DAG: %[[C:.*]] = spyre.constant dense<1.500000e+00> : tensor<f16>
// CHECK: %[[S:.*]] = spyre.binary mul %arg1, %[[TWO]] : tensor<128xf16>, tensor<f16> -> tensor<128xf16>
// CHECK: %[[A:.*]] = spyre.binary add %arg0, %[[S]] : tensor<32x128xf16>, tensor<128xf16> -> tensor<32x128xf16>
// CHECK: spyre.binary add %[[A]], %[[C]] : tensor<32x128xf16>, tensor<f16> -> tensor<32x128xf16>
func.func @add_alpha_and_scalar(%x: tensor<32x128xf16>, %y: tensor<128xf16>) -> tensor<32x128xf16> {
  %0 = spyre.aten "aten.add.Tensor"(%x, %y) {args = {alpha = 2 : i64}, tensor_args = ["self", "other"]} : (tensor<32x128xf16>, tensor<128xf16>) -> tensor<32x128xf16>
  %1 = spyre.aten "aten.add.Tensor"(%0) {args = {other = 1.500000e+00 : f64}, tensor_args = ["self"]} : (tensor<32x128xf16>) -> tensor<32x128xf16>
  return %1 : tensor<32x128xf16>
}

// -----

// mul and the activations.
// CHECK-LABEL: func.func @mul_relu_gelu
// CHECK: %[[M:.*]] = spyre.binary mul %arg0, %arg1
// CHECK: %[[R:.*]] = spyre.unary relu %[[M]]
// CHECK: %[[G:.*]] = spyre.unary gelu %[[R]]
// CHECK: spyre.unary gelu_tanh %[[G]]
func.func @mul_relu_gelu(%x: tensor<63x65xf32>, %y: tensor<63x65xf32>) -> tensor<63x65xf32> {
  %0 = spyre.aten "aten.mul.Tensor"(%x, %y) {args = {}, tensor_args = ["self", "other"]} : (tensor<63x65xf32>, tensor<63x65xf32>) -> tensor<63x65xf32>
  %1 = spyre.aten "aten.relu.default"(%0) {args = {}, tensor_args = ["self"]} : (tensor<63x65xf32>) -> tensor<63x65xf32>
  %2 = spyre.aten "aten.gelu.default"(%1) {args = {approximate = "none"}, tensor_args = ["self"]} : (tensor<63x65xf32>) -> tensor<63x65xf32>
  %3 = spyre.aten "aten.gelu.default"(%2) {args = {approximate = "tanh"}, tensor_args = ["self"]} : (tensor<63x65xf32>) -> tensor<63x65xf32>
  return %3 : tensor<63x65xf32>
}

// -----

// Operands are converted to the node's output dtype (PyTorch's promotion).
// CHECK-LABEL: func.func @promote
// CHECK: %[[C:.*]] = spyre.cast %arg1 : tensor<8xf16> -> tensor<8xf32>
// CHECK: spyre.binary add %arg0, %[[C]]
func.func @promote(%x: tensor<8xf32>, %y: tensor<8xf16>) -> tensor<8xf32> {
  %0 = spyre.aten "aten.add.Tensor"(%x, %y) {args = {}, tensor_args = ["self", "other"]} : (tensor<8xf32>, tensor<8xf16>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @unsupported(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{unsupported op 'aten.frobnicate.default': no decomposition onto Spyre compute ops}}
  %0 = spyre.aten "aten.frobnicate.default"(%x) {args = {}, tensor_args = ["self"]} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @bad_gelu(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{gelu approximation 'fast' is not one of 'none', 'tanh'}}
  %0 = spyre.aten "aten.gelu.default"(%x) {args = {approximate = "fast"}, tensor_args = ["self"]} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @bad_permute(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{dimension 2 is out of range for a rank-2 tensor in 'aten.permute.default'}}
  %p = spyre.aten "aten.permute.default"(%x) {args = {dims = [2, 0]}, tensor_args = ["self"]} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  return %p : tensor<8x4xf32>
}

// -----

func.func @bad_arg_kind(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{argument 'approximate' of 'aten.gelu.default' must be a string}}
  %0 = spyre.aten "aten.gelu.default"(%x) {args = {approximate = 3 : i64}, tensor_args = ["self"]} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
