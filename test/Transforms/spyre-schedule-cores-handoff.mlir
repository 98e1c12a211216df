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
// (ALONE). Written once per core on 4 cores, the result can stay in LX for
// "b" reading the same rows: the pair costs less than the two own bests.
#row = #spyre.layout<stick_dim = 1, stick_elems = 64>
#map = affine_map<(d0, d1) -> (d0, d1)>

// The second pair ("c", "d": the same kernels, as in another layer) takes
// the choice made for the first, its own producer re-planned too.
// CHECK-LABEL: func.func @replan_both
// CHECK: spyre.kernel "a"
// CHECK-SAME: schedule = #spyre.schedule<split = [4, 1], tile = [512, 1024]
// CHECK: spyre.kernel "b"
// CHECK-SAME: schedule = #spyre.schedule<split = [4, 1], tile = [512, 1024]
// CHECK: spyre.kernel "c"
// CHECK-SAME: schedule = #spyre.schedule<split = [4, 1], tile = [512, 1024]
// CHECK: spyre.kernel "d"
// CHECK-SAME: schedule = #spyre.schedule<split = [4, 1], tile = [512, 1024]
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
