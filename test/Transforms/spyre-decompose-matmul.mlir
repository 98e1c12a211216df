// RUN: spyre-opt %s --spyre-decompose --split-input-file | FileCheck %s

// The matmul family (lib/Transforms/Decompositions/Matmul.cpp): every
// matrix product is one spyre.matmul with transposes as flags; bias and
// alpha/beta become elementwise ops (the kernel epilogue).

// linear: x @ w^T, the weight transpose a flag; the bias an add that
// broadcasts over the rows.
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
// CHECK: %[[MM:.*]] = spyre.matmul %arg0, %arg1 {transpose_rhs} : tensor<2x8x32xf32>, tensor<16x32xf32> -> tensor<2x8x16xf32>
// CHECK-NOT: spyre.binary
// CHECK: return %[[MM]]
func.func @linear_3d_no_bias(%x: tensor<2x8x32xf32>, %w: tensor<16x32xf32>) -> tensor<2x8x16xf32> {
  %0 = spyre.aten "aten.linear.default"(%x, %w) {args = {}, tensor_args = ["input", "weight"]} : (tensor<2x8x32xf32>, tensor<16x32xf32>) -> tensor<2x8x16xf32>
  return %0 : tensor<2x8x16xf32>
}

// -----

// A 1-D input is one row; the added dim is dropped from the result.
// CHECK-LABEL: func.func @linear_vector_input
// CHECK: %[[R:.*]] = spyre.reshape %arg0 : tensor<8xf32> -> tensor<1x8xf32>
// CHECK: %[[MM:.*]] = spyre.matmul %[[R]], %arg1 {transpose_rhs} : tensor<1x8xf32>, tensor<16x8xf32> -> tensor<1x16xf32>
// CHECK: %[[OUT:.*]] = spyre.reshape %[[MM]] : tensor<1x16xf32> -> tensor<16xf32>
// CHECK: return %[[OUT]]
func.func @linear_vector_input(%x: tensor<8xf32>, %w: tensor<16x8xf32>) -> tensor<16xf32> {
  %0 = spyre.aten "aten.linear.default"(%x, %w) {args = {}, tensor_args = ["input", "weight"]} : (tensor<8xf32>, tensor<16x8xf32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

// A 1-D weight is a dot product with every row: [1, K] transposed.
// CHECK-LABEL: func.func @linear_vector_weight
// CHECK: %[[W:.*]] = spyre.reshape %arg1 : tensor<8xf32> -> tensor<1x8xf32>
// CHECK: %[[MM:.*]] = spyre.matmul %arg0, %[[W]] {transpose_rhs} : tensor<4x8xf32>, tensor<1x8xf32> -> tensor<4x1xf32>
// CHECK: spyre.reshape %[[MM]] : tensor<4x1xf32> -> tensor<4xf32>
func.func @linear_vector_weight(%x: tensor<4x8xf32>, %w: tensor<8xf32>) -> tensor<4xf32> {
  %0 = spyre.aten "aten.linear.default"(%x, %w) {args = {}, tensor_args = ["input", "weight"]} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// mm: one matmul, no flags (odd sizes are the layout pass's business).
// CHECK-LABEL: func.func @mm
// CHECK-NEXT: %[[MM:.*]] = spyre.matmul %arg0, %arg1 : tensor<7x67xf16>, tensor<67x9xf16> -> tensor<7x9xf16>
// CHECK-NEXT: return %[[MM]]
func.func @mm(%a: tensor<7x67xf16>, %b: tensor<67x9xf16>) -> tensor<7x9xf16> {
  %0 = spyre.aten "aten.mm.default"(%a, %b) {args = {}, tensor_args = ["self", "mat2"]} : (tensor<7x67xf16>, tensor<67x9xf16>) -> tensor<7x9xf16>
  return %0 : tensor<7x9xf16>
}

// -----

// Mixed operand dtypes: converted to the node's output dtype first.
// CHECK-LABEL: func.func @mm_promote
// CHECK: %[[C:.*]] = spyre.cast %arg0 : tensor<4x8xf16> -> tensor<4x8xf32>
// CHECK: spyre.matmul %[[C]], %arg1 : tensor<4x8xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
func.func @mm_promote(%a: tensor<4x8xf16>, %b: tensor<8x4xf32>) -> tensor<4x4xf32> {
  %0 = spyre.aten "aten.mm.default"(%a, %b) {args = {}, tensor_args = ["self", "mat2"]} : (tensor<4x8xf16>, tensor<8x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
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

// addmm with the defaults torch.export omits (beta = alpha = 1): no
// multiplies.
// CHECK-LABEL: func.func @addmm_defaults
// CHECK-NOT: spyre.constant
// CHECK: %[[MM:.*]] = spyre.matmul %arg1, %arg2
// CHECK: spyre.binary add %[[MM]], %arg0
func.func @addmm_defaults(%bias: tensor<64xf16>, %a: tensor<32x128xf16>, %b: tensor<128x64xf16>) -> tensor<32x64xf16> {
  %0 = spyre.aten "aten.addmm.default"(%bias, %a, %b) {args = {}, tensor_args = ["self", "mat1", "mat2"]} : (tensor<64xf16>, tensor<32x128xf16>, tensor<128x64xf16>) -> tensor<32x64xf16>
  return %0 : tensor<32x64xf16>
}

// -----

// beta = 0 ignores self entirely (its NaNs too), as PyTorch documents.
// CHECK-LABEL: func.func @addmm_beta_zero
// CHECK-NEXT: %[[MM:.*]] = spyre.matmul %arg1, %arg2 : tensor<32x128xf32>, tensor<128x64xf32> -> tensor<32x64xf32>
// CHECK-NEXT: return %[[MM]]
func.func @addmm_beta_zero(%bias: tensor<64xf32>, %a: tensor<32x128xf32>, %b: tensor<128x64xf32>) -> tensor<32x64xf32> {
  %0 = spyre.aten "aten.addmm.default"(%bias, %a, %b) {args = {alpha = 1 : i64, beta = 0 : i64}, tensor_args = ["self", "mat1", "mat2"]} : (tensor<64xf32>, tensor<32x128xf32>, tensor<128x64xf32>) -> tensor<32x64xf32>
  return %0 : tensor<32x64xf32>
}

// -----

// bmm: a batched matmul.
// CHECK-LABEL: func.func @bmm
// CHECK-NEXT: %[[MM:.*]] = spyre.matmul %arg0, %arg1 : tensor<2x5x67xf16>, tensor<2x67x9xf16> -> tensor<2x5x9xf16>
// CHECK-NEXT: return %[[MM]]
func.func @bmm(%a: tensor<2x5x67xf16>, %b: tensor<2x67x9xf16>) -> tensor<2x5x9xf16> {
  %0 = spyre.aten "aten.bmm.default"(%a, %b) {args = {}, tensor_args = ["self", "mat2"]} : (tensor<2x5x67xf16>, tensor<2x67x9xf16>) -> tensor<2x5x9xf16>
  return %0 : tensor<2x5x9xf16>
}

// -----

// baddbmm: addmm batched; self broadcasts over the batch.
// CHECK-LABEL: func.func @baddbmm
// CHECK-DAG: %[[BETA:.*]] = spyre.constant dense<5.000000e-01> : tensor<f32>
// CHECK-DAG: %[[ALPHA:.*]] = spyre.constant dense<2.000000e+00> : tensor<f32>
// CHECK: %[[MM:.*]] = spyre.matmul %arg1, %arg2 : tensor<2x5x67xf32>, tensor<2x67x9xf32> -> tensor<2x5x9xf32>
// CHECK: %[[A:.*]] = spyre.binary mul %[[MM]], %[[ALPHA]] : tensor<2x5x9xf32>, tensor<f32> -> tensor<2x5x9xf32>
// CHECK: %[[B:.*]] = spyre.binary mul %arg0, %[[BETA]] : tensor<9xf32>, tensor<f32> -> tensor<9xf32>
// CHECK: %[[R:.*]] = spyre.binary add %[[A]], %[[B]] : tensor<2x5x9xf32>, tensor<9xf32> -> tensor<2x5x9xf32>
// CHECK: return %[[R]]
func.func @baddbmm(%s: tensor<9xf32>, %a: tensor<2x5x67xf32>, %b: tensor<2x67x9xf32>) -> tensor<2x5x9xf32> {
  %0 = spyre.aten "aten.baddbmm.default"(%s, %a, %b) {args = {alpha = 2 : i64, beta = 5.000000e-01 : f64}, tensor_args = ["self", "batch1", "batch2"]} : (tensor<9xf32>, tensor<2x5x67xf32>, tensor<2x67x9xf32>) -> tensor<2x5x9xf32>
  return %0 : tensor<2x5x9xf32>
}

// -----

// matmul, batched x matrix: the matrix broadcasts over the batch.
// CHECK-LABEL: func.func @matmul_3d_2d
// CHECK-NEXT: %[[MM:.*]] = spyre.matmul %arg0, %arg1 : tensor<2x5x8xf32>, tensor<8x8xf32> -> tensor<2x5x8xf32>
// CHECK-NEXT: return %[[MM]]
func.func @matmul_3d_2d(%a: tensor<2x5x8xf32>, %b: tensor<8x8xf32>) -> tensor<2x5x8xf32> {
  %0 = spyre.aten "aten.matmul.default"(%a, %b) {args = {}, tensor_args = ["self", "other"]} : (tensor<2x5x8xf32>, tensor<8x8xf32>) -> tensor<2x5x8xf32>
  return %0 : tensor<2x5x8xf32>
}

// -----

// matmul with broadcast batch dims ([2, 3] x [3]): one matmul whose
// result has the broadcast batch shape.
// CHECK-LABEL: func.func @matmul_4d_bcast
// CHECK-NEXT: %[[MM:.*]] = spyre.matmul %arg0, %arg1 : tensor<2x3x5x8xf16>, tensor<3x8x6xf16> -> tensor<2x3x5x6xf16>
// CHECK-NEXT: return %[[MM]]
func.func @matmul_4d_bcast(%a: tensor<2x3x5x8xf16>, %b: tensor<3x8x6xf16>) -> tensor<2x3x5x6xf16> {
  %0 = spyre.aten "aten.matmul.default"(%a, %b) {args = {}, tensor_args = ["self", "other"]} : (tensor<2x3x5x8xf16>, tensor<3x8x6xf16>) -> tensor<2x3x5x6xf16>
  return %0 : tensor<2x3x5x6xf16>
}

// -----

// matmul of two vectors: [1, K] x [K, 1], reshaped to a scalar.
// CHECK-LABEL: func.func @matmul_1d_1d
// CHECK: %[[A:.*]] = spyre.reshape %arg0 : tensor<8xf32> -> tensor<1x8xf32>
// CHECK: %[[B:.*]] = spyre.reshape %arg1 : tensor<8xf32> -> tensor<8x1xf32>
// CHECK: %[[MM:.*]] = spyre.matmul %[[A]], %[[B]] : tensor<1x8xf32>, tensor<8x1xf32> -> tensor<1x1xf32>
// CHECK: spyre.reshape %[[MM]] : tensor<1x1xf32> -> tensor<f32>
func.func @matmul_1d_1d(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<f32> {
  %0 = spyre.aten "aten.matmul.default"(%a, %b) {args = {}, tensor_args = ["self", "other"]} : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// matrix x vector: the vector a [K, 1] column.
// CHECK-LABEL: func.func @matmul_2d_1d
// CHECK: %[[B:.*]] = spyre.reshape %arg1 : tensor<8xf16> -> tensor<8x1xf16>
// CHECK: %[[MM:.*]] = spyre.matmul %arg0, %[[B]] : tensor<5x8xf16>, tensor<8x1xf16> -> tensor<5x1xf16>
// CHECK: spyre.reshape %[[MM]] : tensor<5x1xf16> -> tensor<5xf16>
func.func @matmul_2d_1d(%a: tensor<5x8xf16>, %b: tensor<8xf16>) -> tensor<5xf16> {
  %0 = spyre.aten "aten.matmul.default"(%a, %b) {args = {}, tensor_args = ["self", "other"]} : (tensor<5x8xf16>, tensor<8xf16>) -> tensor<5xf16>
  return %0 : tensor<5xf16>
}

// -----

// vector x batched matrix: the vector a [1, K] row broadcast over the batch.
// CHECK-LABEL: func.func @matmul_1d_3d
// CHECK: %[[A:.*]] = spyre.reshape %arg0 : tensor<8xf16> -> tensor<1x8xf16>
// CHECK: %[[MM:.*]] = spyre.matmul %[[A]], %arg1 : tensor<1x8xf16>, tensor<2x8x6xf16> -> tensor<2x1x6xf16>
// CHECK: spyre.reshape %[[MM]] : tensor<2x1x6xf16> -> tensor<2x6xf16>
func.func @matmul_1d_3d(%a: tensor<8xf16>, %b: tensor<2x8x6xf16>) -> tensor<2x6xf16> {
  %0 = spyre.aten "aten.matmul.default"(%a, %b) {args = {}, tensor_args = ["self", "other"]} : (tensor<8xf16>, tensor<2x8x6xf16>) -> tensor<2x6xf16>
  return %0 : tensor<2x6xf16>
}
