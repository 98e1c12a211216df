// RUN: spyre-opt %s --spyre-decompose --split-input-file | FileCheck %s

// Logical, bitwise and integer-arithmetic ops of the pointwise family
// (lib/Transforms/Decompositions/Pointwise.cpp): what mask building
// (Mistral's sliding window, Llama's causal mask) and position arithmetic
// record. Bools are truth values; integers compute in the SFP's int64
// domain.

// logical_and: a non-bool operand becomes x != 0 first.
// CHECK-LABEL: func.func @logical_and
// CHECK: %[[Z:.*]] = spyre.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %[[T:.*]] = spyre.compare ne %arg1, %[[Z]] : tensor<7x67xf32>, tensor<f32> -> tensor<7x67xi1>
// CHECK: %[[A:.*]] = spyre.binary and %arg0, %[[T]] : tensor<7x67xi1>, tensor<7x67xi1> -> tensor<7x67xi1>
// CHECK: return %[[A]]
func.func @logical_and(%c: tensor<7x67xi1>, %x: tensor<7x67xf32>) -> tensor<7x67xi1> {
  %0 = spyre.aten "aten.logical_and.default"(%c, %x) {args = {}, tensor_args = ["self", "other"]} : (tensor<7x67xi1>, tensor<7x67xf32>) -> tensor<7x67xi1>
  return %0 : tensor<7x67xi1>
}

// -----

// logical_or on two bools: one SFP op.
// CHECK-LABEL: func.func @logical_or
// CHECK: %[[O:.*]] = spyre.binary or %arg0, %arg1 : tensor<7x67xi1>, tensor<67xi1> -> tensor<7x67xi1>
// CHECK: return %[[O]]
func.func @logical_or(%a: tensor<7x67xi1>, %b: tensor<67xi1>) -> tensor<7x67xi1> {
  %0 = spyre.aten "aten.logical_or.default"(%a, %b) {args = {}, tensor_args = ["self", "other"]} : (tensor<7x67xi1>, tensor<67xi1>) -> tensor<7x67xi1>
  return %0 : tensor<7x67xi1>
}

// -----

// logical_xor: truth values compared with ne (the broadcast shape results).
// CHECK-LABEL: func.func @logical_xor
// CHECK: %[[Z:.*]] = spyre.constant dense<0> : tensor<i32>
// CHECK: %[[T:.*]] = spyre.compare ne %arg1, %[[Z]] : tensor<67xi32>, tensor<i32> -> tensor<67xi1>
// CHECK: %[[X:.*]] = spyre.compare ne %arg0, %[[T]] : tensor<7x67xi1>, tensor<67xi1> -> tensor<7x67xi1>
// CHECK: return %[[X]]
func.func @logical_xor(%c: tensor<7x67xi1>, %x: tensor<67xi32>) -> tensor<7x67xi1> {
  %0 = spyre.aten "aten.logical_xor.default"(%c, %x) {args = {}, tensor_args = ["self", "other"]} : (tensor<7x67xi1>, tensor<67xi32>) -> tensor<7x67xi1>
  return %0 : tensor<7x67xi1>
}

// -----

// The `&` operator as torch 2.9's training IR records it, on bools.
// CHECK-LABEL: func.func @and_operator_bool
// CHECK: %[[A:.*]] = spyre.binary and %arg0, %arg1 : tensor<9x9xi1>, tensor<9x9xi1> -> tensor<9x9xi1>
// CHECK: return %[[A]]
func.func @and_operator_bool(%a: tensor<9x9xi1>, %b: tensor<9x9xi1>) -> tensor<9x9xi1> {
  %0 = spyre.aten "aten.__and__.Tensor"(%a, %b) {args = {}, tensor_args = ["self", "other"]} : (tensor<9x9xi1>, tensor<9x9xi1>) -> tensor<9x9xi1>
  return %0 : tensor<9x9xi1>
}

// -----

// `|` on bools.
// CHECK-LABEL: func.func @or_operator_bool
// CHECK: %[[O:.*]] = spyre.binary or %arg0, %arg1 : tensor<9x9xi1>, tensor<9x1xi1> -> tensor<9x9xi1>
func.func @or_operator_bool(%a: tensor<9x9xi1>, %b: tensor<9x1xi1>) -> tensor<9x9xi1> {
  %0 = spyre.aten "aten.__or__.Tensor"(%a, %b) {args = {}, tensor_args = ["self", "other"]} : (tensor<9x9xi1>, tensor<9x1xi1>) -> tensor<9x9xi1>
  return %0 : tensor<9x9xi1>
}

// -----

// bitwise_xor on bools: ne.
// CHECK-LABEL: func.func @xor_bool
// CHECK: %[[X:.*]] = spyre.compare ne %arg0, %arg1 : tensor<9x9xi1>, tensor<9x9xi1> -> tensor<9x9xi1>
// CHECK: return %[[X]]
func.func @xor_bool(%a: tensor<9x9xi1>, %b: tensor<9x9xi1>) -> tensor<9x9xi1> {
  %0 = spyre.aten "aten.bitwise_xor.Tensor"(%a, %b) {args = {}, tensor_args = ["self", "other"]} : (tensor<9x9xi1>, tensor<9x9xi1>) -> tensor<9x9xi1>
  return %0 : tensor<9x9xi1>
}

// -----

// bitwise_xor on integers: (a | b) - (a & b).
// CHECK-LABEL: func.func @xor_int
// CHECK: %[[AND:.*]] = spyre.binary and %arg0, %arg1 : tensor<9x9xi32>, tensor<9x9xi32> -> tensor<9x9xi32>
// CHECK: %[[OR:.*]] = spyre.binary or %arg0, %arg1 : tensor<9x9xi32>, tensor<9x9xi32> -> tensor<9x9xi32>
// CHECK: %[[X:.*]] = spyre.binary sub %[[OR]], %[[AND]] : tensor<9x9xi32>, tensor<9x9xi32> -> tensor<9x9xi32>
// CHECK: return %[[X]]
func.func @xor_int(%a: tensor<9x9xi32>, %b: tensor<9x9xi32>) -> tensor<9x9xi32> {
  %0 = spyre.aten "aten.bitwise_xor.Tensor"(%a, %b) {args = {}, tensor_args = ["self", "other"]} : (tensor<9x9xi32>, tensor<9x9xi32>) -> tensor<9x9xi32>
  return %0 : tensor<9x9xi32>
}

// -----

// bitwise_or.Scalar: the scalar as a splat of the integer type.
// CHECK-LABEL: func.func @or_scalar
// CHECK: %[[C:.*]] = spyre.constant dense<5> : tensor<i64>
// CHECK: %[[O:.*]] = spyre.binary or %arg0, %[[C]] : tensor<9x9xi64>, tensor<i64> -> tensor<9x9xi64>
func.func @or_scalar(%a: tensor<9x9xi64>) -> tensor<9x9xi64> {
  %0 = spyre.aten "aten.bitwise_or.Scalar"(%a) {args = {other = 5 : i64}, tensor_args = ["self"]} : (tensor<9x9xi64>) -> tensor<9x9xi64>
  return %0 : tensor<9x9xi64>
}

// -----

// bitwise_not on integers: -x - 1.
// CHECK-LABEL: func.func @not_int
// CHECK-DAG: %[[ONE:.*]] = spyre.constant dense<1> : tensor<i64>
// CHECK-DAG: %[[N:.*]] = spyre.unary neg %arg0 : tensor<9x9xi64> -> tensor<9x9xi64>
// CHECK: %[[R:.*]] = spyre.binary sub %[[N]], %[[ONE]] : tensor<9x9xi64>, tensor<i64> -> tensor<9x9xi64>
// CHECK: return %[[R]]
func.func @not_int(%a: tensor<9x9xi64>) -> tensor<9x9xi64> {
  %0 = spyre.aten "aten.bitwise_not.default"(%a) {args = {}, tensor_args = ["self"]} : (tensor<9x9xi64>) -> tensor<9x9xi64>
  return %0 : tensor<9x9xi64>
}

// -----

// bitwise_not on bools: x == false.
// CHECK-LABEL: func.func @not_bool
// CHECK: %[[F:.*]] = spyre.constant dense<false> : tensor<i1>
// CHECK: %[[R:.*]] = spyre.compare eq %arg0, %[[F]] : tensor<9x9xi1>, tensor<i1> -> tensor<9x9xi1>
func.func @not_bool(%a: tensor<9x9xi1>) -> tensor<9x9xi1> {
  %0 = spyre.aten "aten.bitwise_not.default"(%a) {args = {}, tensor_args = ["self"]} : (tensor<9x9xi1>) -> tensor<9x9xi1>
  return %0 : tensor<9x9xi1>
}

// -----

// remainder: one SFP op (the sign of the divisor).
// CHECK-LABEL: func.func @remainder
// CHECK: %[[R:.*]] = spyre.binary remainder %arg0, %arg1 : tensor<7x67xf16>, tensor<67xf16> -> tensor<7x67xf16>
func.func @remainder(%x: tensor<7x67xf16>, %y: tensor<67xf16>) -> tensor<7x67xf16> {
  %0 = spyre.aten "aten.remainder.Tensor"(%x, %y) {args = {}, tensor_args = ["self", "other"]} : (tensor<7x67xf16>, tensor<67xf16>) -> tensor<7x67xf16>
  return %0 : tensor<7x67xf16>
}

// -----

// floor_divide.Scalar on integers stays in the integer domain.
// CHECK-LABEL: func.func @floor_divide_int
// CHECK: %[[C:.*]] = spyre.constant dense<4> : tensor<i64>
// CHECK: %[[Q:.*]] = spyre.binary floordiv %arg0, %[[C]] : tensor<7x67xi64>, tensor<i64> -> tensor<7x67xi64>
func.func @floor_divide_int(%x: tensor<7x67xi64>) -> tensor<7x67xi64> {
  %0 = spyre.aten "aten.floor_divide.Scalar"(%x) {args = {other = 4 : i64}, tensor_args = ["self"]} : (tensor<7x67xi64>) -> tensor<7x67xi64>
  return %0 : tensor<7x67xi64>
}

// -----

// square: x * x.
// CHECK-LABEL: func.func @square
// CHECK: %[[S:.*]] = spyre.binary mul %arg0, %arg0 : tensor<7x67xf16>, tensor<7x67xf16> -> tensor<7x67xf16>
func.func @square(%x: tensor<7x67xf16>) -> tensor<7x67xf16> {
  %0 = spyre.aten "aten.square.default"(%x) {args = {}, tensor_args = ["self"]} : (tensor<7x67xf16>) -> tensor<7x67xf16>
  return %0 : tensor<7x67xf16>
}
