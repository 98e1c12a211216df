// RUN: spyre-opt %s --spyre-decompose --split-input-file | FileCheck %s

// The normalization family (lib/Transforms/Decompositions/
// Normalization.cpp): reductions over the normalized dims plus elementwise
// ops, in f32 for f16/bf16 inputs.

// native_layer_norm over the last dim: mean, centered, variance as the mean
// of squares of the centered values, rsqrt(var + eps), then the affine.
// Also returns the mean and rstd (kept dims).
// CHECK-LABEL: func.func @native_layer_norm
// CHECK-DAG: %[[EPS:.*]] = spyre.constant dense<9.99999974E-6> : tensor<f32>
// CHECK-DAG: %[[N:.*]] = spyre.constant dense<0.0140845068> : tensor<f32>
// CHECK: %[[S:.*]] = spyre.reduce sum %arg0 dim 2 : tensor<2x5x71xf32> -> tensor<2x5x1xf32>
// CHECK: %[[MEAN:.*]] = spyre.binary mul %[[S]], %[[N]]
// CHECK: %[[C:.*]] = spyre.binary sub %arg0, %[[MEAN]] : tensor<2x5x71xf32>, tensor<2x5x1xf32> -> tensor<2x5x71xf32>
// CHECK: %[[SQ:.*]] = spyre.binary mul %[[C]], %[[C]]
// CHECK: %[[SS:.*]] = spyre.reduce sum %[[SQ]] dim 2
// CHECK: %[[VAR:.*]] = spyre.binary mul %[[SS]], %[[N]]
// CHECK: %[[VE:.*]] = spyre.binary add %[[VAR]], %[[EPS]]
// CHECK: %[[RSTD:.*]] = spyre.unary rsqrt %[[VE]] : tensor<2x5x1xf32> -> tensor<2x5x1xf32>
// CHECK: %[[Y:.*]] = spyre.binary mul %[[C]], %[[RSTD]]
// CHECK: %[[YW:.*]] = spyre.binary mul %[[Y]], %arg1 : tensor<2x5x71xf32>, tensor<71xf32> -> tensor<2x5x71xf32>
// CHECK: %[[YB:.*]] = spyre.binary add %[[YW]], %arg2 : tensor<2x5x71xf32>, tensor<71xf32> -> tensor<2x5x71xf32>
// CHECK: return %[[YB]], %[[MEAN]], %[[RSTD]]
func.func @native_layer_norm(%x: tensor<2x5x71xf32>, %w: tensor<71xf32>, %b: tensor<71xf32>) -> (tensor<2x5x71xf32>, tensor<2x5x1xf32>, tensor<2x5x1xf32>) {
  %0:3 = spyre.aten "aten.native_layer_norm.default"(%x, %w, %b) {args = {eps = 1.000000e-05 : f64, normalized_shape = [71]}, tensor_args = ["input", "weight", "bias"]} : (tensor<2x5x71xf32>, tensor<71xf32>, tensor<71xf32>) -> (tensor<2x5x71xf32>, tensor<2x5x1xf32>, tensor<2x5x1xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x5x71xf32>, tensor<2x5x1xf32>, tensor<2x5x1xf32>
}

// -----

// layer_norm of f16: everything in f32 (weight and bias too), one rounding
// at the end.
// CHECK-LABEL: func.func @layer_norm_f16
// CHECK: %[[X:.*]] = spyre.cast %arg0 : tensor<4x64xf16> -> tensor<4x64xf32>
// CHECK: spyre.reduce sum %[[X]] dim 1 : tensor<4x64xf32> -> tensor<4x1xf32>
// CHECK: spyre.unary rsqrt
// CHECK: %[[W:.*]] = spyre.cast %arg1 : tensor<64xf16> -> tensor<64xf32>
// CHECK: %[[YW:.*]] = spyre.binary mul %{{.*}}, %[[W]]
// CHECK: %[[B:.*]] = spyre.cast %arg2 : tensor<64xf16> -> tensor<64xf32>
// CHECK: %[[YB:.*]] = spyre.binary add %[[YW]], %[[B]]
// CHECK: %[[OUT:.*]] = spyre.cast %[[YB]] : tensor<4x64xf32> -> tensor<4x64xf16>
// CHECK: return %[[OUT]]
func.func @layer_norm_f16(%x: tensor<4x64xf16>, %w: tensor<64xf16>, %b: tensor<64xf16>) -> tensor<4x64xf16> {
  %0 = spyre.aten "aten.layer_norm.default"(%x, %w, %b) {args = {cudnn_enable = true, eps = 1.000000e-05 : f64, normalized_shape = [64]}, tensor_args = ["input", "weight", "bias"]} : (tensor<4x64xf16>, tensor<64xf16>, tensor<64xf16>) -> tensor<4x64xf16>
  return %0 : tensor<4x64xf16>
}

// -----

// normalized_shape of two dims: the statistics reduce both trailing dims
// (1/335); no weight or bias: no affine ops.
// CHECK-LABEL: func.func @layer_norm_2d_noaffine
// CHECK-DAG: %[[EPS:.*]] = spyre.constant dense<9.99999997E-7> : tensor<f32>
// CHECK-DAG: %[[N:.*]] = spyre.constant dense<0.00298507465> : tensor<f32>
// CHECK: %[[S1:.*]] = spyre.reduce sum %arg0 dim 1 : tensor<2x5x67xf32> -> tensor<2x1x67xf32>
// CHECK: %[[S2:.*]] = spyre.reduce sum %[[S1]] dim 2 : tensor<2x1x67xf32> -> tensor<2x1x1xf32>
// CHECK: %[[MEAN:.*]] = spyre.binary mul %[[S2]], %[[N]]
// CHECK: %[[C:.*]] = spyre.binary sub %arg0, %[[MEAN]]
// CHECK: %[[SQ:.*]] = spyre.binary mul %[[C]], %[[C]]
// CHECK: %[[V1:.*]] = spyre.reduce sum %[[SQ]] dim 1
// CHECK: %[[V2:.*]] = spyre.reduce sum %[[V1]] dim 2
// CHECK: %[[VAR:.*]] = spyre.binary mul %[[V2]], %[[N]]
// CHECK: %[[VE:.*]] = spyre.binary add %[[VAR]], %[[EPS]]
// CHECK: %[[RSTD:.*]] = spyre.unary rsqrt %[[VE]]
// CHECK: %[[Y:.*]] = spyre.binary mul %[[C]], %[[RSTD]]
// CHECK-NEXT: return %[[Y]]
func.func @layer_norm_2d_noaffine(%x: tensor<2x5x67xf32>) -> tensor<2x5x67xf32> {
  %0 = spyre.aten "aten.layer_norm.default"(%x) {args = {bias, cudnn_enable = true, eps = 9.9999999999999995E-7 : f64, normalized_shape = [5, 67], weight}, tensor_args = ["input"]} : (tensor<2x5x67xf32>) -> tensor<2x5x67xf32>
  return %0 : tensor<2x5x67xf32>
}

// -----

// rms_norm (adapter: the square is x * x, one SFP multiply, not a pow):
// x * rsqrt(mean(x * x) + eps) * w, in f32 for f16.
// CHECK-LABEL: func.func @rms_norm
// CHECK-DAG: %[[EPS:.*]] = spyre.constant dense<9.99999997E-7> : tensor<f32>
// CHECK-DAG: %[[N:.*]] = spyre.constant dense<1.562500e-02> : tensor<f32>
// CHECK: %[[X:.*]] = spyre.cast %arg0 : tensor<2x5x64xf16> -> tensor<2x5x64xf32>
// CHECK: %[[SQ:.*]] = spyre.binary mul %[[X]], %[[X]] : tensor<2x5x64xf32>, tensor<2x5x64xf32> -> tensor<2x5x64xf32>
// CHECK: %[[S:.*]] = spyre.reduce sum %[[SQ]] dim 2 : tensor<2x5x64xf32> -> tensor<2x5x1xf32>
// CHECK: %[[MS:.*]] = spyre.binary mul %[[S]], %[[N]]
// CHECK: %[[MSE:.*]] = spyre.binary add %[[MS]], %[[EPS]]
// CHECK: %[[R:.*]] = spyre.unary rsqrt %[[MSE]]
// CHECK: %[[Y:.*]] = spyre.binary mul %[[X]], %[[R]] : tensor<2x5x64xf32>, tensor<2x5x1xf32> -> tensor<2x5x64xf32>
// CHECK: %[[W:.*]] = spyre.cast %arg1 : tensor<64xf16> -> tensor<64xf32>
// CHECK: %[[YW:.*]] = spyre.binary mul %[[Y]], %[[W]]
// CHECK: %[[OUT:.*]] = spyre.cast %[[YW]] : tensor<2x5x64xf32> -> tensor<2x5x64xf16>
// CHECK: return %[[OUT]]
func.func @rms_norm(%x: tensor<2x5x64xf16>, %w: tensor<64xf16>) -> tensor<2x5x64xf16> {
  %0 = spyre.aten "aten.rms_norm.default"(%x, %w) {args = {eps = 9.9999999999999995E-7 : f64, normalized_shape = [64]}, tensor_args = ["input", "weight"]} : (tensor<2x5x64xf16>, tensor<64xf16>) -> tensor<2x5x64xf16>
  return %0 : tensor<2x5x64xf16>
}

// -----

// rms_norm without weight and eps None: eps is f32's machine epsilon.
// CHECK-LABEL: func.func @rms_norm_noweight
// CHECK-DAG: %[[EPS:.*]] = spyre.constant dense<1.1920929E-7> : tensor<f32>
// CHECK-DAG: %[[N:.*]] = spyre.constant dense<0.0140845068> : tensor<f32>
// CHECK: %[[SQ:.*]] = spyre.binary mul %arg0, %arg0
// CHECK: %[[S:.*]] = spyre.reduce sum %[[SQ]] dim 2
// CHECK: %[[MS:.*]] = spyre.binary mul %[[S]], %[[N]]
// CHECK: %[[MSE:.*]] = spyre.binary add %[[MS]], %[[EPS]]
// CHECK: %[[R:.*]] = spyre.unary rsqrt %[[MSE]]
// CHECK: %[[Y:.*]] = spyre.binary mul %arg0, %[[R]]
// CHECK-NEXT: return %[[Y]]
func.func @rms_norm_noweight(%x: tensor<2x5x71xf32>) -> tensor<2x5x71xf32> {
  %0 = spyre.aten "aten.rms_norm.default"(%x) {args = {eps, normalized_shape = [71]}, tensor_args = ["input"]} : (tensor<2x5x71xf32>) -> tensor<2x5x71xf32>
  return %0 : tensor<2x5x71xf32>
}

// -----

// Inference batch norm: per-channel vectors reshaped to [C, 1] so that they
// broadcast along dim 1: (x - mean) * rsqrt(var + eps) * w + b; the saved
// statistics are empty.
// CHECK-LABEL: func.func @batch_norm_legit
// CHECK-DAG: %[[EMPTY:.*]] = spyre.constant dense<> : tensor<0xf32>
// CHECK-DAG: %[[EPS:.*]] = spyre.constant dense<9.99999974E-6> : tensor<f32>
// CHECK: %[[V:.*]] = spyre.reshape %arg4 : tensor<7xf32> -> tensor<7x1xf32>
// CHECK: %[[VE:.*]] = spyre.binary add %[[V]], %[[EPS]]
// CHECK: %[[RSTD:.*]] = spyre.unary rsqrt %[[VE]] : tensor<7x1xf32> -> tensor<7x1xf32>
// CHECK: %[[M:.*]] = spyre.reshape %arg3 : tensor<7xf32> -> tensor<7x1xf32>
// CHECK: %[[C:.*]] = spyre.binary sub %arg0, %[[M]] : tensor<2x7x67xf32>, tensor<7x1xf32> -> tensor<2x7x67xf32>
// CHECK: %[[Y:.*]] = spyre.binary mul %[[C]], %[[RSTD]]
// CHECK: %[[W:.*]] = spyre.reshape %arg1 : tensor<7xf32> -> tensor<7x1xf32>
// CHECK: %[[YW:.*]] = spyre.binary mul %[[Y]], %[[W]]
// CHECK: %[[B:.*]] = spyre.reshape %arg2 : tensor<7xf32> -> tensor<7x1xf32>
// CHECK: %[[YB:.*]] = spyre.binary add %[[YW]], %[[B]]
// CHECK: return %[[YB]], %[[EMPTY]], %[[EMPTY]]
func.func @batch_norm_legit(%x: tensor<2x7x67xf32>, %w: tensor<7xf32>, %b: tensor<7xf32>, %m: tensor<7xf32>, %v: tensor<7xf32>) -> (tensor<2x7x67xf32>, tensor<0xf32>, tensor<0xf32>) {
  %0:3 = spyre.aten "aten._native_batch_norm_legit_no_training.default"(%x, %w, %b, %m, %v) {args = {eps = 1.000000e-05 : f64, momentum = 1.000000e-01 : f64}, tensor_args = ["input", "weight", "bias", "running_mean", "running_var"]} : (tensor<2x7x67xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>) -> (tensor<2x7x67xf32>, tensor<0xf32>, tensor<0xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x7x67xf32>, tensor<0xf32>, tensor<0xf32>
}

// -----

// batch_norm (training = False) of f16: the same in f32.
// CHECK-LABEL: func.func @batch_norm_f16
// CHECK: %[[X:.*]] = spyre.cast %arg0 : tensor<2x7x9xf16> -> tensor<2x7x9xf32>
// CHECK: %[[VF:.*]] = spyre.cast %arg4 : tensor<7xf16> -> tensor<7xf32>
// CHECK: spyre.reshape %[[VF]] : tensor<7xf32> -> tensor<7x1xf32>
// CHECK: spyre.unary rsqrt
// CHECK: spyre.binary sub %[[X]]
// CHECK: %[[OUT:.*]] = spyre.cast %{{.*}} : tensor<2x7x9xf32> -> tensor<2x7x9xf16>
// CHECK: return %[[OUT]]
func.func @batch_norm_f16(%x: tensor<2x7x9xf16>, %w: tensor<7xf16>, %b: tensor<7xf16>, %m: tensor<7xf16>, %v: tensor<7xf16>) -> tensor<2x7x9xf16> {
  %0 = spyre.aten "aten.batch_norm.default"(%x, %w, %b, %m, %v) {args = {cudnn_enabled = true, eps = 1.000000e-05 : f64, momentum = 1.000000e-01 : f64, training = false}, tensor_args = ["input", "weight", "bias", "running_mean", "running_var"]} : (tensor<2x7x9xf16>, tensor<7xf16>, tensor<7xf16>, tensor<7xf16>, tensor<7xf16>) -> tensor<2x7x9xf16>
  return %0 : tensor<2x7x9xf16>
}
