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
