// RUN: spyre-opt %s --spyre-schedule-cores=max-cores=1 --verify-diagnostics

#row = #spyre.layout<stick_dim = 5, stick_elems = 32>
#map = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>

// Six dims of 2 on one core need at least four hardware loops (five at the
// smallest tiles): no schedule, at any pipeline depth (the bytes quoted are
// single-buffered, the least the kernel needs).
func.func @too_deep(%x: tensor<2x2x2x2x2x32xf32, #row>) -> tensor<2x2x2x2x2x32xf32, #row> {
  // expected-error @+1 {{no schedule fits: the smallest tiles need 256 bytes of LX per core (2097152 usable) and 5 hardware loops (at most 3)}}
  %0 = spyre.kernel "k"(%x) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"], space = array<i64: 2, 2, 2, 2, 2, 32>} : (tensor<2x2x2x2x2x32xf32, #row>) -> tensor<2x2x2x2x2x32xf32, #row> {
  ^bb0(%a: tensor<2x2x2x2x2x32xf32, #row>):
    %1 = spyre.unary exp %a : tensor<2x2x2x2x2x32xf32, #row> -> tensor<2x2x2x2x2x32xf32, #row>
    spyre.yield %1 : tensor<2x2x2x2x2x32xf32, #row>
  }
  return %0 : tensor<2x2x2x2x2x32xf32, #row>
}
