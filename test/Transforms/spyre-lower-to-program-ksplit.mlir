// RUN: spyre-opt %s --spyre-allocate-scratchpad --spyre-lower-to-program --split-input-file --verify-diagnostics | FileCheck %s

// A K-split matmul (KernelPlan::kSplit): x[8, 4096] @ w[64, 4096]^T has one
// output tile, so the pinned schedule splits k over 4 adjacent cores, 2 k
// tiles of 512 each. Every core accumulates its k tiles; then, down the
// partial-sum ring, core 3 sends its sums to core 2, which adds them to its
// own (an accumulating receive) and sends on, and so on to core 0, which
// alone converts and stores the result. The receives run on cores 0-2, the
// sends on cores 1-3 (guards: loops of a per-core count of 0 or 1), their
// peers from parameter slots. Per core the parameters are: the lhs and
// weight offsets of its k range, then receives, the peer received from,
// sends, the peer sent to, and whether it stores:
//   core 0: 1 from 1, no send, stores; core 1: 1 from 2, 1 to 0;
//   core 2: 1 from 3, 1 to 1;          core 3: no receive, 1 to 2.
// CHECK-LABEL: spyre.program @k
// CHECK-SAME: num_cores = 4
// CHECK-SAME: params = array<i64: 0, 0, 1, 1, 0, 0, 1, 2048, 131072, 1, 2, 1, 0, 0, 4096, 262144, 1, 3, 1, 1, 0, 6144, 393216, 0, 0, 1, 2, 0>
// CHECK: spyre.loop 2 {
// CHECK: spyre.pt_matmul {accumulate, dst = #spyre.lx<offset = [[ACC:[0-9]+]]>
// CHECK-SAME: k = 512
// CHECK-NEXT: {{^ *}}}{{$}}
// CHECK-NEXT: spyre.loop 1 attributes {count_param = 2 : i64} {
// CHECK-NEXT: spyre.ring_recv {accumulate, bytes = 2048 : i64, lx = #spyre.lx<offset = [[ACC]]>, partial_sum, peer = 0 : i64, peer_param = 3 : i64, tag = 0 : i64}
// CHECK-NEXT: {{^ *}}}{{$}}
// CHECK-NEXT: spyre.loop 0 attributes {count_param = 4 : i64} {
// CHECK-NEXT: spyre.ring_send {bytes = 2048 : i64, lx = #spyre.lx<offset = [[ACC]]>, partial_sum, peer = 0 : i64, peer_param = 5 : i64, tag = 0 : i64}
// CHECK-NEXT: {{^ *}}}{{$}}
// CHECK-NEXT: spyre.loop 1 attributes {count_param = 6 : i64} {
// CHECK-NEXT: spyre.sfp_unary "copy" {{{.*}}src0 = #spyre.lx<offset = [[ACC]]>
// CHECK-NEXT: spyre.dma_store
// CHECK-NEXT: {{^ *}}}{{$}}
#layout = #spyre.layout<stick_dim = 1, stick_elems = 64>
#layout1 = #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @k_split(%x: tensor<8x4096xf16, #layout>, %w: tensor<64x4096xf16, #layout1>) -> tensor<8x64xf16, #layout> {
  %0 = spyre.kernel "k"(%x, %w) {indexing_maps = [#map, #map1, #map3], iterators = ["parallel", "parallel", "reduction"], space = array<i64: 8, 64, 4096>, schedule = #spyre.schedule<split = [1, 1, 4], tile = [8, 64, 512], depth = 2, cost_ns = 0>} : (tensor<8x4096xf16, #layout>, tensor<64x4096xf16, #layout1>) -> tensor<8x64xf16, #layout> {
  ^bb0(%a: tensor<8x4096xf16, #layout>, %b: tensor<64x4096xf16, #layout1>):
    %1 = spyre.matmul %a, %b {transpose_rhs} : tensor<8x4096xf16, #layout>, tensor<64x4096xf16, #layout1> -> tensor<8x64xf16, #layout>
    spyre.yield %1 : tensor<8x64xf16, #layout>
  }
  return %0 : tensor<8x64xf16, #layout>
}

// -----

// An input fixed along k (the bias of the epilogue) is read only by the
// first core of each k group, which alone runs the epilogue: its load is
// guarded like the epilogue (parameter 0: 1 on core 0), and no multicast.
// CHECK-LABEL: spyre.program @k
// CHECK-SAME: num_cores = 4
// CHECK-NEXT: spyre.loop 1 attributes {count_param = 0 : i64} {
// CHECK-NEXT: spyre.dma_load {box = array<i64: 1, 1, 1>, lx = #spyre.lx<offset = [[BIAS:[0-9]+]]>, mem = #spyre.mem<tensor = @in2, offset = 0, strides = [0]>, pitch = array<i64: 0, 0, 0>, run = 128 : i64}
// CHECK-NEXT: {{^ *}}}{{$}}
// CHECK: spyre.ring_recv {accumulate
// CHECK: spyre.ring_send
// CHECK: spyre.loop 1 attributes {count_param = 0 : i64} {
// CHECK-NEXT: spyre.sfp_binary "add" {{{.*}}src1 = #spyre.lx<offset = [[BIAS]]>
// CHECK-NEXT: spyre.dma_store
#layout = #spyre.layout<stick_dim = 1, stick_elems = 64>
#layout1 = #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>
#layout2 = #spyre.layout<stick_dim = 0, stick_elems = 64>
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d1)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @bias(%x: tensor<8x4096xf16, #layout>, %w: tensor<64x4096xf16, #layout1>, %bias: tensor<64xf16, #layout2>) -> tensor<8x64xf16, #layout> {
  %0 = spyre.kernel "k"(%x, %w, %bias) {indexing_maps = [#map, #map1, #map2, #map3], iterators = ["parallel", "parallel", "reduction"], space = array<i64: 8, 64, 4096>, schedule = #spyre.schedule<split = [1, 1, 4], tile = [8, 64, 512], depth = 2, cost_ns = 0>} : (tensor<8x4096xf16, #layout>, tensor<64x4096xf16, #layout1>, tensor<64xf16, #layout2>) -> tensor<8x64xf16, #layout> {
  ^bb0(%a: tensor<8x4096xf16, #layout>, %b: tensor<64x4096xf16, #layout1>, %c: tensor<64xf16, #layout2>):
    %1 = spyre.matmul %a, %b {transpose_rhs} : tensor<8x4096xf16, #layout>, tensor<64x4096xf16, #layout1> -> tensor<8x64xf16, #layout>
    %2 = spyre.binary add %1, %c : tensor<8x64xf16, #layout>, tensor<64xf16, #layout2> -> tensor<8x64xf16, #layout>
    spyre.yield %2 : tensor<8x64xf16, #layout>
  }
  return %0 : tensor<8x64xf16, #layout>
}

// -----

// A result handed to its reader in LX: only core 0 has the sums.
#layout = #spyre.layout<stick_dim = 1, stick_elems = 64>
#layout1 = #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#e = affine_map<(d0, d1) -> (d0, d1)>
func.func @kept_in_lx(%x: tensor<8x4096xf16, #layout>, %w: tensor<64x4096xf16, #layout1>) -> tensor<8x64xf16, #layout> {
  // expected-error @+1 {{k is split over 4 cores, but result 0 is handed over on chip (only the first core of a k group has the sums)}}
  %0 = spyre.kernel "k"(%x, %w) {indexing_maps = [#map, #map1, #map3], iterators = ["parallel", "parallel", "reduction"], space = array<i64: 8, 64, 4096>, schedule = #spyre.schedule<split = [1, 1, 4], tile = [8, 64, 512], depth = 2, cost_ns = 0>, destinations = ["lx"]} : (tensor<8x4096xf16, #layout>, tensor<64x4096xf16, #layout1>) -> tensor<8x64xf16, #layout> {
  ^bb0(%a: tensor<8x4096xf16, #layout>, %b: tensor<64x4096xf16, #layout1>):
    %1 = spyre.matmul %a, %b {transpose_rhs} : tensor<8x4096xf16, #layout>, tensor<64x4096xf16, #layout1> -> tensor<8x64xf16, #layout>
    spyre.yield %1 : tensor<8x64xf16, #layout>
  }
  %1 = spyre.kernel "n"(%0) {indexing_maps = [#e, #e], iterators = ["parallel", "parallel"], space = array<i64: 8, 64>, schedule = #spyre.schedule<split = [1, 1], tile = [8, 64], depth = 1, cost_ns = 0>, sources = ["lx"]} : (tensor<8x64xf16, #layout>) -> tensor<8x64xf16, #layout> {
  ^bb0(%a: tensor<8x64xf16, #layout>):
    %r = spyre.unary neg %a : tensor<8x64xf16, #layout> -> tensor<8x64xf16, #layout>
    spyre.yield %r : tensor<8x64xf16, #layout>
  }
  return %1 : tensor<8x64xf16, #layout>
}

// -----

// A result kept whole per core (a slab).
#layout = #spyre.layout<stick_dim = 1, stick_elems = 64>
#layout1 = #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @kept_whole(%x: tensor<8x4096xf16, #layout>, %w: tensor<128x4096xf16, #layout1>) -> tensor<8x128xf16, #layout> {
  // expected-error @+1 {{k is split over 4 cores, but the schedule keeps a result whole per core (only the first core of a k group has the sums)}}
  %0 = spyre.kernel "k"(%x, %w) {indexing_maps = [#map, #map1, #map3], iterators = ["parallel", "parallel", "reduction"], space = array<i64: 8, 128, 4096>, schedule = #spyre.schedule<split = [1, 1, 4], tile = [8, 64, 512], depth = 2, cost_ns = 0, keep = [0]>} : (tensor<8x4096xf16, #layout>, tensor<128x4096xf16, #layout1>) -> tensor<8x128xf16, #layout> {
  ^bb0(%a: tensor<8x4096xf16, #layout>, %b: tensor<128x4096xf16, #layout1>):
    %1 = spyre.matmul %a, %b {transpose_rhs} : tensor<8x4096xf16, #layout>, tensor<128x4096xf16, #layout1> -> tensor<8x128xf16, #layout>
    spyre.yield %1 : tensor<8x128xf16, #layout>
  }
  return %0 : tensor<8x128xf16, #layout>
}

// -----

// Three tile loops on a core (batch, rows, columns) leave no hardware loop
// level for the reduction's guards.
#l = #spyre.layout<stick_dim = 2, stick_elems = 64>
#l1 = #spyre.layout<stick_dim = 1, stick_elems = 64, dim_order = [0, 2, 1]>
#map = affine_map<(b, d0, d1, d2) -> (b, d0, d2)>
#map1 = affine_map<(b, d0, d1, d2) -> (b, d1, d2)>
#map3 = affine_map<(b, d0, d1, d2) -> (b, d0, d1)>
func.func @no_loop_level(%x: tensor<2x16x1024xf16, #l>, %w: tensor<2x128x1024xf16, #l1>) -> tensor<2x16x128xf16, #l> {
  // expected-error @+1 {{k is split over 2 cores, but the reduction after k needs a hardware loop level of its own}}
  %0 = spyre.kernel "k"(%x, %w) {indexing_maps = [#map, #map1, #map3], iterators = ["parallel", "parallel", "parallel", "reduction"], space = array<i64: 2, 16, 128, 1024>, schedule = #spyre.schedule<split = [1, 1, 1, 2], tile = [1, 8, 64, 512], depth = 2, cost_ns = 0>} : (tensor<2x16x1024xf16, #l>, tensor<2x128x1024xf16, #l1>) -> tensor<2x16x128xf16, #l> {
  ^bb0(%a: tensor<2x16x1024xf16, #l>, %b: tensor<2x128x1024xf16, #l1>):
    %1 = spyre.matmul %a, %b {transpose_rhs} : tensor<2x16x1024xf16, #l>, tensor<2x128x1024xf16, #l1> -> tensor<2x16x128xf16, #l>
    spyre.yield %1 : tensor<2x16x128xf16, #l>
  }
  return %0 : tensor<2x16x128xf16, #l>
}

// -----

// A gated MLP kernel has two accumulators (the up and the gate
// projection): each tile's partial sums of both go down the chain, one
// after the other, in the same order on every core (one tag, in order).
// CHECK-LABEL: spyre.program @k1_matmul
// CHECK: spyre.ring_recv {accumulate, bytes = 2048 : i64, lx = #spyre.lx<offset = [[UP:[0-9]+]]>, partial_sum
// CHECK: spyre.ring_send {bytes = 2048 : i64, lx = #spyre.lx<offset = [[UP]]>, partial_sum
// CHECK: spyre.ring_recv {accumulate, bytes = 2048 : i64, lx = #spyre.lx<offset = [[GATE:[0-9]+]]>, partial_sum
// CHECK: spyre.ring_send {bytes = 2048 : i64, lx = #spyre.lx<offset = [[GATE]]>, partial_sum
// CHECK: spyre.sfp_unary "silu" {{{.*}}src0 = #spyre.lx<offset = [[GATE]]>
#layout = #spyre.layout<stick_dim = 1, stick_elems = 64>
#layout1 = #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @gated(%x: tensor<8x4096xf16, #layout>, %wg: tensor<64x4096xf16, #layout1>, %wu: tensor<64x4096xf16, #layout1>) -> tensor<8x64xf16, #layout> {
  %0 = spyre.kernel "k1_matmul"(%x, %wu, %wg) {indexing_maps = [#map, #map1, #map1, #map2], iterators = ["parallel", "parallel", "reduction"], space = array<i64: 8, 64, 4096>, schedule = #spyre.schedule<split = [1, 1, 2], tile = [8, 64, 1024], depth = 2, cost_ns = 0>} : (tensor<8x4096xf16, #layout>, tensor<64x4096xf16, #layout1>, tensor<64x4096xf16, #layout1>) -> tensor<8x64xf16, #layout> {
  ^bb0(%a: tensor<8x4096xf16, #layout>, %u: tensor<64x4096xf16, #layout1>, %g: tensor<64x4096xf16, #layout1>):
    %1 = spyre.matmul %a, %u {transpose_rhs} : tensor<8x4096xf16, #layout>, tensor<64x4096xf16, #layout1> -> tensor<8x64xf16, #layout>
    %2 = spyre.matmul %a, %g {transpose_rhs} : tensor<8x4096xf16, #layout>, tensor<64x4096xf16, #layout1> -> tensor<8x64xf16, #layout>
    %3 = spyre.unary silu %2 : tensor<8x64xf16, #layout> -> tensor<8x64xf16, #layout>
    %4 = spyre.binary mul %3, %1 : tensor<8x64xf16, #layout>, tensor<8x64xf16, #layout> -> tensor<8x64xf16, #layout>
    spyre.yield %4 : tensor<8x64xf16, #layout>
  }
  return %0 : tensor<8x64xf16, #layout>
}
