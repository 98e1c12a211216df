// RUN: spyre-opt %s --spyre-schedule-cores=max-cores=32 --split-input-file --verify-diagnostics | FileCheck %s
// RUN: spyre-opt %s --spyre-schedule-cores=max-cores=4 --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=MAX4
// RUN: spyre-opt %s --spyre-attach-arch=file=%S/Inputs/tiny-arch.json --spyre-schedule-cores --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=TINY
// RUN: spyre-opt %s --spyre-attach-arch=arch=%S/Inputs/no-sync-arch.json --spyre-schedule-cores --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=NOSYNC

#layout = #spyre.layout<stick_dim = 1, stick_elems = 64>
#layout1 = #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>
#layout2 = #spyre.layout<stick_dim = 0, stick_elems = 64>
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d1)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>

// A 64x256 @ 256x1024 matmul with a bias epilogue. On the default machine
// each core a kernel runs on costs its synchronization (core_sync_ns), so
// this 0.6 MiB kernel runs on 4 cores, 2 along M (rows) and 2 along N: the
// activation tile is multicast to the 2 cores of each row group and each
// weight slice to the 2 cores of its column group. Without the
// synchronization (NOSYNC) 8 cores pay: 4 along M, 2 along N. Each core's
// 32 activation rows are held whole along K (`hold = [0]`, 16 KiB) while K
// streams in 4 tiles of its one 512-column weight slice.
// CHECK-LABEL: func.func @mlp
// CHECK: spyre.kernel "k0_matmul"
// CHECK-SAME: schedule = #spyre.schedule<split = [2, 2, 1], tile = [32, 512, 64], depth = 2, cost_ns = {{[0-9]+}}, hold = [0]>
// NOSYNC-LABEL: func.func @mlp
// NOSYNC: schedule = #spyre.schedule<split = [4, 2, 1], tile = [16, 256, 256], depth = 2
// With at most 4 cores the same.
// MAX4-LABEL: func.func @mlp
// MAX4: schedule = #spyre.schedule<split = [2, 2, 1], tile = [32, 512, 64], depth = 2, cost_ns = {{[0-9]+}}, hold = [0]>
// A 4-core machine with a 64 KiB scratchpad must tile finer: 8 column tiles
// per core, K streamed in double-buffered 64-deep tiles.
// TINY: schedule = #spyre.schedule<split = [2, 2, 1], tile = [32, 64, 64], depth = 2
  func.func @mlp(%arg0: tensor<64x256xf16, #layout>, %arg1: tensor<1024x256xf16, #layout1>, %arg2: tensor<1024xf16, #layout2>) -> tensor<64x1024xf16, #layout> {
    %0 = spyre.kernel "k0_matmul"(%arg0, %arg1, %arg2) {indexing_maps = [#map, #map1, #map2, #map3], iterators = ["parallel", "parallel", "reduction"], space = array<i64: 64, 1024, 256>} : (tensor<64x256xf16, #layout>, tensor<1024x256xf16, #layout1>, tensor<1024xf16, #layout2>) -> tensor<64x1024xf16, #layout> {
    ^bb0(%arg3: tensor<64x256xf16, #layout>, %arg4: tensor<1024x256xf16, #layout1>, %arg5: tensor<1024xf16, #layout2>):
      %1 = spyre.matmul %arg3, %arg4 {transpose_rhs} : tensor<64x256xf16, #layout>, tensor<1024x256xf16, #layout1> -> tensor<64x1024xf16, #layout>
      %2 = spyre.binary add %1, %arg5 : tensor<64x1024xf16, #layout>, tensor<1024xf16, #layout2> -> tensor<64x1024xf16, #layout>
      spyre.yield %2 : tensor<64x1024xf16, #layout>
    }
    return %0 : tensor<64x1024xf16, #layout>
  }

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 32>
#map = affine_map<(d0, d1) -> (d0, d1)>

// A schedule already present is kept (users and tests can pin one).
// CHECK-LABEL: func.func @pinned
// CHECK: schedule = #spyre.schedule<split = [1, 1], tile = [63, 65], depth = 1, cost_ns = 0>
// TINY-LABEL: func.func @pinned
// NOSYNC-LABEL: func.func @pinned
func.func @pinned(%x: tensor<63x65xf32, #row>) -> tensor<63x65xf32, #row> {
  %0 = spyre.kernel "k"(%x) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 63, 65>, schedule = #spyre.schedule<split = [1, 1], tile = [63, 65], depth = 1, cost_ns = 0>} : (tensor<63x65xf32, #row>) -> tensor<63x65xf32, #row> {
  ^bb0(%a: tensor<63x65xf32, #row>):
    %1 = spyre.unary exp %a : tensor<63x65xf32, #row> -> tensor<63x65xf32, #row>
    spyre.yield %1 : tensor<63x65xf32, #row>
  }
  return %0 : tensor<63x65xf32, #row>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 32>
#map = affine_map<(d0, d1) -> (d0, d1)>

// An elementwise kernel on an odd shape: 65 fp32 columns are 3 sticks, so
// column tiles are 1 or 3 sticks. A tiny kernel gains nothing from more
// cores than their synchronization costs: one core, the whole 63x65. Without
// the synchronization (NOSYNC) its rows go to 2 cores, the last row tile
// clamped to 31 rows.
// CHECK-LABEL: func.func @odd_elementwise
// CHECK: schedule = #spyre.schedule<split = [1, 1], tile = [63, 65], depth = 2
// NOSYNC-LABEL: func.func @odd_elementwise
// NOSYNC: schedule = #spyre.schedule<split = [2, 1], tile = [32, 65], depth = 2
func.func @odd_elementwise(%x: tensor<63x65xf32, #row>) -> tensor<63x65xf32, #row> {
  %0 = spyre.kernel "k"(%x) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 63, 65>} : (tensor<63x65xf32, #row>) -> tensor<63x65xf32, #row> {
  ^bb0(%a: tensor<63x65xf32, #row>):
    %1 = spyre.unary exp %a : tensor<63x65xf32, #row> -> tensor<63x65xf32, #row>
    spyre.yield %1 : tensor<63x65xf32, #row>
  }
  return %0 : tensor<63x65xf32, #row>
}

// -----

#layout = #spyre.layout<stick_dim = 1, stick_elems = 64>
#layout1 = #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>

// An N of 8224 (Granite's lm_head shape class): 128.5 f16 sticks, 257 f32
// accumulator sticks (prime). The accumulator lives in LX one tile at a
// time, so an N tile of whole f16 sticks dividing their 129 is fine
// although it does not divide 257 f32 sticks: 1, 3 or 43 sticks (2752
// elements on 3 cores streams the weight in 352 KiB transfers, 35 us
// simulated, where 64-wide tiles on 32 cores took 55 us); the whole N (a
// 1 MiB weight tile per K step) would not fit.
// CHECK-LABEL: func.func @odd_stick_count_n
// CHECK: spyre.kernel "k0_matmul"
// CHECK-SAME: schedule = #spyre.schedule<split = [1, {{[0-9]+}}, 1], tile = [1, {{64|192|2752}}, {{[0-9]+}}]
func.func @odd_stick_count_n(%arg0: tensor<1x256xf16, #layout>, %arg1: tensor<8224x256xf16, #layout1>) -> tensor<1x8224xf16, #layout> {
  %0 = spyre.kernel "k0_matmul"(%arg0, %arg1) {indexing_maps = [#map, #map1, #map3], iterators = ["parallel", "parallel", "reduction"], space = array<i64: 1, 8224, 256>} : (tensor<1x256xf16, #layout>, tensor<8224x256xf16, #layout1>) -> tensor<1x8224xf16, #layout> {
  ^bb0(%arg3: tensor<1x256xf16, #layout>, %arg4: tensor<8224x256xf16, #layout1>):
    %1 = spyre.matmul %arg3, %arg4 {transpose_rhs} : tensor<1x256xf16, #layout>, tensor<8224x256xf16, #layout1> -> tensor<1x8224xf16, #layout>
    spyre.yield %1 : tensor<1x8224xf16, #layout>
  }
  return %0 : tensor<1x8224xf16, #layout>
}

// -----

#layout = #spyre.layout<stick_dim = 1, stick_elems = 64>
#layout1 = #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>

// The layers of a model: kernels equal but for their name and location share
// one search and get its schedule; a kernel of other shapes gets its own.
// CHECK-LABEL: func.func @layers
// CHECK: spyre.kernel "layer0"
// CHECK-SAME: schedule = [[S:#spyre.schedule<split = \[2, 2, 1\], tile = \[32, 128, 256\][^>]*>]]
// CHECK: spyre.kernel "layer1"
// CHECK-SAME: schedule = [[S]]
// CHECK: spyre.kernel "narrow"
// CHECK-SAME: schedule = #spyre.schedule<split = [2, 1, 1], tile = [32, 64, 256]
func.func @layers(%x: tensor<64x256xf16, #layout>, %w0: tensor<1024x256xf16, #layout1>, %w1: tensor<1024x256xf16, #layout1>, %w2: tensor<128x256xf16, #layout1>) -> (tensor<64x1024xf16, #layout>, tensor<64x1024xf16, #layout>, tensor<64x128xf16, #layout>) {
  %0 = spyre.kernel "layer0"(%x, %w0) {indexing_maps = [#map, #map1, #map3], iterators = ["parallel", "parallel", "reduction"], space = array<i64: 64, 1024, 256>} : (tensor<64x256xf16, #layout>, tensor<1024x256xf16, #layout1>) -> tensor<64x1024xf16, #layout> {
  ^bb0(%a: tensor<64x256xf16, #layout>, %b: tensor<1024x256xf16, #layout1>):
    %m = spyre.matmul %a, %b {transpose_rhs} : tensor<64x256xf16, #layout>, tensor<1024x256xf16, #layout1> -> tensor<64x1024xf16, #layout>
    spyre.yield %m : tensor<64x1024xf16, #layout>
  } loc("layers.0")
  %1 = spyre.kernel "layer1"(%x, %w1) {indexing_maps = [#map, #map1, #map3], iterators = ["parallel", "parallel", "reduction"], space = array<i64: 64, 1024, 256>} : (tensor<64x256xf16, #layout>, tensor<1024x256xf16, #layout1>) -> tensor<64x1024xf16, #layout> {
  ^bb0(%c: tensor<64x256xf16, #layout>, %d: tensor<1024x256xf16, #layout1>):
    %n = spyre.matmul %c, %d {transpose_rhs} : tensor<64x256xf16, #layout>, tensor<1024x256xf16, #layout1> -> tensor<64x1024xf16, #layout>
    spyre.yield %n : tensor<64x1024xf16, #layout>
  } loc("layers.1")
  %2 = spyre.kernel "narrow"(%x, %w2) {indexing_maps = [#map, #map1, #map3], iterators = ["parallel", "parallel", "reduction"], space = array<i64: 64, 128, 256>} : (tensor<64x256xf16, #layout>, tensor<128x256xf16, #layout1>) -> tensor<64x128xf16, #layout> {
  ^bb0(%e: tensor<64x256xf16, #layout>, %f: tensor<128x256xf16, #layout1>):
    %o = spyre.matmul %e, %f {transpose_rhs} : tensor<64x256xf16, #layout>, tensor<128x256xf16, #layout1> -> tensor<64x128xf16, #layout>
    spyre.yield %o : tensor<64x128xf16, #layout>
  }
  return %0, %1, %2 : tensor<64x1024xf16, #layout>, tensor<64x1024xf16, #layout>, tensor<64x128xf16, #layout>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 32>
#map = affine_map<(d0, d1) -> (0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>

// var(x.expand(120, 58), dim 0): the mean is subtracted from the expanded
// rows, which span the reduced loop though the input does not (a
// broadcast), and the squares are reduced again: every tile holds all 120
// rows, the sums are never accumulated over row tiles (whose second sum
// would count one tile's rows).
// CHECK-LABEL: func.func @expanded_variance
// CHECK: schedule = #spyre.schedule<split = [1, {{[0-9]+}}], tile = [120,
func.func @expanded_variance(%x: tensor<1x58xf32, #row>) -> tensor<1x58xf32, #row> {
  %0 = spyre.kernel "k0"(%x) {indexing_maps = [#map, #map], iterators = ["reduction", "parallel"], space = array<i64: 120, 58>} : (tensor<1x58xf32, #row>) -> tensor<1x58xf32, #row> {
  ^bb0(%a: tensor<1x58xf32, #row>):
    %b = spyre.broadcast %a : tensor<1x58xf32, #row> -> tensor<120x58xf32, #row>
    %s = spyre.reduce sum %b dim 0 : tensor<120x58xf32, #row> -> tensor<1x58xf32, #row>
    %d = spyre.binary sub %b, %s : tensor<120x58xf32, #row>, tensor<1x58xf32, #row> -> tensor<120x58xf32, #row>
    %q = spyre.binary mul %d, %d : tensor<120x58xf32, #row>, tensor<120x58xf32, #row> -> tensor<120x58xf32, #row>
    %v = spyre.reduce sum %q dim 0 : tensor<120x58xf32, #row> -> tensor<1x58xf32, #row>
    spyre.yield %v : tensor<1x58xf32, #row>
  }
  return %0 : tensor<1x58xf32, #row>
}

// -----

#layout = #spyre.layout<stick_dim = 1, stick_elems = 64>
#layout1 = #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>
#layout2 = #spyre.layout<stick_dim = 0, stick_elems = 64>
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d1)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>

// K-split (KernelPlan::kSplit): x[8, 8192] @ w[64, 8192]^T has one output
// tile, so no parallel loop can give a second core work; the search then
// splits k, and reduces the partial sums over the partial-sum ring. On the
// default machine one core streams the 1 MiB of weights at 13.2 us, 2 cores
// at 12.9 us (simulated 12.87 us); more cores cost more synchronization than
// they save. On the tiny machine (500 ns memory latency, 64 KiB of LX, 128-
// deep k tiles) one core pays the latency per tile: all 4 cores, 83.5 ->
// 28.6 us (simulated 83.5 -> 28.2 us).
// CHECK-LABEL: func.func @k_split
// CHECK: schedule = #spyre.schedule<split = [1, 1, 2], tile = [8, 64, 1024], depth = 2
// MAX4-LABEL: func.func @k_split
// MAX4: schedule = #spyre.schedule<split = [1, 1, 2], tile = [8, 64, 1024], depth = 2
// TINY-LABEL: func.func @k_split
// TINY: schedule = #spyre.schedule<split = [1, 1, 4], tile = [8, 64, 128], depth = 2
// NOSYNC-LABEL: func.func @k_split
// NOSYNC: schedule = #spyre.schedule<split = [1, 1, 2], tile = [8, 64, 1024], depth = 2
func.func @k_split(%x: tensor<8x8192xf16, #layout>, %w: tensor<64x8192xf16, #layout1>) -> tensor<8x64xf16, #layout> {
  %0 = spyre.kernel "k"(%x, %w) {indexing_maps = [#map, #map1, #map3], iterators = ["parallel", "parallel", "reduction"], space = array<i64: 8, 64, 8192>} : (tensor<8x8192xf16, #layout>, tensor<64x8192xf16, #layout1>) -> tensor<8x64xf16, #layout> {
  ^bb0(%a: tensor<8x8192xf16, #layout>, %b: tensor<64x8192xf16, #layout1>):
    %1 = spyre.matmul %a, %b {transpose_rhs} : tensor<8x8192xf16, #layout>, tensor<64x8192xf16, #layout1> -> tensor<8x64xf16, #layout>
    spyre.yield %1 : tensor<8x64xf16, #layout>
  }
  return %0 : tensor<8x64xf16, #layout>
}

// A K of 1024 (128 KiB of weights): the split would save less than the
// second core's synchronization, so the default machine keeps one core
// (the tiny one, with its latency, still splits).
// CHECK-LABEL: func.func @k_too_short
// CHECK: schedule = #spyre.schedule<split = [1, 1, 1], tile = [8, 64, 512], depth = 2, cost_ns = {{[0-9]+}}, hold = [0]>
// TINY-LABEL: func.func @k_too_short
// TINY: schedule = #spyre.schedule<split = [1, 1, 4], tile = [8, 64, 256], depth = 2
func.func @k_too_short(%x: tensor<8x1024xf16, #layout>, %w: tensor<64x1024xf16, #layout1>) -> tensor<8x64xf16, #layout> {
  %0 = spyre.kernel "k"(%x, %w) {indexing_maps = [#map, #map1, #map3], iterators = ["parallel", "parallel", "reduction"], space = array<i64: 8, 64, 1024>} : (tensor<8x1024xf16, #layout>, tensor<64x1024xf16, #layout1>) -> tensor<8x64xf16, #layout> {
  ^bb0(%a: tensor<8x1024xf16, #layout>, %b: tensor<64x1024xf16, #layout1>):
    %1 = spyre.matmul %a, %b {transpose_rhs} : tensor<8x1024xf16, #layout>, tensor<64x1024xf16, #layout1> -> tensor<8x64xf16, #layout>
    spyre.yield %1 : tensor<8x64xf16, #layout>
  }
  return %0 : tensor<8x64xf16, #layout>
}

// A bias in the epilogue: only the first core of each k group reads it
// (KernelPlan::readByFirstOfKGroup), so the same shape K-splits as well.
// CHECK-LABEL: func.func @k_split_bias
// CHECK: schedule = #spyre.schedule<split = [1, 1, 2], tile = [8, 64, 1024], depth = 2
// TINY-LABEL: func.func @k_split_bias
// TINY: schedule = #spyre.schedule<split = [1, 1, 4], tile = [8, 64, 128], depth = 2
func.func @k_split_bias(%x: tensor<8x8192xf16, #layout>, %w: tensor<64x8192xf16, #layout1>, %bias: tensor<64xf16, #layout2>) -> tensor<8x64xf16, #layout> {
  %0 = spyre.kernel "k"(%x, %w, %bias) {indexing_maps = [#map, #map1, #map2, #map3], iterators = ["parallel", "parallel", "reduction"], space = array<i64: 8, 64, 8192>} : (tensor<8x8192xf16, #layout>, tensor<64x8192xf16, #layout1>, tensor<64xf16, #layout2>) -> tensor<8x64xf16, #layout> {
  ^bb0(%a: tensor<8x8192xf16, #layout>, %b: tensor<64x8192xf16, #layout1>, %c: tensor<64xf16, #layout2>):
    %1 = spyre.matmul %a, %b {transpose_rhs} : tensor<8x8192xf16, #layout>, tensor<64x8192xf16, #layout1> -> tensor<8x64xf16, #layout>
    %2 = spyre.binary add %1, %c : tensor<8x64xf16, #layout>, tensor<64xf16, #layout2> -> tensor<8x64xf16, #layout>
    spyre.yield %2 : tensor<8x64xf16, #layout>
  }
  return %0 : tensor<8x64xf16, #layout>
}
