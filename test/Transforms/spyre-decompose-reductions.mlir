// RUN: spyre-opt %s --spyre-decompose --split-input-file | FileCheck %s

// The reduction family (lib/Transforms/Decompositions/Reductions.cpp):
// spyre.reduce along one dim at a time (the dim kept with size 1) plus
// elementwise ops. Sums, means, variances and softmaxes of f16/bf16
// compute in f32 and round once.

// sum of f16 along the stick dim: in f32, rounded once; the reduced dim is
// kept by spyre.reduce and dropped by a reshape after the conversion.
// CHECK-LABEL: func.func @sum_last
// CHECK: %[[X:.*]] = spyre.cast %arg0 : tensor<2x5x67xf16> -> tensor<2x5x67xf32>
// CHECK: %[[S:.*]] = spyre.reduce sum %[[X]] dim 2 : tensor<2x5x67xf32> -> tensor<2x5x1xf32>
// CHECK: %[[C:.*]] = spyre.cast %[[S]] : tensor<2x5x1xf32> -> tensor<2x5x1xf16>
// CHECK: %[[R:.*]] = spyre.reshape %[[C]] : tensor<2x5x1xf16> -> tensor<2x5xf16>
// CHECK: return %[[R]]
func.func @sum_last(%x: tensor<2x5x67xf16>) -> tensor<2x5xf16> {
  %0 = spyre.aten "aten.sum.dim_IntList"(%x) {args = {dim = [-1], dtype, keepdim = false}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> tensor<2x5xf16>
  return %0 : tensor<2x5xf16>
}

// -----

// sum along a non-stick dim with keepdim: one reduce, no reshape.
// CHECK-LABEL: func.func @sum_dim1_keepdim
// CHECK-NEXT: %[[S:.*]] = spyre.reduce sum %arg0 dim 1 : tensor<2x5x67xf32> -> tensor<2x1x67xf32>
// CHECK-NEXT: return %[[S]]
func.func @sum_dim1_keepdim(%x: tensor<2x5x67xf32>) -> tensor<2x1x67xf32> {
  %0 = spyre.aten "aten.sum.dim_IntList"(%x) {args = {dim = [1], dtype, keepdim = true}, tensor_args = ["self"]} : (tensor<2x5x67xf32>) -> tensor<2x1x67xf32>
  return %0 : tensor<2x1x67xf32>
}

// -----

// Several dims: one reduce per dim (sorted), then the reshape.
// CHECK-LABEL: func.func @sum_two_dims
// CHECK: %[[A:.*]] = spyre.reduce sum %arg0 dim 0 : tensor<2x5x67xf32> -> tensor<1x5x67xf32>
// CHECK: %[[B:.*]] = spyre.reduce sum %[[A]] dim 2 : tensor<1x5x67xf32> -> tensor<1x5x1xf32>
// CHECK: spyre.reshape %[[B]] : tensor<1x5x1xf32> -> tensor<5xf32>
func.func @sum_two_dims(%x: tensor<2x5x67xf32>) -> tensor<5xf32> {
  %0 = spyre.aten "aten.sum.dim_IntList"(%x) {args = {dim = [0, -1], dtype, keepdim = false}, tensor_args = ["self"]} : (tensor<2x5x67xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// sum.default: every dim.
// CHECK-LABEL: func.func @sum_all
// CHECK: %[[A:.*]] = spyre.reduce sum %arg0 dim 0 : tensor<2x5xf32> -> tensor<1x5xf32>
// CHECK: %[[B:.*]] = spyre.reduce sum %[[A]] dim 1 : tensor<1x5xf32> -> tensor<1x1xf32>
// CHECK: spyre.reshape %[[B]] : tensor<1x1xf32> -> tensor<f32>
func.func @sum_all(%x: tensor<2x5xf32>) -> tensor<f32> {
  %0 = spyre.aten "aten.sum.default"(%x) {args = {dtype}, tensor_args = ["self"]} : (tensor<2x5xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// An integer sum (i32 -> i64 as PyTorch promotes) accumulates in i64,
// wrapping as PyTorch does.
// CHECK-LABEL: func.func @sum_int
// CHECK: %[[X:.*]] = spyre.cast %arg0 : tensor<4x8xi32> -> tensor<4x8xi64>
// CHECK: %[[S:.*]] = spyre.reduce sum %[[X]] dim 1 : tensor<4x8xi64> -> tensor<4x1xi64>
// CHECK: spyre.reshape %[[S]] : tensor<4x1xi64> -> tensor<4xi64>
func.func @sum_int(%x: tensor<4x8xi32>) -> tensor<4xi64> {
  %0 = spyre.aten "aten.sum.dim_IntList"(%x) {args = {dim = [1], dtype, keepdim = false}, tensor_args = ["self"]} : (tensor<4x8xi32>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// mean: the f32 sum times 1/n (1/64).
// CHECK-LABEL: func.func @mean_last
// CHECK: %[[N:.*]] = spyre.constant dense<1.562500e-02> : tensor<f32>
// CHECK: %[[X:.*]] = spyre.cast %arg0 : tensor<2x5x64xf16> -> tensor<2x5x64xf32>
// CHECK: %[[S:.*]] = spyre.reduce sum %[[X]] dim 2 : tensor<2x5x64xf32> -> tensor<2x5x1xf32>
// CHECK: %[[M:.*]] = spyre.binary mul %[[S]], %[[N]] : tensor<2x5x1xf32>, tensor<f32> -> tensor<2x5x1xf32>
// CHECK: %[[C:.*]] = spyre.cast %[[M]] : tensor<2x5x1xf32> -> tensor<2x5x1xf16>
// CHECK: spyre.reshape %[[C]] : tensor<2x5x1xf16> -> tensor<2x5xf16>
func.func @mean_last(%x: tensor<2x5x64xf16>) -> tensor<2x5xf16> {
  %0 = spyre.aten "aten.mean.dim"(%x) {args = {dim = [-1], dtype, keepdim = false}, tensor_args = ["self"]} : (tensor<2x5x64xf16>) -> tensor<2x5xf16>
  return %0 : tensor<2x5xf16>
}

// -----

// mean along a non-stick dim, keepdim (1/5).
// CHECK-LABEL: func.func @mean_dim1_keepdim
// CHECK: %[[N:.*]] = spyre.constant dense<2.000000e-01> : tensor<f32>
// CHECK: %[[X:.*]] = spyre.cast %arg0
// CHECK: %[[S:.*]] = spyre.reduce sum %[[X]] dim 1 : tensor<2x5x67xf32> -> tensor<2x1x67xf32>
// CHECK: %[[M:.*]] = spyre.binary mul %[[S]], %[[N]]
// CHECK: %[[C:.*]] = spyre.cast %[[M]] : tensor<2x1x67xf32> -> tensor<2x1x67xf16>
// CHECK-NOT: spyre.reshape
// CHECK: return %[[C]]
func.func @mean_dim1_keepdim(%x: tensor<2x5x67xf16>) -> tensor<2x1x67xf16> {
  %0 = spyre.aten "aten.mean.dim"(%x) {args = {dim = [1], dtype, keepdim = true}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> tensor<2x1x67xf16>
  return %0 : tensor<2x1x67xf16>
}

// -----

// mean.default: over all 32 elements.
// CHECK-LABEL: func.func @mean_all
// CHECK: %[[N:.*]] = spyre.constant dense<3.125000e-02> : tensor<f32>
// CHECK: %[[A:.*]] = spyre.reduce sum %arg0 dim 0
// CHECK: %[[B:.*]] = spyre.reduce sum %[[A]] dim 1 : tensor<1x8xf32> -> tensor<1x1xf32>
// CHECK: %[[M:.*]] = spyre.binary mul %[[B]], %[[N]]
// CHECK: spyre.reshape %[[M]] : tensor<1x1xf32> -> tensor<f32>
func.func @mean_all(%x: tensor<4x8xf32>) -> tensor<f32> {
  %0 = spyre.aten "aten.mean.default"(%x) {args = {dtype}, tensor_args = ["self"]} : (tensor<4x8xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// amax along the stick dim: a max reduce in the input dtype (exact).
// CHECK-LABEL: func.func @amax_last
// CHECK-NEXT: %[[M:.*]] = spyre.reduce max %arg0 dim 2 : tensor<2x5x67xf16> -> tensor<2x5x1xf16>
// CHECK-NEXT: %[[R:.*]] = spyre.reshape %[[M]] : tensor<2x5x1xf16> -> tensor<2x5xf16>
// CHECK-NEXT: return %[[R]]
func.func @amax_last(%x: tensor<2x5x67xf16>) -> tensor<2x5xf16> {
  %0 = spyre.aten "aten.amax.default"(%x) {args = {dim = [-1], keepdim = false}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> tensor<2x5xf16>
  return %0 : tensor<2x5xf16>
}

// -----

// CHECK-LABEL: func.func @amax_dim0_keepdim
// CHECK-NEXT: %[[M:.*]] = spyre.reduce max %arg0 dim 0 : tensor<2x5x67xf32> -> tensor<1x5x67xf32>
// CHECK-NEXT: return %[[M]]
func.func @amax_dim0_keepdim(%x: tensor<2x5x67xf32>) -> tensor<1x5x67xf32> {
  %0 = spyre.aten "aten.amax.default"(%x) {args = {dim = [0], keepdim = true}, tensor_args = ["self"]} : (tensor<2x5x67xf32>) -> tensor<1x5x67xf32>
  return %0 : tensor<1x5x67xf32>
}

// -----

// CHECK-LABEL: func.func @amin_dim1
// CHECK-NEXT: %[[M:.*]] = spyre.reduce min %arg0 dim 1 : tensor<2x5x67xf32> -> tensor<2x1x67xf32>
// CHECK-NEXT: %[[R:.*]] = spyre.reshape %[[M]] : tensor<2x1x67xf32> -> tensor<2x67xf32>
// CHECK-NEXT: return %[[R]]
func.func @amin_dim1(%x: tensor<2x5x67xf32>) -> tensor<2x67xf32> {
  %0 = spyre.aten "aten.amin.default"(%x) {args = {dim = [1], keepdim = false}, tensor_args = ["self"]} : (tensor<2x5x67xf32>) -> tensor<2x67xf32>
  return %0 : tensor<2x67xf32>
}

// -----

// max.default: the maximum over every dim.
// CHECK-LABEL: func.func @max_all
// CHECK: %[[A:.*]] = spyre.reduce max %arg0 dim 0 : tensor<4x8xf32> -> tensor<1x8xf32>
// CHECK: %[[B:.*]] = spyre.reduce max %[[A]] dim 1 : tensor<1x8xf32> -> tensor<1x1xf32>
// CHECK: spyre.reshape %[[B]] : tensor<1x1xf32> -> tensor<f32>
func.func @max_all(%x: tensor<4x8xf32>) -> tensor<f32> {
  %0 = spyre.aten "aten.max.default"(%x) {args = {}, tensor_args = ["self"]} : (tensor<4x8xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// max.dim: the values (max) and the indices (argmax, i64) of one dim.
// CHECK-LABEL: func.func @max_dim
// CHECK: %[[V:.*]] = spyre.reduce max %arg0 dim 1 : tensor<7x67xf32> -> tensor<7x1xf32>
// CHECK: %[[VR:.*]] = spyre.reshape %[[V]] : tensor<7x1xf32> -> tensor<7xf32>
// CHECK: %[[I:.*]] = spyre.reduce argmax %arg0 dim 1 : tensor<7x67xf32> -> tensor<7x1xi64>
// CHECK: %[[IR:.*]] = spyre.reshape %[[I]] : tensor<7x1xi64> -> tensor<7xi64>
// CHECK: return %[[VR]], %[[IR]]
func.func @max_dim(%x: tensor<7x67xf32>) -> (tensor<7xf32>, tensor<7xi64>) {
  %0:2 = spyre.aten "aten.max.dim"(%x) {args = {dim = -1 : i64, keepdim = false}, tensor_args = ["self"]} : (tensor<7x67xf32>) -> (tensor<7xf32>, tensor<7xi64>)
  return %0#0, %0#1 : tensor<7xf32>, tensor<7xi64>
}

// -----

// CHECK-LABEL: func.func @max_dim1_keepdim
// CHECK-NEXT: %[[V:.*]] = spyre.reduce max %arg0 dim 1 : tensor<2x5x67xf16> -> tensor<2x1x67xf16>
// CHECK-NEXT: %[[I:.*]] = spyre.reduce argmax %arg0 dim 1 : tensor<2x5x67xf16> -> tensor<2x1x67xi64>
// CHECK-NEXT: return %[[V]], %[[I]]
func.func @max_dim1_keepdim(%x: tensor<2x5x67xf16>) -> (tensor<2x1x67xf16>, tensor<2x1x67xi64>) {
  %0:2 = spyre.aten "aten.max.dim"(%x) {args = {dim = 1 : i64, keepdim = true}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> (tensor<2x1x67xf16>, tensor<2x1x67xi64>)
  return %0#0, %0#1 : tensor<2x1x67xf16>, tensor<2x1x67xi64>
}

// -----

// CHECK-LABEL: func.func @min_dim
// CHECK: spyre.reduce min %arg0 dim 1 : tensor<7x67xf32> -> tensor<7x1xf32>
// CHECK: spyre.reduce argmin %arg0 dim 1 : tensor<7x67xf32> -> tensor<7x1xi64>
func.func @min_dim(%x: tensor<7x67xf32>) -> (tensor<7xf32>, tensor<7xi64>) {
  %0:2 = spyre.aten "aten.min.dim"(%x) {args = {dim = 1 : i64, keepdim = false}, tensor_args = ["self"]} : (tensor<7x67xf32>) -> (tensor<7xf32>, tensor<7xi64>)
  return %0#0, %0#1 : tensor<7xf32>, tensor<7xi64>
}

// -----

// CHECK-LABEL: func.func @argmax_last
// CHECK-NEXT: %[[I:.*]] = spyre.reduce argmax %arg0 dim 2 : tensor<2x5x67xf16> -> tensor<2x5x1xi64>
// CHECK-NEXT: %[[R:.*]] = spyre.reshape %[[I]] : tensor<2x5x1xi64> -> tensor<2x5xi64>
// CHECK-NEXT: return %[[R]]
func.func @argmax_last(%x: tensor<2x5x67xf16>) -> tensor<2x5xi64> {
  %0 = spyre.aten "aten.argmax.default"(%x) {args = {dim = -1 : i64, keepdim = false}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> tensor<2x5xi64>
  return %0 : tensor<2x5xi64>
}

// -----

// CHECK-LABEL: func.func @argmax_dim1_keepdim
// CHECK-NEXT: %[[I:.*]] = spyre.reduce argmax %arg0 dim 1 : tensor<2x5x67xf32> -> tensor<2x1x67xi64>
// CHECK-NEXT: return %[[I]]
func.func @argmax_dim1_keepdim(%x: tensor<2x5x67xf32>) -> tensor<2x1x67xi64> {
  %0 = spyre.aten "aten.argmax.default"(%x) {args = {dim = 1 : i64, keepdim = true}, tensor_args = ["self"]} : (tensor<2x5x67xf32>) -> tensor<2x1x67xi64>
  return %0 : tensor<2x1x67xi64>
}

// -----

// argmax with dim None: over the flattened tensor.
// CHECK-LABEL: func.func @argmax_flat
// CHECK: %[[F:.*]] = spyre.reshape %arg0 : tensor<2x5xf32> -> tensor<10xf32>
// CHECK: %[[I:.*]] = spyre.reduce argmax %[[F]] dim 0 : tensor<10xf32> -> tensor<1xi64>
// CHECK: spyre.reshape %[[I]] : tensor<1xi64> -> tensor<i64>
func.func @argmax_flat(%x: tensor<2x5xf32>) -> tensor<i64> {
  %0 = spyre.aten "aten.argmax.default"(%x) {args = {dim, keepdim = false}, tensor_args = ["self"]} : (tensor<2x5xf32>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

// CHECK-LABEL: func.func @argmin
// CHECK: %[[I:.*]] = spyre.reduce argmin %arg0 dim 0 : tensor<2x5xf32> -> tensor<1x5xi64>
// CHECK: spyre.reshape %[[I]] : tensor<1x5xi64> -> tensor<5xi64>
func.func @argmin(%x: tensor<2x5xf32>) -> tensor<5xi64> {
  %0 = spyre.aten "aten.argmin.default"(%x) {args = {dim = 0 : i64, keepdim = false}, tensor_args = ["self"]} : (tensor<2x5xf32>) -> tensor<5xi64>
  return %0 : tensor<5xi64>
}

// -----

// var (correction 0): two passes in f32, sum((x - mean)^2) / (n - 0):
// mean = sum(x) / n, centered = x - mean, squared by a multiply.
// CHECK-LABEL: func.func @var_last
// CHECK: %[[N:.*]] = spyre.constant dense<1.562500e-02> : tensor<f32>
// CHECK: %[[X:.*]] = spyre.cast %arg0 : tensor<2x5x64xf16> -> tensor<2x5x64xf32>
// CHECK: %[[S:.*]] = spyre.reduce sum %[[X]] dim 2 : tensor<2x5x64xf32> -> tensor<2x5x1xf32>
// CHECK: %[[MEAN:.*]] = spyre.binary mul %[[S]], %[[N]]
// CHECK: %[[C:.*]] = spyre.binary sub %[[X]], %[[MEAN]] : tensor<2x5x64xf32>, tensor<2x5x1xf32> -> tensor<2x5x64xf32>
// CHECK: %[[SQ:.*]] = spyre.binary mul %[[C]], %[[C]]
// CHECK: %[[SS:.*]] = spyre.reduce sum %[[SQ]] dim 2 : tensor<2x5x64xf32> -> tensor<2x5x1xf32>
// CHECK: %[[R:.*]] = spyre.reshape %[[SS]] : tensor<2x5x1xf32> -> tensor<2x5xf32>
// CHECK: %[[V:.*]] = spyre.binary mul %[[R]], %[[N]]
// CHECK: %[[OUT:.*]] = spyre.cast %[[V]] : tensor<2x5xf32> -> tensor<2x5xf16>
// CHECK: return %[[OUT]]
func.func @var_last(%x: tensor<2x5x64xf16>) -> tensor<2x5xf16> {
  %0 = spyre.aten "aten.var.correction"(%x) {args = {correction = 0 : i64, dim = [-1], keepdim = false}, tensor_args = ["self"]} : (tensor<2x5x64xf16>) -> tensor<2x5xf16>
  return %0 : tensor<2x5xf16>
}

// -----

// var.dim with unbiased = True along dim 0: divides by n - 1 = 3.
// CHECK-LABEL: func.func @var_unbiased
// CHECK-DAG: %[[DENOM:.*]] = spyre.constant dense<0.333333343> : tensor<f32>
// CHECK-DAG: %[[N:.*]] = spyre.constant dense<2.500000e-01> : tensor<f32>
// CHECK: %[[S:.*]] = spyre.reduce sum %arg0 dim 0 : tensor<4x5xf32> -> tensor<1x5xf32>
// CHECK: %[[MEAN:.*]] = spyre.binary mul %[[S]], %[[N]]
// CHECK: %[[C:.*]] = spyre.binary sub %arg0, %[[MEAN]]
// CHECK: %[[SQ:.*]] = spyre.binary mul %[[C]], %[[C]]
// CHECK: %[[SS:.*]] = spyre.reduce sum %[[SQ]] dim 0
// CHECK: %[[R:.*]] = spyre.reshape %[[SS]] : tensor<1x5xf32> -> tensor<5xf32>
// CHECK: spyre.binary mul %[[R]], %[[DENOM]]
func.func @var_unbiased(%x: tensor<4x5xf32>) -> tensor<5xf32> {
  %0 = spyre.aten "aten.var.dim"(%x) {args = {dim = [0], unbiased = true, keepdim = false}, tensor_args = ["self"]} : (tensor<4x5xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// var_mean: the variance and the mean it was centered with, keepdim.
// CHECK-LABEL: func.func @var_mean_keepdim
// CHECK: %[[N:.*]] = spyre.constant dense<1.562500e-02> : tensor<f32>
// CHECK: %[[X:.*]] = spyre.cast %arg0
// CHECK: %[[S:.*]] = spyre.reduce sum %[[X]] dim 2
// CHECK: %[[MEAN:.*]] = spyre.binary mul %[[S]], %[[N]]
// CHECK: %[[C:.*]] = spyre.binary sub %[[X]], %[[MEAN]]
// CHECK: %[[SQ:.*]] = spyre.binary mul %[[C]], %[[C]]
// CHECK: %[[SS:.*]] = spyre.reduce sum %[[SQ]] dim 2 : tensor<2x5x64xf32> -> tensor<2x5x1xf32>
// CHECK: %[[V:.*]] = spyre.binary mul %[[SS]], %[[N]]
// CHECK: %[[VOUT:.*]] = spyre.cast %[[V]] : tensor<2x5x1xf32> -> tensor<2x5x1xf16>
// CHECK: %[[MOUT:.*]] = spyre.cast %[[MEAN]] : tensor<2x5x1xf32> -> tensor<2x5x1xf16>
// CHECK: return %[[VOUT]], %[[MOUT]]
func.func @var_mean_keepdim(%x: tensor<2x5x64xf16>) -> (tensor<2x5x1xf16>, tensor<2x5x1xf16>) {
  %0:2 = spyre.aten "aten.var_mean.correction"(%x) {args = {correction = 0 : i64, dim = [-1], keepdim = true}, tensor_args = ["self"]} : (tensor<2x5x64xf16>) -> (tensor<2x5x1xf16>, tensor<2x5x1xf16>)
  return %0#0, %0#1 : tensor<2x5x1xf16>, tensor<2x5x1xf16>
}

// -----

// var_mean with every argument defaulted: all dims, correction 1 (1/31).
// CHECK-LABEL: func.func @var_mean_default
// CHECK-DAG: %[[DENOM:.*]] = spyre.constant dense<0.0322580636> : tensor<f32>
// CHECK-DAG: %[[N:.*]] = spyre.constant dense<3.125000e-02> : tensor<f32>
// CHECK: %[[A:.*]] = spyre.reduce sum %arg0 dim 0
// CHECK: %[[B:.*]] = spyre.reduce sum %[[A]] dim 1 : tensor<1x8xf32> -> tensor<1x1xf32>
// CHECK: %[[MEAN:.*]] = spyre.binary mul %[[B]], %[[N]]
// CHECK: %[[C:.*]] = spyre.binary sub %arg0, %[[MEAN]] : tensor<4x8xf32>, tensor<1x1xf32> -> tensor<4x8xf32>
// CHECK: %[[SQ:.*]] = spyre.binary mul %[[C]], %[[C]]
// CHECK: %[[SA:.*]] = spyre.reduce sum %[[SQ]] dim 0
// CHECK: %[[SB:.*]] = spyre.reduce sum %[[SA]] dim 1
// CHECK: %[[R:.*]] = spyre.reshape %[[SB]] : tensor<1x1xf32> -> tensor<f32>
// CHECK: %[[V:.*]] = spyre.binary mul %[[R]], %[[DENOM]]
// CHECK: %[[M:.*]] = spyre.reshape %[[MEAN]] : tensor<1x1xf32> -> tensor<f32>
// CHECK: return %[[V]], %[[M]]
func.func @var_mean_default(%x: tensor<4x8xf32>) -> (tensor<f32>, tensor<f32>) {
  %0:2 = spyre.aten "aten.var_mean.correction"(%x) {args = {}, tensor_args = ["self"]} : (tensor<4x8xf32>) -> (tensor<f32>, tensor<f32>)
  return %0#0, %0#1 : tensor<f32>, tensor<f32>
}

// -----

// softmax subtracts the max before exp (no overflow), divides by the sum;
// f16 computes in f32 and rounds once.
// CHECK-LABEL: func.func @softmax_last
// CHECK: %[[X:.*]] = spyre.cast %arg0 : tensor<2x5x67xf16> -> tensor<2x5x67xf32>
// CHECK: %[[MAX:.*]] = spyre.reduce max %[[X]] dim 2 : tensor<2x5x67xf32> -> tensor<2x5x1xf32>
// CHECK: %[[SH:.*]] = spyre.binary sub %[[X]], %[[MAX]] : tensor<2x5x67xf32>, tensor<2x5x1xf32> -> tensor<2x5x67xf32>
// CHECK: %[[E:.*]] = spyre.unary exp %[[SH]]
// CHECK: %[[SUM:.*]] = spyre.reduce sum %[[E]] dim 2 : tensor<2x5x67xf32> -> tensor<2x5x1xf32>
// CHECK: %[[P:.*]] = spyre.binary div %[[E]], %[[SUM]] : tensor<2x5x67xf32>, tensor<2x5x1xf32> -> tensor<2x5x67xf32>
// CHECK: %[[OUT:.*]] = spyre.cast %[[P]] : tensor<2x5x67xf32> -> tensor<2x5x67xf16>
// CHECK: return %[[OUT]]
func.func @softmax_last(%x: tensor<2x5x67xf16>) -> tensor<2x5x67xf16> {
  %0 = spyre.aten "aten._softmax.default"(%x) {args = {dim = -1 : i64, half_to_float = false}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> tensor<2x5x67xf16>
  return %0 : tensor<2x5x67xf16>
}

// -----

// softmax.int along dim 0 (not the stick dim), f32: no casts.
// CHECK-LABEL: func.func @softmax_dim0
// CHECK-NOT: spyre.cast
// CHECK: %[[MAX:.*]] = spyre.reduce max %arg0 dim 0 : tensor<2x5x67xf32> -> tensor<1x5x67xf32>
// CHECK: %[[SH:.*]] = spyre.binary sub %arg0, %[[MAX]]
// CHECK: %[[E:.*]] = spyre.unary exp %[[SH]]
// CHECK: %[[SUM:.*]] = spyre.reduce sum %[[E]] dim 0 : tensor<2x5x67xf32> -> tensor<1x5x67xf32>
// CHECK: %[[P:.*]] = spyre.binary div %[[E]], %[[SUM]]
// CHECK: return %[[P]]
func.func @softmax_dim0(%x: tensor<2x5x67xf32>) -> tensor<2x5x67xf32> {
  %0 = spyre.aten "aten.softmax.int"(%x) {args = {dim = 0 : i64, dtype}, tensor_args = ["self"]} : (tensor<2x5x67xf32>) -> tensor<2x5x67xf32>
  return %0 : tensor<2x5x67xf32>
}

// -----

// log_softmax: (x - max) - log(sum(exp(x - max))).
// CHECK-LABEL: func.func @log_softmax
// CHECK: %[[MAX:.*]] = spyre.reduce max %arg0 dim 2
// CHECK: %[[SH:.*]] = spyre.binary sub %arg0, %[[MAX]]
// CHECK: %[[E:.*]] = spyre.unary exp %[[SH]]
// CHECK: %[[SUM:.*]] = spyre.reduce sum %[[E]] dim 2
// CHECK: %[[LOG:.*]] = spyre.unary log %[[SUM]] : tensor<2x5x1xf32> -> tensor<2x5x1xf32>
// CHECK: %[[R:.*]] = spyre.binary sub %[[SH]], %[[LOG]] : tensor<2x5x67xf32>, tensor<2x5x1xf32> -> tensor<2x5x67xf32>
// CHECK: return %[[R]]
func.func @log_softmax(%x: tensor<2x5x67xf32>) -> tensor<2x5x67xf32> {
  %0 = spyre.aten "aten._log_softmax.default"(%x) {args = {dim = -1 : i64, half_to_float = false}, tensor_args = ["self"]} : (tensor<2x5x67xf32>) -> tensor<2x5x67xf32>
  return %0 : tensor<2x5x67xf32>
}

// -----

// log_softmax.int of f16 along dim 1, in f32.
// CHECK-LABEL: func.func @log_softmax_dim1_f16
// CHECK: %[[X:.*]] = spyre.cast %arg0 : tensor<2x5x67xf16> -> tensor<2x5x67xf32>
// CHECK: %[[MAX:.*]] = spyre.reduce max %[[X]] dim 1 : tensor<2x5x67xf32> -> tensor<2x1x67xf32>
// CHECK: %[[SH:.*]] = spyre.binary sub %[[X]], %[[MAX]]
// CHECK: %[[E:.*]] = spyre.unary exp %[[SH]]
// CHECK: %[[SUM:.*]] = spyre.reduce sum %[[E]] dim 1
// CHECK: %[[LOG:.*]] = spyre.unary log %[[SUM]]
// CHECK: %[[R:.*]] = spyre.binary sub %[[SH]], %[[LOG]]
// CHECK: spyre.cast %[[R]] : tensor<2x5x67xf32> -> tensor<2x5x67xf16>
func.func @log_softmax_dim1_f16(%x: tensor<2x5x67xf16>) -> tensor<2x5x67xf16> {
  %0 = spyre.aten "aten.log_softmax.int"(%x) {args = {dim = 1 : i64, dtype}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> tensor<2x5x67xf16>
  return %0 : tensor<2x5x67xf16>
}

// -----

// _safe_softmax: as softmax, and a row whose max is -inf (fully masked)
// gives 0 instead of NaN: one compare of the row maxima and a select.
// CHECK-LABEL: func.func @safe_softmax
// CHECK-DAG: %[[ZERO:.*]] = spyre.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG: %[[NINF:.*]] = spyre.constant dense<0xFF800000> : tensor<f32>
// CHECK: %[[MAX:.*]] = spyre.reduce max %arg0 dim 1 : tensor<4x9xf32> -> tensor<4x1xf32>
// CHECK: %[[SH:.*]] = spyre.binary sub %arg0, %[[MAX]]
// CHECK: %[[E:.*]] = spyre.unary exp %[[SH]]
// CHECK: %[[SUM:.*]] = spyre.reduce sum %[[E]] dim 1
// CHECK: %[[P:.*]] = spyre.binary div %[[E]], %[[SUM]]
// CHECK: %[[DEAD:.*]] = spyre.compare eq %[[MAX]], %[[NINF]] : tensor<4x1xf32>, tensor<f32> -> tensor<4x1xi1>
// CHECK: %[[R:.*]] = spyre.select %[[DEAD]], %[[ZERO]], %[[P]] : tensor<4x1xi1>, tensor<f32>, tensor<4x9xf32> -> tensor<4x9xf32>
// CHECK: return %[[R]]
func.func @safe_softmax(%x: tensor<4x9xf32>) -> tensor<4x9xf32> {
  %0 = spyre.aten "aten._safe_softmax.default"(%x) {args = {dim = -1 : i64, dtype}, tensor_args = ["self"]} : (tensor<4x9xf32>) -> tensor<4x9xf32>
  return %0 : tensor<4x9xf32>
}

// -----

// No degrees of freedom (n = 1, correction = 1): PyTorch divides by
// max(0, n - correction) = 0, so the sum is scaled by +inf (inf for a
// positive sum, NaN for 0/0), not by NaN.
// CHECK-LABEL: func.func @var_no_dof
// CHECK: %[[INF:.*]] = spyre.constant dense<0x7F800000> : tensor<f32>
// CHECK: %[[MEAN:.*]] = spyre.reduce sum %arg0 dim 1
// CHECK: %[[C:.*]] = spyre.binary sub %arg0, %[[MEAN]]
// CHECK: %[[SQ:.*]] = spyre.binary mul %[[C]], %[[C]]
// CHECK: %[[SUM:.*]] = spyre.reduce sum %[[SQ]] dim 1
// CHECK: %[[R:.*]] = spyre.reshape %[[SUM]]
// CHECK: spyre.binary mul %[[R]], %[[INF]]
func.func @var_no_dof(%x: tensor<4x1xf32>) -> tensor<4xf32> {
  %0 = spyre.aten "aten.var.correction"(%x) {args = {dim = [1], correction = 1 : i64, keepdim = false}, tensor_args = ["self"]} : (tensor<4x1xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// topk (largest, k = 2): max and argmax, the taken element masked with
// -inf through a one-hot select (the index narrowed to the i32 iota's
// type), max and argmax again; values and indices concatenated along the
// dim.
// CHECK-LABEL: func.func @topk
// CHECK-DAG: %[[IOTA:.*]] = spyre.constant dense<{{\[\[}}0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]]> : tensor<1x16xi32>
// CHECK-DAG: %[[NINF:.*]] = spyre.constant dense<0xFF800000> : tensor<f32>
// CHECK: %[[V0:.*]] = spyre.reduce max %arg0 dim 1 : tensor<9x16xf32> -> tensor<9x1xf32>
// CHECK: %[[I0:.*]] = spyre.reduce argmax %arg0 dim 1 : tensor<9x16xf32> -> tensor<9x1xi64>
// CHECK: %[[N0:.*]] = spyre.cast %[[I0]] : tensor<9x1xi64> -> tensor<9x1xi32>
// CHECK: %[[T:.*]] = spyre.compare eq %[[IOTA]], %[[N0]] : tensor<1x16xi32>, tensor<9x1xi32> -> tensor<9x16xi1>
// CHECK: %[[REST:.*]] = spyre.select %[[T]], %[[NINF]], %arg0
// CHECK: %[[V1:.*]] = spyre.reduce max %[[REST]] dim 1
// CHECK: %[[I1:.*]] = spyre.reduce argmax %[[REST]] dim 1
// CHECK: %[[V:.*]] = spyre.concat %[[V0]], %[[V1]] dim 1 : tensor<9x1xf32>, tensor<9x1xf32> -> tensor<9x2xf32>
// CHECK: %[[I:.*]] = spyre.concat %[[I0]], %[[I1]] dim 1 : tensor<9x1xi64>, tensor<9x1xi64> -> tensor<9x2xi64>
// CHECK: return %[[V]], %[[I]]
func.func @topk(%x: tensor<9x16xf32>) -> (tensor<9x2xf32>, tensor<9x2xi64>) {
  %0:2 = spyre.aten "aten.topk.default"(%x) {args = {k = 2 : i64}, tensor_args = ["self"]} : (tensor<9x16xf32>) -> (tensor<9x2xf32>, tensor<9x2xi64>)
  return %0#0, %0#1 : tensor<9x2xf32>, tensor<9x2xi64>
}

// -----

// topk smallest on int32 along dim 0: min / argmin, masked with INT32_MAX;
// k = 1 needs no mask and no concatenation.
// CHECK-LABEL: func.func @topk_smallest_int
// CHECK-NOT: spyre.select
// CHECK: %[[V:.*]] = spyre.reduce min %arg0 dim 0 : tensor<5x8xi32> -> tensor<1x8xi32>
// CHECK: %[[I:.*]] = spyre.reduce argmin %arg0 dim 0 : tensor<5x8xi32> -> tensor<1x8xi64>
// CHECK-NOT: spyre.concat
// CHECK: return %[[V]], %[[I]]
func.func @topk_smallest_int(%x: tensor<5x8xi32>) -> (tensor<1x8xi32>, tensor<1x8xi64>) {
  %0:2 = spyre.aten "aten.topk.default"(%x) {args = {k = 1 : i64, dim = 0 : i64, largest = false}, tensor_args = ["self"]} : (tensor<5x8xi32>) -> (tensor<1x8xi32>, tensor<1x8xi64>)
  return %0#0, %0#1 : tensor<1x8xi32>, tensor<1x8xi64>
}

// -----

// topk smallest with k = 2 on int32: the mask value is INT32_MAX.
// CHECK-LABEL: func.func @topk_smallest_mask
// CHECK: spyre.constant dense<2147483647> : tensor<i32>
func.func @topk_smallest_mask(%x: tensor<5x8xi32>) -> (tensor<5x2xi32>, tensor<5x2xi64>) {
  %0:2 = spyre.aten "aten.topk.default"(%x) {args = {k = 2 : i64, largest = false}, tensor_args = ["self"]} : (tensor<5x8xi32>) -> (tensor<5x2xi32>, tensor<5x2xi64>)
  return %0#0, %0#1 : tensor<5x2xi32>, tensor<5x2xi64>
}

// -----

// cumsum along the last dim: x (in f32) @ U, U the upper triangle of ones
// from two iotas (folded to a constant at this size).
// CHECK-LABEL: func.func @cumsum
// CHECK-DAG: %[[U:.*]] = spyre.constant dense<{{\[\[}}1.000000e+00, 1.000000e+00, 1.000000e+00], [0.000000e+00, 1.000000e+00, 1.000000e+00], [0.000000e+00, 0.000000e+00, 1.000000e+00]]> : tensor<3x3xf32>
// CHECK-DAG: %[[X:.*]] = spyre.cast %arg0 : tensor<2x3xi64> -> tensor<2x3xf32>
// CHECK: %[[S:.*]] = spyre.matmul %[[X]], %[[U]] : tensor<2x3xf32>, tensor<3x3xf32> -> tensor<2x3xf32>
// CHECK: %[[R:.*]] = spyre.cast %[[S]] : tensor<2x3xf32> -> tensor<2x3xi64>
// CHECK: return %[[R]]
func.func @cumsum(%x: tensor<2x3xi64>) -> tensor<2x3xi64> {
  %0 = spyre.aten "aten.cumsum.default"(%x) {args = {dim = -1 : i64}, tensor_args = ["self"]} : (tensor<2x3xi64>) -> tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}

// -----

// cumsum along dim 0: the scanned dim moves last and back (the transposes
// fold into the matmul and its result).
// CHECK-LABEL: func.func @cumsum_dim0
// CHECK: spyre.matmul %{{.*}}, %{{.*}} {transpose_lhs} : tensor<5x3xf32>, tensor<5x5xf32> -> tensor<3x5xf32>
// CHECK: spyre.transpose %{{.*}} [1, 0] : tensor<3x5xf32> -> tensor<5x3xf32>
func.func @cumsum_dim0(%x: tensor<5x3xf16>) -> tensor<5x3xf32> {
  %0 = spyre.aten "aten.cumsum.default"(%x) {args = {dim = 0 : i64, dtype = "f32"}, tensor_args = ["self"]} : (tensor<5x3xf16>) -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}

// -----

// prod: one spyre.reduce prod, f16 multiplied in f32 and rounded once.
// CHECK-LABEL: func.func @prod
// CHECK: %[[X:.*]] = spyre.cast %arg0 : tensor<4x5xf16> -> tensor<4x5xf32>
// CHECK: %[[P:.*]] = spyre.reduce prod %[[X]] dim 1 : tensor<4x5xf32> -> tensor<4x1xf32>
// CHECK: spyre.cast %[[P]] : tensor<4x1xf32> -> tensor<4x1xf16>
func.func @prod(%x: tensor<4x5xf16>) -> tensor<4xf16> {
  %0 = spyre.aten "aten.prod.dim_int"(%x) {args = {dim = 1 : i64, keepdim = false, dtype}, tensor_args = ["self"]} : (tensor<4x5xf16>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// all / any: the count of zeros (all) or non-zeros (any) compared with 0,
// so that an empty dim gives true / false.
// CHECK-LABEL: func.func @all_any
// CHECK: %[[Z:.*]] = spyre.compare eq %arg0, %{{.*}} : tensor<4x5xf32>, tensor<f32> -> tensor<4x5xi1>
// CHECK: %[[ZC:.*]] = spyre.cast %[[Z]] : tensor<4x5xi1> -> tensor<4x5xi32>
// CHECK: %[[ZS:.*]] = spyre.reduce sum %[[ZC]] dim 0 : tensor<4x5xi32> -> tensor<1x5xi32>
// CHECK: spyre.compare eq %[[ZS]], %{{.*}} : tensor<1x5xi32>, tensor<i32> -> tensor<1x5xi1>
// CHECK: spyre.compare ne %arg0, %{{.*}} : tensor<4x5xf32>, tensor<f32> -> tensor<4x5xi1>
// CHECK: %[[S1:.*]] = spyre.reduce sum %{{.*}} dim 1 : tensor<1x5xi32> -> tensor<1x1xi32>
// CHECK: spyre.compare ne %[[S1]], %{{.*}} : tensor<1x1xi32>, tensor<i32> -> tensor<1x1xi1>
func.func @all_any(%x: tensor<4x5xf32>) -> (tensor<5xi1>, tensor<i1>) {
  %0 = spyre.aten "aten.all.dim"(%x) {args = {dim = 0 : i64, keepdim = false}, tensor_args = ["self"]} : (tensor<4x5xf32>) -> tensor<5xi1>
  %1 = spyre.aten "aten.any.default"(%x) {args = {}, tensor_args = ["self"]} : (tensor<4x5xf32>) -> tensor<i1>
  return %0, %1 : tensor<5xi1>, tensor<i1>
}

// -----

// sort (descending): element i's rank counts the elements j of its line
// that are greater, or equal at a lower index (stable); a one-hot of the
// ranks picks values and indices with sums of one non-zero term.
// CHECK-LABEL: func.func @sort
// CHECK: %[[XI:.*]] = spyre.reshape %arg0 : tensor<3x6xf32> -> tensor<3x1x6xf32>
// CHECK: %[[XJ:.*]] = spyre.reshape %arg0 : tensor<3x6xf32> -> tensor<3x6x1xf32>
// CHECK: %[[GT:.*]] = spyre.compare gt %[[XJ]], %[[XI]] : tensor<3x6x1xf32>, tensor<3x1x6xf32> -> tensor<3x6x6xi1>
// CHECK: %[[EQ:.*]] = spyre.compare eq %[[XJ]], %[[XI]]
// CHECK: %[[TIE:.*]] = spyre.binary and %[[EQ]], %{{.*}} : tensor<3x6x6xi1>, tensor<1x6x6xi1> -> tensor<3x6x6xi1>
// CHECK: %[[AHEAD:.*]] = spyre.binary or %[[GT]], %[[TIE]]
// CHECK: %[[RANK:.*]] = spyre.reduce sum %{{.*}} dim 1 : tensor<3x6x6xi32> -> tensor<3x1x6xi32>
// CHECK: %[[AT:.*]] = spyre.compare eq %[[RANK]], %{{.*}} : tensor<3x1x6xi32>, tensor<1x6x1xi32> -> tensor<3x6x6xi1>
// CHECK: spyre.select %[[AT]], %[[XI]], %{{.*}} : tensor<3x6x6xi1>, tensor<3x1x6xf32>, tensor<f32> -> tensor<3x6x6xf32>
// CHECK: spyre.reduce sum %{{.*}} dim 2 : tensor<3x6x6xf32> -> tensor<3x6x1xf32>
// CHECK: spyre.select %[[AT]], %{{.*}}, %{{.*}} : tensor<3x6x6xi1>, tensor<1x1x6xi64>, tensor<i64> -> tensor<3x6x6xi64>
func.func @sort(%x: tensor<3x6xf32>) -> (tensor<3x6xf32>, tensor<3x6xi64>) {
  %0:2 = spyre.aten "aten.sort.default"(%x) {args = {dim = -1 : i64, descending = true}, tensor_args = ["self"]} : (tensor<3x6xf32>) -> (tensor<3x6xf32>, tensor<3x6xi64>)
  return %0#0, %0#1 : tensor<3x6xf32>, tensor<3x6xi64>
}
