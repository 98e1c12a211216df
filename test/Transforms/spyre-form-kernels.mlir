// RUN: spyre-opt %s --spyre-form-kernels --split-input-file --verify-diagnostics | FileCheck %s

#row = #spyre.layout<stick_dim = 1, stick_elems = 64>
#kmaj = #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>
#vec = #spyre.layout<stick_dim = 0, stick_elems = 64>

// The elementwise tail of a matmul (bias, activation) joins its kernel; the
// loop nest is (m, n, k) and the bias is read along n.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[BIAS:.*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @matmul_epilogue
// CHECK: %[[K:.*]] = spyre.kernel "k0_matmul"(%arg0, %arg1, %arg2)
// CHECK-SAME: indexing_maps = [#[[A]], #[[B]], #[[BIAS]], #[[C]]]
// CHECK-SAME: iterators = ["parallel", "parallel", "reduction"]
// CHECK-SAME: space = array<i64: 64, 1024, 256>
// CHECK-NEXT: ^bb0(%[[X:.*]]: {{.*}}, %[[W:.*]]: {{.*}}, %[[BB:.*]]: {{.*}}):
// CHECK-NEXT: %[[MM:.*]] = spyre.matmul %[[X]], %[[W]] {transpose_rhs}
// CHECK-NEXT: %[[ADD:.*]] = spyre.binary add %[[MM]], %[[BB]]
// CHECK-NEXT: %[[G:.*]] = spyre.unary gelu %[[ADD]]
// CHECK-NEXT: spyre.yield %[[G]]
// CHECK: return %[[K]]
func.func @matmul_epilogue(%x: tensor<64x256xf16, #row>, %w: tensor<1024x256xf16, #kmaj>, %b: tensor<1024xf16, #vec>) -> tensor<64x1024xf16, #row> {
  %0 = spyre.matmul %x, %w {transpose_rhs} : tensor<64x256xf16, #row>, tensor<1024x256xf16, #kmaj> -> tensor<64x1024xf16, #row>
  %1 = spyre.binary add %0, %b : tensor<64x1024xf16, #row>, tensor<1024xf16, #vec> -> tensor<64x1024xf16, #row>
  %2 = spyre.unary gelu %1 : tensor<64x1024xf16, #row> -> tensor<64x1024xf16, #row>
  return %2 : tensor<64x1024xf16, #row>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 32>

// An intermediate with two users must reach device memory: the chain splits
// there. The second kernel reads it twice through one input.
// CHECK-LABEL: func.func @two_users
// CHECK: %[[K0:.*]] = spyre.kernel "k0_unary"(%arg0)
// CHECK: spyre.unary exp
// CHECK: %[[K1:.*]] = spyre.kernel "k1_binary"(%[[K0]])
// CHECK-NEXT: ^bb0(%[[E:.*]]: {{.*}}):
// CHECK-NEXT: %[[M:.*]] = spyre.binary mul %[[E]], %[[E]]
// CHECK-NEXT: spyre.unary relu %[[M]]
func.func @two_users(%x: tensor<63x65xf32, #row>) -> tensor<63x65xf32, #row> {
  %e = spyre.unary exp %x : tensor<63x65xf32, #row> -> tensor<63x65xf32, #row>
  %m = spyre.binary mul %e, %e : tensor<63x65xf32, #row>, tensor<63x65xf32, #row> -> tensor<63x65xf32, #row>
  %r = spyre.unary relu %m : tensor<63x65xf32, #row> -> tensor<63x65xf32, #row>
  return %r : tensor<63x65xf32, #row>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 32>
#vec = #spyre.layout<stick_dim = 0, stick_elems = 32>

// An elementwise op that broadcasts its operand to a bigger shape is not
// fused into that operand's kernel (the tile shapes differ).
// CHECK-LABEL: func.func @no_fuse_broadcast
// CHECK: spyre.kernel "k0_unary"
// CHECK: spyre.kernel "k1_binary"
func.func @no_fuse_broadcast(%x: tensor<8x32xf32, #row>, %v: tensor<32xf32, #vec>) -> tensor<8x32xf32, #row> {
  %n = spyre.unary neg %v : tensor<32xf32, #vec> -> tensor<32xf32, #vec>
  %a = spyre.binary add %x, %n : tensor<8x32xf32, #row>, tensor<32xf32, #vec> -> tensor<8x32xf32, #row>
  return %a : tensor<8x32xf32, #row>
}

// -----

#r2 = #spyre.layout<stick_dim = 1, stick_elems = 32>
#r3 = #spyre.layout<stick_dim = 2, stick_elems = 32>

// A reshape of the outer dims is a view and stays outside kernels.
// CHECK-LABEL: func.func @view
// CHECK: %[[K:.*]] = spyre.kernel "k0_unary"
// CHECK: %[[V:.*]] = spyre.reshape %[[K]]
// CHECK: spyre.kernel "k1_unary"(%[[V]])
func.func @view(%x: tensor<6x32xf32, #r2>) -> tensor<2x3x32xf32, #r3> {
  %e = spyre.unary exp %x : tensor<6x32xf32, #r2> -> tensor<6x32xf32, #r2>
  %v = spyre.reshape %e : tensor<6x32xf32, #r2> -> tensor<2x3x32xf32, #r3>
  %n = spyre.unary neg %v : tensor<2x3x32xf32, #r3> -> tensor<2x3x32xf32, #r3>
  return %n : tensor<2x3x32xf32, #r3>
}

// -----

#r2 = #spyre.layout<stick_dim = 1, stick_elems = 32>
#r1 = #spyre.layout<stick_dim = 0, stick_elems = 32>

func.func @stick_reshape(%x: tensor<6x32xf32, #r2>) -> tensor<192xf32, #r1> {
  // expected-error @+1 {{reshape from 'tensor<6x32xf32, #spyre.layout<stick_dim = 1, stick_elems = 32>>' to 'tensor<192xf32, #spyre.layout<stick_dim = 0, stick_elems = 32>>' changes the innermost (stick) dimension; only reshapes of the outer dims are supported}}
  %v = spyre.reshape %x : tensor<6x32xf32, #r2> -> tensor<192xf32, #r1>
  return %v : tensor<192xf32, #r1>
}
