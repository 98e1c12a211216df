// RUN: spyre-opt %s --spyre-sink-transposes --split-input-file | FileCheck %s

// A transpose moving the innermost dim, of what a pointwise op computes:
// the ops reading it run before it (a scalar as it is, a [4, 1, 1]
// operand through a view, here of its own shape, which folds), so they
// join relu's kernel.
// CHECK-LABEL: func.func @sink
// CHECK: %[[R:.*]] = spyre.unary relu %arg0 : tensor<4x48x80xf16> -> tensor<4x48x80xf16>
// CHECK: %[[M:.*]] = spyre.binary mul %[[R]], %arg1 : tensor<4x48x80xf16>, tensor<4x1x1xf16> -> tensor<4x48x80xf16>
// CHECK: %[[A:.*]] = spyre.binary add %[[M]], %arg2 : tensor<4x48x80xf16>, tensor<f16> -> tensor<4x48x80xf16>
// CHECK: %[[T:.*]] = spyre.transpose %[[A]] [0, 2, 1] : tensor<4x48x80xf16> -> tensor<4x80x48xf16>
// CHECK: return %[[T]]
func.func @sink(%x: tensor<4x48x80xf16>, %y: tensor<4x1x1xf16>, %c: tensor<f16>) -> tensor<4x80x48xf16> {
  %r = spyre.unary relu %x : tensor<4x48x80xf16> -> tensor<4x48x80xf16>
  %t = spyre.transpose %r [0, 2, 1] : tensor<4x48x80xf16> -> tensor<4x80x48xf16>
  %m = spyre.binary mul %t, %y : tensor<4x80x48xf16>, tensor<4x1x1xf16> -> tensor<4x80x48xf16>
  %a = spyre.binary add %m, %c : tensor<4x80x48xf16>, tensor<f16> -> tensor<4x80x48xf16>
  return %a : tensor<4x80x48xf16>
}

// -----

// Two operands transposed alike: the op reads both inputs.
// CHECK-LABEL: func.func @both_transposed
// CHECK: %[[S:.*]] = spyre.binary sub %{{.*}}, %{{.*}} : tensor<48x80xf16>, tensor<48x80xf16> -> tensor<48x80xf16>
// CHECK: spyre.transpose %[[S]] [1, 0]
func.func @both_transposed(%x: tensor<48x80xf16>, %y: tensor<48x80xf16>) -> tensor<80x48xf16> {
  %a = spyre.unary exp %x : tensor<48x80xf16> -> tensor<48x80xf16>
  %b = spyre.unary neg %y : tensor<48x80xf16> -> tensor<48x80xf16>
  %ta = spyre.transpose %a [1, 0] : tensor<48x80xf16> -> tensor<80x48xf16>
  %tb = spyre.transpose %b [1, 0] : tensor<48x80xf16> -> tensor<80x48xf16>
  %s = spyre.binary sub %ta, %tb : tensor<80x48xf16>, tensor<80x48xf16> -> tensor<80x48xf16>
  return %s : tensor<80x48xf16>
}

// -----

// Left as they are: a transpose of a graph input (the op would be a kernel
// either way), one keeping the innermost dim (spyre-reorder-on-chip's),
// one with another user, one whose other operand is a full tensor (not a
// view), and one whose operand broadcast along the innermost dim would
// need a repack ([80, 1] -> [1, 80]).
// CHECK-LABEL: func.func @kept
// CHECK: %[[T0:.*]] = spyre.transpose %arg0 [1, 0]
// CHECK: spyre.binary mul %[[T0]], %arg3
// CHECK: %[[T1:.*]] = spyre.transpose %{{.*}} [1, 0, 2]
// CHECK: spyre.unary neg %[[T1]]
// CHECK: %[[T2:.*]] = spyre.transpose %{{.*}} [1, 0]
// CHECK: spyre.unary neg %[[T2]]
// CHECK: %[[T3:.*]] = spyre.transpose %{{.*}} [1, 0]
// CHECK: spyre.binary add %[[T3]], %arg1
// CHECK: %[[T4:.*]] = spyre.transpose %{{.*}} [1, 0]
// CHECK: spyre.binary add %[[T4]], %arg4
func.func @kept(%x: tensor<48x80xf16>, %y: tensor<80x48xf16>, %z: tensor<4x8x64xf16>, %c: tensor<f16>, %col: tensor<80x1xf16>) -> (tensor<80x48xf16>, tensor<8x4x64xf16>, tensor<80x48xf16>, tensor<80x48xf16>, tensor<80x48xf16>, tensor<80x48xf16>) {
  %t0 = spyre.transpose %x [1, 0] : tensor<48x80xf16> -> tensor<80x48xf16>
  %m0 = spyre.binary mul %t0, %c : tensor<80x48xf16>, tensor<f16> -> tensor<80x48xf16>
  %e = spyre.unary exp %z : tensor<4x8x64xf16> -> tensor<4x8x64xf16>
  %t1 = spyre.transpose %e [1, 0, 2] : tensor<4x8x64xf16> -> tensor<8x4x64xf16>
  %n1 = spyre.unary neg %t1 : tensor<8x4x64xf16> -> tensor<8x4x64xf16>
  %r = spyre.unary relu %x : tensor<48x80xf16> -> tensor<48x80xf16>
  %t2 = spyre.transpose %r [1, 0] : tensor<48x80xf16> -> tensor<80x48xf16>
  %n2 = spyre.unary neg %t2 : tensor<80x48xf16> -> tensor<80x48xf16>
  %s = spyre.unary sqrt %x : tensor<48x80xf16> -> tensor<48x80xf16>
  %t3 = spyre.transpose %s [1, 0] : tensor<48x80xf16> -> tensor<80x48xf16>
  %a3 = spyre.binary add %t3, %y : tensor<80x48xf16>, tensor<80x48xf16> -> tensor<80x48xf16>
  %g = spyre.unary exp %x : tensor<48x80xf16> -> tensor<48x80xf16>
  %t4 = spyre.transpose %g [1, 0] : tensor<48x80xf16> -> tensor<80x48xf16>
  %a4 = spyre.binary add %t4, %col : tensor<80x48xf16>, tensor<80x1xf16> -> tensor<80x48xf16>
  return %m0, %n1, %n2, %t2, %a3, %a4 : tensor<80x48xf16>, tensor<8x4x64xf16>, tensor<80x48xf16>, tensor<80x48xf16>, tensor<80x48xf16>, tensor<80x48xf16>
}
