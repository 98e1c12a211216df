// spyre.aten against the op-schema table (AtenSchema.cpp, AtenSchemas.inc):
// what verifies (defaults omitted, unknown ops, list arguments, list
// returns) and what the table rejects. Every verifier message of spyre.aten
// also has a case in invalid.mlir.

// RUN: spyre-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// Arguments with defaults may be omitted (torch.export omits them; the
// table supplies them): gelu's `approximate`, add's `alpha`, linear's `bias`,
// sum's `keepdim` and keyword-only `dtype`, scaled_dot_product_attention's
// `attn_mask`, `dropout_p`, `is_causal`, `scale`, `enable_gqa`.
// CHECK-LABEL: func.func @defaults_omitted
// CHECK: spyre.aten "aten.gelu.default"(%{{.*}}) {args = {}, tensor_args = ["self"]}
// CHECK: spyre.aten "aten.add.Tensor"(%{{.*}}, %{{.*}}) {args = {}, tensor_args = ["self", "other"]}
// CHECK: spyre.aten "aten.linear.default"(%{{.*}}, %{{.*}}) {args = {}, tensor_args = ["input", "weight"]}
// CHECK: spyre.aten "aten.sum.dim_IntList"(%{{.*}}) {args = {dim = [1]}, tensor_args = ["self"]}
// CHECK: spyre.aten "aten.scaled_dot_product_attention.default"(%{{.*}}, %{{.*}}, %{{.*}}) {args = {}, tensor_args = ["query", "key", "value"]}
func.func @defaults_omitted(%x: tensor<4x8xf16>, %w: tensor<16x8xf16>,
                            %q: tensor<1x2x4x8xf16>) {
  %0 = spyre.aten "aten.gelu.default"(%x) {args = {}, tensor_args = ["self"]}
         : (tensor<4x8xf16>) -> tensor<4x8xf16>
  %1 = spyre.aten "aten.add.Tensor"(%x, %x) {args = {}, tensor_args = ["self", "other"]}
         : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf16>
  %2 = spyre.aten "aten.linear.default"(%x, %w) {args = {}, tensor_args = ["input", "weight"]}
         : (tensor<4x8xf16>, tensor<16x8xf16>) -> tensor<4x16xf16>
  %3 = spyre.aten "aten.sum.dim_IntList"(%x) {args = {dim = [1]}, tensor_args = ["self"]}
         : (tensor<4x8xf16>) -> tensor<4xf16>
  %4 = spyre.aten "aten.scaled_dot_product_attention.default"(%q, %q, %q) {args = {},
         tensor_args = ["query", "key", "value"]}
         : (tensor<1x2x4x8xf16>, tensor<1x2x4x8xf16>, tensor<1x2x4x8xf16>) -> tensor<1x2x4x8xf16>
  return
}

// -----

// Every argument spelled out, including keyword-only ones and None (a unit
// attribute) for an optional tensor.
// CHECK-LABEL: func.func @all_arguments
// CHECK: spyre.aten "aten.add.Tensor"(%{{.*}}, %{{.*}}) {args = {alpha = 2 : i64}, tensor_args = ["self", "other"]}
// CHECK: spyre.aten "aten.linear.default"(%{{.*}}, %{{.*}}) {args = {bias}, tensor_args = ["input", "weight"]}
// CHECK: spyre.aten "aten._to_copy.default"(%{{.*}}) {args = {dtype = 5 : i64, layout, memory_format, non_blocking = false}, tensor_args = ["self"]}
// A scalar where the schema has a tensor overload: aten.add.Scalar.
// CHECK: spyre.aten "aten.add.Scalar"(%{{.*}}) {args = {alpha = 1 : i64, other = 5.000000e-01 : f64}, tensor_args = ["self"]}
func.func @all_arguments(%x: tensor<4x8xf16>, %w: tensor<16x8xf16>) {
  %0 = spyre.aten "aten.add.Tensor"(%x, %x) {args = {alpha = 2 : i64}, tensor_args = ["self", "other"]}
         : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf16>
  %1 = spyre.aten "aten.linear.default"(%x, %w) {args = {bias}, tensor_args = ["input", "weight"]}
         : (tensor<4x8xf16>, tensor<16x8xf16>) -> tensor<4x16xf16>
  %2 = spyre.aten "aten._to_copy.default"(%x) {args = {dtype = 5 : i64, layout, non_blocking = false,
         memory_format}, tensor_args = ["self"]} : (tensor<4x8xf16>) -> tensor<4x8xf32>
  %3 = spyre.aten "aten.add.Scalar"(%x) {args = {other = 0.5 : f64, alpha = 1 : i64}, tensor_args = ["self"]}
         : (tensor<4x8xf16>) -> tensor<4x8xf16>
  return
}

// -----

// Optional arguments without a default may be absent: native_layer_norm's
// `weight` and `bias` (Tensor?), var_mean's `dim` (int[1]?) and
// `correction` (int?). The three results match the schema's returns.
// CHECK-LABEL: func.func @optional_without_default
// CHECK: spyre.aten "aten.native_layer_norm.default"(%{{.*}}) {args = {eps = 1.000000e-05 : f64, normalized_shape = [8]}, tensor_args = ["input"]} : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
// CHECK: spyre.aten "aten.var_mean.correction"(%{{.*}}) {args = {}, tensor_args = ["self"]} : (tensor<4x8xf32>) -> (tensor<f32>, tensor<f32>)
func.func @optional_without_default(%x: tensor<4x8xf32>) {
  %0:3 = spyre.aten "aten.native_layer_norm.default"(%x) {args = {normalized_shape = [8], eps = 1.0e-5 : f64},
           tensor_args = ["input"]}
           : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
  %1:2 = spyre.aten "aten.var_mean.correction"(%x) {args = {}, tensor_args = ["self"]}
           : (tensor<4x8xf32>) -> (tensor<f32>, tensor<f32>)
  return
}

// -----

// Ops missing from the table import and verify unchecked (the importer is
// total; spyre-decompose rejects what it does not support): an unknown
// name, another namespace, a target without an overload. Only the
// operand/name count is checked.
// CHECK-LABEL: func.func @unknown_ops
// CHECK: spyre.aten "aten.my_custom_op.default"(%{{.*}}) {args = {anything = "goes"}, tensor_args = ["whatever"]}
// CHECK: spyre.aten "prims.convert_element_type.default"(%{{.*}}) {args = {dtype = 6 : i64}, tensor_args = ["a"]}
// CHECK: spyre.aten "aten.gelu"(%{{.*}}) {args = {not_an_argument = 1 : i64}, tensor_args = ["self"]}
// CHECK: spyre.aten "aten.gelu.no_such_overload"(%{{.*}}, %{{.*}}) {args = {}, tensor_args = ["x", "y"]}
func.func @unknown_ops(%x: tensor<4xf16>) {
  %0:2 = spyre.aten "aten.my_custom_op.default"(%x) {args = {anything = "goes"}, tensor_args = ["whatever"]}
         : (tensor<4xf16>) -> (tensor<4xf16>, tensor<4xf16>)
  %1 = spyre.aten "prims.convert_element_type.default"(%x) {args = {dtype = 6 : i64}, tensor_args = ["a"]}
         : (tensor<4xf16>) -> tensor<4xf32>
  %2 = spyre.aten "aten.gelu"(%x) {args = {not_an_argument = 1 : i64}, tensor_args = ["self"]}
         : (tensor<4xf16>) -> tensor<4xf16>
  spyre.aten "aten.gelu.no_such_overload"(%x, %x) {args = {}, tensor_args = ["x", "y"]}
         : (tensor<4xf16>, tensor<4xf16>) -> ()
  return
}

// -----

// The `torch.ops.` prefix is accepted and the name is checked.
func.func @torch_ops_prefix(%x: tensor<4xf16>) {
  // expected-error @+1 {{'spyre.aten' op 'torch.ops.aten.gelu.default' has no argument 'approx'}}
  %0 = spyre.aten "torch.ops.aten.gelu.default"(%x) {args = {approx = "tanh"}, tensor_args = ["self"]}
         : (tensor<4xf16>) -> tensor<4xf16>
  return
}

// -----

// Tensor?[]: the present tensors are operands, `args` has the presence mask
// (true: a tensor, false: None).
// CHECK-LABEL: func.func @optional_tensor_list
// CHECK: spyre.aten "aten.index.Tensor"(%[[X:.*]], %[[I:.*]], %[[J:.*]]) {args = {indices = [true, false, true]}, tensor_args = ["self", "indices", "indices"]}
// CHECK: spyre.aten "aten.index_put.default"(%[[X]], %[[I]], %[[V:.*]]) {args = {accumulate = true, indices = [false, true]}, tensor_args = ["self", "indices", "values"]}
// All None: no operand for the list.
// CHECK: spyre.aten "aten.index.Tensor"(%[[X]]) {args = {indices = [false]}, tensor_args = ["self"]}
func.func @optional_tensor_list(%x: tensor<4x8x16xf32>, %i: tensor<3xi64>, %j: tensor<3xi64>,
                                %v: tensor<4x3x16xf32>) {
  %0 = spyre.aten "aten.index.Tensor"(%x, %i, %j) {args = {indices = [true, false, true]},
         tensor_args = ["self", "indices", "indices"]}
         : (tensor<4x8x16xf32>, tensor<3xi64>, tensor<3xi64>) -> tensor<3x8xf32>
  %1 = spyre.aten "aten.index_put.default"(%x, %i, %v) {args = {indices = [false, true], accumulate = true},
         tensor_args = ["self", "indices", "values"]}
         : (tensor<4x8x16xf32>, tensor<3xi64>, tensor<4x3x16xf32>) -> tensor<4x8x16xf32>
  %2 = spyre.aten "aten.index.Tensor"(%x) {args = {indices = [false]}, tensor_args = ["self"]}
         : (tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  return
}

// -----

// Tensor[]: the argument's name repeats once per tensor; an empty list has
// no operand. A list return (Tensor[]) matches any number of results.
// CHECK-LABEL: func.func @tensor_lists
// CHECK: spyre.aten "aten.cat.default"(%{{.*}}, %{{.*}}, %{{.*}}) {args = {dim = 1 : i64}, tensor_args = ["tensors", "tensors", "tensors"]}
// CHECK: spyre.aten "aten.stack.default"() {args = {}, tensor_args = []} : () -> tensor<0xf32>
// CHECK: spyre.aten "aten.split.Tensor"(%{{.*}}) {args = {split_size = 2 : i64}, tensor_args = ["self"]} : (tensor<4x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
// CHECK: spyre.aten "aten.unbind.int"(%{{.*}}) {args = {}, tensor_args = ["self"]} : (tensor<4x2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
func.func @tensor_lists(%x: tensor<4x2xf32>) {
  %0 = spyre.aten "aten.cat.default"(%x, %x, %x) {args = {dim = 1 : i64},
         tensor_args = ["tensors", "tensors", "tensors"]}
         : (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x6xf32>
  %1 = spyre.aten "aten.stack.default"() {args = {}, tensor_args = []} : () -> tensor<0xf32>
  %2:2 = spyre.aten "aten.split.Tensor"(%x) {args = {split_size = 2 : i64}, tensor_args = ["self"]}
           : (tensor<4x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
  %3:4 = spyre.aten "aten.unbind.int"(%x) {args = {}, tensor_args = ["self"]}
           : (tensor<4x2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  return
}

// -----

// A presence mask is only for Tensor?[] arguments: for a Tensor[] it is an
// argument given twice.
func.func @mask_on_tensor_list(%x: tensor<4x2xf32>) {
  // expected-error @+1 {{'spyre.aten' op argument 'tensors' is given both as an operand and as an attribute}}
  %0 = spyre.aten "aten.cat.default"(%x) {args = {tensors = [true]}, tensor_args = ["tensors"]}
         : (tensor<4x2xf32>) -> tensor<4x2xf32>
  return
}

// -----

// A Tensor?[] argument bound as an attribute that is not a mask is a value
// like any other, so it cannot also be an operand.
func.func @non_mask_optional_list(%x: tensor<4x8xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{'spyre.aten' op argument 'indices' is given both as an operand and as an attribute}}
  %0 = spyre.aten "aten.index.Tensor"(%x, %i) {args = {indices}, tensor_args = ["self", "indices"]}
         : (tensor<4x8xf32>, tensor<3xi64>) -> tensor<3x8xf32>
  return
}

// -----

// A non-tensor argument without a default is required even when it is
// keyword-only or in a multi-result op.
func.func @missing_eps(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'spyre.aten' op missing required argument 'eps' of 'aten.native_layer_norm.default'}}
  %0:3 = spyre.aten "aten.native_layer_norm.default"(%x) {args = {normalized_shape = [8]},
           tensor_args = ["input"]}
           : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
  return
}

// -----

// Results are counted against the schema's returns.
func.func @three_results(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'spyre.aten' op 'aten.native_layer_norm.default' returns 3 values, the op has 1 results}}
  %0 = spyre.aten "aten.native_layer_norm.default"(%x) {args = {normalized_shape = [8], eps = 1.0e-5 : f64},
         tensor_args = ["input"]} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// A single-result op used with no results.
func.func @no_results(%x: tensor<4xf32>) {
  // expected-error @+1 {{'spyre.aten' op 'aten.where.self' returns 1 values, the op has 0 results}}
  spyre.aten "aten.where.self"(%x, %x, %x) {args = {}, tensor_args = ["condition", "self", "other"]}
    : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> ()
  return
}
