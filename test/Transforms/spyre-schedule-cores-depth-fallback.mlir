// RUN: spyre-opt %s --spyre-attach-arch=file=%S/Inputs/tiny-arch.json --spyre-schedule-cores=max-cores=1 --split-input-file | FileCheck %s

// A kernel whose buffers fit LX only once runs single-buffered (depth 1)
// rather than not at all; one that fits twice keeps the requested depth.
// Rows of exp-then-sum on the 64 KiB machine, two rows on one core.

#row = #spyre.layout<stick_dim = 1, stick_elems = 32>
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>

// 7168 f32 per row: double-buffered it needs more than 64 KiB.
// CHECK-LABEL: func.func @fits_once
// CHECK: schedule = #spyre.schedule<split = [1, 1], tile = [1, 7168], depth = 1
func.func @fits_once(%x: tensor<2x7168xf32, #row>) -> tensor<2x1xf32, #row> {
  %0 = spyre.kernel "k"(%x) {indexing_maps = [#map, #map1], iterators = ["parallel", "reduction"], space = array<i64: 2, 7168>} : (tensor<2x7168xf32, #row>) -> tensor<2x1xf32, #row> {
  ^bb0(%a: tensor<2x7168xf32, #row>):
    %e = spyre.unary exp %a : tensor<2x7168xf32, #row> -> tensor<2x7168xf32, #row>
    %1 = spyre.reduce sum %e dim 1 : tensor<2x7168xf32, #row> -> tensor<2x1xf32, #row>
    spyre.yield %1 : tensor<2x1xf32, #row>
  }
  return %0 : tensor<2x1xf32, #row>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 32>
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>

// 2048 per row: double-buffered.
// CHECK-LABEL: func.func @fits_twice
// CHECK: schedule = #spyre.schedule<split = [1, 1], tile = [{{[12]}}, 2048], depth = 2
func.func @fits_twice(%x: tensor<2x2048xf32, #row>) -> tensor<2x1xf32, #row> {
  %0 = spyre.kernel "k"(%x) {indexing_maps = [#map, #map1], iterators = ["parallel", "reduction"], space = array<i64: 2, 2048>} : (tensor<2x2048xf32, #row>) -> tensor<2x1xf32, #row> {
  ^bb0(%a: tensor<2x2048xf32, #row>):
    %e = spyre.unary exp %a : tensor<2x2048xf32, #row> -> tensor<2x2048xf32, #row>
    %1 = spyre.reduce sum %e dim 1 : tensor<2x2048xf32, #row> -> tensor<2x1xf32, #row>
    spyre.yield %1 : tensor<2x1xf32, #row>
  }
  return %0 : tensor<2x1xf32, #row>
}
