// Folders and canonicalization patterns of the spyre dialect (SpyreFolds.cpp),
// each with the cases where it must not apply.

// RUN: spyre-opt %s -canonicalize -split-input-file -allow-unregistered-dialect --mlir-print-local-scope | FileCheck %s

//===----------------------------------------------------------------------===//
// spyre.unary: splat folding
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @unary_splat
// CHECK-DAG: %[[NEG:.*]] = spyre.constant dense<-4.000000e+00> : tensor<4xf32> : tensor<4xf32>
// CHECK-DAG: %[[ABS:.*]] = spyre.constant dense<2.500000e+00> : tensor<4xf32> : tensor<4xf32>
// CHECK-DAG: %[[EXP:.*]] = spyre.constant dense<1.000000e+00> : tensor<4xf32> : tensor<4xf32>
// CHECK-DAG: %[[SQRT:.*]] = spyre.constant dense<2.000000e+00> : tensor<4xf32> : tensor<4xf32>
// CHECK-DAG: %[[RSQRT:.*]] = spyre.constant dense<5.000000e-01> : tensor<4xf32> : tensor<4xf32>
// CHECK-DAG: %[[RCP:.*]] = spyre.constant dense<2.500000e-01> : tensor<4xf32> : tensor<4xf32>
// CHECK-DAG: %[[RELU:.*]] = spyre.constant dense<0.000000e+00> : tensor<4xf32> : tensor<4xf32>
// CHECK-NOT: spyre.unary
// CHECK: return %[[NEG]], %[[ABS]], %[[EXP]], %[[SQRT]], %[[RSQRT]], %[[RCP]], %[[RELU]], %[[ABS]]
func.func @unary_splat() -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
                             tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
                             tensor<4xf32>, tensor<4xf32>) {
  %four = spyre.constant dense<4.0> : tensor<4xf32> : tensor<4xf32>
  %mhalf = spyre.constant dense<-2.5> : tensor<4xf32> : tensor<4xf32>
  %zero = spyre.constant dense<0.0> : tensor<4xf32> : tensor<4xf32>
  %0 = spyre.unary neg %four : tensor<4xf32> -> tensor<4xf32>
  %1 = spyre.unary abs %mhalf : tensor<4xf32> -> tensor<4xf32>
  %2 = spyre.unary exp %zero : tensor<4xf32> -> tensor<4xf32>
  %3 = spyre.unary sqrt %four : tensor<4xf32> -> tensor<4xf32>
  %4 = spyre.unary rsqrt %four : tensor<4xf32> -> tensor<4xf32>
  %5 = spyre.unary reciprocal %four : tensor<4xf32> -> tensor<4xf32>
  %6 = spyre.unary relu %mhalf : tensor<4xf32> -> tensor<4xf32>
  // relu of a positive value is the value.
  %7 = spyre.unary relu %1 : tensor<4xf32> -> tensor<4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<4xf32>, tensor<4xf32>,
      tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
      tensor<4xf32>, tensor<4xf32>
}

// -----

// The folded value is rounded to the element type, and the result keeps its
// layout.
// CHECK-LABEL: func.func @unary_splat_f16_layout
// CHECK: %[[C:.*]] = spyre.constant dense<3.161620e-01> : tensor<64xf16> : tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
// CHECK-NEXT: return %[[C]]
func.func @unary_splat_f16_layout() -> tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>> {
  %c = spyre.constant dense<10.0> : tensor<64xf16> : tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
  %0 = spyre.unary rsqrt %c : tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
                           -> tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
  return %0 : tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
}

// -----

// No fold: undefined results (sqrt of a negative, rsqrt and reciprocal of 0),
// kinds without a folder, non-splat and integer constants, non-constants, and
// a result type without a static shape (elements attributes are static).
// CHECK-LABEL: func.func @unary_no_fold
// CHECK: spyre.unary sqrt
// CHECK: spyre.unary rsqrt
// CHECK: spyre.unary reciprocal
// CHECK: spyre.unary tanh
// CHECK: spyre.unary neg %{{.*}} : tensor<2xf32>
// CHECK: spyre.unary neg %{{.*}} : tensor<4xi32>
// CHECK: spyre.unary exp %{{.*}} : tensor<4xf32> -> tensor<4xf32>
// CHECK: spyre.unary neg %{{.*}} : tensor<4xf32> -> tensor<?xf32>
func.func @unary_no_fold(%x: tensor<4xf32>) {
  %m = spyre.constant dense<-1.0> : tensor<4xf32> : tensor<4xf32>
  %z = spyre.constant dense<0.0> : tensor<4xf32> : tensor<4xf32>
  %v = spyre.constant dense<[1.0, 2.0]> : tensor<2xf32> : tensor<2xf32>
  %i = spyre.constant dense<3> : tensor<4xi32> : tensor<4xi32>
  %0 = spyre.unary sqrt %m : tensor<4xf32> -> tensor<4xf32>
  %1 = spyre.unary rsqrt %z : tensor<4xf32> -> tensor<4xf32>
  %2 = spyre.unary reciprocal %z : tensor<4xf32> -> tensor<4xf32>
  %3 = spyre.unary tanh %z : tensor<4xf32> -> tensor<4xf32>
  %4 = spyre.unary neg %v : tensor<2xf32> -> tensor<2xf32>
  %5 = spyre.unary neg %i : tensor<4xi32> -> tensor<4xi32>
  %6 = spyre.unary exp %x : tensor<4xf32> -> tensor<4xf32>
  %7 = spyre.unary neg %m : tensor<4xf32> -> tensor<?xf32>
  "test.use"(%0, %1, %2, %3, %4, %5, %6, %7) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2xf32>, tensor<4xi32>, tensor<4xf32>, tensor<?xf32>) -> ()
  return
}

// -----

//===----------------------------------------------------------------------===//
// spyre.binary: splat folding
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @binary_splat
// CHECK-DAG: %[[ADD:.*]] = spyre.constant dense<5.000000e+00> : tensor<4xf32> : tensor<4xf32>
// CHECK-DAG: %[[SUB:.*]] = spyre.constant dense<3.000000e+00> : tensor<4xf32> : tensor<4xf32>
// CHECK-DAG: %[[MUL:.*]] = spyre.constant dense<8.000000e+00> : tensor<4xf32> : tensor<4xf32>
// CHECK-DAG: %[[DIV:.*]] = spyre.constant dense<2.000000e+00> : tensor<4xf32> : tensor<4xf32>
// CHECK-DAG: %[[MAX:.*]] = spyre.constant dense<4.000000e+00> : tensor<4xf32> : tensor<4xf32>
// CHECK-DAG: %[[MIN:.*]] = spyre.constant dense<1.000000e+00> : tensor<4xf32> : tensor<4xf32>
// Broadcasting splats fold to a splat of the result shape.
// CHECK-DAG: %[[BC:.*]] = spyre.constant dense<-3.000000e+00> : tensor<2x4xf32> : tensor<2x4xf32>
// CHECK-NOT: spyre.binary
// CHECK: return %[[ADD]], %[[SUB]], %[[MUL]], %[[DIV]], %[[MAX]], %[[MIN]], %[[BC]]
func.func @binary_splat() -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
                              tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
                              tensor<2x4xf32>) {
  %four = spyre.constant dense<4.0> : tensor<4xf32> : tensor<4xf32>
  %one = spyre.constant dense<1.0> : tensor<f32> : tensor<f32>
  %two = spyre.constant dense<2.0> : tensor<4xf32> : tensor<4xf32>
  %col = spyre.constant dense<1.0> : tensor<2x1xf32> : tensor<2x1xf32>
  %0 = spyre.binary add %four, %one : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %1 = spyre.binary sub %four, %one : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %2 = spyre.binary mul %four, %two : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %3 = spyre.binary div %four, %two : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %4 = spyre.binary max %one, %four : tensor<f32>, tensor<4xf32> -> tensor<4xf32>
  %5 = spyre.binary min %one, %four : tensor<f32>, tensor<4xf32> -> tensor<4xf32>
  %6 = spyre.binary sub %col, %four : tensor<2x1xf32>, tensor<4xf32> -> tensor<2x4xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
      tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2x4xf32>
}

// -----

// No fold: division by zero, kinds without a folder, non-splat and integer
// operands, one non-constant operand.
// CHECK-LABEL: func.func @binary_no_fold
// CHECK: spyre.binary div
// CHECK: spyre.binary pow
// CHECK: spyre.binary add %{{.*}}, %{{.*}} : tensor<2xf32>, tensor<2xf32>
// CHECK: spyre.binary add %{{.*}}, %{{.*}} : tensor<4xi32>, tensor<4xi32>
// CHECK: spyre.binary mul %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xf32>
func.func @binary_no_fold(%x: tensor<4xf32>) {
  %two = spyre.constant dense<2.0> : tensor<4xf32> : tensor<4xf32>
  %z = spyre.constant dense<0.0> : tensor<4xf32> : tensor<4xf32>
  %v = spyre.constant dense<[1.0, 2.0]> : tensor<2xf32> : tensor<2xf32>
  %i = spyre.constant dense<3> : tensor<4xi32> : tensor<4xi32>
  %0 = spyre.binary div %two, %z : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %1 = spyre.binary pow %two, %two : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %2 = spyre.binary add %v, %v : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  %3 = spyre.binary add %i, %i : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  %4 = spyre.binary mul %x, %two : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  "test.use"(%0, %1, %2, %3, %4) : (tensor<4xf32>, tensor<4xf32>, tensor<2xf32>, tensor<4xi32>, tensor<4xf32>) -> ()
  return
}

// -----

//===----------------------------------------------------------------------===//
// spyre.binary: x + 0, x - 0, x * 1, x / 1
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @binary_identity
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NOT: spyre.binary
// CHECK: return %[[X]], %[[X]], %[[X]], %[[X]], %[[X]]
func.func @binary_identity(%x: tensor<4x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %z = spyre.constant dense<0.0> : tensor<8xf32> : tensor<8xf32>
  %o = spyre.constant dense<1.0> : tensor<4x8xf32> : tensor<4x8xf32>
  %mz = spyre.constant dense<-0.0> : tensor<f32> : tensor<f32>
  // The constant broadcasts into x's shape.
  %0 = spyre.binary add %x, %z : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %1 = spyre.binary sub %x, %z : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %2 = spyre.binary mul %x, %o : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %3 = spyre.binary div %x, %o : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %4 = spyre.binary add %x, %mz : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  return %0, %1, %2, %3, %4 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>,
      tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// With layouts: x keeps its layout when the result has the same one.
// CHECK-LABEL: func.func @binary_identity_layout
// CHECK-SAME: (%[[X:.*]]: tensor<4x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>)
// CHECK-NOT: spyre.binary
// CHECK: return %[[X]]
func.func @binary_identity_layout(%x: tensor<4x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>)
    -> tensor<4x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>> {
  %o = spyre.constant dense<1.0> : tensor<f16> : tensor<f16, #spyre.layout<stick_dim = -1, stick_elems = 64>>
  %0 = spyre.binary mul %x, %o : tensor<4x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>,
                                 tensor<f16, #spyre.layout<stick_dim = -1, stick_elems = 64>>
                              -> tensor<4x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
  return %0 : tensor<4x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
}

// -----

// No identity fold: the neutral element on the left (0 - x is not x), other
// constants, a broadcasting x smaller than the result, x in another layout
// than the result, integer types.
// CHECK-LABEL: func.func @binary_identity_no_fold
// CHECK: spyre.binary sub %[[Z:.*]], %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK: spyre.binary add %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK: spyre.binary mul %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK: spyre.binary mul %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<f32>
// CHECK: spyre.binary add %{{.*}}, %{{.*}} : tensor<8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK: spyre.binary sub %{{.*}}, %{{.*}} : tensor<1x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK: spyre.binary add %{{.*}}, %{{.*}} : tensor<4x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>, tensor<f16> -> tensor<4x64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>>
// CHECK: spyre.binary add %{{.*}}, %{{.*}} : tensor<4xi32>, tensor<4xi32>
func.func @binary_identity_no_fold(%x: tensor<4x8xf32>, %v: tensor<8xf32>,
    %r: tensor<1x8xf32>, %l: tensor<4x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>,
    %i: tensor<4xi32>) {
  %z = spyre.constant dense<0.0> : tensor<4x8xf32> : tensor<4x8xf32>
  %o = spyre.constant dense<1.0> : tensor<4x8xf32> : tensor<4x8xf32>
  %zero = spyre.constant dense<0.0> : tensor<f32> : tensor<f32>
  %zc = spyre.constant dense<0.0> : tensor<4x1xf32> : tensor<4x1xf32>
  %zh = spyre.constant dense<0.0> : tensor<f16> : tensor<f16>
  %zi = spyre.constant dense<0> : tensor<4xi32> : tensor<4xi32>
  %0 = spyre.binary sub %z, %x : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %1 = spyre.binary add %x, %o : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %2 = spyre.binary mul %o, %x : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %3 = spyre.binary mul %x, %zero : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %4 = spyre.binary add %v, %z : tensor<8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %5 = spyre.binary sub %r, %zc : tensor<1x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  %6 = spyre.binary add %l, %zh : tensor<4x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>, tensor<f16>
                              -> tensor<4x64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>>
  %7 = spyre.binary add %i, %zi : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  "test.use"(%0, %1, %2, %3, %4, %5, %6, %7) : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>>, tensor<4xi32>) -> ()
  return
}

// -----

//===----------------------------------------------------------------------===//
// spyre.cast
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @cast_fold
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-DAG: %[[H:.*]] = spyre.constant dense<1.000980e+00> : tensor<4xf16> : tensor<4xf16>
// CHECK-DAG: %[[B:.*]] = spyre.constant dense<1.000000e+00> : tensor<4xbf16> : tensor<4xbf16>
// CHECK-NOT: spyre.cast
// CHECK: return %[[X]], %[[H]], %[[B]]
func.func @cast_fold(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf16>, tensor<4xbf16>) {
  // A cast to the same type is the input.
  %0 = spyre.cast %x : tensor<4xf32> -> tensor<4xf32>
  // Float splats convert with round to nearest even.
  %c = spyre.constant dense<1.0009765625> : tensor<4xf32> : tensor<4xf32>
  %1 = spyre.cast %c : tensor<4xf32> -> tensor<4xf16>
  %2 = spyre.cast %c : tensor<4xf32> -> tensor<4xbf16>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf16>, tensor<4xbf16>
}

// -----

// No fold: float to integer, integer to float, a change of layout only (that
// is a restickify, not a no-op), non-splat, non-constant, dynamic result.
// CHECK-LABEL: func.func @cast_no_fold
// CHECK: spyre.cast %{{.*}} : tensor<4xf32> -> tensor<4xi32>
// CHECK: spyre.cast %{{.*}} : tensor<4xi32> -> tensor<4xf32>
// CHECK: spyre.cast %{{.*}} : tensor<4x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>> -> tensor<4x64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
// CHECK: spyre.cast %{{.*}} : tensor<2xf32> -> tensor<2xf16>
// CHECK: spyre.cast %{{.*}} : tensor<4xf32> -> tensor<4xf16>
// CHECK: spyre.cast %{{.*}} : tensor<4xf32> -> tensor<?xf16>
func.func @cast_no_fold(%x: tensor<4xf32>, %l: tensor<4x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>) {
  %c = spyre.constant dense<1.5> : tensor<4xf32> : tensor<4xf32>
  %i = spyre.constant dense<2> : tensor<4xi32> : tensor<4xi32>
  %v = spyre.constant dense<[1.0, 2.0]> : tensor<2xf32> : tensor<2xf32>
  %0 = spyre.cast %c : tensor<4xf32> -> tensor<4xi32>
  %1 = spyre.cast %i : tensor<4xi32> -> tensor<4xf32>
  %2 = spyre.cast %l : tensor<4x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
                    -> tensor<4x64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
  %3 = spyre.cast %v : tensor<2xf32> -> tensor<2xf16>
  %4 = spyre.cast %x : tensor<4xf32> -> tensor<4xf16>
  %5 = spyre.cast %c : tensor<4xf32> -> tensor<?xf16>
  "test.use"(%0, %1, %2, %3, %4, %5) : (tensor<4xi32>, tensor<4xf32>, tensor<4x64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>, tensor<2xf16>, tensor<4xf16>, tensor<?xf16>) -> ()
  return
}

// -----

//===----------------------------------------------------------------------===//
// spyre.transpose
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @transpose_identity
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NOT: spyre.transpose
// CHECK: return %[[X]], %[[X]]
func.func @transpose_identity(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %0 = spyre.transpose %x [0, 1, 2] : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  // Two transposes composing to the identity.
  %1 = spyre.transpose %x [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %2 = spyre.transpose %1 [2, 0, 1] : tensor<3x4x2xf32> -> tensor<2x3x4xf32>
  return %0, %2 : tensor<2x3x4xf32>, tensor<2x3x4xf32>
}

// -----

// transpose(transpose(x, p), q) = transpose(x, p o q), keeping the outer
// result type.
// CHECK-LABEL: func.func @transpose_compose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[T:.*]] = spyre.transpose %[[X]] [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
// CHECK-NEXT: return %[[T]]
func.func @transpose_compose(%x: tensor<2x3x4xf32>) -> tensor<3x4x2xf32> {
  %0 = spyre.transpose %x [1, 0, 2] : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  %1 = spyre.transpose %0 [0, 2, 1] : tensor<3x2x4xf32> -> tensor<3x4x2xf32>
  return %1 : tensor<3x4x2xf32>
}

// -----

// Three transposes compose into one; the intermediate layouts disappear.
// CHECK-LABEL: func.func @transpose_compose_chain
// CHECK-SAME: (%[[X:.*]]: tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>)
// CHECK-NEXT: %[[T:.*]] = spyre.transpose %[[X]] [1, 0] : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>> -> tensor<128x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
// CHECK-NEXT: return %[[T]]
func.func @transpose_compose_chain(%x: tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>)
    -> tensor<128x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>> {
  %0 = spyre.transpose %x [1, 0] : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
                               -> tensor<128x64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>>
  %1 = spyre.transpose %0 [1, 0] : tensor<128x64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>>
                               -> tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
  %2 = spyre.transpose %1 [1, 0] : tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
                               -> tensor<128x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
  return %2 : tensor<128x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
}

// -----

// A transposed splat is a splat.
// CHECK-LABEL: func.func @transpose_splat
// CHECK-NEXT: %[[C:.*]] = spyre.constant dense<2.000000e+00> : tensor<4x2xf32> : tensor<4x2xf32>
// CHECK-NEXT: return %[[C]]
func.func @transpose_splat() -> tensor<4x2xf32> {
  %c = spyre.constant dense<2.0> : tensor<2x4xf32> : tensor<2x4xf32>
  %0 = spyre.transpose %c [1, 0] : tensor<2x4xf32> -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

// No fold: a real permutation, the identity permutation that changes the
// layout (that moves data), a non-splat constant.
// CHECK-LABEL: func.func @transpose_no_fold
// CHECK: spyre.transpose %{{.*}} [1, 0] : tensor<2x4xf32> -> tensor<4x2xf32>
// CHECK: spyre.transpose %{{.*}} [0, 1] : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>> -> tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
// CHECK: spyre.transpose %{{.*}} [1, 0] : tensor<1x2xf32> -> tensor<2x1xf32>
func.func @transpose_no_fold(%x: tensor<2x4xf32>, %l: tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>) {
  %0 = spyre.transpose %x [1, 0] : tensor<2x4xf32> -> tensor<4x2xf32>
  %1 = spyre.transpose %l [0, 1] : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
                               -> tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
  %v = spyre.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32> : tensor<1x2xf32>
  %2 = spyre.transpose %v [1, 0] : tensor<1x2xf32> -> tensor<2x1xf32>
  "test.use"(%0, %1, %2) : (tensor<4x2xf32>, tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>, tensor<2x1xf32>) -> ()
  return
}

// -----

//===----------------------------------------------------------------------===//
// spyre.matmul: transposes folded into the transpose flags
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @matmul_fold_transpose
// CHECK-SAME: (%[[A:.*]]: tensor<32x64xf16>, %[[B:.*]]: tensor<16x32xf16>)
// CHECK-NOT: spyre.transpose
// CHECK: %[[M0:.*]] = spyre.matmul %[[A]], %[[A]] {transpose_lhs} : tensor<32x64xf16>, tensor<32x64xf16> -> tensor<64x64xf16>
// CHECK: %[[M1:.*]] = spyre.matmul %[[B]], %[[B]] {transpose_rhs} : tensor<16x32xf16>, tensor<16x32xf16> -> tensor<16x16xf16>
// CHECK: %[[M2:.*]] = spyre.matmul %[[A]], %[[B]] {transpose_lhs, transpose_rhs} : tensor<32x64xf16>, tensor<16x32xf16> -> tensor<64x16xf16>
// A set flag is cleared when the operand is the transposed value.
// CHECK: %[[M3:.*]] = spyre.matmul %[[B]], %[[A]] : tensor<16x32xf16>, tensor<32x64xf16> -> tensor<16x64xf16>
// CHECK: return %[[M0]], %[[M1]], %[[M2]], %[[M3]]
func.func @matmul_fold_transpose(%a: tensor<32x64xf16>, %b: tensor<16x32xf16>)
    -> (tensor<64x64xf16>, tensor<16x16xf16>, tensor<64x16xf16>, tensor<16x64xf16>) {
  %at = spyre.transpose %a [1, 0] : tensor<32x64xf16> -> tensor<64x32xf16>
  %bt = spyre.transpose %b [1, 0] : tensor<16x32xf16> -> tensor<32x16xf16>
  %0 = spyre.matmul %at, %a : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf16>
  %1 = spyre.matmul %b, %bt : tensor<16x32xf16>, tensor<32x16xf16> -> tensor<16x16xf16>
  %2 = spyre.matmul %at, %bt : tensor<64x32xf16>, tensor<32x16xf16> -> tensor<64x16xf16>
  %3 = spyre.matmul %bt, %a {transpose_lhs} : tensor<32x16xf16>, tensor<32x64xf16> -> tensor<16x64xf16>
  return %0, %1, %2, %3 : tensor<64x64xf16>, tensor<16x16xf16>, tensor<64x16xf16>, tensor<16x64xf16>
}

// -----

// A set flag is cleared when the operand is the transposed value; batch dims
// stay.
// CHECK-LABEL: func.func @matmul_fold_transpose_batch
// CHECK-SAME: (%[[A:.*]]: tensor<2x8x32xf32>, %[[B:.*]]: tensor<32x16xf32>)
// CHECK-NEXT: %[[M:.*]] = spyre.matmul %[[A]], %[[B]] : tensor<2x8x32xf32>, tensor<32x16xf32> -> tensor<2x8x16xf32>
// CHECK-NEXT: return %[[M]]
func.func @matmul_fold_transpose_batch(%a: tensor<2x8x32xf32>, %b: tensor<32x16xf32>) -> tensor<2x8x16xf32> {
  %at = spyre.transpose %a [0, 2, 1] : tensor<2x8x32xf32> -> tensor<2x32x8xf32>
  %bt = spyre.transpose %b [1, 0] : tensor<32x16xf32> -> tensor<16x32xf32>
  %0 = spyre.matmul %at, %bt {transpose_lhs, transpose_rhs} : tensor<2x32x8xf32>, tensor<16x32xf32> -> tensor<2x8x16xf32>
  return %0 : tensor<2x8x16xf32>
}

// -----

// A transpose with other users stays for them.
// CHECK-LABEL: func.func @matmul_fold_transpose_shared
// CHECK-SAME: (%[[A:.*]]: tensor<32x64xf16>, %[[B:.*]]: tensor<32x16xf16>)
// CHECK: %[[T:.*]] = spyre.transpose %[[A]] [1, 0]
// CHECK: %[[M:.*]] = spyre.matmul %[[A]], %[[B]] {transpose_lhs}
// CHECK: return %[[M]], %[[T]]
func.func @matmul_fold_transpose_shared(%a: tensor<32x64xf16>, %b: tensor<32x16xf16>)
    -> (tensor<64x16xf16>, tensor<64x32xf16>) {
  %at = spyre.transpose %a [1, 0] : tensor<32x64xf16> -> tensor<64x32xf16>
  %0 = spyre.matmul %at, %b : tensor<64x32xf16>, tensor<32x16xf16> -> tensor<64x16xf16>
  return %0, %at : tensor<64x16xf16>, tensor<64x32xf16>
}

// -----

// No fold: after layout assignment (on the transpose's input or result), or
// when the permutation is not a swap of the last two dims.
// CHECK-LABEL: func.func @matmul_no_fold_transpose
// CHECK: %[[AT:.*]] = spyre.transpose
// CHECK-NEXT: spyre.matmul %[[AT]], %{{.*}} : tensor<64x32xf16>, tensor<32x16xf16> -> tensor<64x16xf16>
// CHECK-NEXT: %[[CT:.*]] = spyre.transpose
// CHECK-NEXT: spyre.matmul %[[CT]], %{{.*}} : tensor<64x32xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>, tensor<32x16xf16> -> tensor<64x16xf16>
// CHECK-NEXT: %[[DT:.*]] = spyre.transpose
// CHECK-NEXT: spyre.matmul %[[DT]], %{{.*}} : tensor<4x2x8x32xf32>, tensor<32x16xf32> -> tensor<4x2x8x16xf32>
func.func @matmul_no_fold_transpose(
    %a: tensor<32x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>,
    %c: tensor<32x64xf16>, %b: tensor<32x16xf16>,
    %d: tensor<2x4x8x32xf32>, %e: tensor<32x16xf32>) {
  %at = spyre.transpose %a [1, 0] : tensor<32x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>> -> tensor<64x32xf16>
  %0 = spyre.matmul %at, %b : tensor<64x32xf16>, tensor<32x16xf16> -> tensor<64x16xf16>
  %ct = spyre.transpose %c [1, 0] : tensor<32x64xf16> -> tensor<64x32xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
  %1 = spyre.matmul %ct, %b : tensor<64x32xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>, tensor<32x16xf16> -> tensor<64x16xf16>
  %dt = spyre.transpose %d [1, 0, 2, 3] : tensor<2x4x8x32xf32> -> tensor<4x2x8x32xf32>
  %2 = spyre.matmul %dt, %e : tensor<4x2x8x32xf32>, tensor<32x16xf32> -> tensor<4x2x8x16xf32>
  "test.use"(%0, %1, %2) : (tensor<64x16xf16>, tensor<64x16xf16>, tensor<4x2x8x16xf32>) -> ()
  return
}

// -----

//===----------------------------------------------------------------------===//
// spyre.reshape
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @reshape_fold
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[C:.*]] = spyre.constant dense<1.000000e+00> : tensor<2x2xf32> : tensor<2x2xf32>
// CHECK-NEXT: %[[R:.*]] = spyre.reshape %[[X]] : tensor<2x3x4xf32> -> tensor<4x6xf32>
// CHECK-NEXT: return %[[X]], %[[R]], %[[X]], %[[C]]
func.func @reshape_fold(%x: tensor<2x3x4xf32>)
    -> (tensor<2x3x4xf32>, tensor<4x6xf32>, tensor<2x3x4xf32>, tensor<2x2xf32>) {
  // Same type: the input.
  %0 = spyre.reshape %x : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  // reshape(reshape(x)) = reshape(x).
  %1 = spyre.reshape %x : tensor<2x3x4xf32> -> tensor<24xf32>
  %2 = spyre.reshape %1 : tensor<24xf32> -> tensor<4x6xf32>
  // ... and back to x's type: x.
  %3 = spyre.reshape %2 : tensor<4x6xf32> -> tensor<2x3x4xf32>
  // A reshaped splat is a splat.
  %c = spyre.constant dense<1.0> : tensor<4xf32> : tensor<4xf32>
  %4 = spyre.reshape %c : tensor<4xf32> -> tensor<2x2xf32>
  return %0, %2, %3, %4 : tensor<2x3x4xf32>, tensor<4x6xf32>, tensor<2x3x4xf32>, tensor<2x2xf32>
}

// -----

// No fold: a reshape of a non-reshape, of a non-splat constant, and a layout
// change (same shape, another layout).
// CHECK-LABEL: func.func @reshape_no_fold
// CHECK: spyre.reshape %{{.*}} : tensor<2x3xf32> -> tensor<6xf32>
// CHECK: spyre.reshape %{{.*}} : tensor<2xf32> -> tensor<1x2xf32>
// CHECK: spyre.reshape %{{.*}} : tensor<4x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>> -> tensor<4x64xf16>
func.func @reshape_no_fold(%x: tensor<2x3xf32>, %l: tensor<4x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>) {
  %e = spyre.unary exp %x : tensor<2x3xf32> -> tensor<2x3xf32>
  %0 = spyre.reshape %e : tensor<2x3xf32> -> tensor<6xf32>
  %v = spyre.constant dense<[1.0, 2.0]> : tensor<2xf32> : tensor<2xf32>
  %1 = spyre.reshape %v : tensor<2xf32> -> tensor<1x2xf32>
  %2 = spyre.reshape %l : tensor<4x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>> -> tensor<4x64xf16>
  "test.use"(%0, %1, %2) : (tensor<6xf32>, tensor<1x2xf32>, tensor<4x64xf16>) -> ()
  return
}

// -----

//===----------------------------------------------------------------------===//
// spyre.broadcast
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @broadcast_fold
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[C:.*]] = spyre.constant dense<3.000000e+00> : tensor<2x4x8xf32> : tensor<2x4x8xf32>
// CHECK-NEXT: return %[[X]], %[[C]]
func.func @broadcast_fold(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<2x4x8xf32>) {
  %0 = spyre.broadcast %x : tensor<4x8xf32> -> tensor<4x8xf32>
  %c = spyre.constant dense<3.0> : tensor<8xf32> : tensor<8xf32>
  %1 = spyre.broadcast %c : tensor<8xf32> -> tensor<2x4x8xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<2x4x8xf32>
}

// -----

// No fold: a real broadcast, a layout change, a non-splat constant.
// CHECK-LABEL: func.func @broadcast_no_fold
// CHECK: spyre.broadcast %{{.*}} : tensor<8xf32> -> tensor<4x8xf32>
// CHECK: spyre.broadcast %{{.*}} : tensor<4x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>> -> tensor<4x64xf16>
// CHECK: spyre.broadcast %{{.*}} : tensor<2xf32> -> tensor<3x2xf32>
func.func @broadcast_no_fold(%x: tensor<8xf32>, %l: tensor<4x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>) {
  %0 = spyre.broadcast %x : tensor<8xf32> -> tensor<4x8xf32>
  %1 = spyre.broadcast %l : tensor<4x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>> -> tensor<4x64xf16>
  %v = spyre.constant dense<[1.0, 2.0]> : tensor<2xf32> : tensor<2xf32>
  %2 = spyre.broadcast %v : tensor<2xf32> -> tensor<3x2xf32>
  "test.use"(%0, %1, %2) : (tensor<4x8xf32>, tensor<4x64xf16>, tensor<3x2xf32>) -> ()
  return
}

// -----

//===----------------------------------------------------------------------===//
// spyre.restickify
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @restickify_fold
// CHECK-SAME: (%[[X:.*]]: tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>, %[[Y:.*]]: tensor<64x128xf16>)
// Only the last layout of a chain counts.
// CHECK-NEXT: %[[R:.*]] = spyre.restickify %[[X]] : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>> -> tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
// CHECK-NEXT: %[[S:.*]] = spyre.restickify %[[Y]] : tensor<64x128xf16> -> tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
// CHECK-NEXT: return %[[X]], %[[R]], %[[X]], %[[S]]
func.func @restickify_fold(%x: tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>,
                           %y: tensor<64x128xf16>)
    -> (tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>,
        tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>,
        tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>,
        tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>) {
  // To the same layout: the input.
  %0 = spyre.restickify %x : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
                          -> tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
  // restickify(restickify(x)) = restickify(x).
  %1 = spyre.restickify %x : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
                          -> tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>>
  %2 = spyre.restickify %1 : tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>>
                          -> tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
  // ... and back to x's layout: x.
  %3 = spyre.restickify %1 : tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>>
                          -> tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
  // From no layout, through two: one restickify.
  %4 = spyre.restickify %y : tensor<64x128xf16>
                          -> tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
  %5 = spyre.restickify %4 : tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
                          -> tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
  return %0, %2, %3, %5 : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>,
      tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>,
      tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>,
      tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
}

// -----

// No fold: a real change of layout (even one that only reorders dims), and a
// restickify of another op.
// CHECK-LABEL: func.func @restickify_no_fold
// CHECK: spyre.restickify %{{.*}} : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>> -> tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64, dim_order = [1, 0]>>
// CHECK: spyre.unary exp
// CHECK: spyre.restickify %{{.*}} : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>> -> tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
func.func @restickify_no_fold(%x: tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>) {
  %0 = spyre.restickify %x : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
                          -> tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64, dim_order = [1, 0]>>
  %e = spyre.unary exp %x : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
                         -> tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
  %1 = spyre.restickify %e : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
                          -> tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
  "test.use"(%0, %1) : (tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64, dim_order = [1, 0]>>, tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>) -> ()
  return
}

// -----

//===----------------------------------------------------------------------===//
// spyre.constant
//===----------------------------------------------------------------------===//

// Equal constants are uniqued; dead ones are removed; constants with
// different layouts stay apart.
// CHECK-LABEL: func.func @constants
// CHECK-DAG: %[[A:.*]] = spyre.constant dense<1.000000e+00> : tensor<64xf16> : tensor<64xf16>
// CHECK-DAG: %[[B:.*]] = spyre.constant dense<1.000000e+00> : tensor<64xf16> : tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
// CHECK-NOT: spyre.constant
// CHECK: return %[[A]], %[[A]], %[[B]]
func.func @constants() -> (tensor<64xf16>, tensor<64xf16>, tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>) {
  %0 = spyre.constant dense<1.0> : tensor<64xf16> : tensor<64xf16>
  %1 = spyre.constant dense<1.0> : tensor<64xf16> : tensor<64xf16>
  %2 = spyre.constant dense<1.0> : tensor<64xf16> : tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
  %3 = spyre.constant dense<2.0> : tensor<64xf16> : tensor<64xf16>
  return %0, %1, %2 : tensor<64xf16>, tensor<64xf16>, tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
}
