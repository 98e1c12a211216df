// RUN: spyre-opt %s --split-input-file --spyre-assign-layouts --spyre-form-kernels --spyre-schedule-cores=max-cores=1 --spyre-allocate-scratchpad --spyre-lower-to-program | FileCheck %s
// RUN: spyre-opt %s --split-input-file --spyre-attach-arch=arch=%S/Inputs/no-sync-arch.json --spyre-assign-layouts --spyre-form-kernels --spyre-schedule-cores --spyre-allocate-scratchpad --spyre-lower-to-program | FileCheck %s --check-prefix=MULTI

// The flash-attention kernel (lib/Transforms/AttentionKernel.cpp).
//
// Causal, 1024 queries and keys on one core: square 128-row tiles. The
// constants (scale, lowest, smallest, 0, -inf, then positions) are loaded
// once and give the diagonal tile's mask (key position > query position).
// K and V are held (`hold = [1, 2]`): loaded once, read in place by every
// query tile; the query tiles are held too (one buffer copy each). The
// loads alternate, a query tile then a key tile of K and V (the cost model
// picks one key tile a load here), so the first tile's work starts after
// three loads. Per query tile: the running max, sum and accumulator reset;
// a loop over the key tiles before the diagonal whose count grows with the
// query tile (0, 1, ..., 7: the tiles past the diagonal are skipped),
// reading K's tile at the key loop's iteration; then the diagonal tile, at
// the query loop's iteration, masked by a select; O / sum; the store into
// the query tile's own copy of the result.
// CHECK-LABEL: spyre.program @k0_attention
// CHECK: spyre.dma_load {{.*}}mem = #spyre.mem<tensor = @cst, offset = 0>{{.*}}run = 640
// CHECK: spyre.sfp_binary "gt" {bcast_col1, cols = 128 : i64, {{.*}}dst_type = i1, pitch = array<i64: 128, 0, 4>, rows = 128
// CHECK: spyre.dma_load {box = array<i64: 128, 1, 1>, lx = #spyre.lx<offset = [[Q:[0-9]+]]>, mem = #spyre.mem<tensor = @in0, offset = 0>
// CHECK: spyre.dma_load {box = array<i64: 128, 1, 1>, lx = #spyre.lx<offset = [[K:[0-9]+]]>, mem = #spyre.mem<tensor = @in1, offset = 0>
// CHECK: spyre.dma_load {box = array<i64: 128, 1, 1>, lx = #spyre.lx<offset = [[V:[0-9]+]]>, mem = #spyre.mem<tensor = @in2, offset = 0>
// CHECK: spyre.dma_load {box = array<i64: 128, 1, 1>, lx = #spyre.lx<offset = 16384>, mem = #spyre.mem<tensor = @in0, offset = 0, param = [[P1:[0-9]+]]>
// CHECK: spyre.dma_load {box = array<i64: 128, 1, 1>, lx = #spyre.lx<offset = 147456>, mem = #spyre.mem<tensor = @in1, offset = 0, param = [[P1]]>
// CHECK: spyre.dma_load {box = array<i64: 128, 1, 1>, lx = #spyre.lx<offset = 278528>, mem = #spyre.mem<tensor = @in2, offset = 0, param = [[P1]]>
// CHECK-COUNT-18: spyre.dma_load {box = array<i64: 128, 1, 1>
// CHECK-NOT: spyre.dma_load
// CHECK: spyre.loop 8 {
// CHECK: spyre.sfp_unary "copy"
// CHECK: spyre.loop 0 attributes {count_level = 0 : i64, count_step = 1 : i64} {
// CHECK-NOT: spyre.dma_load
// CHECK: spyre.sfp_transpose {{.*}}src0 = #spyre.lx<offset = [[K]], strides = [0, 16384]>
// CHECK: spyre.pt_matmul
// CHECK: spyre.sfp_reduce "max"
// CHECK: spyre.sfp_unary "exp"
// CHECK: spyre.sfp_reduce "sum"
// CHECK: spyre.pt_matmul {accumulate{{.*}}rhs = #spyre.lx<offset = [[V]], strides = [0, 16384]>
// CHECK: }
// The diagonal key tile advances with the query tiles.
// CHECK-NOT: spyre.dma_load
// CHECK: spyre.sfp_transpose {{.*}}src0 = #spyre.lx<offset = [[K]], strides = [16384]>
// CHECK: spyre.sfp_select "select" {bcast_col1, cols = 128 : i64
// CHECK: spyre.pt_matmul {accumulate{{.*}}rhs = #spyre.lx<offset = [[V]], strides = [16384]>
// CHECK: spyre.sfp_binary "div" {{.*}}dst = #spyre.lx<offset = [[O:[0-9]+]], strides = [16384]>
// CHECK: spyre.dma_store {{.*}}lx = #spyre.lx<offset = [[O]], strides = [16384]>, mem = #spyre.mem<tensor = @out0, offset = 0, strides = [16384]>
// CHECK: spyre.plan
// Over several cores (second RUN line: on the default machine without
// kernel synchronization, which would make fewer cores pay at these small
// sizes): 8 cores, each running an early and a late query tile of 64 rows
// (1 + 16, 2 + 15, ... key tiles), K and V held and multicast to all of
// them, two key tiles a load; the key tiles before the diagonal differ per
// core (count parameters), and the diagonal's code comes once per first
// query tile, under a guard.
// MULTI-LABEL: spyre.program @k0_attention
// MULTI-SAME: num_cores = 8
// MULTI-SAME: hold = [1, 2]
// MULTI: spyre.dma_load {box = array<i64: 128, 1, 1>, {{.*}}tensor = @in1{{.*}}multicast
// MULTI: spyre.loop 0 attributes {count_param = [[G:[0-9]+]] : i64} {
// MULTI: spyre.sfp_select "select"
func.func @causal(%q: tensor<1x1024x64xf16>, %k: tensor<1x1024x64xf16>, %v: tensor<1x1024x64xf16>) -> tensor<1x1024x64xf16> {
  %0 = spyre.attention %q, %k, %v {causal, scale = 0.125 : f64} : tensor<1x1024x64xf16>, tensor<1x1024x64xf16>, tensor<1x1024x64xf16> -> tensor<1x1024x64xf16>
  return %0 : tensor<1x1024x64xf16>
}

// -----

// Grouped heads with a padding mask ([.., 1, 300]: one row for every
// query): the 4 query heads of a K/V head on 4 cores, which read each key
// tile of K and V once (multicast); the 300 keys stream in tiles of 64,
// the last one clamped (loads, the reductions' columns, the second
// product's k); the mask row is added with row pitch 0; each core's 40
// query rows are one tile, loaded once.
// MULTI-LABEL: spyre.program @k0_attention
// MULTI-SAME: num_cores = 8
// MULTI: spyre.dma_load {box = array<i64: 40, 1, 1>, lx{{.*}}tensor = @in0
// MULTI: spyre.loop
// MULTI: spyre.dma_load {box = array<i64: 64, 1, 1>, clamp = #spyre.clamp<level = 0, arg = 0, step = 64, total = 300>{{.*}}tensor = @in1{{.*}}multicast
// MULTI: spyre.dma_load {box = array<i64: 64, 1, 1>, clamp = #spyre.clamp<level = 0, arg = 0, step = 64, total = 300>{{.*}}tensor = @in2{{.*}}multicast
// MULTI: spyre.sfp_binary "add" {cols = 64 : i64, {{.*}}pitch = array<i64: 256, 256, 0>, rows = 40 : i64, {{.*}}src1_type = f16}
// MULTI-NOT: spyre.sfp_select
// MULTI: spyre.dma_store {box = array<i64: 40, 1, 1>, lx
func.func @masked_gqa(%q: tensor<1x2x4x40x64xf16>, %k: tensor<1x2x1x300x64xf16>, %v: tensor<1x2x1x300x64xf16>, %m: tensor<1x1x1x1x300xf16>) -> tensor<1x2x4x40x64xf16> {
  %0 = spyre.attention %q, %k, %v mask %m {scale = 0.125 : f64} : tensor<1x2x4x40x64xf16>, tensor<1x2x1x300x64xf16>, tensor<1x2x1x300x64xf16>, tensor<1x1x1x1x300xf16> -> tensor<1x2x4x40x64xf16>
  return %0 : tensor<1x2x4x40x64xf16>
}

// -----

// Sinks (one logit per head, [1, 8, 1, 1]): loaded once per head, before
// its query tiles, into one buffer (one stick, row pitch 0), they start
// every row's running max, and the running sum starts at 1 (the constant
// after -inf: index 5, offset + 20), the sink's exp(sink - max); the key
// tiles then run as without sinks.
// CHECK-LABEL: spyre.program @k0_attention
// CHECK: spyre.dma_load {box = array<i64: 1, 1, 1>, lx = #spyre.lx<offset = [[C:[0-9]+]]>, mem = #spyre.mem<tensor = @cst, offset = 0>
// CHECK: spyre.loop 8 {
// CHECK-NEXT: spyre.dma_load {box = array<i64: 1, 1, 1>, lx = #spyre.lx<offset = [[S:[0-9]+]]>, mem = #spyre.mem<tensor = @in3, offset = 0, strides = [128]>, pitch = array<i64: 0, 0, 0>
// CHECK-NEXT: spyre.dma_load {{.*}}mem = #spyre.mem<tensor = @in0
// CHECK-NEXT: spyre.sfp_unary "copy" {cols = 1 : i64, dst = #spyre.lx<offset = [[MAX:[0-9]+]]>, dst_type = f32, pitch = array<i64: 128, 0, 0>, rows = 100 : i64, src0 = #spyre.lx<offset = [[S]]>, src0_type = f16}
// CHECK-NEXT: spyre.sfp_unary "copy" {bcast_col0, cols = 1 : i64, dst = #spyre.lx<offset = [[SUM:[0-9]+]]>, {{.*}}src0_type = f32}
// CHECK: spyre.sfp_binary "max" {cols = 1 : i64, {{.*}}src0 = #spyre.lx<offset = [[MAX]]>
// CHECK: spyre.sfp_binary "div" {bcast_col1, {{.*}}src1 = #spyre.lx<offset = [[SUM]]>
// CHECK: spyre.reference @k0_attention
// CHECK: spyre.attention %arg0, %arg1, %arg2 sinks(%arg3 : tensor<1x8x1x1xf16, #layout>)
// MULTI-LABEL: spyre.program @k0_attention
// MULTI: spyre.dma_load {{.*}}mem = #spyre.mem<tensor = @in3
func.func @sinks(%q: tensor<1x8x100x64xf16>, %k: tensor<1x8x300x64xf16>, %v: tensor<1x8x300x64xf16>, %s: tensor<1x8x1x1xf16>) -> tensor<1x8x100x64xf16> {
  %0 = spyre.attention %q, %k, %v sinks(%s : tensor<1x8x1x1xf16>) {scale = 0.125 : f64} : tensor<1x8x100x64xf16>, tensor<1x8x300x64xf16>, tensor<1x8x300x64xf16> -> tensor<1x8x100x64xf16>
  return %0 : tensor<1x8x100x64xf16>
}

// -----

// The query's rope (spyre-fold-rope): cos, sin and the rotation are loaded
// once (one query tile a head), then every query tile is rotated in place
// after its load, before its first key tile: Q R on the PT array (f32, the
// rope buffer), times sin (rounded to f16), Q times cos, and their sum
// back into Q's tile, which the scores then read.
// CHECK-LABEL: spyre.tensor @in5 input
// CHECK: spyre.program @k0_attention
// CHECK: spyre.dma_load {{.*}}lx = #spyre.lx<offset = [[COS:[0-9]+]]>, mem = #spyre.mem<tensor = @in3
// CHECK: spyre.dma_load {{.*}}lx = #spyre.lx<offset = [[SIN:[0-9]+]]>, mem = #spyre.mem<tensor = @in4
// CHECK: spyre.dma_load {box = array<i64: 64, 1, 1>, lx = #spyre.lx<offset = [[ROT:[0-9]+]]>, mem = #spyre.mem<tensor = @in5
// CHECK: spyre.loop 4 {
// CHECK-NEXT: spyre.dma_load {{.*}}lx = #spyre.lx<offset = [[Q:[0-9]+]], {{.*}}mem = #spyre.mem<tensor = @in0
// CHECK-NEXT: spyre.pt_matmul {dst = #spyre.lx<offset = [[P:[0-9]+]]>, dst_type = f32, k = 64 : i64, lhs = #spyre.lx<offset = [[Q]], {{.*}}m = 100 : i64, n = 64 : i64, {{.*}}rhs = #spyre.lx<offset = [[ROT]]>
// CHECK-NEXT: spyre.sfp_binary "mul" {cols = 64 : i64, dst = #spyre.lx<offset = [[R:[0-9]+]]>, dst_type = f16, {{.*}}src0 = #spyre.lx<offset = [[P]]>, src0_type = f32, src1 = #spyre.lx<offset = [[SIN]]>
// CHECK-NEXT: spyre.sfp_binary "mul" {cols = 64 : i64, dst = #spyre.lx<offset = [[Q]], {{.*}}src0 = #spyre.lx<offset = [[Q]], {{.*}}src1 = #spyre.lx<offset = [[COS]]>
// CHECK-NEXT: spyre.sfp_binary "add" {cols = 64 : i64, dst = #spyre.lx<offset = [[Q]], {{.*}}src0 = #spyre.lx<offset = [[Q]], {{.*}}src1 = #spyre.lx<offset = [[R]]>
// CHECK: spyre.pt_matmul {dst = {{.*}}k = 64 : i64, lhs = #spyre.lx<offset = [[Q]],
// CHECK: spyre.reference @k0_attention
// CHECK: spyre.attention %arg0, %arg1, %arg2 rope(%arg3, %arg4, %arg5 :
// MULTI-LABEL: spyre.tensor @in5 input
// MULTI: spyre.pt_matmul {dst = {{.*}}dst_type = f32, k = 64 : i64, {{.*}}n = 64 : i64
func.func @rope(%q: tensor<1x4x100x64xf16>, %k: tensor<1x4x100x64xf16>, %v: tensor<1x4x100x64xf16>, %c: tensor<100x64xf16>, %s: tensor<100x64xf16>, %r: tensor<64x64xf16>) -> tensor<1x4x100x64xf16> {
  %0 = spyre.attention %q, %k, %v rope(%c, %s, %r : tensor<100x64xf16>, tensor<100x64xf16>, tensor<64x64xf16>) {causal, scale = 0.125 : f64} : tensor<1x4x100x64xf16>, tensor<1x4x100x64xf16>, tensor<1x4x100x64xf16> -> tensor<1x4x100x64xf16>
  return %0 : tensor<1x4x100x64xf16>
}
