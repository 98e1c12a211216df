// RUN: spyre-opt %s --spyre-allocate-scratchpad --split-input-file | FileCheck %s
// RUN: spyre-opt %s --spyre-allocate-scratchpad="ring=false" --split-input-file | FileCheck %s --check-prefix=NORING

// Gathers over the ring (docs/passes.md, "Ring gathers"): a result with one
// reader whose tiles on its cores are not the ones its producer wrote there
// stays in the producer's LX when the cost model finds the ring faster than
// a round trip through device memory; the reader gathers its tile before it
// computes (`ring`). With ring=false such results go through the workspace.

#row = #spyre.layout<stick_dim = 1, stick_elems = 32>
#map = affine_map<(d0, d1) -> (d0, d1)>

// Rows split 2 ways -> sticks split 2 ways: each reader core takes one
// stick of every row from both producer cores. The held tile sits at the
// top of LX, out of the reader's way; nothing is in the workspace.
// CHECK-LABEL: func.func @rows_to_columns
// CHECK-SAME: spyre.workspace_bytes = 0
// CHECK: spyre.kernel "a"
// CHECK-SAME: #spyre.buffer<name = "t0", offset = 2088960, bytes = 8192, copies = 1>
// CHECK-SAME: destinations = ["lx"]
// CHECK-SAME: result_offsets = array<i64: -1>
// CHECK: spyre.kernel "b"
// CHECK-SAME: buffers = [#spyre.buffer<name = "in0", offset = 0, bytes = 8192, copies = 1>, #spyre.buffer<name = "t0", offset = 8192, bytes = 8192, copies = 1>]
// CHECK-SAME: sources = ["ring"]
// NORING-LABEL: func.func @rows_to_columns
// NORING-SAME: spyre.workspace_bytes = 16384
// NORING-NOT: sources
// NORING-NOT: destinations
func.func @rows_to_columns(%x: tensor<64x64xf32, #row>) -> tensor<64x64xf32, #row> {
  %0 = spyre.kernel "a"(%x) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 64, 64>, schedule = #spyre.schedule<split = [2, 1], tile = [32, 64], depth = 1, cost_ns = 0>} : (tensor<64x64xf32, #row>) -> tensor<64x64xf32, #row> {
  ^bb0(%a: tensor<64x64xf32, #row>):
    %r = spyre.unary exp %a : tensor<64x64xf32, #row> -> tensor<64x64xf32, #row>
    spyre.yield %r : tensor<64x64xf32, #row>
  }
  %1 = spyre.kernel "b"(%0) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 64, 64>, schedule = #spyre.schedule<split = [1, 2], tile = [64, 32], depth = 1, cost_ns = 0>} : (tensor<64x64xf32, #row>) -> tensor<64x64xf32, #row> {
  ^bb0(%a: tensor<64x64xf32, #row>):
    %r = spyre.unary neg %a : tensor<64x64xf32, #row> -> tensor<64x64xf32, #row>
    spyre.yield %r : tensor<64x64xf32, #row>
  }
  return %1 : tensor<64x64xf32, #row>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 32>
#map = affine_map<(d0, d1) -> (d0, d1)>

// A re-split: the producer's 2 cores hold 32 rows each, the reader's 4
// cores take 16 each (half of a tile moves to another core, half stays).
// CHECK-LABEL: func.func @two_to_four
// CHECK-SAME: spyre.workspace_bytes = 0
// CHECK: spyre.kernel "a"
// CHECK-SAME: destinations = ["lx"]
// CHECK: spyre.kernel "b"
// CHECK-SAME: sources = ["ring"]
func.func @two_to_four(%x: tensor<64x32xf32, #row>) -> tensor<64x32xf32, #row> {
  %0 = spyre.kernel "a"(%x) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 64, 32>, schedule = #spyre.schedule<split = [2, 1], tile = [32, 32], depth = 1, cost_ns = 0>} : (tensor<64x32xf32, #row>) -> tensor<64x32xf32, #row> {
  ^bb0(%a: tensor<64x32xf32, #row>):
    %r = spyre.unary exp %a : tensor<64x32xf32, #row> -> tensor<64x32xf32, #row>
    spyre.yield %r : tensor<64x32xf32, #row>
  }
  %1 = spyre.kernel "b"(%0) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 64, 32>, schedule = #spyre.schedule<split = [4, 1], tile = [16, 32], depth = 1, cost_ns = 0>} : (tensor<64x32xf32, #row>) -> tensor<64x32xf32, #row> {
  ^bb0(%a: tensor<64x32xf32, #row>):
    %r = spyre.unary neg %a : tensor<64x32xf32, #row> -> tensor<64x32xf32, #row>
    spyre.yield %r : tensor<64x32xf32, #row>
  }
  return %1 : tensor<64x32xf32, #row>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 32>
#lhs = affine_map<(d0, d1, d2) -> (d0, d2)>
#rhs = affine_map<(d0, d1, d2) -> (d2, d1)>
#out = affine_map<(d0, d1, d2) -> (d0, d1)>
#map = affine_map<(d0, d1) -> (d0, d1)>

// Where the ring is slower, memory is chosen: all 8 cores of the matmul
// need the whole rhs, which one core wrote. Over the ring that core would
// send it 7 times (7 x 64 KiB through its one link); through memory it is
// stored once and read once, multicast to the 8 cores.
// CHECK-LABEL: func.func @broadcast_from_one_core
// CHECK-SAME: spyre.workspace_bytes = 65536
// CHECK-NOT: sources
// CHECK-NOT: destinations
func.func @broadcast_from_one_core(%x: tensor<256x64xf32, #row>, %y: tensor<256x256xf32, #row>) -> tensor<256x64xf32, #row> {
  %0 = spyre.kernel "a"(%x) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 256, 64>, schedule = #spyre.schedule<split = [1, 1], tile = [256, 64], depth = 1, cost_ns = 0>} : (tensor<256x64xf32, #row>) -> tensor<256x64xf32, #row> {
  ^bb0(%a: tensor<256x64xf32, #row>):
    %r = spyre.unary exp %a : tensor<256x64xf32, #row> -> tensor<256x64xf32, #row>
    spyre.yield %r : tensor<256x64xf32, #row>
  }
  %1 = spyre.kernel "mm"(%y, %0) {indexing_maps = [#lhs, #rhs, #out], iterators = ["parallel", "parallel", "reduction"], space = array<i64: 256, 64, 256>, schedule = #spyre.schedule<split = [8, 1, 1], tile = [32, 64, 256], depth = 1, cost_ns = 0>} : (tensor<256x256xf32, #row>, tensor<256x64xf32, #row>) -> tensor<256x64xf32, #row> {
  ^bb0(%a: tensor<256x256xf32, #row>, %b: tensor<256x64xf32, #row>):
    %r = spyre.matmul %a, %b : tensor<256x256xf32, #row>, tensor<256x64xf32, #row> -> tensor<256x64xf32, #row>
    spyre.yield %r : tensor<256x64xf32, #row>
  }
  return %1 : tensor<256x64xf32, #row>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 32>
#map = affine_map<(d0, d1) -> (d0, d1)>

// Two readers gather a's result, each into its own buffer (the tile stays
// in a's LX until the last of them); c's result is not gathered by d, which
// runs on fewer cores than c (the other core's program does not run): it
// goes through the workspace.
// CHECK-LABEL: func.func @two_readers_and_fewer_cores
// CHECK-SAME: spyre.workspace_bytes = 16384
// CHECK: spyre.kernel "a"
// CHECK-SAME: destinations = ["lx"]
// CHECK: spyre.kernel "b"
// CHECK-SAME: sources = ["ring"]
// CHECK: spyre.kernel "c"
// CHECK-NOT: destinations
// CHECK-SAME: sources = ["ring"]
// CHECK: spyre.kernel "d"
// CHECK-NOT: sources
func.func @two_readers_and_fewer_cores(%x: tensor<64x64xf32, #row>) -> (tensor<64x64xf32, #row>, tensor<64x64xf32, #row>) {
  %0 = spyre.kernel "a"(%x) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 64, 64>, schedule = #spyre.schedule<split = [2, 1], tile = [32, 64], depth = 1, cost_ns = 0>} : (tensor<64x64xf32, #row>) -> tensor<64x64xf32, #row> {
  ^bb0(%a: tensor<64x64xf32, #row>):
    %r = spyre.unary exp %a : tensor<64x64xf32, #row> -> tensor<64x64xf32, #row>
    spyre.yield %r : tensor<64x64xf32, #row>
  }
  %1 = spyre.kernel "b"(%0) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 64, 64>, schedule = #spyre.schedule<split = [1, 2], tile = [64, 32], depth = 1, cost_ns = 0>} : (tensor<64x64xf32, #row>) -> tensor<64x64xf32, #row> {
  ^bb0(%a: tensor<64x64xf32, #row>):
    %r = spyre.unary neg %a : tensor<64x64xf32, #row> -> tensor<64x64xf32, #row>
    spyre.yield %r : tensor<64x64xf32, #row>
  }
  %2 = spyre.kernel "c"(%0) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 64, 64>, schedule = #spyre.schedule<split = [1, 2], tile = [64, 32], depth = 1, cost_ns = 0>} : (tensor<64x64xf32, #row>) -> tensor<64x64xf32, #row> {
  ^bb0(%a: tensor<64x64xf32, #row>):
    %r = spyre.unary abs %a : tensor<64x64xf32, #row> -> tensor<64x64xf32, #row>
    spyre.yield %r : tensor<64x64xf32, #row>
  }
  %3 = spyre.kernel "d"(%2) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 64, 64>, schedule = #spyre.schedule<split = [1, 1], tile = [64, 64], depth = 1, cost_ns = 0>} : (tensor<64x64xf32, #row>) -> tensor<64x64xf32, #row> {
  ^bb0(%a: tensor<64x64xf32, #row>):
    %r = spyre.unary neg %a : tensor<64x64xf32, #row> -> tensor<64x64xf32, #row>
    spyre.yield %r : tensor<64x64xf32, #row>
  }
  return %1, %3 : tensor<64x64xf32, #row>, tensor<64x64xf32, #row>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 32>
#map = affine_map<(d0, d1) -> (d0, d1)>

// LX full: beside the reader's three 512 KiB buffers the producer's
// 1 MiB tile does not fit, so the handoff is dropped and the result goes
// through the workspace (the reader loads its column block from there).
// CHECK-LABEL: func.func @lx_full
// CHECK-SAME: spyre.workspace_bytes = 2097152
// CHECK-NOT: sources
// CHECK-NOT: destinations
func.func @lx_full(%x: tensor<4096x128xf32, #row>, %y: tensor<4096x128xf32, #row>) -> tensor<4096x128xf32, #row> {
  %0 = spyre.kernel "a"(%x) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 4096, 128>, schedule = #spyre.schedule<split = [2, 1], tile = [2048, 128], depth = 1, cost_ns = 0>} : (tensor<4096x128xf32, #row>) -> tensor<4096x128xf32, #row> {
  ^bb0(%a: tensor<4096x128xf32, #row>):
    %r = spyre.unary exp %a : tensor<4096x128xf32, #row> -> tensor<4096x128xf32, #row>
    spyre.yield %r : tensor<4096x128xf32, #row>
  }
  %1 = spyre.kernel "b"(%0, %y) {indexing_maps = [#map, #map, #map], iterators = ["parallel", "parallel"], space = array<i64: 4096, 128>, schedule = #spyre.schedule<split = [1, 4], tile = [4096, 32], depth = 1, cost_ns = 0>} : (tensor<4096x128xf32, #row>, tensor<4096x128xf32, #row>) -> tensor<4096x128xf32, #row> {
  ^bb0(%a: tensor<4096x128xf32, #row>, %b: tensor<4096x128xf32, #row>):
    %r = spyre.binary add %a, %b : tensor<4096x128xf32, #row>, tensor<4096x128xf32, #row> -> tensor<4096x128xf32, #row>
    spyre.yield %r : tensor<4096x128xf32, #row>
  }
  return %1 : tensor<4096x128xf32, #row>
}

// -----

// A reader gathering a tile keeps its producer's region free beside its own
// buffers, or the result goes through the workspace: with 28 KiB of LX,
// "c" (24 KiB: A read in place, B gathered, its result) cannot also keep
// b's 8 KiB tile free, so B is not gathered and A alone stays in LX.
// (Offered both, the planner dropped the larger held tile first, A, and
// then B: neither stayed.)
#arch = #spyre.arch<{barrier_latency_ns = 200 : i64, core_clock_hz = 1.100000e+09 : f64, core_sync_ns = 260 : i64, corelets_per_core = 2 : i64, cores = 32 : i64, fp16_storage = "dl16", kernel_sync_ns = 3000 : i64, launch_overhead_ns = 10000 : i64, lx_alignment = 128 : i64, lx_bytes = 28672 : i64, lx_reserved_fraction = 0.000000e+00 : f64, max_span_per_core_bytes = 268435456 : i64, memory_burst_bytes = 128 : i64, memory_bytes = 137438953472 : i64, memory_bytes_per_cycle = 128 : i64, memory_clock_hz = 1.300000e+09 : f64, memory_efficiency = 8.600000e-01 : f64, memory_latency_ns = 100 : i64, memory_ring_position = 32 : i64, memory_setup_ns = 20 : i64, memory_turnaround_ns = 10 : i64, memory_write_efficiency = 4.800000e-01 : f64, name = "spyre-v1-default", pcie_bytes_per_s = 5.360000e+10 : f64, pcie_latency_ns = 1000 : i64, pt_cols = 8 : i64, pt_rows = 8 : i64, pt_simd = 8 : i64, ring_bytes_per_cycle = 128 : i64, ring_clock_hz = 1.300000e+09 : f64, ring_hop_latency_cycles = 4 : i64, psum_ring_bytes_per_cycle = 32 : i64, sfp_complex_op_passes = 1 : i64, sfp_lanes_per_core = 256 : i64, stick_bytes = 128 : i64}>
#row = #spyre.layout<stick_dim = 1, stick_elems = 32>
#map = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @gather_does_not_fit
// CHECK: spyre.kernel "a"
// CHECK-SAME: destinations = ["lx"]
// CHECK: spyre.kernel "b"
// CHECK-NOT: destinations
// CHECK: spyre.kernel "c"
// CHECK-SAME: sources = ["lx", "dma"]
// NORING-LABEL: func.func @gather_does_not_fit
module attributes {spyre.arch = #arch} {
func.func @gather_does_not_fit(%x: tensor<64x64xf32, #row>) -> tensor<64x64xf32, #row> {
  %0 = spyre.kernel "a"(%x) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 64, 64>, schedule = #spyre.schedule<split = [2, 1], tile = [32, 64], depth = 1, cost_ns = 0>} : (tensor<64x64xf32, #row>) -> tensor<64x64xf32, #row> {
  ^bb0(%a: tensor<64x64xf32, #row>):
    %r = spyre.unary exp %a : tensor<64x64xf32, #row> -> tensor<64x64xf32, #row>
    spyre.yield %r : tensor<64x64xf32, #row>
  }
  %1 = spyre.kernel "b"(%x) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 64, 64>, schedule = #spyre.schedule<split = [1, 2], tile = [64, 32], depth = 1, cost_ns = 0>} : (tensor<64x64xf32, #row>) -> tensor<64x64xf32, #row> {
  ^bb0(%a: tensor<64x64xf32, #row>):
    %r = spyre.unary neg %a : tensor<64x64xf32, #row> -> tensor<64x64xf32, #row>
    spyre.yield %r : tensor<64x64xf32, #row>
  }
  %2 = spyre.kernel "c"(%0, %1) {indexing_maps = [#map, #map, #map], iterators = ["parallel", "parallel"], space = array<i64: 64, 64>, schedule = #spyre.schedule<split = [2, 1], tile = [32, 64], depth = 1, cost_ns = 0>} : (tensor<64x64xf32, #row>, tensor<64x64xf32, #row>) -> tensor<64x64xf32, #row> {
  ^bb0(%a: tensor<64x64xf32, #row>, %b: tensor<64x64xf32, #row>):
    %r = spyre.binary add %a, %b : tensor<64x64xf32, #row>, tensor<64x64xf32, #row> -> tensor<64x64xf32, #row>
    spyre.yield %r : tensor<64x64xf32, #row>
  }
  return %2 : tensor<64x64xf32, #row>
}
}
