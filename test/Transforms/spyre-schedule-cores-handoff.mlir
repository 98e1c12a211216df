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
