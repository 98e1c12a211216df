// RUN: spyre-opt %s --spyre-decompose --split-input-file -verify-diagnostics

// Every diagnostic of spyre-decompose's decompositions
// (lib/Transforms/Decompositions) and of its driver: unsupported ops and
// argument values a decomposition rejects, each at the node's location.

// The driver: an op without a registry entry.
func.func @unsupported(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{unsupported op 'aten.frobnicate.default': no decomposition onto Spyre compute ops (see docs/supported-ops.md)}}
  %0 = spyre.aten "aten.frobnicate.default"(%x) {args = {}, tensor_args = ["self"]} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Every failing node is reported, not just the first; the others still
// decompose.
func.func @every_error_reported(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{unsupported op 'aten.frobnicate.default'}}
  %0 = spyre.aten "aten.frobnicate.default"(%x) {args = {}, tensor_args = ["self"]} : (tensor<8xf32>) -> tensor<8xf32>
  %1 = spyre.aten "aten.relu.default"(%0) {args = {}, tensor_args = ["self"]} : (tensor<8xf32>) -> tensor<8xf32>
  // expected-error @+1 {{unsupported op 'aten.unknown_thing.default'}}
  %2 = spyre.aten "aten.unknown_thing.default"(%1) {args = {}, tensor_args = ["self"]} : (tensor<8xf32>) -> tensor<8xf32>
  return %2 : tensor<8xf32>
}

// -----

//===--- Argument kinds (AtenArgs) ----------------------------------------===//

func.func @arg_not_a_tensor() -> tensor<8xf32> {
  // expected-error @+1 {{argument 'self' of 'aten.exp.default' must be a tensor}}
  %0 = spyre.aten "aten.exp.default"() {args = {self = 1.000000e+00 : f64}, tensor_args = []} : () -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @arg_not_an_integer(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{argument 'dim' of 'aten._softmax.default' must be an integer}}
  %0 = spyre.aten "aten._softmax.default"(%x) {args = {dim = 1.500000e+00 : f64, half_to_float = false}, tensor_args = ["self"]} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @arg_not_a_number(%b: tensor<8xf32>, %x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{argument 'alpha' of 'aten.addmm.default' must be a number}}
  %0 = spyre.aten "aten.addmm.default"(%b, %x, %w) {args = {alpha = "one"}, tensor_args = ["self", "mat1", "mat2"]} : (tensor<8xf32>, tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @arg_not_a_bool(%x: tensor<4x8xf32>) -> tensor<4xi64> {
  // expected-error @+1 {{argument 'keepdim' of 'aten.argmax.default' must be a bool}}
  %0 = spyre.aten "aten.argmax.default"(%x) {args = {dim = 1 : i64, keepdim = "no"}, tensor_args = ["self"]} : (tensor<4x8xf32>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @arg_not_a_string(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{argument 'approximate' of 'aten.gelu.default' must be a string}}
  %0 = spyre.aten "aten.gelu.default"(%x) {args = {approximate = 3 : i64}, tensor_args = ["self"]} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @arg_list_element_not_an_integer(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{argument 'dims' of 'aten.permute.default' must be a list of integers}}
  %0 = spyre.aten "aten.permute.default"(%x) {args = {dims = [1, 0.000000e+00 : f64]}, tensor_args = ["self"]} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @arg_not_a_list(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{argument 'dim' of 'aten.sum.dim_IntList' must be a list of integers}}
  %0 = spyre.aten "aten.sum.dim_IntList"(%x) {args = {dim = 1.000000e+00 : f64, keepdim = false}, tensor_args = ["self"]} : (tensor<4x8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @dim_out_of_range(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{dimension 2 is out of range for a rank-2 tensor in 'aten.permute.default'}}
  %p = spyre.aten "aten.permute.default"(%x) {args = {dims = [2, 0]}, tensor_args = ["self"]} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  return %p : tensor<8x4xf32>
}

// -----

func.func @reduction_dim_out_of_range(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{dimension -3 is out of range for a rank-2 tensor in 'aten.amax.default'}}
  %0 = spyre.aten "aten.amax.default"(%x) {args = {dim = [-3], keepdim = false}, tensor_args = ["self"]} : (tensor<4x8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

//===--- Pointwise --------------------------------------------------------===//

func.func @unary_integer_result(%x: tensor<8xi32>) -> tensor<8xi32> {
  // expected-error @+1 {{'aten.neg.default' needs a floating-point result, got 'i32'}}
  %0 = spyre.aten "aten.neg.default"(%x) {args = {}, tensor_args = ["self"]} : (tensor<8xi32>) -> tensor<8xi32>
  return %0 : tensor<8xi32>
}

// -----

func.func @bad_gelu(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{gelu approximation 'fast' is not one of 'none', 'tanh'}}
  %0 = spyre.aten "aten.gelu.default"(%x) {args = {approximate = "fast"}, tensor_args = ["self"]} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @bad_rounding_mode(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{div rounding_mode 'round' is not one of None, 'trunc', 'floor'}}
  %0 = spyre.aten "aten.div.Tensor_mode"(%x, %y) {args = {rounding_mode = "round"}, tensor_args = ["self", "other"]} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @integer_pow(%x: tensor<8xi32>) -> tensor<8xi32> {
  // expected-error @+1 {{pow with an integer result is not supported (only floating-point results)}}
  %0 = spyre.aten "aten.pow.Tensor_Scalar"(%x) {args = {exponent = 2 : i64}, tensor_args = ["self"]} : (tensor<8xi32>) -> tensor<8xi32>
  return %0 : tensor<8xi32>
}

// -----

func.func @dropout_training(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{dropout in training mode is not supported (Spyre compiles inference graphs)}}
  %0 = spyre.aten "aten.dropout.default"(%x) {args = {p = 1.000000e-01 : f64, train = true}, tensor_args = ["input"]} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

//===--- Normalization ----------------------------------------------------===//

func.func @normalized_shape_mismatch(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{normalized_shape [4] is not the trailing shape of the input}}
  %0 = spyre.aten "aten.layer_norm.default"(%x) {args = {eps = 1.000000e-05 : f64, normalized_shape = [4]}, tensor_args = ["input"]} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @rms_norm_shape_too_long(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{normalized_shape [2, 8] is not the trailing shape of the input}}
  %0 = spyre.aten "aten.rms_norm.default"(%x) {args = {eps, normalized_shape = [2, 8]}, tensor_args = ["input"]} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @batch_norm_training(%x: tensor<2x7x9xf32>, %m: tensor<7xf32>, %v: tensor<7xf32>) -> tensor<2x7x9xf32> {
  // expected-error @+1 {{batch_norm in training mode is not supported (Spyre compiles inference graphs)}}
  %0 = spyre.aten "aten.batch_norm.default"(%x, %m, %v) {args = {cudnn_enabled = true, eps = 1.000000e-05 : f64, momentum = 1.000000e-01 : f64, training = true}, tensor_args = ["input", "running_mean", "running_var"]} : (tensor<2x7x9xf32>, tensor<7xf32>, tensor<7xf32>) -> tensor<2x7x9xf32>
  return %0 : tensor<2x7x9xf32>
}

// -----

func.func @batch_norm_no_stats(%x: tensor<2x7x9xf32>) -> tensor<2x7x9xf32> {
  // expected-error @+1 {{batch_norm needs running_mean and running_var in inference}}
  %0 = spyre.aten "aten.batch_norm.default"(%x) {args = {cudnn_enabled = true, eps = 1.000000e-05 : f64, momentum = 1.000000e-01 : f64, training = false}, tensor_args = ["input"]} : (tensor<2x7x9xf32>) -> tensor<2x7x9xf32>
  return %0 : tensor<2x7x9xf32>
}

// -----

func.func @batch_norm_rank1(%x: tensor<7xf32>, %m: tensor<7xf32>, %v: tensor<7xf32>) -> tensor<7xf32> {
  // expected-error @+1 {{batch_norm needs an input of rank >= 2}}
  %0 = spyre.aten "aten.batch_norm.default"(%x, %m, %v) {args = {cudnn_enabled = true, eps = 1.000000e-05 : f64, momentum = 1.000000e-01 : f64, training = false}, tensor_args = ["input", "running_mean", "running_var"]} : (tensor<7xf32>, tensor<7xf32>, tensor<7xf32>) -> tensor<7xf32>
  return %0 : tensor<7xf32>
}

// -----

//===--- Attention --------------------------------------------------------===//

func.func @sdpa_dropout(%q: tensor<2x9x16xf32>) -> tensor<2x9x16xf32> {
  // expected-error @+1 {{attention dropout (dropout_p = 1.000000e-01) is not supported in inference}}
  %0 = spyre.aten "aten.scaled_dot_product_attention.default"(%q, %q, %q) {args = {dropout_p = 1.000000e-01 : f64, is_causal = false}, tensor_args = ["query", "key", "value"]} : (tensor<2x9x16xf32>, tensor<2x9x16xf32>, tensor<2x9x16xf32>) -> tensor<2x9x16xf32>
  return %0 : tensor<2x9x16xf32>
}

// -----

func.func @sdpa_rank_mismatch(%q: tensor<2x9x16xf32>, %k: tensor<9x16xf32>) -> tensor<2x9x16xf32> {
  // expected-error @+1 {{attention needs query, key and value of one rank >= 2}}
  %0 = spyre.aten "aten.scaled_dot_product_attention.default"(%q, %k, %k) {args = {dropout_p = 0.000000e+00 : f64, is_causal = false}, tensor_args = ["query", "key", "value"]} : (tensor<2x9x16xf32>, tensor<9x16xf32>, tensor<9x16xf32>) -> tensor<2x9x16xf32>
  return %0 : tensor<2x9x16xf32>
}

// -----

func.func @sdpa_heads_without_gqa(%q: tensor<1x4x9x16xf16>, %k: tensor<1x2x9x16xf16>) -> tensor<1x4x9x16xf16> {
  // expected-error @+1 {{query has 4 heads and key 2; grouped-query attention needs enable_gqa and a multiple}}
  %0 = spyre.aten "aten.scaled_dot_product_attention.default"(%q, %k, %k) {args = {dropout_p = 0.000000e+00 : f64, enable_gqa = false, is_causal = false}, tensor_args = ["query", "key", "value"]} : (tensor<1x4x9x16xf16>, tensor<1x2x9x16xf16>, tensor<1x2x9x16xf16>) -> tensor<1x4x9x16xf16>
  return %0 : tensor<1x4x9x16xf16>
}

// -----

func.func @sdpa_heads_not_a_multiple(%q: tensor<1x5x9x16xf16>, %k: tensor<1x2x9x16xf16>) -> tensor<1x5x9x16xf16> {
  // expected-error @+1 {{query has 5 heads and key 2; grouped-query attention needs enable_gqa and a multiple}}
  %0 = spyre.aten "aten.scaled_dot_product_attention.default"(%q, %k, %k) {args = {dropout_p = 0.000000e+00 : f64, enable_gqa = true, is_causal = false}, tensor_args = ["query", "key", "value"]} : (tensor<1x5x9x16xf16>, tensor<1x2x9x16xf16>, tensor<1x2x9x16xf16>) -> tensor<1x5x9x16xf16>
  return %0 : tensor<1x5x9x16xf16>
}

// -----

func.func @sdpa_mask_shape(%q: tensor<1x2x9x16xf16>, %m: tensor<1x1x9x8xf16>) -> tensor<1x2x9x16xf16> {
  // expected-error @+1 {{attention mask of shape [1, 1, 9, 8] does not broadcast to the scores' [1, 2, 9, 9]}}
  %0 = spyre.aten "aten.scaled_dot_product_attention.default"(%q, %q, %q, %m) {args = {dropout_p = 0.000000e+00 : f64, is_causal = false}, tensor_args = ["query", "key", "value", "attn_mask"]} : (tensor<1x2x9x16xf16>, tensor<1x2x9x16xf16>, tensor<1x2x9x16xf16>, tensor<1x1x9x8xf16>) -> tensor<1x2x9x16xf16>
  return %0 : tensor<1x2x9x16xf16>
}

// -----

func.func @sdpa_value_length(%q: tensor<1x2x9x16xf16>, %k: tensor<1x2x7x16xf16>, %v: tensor<1x2x8x16xf16>) -> tensor<1x2x9x16xf16> {
  // expected-error @+1 {{key must be [..., 7, 16] and value [..., 7, Ev] for a query of head dim 16}}
  %0 = spyre.aten "aten.scaled_dot_product_attention.default"(%q, %k, %v) {args = {dropout_p = 0.000000e+00 : f64, is_causal = false}, tensor_args = ["query", "key", "value"]} : (tensor<1x2x9x16xf16>, tensor<1x2x7x16xf16>, tensor<1x2x8x16xf16>) -> tensor<1x2x9x16xf16>
  return %0 : tensor<1x2x9x16xf16>
}

// -----

//===--- Shape ------------------------------------------------------------===//

func.func @permute_wrong_length(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{permute needs 2 dims for a rank-2 tensor, got 3}}
  %0 = spyre.aten "aten.permute.default"(%x) {args = {dims = [1, 0, 2]}, tensor_args = ["self"]} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @slice_negative_step(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{slice step must be positive, got -1}}
  %0 = spyre.aten "aten.slice.Tensor"(%x) {args = {dim = 0 : i64, end = 0 : i64, start = 7 : i64, step = -1 : i64}, tensor_args = ["self"]} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @select_out_of_range(%x: tensor<2x5xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{select index 5 out of range for size 5}}
  %0 = spyre.aten "aten.select.int"(%x) {args = {dim = 1 : i64, index = 5 : i64}, tensor_args = ["self"]} : (tensor<2x5xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @index_rank0(%x: tensor<f32>, %i: tensor<1xi64>) -> tensor<1xf32> {
  // expected-error @+1 {{indexing a rank-0 tensor}}
  %0 = spyre.aten "aten.index_select.default"(%x, %i) {args = {dim = 0 : i64}, tensor_args = ["self", "index"]} : (tensor<f32>, tensor<1xi64>) -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

// -----

func.func @index_bool_mask(%x: tensor<4x5xf32>, %m: tensor<4x5xi1>) -> tensor<7xf32> {
  // expected-error @+1 {{boolean mask indices (x[mask]) give a data-dependent shape and are not supported}}
  %0 = spyre.aten "aten.index.Tensor"(%x, %m) {args = {}, tensor_args = ["self", "indices"]} : (tensor<4x5xf32>, tensor<4x5xi1>) -> tensor<7xf32>
  return %0 : tensor<7xf32>
}

// -----

func.func @index_no_tensor(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  // expected-error @+1 {{index.Tensor without an index tensor}}
  %0 = spyre.aten "aten.index.Tensor"(%x) {args = {indices = [false, false]}, tensor_args = ["self"]} : (tensor<4x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

func.func @index_past_rank(%x: tensor<4x5xf32>, %i: tensor<3xi64>) -> tensor<4x5x3xf32> {
  // expected-error @+1 {{index.Tensor indexes dim 2 of a rank-2 tensor}}
  %0 = spyre.aten "aten.index.Tensor"(%x, %i) {args = {indices = [false, false, true]}, tensor_args = ["self", "indices"]} : (tensor<4x5xf32>, tensor<3xi64>) -> tensor<4x5x3xf32>
  return %0 : tensor<4x5x3xf32>
}

// -----

func.func @index_no_broadcast(%x: tensor<4x5xf32>, %i: tensor<3xi64>, %j: tensor<2xi64>) -> tensor<3xf32> {
  // expected-error @+1 {{index tensors do not broadcast together}}
  %0 = spyre.aten "aten.index.Tensor"(%x, %i, %j) {args = {}, tensor_args = ["self", "indices", "indices"]} : (tensor<4x5xf32>, tensor<3xi64>, tensor<2xi64>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @pad_no_input() -> tensor<4xf32> {
  // expected-error @+1 {{pad needs an input tensor}}
  %0 = spyre.aten "aten.pad.default"() {args = {self = 1.000000e+00 : f64, pad = [1, 1]}, tensor_args = []} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @pad_reflect(%x: tensor<2x8xf32>) -> tensor<2x10xf32> {
  // expected-error @+1 {{pad mode 'reflect' is not supported (constant only)}}
  %0 = spyre.aten "aten.pad.default"(%x) {args = {mode = "reflect", pad = [1, 1], value}, tensor_args = ["self"]} : (tensor<2x8xf32>) -> tensor<2x10xf32>
  return %0 : tensor<2x10xf32>
}

// -----

func.func @pad_odd_list(%x: tensor<2x8xf32>) -> tensor<2x9xf32> {
  // expected-error @+1 {{pad needs pairs for at most every dim}}
  %0 = spyre.aten "aten.constant_pad_nd.default"(%x) {args = {pad = [1], value = 0.000000e+00 : f64}, tensor_args = ["self"]} : (tensor<2x8xf32>) -> tensor<2x9xf32>
  return %0 : tensor<2x9xf32>
}

// -----

func.func @pad_crops_too_much(%x: tensor<2x8xf32>) -> tensor<2x0xf32> {
  // expected-error @+1 {{padding crops dim 1 of size 8 to -2}}
  %0 = spyre.aten "aten.constant_pad_nd.default"(%x) {args = {pad = [-5, -5], value = 0.000000e+00 : f64}, tensor_args = ["self"]} : (tensor<2x8xf32>) -> tensor<2x0xf32>
  return %0 : tensor<2x0xf32>
}

// -----

func.func @sort_bool(%x: tensor<4x5xi1>) -> (tensor<4x5xi1>, tensor<4x5xi64>) {
  // expected-error @+1 {{sort of a bool tensor is not supported}}
  %0:2 = spyre.aten "aten.sort.default"(%x) {args = {dim = -1 : i64, descending = false}, tensor_args = ["self"]} : (tensor<4x5xi1>) -> (tensor<4x5xi1>, tensor<4x5xi64>)
  return %0#0, %0#1 : tensor<4x5xi1>, tensor<4x5xi64>
}

// -----

func.func @sort_too_long(%x: tensor<2x5000xf32>) -> (tensor<2x5000xf32>, tensor<2x5000xi64>) {
  // expected-error @+1 {{sort of 5000-element lines is not supported (at most 4096)}}
  %0:2 = spyre.aten "aten.sort.default"(%x) {args = {dim = -1 : i64, descending = false}, tensor_args = ["self"]} : (tensor<2x5000xf32>) -> (tensor<2x5000xf32>, tensor<2x5000xi64>)
  return %0#0, %0#1 : tensor<2x5000xf32>, tensor<2x5000xi64>
}

// -----

func.func @conv_transposed(%x: tensor<1x2x8xf32>, %w: tensor<2x2x3xf32>) -> tensor<1x2x10xf32> {
  // expected-error @+1 {{transposed convolutions are not supported}}
  %0 = spyre.aten "aten.convolution.default"(%x, %w) {args = {bias, stride = [1], padding = [0], dilation = [1], transposed = true, output_padding = [0], groups = 1 : i64}, tensor_args = ["input", "weight"]} : (tensor<1x2x8xf32>, tensor<2x2x3xf32>) -> tensor<1x2x10xf32>
  return %0 : tensor<1x2x10xf32>
}

// -----

func.func @conv_3d(%x: tensor<1x2x4x4x4xf32>, %w: tensor<2x2x1x1x1xf32>) -> tensor<1x2x4x4x4xf32> {
  // expected-error @+1 {{convolutions over 3 spatial dims are not supported (1 or 2)}}
  %0 = spyre.aten "aten.convolution.default"(%x, %w) {args = {bias, stride = [1, 1, 1], padding = [0, 0, 0], dilation = [1, 1, 1], transposed = false, output_padding = [0, 0, 0], groups = 1 : i64}, tensor_args = ["input", "weight"]} : (tensor<1x2x4x4x4xf32>, tensor<2x2x1x1x1xf32>) -> tensor<1x2x4x4x4xf32>
  return %0 : tensor<1x2x4x4x4xf32>
}

// -----

func.func @conv_groups(%x: tensor<1x6x8xf32>, %w: tensor<4x3x3xf32>) -> tensor<1x4x6xf32> {
  // expected-error @+1 {{convolution groups 3 do not divide 6 input and 4 output channels}}
  %0 = spyre.aten "aten.conv1d.default"(%x, %w) {args = {bias, stride = [1], padding = [0], dilation = [1], groups = 3 : i64}, tensor_args = ["input", "weight"]} : (tensor<1x6x8xf32>, tensor<4x3x3xf32>) -> tensor<1x4x6xf32>
  return %0 : tensor<1x4x6xf32>
}

// -----

func.func @conv_stride_entries(%x: tensor<1x2x8x8xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<1x2x6x6xf32> {
  // expected-error @+1 {{convolution 'stride' has 3 entries for 2 spatial dims}}
  %0 = spyre.aten "aten.conv2d.default"(%x, %w) {args = {bias, stride = [1, 1, 1], padding = [0, 0], dilation = [1, 1], groups = 1 : i64}, tensor_args = ["input", "weight"]} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x6x6xf32>
  return %0 : tensor<1x2x6x6xf32>
}

// -----

func.func @conv_padding_mode(%x: tensor<1x2x8xf32>, %w: tensor<2x2x3xf32>) -> tensor<1x2x8xf32> {
  // expected-error @+1 {{convolution padding 'full' is not one of 'same' and 'valid'}}
  %0 = spyre.aten "aten.conv1d.padding"(%x, %w) {args = {bias, stride = [1], padding = "full", dilation = [1], groups = 1 : i64}, tensor_args = ["input", "weight"]} : (tensor<1x2x8xf32>, tensor<2x2x3xf32>) -> tensor<1x2x8xf32>
  return %0 : tensor<1x2x8xf32>
}

// -----

func.func @masked_scatter_rows(%x: tensor<9000x2xf32>, %m: tensor<9000x2xi1>, %s: tensor<100xf32>) -> tensor<9000x2xf32> {
  // expected-error @+1 {{masked_scatter over 9000 rows is not supported (at most 8192)}}
  %0 = spyre.aten "aten.masked_scatter.default"(%x, %m, %s) {args = {}, tensor_args = ["self", "mask", "source"]} : (tensor<9000x2xf32>, tensor<9000x2xi1>, tensor<100xf32>) -> tensor<9000x2xf32>
  return %0 : tensor<9000x2xf32>
}

// -----

func.func @masked_scatter_cols(%x: tensor<2x9000xf32>, %m: tensor<2x9000xi1>, %s: tensor<100xf32>) -> tensor<2x9000xf32> {
  // expected-error @+1 {{masked_scatter along a last dim of 9000 elements is not supported (at most 8192)}}
  %0 = spyre.aten "aten.masked_scatter.default"(%x, %m, %s) {args = {}, tensor_args = ["self", "mask", "source"]} : (tensor<2x9000xf32>, tensor<2x9000xi1>, tensor<100xf32>) -> tensor<2x9000xf32>
  return %0 : tensor<2x9000xf32>
}

// -----

func.func @triu_vector(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{triu/tril need rank >= 2}}
  %0 = spyre.aten "aten.triu.default"(%x) {args = {diagonal = 0 : i64}, tensor_args = ["self"]} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

//===--- Logical, bitwise, topk, scatter, repeat, stack -------------------===//

func.func @bitwise_on_float(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'aten.bitwise_and.Tensor' needs bool or integer operands, got 'f32'}}
  %0 = spyre.aten "aten.bitwise_and.Tensor"(%x, %y) {args = {}, tensor_args = ["self", "other"]} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @bitwise_not_on_float(%x: tensor<8xf16>) -> tensor<8xf16> {
  // expected-error @+1 {{'aten.bitwise_not.default' needs a bool or integer operand, got 'f16'}}
  %0 = spyre.aten "aten.bitwise_not.default"(%x) {args = {}, tensor_args = ["self"]} : (tensor<8xf16>) -> tensor<8xf16>
  return %0 : tensor<8xf16>
}

// -----

func.func @topk_bool(%x: tensor<4x8xi1>) -> (tensor<4x2xi1>, tensor<4x2xi64>) {
  // expected-error @+1 {{topk of a bool tensor is not supported}}
  %0:2 = spyre.aten "aten.topk.default"(%x) {args = {k = 2 : i64}, tensor_args = ["self"]} : (tensor<4x8xi1>) -> (tensor<4x2xi1>, tensor<4x2xi64>)
  return %0#0, %0#1 : tensor<4x2xi1>, tensor<4x2xi64>
}

// -----

func.func @topk_k_out_of_range(%x: tensor<4x8xf32>) -> (tensor<4x9xf32>, tensor<4x9xi64>) {
  // expected-error @+1 {{topk k = 9 is out of range [1, 8]}}
  %0:2 = spyre.aten "aten.topk.default"(%x) {args = {k = 9 : i64}, tensor_args = ["self"]} : (tensor<4x8xf32>) -> (tensor<4x9xf32>, tensor<4x9xi64>)
  return %0#0, %0#1 : tensor<4x9xf32>, tensor<4x9xi64>
}

// -----

func.func @topk_k_too_large(%x: tensor<4x128xf32>) -> (tensor<4x65xf32>, tensor<4x65xi64>) {
  // expected-error @+1 {{topk k = 65 is not supported (at most 64)}}
  %0:2 = spyre.aten "aten.topk.default"(%x) {args = {k = 65 : i64}, tensor_args = ["self"]} : (tensor<4x128xf32>) -> (tensor<4x65xf32>, tensor<4x65xi64>)
  return %0#0, %0#1 : tensor<4x65xf32>, tensor<4x65xi64>
}

// -----

func.func @scatter_index_rank(%x: tensor<4x8xf32>, %i: tensor<4xi64>, %s: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{scatter index must have the rank of self (2)}}
  %0 = spyre.aten "aten.scatter.src"(%x, %i, %s) {args = {dim = 1 : i64}, tensor_args = ["self", "index", "src"]} : (tensor<4x8xf32>, tensor<4xi64>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @scatter_index_larger(%x: tensor<4x8xf32>, %i: tensor<5x3xi64>, %s: tensor<5x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{scatter index is larger than self in dim 0 (5 vs 4)}}
  %0 = spyre.aten "aten.scatter.src"(%x, %i, %s) {args = {dim = 1 : i64}, tensor_args = ["self", "index", "src"]} : (tensor<4x8xf32>, tensor<5x3xi64>, tensor<5x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @scatter_too_many_slices(%x: tensor<4x128xf32>, %i: tensor<4x65xi64>) -> tensor<4x128xf32> {
  // expected-error @+1 {{scatter of 65 index slices along dim 1 is not supported (at most 64)}}
  %0 = spyre.aten "aten.scatter.value"(%x, %i) {args = {dim = 1 : i64, value = 0.0 : f64}, tensor_args = ["self", "index"]} : (tensor<4x128xf32>, tensor<4x65xi64>) -> tensor<4x128xf32>
  return %0 : tensor<4x128xf32>
}

// -----

func.func @scatter_src_rank(%x: tensor<4x8xf32>, %i: tensor<4x2xi64>, %s: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{scatter src must have the rank of self}}
  %0 = spyre.aten "aten.scatter.src"(%x, %i, %s) {args = {dim = 1 : i64}, tensor_args = ["self", "index", "src"]} : (tensor<4x8xf32>, tensor<4x2xi64>, tensor<8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @repeat_too_few_counts(%x: tensor<4x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{repeat needs a count for every dim (2), got 1}}
  %0 = spyre.aten "aten.repeat.default"(%x) {args = {repeats = [2]}, tensor_args = ["self"]} : (tensor<4x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @repeat_negative(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{repeat counts must be >= 0}}
  %0 = spyre.aten "aten.repeat.default"(%x) {args = {repeats = [-1, 1]}, tensor_args = ["self"]} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @stack_nothing() -> tensor<0x4xf32> {
  // expected-error @+1 {{stack needs at least one tensor}}
  %0 = spyre.aten "aten.stack.default"() {args = {dim = 0 : i64}, tensor_args = []} : () -> tensor<0x4xf32>
  return %0 : tensor<0x4xf32>
}

// -----

func.func @fused_sdpa_logsumexp_used(%q: tensor<1x4x8x16xf16>, %k: tensor<1x4x8x16xf16>, %v: tensor<1x4x8x16xf16>) -> tensor<1x4x8xf32> {
  // expected-error @+1 {{'aten._scaled_dot_product_flash_attention_for_cpu.default' result 1 (logsumexp or RNG state) is used; only the attention output is supported}}
  %0:2 = spyre.aten "aten._scaled_dot_product_flash_attention_for_cpu.default"(%q, %k, %v) {args = {}, tensor_args = ["query", "key", "value"]} : (tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>) -> (tensor<1x4x8x16xf16>, tensor<1x4x8xf32>)
  return %0#1 : tensor<1x4x8xf32>
}

// -----

func.func @slice_scatter_step(%x: tensor<4x16xf16>, %y: tensor<4x4xf16>) -> tensor<4x16xf16> {
  // expected-error @+1 {{slice_scatter step must be positive, got 0}}
  %0 = spyre.aten "aten.slice_scatter.default"(%x, %y) {args = {dim = 1 : i64, start = 0 : i64, end = 8 : i64, step = 0 : i64}, tensor_args = ["self", "src"]} : (tensor<4x16xf16>, tensor<4x4xf16>) -> tensor<4x16xf16>
  return %0 : tensor<4x16xf16>
}

// -----

func.func @slice_scatter_window(%x: tensor<4x16xf16>, %y: tensor<4x4xf16>) -> tensor<4x16xf16> {
  // expected-error @+1 {{scatter source has 4 elements along dim 1 for a window of 5}}
  %0 = spyre.aten "aten.slice_scatter.default"(%x, %y) {args = {dim = 1 : i64, start = 3 : i64, end = 8 : i64}, tensor_args = ["self", "src"]} : (tensor<4x16xf16>, tensor<4x4xf16>) -> tensor<4x16xf16>
  return %0 : tensor<4x16xf16>
}

// -----

func.func @index_put_accumulate_bool(%x: tensor<4x8xi1>, %i: tensor<2xi64>, %v: tensor<2x8xi1>) -> tensor<4x8xi1> {
  // expected-error @+1 {{index_put with accumulate=True of a bool tensor is not supported}}
  %0 = spyre.aten "aten.index_put.default"(%x, %i, %v) {args = {indices = [true], accumulate = true}, tensor_args = ["self", "indices", "values"]} : (tensor<4x8xi1>, tensor<2xi64>, tensor<2x8xi1>) -> tensor<4x8xi1>
  return %0 : tensor<4x8xi1>
}

// -----

func.func @index_put_indices_do_not_broadcast(%x: tensor<4x8x16xf32>, %i: tensor<2xi64>, %j: tensor<3xi64>, %v: tensor<2x16xf32>) -> tensor<4x8x16xf32> {
  // expected-error @+1 {{index tensors do not broadcast together}}
  %0 = spyre.aten "aten.index_put.default"(%x, %i, %j, %v) {args = {indices = [true, true]}, tensor_args = ["self", "indices", "indices", "values"]} : (tensor<4x8x16xf32>, tensor<2xi64>, tensor<3xi64>, tensor<2x16xf32>) -> tensor<4x8x16xf32>
  return %0 : tensor<4x8x16xf32>
}

// -----

func.func @cumsum_too_long(%x: tensor<1x8193xf32>) -> tensor<1x8193xf32> {
  // expected-error @+1 {{cumsum over 8193 elements is not supported (at most 8192)}}
  %0 = spyre.aten "aten.cumsum.default"(%x) {args = {dim = 1 : i64}, tensor_args = ["self"]} : (tensor<1x8193xf32>) -> tensor<1x8193xf32>
  return %0 : tensor<1x8193xf32>
}

// -----

func.func @gather_too_many(%x: tensor<2x128xf32>, %i: tensor<2x65xi64>) -> tensor<2x65xf32> {
  // expected-error @+1 {{gather of 65 index slices along dim 1 is not supported (at most 64)}}
  %0 = spyre.aten "aten.gather.default"(%x, %i) {args = {dim = 1 : i64}, tensor_args = ["self", "index"]} : (tensor<2x128xf32>, tensor<2x65xi64>) -> tensor<2x65xf32>
  return %0 : tensor<2x65xf32>
}

// -----

func.func @gather_rank(%x: tensor<2x8xf32>, %i: tensor<2xi64>) -> tensor<2xf32> {
  // expected-error @+1 {{gather needs self and index of one rank >= 1}}
  %0 = spyre.aten "aten.gather.default"(%x, %i) {args = {dim = 0 : i64}, tensor_args = ["self", "index"]} : (tensor<2x8xf32>, tensor<2xi64>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
