// RUN: spyre-opt %s --spyre-schedule-cores --split-input-file | FileCheck %s
// RUN: spyre-opt %s --spyre-schedule-cores="resident=false" --split-input-file | FileCheck %s --check-prefix=ALONE

// A consumer scheduled with its producer: "a" (pinned) writes 512 rows on
// each of 4 cores, once per core. On its own, "b" is fastest on one core
// (ALONE); reading each core's rows where "a" leaves them in LX saves its
// load and a's store, which pays for the 4-core schedule.
#row = #spyre.layout<stick_dim = 1, stick_elems = 32>
#map = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @read_in_place
// CHECK: spyre.kernel "b"
// CHECK-SAME: schedule = #spyre.schedule<split = [4, 1], tile = [512, 32]
// ALONE-LABEL: func.func @read_in_place
// ALONE: spyre.kernel "b"
// ALONE-SAME: schedule = #spyre.schedule<split = [1, 1], tile = [2048, 32]
func.func @read_in_place(%x: tensor<2048x32xf32, #row>) -> tensor<2048x32xf32, #row> {
  %0 = spyre.kernel "a"(%x) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 2048, 32>, schedule = #spyre.schedule<split = [4, 1], tile = [512, 32], depth = 1, cost_ns = 0>} : (tensor<2048x32xf32, #row>) -> tensor<2048x32xf32, #row> {
  ^bb0(%a: tensor<2048x32xf32, #row>):
    %r = spyre.unary exp %a : tensor<2048x32xf32, #row> -> tensor<2048x32xf32, #row>
    spyre.yield %r : tensor<2048x32xf32, #row>
  }
  %1 = spyre.kernel "b"(%0) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 2048, 32>} : (tensor<2048x32xf32, #row>) -> tensor<2048x32xf32, #row> {
  ^bb0(%a: tensor<2048x32xf32, #row>):
    %r = spyre.unary neg %a : tensor<2048x32xf32, #row> -> tensor<2048x32xf32, #row>
    spyre.yield %r : tensor<2048x32xf32, #row>
  }
  return %1 : tensor<2048x32xf32, #row>
}

// -----

// A result that a graph output also uses must reach device memory: "b"
// keeps its own best.
#row = #spyre.layout<stick_dim = 1, stick_elems = 32>
#map = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @also_returned
// CHECK: spyre.kernel "b"
// CHECK-SAME: schedule = #spyre.schedule<split = [1, 1], tile = [2048, 32]
func.func @also_returned(%x: tensor<2048x32xf32, #row>) -> (tensor<2048x32xf32, #row>, tensor<2048x32xf32, #row>) {
  %0 = spyre.kernel "a"(%x) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 2048, 32>, schedule = #spyre.schedule<split = [4, 1], tile = [512, 32], depth = 1, cost_ns = 0>} : (tensor<2048x32xf32, #row>) -> tensor<2048x32xf32, #row> {
  ^bb0(%a: tensor<2048x32xf32, #row>):
    %r = spyre.unary exp %a : tensor<2048x32xf32, #row> -> tensor<2048x32xf32, #row>
    spyre.yield %r : tensor<2048x32xf32, #row>
  }
  %1 = spyre.kernel "b"(%0) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 2048, 32>} : (tensor<2048x32xf32, #row>) -> tensor<2048x32xf32, #row> {
  ^bb0(%a: tensor<2048x32xf32, #row>):
    %r = spyre.unary neg %a : tensor<2048x32xf32, #row> -> tensor<2048x32xf32, #row>
    spyre.yield %r : tensor<2048x32xf32, #row>
  }
  return %0, %1 : tensor<2048x32xf32, #row>, tensor<2048x32xf32, #row>
}

// -----

// Both re-planned: on its own, "a" streams 256-row tiles over 2 cores
// (pipelined, so its result moves in 4 tiles per core) and so does "b"
// (ALONE). On 4 cores, "a" still streams 128-row tiles but keeps its result
// whole per core (`keep`: the 4 tiles in one 512-row slab), which stays in
// LX for "b" reading the same rows as one tile: the pair costs less than
// the two own bests.
#row = #spyre.layout<stick_dim = 1, stick_elems = 64>
#map = affine_map<(d0, d1) -> (d0, d1)>

// The second pair ("c", "d": the same kernels, as in another layer) takes
// the choice made for the first, its own producer re-planned too.
// CHECK-LABEL: func.func @replan_both
// CHECK: spyre.kernel "a"
// CHECK-SAME: schedule = #spyre.schedule<split = [4, 1], tile = [128, 1024], depth = 2, cost_ns = {{[0-9]+}}, keep = [0]>
// CHECK: spyre.kernel "b"
// CHECK-SAME: schedule = #spyre.schedule<split = [4, 1], tile = [512, 1024], depth = 2, cost_ns = {{[0-9]+}}>
// CHECK: spyre.kernel "c"
// CHECK-SAME: schedule = #spyre.schedule<split = [4, 1], tile = [128, 1024], depth = 2, cost_ns = {{[0-9]+}}, keep = [0]>
// CHECK: spyre.kernel "d"
// CHECK-SAME: schedule = #spyre.schedule<split = [4, 1], tile = [512, 1024], depth = 2, cost_ns = {{[0-9]+}}>
// ALONE-LABEL: func.func @replan_both
// ALONE: spyre.kernel "a"
// ALONE-SAME: schedule = #spyre.schedule<split = [2, 1], tile = [256, 1024]
// ALONE: spyre.kernel "b"
// ALONE-SAME: schedule = #spyre.schedule<split = [2, 1], tile = [256, 1024]
func.func @replan_both(%x: tensor<2048x1024xf16, #row>) -> (tensor<2048x1024xf16, #row>, tensor<2048x1024xf16, #row>) {
  %0 = spyre.kernel "a"(%x) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 2048, 1024>} : (tensor<2048x1024xf16, #row>) -> tensor<2048x1024xf16, #row> {
  ^bb0(%a: tensor<2048x1024xf16, #row>):
    %r = spyre.unary relu %a : tensor<2048x1024xf16, #row> -> tensor<2048x1024xf16, #row>
    spyre.yield %r : tensor<2048x1024xf16, #row>
  }
  %1 = spyre.kernel "b"(%0) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 2048, 1024>} : (tensor<2048x1024xf16, #row>) -> tensor<2048x1024xf16, #row> {
  ^bb0(%a: tensor<2048x1024xf16, #row>):
    %r = spyre.unary neg %a : tensor<2048x1024xf16, #row> -> tensor<2048x1024xf16, #row>
    spyre.yield %r : tensor<2048x1024xf16, #row>
  }
  %2 = spyre.kernel "c"(%x) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 2048, 1024>} : (tensor<2048x1024xf16, #row>) -> tensor<2048x1024xf16, #row> {
  ^bb0(%a: tensor<2048x1024xf16, #row>):
    %r = spyre.unary relu %a : tensor<2048x1024xf16, #row> -> tensor<2048x1024xf16, #row>
    spyre.yield %r : tensor<2048x1024xf16, #row>
  }
  %3 = spyre.kernel "d"(%2) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 2048, 1024>} : (tensor<2048x1024xf16, #row>) -> tensor<2048x1024xf16, #row> {
  ^bb0(%a: tensor<2048x1024xf16, #row>):
    %r = spyre.unary neg %a : tensor<2048x1024xf16, #row> -> tensor<2048x1024xf16, #row>
    spyre.yield %r : tensor<2048x1024xf16, #row>
  }
  return %1, %3 : tensor<2048x1024xf16, #row>, tensor<2048x1024xf16, #row>
}

// -----

// A slab (`keep`): with 512 KiB of LX on 4 cores, the gated MLP's gate and
// up projection streams its product in 32 tiles of 64 columns per core, too
// many for one tile per core. Re-planned to keep them whole per core (16
// rows x 2048 columns), the down projection holding those 16 rows as its
// lhs reads them in place; on its own (ALONE) each kernel picks another
// split and the product goes through device memory.
// CHECK-LABEL: func.func @gated_mlp_slab
// CHECK: spyre.kernel "k1_matmul_linear_1"
// CHECK-SAME: schedule = #spyre.schedule<split = [4, 1, 1], tile = [16, 64, 512], depth = 2, cost_ns = {{[0-9]+}}, keep = [0]>
// CHECK: spyre.kernel "k2_matmul_linear_2"
// CHECK-SAME: schedule = #spyre.schedule<split = [4, 1, 1], tile = [16, 512, 128], depth = 2, cost_ns = {{[0-9]+}}, hold = [0]>
// ALONE-LABEL: func.func @gated_mlp_slab
// ALONE-NOT: keep
#arch = #spyre.arch<{barrier_latency_ns = 200 : i64, core_clock_hz = 1.100000e+09 : f64, core_sync_ns = 260 : i64, corelets_per_core = 2 : i64, cores = 4 : i64, fp16_storage = "dl16", kernel_sync_ns = 3000 : i64, launch_overhead_ns = 10000 : i64, lx_alignment = 128 : i64, lx_bytes = 524288 : i64, lx_reserved_fraction = 0.000000e+00 : f64, max_span_per_core_bytes = 268435456 : i64, memory_burst_bytes = 128 : i64, memory_bytes = 137438953472 : i64, memory_bytes_per_cycle = 128 : i64, memory_clock_hz = 1.300000e+09 : f64, memory_efficiency = 8.600000e-01 : f64, memory_latency_ns = 100 : i64, memory_ring_position = 32 : i64, memory_setup_ns = 20 : i64, memory_turnaround_ns = 10 : i64, memory_write_efficiency = 4.800000e-01 : f64, name = "spyre-v1-default", pcie_bytes_per_s = 5.360000e+10 : f64, pcie_latency_ns = 1000 : i64, pt_cols = 8 : i64, pt_rows = 8 : i64, pt_simd = 8 : i64, ring_bytes_per_cycle = 128 : i64, ring_clock_hz = 1.300000e+09 : f64, ring_hop_latency_cycles = 4 : i64, psum_ring_bytes_per_cycle = 32 : i64, sfp_complex_op_passes = 1 : i64, sfp_lanes_per_core = 256 : i64, stick_bytes = 128 : i64}>
#layout = #spyre.layout<stick_dim = 1, stick_elems = 64>
#layout1 = #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
module attributes {spyre.arch = #arch} {
  func.func @gated_mlp_slab(%arg0: tensor<64x512xf16, #layout>, %arg1: tensor<2048x512xf16, #layout1>, %arg2: tensor<2048x512xf16, #layout1>, %arg3: tensor<512x2048xf16, #layout1>) -> (tensor<64x512xf16, #layout> {spyre.name = "linear_2", spyre.output = "user"}) {
    %0 = spyre.kernel "k1_matmul_linear_1"(%arg0, %arg2, %arg1) {indexing_maps = [#map, #map1, #map1, #map2], iterators = ["parallel", "parallel", "reduction"], space = array<i64: 64, 2048, 512>} : (tensor<64x512xf16, #layout>, tensor<2048x512xf16, #layout1>, tensor<2048x512xf16, #layout1>) -> tensor<64x2048xf16, #layout> {
    ^bb0(%arg4: tensor<64x512xf16, #layout>, %arg5: tensor<2048x512xf16, #layout1>, %arg6: tensor<2048x512xf16, #layout1>):
      %2 = spyre.matmul %arg4, %arg5 {transpose_rhs} : tensor<64x512xf16, #layout>, tensor<2048x512xf16, #layout1> -> tensor<64x2048xf16, #layout>
      %3 = spyre.matmul %arg4, %arg6 {transpose_rhs} : tensor<64x512xf16, #layout>, tensor<2048x512xf16, #layout1> -> tensor<64x2048xf16, #layout>
      %4 = spyre.unary silu %3 : tensor<64x2048xf16, #layout> -> tensor<64x2048xf16, #layout>
      %5 = spyre.binary mul %4, %2 : tensor<64x2048xf16, #layout>, tensor<64x2048xf16, #layout> -> tensor<64x2048xf16, #layout>
      spyre.yield %5 : tensor<64x2048xf16, #layout>
    }
    %1 = spyre.kernel "k2_matmul_linear_2"(%0, %arg3) {indexing_maps = [#map, #map1, #map2], iterators = ["parallel", "parallel", "reduction"], space = array<i64: 64, 512, 2048>} : (tensor<64x2048xf16, #layout>, tensor<512x2048xf16, #layout1>) -> tensor<64x512xf16, #layout> {
    ^bb0(%arg4: tensor<64x2048xf16, #layout>, %arg5: tensor<512x2048xf16, #layout1>):
      %2 = spyre.matmul %arg4, %arg5 {transpose_rhs} : tensor<64x2048xf16, #layout>, tensor<512x2048xf16, #layout1> -> tensor<64x512xf16, #layout>
      spyre.yield %2 : tensor<64x512xf16, #layout>
    }
    return %1 : tensor<64x512xf16, #layout>
  }
}

// -----

// A slab at the producer's own schedule: "a" streams 2 pipelined tiles of
// 512 rows per core and has two readers, so it is not re-planned; kept
// whole at that schedule (`keep`: one 1024-row slab per core), both readers
// take the 1024-row tile in place. On their own (ALONE) all three stream
// 512-row tiles.
// CHECK-LABEL: func.func @kept_at_its_schedule
// CHECK: spyre.kernel "a"
// CHECK-SAME: schedule = #spyre.schedule<split = [2, 1], tile = [512, 512], depth = 2, cost_ns = {{[0-9]+}}, keep = [0]>
// CHECK: spyre.kernel "b"
// CHECK-SAME: schedule = #spyre.schedule<split = [2, 1], tile = [1024, 512], depth = 2, cost_ns = {{[0-9]+}}>
// CHECK: spyre.kernel "c"
// CHECK-SAME: schedule = #spyre.schedule<split = [2, 1], tile = [1024, 512], depth = 2, cost_ns = {{[0-9]+}}>
// ALONE-LABEL: func.func @kept_at_its_schedule
// ALONE-NOT: keep
// ALONE: spyre.kernel "c"
// ALONE-SAME: schedule = #spyre.schedule<split = [2, 1], tile = [512, 512]
#row = #spyre.layout<stick_dim = 1, stick_elems = 64>
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @kept_at_its_schedule(%x: tensor<2048x512xf16, #row>) -> (tensor<2048x512xf16, #row>, tensor<2048x512xf16, #row>) {
  %0 = spyre.kernel "a"(%x) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 2048, 512>} : (tensor<2048x512xf16, #row>) -> tensor<2048x512xf16, #row> {
  ^bb0(%a: tensor<2048x512xf16, #row>):
    %r = spyre.unary exp %a : tensor<2048x512xf16, #row> -> tensor<2048x512xf16, #row>
    spyre.yield %r : tensor<2048x512xf16, #row>
  }
  %1 = spyre.kernel "b"(%0) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 2048, 512>} : (tensor<2048x512xf16, #row>) -> tensor<2048x512xf16, #row> {
  ^bb0(%a: tensor<2048x512xf16, #row>):
    %r = spyre.unary neg %a : tensor<2048x512xf16, #row> -> tensor<2048x512xf16, #row>
    spyre.yield %r : tensor<2048x512xf16, #row>
  }
  %2 = spyre.kernel "c"(%0) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 2048, 512>} : (tensor<2048x512xf16, #row>) -> tensor<2048x512xf16, #row> {
  ^bb0(%a: tensor<2048x512xf16, #row>):
    %r = spyre.unary abs %a : tensor<2048x512xf16, #row> -> tensor<2048x512xf16, #row>
    spyre.yield %r : tensor<2048x512xf16, #row>
  }
  return %1, %2 : tensor<2048x512xf16, #row>, tensor<2048x512xf16, #row>
}

// -----

// A producer re-planned onto all the cores for its ring readers: the
// Granite RMSNorm at 512 tokens and the q, k and v projections reading it.
// On its own (ALONE) the norm stores its result from 2 cores. Handed off,
// its fastest schedule writing one tile per core is 32 rows on 16 cores,
// but then each of those cores sends its tile to the two projection cores
// of its rows over one link (the exchange's own estimate, not the reader's
// one-tile guess, ranks the gathers): 16 rows on all 32 cores, one
// producer core per reader core, costs less.
// CHECK-LABEL: func.func @three_readers
// CHECK: spyre.kernel "k0_cast_rms_norm"
// CHECK-SAME: schedule = #spyre.schedule<split = [1, 32, 1], tile = [1, 16, 4096]
// CHECK: spyre.kernel "k2_matmul_linear"
// CHECK-SAME: schedule = #spyre.schedule<split = [1, 16, 2, 1], tile = [1, 32, 2048, 64]
// ALONE-LABEL: func.func @three_readers
// ALONE: spyre.kernel "k0_cast_rms_norm"
// ALONE-SAME: schedule = #spyre.schedule<split = [1, 2, 1], tile = [1, 16, 4096]
#layout = #spyre.layout<stick_dim = 2, stick_elems = 64>
#layout2 = #spyre.layout<stick_dim = 0, stick_elems = 64>
#layout3 = #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>
#layout5 = #spyre.layout<stick_dim = -1, stick_elems = 32>
#layout6 = #spyre.layout<stick_dim = 2, stick_elems = 32>
#layout7 = #spyre.layout<stick_dim = 0, stick_elems = 32>
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> ()>
#map2 = affine_map<(d0, d1, d2) -> (d2)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#map5 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @three_readers(%arg0: tensor<1x512x4096xf16, #layout>, %arg3: tensor<4096xf16, #layout2>, %arg4: tensor<4096x4096xf16, #layout3>, %arg5: tensor<1024x4096xf16, #layout3>, %arg6: tensor<1024x4096xf16, #layout3>) -> (tensor<1x512x4096xf16, #layout>, tensor<1x512x1024xf16, #layout>, tensor<1x512x1024xf16, #layout>) {
  %2 = spyre.constant dense<9.99999974E-6> : tensor<f32> : tensor<f32, #layout5>
  %3 = spyre.constant dense<2.44140625E-4> : tensor<f32> : tensor<f32, #layout5>
  %4 = spyre.kernel "k0_cast_rms_norm"(%arg0, %3, %2, %arg3) {indexing_maps = [#map, #map1, #map1, #map2, #map], iterators = ["parallel", "parallel", "reduction"], space = array<i64: 1, 512, 4096>} : (tensor<1x512x4096xf16, #layout>, tensor<f32, #layout5>, tensor<f32, #layout5>, tensor<4096xf16, #layout2>) -> tensor<1x512x4096xf16, #layout> {
  ^bb0(%arg12: tensor<1x512x4096xf16, #layout>, %arg13: tensor<f32, #layout5>, %arg14: tensor<f32, #layout5>, %arg15: tensor<4096xf16, #layout2>):
    %25 = spyre.cast %arg12 : tensor<1x512x4096xf16, #layout> -> tensor<1x512x4096xf32, #layout6>
    %26 = spyre.binary mul %25, %25 : tensor<1x512x4096xf32, #layout6>, tensor<1x512x4096xf32, #layout6> -> tensor<1x512x4096xf32, #layout6>
    %27 = spyre.reduce sum %26 dim 2 : tensor<1x512x4096xf32, #layout6> -> tensor<1x512x1xf32, #layout6>
    %28 = spyre.binary mul %27, %arg13 : tensor<1x512x1xf32, #layout6>, tensor<f32, #layout5> -> tensor<1x512x1xf32, #layout6>
    %29 = spyre.binary add %28, %arg14 : tensor<1x512x1xf32, #layout6>, tensor<f32, #layout5> -> tensor<1x512x1xf32, #layout6>
    %30 = spyre.unary rsqrt %29 : tensor<1x512x1xf32, #layout6> -> tensor<1x512x1xf32, #layout6>
    %31 = spyre.binary mul %25, %30 : tensor<1x512x4096xf32, #layout6>, tensor<1x512x1xf32, #layout6> -> tensor<1x512x4096xf32, #layout6>
    %32 = spyre.cast %arg15 : tensor<4096xf16, #layout2> -> tensor<4096xf32, #layout7>
    %33 = spyre.binary mul %31, %32 : tensor<1x512x4096xf32, #layout6>, tensor<4096xf32, #layout7> -> tensor<1x512x4096xf32, #layout6>
    %34 = spyre.cast %33 : tensor<1x512x4096xf32, #layout6> -> tensor<1x512x4096xf16, #layout>
    spyre.yield %34 : tensor<1x512x4096xf16, #layout>
  }
  %5 = spyre.kernel "k2_matmul_linear"(%4, %arg4) {indexing_maps = [#map3, #map4, #map5], iterators = ["parallel", "parallel", "parallel", "reduction"], space = array<i64: 1, 512, 4096, 4096>} : (tensor<1x512x4096xf16, #layout>, tensor<4096x4096xf16, #layout3>) -> tensor<1x512x4096xf16, #layout> {
  ^bb0(%arg12: tensor<1x512x4096xf16, #layout>, %arg13: tensor<4096x4096xf16, #layout3>):
    %25 = spyre.matmul %arg12, %arg13 {transpose_rhs} : tensor<1x512x4096xf16, #layout>, tensor<4096x4096xf16, #layout3> -> tensor<1x512x4096xf16, #layout>
    spyre.yield %25 : tensor<1x512x4096xf16, #layout>
  }
  %7 = spyre.kernel "k4_matmul_linear_1"(%4, %arg5) {indexing_maps = [#map3, #map4, #map5], iterators = ["parallel", "parallel", "parallel", "reduction"], space = array<i64: 1, 512, 1024, 4096>} : (tensor<1x512x4096xf16, #layout>, tensor<1024x4096xf16, #layout3>) -> tensor<1x512x1024xf16, #layout> {
  ^bb0(%arg12: tensor<1x512x4096xf16, #layout>, %arg13: tensor<1024x4096xf16, #layout3>):
    %25 = spyre.matmul %arg12, %arg13 {transpose_rhs} : tensor<1x512x4096xf16, #layout>, tensor<1024x4096xf16, #layout3> -> tensor<1x512x1024xf16, #layout>
    spyre.yield %25 : tensor<1x512x1024xf16, #layout>
  }
  %9 = spyre.kernel "k6_matmul_linear_2"(%4, %arg6) {indexing_maps = [#map3, #map4, #map5], iterators = ["parallel", "parallel", "parallel", "reduction"], space = array<i64: 1, 512, 1024, 4096>} : (tensor<1x512x4096xf16, #layout>, tensor<1024x4096xf16, #layout3>) -> tensor<1x512x1024xf16, #layout> {
  ^bb0(%arg12: tensor<1x512x4096xf16, #layout>, %arg13: tensor<1024x4096xf16, #layout3>):
    %25 = spyre.matmul %arg12, %arg13 {transpose_rhs} : tensor<1x512x4096xf16, #layout>, tensor<1024x4096xf16, #layout3> -> tensor<1x512x1024xf16, #layout>
    spyre.yield %25 : tensor<1x512x1024xf16, #layout>
  }
  return %5, %7, %9 : tensor<1x512x4096xf16, #layout>, tensor<1x512x1024xf16, #layout>, tensor<1x512x1024xf16, #layout>
}
