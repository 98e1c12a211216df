// RUN: spyre-opt %s --spyre-pipeline --split-input-file -verify-diagnostics | FileCheck %s

// Mutation records the importer writes (spyre.output) that cannot be
// honoured are errors of spyre-lower-to-program.

// expected-error @+1 {{output 0 mutates input 'y', which is not an input of the function}}
func.func @unknown_input(%x: tensor<8x64xf16> {spyre.name = "x"}) -> (tensor<8x64xf16> {spyre.output = "user_input_mutation:y"}) {
  %0 = spyre.aten "aten.relu.default"(%x) {args = {}, tensor_args = ["self"]} : (tensor<8x64xf16>) -> tensor<8x64xf16>
  return %0 : tensor<8x64xf16>
}

// -----

// expected-error @+1 {{output 0 mutates buffer 'state', which the program never reads; mutating an unread buffer is not supported}}
func.func @unread_buffer(%x: tensor<8x64xf16> {spyre.name = "x"}) -> (tensor<8x64xf16> {spyre.output = "buffer_mutation:state"}) {
  %0 = spyre.aten "aten.relu.default"(%x) {args = {}, tensor_args = ["self"]} : (tensor<8x64xf16>) -> tensor<8x64xf16>
  return %0 : tensor<8x64xf16>
}

// -----

// expected-error-re @+1 {{output 0 (new contents of input 'x') is 'tensor<8x32xf16, {{.*}}>' but the input is 'tensor<8x64xf16, {{.*}}>'; a mutated input must keep its type and layout}}
func.func @wrong_shape(%x: tensor<8x64xf16> {spyre.name = "x"}) -> (tensor<8x32xf16> {spyre.output = "user_input_mutation:x"}) {
  %0 = spyre.aten "aten.slice.Tensor"(%x) {args = {dim = 1 : i64, start = 0 : i64, end = 32 : i64, step = 1 : i64}, tensor_args = ["self"]} : (tensor<8x64xf16>) -> tensor<8x32xf16>
  return %0 : tensor<8x32xf16>
}

// -----

// expected-error-re @+1 {{output 1 (new contents of buffer 'state') is 'tensor<8x64xf16, {{.*}}>' but the buffer is 'tensor<8x128xf16, {{.*}}>'; a mutated buffer must keep its type and layout}}
func.func @wrong_buffer_shape(%x: tensor<8x64xf16> {spyre.name = "x"}) -> (tensor<8x64xf16> {spyre.output = "user"}, tensor<8x64xf16> {spyre.output = "buffer_mutation:state"}) {
  %s = spyre.weight "state" buffer = dense<0.0> : tensor<8x128xf16> : tensor<8x128xf16>
  %0 = spyre.aten "aten.slice.Tensor"(%s) {args = {dim = 1 : i64, start = 0 : i64, end = 64 : i64, step = 1 : i64}, tensor_args = ["self"]} : (tensor<8x128xf16>) -> tensor<8x64xf16>
  %1 = spyre.aten "aten.add.Tensor"(%0, %x) {args = {alpha = 1 : i64}, tensor_args = ["self", "other"]} : (tensor<8x64xf16>, tensor<8x64xf16>) -> tensor<8x64xf16>
  return %1, %1 : tensor<8x64xf16>, tensor<8x64xf16>
}

// -----

// A mutated buffer that is also returned (`count.add_(x); return count`):
// one tensor, two results; the second gets its own copy kernel, and the
// buffer update names it.
// CHECK: spyre.tensor @out0 output {io_index = 0 : i64}
// CHECK: spyre.tensor @out1 output {io_index = 1 : i64, updates = @w_count}
// CHECK: spyre.program @k{{[0-9]+}}_copy
func.func @returned_too(%x: tensor<8x64xf16> {spyre.name = "x"}) -> (tensor<8x64xf16> {spyre.output = "user"}, tensor<8x64xf16> {spyre.output = "buffer_mutation:count"}) {
  %c = spyre.weight "count" buffer = dense<0.0> : tensor<8x64xf16> : tensor<8x64xf16>
  %0 = spyre.aten "aten.add.Tensor"(%c, %x) {args = {alpha = 1 : i64}, tensor_args = ["self", "other"]} : (tensor<8x64xf16>, tensor<8x64xf16>) -> tensor<8x64xf16>
  return %0, %0 : tensor<8x64xf16>, tensor<8x64xf16>
}
