// RUN: spyre-opt %s --spyre-schedule-cores | FileCheck %s

// Kernels that move data by DMA alone move exact runs of bytes, so their
// tiles need not be whole sticks: a gather of 513 KiB rows by a [4, 14]
// index tensor (whose stick dim is the row loop) tiles its 14 rows one at
// a time. Whole-stick tiles would have forced all 14 rows into LX at once
// (7.3 MB) and left no schedule.
#idx = #spyre.layout<stick_dim = 1, stick_elems = 16>
#out = #spyre.layout<stick_dim = 2, stick_elems = 16>
// CHECK-LABEL: func.func @gather_long_rows
// CHECK: schedule = #spyre.schedule<split = [{{[0-9]+}}, {{[0-9]+}}, 1], tile = [1, 1, 65655]
func.func @gather_long_rows(%t: tensor<2x65655xi64, #idx>, %i: tensor<4x14xi64, #idx>) -> tensor<4x14x65655xi64, #out> {
  %0 = spyre.kernel "k"(%t, %i) {indexing_maps = [affine_map<(d0, d1, d2) -> (0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterators = ["parallel", "parallel", "parallel"], space = array<i64: 4, 14, 65655>} : (tensor<2x65655xi64, #idx>, tensor<4x14xi64, #idx>) -> tensor<4x14x65655xi64, #out> {
  ^bb0(%a: tensor<2x65655xi64, #idx>, %b: tensor<4x14xi64, #idx>):
    %1 = spyre.gather %a[%b] : tensor<2x65655xi64, #idx>, tensor<4x14xi64, #idx> -> tensor<4x14x65655xi64, #out>
    spyre.yield %1 : tensor<4x14x65655xi64, #out>
  }
  return %0 : tensor<4x14x65655xi64, #out>
}


// A reshape that is not a view (16 rows of 128 into rows of 32: attention
// heads) repacks chunks through LX; its 4 KiB fit one tile, one load and
// one store, so the cost model charges one tile's latencies (not one per
// 4 output rows, which made 4 cores look faster) and more cores would only
// add their synchronization: one core.
#rows = #spyre.layout<stick_dim = 2, stick_elems = 64>
#heads = #spyre.layout<stick_dim = 3, stick_elems = 64>
// CHECK-LABEL: func.func @split_heads
// CHECK: schedule = #spyre.schedule<split = [1, 1, 1, 1],
func.func @split_heads(%x: tensor<1x16x128xf16, #rows>) -> tensor<1x16x4x32xf16, #heads> {
  %0 = spyre.kernel "k0_reshape"(%x) {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (0, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterators = ["parallel", "parallel", "parallel", "parallel"], space = array<i64: 1, 16, 4, 32>} : (tensor<1x16x128xf16, #rows>) -> tensor<1x16x4x32xf16, #heads> {
  ^bb0(%a: tensor<1x16x128xf16, #rows>):
    %1 = spyre.reshape %a : tensor<1x16x128xf16, #rows> -> tensor<1x16x4x32xf16, #heads>
    spyre.yield %1 : tensor<1x16x4x32xf16, #heads>
  }
  return %0 : tensor<1x16x4x32xf16, #heads>
}

// An embedding lookup: 16 rows of a 256 MiB table. The gather reads the
// rows it gathers (128 KiB) and its indices, not the table: it costs the
// few microseconds it takes on one core (charging the whole table said
// 1.9 ms).
#table = #spyre.layout<stick_dim = 1, stick_elems = 64>
#ids = #spyre.layout<stick_dim = 1, stick_elems = 16>
#emb = #spyre.layout<stick_dim = 2, stick_elems = 64>
// CHECK-LABEL: func.func @embed
// CHECK: schedule = #spyre.schedule<split = [1, 1, 1], tile = [1, 16, 4096], depth = 2, cost_ns = {{[0-9][0-9][0-9][0-9]}}>
func.func @embed(%t: tensor<32768x4096xf16, #table>, %i: tensor<1x16xi64, #ids>) -> tensor<1x16x4096xf16, #emb> {
  %0 = spyre.kernel "k0_gather"(%t, %i) {indexing_maps = [affine_map<(d0, d1, d2) -> (0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterators = ["parallel", "parallel", "parallel"], space = array<i64: 1, 16, 4096>} : (tensor<32768x4096xf16, #table>, tensor<1x16xi64, #ids>) -> tensor<1x16x4096xf16, #emb> {
  ^bb0(%a: tensor<32768x4096xf16, #table>, %b: tensor<1x16xi64, #ids>):
    %1 = spyre.gather %a[%b] : tensor<32768x4096xf16, #table>, tensor<1x16xi64, #ids> -> tensor<1x16x4096xf16, #emb>
    spyre.yield %1 : tensor<1x16x4096xf16, #emb>
  }
  return %0 : tensor<1x16x4096xf16, #emb>
}

// A concatenation copies each input as a region of its own: x.repeat(4, 1)
// of 20 rows moves 4 tiles, each a load and a store paying their latency
// and setup (4.7 us with the synchronization, as simulated), where one
// tile of the result's 80 rows was charged (3.9 us).
#rowmajor = #spyre.layout<stick_dim = 1, stick_elems = 64>
// CHECK-LABEL: func.func @repeat4
// CHECK: schedule = #spyre.schedule<split = [1, 1], tile = [32, 128], depth = 2, cost_ns = 47{{[0-9][0-9]}}>
func.func @repeat4(%x: tensor<20x128xf16, #rowmajor>) -> tensor<80x128xf16, #rowmajor> {
  %0 = spyre.kernel "k0_concat"(%x, %x, %x, %x) {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0 - 20, d1)>, affine_map<(d0, d1) -> (d0 - 40, d1)>, affine_map<(d0, d1) -> (d0 - 60, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "parallel"], space = array<i64: 80, 128>} : (tensor<20x128xf16, #rowmajor>, tensor<20x128xf16, #rowmajor>, tensor<20x128xf16, #rowmajor>, tensor<20x128xf16, #rowmajor>) -> tensor<80x128xf16, #rowmajor> {
  ^bb0(%a: tensor<20x128xf16, #rowmajor>, %b: tensor<20x128xf16, #rowmajor>, %c: tensor<20x128xf16, #rowmajor>, %d: tensor<20x128xf16, #rowmajor>):
    %1 = spyre.concat %a, %b, %c, %d dim 0 : tensor<20x128xf16, #rowmajor>, tensor<20x128xf16, #rowmajor>, tensor<20x128xf16, #rowmajor>, tensor<20x128xf16, #rowmajor> -> tensor<80x128xf16, #rowmajor>
    spyre.yield %1 : tensor<80x128xf16, #rowmajor>
  }
  return %0 : tensor<80x128xf16, #rowmajor>
}
