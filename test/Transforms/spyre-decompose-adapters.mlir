// RUN: spyre-opt %s --spyre-decompose --split-input-file | FileCheck %s

// The adapters of spyre-decompose (DESIGN.md section 5): rewrites that
// replace what lowers badly with an equal form. Each has a comment saying
// why at its implementation.

// Adapter `pow(x, 3) -> x*x*x` (Pointwise.cpp, powByConstant): the SFP
// has no pow, and exp(3 * log(x)) would be NaN for negative x; two
// multiplies in the input dtype, no exp/log, no casts.
// CHECK-LABEL: func.func @pow_cube
// CHECK-NEXT: %[[SQ:.*]] = spyre.binary mul %arg0, %arg0 : tensor<7x67xf16>, tensor<7x67xf16> -> tensor<7x67xf16>
// CHECK-NEXT: %[[CUBE:.*]] = spyre.binary mul %arg0, %[[SQ]] : tensor<7x67xf16>, tensor<7x67xf16> -> tensor<7x67xf16>
// CHECK-NEXT: return %[[CUBE]]
func.func @pow_cube(%x: tensor<7x67xf16>) -> tensor<7x67xf16> {
  %0 = spyre.aten "aten.pow.Tensor_Scalar"(%x) {args = {exponent = 3 : i64}, tensor_args = ["self"]} : (tensor<7x67xf16>) -> tensor<7x67xf16>
  return %0 : tensor<7x67xf16>
}

// -----

// Adapter: rms_norm squares with x * x (Normalization.cpp): one SFP
// multiply that fuses into the reduction's kernel.
// CHECK-LABEL: func.func @rms_norm_op
// CHECK-DAG: %[[EPS:.*]] = spyre.constant dense<9.99999997E-7> : tensor<f32>
// CHECK-DAG: %[[N:.*]] = spyre.constant dense<0.0140845068> : tensor<f32>
// CHECK-NEXT: %[[SQ:.*]] = spyre.binary mul %arg0, %arg0 : tensor<2x5x71xf32>, tensor<2x5x71xf32> -> tensor<2x5x71xf32>
// CHECK-NEXT: %[[S:.*]] = spyre.reduce sum %[[SQ]] dim 2
// CHECK-NEXT: %[[MS:.*]] = spyre.binary mul %[[S]], %[[N]]
// CHECK-NEXT: %[[MSE:.*]] = spyre.binary add %[[MS]], %[[EPS]]
// CHECK-NEXT: %[[R:.*]] = spyre.unary rsqrt %[[MSE]]
// CHECK-NEXT: %[[Y:.*]] = spyre.binary mul %arg0, %[[R]]
// CHECK-NEXT: %[[YW:.*]] = spyre.binary mul %[[Y]], %arg1
// CHECK-NEXT: return %[[YW]]
func.func @rms_norm_op(%x: tensor<2x5x71xf32>, %w: tensor<71xf32>) -> tensor<2x5x71xf32> {
  %0 = spyre.aten "aten.rms_norm.default"(%x, %w) {args = {eps = 1.000000e-06 : f64, normalized_shape = [71]}, tensor_args = ["input", "weight"]} : (tensor<2x5x71xf32>, tensor<71xf32>) -> tensor<2x5x71xf32>
  return %0 : tensor<2x5x71xf32>
}

// -----

// The RMSNorm Llama exports by hand (pow(x, 2), mean, + eps, rsqrt):
// pow(x, 2) becomes x * x by the same adapter, so the whole norm is a
// multiply, a reduction and elementwise ops.
// CHECK-LABEL: func.func @llama_rms_norm
// CHECK-DAG: %[[EPS:.*]] = spyre.constant dense<9.99999997E-7> : tensor<f32>
// CHECK-DAG: %[[N:.*]] = spyre.constant dense<7.812500e-03> : tensor<f32>
// CHECK: %[[X:.*]] = spyre.cast %arg0 : tensor<1x16x128xf16> -> tensor<1x16x128xf32>
// CHECK-NEXT: %[[SQ:.*]] = spyre.binary mul %[[X]], %[[X]] : tensor<1x16x128xf32>, tensor<1x16x128xf32> -> tensor<1x16x128xf32>
// CHECK-NEXT: %[[S:.*]] = spyre.reduce sum %[[SQ]] dim 2 : tensor<1x16x128xf32> -> tensor<1x16x1xf32>
// CHECK-NEXT: %[[MS:.*]] = spyre.binary mul %[[S]], %[[N]]
// CHECK-NEXT: %[[MSE:.*]] = spyre.binary add %[[MS]], %[[EPS]]
// CHECK-NEXT: %[[R:.*]] = spyre.unary rsqrt %[[MSE]]
// CHECK-NEXT: %[[Y:.*]] = spyre.binary mul %[[X]], %[[R]]
func.func @llama_rms_norm(%x: tensor<1x16x128xf16>, %w: tensor<128xf16>) -> tensor<1x16x128xf16> {
  %0 = spyre.aten "aten.to.dtype"(%x) {args = {copy = false, dtype = "f32", memory_format, non_blocking = false}, tensor_args = ["self"]} : (tensor<1x16x128xf16>) -> tensor<1x16x128xf32>
  %1 = spyre.aten "aten.pow.Tensor_Scalar"(%0) {args = {exponent = 2 : i64}, tensor_args = ["self"]} : (tensor<1x16x128xf32>) -> tensor<1x16x128xf32>
  %2 = spyre.aten "aten.mean.dim"(%1) {args = {dim = [-1], dtype, keepdim = true}, tensor_args = ["self"]} : (tensor<1x16x128xf32>) -> tensor<1x16x1xf32>
  %3 = spyre.aten "aten.add.Tensor"(%2) {args = {alpha = 1 : i64, other = 9.9999999999999995E-7 : f64}, tensor_args = ["self"]} : (tensor<1x16x1xf32>) -> tensor<1x16x1xf32>
  %4 = spyre.aten "aten.rsqrt.default"(%3) {args = {}, tensor_args = ["self"]} : (tensor<1x16x1xf32>) -> tensor<1x16x1xf32>
  %5 = spyre.aten "aten.mul.Tensor"(%0, %4) {args = {}, tensor_args = ["self", "other"]} : (tensor<1x16x128xf32>, tensor<1x16x1xf32>) -> tensor<1x16x128xf32>
  %6 = spyre.aten "aten.to.dtype"(%5) {args = {copy = false, dtype = "f16", memory_format, non_blocking = false}, tensor_args = ["self"]} : (tensor<1x16x128xf32>) -> tensor<1x16x128xf16>
  %7 = spyre.aten "aten.mul.Tensor"(%w, %6) {args = {}, tensor_args = ["self", "other"]} : (tensor<128xf16>, tensor<1x16x128xf16>) -> tensor<1x16x128xf16>
  return %7 : tensor<1x16x128xf16>
}

// -----

// Scalars as splat constants: the hardware has no immediates, so every
// scalar operand is a rank-0 spyre.constant of the tensor's dtype (0.1
// rounded to f16), broadcast by the elementwise op that reads it.
// CHECK-LABEL: func.func @scalars_are_splats
// CHECK-DAG: %[[HALF:.*]] = spyre.constant dense<5.000000e-01> : tensor<f16>
// CHECK-DAG: %[[THREE:.*]] = spyre.constant dense<3.000000e+00> : tensor<f16>
// CHECK-DAG: %[[TENTH:.*]] = spyre.constant dense<9.997550e-02> : tensor<f16>
// CHECK: %[[A:.*]] = spyre.binary add %arg0, %[[TENTH]] : tensor<4x64xf16>, tensor<f16> -> tensor<4x64xf16>
// CHECK: %[[M:.*]] = spyre.binary mul %[[A]], %[[THREE]] : tensor<4x64xf16>, tensor<f16> -> tensor<4x64xf16>
// CHECK: %[[X:.*]] = spyre.binary max %[[M]], %arg0
// CHECK: spyre.compare lt %[[X]], %[[HALF]] : tensor<4x64xf16>, tensor<f16> -> tensor<4x64xi1>
func.func @scalars_are_splats(%x: tensor<4x64xf16>) -> tensor<4x64xi1> {
  %0 = spyre.aten "aten.add.Tensor"(%x) {args = {alpha = 1 : i64, other = 1.000000e-01 : f64}, tensor_args = ["self"]} : (tensor<4x64xf16>) -> tensor<4x64xf16>
  %1 = spyre.aten "aten.mul.Scalar"(%0) {args = {other = 3 : i64}, tensor_args = ["self"]} : (tensor<4x64xf16>) -> tensor<4x64xf16>
  %2 = spyre.aten "aten.maximum.default"(%1, %x) {args = {}, tensor_args = ["self", "other"]} : (tensor<4x64xf16>, tensor<4x64xf16>) -> tensor<4x64xf16>
  %3 = spyre.aten "aten.lt.Scalar"(%2) {args = {other = 5.000000e-01 : f64}, tensor_args = ["self"]} : (tensor<4x64xf16>) -> tensor<4x64xi1>
  return %3 : tensor<4x64xi1>
}

// -----

// Adapter: RoPE's rotate_half(x) = cat(-x[..., D/2:], x[..., :D/2]) is
// x @ R, R the constant signed permutation R[j + D/2][j] = -1,
// R[j - D/2][j] = 1 (Creation.cpp, matchRotateHalf): one PT matmul instead of
// slicing the stick dim twice and concatenating (DMA kernels). D = 8.
// CHECK-LABEL: func.func @rope_small
// CHECK: %[[R:.*]] = spyre.constant dense<
// CHECK-SAME: {{\[\[}}0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 1.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00],
// CHECK-SAME: [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 1.000000e+00, 0.000000e+00, 0.000000e+00],
// CHECK-SAME: [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 1.000000e+00, 0.000000e+00],
// CHECK-SAME: [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 1.000000e+00],
// CHECK-SAME: [-1.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00],
// CHECK-SAME: [0.000000e+00, -1.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00],
// CHECK-SAME: [0.000000e+00, 0.000000e+00, -1.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00],
// CHECK-SAME: [0.000000e+00, 0.000000e+00, 0.000000e+00, -1.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]> : tensor<8x8xf32>
// CHECK-NEXT: %[[Y:.*]] = spyre.matmul %arg0, %[[R]] : tensor<2x3x8xf32>, tensor<8x8xf32> -> tensor<2x3x8xf32>
// CHECK-NEXT: return %[[Y]]
func.func @rope_small(%x: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  %1 = spyre.aten "aten.slice.Tensor"(%x) {args = {dim = 2 : i64, end = 4 : i64, start = 0 : i64, step = 1 : i64}, tensor_args = ["self"]} : (tensor<2x3x8xf32>) -> tensor<2x3x4xf32>
  %2 = spyre.aten "aten.slice.Tensor"(%x) {args = {dim = 2 : i64, end = 9223372036854775807 : i64, start = 4 : i64, step = 1 : i64}, tensor_args = ["self"]} : (tensor<2x3x8xf32>) -> tensor<2x3x4xf32>
  %3 = spyre.aten "aten.neg.default"(%2) {args = {}, tensor_args = ["self"]} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %4 = spyre.aten "aten.cat.default"(%3, %1) {args = {dim = -1 : i64}, tensor_args = ["tensors", "tensors"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x8xf32>
  return %4 : tensor<2x3x8xf32>
}

// -----

// The Llama decoder's q rotation (4 heads, 16 positions, D = 32, f16):
// x * cos + rotate_half(x) * sin. The matmul by R ([32, 32] f16) takes the
// multiply by sin as its epilogue; no slice, neg or concat is left.
// CHECK-LABEL: func.func @rope_llama
// CHECK: %[[R:.*]] = spyre.constant dense<"0x{{[0-9A-F]+}}"> : tensor<32x32xf16>
// CHECK-NEXT: %[[XC:.*]] = spyre.binary mul %arg0, %arg1
// CHECK-NEXT: %[[ROT:.*]] = spyre.matmul %arg0, %[[R]] : tensor<1x4x16x32xf16>, tensor<32x32xf16> -> tensor<1x4x16x32xf16>
// CHECK-NEXT: %[[RS:.*]] = spyre.binary mul %[[ROT]], %arg2
// CHECK-NEXT: %[[OUT:.*]] = spyre.binary add %[[XC]], %[[RS]]
// CHECK-NEXT: return %[[OUT]]
func.func @rope_llama(%x: tensor<1x4x16x32xf16>, %cos: tensor<1x1x16x32xf16>, %sin: tensor<1x1x16x32xf16>) -> tensor<1x4x16x32xf16> {
  %0 = spyre.aten "aten.mul.Tensor"(%x, %cos) {args = {}, tensor_args = ["self", "other"]} : (tensor<1x4x16x32xf16>, tensor<1x1x16x32xf16>) -> tensor<1x4x16x32xf16>
  %1 = spyre.aten "aten.slice.Tensor"(%x) {args = {dim = 3 : i64, end = 16 : i64, start = 0 : i64, step = 1 : i64}, tensor_args = ["self"]} : (tensor<1x4x16x32xf16>) -> tensor<1x4x16x16xf16>
  %2 = spyre.aten "aten.slice.Tensor"(%x) {args = {dim = 3 : i64, end = 9223372036854775807 : i64, start = 16 : i64, step = 1 : i64}, tensor_args = ["self"]} : (tensor<1x4x16x32xf16>) -> tensor<1x4x16x16xf16>
  %3 = spyre.aten "aten.neg.default"(%2) {args = {}, tensor_args = ["self"]} : (tensor<1x4x16x16xf16>) -> tensor<1x4x16x16xf16>
  %4 = spyre.aten "aten.cat.default"(%3, %1) {args = {dim = -1 : i64}, tensor_args = ["tensors", "tensors"]} : (tensor<1x4x16x16xf16>, tensor<1x4x16x16xf16>) -> tensor<1x4x16x32xf16>
  %5 = spyre.aten "aten.mul.Tensor"(%4, %sin) {args = {}, tensor_args = ["self", "other"]} : (tensor<1x4x16x32xf16>, tensor<1x1x16x32xf16>) -> tensor<1x4x16x32xf16>
  %6 = spyre.aten "aten.add.Tensor"(%0, %5) {args = {alpha = 1 : i64}, tensor_args = ["self", "other"]} : (tensor<1x4x16x32xf16>, tensor<1x4x16x32xf16>) -> tensor<1x4x16x32xf16>
  return %6 : tensor<1x4x16x32xf16>
}

// -----

// Decode (32 heads of one token), D = 128: reading R (32 KiB) still costs
// less than two more data movement kernels.
// CHECK-LABEL: func.func @rope_decode_small_head
// CHECK: %[[R:.*]] = spyre.constant dense<"0x{{[0-9A-F]+}}"> : tensor<128x128xf16>
// CHECK-NEXT: %[[Y:.*]] = spyre.matmul %arg0, %[[R]] : tensor<1x32x1x128xf16>, tensor<128x128xf16> -> tensor<1x32x1x128xf16>
// CHECK-NEXT: return %[[Y]]
func.func @rope_decode_small_head(%x: tensor<1x32x1x128xf16>) -> tensor<1x32x1x128xf16> {
  %1 = spyre.aten "aten.slice.Tensor"(%x) {args = {dim = 3 : i64, end = 64 : i64, start = 0 : i64, step = 1 : i64}, tensor_args = ["self"]} : (tensor<1x32x1x128xf16>) -> tensor<1x32x1x64xf16>
  %2 = spyre.aten "aten.slice.Tensor"(%x) {args = {dim = 3 : i64, end = 9223372036854775807 : i64, start = 64 : i64, step = 1 : i64}, tensor_args = ["self"]} : (tensor<1x32x1x128xf16>) -> tensor<1x32x1x64xf16>
  %3 = spyre.aten "aten.neg.default"(%2) {args = {}, tensor_args = ["self"]} : (tensor<1x32x1x64xf16>) -> tensor<1x32x1x64xf16>
  %4 = spyre.aten "aten.cat.default"(%3, %1) {args = {dim = -1 : i64}, tensor_args = ["tensors", "tensors"]} : (tensor<1x32x1x64xf16>, tensor<1x32x1x64xf16>) -> tensor<1x32x1x128xf16>
  return %4 : tensor<1x32x1x128xf16>
}

// -----

// Decode of one head with D = 1024: R would be 2 MiB, read for 2 KiB of
// x; the cost model keeps the slices.
// CHECK-LABEL: func.func @rope_decode_big_head
// CHECK-NOT: spyre.matmul
// CHECK: %[[LO:.*]] = spyre.slice %arg0 offsets [0, 0, 0, 0] strides [1, 1, 1, 1] : tensor<1x1x1x1024xf16> -> tensor<1x1x1x512xf16>
// CHECK: %[[HI:.*]] = spyre.slice %arg0 offsets [0, 0, 0, 512] strides [1, 1, 1, 1] : tensor<1x1x1x1024xf16> -> tensor<1x1x1x512xf16>
// CHECK: %[[NEG:.*]] = spyre.unary neg %[[HI]]
// CHECK: %[[C:.*]] = spyre.concat %[[NEG]], %[[LO]] dim 3
// CHECK: return %[[C]]
func.func @rope_decode_big_head(%x: tensor<1x1x1x1024xf16>) -> tensor<1x1x1x1024xf16> {
  %1 = spyre.aten "aten.slice.Tensor"(%x) {args = {dim = 3 : i64, end = 512 : i64, start = 0 : i64, step = 1 : i64}, tensor_args = ["self"]} : (tensor<1x1x1x1024xf16>) -> tensor<1x1x1x512xf16>
  %2 = spyre.aten "aten.slice.Tensor"(%x) {args = {dim = 3 : i64, end = 9223372036854775807 : i64, start = 512 : i64, step = 1 : i64}, tensor_args = ["self"]} : (tensor<1x1x1x1024xf16>) -> tensor<1x1x1x512xf16>
  %3 = spyre.aten "aten.neg.default"(%2) {args = {}, tensor_args = ["self"]} : (tensor<1x1x1x512xf16>) -> tensor<1x1x1x512xf16>
  %4 = spyre.aten "aten.cat.default"(%3, %1) {args = {dim = -1 : i64}, tensor_args = ["tensors", "tensors"]} : (tensor<1x1x1x512xf16>, tensor<1x1x1x512xf16>) -> tensor<1x1x1x1024xf16>
  return %4 : tensor<1x1x1x1024xf16>
}

// -----

// A half that has another use stays a slice, and so does the concat (the
// rewrite would not save its data movement).
// CHECK-LABEL: func.func @rope_slice_reused
// CHECK-NOT: spyre.matmul
// CHECK: spyre.concat
func.func @rope_slice_reused(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x4xf32>) {
  %1 = spyre.aten "aten.slice.Tensor"(%x) {args = {dim = 1 : i64, end = 4 : i64, start = 0 : i64, step = 1 : i64}, tensor_args = ["self"]} : (tensor<4x8xf32>) -> tensor<4x4xf32>
  %2 = spyre.aten "aten.slice.Tensor"(%x) {args = {dim = 1 : i64, end = 8 : i64, start = 4 : i64, step = 1 : i64}, tensor_args = ["self"]} : (tensor<4x8xf32>) -> tensor<4x4xf32>
  %3 = spyre.aten "aten.neg.default"(%2) {args = {}, tensor_args = ["self"]} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %4 = spyre.aten "aten.cat.default"(%3, %1) {args = {dim = 1 : i64}, tensor_args = ["tensors", "tensors"]} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x8xf32>
  return %4, %1 : tensor<4x8xf32>, tensor<4x4xf32>
}

// -----

// cat(-x[:D/2], x[D/2:]) is not rotate_half: not rewritten.
// CHECK-LABEL: func.func @not_rope_order
// CHECK-NOT: spyre.matmul
// CHECK: %[[LO:.*]] = spyre.slice %arg0 offsets [0, 0]
// CHECK: %[[HI:.*]] = spyre.slice %arg0 offsets [0, 4]
// CHECK: %[[NEG:.*]] = spyre.unary neg %[[LO]]
// CHECK: spyre.concat %[[NEG]], %[[HI]] dim 1
func.func @not_rope_order(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %1 = spyre.aten "aten.slice.Tensor"(%x) {args = {dim = 1 : i64, end = 4 : i64, start = 0 : i64, step = 1 : i64}, tensor_args = ["self"]} : (tensor<4x8xf32>) -> tensor<4x4xf32>
  %2 = spyre.aten "aten.slice.Tensor"(%x) {args = {dim = 1 : i64, end = 8 : i64, start = 4 : i64, step = 1 : i64}, tensor_args = ["self"]} : (tensor<4x8xf32>) -> tensor<4x4xf32>
  %3 = spyre.aten "aten.neg.default"(%1) {args = {}, tensor_args = ["self"]} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %4 = spyre.aten "aten.cat.default"(%3, %2) {args = {dim = 1 : i64}, tensor_args = ["tensors", "tensors"]} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x8xf32>
  return %4 : tensor<4x8xf32>
}

// -----

// Adapter: RoPE on the halves (gpt-oss, transformers' _apply_rotary_emb):
// cat(a * cos - b * sin, b * cos + a * sin) of x's halves a, b is
// x * cat(cos, cos) + rotate_half(x) * cat(sin, sin), the Llama form, with
// rotate_half as the matmul by R (Creation.cpp, matchHalfRotation): no
// half-stick slice is left. Operand orders of the products and of the add
// do not matter.
// CHECK-LABEL: func.func @rope_halves
// CHECK-NOT: spyre.slice
// CHECK: %[[R:.*]] = spyre.constant dense<
// CHECK-SAME: : tensor<8x8xf32>
// CHECK-NEXT: %[[C2:.*]] = spyre.concat %arg1, %arg1 dim 1 : tensor<3x4xf32>, tensor<3x4xf32> -> tensor<3x8xf32>
// CHECK-NEXT: %[[XC:.*]] = spyre.binary mul %arg0, %[[C2]] : tensor<2x3x8xf32>, tensor<3x8xf32> -> tensor<2x3x8xf32>
// CHECK-NEXT: %[[S2:.*]] = spyre.concat %arg2, %arg2 dim 1
// CHECK-NEXT: %[[ROT:.*]] = spyre.matmul %arg0, %[[R]] : tensor<2x3x8xf32>, tensor<8x8xf32> -> tensor<2x3x8xf32>
// CHECK-NEXT: %[[RS:.*]] = spyre.binary mul %[[ROT]], %[[S2]]
// CHECK-NEXT: %[[OUT:.*]] = spyre.binary add %[[XC]], %[[RS]]
// CHECK-NEXT: return %[[OUT]]
// CHECK-NOT: spyre.slice
func.func @rope_halves(%x: tensor<2x3x8xf32>, %cos: tensor<3x4xf32>, %sin: tensor<3x4xf32>) -> tensor<2x3x8xf32> {
  %a = spyre.aten "aten.slice.Tensor"(%x) {args = {dim = 2 : i64, end = 4 : i64, start = 0 : i64, step = 1 : i64}, tensor_args = ["self"]} : (tensor<2x3x8xf32>) -> tensor<2x3x4xf32>
  %b = spyre.aten "aten.slice.Tensor"(%x) {args = {dim = 2 : i64, end = 8 : i64, start = 4 : i64, step = 1 : i64}, tensor_args = ["self"]} : (tensor<2x3x8xf32>) -> tensor<2x3x4xf32>
  %ac = spyre.aten "aten.mul.Tensor"(%cos, %a) {args = {}, tensor_args = ["self", "other"]} : (tensor<3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %bs = spyre.aten "aten.mul.Tensor"(%b, %sin) {args = {}, tensor_args = ["self", "other"]} : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  %first = spyre.aten "aten.sub.Tensor"(%ac, %bs) {args = {alpha = 1 : i64}, tensor_args = ["self", "other"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %bc = spyre.aten "aten.mul.Tensor"(%b, %cos) {args = {}, tensor_args = ["self", "other"]} : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  %as = spyre.aten "aten.mul.Tensor"(%sin, %a) {args = {}, tensor_args = ["self", "other"]} : (tensor<3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %second = spyre.aten "aten.add.Tensor"(%as, %bc) {args = {alpha = 1 : i64}, tensor_args = ["self", "other"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %out = spyre.aten "aten.cat.default"(%first, %second) {args = {dim = -1 : i64}, tensor_args = ["tensors", "tensors"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x8xf32>
  return %out : tensor<2x3x8xf32>
}

// -----

// Near-miss: b * cos - a * sin in the second half is no rotation.
// CHECK-LABEL: func.func @not_rope_halves_sign
// CHECK-NOT: spyre.matmul
// CHECK: spyre.concat
func.func @not_rope_halves_sign(%x: tensor<2x3x8xf32>, %cos: tensor<3x4xf32>, %sin: tensor<3x4xf32>) -> tensor<2x3x8xf32> {
  %a = spyre.aten "aten.slice.Tensor"(%x) {args = {dim = 2 : i64, end = 4 : i64, start = 0 : i64, step = 1 : i64}, tensor_args = ["self"]} : (tensor<2x3x8xf32>) -> tensor<2x3x4xf32>
  %b = spyre.aten "aten.slice.Tensor"(%x) {args = {dim = 2 : i64, end = 8 : i64, start = 4 : i64, step = 1 : i64}, tensor_args = ["self"]} : (tensor<2x3x8xf32>) -> tensor<2x3x4xf32>
  %ac = spyre.aten "aten.mul.Tensor"(%a, %cos) {args = {}, tensor_args = ["self", "other"]} : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  %bs = spyre.aten "aten.mul.Tensor"(%b, %sin) {args = {}, tensor_args = ["self", "other"]} : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  %first = spyre.aten "aten.sub.Tensor"(%ac, %bs) {args = {alpha = 1 : i64}, tensor_args = ["self", "other"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %bc = spyre.aten "aten.mul.Tensor"(%b, %cos) {args = {}, tensor_args = ["self", "other"]} : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  %as = spyre.aten "aten.mul.Tensor"(%a, %sin) {args = {}, tensor_args = ["self", "other"]} : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  %second = spyre.aten "aten.sub.Tensor"(%bc, %as) {args = {alpha = 1 : i64}, tensor_args = ["self", "other"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %out = spyre.aten "aten.cat.default"(%first, %second) {args = {dim = -1 : i64}, tensor_args = ["tensors", "tensors"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x8xf32>
  return %out : tensor<2x3x8xf32>
}

// -----

// Near-miss: the second half multiplies by another table than the first.
// CHECK-LABEL: func.func @not_rope_halves_tables
// CHECK-NOT: spyre.matmul
// CHECK: spyre.concat
func.func @not_rope_halves_tables(%x: tensor<2x3x8xf32>, %cos: tensor<3x4xf32>, %sin: tensor<3x4xf32>, %cos2: tensor<3x4xf32>) -> tensor<2x3x8xf32> {
  %a = spyre.aten "aten.slice.Tensor"(%x) {args = {dim = 2 : i64, end = 4 : i64, start = 0 : i64, step = 1 : i64}, tensor_args = ["self"]} : (tensor<2x3x8xf32>) -> tensor<2x3x4xf32>
  %b = spyre.aten "aten.slice.Tensor"(%x) {args = {dim = 2 : i64, end = 8 : i64, start = 4 : i64, step = 1 : i64}, tensor_args = ["self"]} : (tensor<2x3x8xf32>) -> tensor<2x3x4xf32>
  %ac = spyre.aten "aten.mul.Tensor"(%a, %cos) {args = {}, tensor_args = ["self", "other"]} : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  %bs = spyre.aten "aten.mul.Tensor"(%b, %sin) {args = {}, tensor_args = ["self", "other"]} : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  %first = spyre.aten "aten.sub.Tensor"(%ac, %bs) {args = {alpha = 1 : i64}, tensor_args = ["self", "other"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %bc = spyre.aten "aten.mul.Tensor"(%b, %cos2) {args = {}, tensor_args = ["self", "other"]} : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  %as = spyre.aten "aten.mul.Tensor"(%a, %sin) {args = {}, tensor_args = ["self", "other"]} : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  %second = spyre.aten "aten.add.Tensor"(%bc, %as) {args = {alpha = 1 : i64}, tensor_args = ["self", "other"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %out = spyre.aten "aten.cat.default"(%first, %second) {args = {dim = -1 : i64}, tensor_args = ["tensors", "tensors"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x8xf32>
  return %out : tensor<2x3x8xf32>
}

// -----

// Near-miss: a product is also a result; rewriting would compute it twice.
// CHECK-LABEL: func.func @not_rope_halves_shared
// CHECK-NOT: spyre.matmul
// CHECK: spyre.concat
func.func @not_rope_halves_shared(%x: tensor<2x3x8xf32>, %cos: tensor<3x4xf32>, %sin: tensor<3x4xf32>) -> (tensor<2x3x8xf32>, tensor<2x3x4xf32>) {
  %a = spyre.aten "aten.slice.Tensor"(%x) {args = {dim = 2 : i64, end = 4 : i64, start = 0 : i64, step = 1 : i64}, tensor_args = ["self"]} : (tensor<2x3x8xf32>) -> tensor<2x3x4xf32>
  %b = spyre.aten "aten.slice.Tensor"(%x) {args = {dim = 2 : i64, end = 8 : i64, start = 4 : i64, step = 1 : i64}, tensor_args = ["self"]} : (tensor<2x3x8xf32>) -> tensor<2x3x4xf32>
  %ac = spyre.aten "aten.mul.Tensor"(%a, %cos) {args = {}, tensor_args = ["self", "other"]} : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  %bs = spyre.aten "aten.mul.Tensor"(%b, %sin) {args = {}, tensor_args = ["self", "other"]} : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  %first = spyre.aten "aten.sub.Tensor"(%ac, %bs) {args = {alpha = 1 : i64}, tensor_args = ["self", "other"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %bc = spyre.aten "aten.mul.Tensor"(%b, %cos) {args = {}, tensor_args = ["self", "other"]} : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  %as = spyre.aten "aten.mul.Tensor"(%a, %sin) {args = {}, tensor_args = ["self", "other"]} : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  %second = spyre.aten "aten.add.Tensor"(%bc, %as) {args = {alpha = 1 : i64}, tensor_args = ["self", "other"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %out = spyre.aten "aten.cat.default"(%first, %second) {args = {dim = -1 : i64}, tensor_args = ["tensors", "tensors"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x8xf32>
  return %out, %ac : tensor<2x3x8xf32>, tensor<2x3x4xf32>
}
