// RUN: spyre-opt %s --spyre-pipeline | FileCheck %s

// A zero-size output is a tensor of 0 bytes that no kernel writes: only
// the relu runs.
// CHECK-DAG: spyre.tensor @out0 output {io_index = 0 : i64} : tensor<4x0xf32
// CHECK-DAG: spyre.tensor @out1 output {io_index = 1 : i64} : tensor<4x5xf32
// CHECK: spyre.program @k0_unary
// CHECK-NOT: spyre.program
// CHECK: spyre.plan [@k0_unary]
module {
  func.func @main(%x: tensor<4x5xf32> {spyre.name = "x"}) -> (tensor<4x0xf32> {spyre.output = "user"}, tensor<4x5xf32> {spyre.output = "user"}) {
    %0 = spyre.aten "aten.slice.Tensor"(%x) {args = {dim = 1 : i64, start = 2 : i64, end = 2 : i64, step = 1 : i64}, tensor_args = ["self"]} : (tensor<4x5xf32>) -> tensor<4x0xf32>
    %1 = spyre.aten "aten.relu.default"(%x) {args = {}, tensor_args = ["self"]} : (tensor<4x5xf32>) -> tensor<4x5xf32>
    return %0, %1 : tensor<4x0xf32>, tensor<4x5xf32>
  }
}
