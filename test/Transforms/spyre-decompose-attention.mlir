// RUN: spyre-opt %s --spyre-decompose --split-input-file | FileCheck %s

// scaled_dot_product_attention (lib/Transforms/Decompositions/
// Attention.cpp): the math form softmax(q @ k^T * scale + mask) @ v.

// No mask: scores = (q @ k^T) in f32 (the transpose a flag) times the
// default scale 1/sqrt(40), softmax along the keys (max-shifted), the
// probabilities rounded to f16 for p @ v.
// CHECK-LABEL: func.func @sdpa_plain
// CHECK: %[[SCALE:.*]] = spyre.constant dense<0.158113882> : tensor<f32>
// CHECK: %[[QK:.*]] = spyre.matmul %arg0, %arg1 {transpose_rhs} : tensor<2x2x9x40xf16>, tensor<2x2x9x40xf16> -> tensor<2x2x9x9xf32>
// CHECK: %[[S:.*]] = spyre.binary mul %[[QK]], %[[SCALE]]
// CHECK: %[[MAX:.*]] = spyre.reduce max %[[S]] dim 3 : tensor<2x2x9x9xf32> -> tensor<2x2x9x1xf32>
// CHECK: %[[SH:.*]] = spyre.binary sub %[[S]], %[[MAX]]
// CHECK: %[[E:.*]] = spyre.unary exp %[[SH]]
// CHECK: %[[SUM:.*]] = spyre.reduce sum %[[E]] dim 3
// CHECK: %[[P:.*]] = spyre.binary div %[[E]], %[[SUM]]
// CHECK-NOT: spyre.select
// CHECK: %[[PH:.*]] = spyre.cast %[[P]] : tensor<2x2x9x9xf32> -> tensor<2x2x9x9xf16>
// CHECK: %[[O:.*]] = spyre.matmul %[[PH]], %arg2 : tensor<2x2x9x9xf16>, tensor<2x2x9x40xf16> -> tensor<2x2x9x40xf16>
// CHECK: return %[[O]]
func.func @sdpa_plain(%q: tensor<2x2x9x40xf16>, %k: tensor<2x2x9x40xf16>, %v: tensor<2x2x9x40xf16>) -> tensor<2x2x9x40xf16> {
  %0 = spyre.aten "aten.scaled_dot_product_attention.default"(%q, %k, %v) {args = {attn_mask, dropout_p = 0.000000e+00 : f64, enable_gqa = false, is_causal = false, scale}, tensor_args = ["query", "key", "value"]} : (tensor<2x2x9x40xf16>, tensor<2x2x9x40xf16>, tensor<2x2x9x40xf16>) -> tensor<2x2x9x40xf16>
  return %0 : tensor<2x2x9x40xf16>
}

// -----

// is_causal (L = 8 queries, S = 12 keys, top-left aligned): the mask is a
// compare of two iota constants, col > row, selecting -inf; no L x S
// constant is built, but the compare of constants folds into one (an
// [L, S] i1 constant, within the folding limits). A causal row always
// keeps key 0: no safe-softmax select.
// CHECK-LABEL: func.func @sdpa_causal
// CHECK-DAG: %[[ABOVE:.*]] = spyre.constant dense<{{\[\[}}false, true, true, true, true, true, true, true, true, true, true, true], [false, false, true, {{.*}}, [false, false, false, false, false, false, false, false, true, true, true, true]]> : tensor<8x12xi1>
// CHECK-DAG: %[[NINF:.*]] = spyre.constant dense<0xFF800000> : tensor<f32>
// CHECK-DAG: %[[SCALE:.*]] = spyre.constant dense<2.500000e-01> : tensor<f32>
// CHECK: %[[QK:.*]] = spyre.matmul %arg0, %arg1 {transpose_rhs} : tensor<1x2x8x16xf16>, tensor<1x2x12x16xf16> -> tensor<1x2x8x12xf32>
// CHECK: %[[S:.*]] = spyre.binary mul %[[QK]], %[[SCALE]]
// CHECK-NOT: spyre.compare
// CHECK: %[[M:.*]] = spyre.select %[[ABOVE]], %[[NINF]], %[[S]] : tensor<8x12xi1>, tensor<f32>, tensor<1x2x8x12xf32> -> tensor<1x2x8x12xf32>
// CHECK: %[[MAX:.*]] = spyre.reduce max %[[M]] dim 3
// CHECK: %[[SH:.*]] = spyre.binary sub %[[M]], %[[MAX]]
// CHECK: %[[E:.*]] = spyre.unary exp %[[SH]]
// CHECK: %[[SUM:.*]] = spyre.reduce sum %[[E]] dim 3
// CHECK: %[[P:.*]] = spyre.binary div %[[E]], %[[SUM]]
// CHECK-NOT: spyre.select
// CHECK: %[[PH:.*]] = spyre.cast %[[P]]
// CHECK: spyre.matmul %[[PH]], %arg2 : tensor<1x2x8x12xf16>, tensor<1x2x12x16xf16> -> tensor<1x2x8x16xf16>
func.func @sdpa_causal(%q: tensor<1x2x8x16xf16>, %k: tensor<1x2x12x16xf16>, %v: tensor<1x2x12x16xf16>) -> tensor<1x2x8x16xf16> {
  %0 = spyre.aten "aten.scaled_dot_product_attention.default"(%q, %k, %v) {args = {attn_mask, dropout_p = 0.000000e+00 : f64, enable_gqa = false, is_causal = true, scale}, tensor_args = ["query", "key", "value"]} : (tensor<1x2x8x16xf16>, tensor<1x2x12x16xf16>, tensor<1x2x12x16xf16>) -> tensor<1x2x8x16xf16>
  return %0 : tensor<1x2x8x16xf16>
}

// -----

// A boolean mask (true = attend) selects the scores or -inf; f32 inputs
// need no casts. A row can be masked entirely: the softmax is the safe one
// (a row whose max is -inf gives 0, not NaN).
// CHECK-LABEL: func.func @sdpa_bool_mask
// CHECK-DAG: %[[ZERO:.*]] = spyre.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG: %[[NINF:.*]] = spyre.constant dense<0xFF800000> : tensor<f32>
// CHECK-DAG: %[[SCALE:.*]] = spyre.constant dense<2.500000e-01> : tensor<f32>
// CHECK: %[[QK:.*]] = spyre.matmul %arg0, %arg1 {transpose_rhs} : tensor<2x9x16xf32>, tensor<2x9x16xf32> -> tensor<2x9x9xf32>
// CHECK: %[[S:.*]] = spyre.binary mul %[[QK]], %[[SCALE]]
// CHECK: %[[M:.*]] = spyre.select %arg3, %[[S]], %[[NINF]] : tensor<9x9xi1>, tensor<2x9x9xf32>, tensor<f32> -> tensor<2x9x9xf32>
// CHECK: %[[MAX:.*]] = spyre.reduce max %[[M]] dim 2
// CHECK: %[[SH:.*]] = spyre.binary sub %[[M]], %[[MAX]]
// CHECK: %[[E:.*]] = spyre.unary exp %[[SH]]
// CHECK: %[[SUM:.*]] = spyre.reduce sum %[[E]] dim 2
// CHECK: %[[P:.*]] = spyre.binary div %[[E]], %[[SUM]]
// CHECK: %[[DEAD:.*]] = spyre.compare eq %[[MAX]], %[[NINF]] : tensor<2x9x1xf32>, tensor<f32> -> tensor<2x9x1xi1>
// CHECK: %[[SAFE:.*]] = spyre.select %[[DEAD]], %[[ZERO]], %[[P]]
// CHECK-NOT: spyre.cast
// CHECK: %[[O:.*]] = spyre.matmul %[[SAFE]], %arg2 : tensor<2x9x9xf32>, tensor<2x9x16xf32> -> tensor<2x9x16xf32>
// CHECK: return %[[O]]
func.func @sdpa_bool_mask(%q: tensor<2x9x16xf32>, %k: tensor<2x9x16xf32>, %v: tensor<2x9x16xf32>, %m: tensor<9x9xi1>) -> tensor<2x9x16xf32> {
  %0 = spyre.aten "aten.scaled_dot_product_attention.default"(%q, %k, %v, %m) {args = {dropout_p = 0.000000e+00 : f64, is_causal = false}, tensor_args = ["query", "key", "value", "attn_mask"]} : (tensor<2x9x16xf32>, tensor<2x9x16xf32>, tensor<2x9x16xf32>, tensor<9x9xi1>) -> tensor<2x9x16xf32>
  return %0 : tensor<2x9x16xf32>
}

// -----

// An additive float mask is added to the scaled scores (in f32); an
// explicit scale replaces 1/sqrt(E).
// CHECK-LABEL: func.func @sdpa_additive_mask_scale
// CHECK-DAG: %[[ZERO:.*]] = spyre.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG: %[[NINF:.*]] = spyre.constant dense<0xFF800000> : tensor<f32>
// CHECK-DAG: %[[SCALE:.*]] = spyre.constant dense<5.000000e-01> : tensor<f32>
// CHECK: %[[QK:.*]] = spyre.matmul %arg0, %arg1 {transpose_rhs}
// CHECK: %[[S:.*]] = spyre.binary mul %[[QK]], %[[SCALE]]
// CHECK: %[[MASK:.*]] = spyre.cast %arg3 : tensor<1x1x9x9xf16> -> tensor<1x1x9x9xf32>
// CHECK: %[[M:.*]] = spyre.binary add %[[S]], %[[MASK]] : tensor<1x2x9x9xf32>, tensor<1x1x9x9xf32> -> tensor<1x2x9x9xf32>
// CHECK: %[[MAX:.*]] = spyre.reduce max %[[M]] dim 3
// CHECK: %[[P:.*]] = spyre.binary div
// CHECK: %[[DEAD:.*]] = spyre.compare eq %[[MAX]], %[[NINF]]
// CHECK: %[[SAFE:.*]] = spyre.select %[[DEAD]], %[[ZERO]], %[[P]]
// CHECK: %[[PH:.*]] = spyre.cast %[[SAFE]] : tensor<1x2x9x9xf32> -> tensor<1x2x9x9xf16>
// CHECK: spyre.matmul %[[PH]], %arg2
func.func @sdpa_additive_mask_scale(%q: tensor<1x2x9x16xf16>, %k: tensor<1x2x9x16xf16>, %v: tensor<1x2x9x16xf16>, %m: tensor<1x1x9x9xf16>) -> tensor<1x2x9x16xf16> {
  %0 = spyre.aten "aten.scaled_dot_product_attention.default"(%q, %k, %v, %m) {args = {dropout_p = 0.000000e+00 : f64, is_causal = false, scale = 5.000000e-01 : f64}, tensor_args = ["query", "key", "value", "attn_mask"]} : (tensor<1x2x9x16xf16>, tensor<1x2x9x16xf16>, tensor<1x2x9x16xf16>, tensor<1x1x9x9xf16>) -> tensor<1x2x9x16xf16>
  return %0 : tensor<1x2x9x16xf16>
}

// -----

// Grouped-query attention (4 query heads, 2 KV heads; Llama's decoder):
// q is viewed as [1, 2, 2 * 16, 32] so each KV head serves its two query
// heads as extra rows of one batched matmul (no copy of K or V); the
// scores go back to per-head [1, 4, 16, 16] for the causal mask and the
// softmax, then (cast to f16 first, so the cast stays in the softmax's
// kernel) to [1, 2, 32, 16] for p @ v.
// CHECK-LABEL: func.func @sdpa_gqa_causal
// CHECK-DAG: %[[ABOVE:.*]] = spyre.constant dense<"0x{{.*}}"> : tensor<16x16xi1>
// CHECK-DAG: %[[NINF:.*]] = spyre.constant dense<0xFF800000> : tensor<f32>
// CHECK-DAG: %[[SCALE:.*]] = spyre.constant dense<0.176776692> : tensor<f32>
// CHECK: %[[Q:.*]] = spyre.reshape %arg0 : tensor<1x4x16x32xf16> -> tensor<1x2x32x32xf16>
// CHECK: %[[QK:.*]] = spyre.matmul %[[Q]], %arg1 {transpose_rhs} : tensor<1x2x32x32xf16>, tensor<1x2x16x32xf16> -> tensor<1x2x32x16xf32>
// CHECK: %[[S:.*]] = spyre.binary mul %[[QK]], %[[SCALE]]
// CHECK: %[[SH:.*]] = spyre.reshape %[[S]] : tensor<1x2x32x16xf32> -> tensor<1x4x16x16xf32>
// CHECK: %[[M:.*]] = spyre.select %[[ABOVE]], %[[NINF]], %[[SH]] : tensor<16x16xi1>
// CHECK: spyre.reduce max %[[M]] dim 3 : tensor<1x4x16x16xf32> -> tensor<1x4x16x1xf32>
// CHECK: %[[P:.*]] = spyre.binary div
// CHECK: %[[PH:.*]] = spyre.cast %[[P]] : tensor<1x4x16x16xf32> -> tensor<1x4x16x16xf16>
// CHECK: %[[PG:.*]] = spyre.reshape %[[PH]] : tensor<1x4x16x16xf16> -> tensor<1x2x32x16xf16>
// CHECK: %[[O:.*]] = spyre.matmul %[[PG]], %arg2 : tensor<1x2x32x16xf16>, tensor<1x2x16x32xf16> -> tensor<1x2x32x32xf16>
// CHECK: %[[OUT:.*]] = spyre.reshape %[[O]] : tensor<1x2x32x32xf16> -> tensor<1x4x16x32xf16>
// CHECK: return %[[OUT]]
func.func @sdpa_gqa_causal(%q: tensor<1x4x16x32xf16>, %k: tensor<1x2x16x32xf16>, %v: tensor<1x2x16x32xf16>) -> tensor<1x4x16x32xf16> {
  %0 = spyre.aten "aten.scaled_dot_product_attention.default"(%q, %k, %v) {args = {attn_mask, dropout_p = 0.000000e+00 : f64, enable_gqa = true, is_causal = true, scale = 0.17677669529663689 : f64}, tensor_args = ["query", "key", "value"]} : (tensor<1x4x16x32xf16>, tensor<1x2x16x32xf16>, tensor<1x2x16x32xf16>) -> tensor<1x4x16x32xf16>
  return %0 : tensor<1x4x16x32xf16>
}

// -----

// The CPU flash kernel ep.run_decompositions() leaves: the same math; its
// logsumexp result is unused and the node goes away.
// CHECK-LABEL: func.func @flash_for_cpu
// CHECK: %[[QK:.*]] = spyre.matmul %arg0, %arg1 {transpose_rhs} : tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16> -> tensor<1x4x8x8xf32>
// CHECK: spyre.select
// CHECK: %[[O:.*]] = spyre.matmul %{{.*}}, %arg2 : tensor<1x4x8x8xf16>, tensor<1x4x8x16xf16> -> tensor<1x4x8x16xf16>
// CHECK: return %[[O]]
// CHECK-NOT: spyre.aten
func.func @flash_for_cpu(%q: tensor<1x4x8x16xf16>, %k: tensor<1x4x8x16xf16>, %v: tensor<1x4x8x16xf16>) -> tensor<1x4x8x16xf16> {
  %0:2 = spyre.aten "aten._scaled_dot_product_flash_attention_for_cpu.default"(%q, %k, %v) {args = {is_causal = true}, tensor_args = ["query", "key", "value"]} : (tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>) -> (tensor<1x4x8x16xf16>, tensor<1x4x8xf32>)
  return %0#0 : tensor<1x4x8x16xf16>
}

// -----

// CUDA's memory-efficient kernel: attn_bias is the additive mask.
// CHECK-LABEL: func.func @efficient_with_bias
// CHECK: %[[S:.*]] = spyre.binary mul
// CHECK: %[[B:.*]] = spyre.cast %arg3 : tensor<1x1x8x8xf16> -> tensor<1x1x8x8xf32>
// CHECK: spyre.binary add %[[S]], %[[B]] : tensor<1x4x8x8xf32>, tensor<1x1x8x8xf32> -> tensor<1x4x8x8xf32>
// CHECK-NOT: spyre.aten
func.func @efficient_with_bias(%q: tensor<1x4x8x16xf16>, %k: tensor<1x4x8x16xf16>, %v: tensor<1x4x8x16xf16>, %bias: tensor<1x1x8x8xf16>) -> tensor<1x4x8x16xf16> {
  %0:4 = spyre.aten "aten._scaled_dot_product_efficient_attention.default"(%q, %k, %v, %bias) {args = {compute_log_sumexp = false}, tensor_args = ["query", "key", "value", "attn_bias"]} : (tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x1x8x8xf16>) -> (tensor<1x4x8x16xf16>, tensor<1x4x0xf32>, tensor<i64>, tensor<i64>)
  return %0#0 : tensor<1x4x8x16xf16>
}

// -----

// CUDA's flash kernel: no mask argument; its SymInt outputs import as none.
// CHECK-LABEL: func.func @cuda_flash
// CHECK: spyre.matmul %arg0, %arg1 {transpose_rhs} : tensor<1x4x8x16xbf16>, tensor<1x4x8x16xbf16> -> tensor<1x4x8x8xf32>
// CHECK: %[[O:.*]] = spyre.matmul %{{.*}}, %arg2 : tensor<1x4x8x8xbf16>, tensor<1x4x8x16xbf16> -> tensor<1x4x8x16xbf16>
// CHECK: return %[[O]]
// CHECK-NOT: spyre.aten
func.func @cuda_flash(%q: tensor<1x4x8x16xbf16>, %k: tensor<1x4x8x16xbf16>, %v: tensor<1x4x8x16xbf16>) -> tensor<1x4x8x16xbf16> {
  %0:9 = spyre.aten "aten._scaled_dot_product_flash_attention.default"(%q, %k, %v) {args = {is_causal = true, scale = 0.25 : f64}, tensor_args = ["query", "key", "value"]} : (tensor<1x4x8x16xbf16>, tensor<1x4x8x16xbf16>, tensor<1x4x8x16xbf16>) -> (tensor<1x4x8x16xbf16>, tensor<1x4x8xf32>, tensor<0xi64>, tensor<0xi64>, none, none, tensor<2xi64>, tensor<0xi64>, tensor<0xbf16>)
  return %0#0 : tensor<1x4x8x16xbf16>
}

// -----

// cuDNN's kernel: attn_bias is the additive mask, as for the efficient one.
// CHECK-LABEL: func.func @cudnn_with_bias
// CHECK: %[[B:.*]] = spyre.cast %arg3 : tensor<1x1x8x8xbf16> -> tensor<1x1x8x8xf32>
// CHECK: spyre.binary add %{{.*}}, %[[B]]
// CHECK-NOT: spyre.aten
func.func @cudnn_with_bias(%q: tensor<1x4x8x16xbf16>, %k: tensor<1x4x8x16xbf16>, %v: tensor<1x4x8x16xbf16>, %bias: tensor<1x1x8x8xbf16>) -> tensor<1x4x8x16xbf16> {
  %0:9 = spyre.aten "aten._scaled_dot_product_cudnn_attention.default"(%q, %k, %v, %bias) {args = {compute_log_sumexp = false}, tensor_args = ["query", "key", "value", "attn_bias"]} : (tensor<1x4x8x16xbf16>, tensor<1x4x8x16xbf16>, tensor<1x4x8x16xbf16>, tensor<1x1x8x8xbf16>) -> (tensor<1x4x8x16xbf16>, tensor<1x4x8xf32>, tensor<0xi64>, tensor<0xi64>, none, none, tensor<i64>, tensor<i64>, tensor<0xbf16>)
  return %0#0 : tensor<1x4x8x16xbf16>
}
