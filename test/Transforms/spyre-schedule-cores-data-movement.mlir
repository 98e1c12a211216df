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
