// RUN: spyre-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// The importer's records, well formed, round-trip.
// CHECK: module attributes {spyre.range_constraints = {s0 = [1, 64], s1 = [2, "inf"]}}
// CHECK: func.func @ok(%{{.*}}: tensor<?x8xf16> {spyre.dims = ["s0", ""], spyre.name = "x"}) -> (tensor<?x8xf16> {spyre.output = "user"}, tensor<?x8xf16> {spyre.output = "user_input_mutation:x"})
// CHECK: spyre.dims = {{\[}}["s0", ""], []]
module attributes {spyre.range_constraints = {s0 = [1, 64], s1 = [2, "inf"]}} {
  func.func @ok(%x: tensor<?x8xf16> {spyre.dims = ["s0", ""], spyre.name = "x"}) -> (tensor<?x8xf16> {spyre.output = "user"}, tensor<?x8xf16> {spyre.output = "user_input_mutation:x"}) {
    %0:2 = spyre.aten "aten.max.dim"(%x) {args = {dim = 1 : i64}, spyre.dims = [["s0", ""], []], tensor_args = ["self"]} : (tensor<?x8xf16>) -> (tensor<?x8xf16>, tensor<8xi64>)
    return %0#0, %x : tensor<?x8xf16>, tensor<?x8xf16>
  }
}

// -----

// expected-error @+1 {{'spyre.range_constraints' entry 's0' must be [min, max] with integer bounds (max may be "inf")}}
module attributes {spyre.range_constraints = {s0 = [1, "big"]}} {
}

// -----

// expected-error @+1 {{'spyre.range_constraints' must be a dictionary}}
module attributes {spyre.range_constraints = [1, 64]} {
}

// -----

// expected-error @+1 {{'spyre.dims' of argument 0 must be an array of one string per dim of its ranked tensor type}}
func.func @arg_dims(%x: tensor<?x8xf16> {spyre.dims = ["s0"]}) {
  return
}

// -----

// expected-error @+1 {{'spyre.name' of argument 0 must be a string}}
func.func @arg_name(%x: tensor<8xf16> {spyre.name = 3 : i64}) {
  return
}

// -----

// expected-error @+1 {{'spyre.output' of result 0 must be "user", "buffer_mutation:<buffer>" or "user_input_mutation:<input>"}}
func.func @output_kind(%x: tensor<8xf16>) -> (tensor<8xf16> {spyre.output = "parameter_mutation:w"}) {
  return %x : tensor<8xf16>
}

// -----

func.func @op_dims(%x: tensor<8xf16>) -> tensor<?xf16> {
  // expected-error @+1 {{'spyre.dims' must hold one array per result}}
  %0 = spyre.aten "aten.relu.default"(%x) {args = {}, spyre.dims = [], tensor_args = ["self"]} : (tensor<8xf16>) -> tensor<?xf16>
  return %0 : tensor<?xf16>
}

// -----

func.func @op_dims_rank(%x: tensor<8xf16>) -> tensor<?xf16> {
  // expected-error @+1 {{'spyre.dims' of result 0 must be an array of one string per dim of its ranked tensor type}}
  %0 = spyre.aten "aten.relu.default"(%x) {args = {}, spyre.dims = [[1]], tensor_args = ["self"]} : (tensor<8xf16>) -> tensor<?xf16>
  return %0 : tensor<?xf16>
}
