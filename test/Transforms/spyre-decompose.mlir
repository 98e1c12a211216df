// RUN: spyre-opt %s --spyre-decompose --split-input-file | FileCheck %s

// The spyre-decompose driver: registry lookup, the clean-up that follows
// (transposes folded into matmul flags, splats folded, dead ops erased),
// dtype promotion. Each op family has its own file
// (spyre-decompose-{matmul,pointwise,reductions,normalization,attention,
// shape,adapters}.mlir); diagnostics are in spyre-decompose-errors.mlir.

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

// The attention pattern k.transpose(-2, -1) then bmm: the swap of the
// last two dims folds into the batched matmul.
// CHECK-LABEL: func.func @transpose_bmm
// CHECK-NOT: spyre.transpose
// CHECK: spyre.matmul %arg0, %arg1 {transpose_rhs} : tensor<4x9x16xf16>, tensor<4x9x16xf16> -> tensor<4x9x9xf16>
func.func @transpose_bmm(%q: tensor<4x9x16xf16>, %k: tensor<4x9x16xf16>) -> tensor<4x9x9xf16> {
  %t = spyre.aten "aten.transpose.int"(%k) {args = {dim0 = -2 : i64, dim1 = -1 : i64}, tensor_args = ["self"]} : (tensor<4x9x16xf16>) -> tensor<4x16x9xf16>
  %0 = spyre.aten "aten.bmm.default"(%q, %t) {args = {}, tensor_args = ["self", "mat2"]} : (tensor<4x9x16xf16>, tensor<4x16x9xf16>) -> tensor<4x9x9xf16>
  return %0 : tensor<4x9x9xf16>
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

// Operands are converted to the node's output dtype (PyTorch's promotion).
// CHECK-LABEL: func.func @promote
// CHECK: %[[C:.*]] = spyre.cast %arg1 : tensor<8xf16> -> tensor<8xf32>
// CHECK: spyre.binary add %arg0, %[[C]]
func.func @promote(%x: tensor<8xf32>, %y: tensor<8xf16>) -> tensor<8xf32> {
  %0 = spyre.aten "aten.add.Tensor"(%x, %y) {args = {}, tensor_args = ["self", "other"]} : (tensor<8xf32>, tensor<8xf16>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// In-place variants (add_, mul_) use the functional op's entry: the
// importer already rebound the mutated tensor to the result.
// CHECK-LABEL: func.func @inplace
// CHECK-DAG: %[[TWO:.*]] = spyre.constant dense<2.000000e+00> : tensor<f32>
// CHECK: %[[A:.*]] = spyre.binary add %arg0, %arg1 : tensor<7x67xf32>, tensor<7x67xf32> -> tensor<7x67xf32>
// CHECK: %[[M:.*]] = spyre.binary mul %[[A]], %[[TWO]]
// CHECK: return %[[M]]
func.func @inplace(%x: tensor<7x67xf32>, %y: tensor<7x67xf32>) -> tensor<7x67xf32> {
  %0 = spyre.aten "aten.add_.Tensor"(%x, %y) {args = {alpha = 1 : i64}, tensor_args = ["self", "other"]} : (tensor<7x67xf32>, tensor<7x67xf32>) -> tensor<7x67xf32>
  %1 = spyre.aten "aten.mul_.Tensor"(%0) {args = {other = 2.000000e+00 : f64}, tensor_args = ["self"]} : (tensor<7x67xf32>) -> tensor<7x67xf32>
  return %1 : tensor<7x67xf32>
}

// -----

// torch 2.9's in-graph metadata checks have no result: dropped.
// CHECK-LABEL: func.func @assert_metadata
// CHECK-NOT: spyre.aten
// CHECK: %[[C:.*]] = spyre.cast %arg0 : tensor<4x8xf16> -> tensor<4x8xf32>
// CHECK-NEXT: return %[[C]]
func.func @assert_metadata(%x: tensor<4x8xf16>) -> tensor<4x8xf32> {
  spyre.aten "aten._assert_tensor_metadata.default"(%x) {args = {device = "cpu", dtype = "f16", layout = 7 : i64, size, stride}, tensor_args = ["a"]} : (tensor<4x8xf16>) -> ()
  %0 = spyre.aten "aten.to.dtype"(%x) {args = {copy = false, dtype = "f32", memory_format, non_blocking = false}, tensor_args = ["self"]} : (tensor<4x8xf16>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Weights stay spyre.weight values; results no one uses are erased.
// CHECK-LABEL: func.func @weights_and_dead_code
// CHECK: %[[W:.*]] = spyre.weight "fc.weight" parameter = dense<5.000000e-01> : tensor<16x8xf32>
// CHECK-NOT: spyre.unary exp
// CHECK: %[[MM:.*]] = spyre.matmul %arg0, %[[W]] {transpose_rhs}
// CHECK: %[[G:.*]] = spyre.unary gelu %[[MM]]
// CHECK-NEXT: return %[[G]]
func.func @weights_and_dead_code(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
  %w = spyre.weight "fc.weight" parameter = dense<5.000000e-01> : tensor<16x8xf32> : tensor<16x8xf32>
  %dead = spyre.aten "aten.exp.default"(%x) {args = {}, tensor_args = ["self"]} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %0 = spyre.aten "aten.linear.default"(%x, %w) {args = {}, tensor_args = ["input", "weight"]} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  %1 = spyre.aten "aten.gelu.default"(%0) {args = {approximate = "none"}, tensor_args = ["self"]} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  return %1 : tensor<4x16xf32>
}
