// RUN: spyre-opt %s --spyre-decompose --split-input-file | FileCheck %s

// scaled_dot_product_attention (lib/Transforms/Decompositions/
// Attention.cpp): every form becomes one spyre.attention, with what the op
// does not take made around it (boolean masks, grouped heads). The math
// form is spyre-expand-attention's (spyre-expand-attention.mlir).

// No mask: the default scale 1/sqrt(40).
// CHECK-LABEL: func.func @sdpa_plain
// CHECK: %[[O:.*]] = spyre.attention %arg0, %arg1, %arg2 {scale = 0.15811388300841897 : f64} : tensor<2x2x9x40xf16>, tensor<2x2x9x40xf16>, tensor<2x2x9x40xf16> -> tensor<2x2x9x40xf16>
// CHECK: return %[[O]]
func.func @sdpa_plain(%q: tensor<2x2x9x40xf16>, %k: tensor<2x2x9x40xf16>, %v: tensor<2x2x9x40xf16>) -> tensor<2x2x9x40xf16> {
  %0 = spyre.aten "aten.scaled_dot_product_attention.default"(%q, %k, %v) {args = {attn_mask, dropout_p = 0.000000e+00 : f64, enable_gqa = false, is_causal = false, scale}, tensor_args = ["query", "key", "value"]} : (tensor<2x2x9x40xf16>, tensor<2x2x9x40xf16>, tensor<2x2x9x40xf16>) -> tensor<2x2x9x40xf16>
  return %0 : tensor<2x2x9x40xf16>
}

// -----

// is_causal with L <= S (8 queries, 12 keys): the op's `causal` (the
// kernel skips the key tiles past the diagonal); no mask is built.
// CHECK-LABEL: func.func @sdpa_causal
// CHECK-NOT: spyre.select
// CHECK: spyre.attention %arg0, %arg1, %arg2 {causal, scale = 2.500000e-01 : f64}
func.func @sdpa_causal(%q: tensor<1x2x8x16xf16>, %k: tensor<1x2x12x16xf16>, %v: tensor<1x2x12x16xf16>) -> tensor<1x2x8x16xf16> {
  %0 = spyre.aten "aten.scaled_dot_product_attention.default"(%q, %k, %v) {args = {attn_mask, dropout_p = 0.000000e+00 : f64, enable_gqa = false, is_causal = true, scale}, tensor_args = ["query", "key", "value"]} : (tensor<1x2x8x16xf16>, tensor<1x2x12x16xf16>, tensor<1x2x12x16xf16>) -> tensor<1x2x8x16xf16>
  return %0 : tensor<1x2x8x16xf16>
}

// -----

// is_causal with more queries than keys (rows past S see every key): an
// explicit additive [L, S] mask from two iotas, in the query's type (here
// small enough to fold into a constant: -inf = 0xFC00 above the diagonal).
// CHECK-LABEL: func.func @sdpa_causal_more_queries
// CHECK: %[[M4:.*]] = spyre.constant dense<{{\[\[\[\[}}0.000000e+00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00], [0.000000e+00, 0.000000e+00, 0xFC00, {{.*}} : tensor<1x1x10x6xf16>
// CHECK: spyre.attention %arg0, %arg1, %arg2 mask %[[M4]] {scale
// CHECK-NOT: causal
func.func @sdpa_causal_more_queries(%q: tensor<1x2x10x16xf16>, %k: tensor<1x2x6x16xf16>, %v: tensor<1x2x6x16xf16>) -> tensor<1x2x10x16xf16> {
  %0 = spyre.aten "aten.scaled_dot_product_attention.default"(%q, %k, %v) {args = {attn_mask, dropout_p = 0.000000e+00 : f64, enable_gqa = false, is_causal = true, scale}, tensor_args = ["query", "key", "value"]} : (tensor<1x2x10x16xf16>, tensor<1x2x6x16xf16>, tensor<1x2x6x16xf16>) -> tensor<1x2x10x16xf16>
  return %0 : tensor<1x2x10x16xf16>
}

// -----

// A boolean mask (true = attend) becomes additive: 0 or -inf, in the
// query's type, at the query's rank.
// CHECK-LABEL: func.func @sdpa_bool_mask
// CHECK-DAG: %[[NINF:.*]] = spyre.constant dense<0xFF800000> : tensor<f32>
// CHECK-DAG: %[[ZERO:.*]] = spyre.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %[[ADD:.*]] = spyre.select %arg3, %[[ZERO]], %[[NINF]] : tensor<9x9xi1>, tensor<f32>, tensor<f32> -> tensor<9x9xf32>
// CHECK: %[[M:.*]] = spyre.reshape %[[ADD]] : tensor<9x9xf32> -> tensor<1x9x9xf32>
// CHECK: spyre.attention %arg0, %arg1, %arg2 mask %[[M]] {scale = 2.500000e-01 : f64} : tensor<2x9x16xf32>, tensor<2x9x16xf32>, tensor<2x9x16xf32>, tensor<1x9x9xf32> -> tensor<2x9x16xf32>
func.func @sdpa_bool_mask(%q: tensor<2x9x16xf32>, %k: tensor<2x9x16xf32>, %v: tensor<2x9x16xf32>, %m: tensor<9x9xi1>) -> tensor<2x9x16xf32> {
  %0 = spyre.aten "aten.scaled_dot_product_attention.default"(%q, %k, %v, %m) {args = {dropout_p = 0.000000e+00 : f64, is_causal = false}, tensor_args = ["query", "key", "value", "attn_mask"]} : (tensor<2x9x16xf32>, tensor<2x9x16xf32>, tensor<2x9x16xf32>, tensor<9x9xi1>) -> tensor<2x9x16xf32>
  return %0 : tensor<2x9x16xf32>
}

// -----

// An additive float mask is the op's mask as it is; an explicit scale
// replaces 1/sqrt(E).
// CHECK-LABEL: func.func @sdpa_additive_mask_scale
// CHECK: spyre.attention %arg0, %arg1, %arg2 mask %arg3 {scale = 5.000000e-01 : f64} : tensor<1x2x9x16xf16>, tensor<1x2x9x16xf16>, tensor<1x2x9x16xf16>, tensor<1x1x9x9xf16> -> tensor<1x2x9x16xf16>
func.func @sdpa_additive_mask_scale(%q: tensor<1x2x9x16xf16>, %k: tensor<1x2x9x16xf16>, %v: tensor<1x2x9x16xf16>, %m: tensor<1x1x9x9xf16>) -> tensor<1x2x9x16xf16> {
  %0 = spyre.aten "aten.scaled_dot_product_attention.default"(%q, %k, %v, %m) {args = {dropout_p = 0.000000e+00 : f64, is_causal = false, scale = 5.000000e-01 : f64}, tensor_args = ["query", "key", "value", "attn_mask"]} : (tensor<1x2x9x16xf16>, tensor<1x2x9x16xf16>, tensor<1x2x9x16xf16>, tensor<1x1x9x9xf16>) -> tensor<1x2x9x16xf16>
  return %0 : tensor<1x2x9x16xf16>
}

// -----

// Grouped-query attention without a mask (4 query heads, 2 KV heads): q
// is viewed as [1, 2, 2 * 16, 32], so each KV head's two query heads are
// rows of one tile; K and V are read as they are (no copy).
// CHECK-LABEL: func.func @sdpa_gqa
// CHECK: %[[Q:.*]] = spyre.reshape %arg0 : tensor<1x4x16x32xf16> -> tensor<1x2x32x32xf16>
// CHECK: %[[O:.*]] = spyre.attention %[[Q]], %arg1, %arg2 {scale = 0.17677669529663689 : f64} : tensor<1x2x32x32xf16>, tensor<1x2x16x32xf16>, tensor<1x2x16x32xf16> -> tensor<1x2x32x32xf16>
// CHECK: %[[OUT:.*]] = spyre.reshape %[[O]] : tensor<1x2x32x32xf16> -> tensor<1x4x16x32xf16>
// CHECK: return %[[OUT]]
func.func @sdpa_gqa(%q: tensor<1x4x16x32xf16>, %k: tensor<1x2x16x32xf16>, %v: tensor<1x2x16x32xf16>) -> tensor<1x4x16x32xf16> {
  %0 = spyre.aten "aten.scaled_dot_product_attention.default"(%q, %k, %v) {args = {attn_mask, dropout_p = 0.000000e+00 : f64, enable_gqa = true, is_causal = false, scale = 0.17677669529663689 : f64}, tensor_args = ["query", "key", "value"]} : (tensor<1x4x16x32xf16>, tensor<1x2x16x32xf16>, tensor<1x2x16x32xf16>) -> tensor<1x4x16x32xf16>
  return %0 : tensor<1x4x16x32xf16>
}

// -----

// Grouped-query and causal: a row's query position must stay its index, so
// the heads are a batch dim [1, 2, 2, 16, 32] and K, V [1, 2, 1, 16, 32]
// broadcast over it (one K/V stream serves both query heads).
// CHECK-LABEL: func.func @sdpa_gqa_causal
// CHECK: %[[Q:.*]] = spyre.reshape %arg0 : tensor<1x4x16x32xf16> -> tensor<1x2x2x16x32xf16>
// CHECK: %[[K:.*]] = spyre.reshape %arg1 : tensor<1x2x16x32xf16> -> tensor<1x2x1x16x32xf16>
// CHECK: %[[V:.*]] = spyre.reshape %arg2 : tensor<1x2x16x32xf16> -> tensor<1x2x1x16x32xf16>
// CHECK: %[[O:.*]] = spyre.attention %[[Q]], %[[K]], %[[V]] {causal, scale = 0.17677669529663689 : f64}
// CHECK: spyre.reshape %[[O]] : tensor<1x2x2x16x32xf16> -> tensor<1x4x16x32xf16>
func.func @sdpa_gqa_causal(%q: tensor<1x4x16x32xf16>, %k: tensor<1x2x16x32xf16>, %v: tensor<1x2x16x32xf16>) -> tensor<1x4x16x32xf16> {
  %0 = spyre.aten "aten.scaled_dot_product_attention.default"(%q, %k, %v) {args = {attn_mask, dropout_p = 0.000000e+00 : f64, enable_gqa = true, is_causal = true, scale = 0.17677669529663689 : f64}, tensor_args = ["query", "key", "value"]} : (tensor<1x4x16x32xf16>, tensor<1x2x16x32xf16>, tensor<1x2x16x32xf16>) -> tensor<1x4x16x32xf16>
  return %0 : tensor<1x4x16x32xf16>
}

// -----

// Grouped-query with a per-head padding mask that does not vary along the
// queries ([1, 4, 1, 16]): the heads stay a batch dim, the mask split alike.
// CHECK-LABEL: func.func @sdpa_gqa_head_mask
// CHECK: %[[M:.*]] = spyre.reshape %arg3 : tensor<1x4x1x16xf16> -> tensor<1x2x2x1x16xf16>
// CHECK: spyre.attention %{{.*}}, %{{.*}}, %{{.*}} mask %[[M]] {scale
// CHECK-SAME: tensor<1x2x2x8x32xf16>, tensor<1x2x1x16x32xf16>, tensor<1x2x1x16x32xf16>, tensor<1x2x2x1x16xf16> -> tensor<1x2x2x8x32xf16>
func.func @sdpa_gqa_head_mask(%q: tensor<1x4x8x32xf16>, %k: tensor<1x2x16x32xf16>, %v: tensor<1x2x16x32xf16>, %m: tensor<1x4x1x16xf16>) -> tensor<1x4x8x32xf16> {
  %0 = spyre.aten "aten.scaled_dot_product_attention.default"(%q, %k, %v, %m) {args = {dropout_p = 0.000000e+00 : f64, enable_gqa = true, is_causal = false}, tensor_args = ["query", "key", "value", "attn_mask"]} : (tensor<1x4x8x32xf16>, tensor<1x2x16x32xf16>, tensor<1x2x16x32xf16>, tensor<1x4x1x16xf16>) -> tensor<1x4x8x32xf16>
  return %0 : tensor<1x4x8x32xf16>
}

// -----

// A key with one head for every query head (multi-query attention): a
// broadcast batch dim, no enable_gqa needed (matmul broadcasting).
// CHECK-LABEL: func.func @sdpa_mqa
// CHECK: spyre.attention %arg0, %arg1, %arg2 {scale
// CHECK-SAME: tensor<2x4x8x32xf16>, tensor<2x1x16x32xf16>, tensor<2x1x16x32xf16> -> tensor<2x4x8x32xf16>
func.func @sdpa_mqa(%q: tensor<2x4x8x32xf16>, %k: tensor<2x1x16x32xf16>, %v: tensor<2x1x16x32xf16>) -> tensor<2x4x8x32xf16> {
  %0 = spyre.aten "aten.scaled_dot_product_attention.default"(%q, %k, %v) {args = {attn_mask, dropout_p = 0.000000e+00 : f64, enable_gqa = false, is_causal = false, scale}, tensor_args = ["query", "key", "value"]} : (tensor<2x4x8x32xf16>, tensor<2x1x16x32xf16>, tensor<2x1x16x32xf16>) -> tensor<2x4x8x32xf16>
  return %0 : tensor<2x4x8x32xf16>
}

// -----

// The CPU flash kernel ep.run_decompositions() leaves: the same op; its
// logsumexp result is unused and the node goes away.
// CHECK-LABEL: func.func @flash_for_cpu
// CHECK: %[[O:.*]] = spyre.attention %arg0, %arg1, %arg2 {causal, scale = 2.500000e-01 : f64}
// CHECK: return %[[O]]
// CHECK-NOT: spyre.aten
func.func @flash_for_cpu(%q: tensor<1x4x8x16xf16>, %k: tensor<1x4x8x16xf16>, %v: tensor<1x4x8x16xf16>) -> tensor<1x4x8x16xf16> {
  %0:2 = spyre.aten "aten._scaled_dot_product_flash_attention_for_cpu.default"(%q, %k, %v) {args = {is_causal = true}, tensor_args = ["query", "key", "value"]} : (tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>) -> (tensor<1x4x8x16xf16>, tensor<1x4x8xf32>)
  return %0#0 : tensor<1x4x8x16xf16>
}

// -----

// CUDA's memory-efficient kernel: attn_bias is the additive mask.
// CHECK-LABEL: func.func @efficient_with_bias
// CHECK: spyre.attention %arg0, %arg1, %arg2 mask %arg3 {scale = 2.500000e-01 : f64}
// CHECK-NOT: spyre.aten
func.func @efficient_with_bias(%q: tensor<1x4x8x16xf16>, %k: tensor<1x4x8x16xf16>, %v: tensor<1x4x8x16xf16>, %bias: tensor<1x1x8x8xf16>) -> tensor<1x4x8x16xf16> {
  %0:4 = spyre.aten "aten._scaled_dot_product_efficient_attention.default"(%q, %k, %v, %bias) {args = {compute_log_sumexp = false}, tensor_args = ["query", "key", "value", "attn_bias"]} : (tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x1x8x8xf16>) -> (tensor<1x4x8x16xf16>, tensor<1x4x0xf32>, tensor<i64>, tensor<i64>)
  return %0#0 : tensor<1x4x8x16xf16>
}

// -----

// CUDA's flash kernel: no mask argument; its SymInt outputs import as none.
// CHECK-LABEL: func.func @cuda_flash
// CHECK: %[[O:.*]] = spyre.attention %arg0, %arg1, %arg2 {causal, scale = 2.500000e-01 : f64} : tensor<1x4x8x16xbf16>
// CHECK: return %[[O]]
// CHECK-NOT: spyre.aten
func.func @cuda_flash(%q: tensor<1x4x8x16xbf16>, %k: tensor<1x4x8x16xbf16>, %v: tensor<1x4x8x16xbf16>) -> tensor<1x4x8x16xbf16> {
  %0:9 = spyre.aten "aten._scaled_dot_product_flash_attention.default"(%q, %k, %v) {args = {is_causal = true, scale = 0.25 : f64}, tensor_args = ["query", "key", "value"]} : (tensor<1x4x8x16xbf16>, tensor<1x4x8x16xbf16>, tensor<1x4x8x16xbf16>) -> (tensor<1x4x8x16xbf16>, tensor<1x4x8xf32>, tensor<0xi64>, tensor<0xi64>, none, none, tensor<2xi64>, tensor<0xi64>, tensor<0xbf16>)
  return %0#0 : tensor<1x4x8x16xbf16>
}

// -----

// cuDNN's kernel: attn_bias is the additive mask, as for the efficient one.
// CHECK-LABEL: func.func @cudnn_with_bias
// CHECK: spyre.attention %arg0, %arg1, %arg2 mask %arg3
// CHECK-NOT: spyre.aten
func.func @cudnn_with_bias(%q: tensor<1x4x8x16xbf16>, %k: tensor<1x4x8x16xbf16>, %v: tensor<1x4x8x16xbf16>, %bias: tensor<1x1x8x8xbf16>) -> tensor<1x4x8x16xbf16> {
  %0:9 = spyre.aten "aten._scaled_dot_product_cudnn_attention.default"(%q, %k, %v, %bias) {args = {compute_log_sumexp = false}, tensor_args = ["query", "key", "value", "attn_bias"]} : (tensor<1x4x8x16xbf16>, tensor<1x4x8x16xbf16>, tensor<1x4x8x16xbf16>, tensor<1x1x8x8xbf16>) -> (tensor<1x4x8x16xbf16>, tensor<1x4x8xf32>, tensor<0xi64>, tensor<0xi64>, none, none, tensor<i64>, tensor<i64>, tensor<0xbf16>)
  return %0#0 : tensor<1x4x8x16xbf16>
}
