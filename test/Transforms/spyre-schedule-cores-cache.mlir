// spyre-schedule-cores{cache-dir=DIR}: one file per distinct kernel, read
// back by later compiles; the output is the same with and without it.
// RUN: rm -rf %t && mkdir -p %t
// RUN: spyre-opt %s --spyre-schedule-cores="cache-dir=%t/cache" -o %t/first.mlir
// RUN: ls %t/cache | count 2
// RUN: spyre-opt %s --spyre-schedule-cores -o %t/plain.mlir
// RUN: diff %t/first.mlir %t/plain.mlir
// RUN: spyre-opt %s --spyre-schedule-cores="cache-dir=%t/cache" -o %t/second.mlir
// RUN: diff %t/first.mlir %t/second.mlir
//
// The entries are what a later compile reads: an edited one is taken as is.
// RUN: sed -i 's/cost_ns = [0-9]*/cost_ns = 7/' %t/cache/*.schedule
// RUN: spyre-opt %s --spyre-schedule-cores="cache-dir=%t/cache" | FileCheck %s --check-prefix=READ
// READ-COUNT-3: cost_ns = 7>
//
// An entry that does not read back (garbage, or stored for another kernel)
// is ignored, searched again and rewritten.
// RUN: for f in %t/cache/*.schedule; do echo garbage > $f; done
// RUN: spyre-opt %s --spyre-schedule-cores="cache-dir=%t/cache" -o %t/third.mlir
// RUN: diff %t/first.mlir %t/third.mlir
// RUN: spyre-opt %s --spyre-schedule-cores="cache-dir=%t/cache" -o %t/fourth.mlir
// RUN: diff %t/first.mlir %t/fourth.mlir
//
// A directory that cannot be written is a warning; the schedules are found.
// RUN: touch %t/file
// RUN: spyre-opt %s --spyre-schedule-cores="cache-dir=%t/file/cache" -o %t/fifth.mlir 2>&1 | FileCheck %s --check-prefix=WARN
// WARN: warning: schedule cache not written: cannot create '{{.*}}file/cache'
// RUN: diff %t/first.mlir %t/fifth.mlir

#layout = #spyre.layout<stick_dim = 1, stick_elems = 64>
#layout1 = #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>

func.func @layers(%x: tensor<64x256xf16, #layout>, %w0: tensor<1024x256xf16, #layout1>, %w1: tensor<1024x256xf16, #layout1>, %w2: tensor<128x256xf16, #layout1>) -> (tensor<64x1024xf16, #layout>, tensor<64x1024xf16, #layout>, tensor<64x128xf16, #layout>) {
  %0 = spyre.kernel "layer0"(%x, %w0) {indexing_maps = [#map, #map1, #map3], iterators = ["parallel", "parallel", "reduction"], space = array<i64: 64, 1024, 256>} : (tensor<64x256xf16, #layout>, tensor<1024x256xf16, #layout1>) -> tensor<64x1024xf16, #layout> {
  ^bb0(%a: tensor<64x256xf16, #layout>, %b: tensor<1024x256xf16, #layout1>):
    %m = spyre.matmul %a, %b {transpose_rhs} : tensor<64x256xf16, #layout>, tensor<1024x256xf16, #layout1> -> tensor<64x1024xf16, #layout>
    spyre.yield %m : tensor<64x1024xf16, #layout>
  }
  %1 = spyre.kernel "layer1"(%x, %w1) {indexing_maps = [#map, #map1, #map3], iterators = ["parallel", "parallel", "reduction"], space = array<i64: 64, 1024, 256>} : (tensor<64x256xf16, #layout>, tensor<1024x256xf16, #layout1>) -> tensor<64x1024xf16, #layout> {
  ^bb0(%c: tensor<64x256xf16, #layout>, %d: tensor<1024x256xf16, #layout1>):
    %n = spyre.matmul %c, %d {transpose_rhs} : tensor<64x256xf16, #layout>, tensor<1024x256xf16, #layout1> -> tensor<64x1024xf16, #layout>
    spyre.yield %n : tensor<64x1024xf16, #layout>
  }
  %2 = spyre.kernel "narrow"(%x, %w2) {indexing_maps = [#map, #map1, #map3], iterators = ["parallel", "parallel", "reduction"], space = array<i64: 64, 128, 256>} : (tensor<64x256xf16, #layout>, tensor<128x256xf16, #layout1>) -> tensor<64x128xf16, #layout> {
  ^bb0(%e: tensor<64x256xf16, #layout>, %f: tensor<128x256xf16, #layout1>):
    %o = spyre.matmul %e, %f {transpose_rhs} : tensor<64x256xf16, #layout>, tensor<128x256xf16, #layout1> -> tensor<64x128xf16, #layout>
    spyre.yield %o : tensor<64x128xf16, #layout>
  }
  return %0, %1, %2 : tensor<64x1024xf16, #layout>, tensor<64x1024xf16, #layout>, tensor<64x128xf16, #layout>
}
