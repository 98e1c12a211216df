// Round trips of every op and attribute of the spyre dialect, at all four
// levels (graph, compute, schedule, program): custom form -> custom form, and
// generic form -> custom form.

// RUN: spyre-opt %s --split-input-file | spyre-opt --split-input-file --mlir-print-local-scope | FileCheck %s
// RUN: spyre-opt %s --split-input-file --mlir-print-op-generic | spyre-opt --split-input-file --mlir-print-local-scope | FileCheck %s
// RUN: spyre-opt %s --split-input-file --verify-roundtrip > /dev/null

//===----------------------------------------------------------------------===//
// Graph level: spyre.aten
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @aten_ops
// CHECK-SAME: (%[[X:.*]]: tensor<64x256xf16>, %[[W:.*]]: tensor<128x256xf16>, %[[B:.*]]: tensor<128xf16>)
func.func @aten_ops(%x: tensor<64x256xf16>, %w: tensor<128x256xf16>,
                    %b: tensor<128xf16>) -> tensor<64x1xi64> {
  // CHECK: %[[G:.*]] = spyre.aten "aten.gelu.default"(%[[X]]) {args = {approximate = "tanh"}, tensor_args = ["self"]} : (tensor<64x256xf16>) -> tensor<64x256xf16>
  %0 = spyre.aten "aten.gelu.default"(%x) {args = {approximate = "tanh"},
         tensor_args = ["self"]} : (tensor<64x256xf16>) -> tensor<64x256xf16>
  // CHECK: %[[L:.*]] = spyre.aten "aten.linear.default"(%[[G]], %[[W]], %[[B]]) {args = {}, tensor_args = ["input", "weight", "bias"]} : (tensor<64x256xf16>, tensor<128x256xf16>, tensor<128xf16>) -> tensor<64x128xf16>
  %1 = spyre.aten "aten.linear.default"(%0, %w, %b) {args = {},
         tensor_args = ["input", "weight", "bias"]}
         : (tensor<64x256xf16>, tensor<128x256xf16>, tensor<128xf16>) -> tensor<64x128xf16>
  // Two results; a None argument is a unit attribute.
  // CHECK: %[[M:.*]]:2 = spyre.aten "aten.max.dim"(%[[L]]) {args = {dim = 1 : i64, keepdim = true}, tensor_args = ["self"]} : (tensor<64x128xf16>) -> (tensor<64x1xf16>, tensor<64x1xi64>)
  %2:2 = spyre.aten "aten.max.dim"(%1) {args = {dim = 1 : i64, keepdim = true},
           tensor_args = ["self"]}
           : (tensor<64x128xf16>) -> (tensor<64x1xf16>, tensor<64x1xi64>)
  // CHECK: spyre.aten "aten.sum.dim_IntList"(%[[L]]) {args = {dim = [1], dtype, keepdim = false}, tensor_args = ["self"]}
  %3 = spyre.aten "aten.sum.dim_IntList"(%1) {args = {dim = [1], keepdim = false, dtype},
         tensor_args = ["self"]} : (tensor<64x128xf16>) -> tensor<64xf16>
  // CHECK: return %[[M]]#1
  return %2#1 : tensor<64x1xi64>
}

// -----

// A Tensor[] argument repeats its name; a Tensor?[] argument has its present
// tensors as operands and a presence mask in `args`; a None output has type
// `none`.
// CHECK-LABEL: func.func @aten_lists
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x3xf32>, %[[I:.*]]: tensor<4xi64>)
func.func @aten_lists(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>,
                      %i: tensor<4xi64>) -> (tensor<4x3xf32>, tensor<2x4xf32>) {
  // CHECK: spyre.aten "aten.cat.default"(%[[A]], %[[B]]) {args = {dim = 0 : i64}, tensor_args = ["tensors", "tensors"]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %0 = spyre.aten "aten.cat.default"(%a, %b) {args = {dim = 0 : i64},
         tensor_args = ["tensors", "tensors"]}
         : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  // CHECK: spyre.aten "aten.index.Tensor"(%[[A]], %[[I]]) {args = {indices = [false, true]}, tensor_args = ["self", "indices"]} : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<2x4xf32>
  %1 = spyre.aten "aten.index.Tensor"(%a, %i) {args = {indices = [false, true]},
         tensor_args = ["self", "indices"]}
         : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<2x4xf32>
  // CHECK: spyre.aten "aten.unknown_op.default"(%[[A]]) {args = {}, tensor_args = ["x"]} : (tensor<2x3xf32>) -> none
  %2 = spyre.aten "aten.unknown_op.default"(%a) {args = {}, tensor_args = ["x"]}
         : (tensor<2x3xf32>) -> none
  // No operands, no results.
  // CHECK: spyre.aten "aten._assert_async.msg"() {args = {assert_msg = "m"}, tensor_args = []} : () -> ()
  spyre.aten "aten._assert_async.msg"() {args = {assert_msg = "m"}, tensor_args = []} : () -> ()
  return %0, %1 : tensor<4x3xf32>, tensor<2x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Graph level: spyre.weight, #spyre.external
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @weights
func.func @weights() -> (tensor<2x2xf32>, tensor<4xf16>, tensor<3xi8>,
    tensor<128x256xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>,
    tensor<256x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>>) {
  // CHECK: spyre.weight "fc.weight" parameter = dense<1.000000e+00> : tensor<2x2xf32> : tensor<2x2xf32>
  %0 = spyre.weight "fc.weight" parameter = dense<1.0> : tensor<2x2xf32> : tensor<2x2xf32>
  // CHECK: spyre.weight "bn.running_mean" buffer = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf16> : tensor<4xf16>
  %1 = spyre.weight "bn.running_mean" buffer = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf16> : tensor<4xf16>
  // CHECK: spyre.weight "_lifted_tensor_constant0" constant = dense_resource<blob> : tensor<3xi8> : tensor<3xi8>
  %2 = spyre.weight "_lifted_tensor_constant0" constant = dense_resource<blob> : tensor<3xi8> : tensor<3xi8>
  // CHECK: spyre.weight "big" parameter external <file = "model.pt2", entry = "model/data/0", offset = 64> : tensor<128x256xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
  %3 = spyre.weight "big" parameter external <file = "model.pt2", entry = "model/data/0", offset = 64>
         : tensor<128x256xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
  // A transposed view of stored data: strides over the logical dims.
  // CHECK: spyre.weight "big_t" parameter external <file = "w.bin", entry = "", offset = 0, strides = [1, 256]> : tensor<256x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>>
  %4 = spyre.weight "big_t" parameter external <file = "w.bin", entry = "", offset = 0, strides = [1, 256]>
         : tensor<256x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>>
  return %0, %1, %2, %3, %4 : tensor<2x2xf32>, tensor<4xf16>, tensor<3xi8>,
      tensor<128x256xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>,
      tensor<256x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>>
}

{-#
  dialect_resources: {
    builtin: {
      blob: "0x04000000010203"
    }
  }
#-}

// -----

// Weights with a value may also carry a layout; an external weight may have
// a dynamic shape (it is never materialized as an attribute).
// CHECK-LABEL: func.func @weights_layout
func.func @weights_layout() -> (tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>, tensor<?x8xf32>) {
  // CHECK: spyre.weight "b" parameter = dense<5.000000e-01> : tensor<64xf16> : tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
  %0 = spyre.weight "b" parameter = dense<0.5> : tensor<64xf16>
         : tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
  // CHECK: spyre.weight "dyn" buffer external <file = "x", entry = "e", offset = 8> : tensor<?x8xf32>
  %1 = spyre.weight "dyn" buffer external <file = "x", entry = "e", offset = 8> : tensor<?x8xf32>
  return %0, %1 : tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>, tensor<?x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Compute level
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @matmuls
// CHECK-SAME: (%[[A:.*]]: tensor<64x32xf16>, %[[AT:.*]]: tensor<32x64xf16>, %[[B:.*]]: tensor<32x16xf16>, %[[BT:.*]]: tensor<16x32xf16>)
func.func @matmuls(%a: tensor<64x32xf16>, %at: tensor<32x64xf16>,
                   %b: tensor<32x16xf16>, %bt: tensor<16x32xf16>) {
  // CHECK: spyre.matmul %[[A]], %[[B]] : tensor<64x32xf16>, tensor<32x16xf16> -> tensor<64x16xf16>
  %0 = spyre.matmul %a, %b : tensor<64x32xf16>, tensor<32x16xf16> -> tensor<64x16xf16>
  // CHECK: spyre.matmul %[[AT]], %[[B]] {transpose_lhs} : tensor<32x64xf16>, tensor<32x16xf16> -> tensor<64x16xf16>
  %1 = spyre.matmul %at, %b {transpose_lhs} : tensor<32x64xf16>, tensor<32x16xf16> -> tensor<64x16xf16>
  // CHECK: spyre.matmul %[[A]], %[[BT]] {transpose_rhs} : tensor<64x32xf16>, tensor<16x32xf16> -> tensor<64x16xf16>
  %2 = spyre.matmul %a, %bt {transpose_rhs} : tensor<64x32xf16>, tensor<16x32xf16> -> tensor<64x16xf16>
  // CHECK: spyre.matmul %[[AT]], %[[BT]] {transpose_lhs, transpose_rhs} : tensor<32x64xf16>, tensor<16x32xf16> -> tensor<64x16xf32>
  %3 = spyre.matmul %at, %bt {transpose_lhs, transpose_rhs} : tensor<32x64xf16>, tensor<16x32xf16> -> tensor<64x16xf32>
  return
}

// -----

// Batch dimensions broadcast numpy-style.
// CHECK-LABEL: func.func @matmul_batch
func.func @matmul_batch(%a: tensor<2x1x64x32xf16>, %b: tensor<3x32x16xf16>,
                        %c: tensor<4x64x32xbf16>, %d: tensor<32x16xbf16>) {
  // CHECK: spyre.matmul %{{.*}}, %{{.*}} : tensor<2x1x64x32xf16>, tensor<3x32x16xf16> -> tensor<2x3x64x16xf16>
  %0 = spyre.matmul %a, %b : tensor<2x1x64x32xf16>, tensor<3x32x16xf16> -> tensor<2x3x64x16xf16>
  // CHECK: spyre.matmul %{{.*}}, %{{.*}} : tensor<4x64x32xbf16>, tensor<32x16xbf16> -> tensor<4x64x16xbf16>
  %1 = spyre.matmul %c, %d : tensor<4x64x32xbf16>, tensor<32x16xbf16> -> tensor<4x64x16xbf16>
  return
}

// -----

// After layout assignment: lhs' sticked on k, rhs' and result on n.
// CHECK-LABEL: func.func @matmul_layouts
func.func @matmul_layouts(
    %a: tensor<64x256xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>,
    %b: tensor<1024x256xf16, #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>>)
    -> tensor<64x1024xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>> {
  // CHECK: spyre.matmul %{{.*}}, %{{.*}} {transpose_rhs} : tensor<64x256xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>, tensor<1024x256xf16, #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>> -> tensor<64x1024xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
  %0 = spyre.matmul %a, %b {transpose_rhs}
      : tensor<64x256xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>,
        tensor<1024x256xf16, #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>>
      -> tensor<64x1024xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
  return %0 : tensor<64x1024xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
}

// -----

// Every unary kind.
// CHECK-LABEL: func.func @unary
// CHECK-SAME: (%[[X:.*]]: tensor<8x64xf16>, %[[I:.*]]: tensor<8xi32>, %[[P:.*]]: tensor<8xi1>)
func.func @unary(%x: tensor<8x64xf16>, %i: tensor<8xi32>, %p: tensor<8xi1>) {
  // CHECK: spyre.unary neg %[[X]] : tensor<8x64xf16> -> tensor<8x64xf16>
  %0 = spyre.unary neg %x : tensor<8x64xf16> -> tensor<8x64xf16>
  // CHECK: spyre.unary abs %[[X]]
  %1 = spyre.unary abs %x : tensor<8x64xf16> -> tensor<8x64xf16>
  // CHECK: spyre.unary exp %[[X]]
  %2 = spyre.unary exp %x : tensor<8x64xf16> -> tensor<8x64xf16>
  // CHECK: spyre.unary log %[[X]]
  %3 = spyre.unary log %x : tensor<8x64xf16> -> tensor<8x64xf16>
  // CHECK: spyre.unary sqrt %[[X]]
  %4 = spyre.unary sqrt %x : tensor<8x64xf16> -> tensor<8x64xf16>
  // CHECK: spyre.unary rsqrt %[[X]]
  %5 = spyre.unary rsqrt %x : tensor<8x64xf16> -> tensor<8x64xf16>
  // CHECK: spyre.unary reciprocal %[[X]]
  %6 = spyre.unary reciprocal %x : tensor<8x64xf16> -> tensor<8x64xf16>
  // CHECK: spyre.unary tanh %[[X]]
  %7 = spyre.unary tanh %x : tensor<8x64xf16> -> tensor<8x64xf16>
  // CHECK: spyre.unary sigmoid %[[X]]
  %8 = spyre.unary sigmoid %x : tensor<8x64xf16> -> tensor<8x64xf16>
  // CHECK: spyre.unary relu %[[X]]
  %9 = spyre.unary relu %x : tensor<8x64xf16> -> tensor<8x64xf16>
  // CHECK: spyre.unary gelu %[[X]]
  %10 = spyre.unary gelu %x : tensor<8x64xf16> -> tensor<8x64xf16>
  // CHECK: spyre.unary gelu_tanh %[[X]]
  %11 = spyre.unary gelu_tanh %x : tensor<8x64xf16> -> tensor<8x64xf16>
  // CHECK: spyre.unary silu %[[X]]
  %12 = spyre.unary silu %x : tensor<8x64xf16> -> tensor<8x64xf16>
  // CHECK: spyre.unary sin %[[X]]
  %13 = spyre.unary sin %x : tensor<8x64xf16> -> tensor<8x64xf16>
  // CHECK: spyre.unary cos %[[X]]
  %14 = spyre.unary cos %x : tensor<8x64xf16> -> tensor<8x64xf16>
  // CHECK: spyre.unary floor %[[X]]
  %15 = spyre.unary floor %x : tensor<8x64xf16> -> tensor<8x64xf16>
  // CHECK: spyre.unary ceil %[[X]]
  %16 = spyre.unary ceil %x : tensor<8x64xf16> -> tensor<8x64xf16>
  // CHECK: spyre.unary erf %[[X]]
  %17 = spyre.unary erf %x : tensor<8x64xf16> -> tensor<8x64xf16>
  // CHECK: spyre.unary softplus %[[X]]
  %18 = spyre.unary softplus %x : tensor<8x64xf16> -> tensor<8x64xf16>
  // CHECK: spyre.unary round %[[X]]
  %19 = spyre.unary round %x : tensor<8x64xf16> -> tensor<8x64xf16>
  // CHECK: spyre.unary sign %[[X]]
  %20 = spyre.unary sign %x : tensor<8x64xf16> -> tensor<8x64xf16>
  // neg and abs also take integers; logical_not takes anything.
  // CHECK: spyre.unary neg %[[I]] : tensor<8xi32> -> tensor<8xi32>
  %21 = spyre.unary neg %i : tensor<8xi32> -> tensor<8xi32>
  // CHECK: spyre.unary abs %[[I]] : tensor<8xi32> -> tensor<8xi32>
  %22 = spyre.unary abs %i : tensor<8xi32> -> tensor<8xi32>
  // CHECK: spyre.unary logical_not %[[P]] : tensor<8xi1> -> tensor<8xi1>
  %23 = spyre.unary logical_not %p : tensor<8xi1> -> tensor<8xi1>
  return
}

// -----

// Every binary kind; numpy broadcasting; the printed names of and/or.
// CHECK-LABEL: func.func @binary
// CHECK-SAME: (%[[X:.*]]: tensor<8x64xf32>, %[[R:.*]]: tensor<64xf32>, %[[C:.*]]: tensor<8x1xf32>, %[[P:.*]]: tensor<8x64xi1>, %[[S:.*]]: tensor<f32>)
func.func @binary(%x: tensor<8x64xf32>, %r: tensor<64xf32>, %c: tensor<8x1xf32>,
                  %p: tensor<8x64xi1>, %s: tensor<f32>) {
  // CHECK: spyre.binary add %[[X]], %[[X]] : tensor<8x64xf32>, tensor<8x64xf32> -> tensor<8x64xf32>
  %0 = spyre.binary add %x, %x : tensor<8x64xf32>, tensor<8x64xf32> -> tensor<8x64xf32>
  // CHECK: spyre.binary sub %[[X]], %[[R]] : tensor<8x64xf32>, tensor<64xf32> -> tensor<8x64xf32>
  %1 = spyre.binary sub %x, %r : tensor<8x64xf32>, tensor<64xf32> -> tensor<8x64xf32>
  // CHECK: spyre.binary mul %[[C]], %[[X]] : tensor<8x1xf32>, tensor<8x64xf32> -> tensor<8x64xf32>
  %2 = spyre.binary mul %c, %x : tensor<8x1xf32>, tensor<8x64xf32> -> tensor<8x64xf32>
  // CHECK: spyre.binary div %[[C]], %[[R]] : tensor<8x1xf32>, tensor<64xf32> -> tensor<8x64xf32>
  %3 = spyre.binary div %c, %r : tensor<8x1xf32>, tensor<64xf32> -> tensor<8x64xf32>
  // CHECK: spyre.binary max %[[X]], %[[S]] : tensor<8x64xf32>, tensor<f32> -> tensor<8x64xf32>
  %4 = spyre.binary max %x, %s : tensor<8x64xf32>, tensor<f32> -> tensor<8x64xf32>
  // CHECK: spyre.binary min %[[S]], %[[S]] : tensor<f32>, tensor<f32> -> tensor<f32>
  %5 = spyre.binary min %s, %s : tensor<f32>, tensor<f32> -> tensor<f32>
  // CHECK: spyre.binary pow %[[X]], %[[X]]
  %6 = spyre.binary pow %x, %x : tensor<8x64xf32>, tensor<8x64xf32> -> tensor<8x64xf32>
  // CHECK: spyre.binary and %[[P]], %[[P]] : tensor<8x64xi1>, tensor<8x64xi1> -> tensor<8x64xi1>
  %7 = spyre.binary and %p, %p : tensor<8x64xi1>, tensor<8x64xi1> -> tensor<8x64xi1>
  // CHECK: spyre.binary or %[[P]], %[[P]]
  %8 = spyre.binary or %p, %p : tensor<8x64xi1>, tensor<8x64xi1> -> tensor<8x64xi1>
  // CHECK: spyre.binary floordiv %[[X]], %[[X]]
  %9 = spyre.binary floordiv %x, %x : tensor<8x64xf32>, tensor<8x64xf32> -> tensor<8x64xf32>
  // CHECK: spyre.binary remainder %[[X]], %[[X]]
  %10 = spyre.binary remainder %x, %x : tensor<8x64xf32>, tensor<8x64xf32> -> tensor<8x64xf32>
  return
}

// -----

// Every comparison predicate, select with broadcasting.
// CHECK-LABEL: func.func @compare_select
// CHECK-SAME: (%[[X:.*]]: tensor<8x64xf16>, %[[Y:.*]]: tensor<64xf16>, %[[I:.*]]: tensor<8xi64>)
func.func @compare_select(%x: tensor<8x64xf16>, %y: tensor<64xf16>,
                          %i: tensor<8xi64>) -> tensor<8x64xf16> {
  // CHECK: %[[EQ:.*]] = spyre.compare eq %[[X]], %[[Y]] : tensor<8x64xf16>, tensor<64xf16> -> tensor<8x64xi1>
  %0 = spyre.compare eq %x, %y : tensor<8x64xf16>, tensor<64xf16> -> tensor<8x64xi1>
  // CHECK: spyre.compare ne %[[X]], %[[X]]
  %1 = spyre.compare ne %x, %x : tensor<8x64xf16>, tensor<8x64xf16> -> tensor<8x64xi1>
  // CHECK: spyre.compare lt %[[X]], %[[X]]
  %2 = spyre.compare lt %x, %x : tensor<8x64xf16>, tensor<8x64xf16> -> tensor<8x64xi1>
  // CHECK: spyre.compare le %[[X]], %[[X]]
  %3 = spyre.compare le %x, %x : tensor<8x64xf16>, tensor<8x64xf16> -> tensor<8x64xi1>
  // CHECK: spyre.compare gt %[[X]], %[[X]]
  %4 = spyre.compare gt %x, %x : tensor<8x64xf16>, tensor<8x64xf16> -> tensor<8x64xi1>
  // CHECK: spyre.compare ge %[[I]], %[[I]] : tensor<8xi64>, tensor<8xi64> -> tensor<8xi1>
  %5 = spyre.compare ge %i, %i : tensor<8xi64>, tensor<8xi64> -> tensor<8xi1>
  // CHECK: %[[SEL:.*]] = spyre.select %[[EQ]], %[[X]], %[[Y]] : tensor<8x64xi1>, tensor<8x64xf16>, tensor<64xf16> -> tensor<8x64xf16>
  %6 = spyre.select %0, %x, %y : tensor<8x64xi1>, tensor<8x64xf16>, tensor<64xf16> -> tensor<8x64xf16>
  // CHECK: return %[[SEL]]
  return %6 : tensor<8x64xf16>
}

// -----

// Every reduction kind; the reduced dim stays with size 1.
// CHECK-LABEL: func.func @reduce
// CHECK-SAME: (%[[X:.*]]: tensor<8x64xf16>)
func.func @reduce(%x: tensor<8x64xf16>) {
  // CHECK: spyre.reduce sum %[[X]] dim 1 : tensor<8x64xf16> -> tensor<8x1xf16>
  %0 = spyre.reduce sum %x dim 1 : tensor<8x64xf16> -> tensor<8x1xf16>
  // CHECK: spyre.reduce max %[[X]] dim 0 : tensor<8x64xf16> -> tensor<1x64xf16>
  %1 = spyre.reduce max %x dim 0 : tensor<8x64xf16> -> tensor<1x64xf16>
  // CHECK: spyre.reduce min %[[X]] dim 1 : tensor<8x64xf16> -> tensor<8x1xf16>
  %2 = spyre.reduce min %x dim 1 : tensor<8x64xf16> -> tensor<8x1xf16>
  // CHECK: spyre.reduce argmax %[[X]] dim 1 : tensor<8x64xf16> -> tensor<8x1xi64>
  %3 = spyre.reduce argmax %x dim 1 : tensor<8x64xf16> -> tensor<8x1xi64>
  // CHECK: spyre.reduce argmin %[[X]] dim 0 : tensor<8x64xf16> -> tensor<1x64xi32>
  %4 = spyre.reduce argmin %x dim 0 : tensor<8x64xf16> -> tensor<1x64xi32>
  return
}

// -----

// CHECK-LABEL: func.func @cast_constant
// CHECK-SAME: (%[[X:.*]]: tensor<8x64xf16>)
func.func @cast_constant(%x: tensor<8x64xf16>) {
  // CHECK: spyre.cast %[[X]] : tensor<8x64xf16> -> tensor<8x64xf32>
  %0 = spyre.cast %x : tensor<8x64xf16> -> tensor<8x64xf32>
  // CHECK: spyre.cast %[[X]] : tensor<8x64xf16> -> tensor<8x64xi1>
  %1 = spyre.cast %x : tensor<8x64xf16> -> tensor<8x64xi1>
  // CHECK: spyre.constant dense<2.000000e+00> : tensor<8x64xf16> : tensor<8x64xf16>
  %2 = spyre.constant dense<2.0> : tensor<8x64xf16> : tensor<8x64xf16>
  // CHECK: spyre.constant dense<[1, 2, 3]> : tensor<3xi32> : tensor<3xi32>
  %3 = spyre.constant dense<[1, 2, 3]> : tensor<3xi32> : tensor<3xi32>
  // CHECK: spyre.constant dense<0.000000e+00> : tensor<f32> : tensor<f32, #spyre.layout<stick_dim = -1, stick_elems = 32>>
  %4 = spyre.constant dense<0.0> : tensor<f32> : tensor<f32, #spyre.layout<stick_dim = -1, stick_elems = 32>>
  // CHECK: spyre.constant {note = "x"} dense<true> : tensor<4xi1> : tensor<4xi1, #spyre.layout<stick_dim = 0, stick_elems = 128>>
  %5 = spyre.constant {note = "x"} dense<true> : tensor<4xi1> : tensor<4xi1, #spyre.layout<stick_dim = 0, stick_elems = 128>>
  return
}

// -----

// CHECK-LABEL: func.func @data_movement
// CHECK-SAME: (%[[X:.*]]: tensor<2x8x64xf16>, %[[R:.*]]: tensor<64xf16>)
func.func @data_movement(%x: tensor<2x8x64xf16>, %r: tensor<64xf16>) {
  // CHECK: spyre.transpose %[[X]] [2, 0, 1] : tensor<2x8x64xf16> -> tensor<64x2x8xf16>
  %0 = spyre.transpose %x [2, 0, 1] : tensor<2x8x64xf16> -> tensor<64x2x8xf16>
  // CHECK: spyre.reshape %[[X]] : tensor<2x8x64xf16> -> tensor<16x64xf16>
  %1 = spyre.reshape %x : tensor<2x8x64xf16> -> tensor<16x64xf16>
  // CHECK: spyre.reshape %[[R]] : tensor<64xf16> -> tensor<1x1x64xf16>
  %2 = spyre.reshape %r : tensor<64xf16> -> tensor<1x1x64xf16>
  // CHECK: spyre.broadcast %[[R]] : tensor<64xf16> -> tensor<2x8x64xf16>
  %3 = spyre.broadcast %r : tensor<64xf16> -> tensor<2x8x64xf16>
  // CHECK: spyre.broadcast %{{.*}} : tensor<1x1x64xf16> -> tensor<4x8x64xf16>
  %4 = spyre.broadcast %2 : tensor<1x1x64xf16> -> tensor<4x8x64xf16>
  return
}

// -----

// Compute ops on layout-encoded tensors, and every form of restickify.
// CHECK-LABEL: func.func @layouts
// CHECK-SAME: (%[[X:.*]]: tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>, %[[S:.*]]: tensor<f16, #spyre.layout<stick_dim = -1, stick_elems = 64>>)
func.func @layouts(%x: tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>,
                   %s: tensor<f16, #spyre.layout<stick_dim = -1, stick_elems = 64>>) {
  // CHECK: %[[E:.*]] = spyre.unary exp %[[X]] : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>> -> tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
  %0 = spyre.unary exp %x : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
                         -> tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
  // CHECK: spyre.binary mul %[[E]], %[[S]] : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>, tensor<f16, #spyre.layout<stick_dim = -1, stick_elems = 64>> -> tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
  %1 = spyre.binary mul %0, %s : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>,
                                 tensor<f16, #spyre.layout<stick_dim = -1, stick_elems = 64>>
                              -> tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
  // Sticks move from dim 1 to dim 0, the dims stay row-major (the identity
  // dim_order is written by omission).
  // CHECK: spyre.restickify %[[X]] : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>> -> tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
  %2 = spyre.restickify %x : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
                          -> tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
  // Sticks along dim 0 stored column-major.
  // CHECK: %[[T:.*]] = spyre.restickify %[[X]] : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>> -> tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>>
  %3 = spyre.restickify %x : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
                          -> tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>>
  // From no layout to a layout.
  // CHECK: spyre.restickify %{{.*}} : tensor<8xf32> -> tensor<8xf32, #spyre.layout<stick_dim = 0, stick_elems = 32>>
  %c = spyre.constant dense<1.0> : tensor<8xf32> : tensor<8xf32>
  %4 = spyre.restickify %c : tensor<8xf32> -> tensor<8xf32, #spyre.layout<stick_dim = 0, stick_elems = 32>>
  // CHECK: spyre.transpose %[[T]] [1, 0] : tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>> -> tensor<128x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
  %5 = spyre.transpose %3 [1, 0] : tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>>
                               -> tensor<128x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
  // CHECK: spyre.reduce sum %[[X]] dim 1 : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>> -> tensor<64x1xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
  %6 = spyre.reduce sum %x dim 1 : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
                                -> tensor<64x1xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
  // int8 / fp8 sticks hold 128 elements, i64 sticks 16.
  // CHECK: spyre.cast %{{.*}} : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>> -> tensor<64x128xi8, #spyre.layout<stick_dim = 1, stick_elems = 128>>
  %7 = spyre.cast %x : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
                    -> tensor<64x128xi8, #spyre.layout<stick_dim = 1, stick_elems = 128>>
  // CHECK: spyre.reduce argmax %{{.*}} -> tensor<64x1xi64, #spyre.layout<stick_dim = 0, stick_elems = 16>>
  %8 = spyre.reduce argmax %x dim 1 : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
                                   -> tensor<64x1xi64, #spyre.layout<stick_dim = 0, stick_elems = 16>>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Schedule level: spyre.kernel, spyre.yield, #spyre.schedule, #spyre.buffer
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @kernel_unscheduled
// CHECK-SAME: (%[[X:.*]]: tensor<64x256xf16>, %[[W:.*]]: tensor<1024x256xf16>)
func.func @kernel_unscheduled(%x: tensor<64x256xf16>, %w: tensor<1024x256xf16>)
    -> tensor<64x1024xf16> {
  // CHECK: %[[K:.*]] = spyre.kernel "mlp.fc1"(%[[X]], %[[W]]) {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterators = ["parallel", "parallel", "reduction"], space = array<i64: 64, 1024, 256>} : (tensor<64x256xf16>, tensor<1024x256xf16>) -> tensor<64x1024xf16> {
  // CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<64x256xf16>, %[[B:.*]]: tensor<1024x256xf16>):
  // CHECK-NEXT:   %[[M:.*]] = spyre.matmul %[[A]], %[[B]] {transpose_rhs}
  // CHECK-NEXT:   spyre.yield %[[M]] : tensor<64x1024xf16>
  // CHECK-NEXT: }
  %r = spyre.kernel "mlp.fc1"(%x, %w) {space = array<i64: 64, 1024, 256>,
      iterators = ["parallel", "parallel", "reduction"],
      indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                       affine_map<(m, n, k) -> (n, k)>,
                       affine_map<(m, n, k) -> (m, n)>]}
      : (tensor<64x256xf16>, tensor<1024x256xf16>) -> tensor<64x1024xf16> {
  ^bb0(%a: tensor<64x256xf16>, %b: tensor<1024x256xf16>):
    %0 = spyre.matmul %a, %b {transpose_rhs} : tensor<64x256xf16>, tensor<1024x256xf16> -> tensor<64x1024xf16>
    spyre.yield %0 : tensor<64x1024xf16>
  }
  // CHECK: return %[[K]]
  return %r : tensor<64x1024xf16>
}

// -----

// A fully scheduled kernel: every schedule attribute, two results, a
// broadcast (constant) indexing map.
// CHECK-LABEL: func.func @kernel_scheduled
func.func @kernel_scheduled(
    %x: tensor<512x1024xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>)
    -> (tensor<512x1024xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>,
        tensor<512x1xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>) {
  // CHECK: %[[K:.*]]:2 = spyre.kernel "softmax"(%{{.*}}) {buffers = [#spyre.buffer<name = "in0", offset = 0, bytes = 16384, copies = 2>, #spyre.buffer<name = "out0", offset = 32768, bytes = 16384, copies = 2>, #spyre.buffer<name = "out1", offset = 65536, bytes = 1024, copies = 1>, #spyre.buffer<name = "tmp0", offset = 66560, bytes = 128, copies = 1>], destinations = ["dma", "dma"], indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterators = ["parallel", "reduction"], result_offsets = array<i64: -1, 4096>, schedule = #spyre.schedule<split = [4, 1], tile = [8, 1024], depth = 2, cost_ns = 32200>, sources = ["dma"], space = array<i64: 512, 1024>}
  // CHECK-SAME: -> (tensor<512x1024xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>, tensor<512x1xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>) {
  // CHECK: spyre.reduce max
  // CHECK: spyre.yield %{{.*}}, %{{.*}} : tensor<512x1024xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>, tensor<512x1xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
  %r:2 = spyre.kernel "softmax"(%x) {space = array<i64: 512, 1024>,
      iterators = ["parallel", "reduction"],
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>,
                       affine_map<(i, j) -> (i, 0)>],
      schedule = #spyre.schedule<split = [4, 1], tile = [8, 1024], depth = 2, cost_ns = 32200>,
      buffers = [#spyre.buffer<name = "in0", offset = 0, bytes = 16384, copies = 2>,
                 #spyre.buffer<name = "out0", offset = 32768, bytes = 16384, copies = 2>,
                 #spyre.buffer<name = "out1", offset = 65536, bytes = 1024, copies = 1>,
                 #spyre.buffer<name = "tmp0", offset = 66560, bytes = 128, copies = 1>],
      sources = ["dma"], destinations = ["dma", "dma"],
      result_offsets = array<i64: -1, 4096>}
      : (tensor<512x1024xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>)
      -> (tensor<512x1024xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>,
          tensor<512x1xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>) {
  ^bb0(%a: tensor<512x1024xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>):
    %m = spyre.reduce max %a dim 1 : tensor<512x1024xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
                                  -> tensor<512x1xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
    %d = spyre.binary sub %a, %m : tensor<512x1024xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>,
                                   tensor<512x1xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
                                -> tensor<512x1024xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
    %e = spyre.unary exp %d : tensor<512x1024xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
                           -> tensor<512x1024xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
    spyre.yield %e, %m : tensor<512x1024xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>,
                         tensor<512x1xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
  }
  return %r#0, %r#1 : tensor<512x1024xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>,
                      tensor<512x1xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
}

// -----

// A result kept in LX with two readers: one reads it in place (`lx`), the
// other gathers it over the ring (`ring`).
// CHECK-LABEL: func.func @kernel_ring_and_lx_readers
// CHECK: destinations = ["lx"]
// CHECK: sources = ["ring"]
// CHECK: sources = ["lx"]
func.func @kernel_ring_and_lx_readers(%x: tensor<64xf16>) -> (tensor<64xf16>, tensor<64xf16>) {
  %0 = spyre.kernel "a"(%x) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], destinations = ["lx"]} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf16>):
    %r = spyre.unary neg %a : tensor<64xf16> -> tensor<64xf16>
    spyre.yield %r : tensor<64xf16>
  }
  %1 = spyre.kernel "b"(%0) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], sources = ["ring"]} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf16>):
    %r = spyre.unary neg %a : tensor<64xf16> -> tensor<64xf16>
    spyre.yield %r : tensor<64xf16>
  }
  %2 = spyre.kernel "c"(%0) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], sources = ["lx"]} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf16>):
    %r = spyre.unary neg %a : tensor<64xf16> -> tensor<64xf16>
    spyre.yield %r : tensor<64xf16>
  }
  return %1, %2 : tensor<64xf16>, tensor<64xf16>
}

// -----

// A kernel with no inputs and no results (empty yield, implicit terminator
// elided when printed), data paths spelled out.
// CHECK-LABEL: func.func @kernel_empty
func.func @kernel_empty(%x: tensor<64xf32>) {
  // CHECK: spyre.kernel "nothing"() {indexing_maps = [], iterators = [], space = array<i64>} : () -> () {
  // CHECK-NEXT: }
  spyre.kernel "nothing"() {space = array<i64>, iterators = [], indexing_maps = []} : () -> () {
    spyre.yield
  }
  // CHECK: spyre.kernel "copy"(%{{.*}}) {destinations = ["dma"], indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterators = ["parallel"], sources = ["dma"], space = array<i64: 64>} : (tensor<64xf32>) -> tensor<64xf32> {
  %0 = spyre.kernel "copy"(%x) {space = array<i64: 64>, iterators = ["parallel"],
      indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
      sources = ["dma"], destinations = ["dma"]} : (tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%a: tensor<64xf32>):
    spyre.yield %a : tensor<64xf32>
  }
  return
}

// -----

// Buffers whose live ranges (positions of body ops) do not meet may share
// bytes.
// CHECK-LABEL: func.func @kernel_live_buffers
// CHECK: buffers = [#spyre.buffer<name = "in0", offset = 0, bytes = 256, copies = 2>, #spyre.buffer<name = "t0", offset = 512, bytes = 256, copies = 1, live = [0, 0]>, #spyre.buffer<name = "t1", offset = 512, bytes = 256, copies = 1, live = [1, 2]>, #spyre.buffer<name = "out0", offset = 768, bytes = 256, copies = 1>]
func.func @kernel_live_buffers(%x: tensor<64xf32>) -> tensor<64xf32> {
  %0 = spyre.kernel "k"(%x) {space = array<i64: 64>, iterators = ["parallel"],
      indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
      buffers = [#spyre.buffer<name = "in0", offset = 0, bytes = 256, copies = 2>,
                 #spyre.buffer<name = "t0", offset = 512, bytes = 256, copies = 1, live = [0, 0]>,
                 #spyre.buffer<name = "t1", offset = 512, bytes = 256, copies = 1, live = [1, 2]>,
                 #spyre.buffer<name = "out0", offset = 768, bytes = 256, copies = 1>]}
      : (tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%a: tensor<64xf32>):
    %e = spyre.unary exp %a : tensor<64xf32> -> tensor<64xf32>
    %n = spyre.unary neg %e : tensor<64xf32> -> tensor<64xf32>
    %r = spyre.unary relu %n : tensor<64xf32> -> tensor<64xf32>
    spyre.yield %r : tensor<64xf32>
  }
  return %0 : tensor<64xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Program level: tensor, program, plan, loop, dma, pt_matmul, sfp ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: module
// Every tensor role.
// CHECK: spyre.tensor @x input {io_index = 0 : i64, source_name = "x"} : tensor<64x256xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
// CHECK: spyre.tensor @y output {aliases_input = 0 : i64, io_index = 0 : i64} : tensor<64x256xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
// CHECK: spyre.tensor @w weight {source_name = "fc.weight", value = dense<1.000000e+00> : tensor<256x256xf16>} : tensor<256x256xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
// CHECK: spyre.tensor @wx weight {external = #spyre.external<file = "model.pt2", entry = "data/1", offset = 0, strides = [1, 256]>} : tensor<256x256xf16, #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>>
// CHECK: spyre.tensor @c constant {value = dense<0.000000e+00> : tensor<f32>} : tensor<f32, #spyre.layout<stick_dim = -1, stick_elems = 32>>
// CHECK: spyre.tensor @ws workspace {workspace_offset = 4096 : i64} : tensor<64x256xf32, #spyre.layout<stick_dim = 1, stick_elems = 32>>
module {
  spyre.tensor @x input {io_index = 0 : i64, source_name = "x"} : tensor<64x256xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
  spyre.tensor @y output {io_index = 0 : i64, aliases_input = 0 : i64} : tensor<64x256xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
  spyre.tensor @w weight {value = dense<1.0> : tensor<256x256xf16>, source_name = "fc.weight"} : tensor<256x256xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
  spyre.tensor @wx weight {external = #spyre.external<file = "model.pt2", entry = "data/1", offset = 0, strides = [1, 256]>} : tensor<256x256xf16, #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>>
  spyre.tensor @c constant {value = dense<0.0> : tensor<f32>} : tensor<f32, #spyre.layout<stick_dim = -1, stick_elems = 32>>
  spyre.tensor @ws workspace {workspace_offset = 4096 : i64} : tensor<64x256xf32, #spyre.layout<stick_dim = 1, stick_elems = 32>>

  // CHECK: spyre.program @p0 attributes {kernel = "k0", num_cores = 2 : i64, num_params = 2 : i64, params = array<i64: 0, 4, 16384, 3>} {
  spyre.program @p0 attributes {kernel = "k0", num_cores = 2 : i64, num_params = 2 : i64,
                                params = array<i64: 0, 4, 16384, 3>} {
    // CHECK-NEXT: spyre.loop 4 attributes {count_param = 1 : i64} {
    spyre.loop 4 attributes {count_param = 1 : i64} {
      // CHECK-NEXT: spyre.dma_load {box = array<i64: 16, 4, 1>, clamp = #spyre.clamp<level = 0, arg = 0, step = 16, total = 64, param = 0>, lx = #spyre.lx<offset = 0, strides = [8192], wrap = 16384>, mem = #spyre.mem<tensor = @x, offset = 0, strides = [8192], param = 0>, multicast, pitch = array<i64: 512, 128, 0>, run = 128 : i64}
      spyre.dma_load {mem = #spyre.mem<tensor = @x, offset = 0, strides = [8192], param = 0>,
                      lx = #spyre.lx<offset = 0, strides = [8192], wrap = 16384>,
                      box = array<i64: 16, 4, 1>, pitch = array<i64: 512, 128, 0>, run = 128 : i64,
                      clamp = #spyre.clamp<level = 0, arg = 0, step = 16, total = 64, param = 0>,
                      multicast}
      // CHECK-NEXT: spyre.loop 4 {
      spyre.loop 4 {
        // Defaults (wrap 0, param -1) are elided.
        // CHECK-NEXT: spyre.dma_load {box = array<i64: 64, 1, 1>, lx = #spyre.lx<offset = 16384, strides = [0, 8192]>, mem = #spyre.mem<tensor = @w, offset = 128, strides = [0, 32768]>, pitch = array<i64: 512, 0, 0>, run = 128 : i64}
        spyre.dma_load {mem = #spyre.mem<tensor = @w, offset = 128, strides = [0, 32768], param = -1>,
                        lx = #spyre.lx<offset = 16384, strides = [0, 8192], wrap = 0>,
                        box = array<i64: 64, 1, 1>, pitch = array<i64: 512, 0, 0>, run = 128 : i64}
        // CHECK-NEXT: spyre.pt_matmul {accumulate, clamp = #spyre.clamp<level = 1, arg = 1, step = 64, total = 256>, dst = #spyre.lx<offset = 65536>, dst_type = f32, init_level = 1 : i64, k = 64 : i64, lhs = #spyre.lx<offset = 0, strides = [0, 128]>, lhs_type = f16, m = 16 : i64, n = 64 : i64, pitch = array<i64: 256, 512, 128>, rhs = #spyre.lx<offset = 16384>, rhs_type = f16}
        spyre.pt_matmul {dst = #spyre.lx<offset = 65536>, lhs = #spyre.lx<offset = 0, strides = [0, 128]>,
                         rhs = #spyre.lx<offset = 16384>, m = 16 : i64, k = 64 : i64, n = 64 : i64,
                         pitch = array<i64: 256, 512, 128>, dst_type = f32, lhs_type = f16,
                         rhs_type = f16, accumulate, init_level = 1 : i64,
                         clamp = #spyre.clamp<level = 1, arg = 1, step = 64, total = 256>}
        // CHECK-NEXT: }
      }
      // CHECK-NEXT: spyre.pt_matmul {dst = #spyre.lx<offset = 65536>, dst_type = f32, k = 64 : i64, lhs = #spyre.lx<offset = 0>, lhs_type = f16, m = 16 : i64, n = 64 : i64, pitch = array<i64: 256, 128, 128>, rhs = #spyre.lx<offset = 16384>, rhs_type = f16}
      spyre.pt_matmul {dst = #spyre.lx<offset = 65536>, lhs = #spyre.lx<offset = 0>,
                       rhs = #spyre.lx<offset = 16384>, m = 16 : i64, k = 64 : i64, n = 64 : i64,
                       pitch = array<i64: 256, 128, 128>, dst_type = f32, lhs_type = f16,
                       rhs_type = f16}
      // CHECK-NEXT: spyre.dma_store {box = array<i64: 16, 1, 1>, clamp = #spyre.clamp<level = 0, arg = 0, step = 16, total = 64, param = 0>, lx = #spyre.lx<offset = 65536>, mem = #spyre.mem<tensor = @ws, offset = 0, strides = [16384], param = 0>, pitch = array<i64: 1024, 0, 0>, run = 256 : i64}
      spyre.dma_store {mem = #spyre.mem<tensor = @ws, offset = 0, strides = [16384], param = 0>,
                       lx = #spyre.lx<offset = 65536>, box = array<i64: 16, 1, 1>,
                       pitch = array<i64: 1024, 0, 0>, run = 256 : i64,
                       clamp = #spyre.clamp<level = 0, arg = 0, step = 16, total = 64, param = 0>}
      // CHECK-NEXT: }
    }
    // CHECK-NEXT: }
  }

  // Every SFP op, with all their flags.
  // CHECK: spyre.program @p1 attributes {kernel = "k1", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  spyre.program @p1 attributes {kernel = "k1", num_cores = 1 : i64, num_params = 0 : i64,
                                params = array<i64>} {
    // CHECK-NEXT: spyre.loop 2 {
    spyre.loop 2 {
      // CHECK-NEXT: spyre.loop 3 {
      spyre.loop 3 {
        // CHECK-NEXT: spyre.loop 0 {
        spyre.loop 0 {
          // CHECK-NEXT: spyre.sfp_unary "exp" {bcast_col0, clamp = #spyre.clamp<level = 2, arg = 0, step = 8, total = 20>, cols = 64 : i64, dst = #spyre.lx<offset = 0, strides = [0, 0, 128]>, dst_type = f16, pitch = array<i64: 128, 128, 0>, rows = 8 : i64, src0 = #spyre.lx<offset = 1024, strides = [1024, 128, 0], wrap = 4096>, src0_type = f16}
          spyre.sfp_unary "exp" {dst = #spyre.lx<offset = 0, strides = [0, 0, 128]>,
                                 src0 = #spyre.lx<offset = 1024, strides = [1024, 128, 0], wrap = 4096>,
                                 rows = 8 : i64, cols = 64 : i64, pitch = array<i64: 128, 128, 0>,
                                 dst_type = f16, src0_type = f16, bcast_col0,
                                 clamp = #spyre.clamp<level = 2, arg = 0, step = 8, total = 20>}
          // CHECK-NEXT: spyre.sfp_unary "copy"
          spyre.sfp_unary "copy" {dst = #spyre.lx<offset = 0>, src0 = #spyre.lx<offset = 128>,
                                  rows = 1 : i64, cols = 64 : i64, pitch = array<i64: 128, 128, 0>,
                                  dst_type = f32, src0_type = f16}
          // CHECK-NEXT: spyre.sfp_binary "add" {accumulate, bcast_col1, cols = 64 : i64, dst = #spyre.lx<offset = 0>, dst_type = f32, init_level = 2 : i64, pitch = array<i64: 256, 128, 128>, rows = 8 : i64, src0 = #spyre.lx<offset = 2048>, src0_type = f16, src1 = #spyre.lx<offset = 4096>, src1_type = f16}
          spyre.sfp_binary "add" {dst = #spyre.lx<offset = 0>, src0 = #spyre.lx<offset = 2048>,
                                  src1 = #spyre.lx<offset = 4096>, rows = 8 : i64, cols = 64 : i64,
                                  pitch = array<i64: 256, 128, 128>, dst_type = f32,
                                  src0_type = f16, src1_type = f16, bcast_col1, accumulate,
                                  init_level = 2 : i64}
          // Comparisons are binary SFP functions too.
          // CHECK-NEXT: spyre.sfp_binary "ge"
          spyre.sfp_binary "ge" {dst = #spyre.lx<offset = 0>, src0 = #spyre.lx<offset = 2048>,
                                 src1 = #spyre.lx<offset = 4096>, rows = 8 : i64, cols = 64 : i64,
                                 pitch = array<i64: 128, 128, 128>, dst_type = i1,
                                 src0_type = f16, src1_type = f16}
          // CHECK-NEXT: spyre.sfp_select "select" {cols = 64 : i64, dst = #spyre.lx<offset = 0>, dst_type = f16, pitch = array<i64: 128, 128, 128>, rows = 8 : i64, src0 = #spyre.lx<offset = 2048>, src0_type = i1, src1 = #spyre.lx<offset = 4096>, src1_type = f16}
          spyre.sfp_select "select" {dst = #spyre.lx<offset = 0>, src0 = #spyre.lx<offset = 2048>,
                                     src1 = #spyre.lx<offset = 4096>, rows = 8 : i64,
                                     cols = 64 : i64, pitch = array<i64: 128, 128, 128>,
                                     dst_type = f16, src0_type = i1, src1_type = f16}
          // CHECK-NEXT: spyre.sfp_reduce "max" {accumulate, cols = 64 : i64, dst = #spyre.lx<offset = 0>, dst_type = f32, init_level = 0 : i64, pitch = array<i64: 0, 128, 0>, reduce_rows, rows = 8 : i64, src0 = #spyre.lx<offset = 2048>, src0_type = f16}
          spyre.sfp_reduce "max" {dst = #spyre.lx<offset = 0>, src0 = #spyre.lx<offset = 2048>,
                                  rows = 8 : i64, cols = 64 : i64, pitch = array<i64: 0, 128, 0>,
                                  dst_type = f32, src0_type = f16, reduce_rows, accumulate,
                                  init_level = 0 : i64}
          // CHECK-NEXT: spyre.sfp_reduce "argmin"
          spyre.sfp_reduce "argmin" {dst = #spyre.lx<offset = 0>, src0 = #spyre.lx<offset = 2048>,
                                     rows = 8 : i64, cols = 64 : i64, pitch = array<i64: 128, 128, 0>,
                                     dst_type = i64, src0_type = f16}
          // CHECK-NEXT: spyre.sfp_transpose "transpose" {clamp = #spyre.clamp<level = 0, arg = 0, step = 64, total = 100>, cols = 64 : i64, dst = #spyre.lx<offset = 8192>, dst_type = f16, pitch = array<i64: 128, 128, 0>, rows = 64 : i64, src0 = #spyre.lx<offset = 0>, src0_type = f16}
          spyre.sfp_transpose "transpose" {dst = #spyre.lx<offset = 8192>, src0 = #spyre.lx<offset = 0>,
                                           rows = 64 : i64, cols = 64 : i64,
                                           pitch = array<i64: 128, 128, 0>, dst_type = f16,
                                           src0_type = f16,
                                           clamp = #spyre.clamp<level = 0, arg = 0, step = 64, total = 100>}
        }
      }
    }
  }

  // A program with no instructions.
  // CHECK: spyre.program @p2 attributes {kernel = "", num_cores = 32 : i64, num_params = 0 : i64, params = array<i64>} {
  // CHECK-NEXT: }
  spyre.program @p2 attributes {kernel = "", num_cores = 32 : i64, num_params = 0 : i64,
                                params = array<i64>} {
  }

  // CHECK: spyre.reference @p0 [@x, @w] -> [@ws] {
  // CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<64x256xf16>, %[[B:.*]]: tensor<256x256xf16>):
  // CHECK-NEXT: %[[M:.*]] = spyre.matmul %[[A]], %[[B]] : tensor<64x256xf16>, tensor<256x256xf16> -> tensor<64x256xf32>
  // CHECK-NEXT: spyre.yield %[[M]] : tensor<64x256xf32>
  spyre.reference @p0 [@x, @w] -> [@ws] {
  ^bb0(%a: tensor<64x256xf16>, %b: tensor<256x256xf16>):
    %m = spyre.matmul %a, %b : tensor<64x256xf16>, tensor<256x256xf16> -> tensor<64x256xf32>
    spyre.yield %m : tensor<64x256xf32>
  }
  // CHECK: spyre.plan [@p0, @p1, @p0, @p2]
  spyre.plan [@p0, @p1, @p0, @p2]
}

// -----

// An empty plan.
// CHECK-LABEL: module
// CHECK: spyre.plan []
module {
  spyre.plan []
}

// -----

//===----------------------------------------------------------------------===//
// #spyre.arch: a module compiled for another machine description
//===----------------------------------------------------------------------===//

// CHECK-LABEL: module attributes {spyre.arch = #spyre.arch<{barrier_latency_ns = 100 : i64, core_clock_hz = 1.000000e+09 : f64, core_sync_ns = 50 : i64, corelets_per_core = 2 : i64, cores = 8 : i64, fp16_storage = "ieee", kernel_sync_ns = 1000 : i64, launch_overhead_ns = 5000 : i64, lx_alignment = 64 : i64, lx_bytes = 1048576 : i64, lx_reserved_fraction = 1.250000e-01 : f64, max_span_per_core_bytes = 268435456 : i64, memory_burst_bytes = 64 : i64, memory_bytes = 17179869184 : i64, memory_bytes_per_cycle = 64 : i64, memory_clock_hz = 1300000000 : i64, memory_efficiency = 8.600000e-01 : f64, memory_latency_ns = 500 : i64, memory_ring_position = 8 : i64, memory_setup_ns = 20 : i64, memory_turnaround_ns = 10 : i64, memory_write_efficiency = 5.000000e-01 : f64, name = "spyre-small", pcie_bytes_per_s = 5.360000e+10 : f64, pcie_latency_ns = 1000 : i64, psum_ring_bytes_per_cycle = 32 : i64, pt_cols = 8 : i64, pt_rows = 8 : i64, pt_simd = 8 : i64, ring_bytes_per_cycle = 64 : i64, ring_clock_hz = 1.300000e+09 : f64, ring_hop_latency_cycles = 4 : i64, sfp_complex_op_passes = 2 : i64, sfp_lanes_per_core = 64 : i64, stick_bytes = 64 : i64}>} {
// A 64-byte stick holds 32 fp16 elements on this machine.
// CHECK: spyre.tensor @t input {io_index = 0 : i64} : tensor<64x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 32>>
// CHECK: spyre.unary relu %{{.*}} : tensor<64x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 32>>
// CHECK: spyre.program @p attributes {kernel = "k", num_cores = 8 : i64
module attributes {spyre.arch = #spyre.arch<{
    name = "spyre-small", cores = 8, corelets_per_core = 2, pt_rows = 8,
    pt_cols = 8, pt_simd = 8, sfp_lanes_per_core = 64,
    sfp_complex_op_passes = 2, core_clock_hz = 1.0e9 : f64,
    lx_bytes = 1048576, lx_alignment = 64, lx_reserved_fraction = 0.125 : f64,
    stick_bytes = 64, ring_bytes_per_cycle = 64, ring_clock_hz = 1.3e9 : f64,
    ring_hop_latency_cycles = 4, psum_ring_bytes_per_cycle = 32, memory_bytes = 17179869184,
    memory_bytes_per_cycle = 64, memory_clock_hz = 1300000000,
    memory_efficiency = 8.600000e-01 : f64,
    memory_write_efficiency = 5.000000e-01 : f64, memory_latency_ns = 500,
    memory_setup_ns = 20, memory_turnaround_ns = 10, memory_burst_bytes = 64,
    memory_ring_position = 8, max_span_per_core_bytes = 268435456,
    launch_overhead_ns = 5000, barrier_latency_ns = 100,
    kernel_sync_ns = 1000, core_sync_ns = 50, pcie_bytes_per_s = 53600000000.0,
    pcie_latency_ns = 1000, fp16_storage = "ieee"}>} {
  spyre.tensor @t input {io_index = 0 : i64} : tensor<64x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 32>>
  func.func @f(%x: tensor<64x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 32>>)
      -> tensor<64x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 32>> {
    %0 = spyre.unary relu %x : tensor<64x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 32>>
                            -> tensor<64x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 32>>
    return %0 : tensor<64x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 32>>
  }
  spyre.program @p attributes {kernel = "k", num_cores = 8 : i64, num_params = 0 : i64,
                               params = array<i64>} {
    spyre.dma_load {mem = #spyre.mem<tensor = @t, offset = 0>, lx = #spyre.lx<offset = 1048000>,
                    box = array<i64: 1, 1, 1>, pitch = array<i64: 0, 0, 0>, run = 64 : i64}
  }
}

// -----

//===----------------------------------------------------------------------===//
// Attributes on their own (as discardable attributes of a function)
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @standalone_attrs
// CHECK-SAME: spyre.buffer = #spyre.buffer<name = "acc", offset = 128, bytes = 256, copies = 1>
// CHECK-SAME: spyre.clamp = #spyre.clamp<level = 2, arg = 3, step = 1, total = 7, param = 4>
// CHECK-SAME: spyre.external = #spyre.external<file = "f", entry = "", offset = 0>
// CHECK-SAME: spyre.layout = #spyre.layout<stick_dim = 2, stick_elems = 128, dim_order = [2, 0, 1]>
// CHECK-SAME: spyre.lx = #spyre.lx<offset = 0, wrap = 256>
// CHECK-SAME: spyre.mem = #spyre.mem<tensor = @nowhere, offset = -8>
// CHECK-SAME: spyre.schedule = #spyre.schedule<split = [], tile = [], depth = 1, cost_ns = 0>
func.func @standalone_attrs() attributes {
    spyre.layout = #spyre.layout<stick_dim = 2, stick_elems = 128, dim_order = [2, 0, 1]>,
    spyre.schedule = #spyre.schedule<split = [], tile = [], depth = 1, cost_ns = 0>,
    spyre.buffer = #spyre.buffer<name = "acc", offset = 128, bytes = 256, copies = 1>,
    spyre.lx = #spyre.lx<offset = 0, wrap = 256>,
    spyre.clamp = #spyre.clamp<level = 2, arg = 3, step = 1, total = 7, param = 4>,
    spyre.mem = #spyre.mem<tensor = @nowhere, offset = -8>,
    spyre.external = #spyre.external<file = "f", entry = "", offset = 0, strides = []>} {
  return
}
