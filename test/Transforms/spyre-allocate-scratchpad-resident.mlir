// RUN: spyre-opt %s --spyre-allocate-scratchpad --split-input-file --verify-diagnostics | FileCheck %s

// Residency across kernels (docs/passes.md, "Residency"): a result whose
// one consumer reads, on every core, the tile its producer wrote there
// stays in LX. Both kernels here split the rows over 2 cores with one
// tile per core: core c writes rows [32c, 32c+32) and reads the same rows.

#row = #spyre.layout<stick_dim = 1, stick_elems = 32>
#map = affine_map<(d0, d1) -> (d0, d1)>

// The producer keeps its result (destination lx, no workspace offset) at
// the top of LX, out of the way of the kernels it is held through, and the
// consumer reads it from the same LX offset (source lx); nothing of it is
// in the workspace.
// CHECK-LABEL: func.func @handoff
// CHECK-SAME: spyre.workspace_bytes = 0
// CHECK: spyre.kernel "a"
// CHECK-SAME: buffers = [#spyre.buffer<name = "in0", offset = 0, bytes = 4096, copies = 1>, #spyre.buffer<name = "t0", offset = 2093056, bytes = 4096, copies = 1>]
// CHECK-SAME: destinations = ["lx"]
// CHECK-SAME: result_offsets = array<i64: -1>
// CHECK: spyre.kernel "b"
// CHECK-SAME: buffers = [#spyre.buffer<name = "in0", offset = 2093056, bytes = 4096, copies = 1>, #spyre.buffer<name = "t0", offset = 0, bytes = 4096, copies = 1>]
// CHECK-SAME: sources = ["lx"]
func.func @handoff(%x: tensor<64x32xf32, #row>) -> tensor<64x32xf32, #row> {
  %0 = spyre.kernel "a"(%x) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 64, 32>, schedule = #spyre.schedule<split = [2, 1], tile = [32, 32], depth = 1, cost_ns = 0>} : (tensor<64x32xf32, #row>) -> tensor<64x32xf32, #row> {
  ^bb0(%a: tensor<64x32xf32, #row>):
    %r = spyre.unary exp %a : tensor<64x32xf32, #row> -> tensor<64x32xf32, #row>
    spyre.yield %r : tensor<64x32xf32, #row>
  }
  %1 = spyre.kernel "b"(%0) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 64, 32>, schedule = #spyre.schedule<split = [2, 1], tile = [32, 32], depth = 1, cost_ns = 0>} : (tensor<64x32xf32, #row>) -> tensor<64x32xf32, #row> {
  ^bb0(%a: tensor<64x32xf32, #row>):
    %r = spyre.unary neg %a : tensor<64x32xf32, #row> -> tensor<64x32xf32, #row>
    spyre.yield %r : tensor<64x32xf32, #row>
  }
  return %1 : tensor<64x32xf32, #row>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 32>
#map = affine_map<(d0, d1) -> (d0, d1)>

// A kernel between the two places its buffers around the held tile: "b"
// (not part of the handoff) avoids a's result at the top of LX.
// CHECK-LABEL: func.func @around
// CHECK: spyre.kernel "a"
// CHECK-SAME: #spyre.buffer<name = "t0", offset = 2093056, bytes = 4096, copies = 1>
// CHECK-SAME: destinations = ["lx"]
// CHECK: spyre.kernel "b"
// CHECK-SAME: buffers = [#spyre.buffer<name = "in0", offset = 0, bytes = 4096, copies = 1>, #spyre.buffer<name = "t0", offset = 4096, bytes = 4096, copies = 1>]
// CHECK-NOT: sources
// CHECK: spyre.kernel "c"
// CHECK-SAME: #spyre.buffer<name = "in0", offset = 2093056, bytes = 4096, copies = 1>
// CHECK-SAME: sources = ["lx", "dma"]
func.func @around(%x: tensor<64x32xf32, #row>) -> (tensor<64x32xf32, #row>, tensor<64x32xf32, #row>) {
  %0 = spyre.kernel "a"(%x) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 64, 32>, schedule = #spyre.schedule<split = [2, 1], tile = [32, 32], depth = 1, cost_ns = 0>} : (tensor<64x32xf32, #row>) -> tensor<64x32xf32, #row> {
  ^bb0(%a: tensor<64x32xf32, #row>):
    %r = spyre.unary exp %a : tensor<64x32xf32, #row> -> tensor<64x32xf32, #row>
    spyre.yield %r : tensor<64x32xf32, #row>
  }
  %1 = spyre.kernel "b"(%x) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 64, 32>, schedule = #spyre.schedule<split = [2, 1], tile = [32, 32], depth = 1, cost_ns = 0>} : (tensor<64x32xf32, #row>) -> tensor<64x32xf32, #row> {
  ^bb0(%a: tensor<64x32xf32, #row>):
    %r = spyre.unary neg %a : tensor<64x32xf32, #row> -> tensor<64x32xf32, #row>
    spyre.yield %r : tensor<64x32xf32, #row>
  }
  %2 = spyre.kernel "c"(%0, %x) {indexing_maps = [#map, #map, #map], iterators = ["parallel", "parallel"], space = array<i64: 64, 32>, schedule = #spyre.schedule<split = [2, 1], tile = [32, 32], depth = 1, cost_ns = 0>} : (tensor<64x32xf32, #row>, tensor<64x32xf32, #row>) -> tensor<64x32xf32, #row> {
  ^bb0(%a: tensor<64x32xf32, #row>, %b: tensor<64x32xf32, #row>):
    %r = spyre.binary add %a, %b : tensor<64x32xf32, #row>, tensor<64x32xf32, #row> -> tensor<64x32xf32, #row>
    spyre.yield %r : tensor<64x32xf32, #row>
  }
  return %1, %2 : tensor<64x32xf32, #row>, tensor<64x32xf32, #row>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 32>
#map = affine_map<(d0, d1) -> (d0, d1)>

// Several readers: the tile stays until the last of them, and each reads
// it at the same offset.
// CHECK-LABEL: func.func @two_readers
// CHECK-SAME: spyre.workspace_bytes = 0
// CHECK: spyre.kernel "a"
// CHECK-SAME: #spyre.buffer<name = "t0", offset = 2093056, bytes = 4096, copies = 1>
// CHECK-SAME: destinations = ["lx"]
// CHECK: spyre.kernel "b"
// CHECK-SAME: #spyre.buffer<name = "in0", offset = 2093056, bytes = 4096, copies = 1>
// CHECK-SAME: sources = ["lx"]
// CHECK: spyre.kernel "c"
// CHECK-SAME: #spyre.buffer<name = "in0", offset = 2093056, bytes = 4096, copies = 1>
// CHECK-SAME: sources = ["lx"]
func.func @two_readers(%x: tensor<64x32xf32, #row>) -> (tensor<64x32xf32, #row>, tensor<64x32xf32, #row>) {
  %0 = spyre.kernel "a"(%x) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 64, 32>, schedule = #spyre.schedule<split = [2, 1], tile = [32, 32], depth = 1, cost_ns = 0>} : (tensor<64x32xf32, #row>) -> tensor<64x32xf32, #row> {
  ^bb0(%a: tensor<64x32xf32, #row>):
    %r = spyre.unary exp %a : tensor<64x32xf32, #row> -> tensor<64x32xf32, #row>
    spyre.yield %r : tensor<64x32xf32, #row>
  }
  %1 = spyre.kernel "b"(%0) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 64, 32>, schedule = #spyre.schedule<split = [2, 1], tile = [32, 32], depth = 1, cost_ns = 0>} : (tensor<64x32xf32, #row>) -> tensor<64x32xf32, #row> {
  ^bb0(%a: tensor<64x32xf32, #row>):
    %r = spyre.unary neg %a : tensor<64x32xf32, #row> -> tensor<64x32xf32, #row>
    spyre.yield %r : tensor<64x32xf32, #row>
  }
  %2 = spyre.kernel "c"(%0) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 64, 32>, schedule = #spyre.schedule<split = [2, 1], tile = [32, 32], depth = 1, cost_ns = 0>} : (tensor<64x32xf32, #row>) -> tensor<64x32xf32, #row> {
  ^bb0(%a: tensor<64x32xf32, #row>):
    %r = spyre.unary abs %a : tensor<64x32xf32, #row> -> tensor<64x32xf32, #row>
    spyre.yield %r : tensor<64x32xf32, #row>
  }
  return %1, %2 : tensor<64x32xf32, #row>, tensor<64x32xf32, #row>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 32>
#map = affine_map<(d0, d1) -> (d0, d1)>

// Not handed over, each for its reason (through the workspace): "b" splits
// the rows 4 ways in two tiles per core where "a" splits them 2 ways (other
// slices, and b's tile moves twice, so not even the ring can gather it);
// "d" streams its inputs in two tiles per core (the tile moves twice). But
// a's second result, a graph output that "d" reads from memory, is also
// kept in LX for "c", which reads it in place (`lx_dma`: stored and kept).
// CHECK-LABEL: func.func @partly_resident
// CHECK: spyre.kernel "a"
// CHECK-SAME: destinations = ["dma", "lx_dma"]
// CHECK: spyre.kernel "b"
// CHECK-NOT: sources
// CHECK: spyre.kernel "c"
// CHECK-SAME: sources = ["lx"]
// CHECK: spyre.kernel "d"
// CHECK-NOT: sources
// CHECK-NOT: destinations
// CHECK: return
func.func @partly_resident(%x: tensor<64x32xf32, #row>) -> (tensor<64x32xf32, #row>, tensor<64x32xf32, #row>, tensor<64x32xf32, #row>) {
  %0:2 = spyre.kernel "a"(%x) {indexing_maps = [#map, #map, #map], iterators = ["parallel", "parallel"], space = array<i64: 64, 32>, schedule = #spyre.schedule<split = [2, 1], tile = [32, 32], depth = 1, cost_ns = 0>} : (tensor<64x32xf32, #row>) -> (tensor<64x32xf32, #row>, tensor<64x32xf32, #row>) {
  ^bb0(%a: tensor<64x32xf32, #row>):
    %r = spyre.unary exp %a : tensor<64x32xf32, #row> -> tensor<64x32xf32, #row>
    %s = spyre.unary neg %a : tensor<64x32xf32, #row> -> tensor<64x32xf32, #row>
    spyre.yield %r, %s : tensor<64x32xf32, #row>, tensor<64x32xf32, #row>
  }
  %1 = spyre.kernel "b"(%0#0) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 64, 32>, schedule = #spyre.schedule<split = [4, 1], tile = [8, 32], depth = 1, cost_ns = 0>} : (tensor<64x32xf32, #row>) -> tensor<64x32xf32, #row> {
  ^bb0(%a: tensor<64x32xf32, #row>):
    %r = spyre.unary neg %a : tensor<64x32xf32, #row> -> tensor<64x32xf32, #row>
    spyre.yield %r : tensor<64x32xf32, #row>
  }
  %2 = spyre.kernel "c"(%0#1) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 64, 32>, schedule = #spyre.schedule<split = [2, 1], tile = [32, 32], depth = 1, cost_ns = 0>} : (tensor<64x32xf32, #row>) -> tensor<64x32xf32, #row> {
  ^bb0(%a: tensor<64x32xf32, #row>):
    %r = spyre.unary abs %a : tensor<64x32xf32, #row> -> tensor<64x32xf32, #row>
    spyre.yield %r : tensor<64x32xf32, #row>
  }
  %3 = spyre.kernel "d"(%2, %0#1) {indexing_maps = [#map, #map, #map], iterators = ["parallel", "parallel"], space = array<i64: 64, 32>, schedule = #spyre.schedule<split = [2, 1], tile = [16, 32], depth = 1, cost_ns = 0>} : (tensor<64x32xf32, #row>, tensor<64x32xf32, #row>) -> tensor<64x32xf32, #row> {
  ^bb0(%a: tensor<64x32xf32, #row>, %b: tensor<64x32xf32, #row>):
    %r = spyre.binary add %a, %b : tensor<64x32xf32, #row>, tensor<64x32xf32, #row> -> tensor<64x32xf32, #row>
    spyre.yield %r : tensor<64x32xf32, #row>
  }
  return %1, %3, %0#1 : tensor<64x32xf32, #row>, tensor<64x32xf32, #row>, tensor<64x32xf32, #row>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 32>
#map = affine_map<(d0, d1) -> (d0, d1)>

// LX full: a's 512 KiB tile could stay for "c", but "b" in between needs
// 1.75 MiB of the 2 MiB and does not fit beside it, so the handoff is
// dropped and a's result goes through the workspace.
// CHECK-LABEL: func.func @lx_full
// CHECK-NOT: destinations
// CHECK: spyre.kernel "a"
// CHECK-SAME: result_offsets = array<i64: 0>
// CHECK-NOT: sources
// CHECK: return
func.func @lx_full(%x: tensor<4096x32xf32, #row>, %y: tensor<7168x32xf32, #row>) -> (tensor<7168x32xf32, #row>, tensor<4096x32xf32, #row>) {
  %0 = spyre.kernel "a"(%x) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 4096, 32>, schedule = #spyre.schedule<split = [1, 1], tile = [4096, 32], depth = 1, cost_ns = 0>} : (tensor<4096x32xf32, #row>) -> tensor<4096x32xf32, #row> {
  ^bb0(%a: tensor<4096x32xf32, #row>):
    %r = spyre.unary exp %a : tensor<4096x32xf32, #row> -> tensor<4096x32xf32, #row>
    spyre.yield %r : tensor<4096x32xf32, #row>
  }
  %1 = spyre.kernel "b"(%y) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 7168, 32>, schedule = #spyre.schedule<split = [1, 1], tile = [7168, 32], depth = 1, cost_ns = 0>} : (tensor<7168x32xf32, #row>) -> tensor<7168x32xf32, #row> {
  ^bb0(%a: tensor<7168x32xf32, #row>):
    %r = spyre.unary neg %a : tensor<7168x32xf32, #row> -> tensor<7168x32xf32, #row>
    spyre.yield %r : tensor<7168x32xf32, #row>
  }
  %2 = spyre.kernel "c"(%0) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 4096, 32>, schedule = #spyre.schedule<split = [1, 1], tile = [4096, 32], depth = 1, cost_ns = 0>} : (tensor<4096x32xf32, #row>) -> tensor<4096x32xf32, #row> {
  ^bb0(%a: tensor<4096x32xf32, #row>):
    %r = spyre.unary abs %a : tensor<4096x32xf32, #row> -> tensor<4096x32xf32, #row>
    spyre.yield %r : tensor<4096x32xf32, #row>
  }
  return %1, %2 : tensor<7168x32xf32, #row>, tensor<4096x32xf32, #row>
}
