// RUN: spyre-opt %s --spyre-schedule-cores=max-cores=1 --split-input-file --verify-diagnostics

#row = #spyre.layout<stick_dim = 5, stick_elems = 32>
#map = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>

// Six dims of 2 on one core need at least four hardware loops (five at the
// smallest tiles): no schedule, at any pipeline depth (the bytes quoted are
// single-buffered, the least the kernel needs).
func.func @too_deep(%x: tensor<2x2x2x2x2x32xf32, #row>) -> tensor<2x2x2x2x2x32xf32, #row> {
  // expected-error @+1 {{no schedule fits kernel 'k' (spyre.unary): its smallest tiles need 256 bytes of LX per core (2097152 usable) and 5 hardware loops (the program has at most 3, too many)}}
  %0 = spyre.kernel "k"(%x) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"], space = array<i64: 2, 2, 2, 2, 2, 32>} : (tensor<2x2x2x2x2x32xf32, #row>) -> tensor<2x2x2x2x2x32xf32, #row> {
  ^bb0(%a: tensor<2x2x2x2x2x32xf32, #row>):
    %1 = spyre.unary exp %a : tensor<2x2x2x2x2x32xf32, #row> -> tensor<2x2x2x2x2x32xf32, #row>
    spyre.yield %1 : tensor<2x2x2x2x2x32xf32, #row>
  }
  return %0 : tensor<2x2x2x2x2x32xf32, #row>
}

// -----

// A gather whose rows are 2.4 MB: even one row does not fit the 2 MiB LX.
// The error names the kernel and its op, and a note gives each buffer.
#idx = #spyre.layout<stick_dim = 1, stick_elems = 16>
#out = #spyre.layout<stick_dim = 2, stick_elems = 16>
func.func @rows_too_long(%t: tensor<2x300000xi64, #idx>, %i: tensor<4x14xi64, #idx>) -> tensor<4x14x300000xi64, #out> {
  // expected-error @+2 {{no schedule fits kernel 'rows' (spyre.gather): its smallest tiles need}}
  // expected-note-re @+1 {{LX buffer '{{.*}}': {{[0-9]+}} bytes x 1 copies}}
  %0 = spyre.kernel "rows"(%t, %i) {indexing_maps = [affine_map<(d0, d1, d2) -> (0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterators = ["parallel", "parallel", "parallel"], space = array<i64: 4, 14, 300000>} : (tensor<2x300000xi64, #idx>, tensor<4x14xi64, #idx>) -> tensor<4x14x300000xi64, #out> {
  ^bb0(%a: tensor<2x300000xi64, #idx>, %b: tensor<4x14xi64, #idx>):
    %1 = spyre.gather %a[%b] : tensor<2x300000xi64, #idx>, tensor<4x14xi64, #idx> -> tensor<4x14x300000xi64, #out>
    spyre.yield %1 : tensor<4x14x300000xi64, #out>
  }
  return %0 : tensor<4x14x300000xi64, #out>
}

// -----

// A window read (spyre-reorder-on-chip's form) that starts inside a stick:
// the tiles would read elements outside the window, so the plan refuses it
// (the pass itself never folds such a window).
#w = #spyre.layout<stick_dim = 1, stick_elems = 64>
func.func @window_off_stick(%x: tensor<8x128xf16, #w>) -> tensor<8x64xf16, #w> {
  // expected-error @+1 {{input 0 reads a window of its stick dim that does not start and end on sticks}}
  %0 = spyre.kernel "w"(%x) {indexing_maps = [affine_map<(d0, d1) -> (d0, d1 + 1)>, affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "parallel"], space = array<i64: 8, 64>} : (tensor<8x128xf16, #w>) -> tensor<8x64xf16, #w> {
  ^bb0(%a: tensor<8x128xf16, #w>):
    %1 = spyre.slice %a offsets [0, 1] strides [1, 1] : tensor<8x128xf16, #w> -> tensor<8x64xf16, #w>
    %2 = spyre.unary exp %1 : tensor<8x64xf16, #w> -> tensor<8x64xf16, #w>
    spyre.yield %2 : tensor<8x64xf16, #w>
  }
  return %0 : tensor<8x64xf16, #w>
}

// -----

// i64 (16-element sticks) and i32 (32-element sticks) along one loop of
// 200016 elements: 12501 and 6251 sticks, so no tile but the whole loop is
// a whole number of sticks of both dividing both stick counts, and a whole
// row (1.6 MB of i64 beside 0.8 MB of i32 and the result) does not fit LX.
// The error says so (not that some tile is not whole sticks).
#l64 = #spyre.layout<stick_dim = 1, stick_elems = 16>
#l32 = #spyre.layout<stick_dim = 1, stick_elems = 32>
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @mixed_sticks(%x: tensor<2x200016xi64, #l64>, %y: tensor<2x200016xi32, #l32>) -> tensor<2x200016xi32, #l32> {
  // expected-error @+5 {{no schedule fits kernel 'k' (spyre.cast, spyre.binary): its smallest tiles need 4000512 bytes of LX per core (2097152 usable, too many)}}
  // expected-note @+4 {{LX buffer 'in0': 1600128 bytes x 1 copies}}
  // expected-note @+3 {{LX buffer 'in1': 800128 bytes x 1 copies}}
  // expected-note @+2 {{LX buffer 't0': 800128 bytes x 1 copies}}
  // expected-note @+1 {{LX buffer 't1': 800128 bytes x 1 copies}}
  %0 = spyre.kernel "k"(%x, %y) {indexing_maps = [#map, #map, #map], iterators = ["parallel", "parallel"], space = array<i64: 2, 200016>} : (tensor<2x200016xi64, #l64>, tensor<2x200016xi32, #l32>) -> tensor<2x200016xi32, #l32> {
  ^bb0(%a: tensor<2x200016xi64, #l64>, %b: tensor<2x200016xi32, #l32>):
    %1 = spyre.cast %a : tensor<2x200016xi64, #l64> -> tensor<2x200016xi32, #l32>
    %2 = spyre.binary add %1, %b : tensor<2x200016xi32, #l32>, tensor<2x200016xi32, #l32> -> tensor<2x200016xi32, #l32>
    spyre.yield %2 : tensor<2x200016xi32, #l32>
  }
  return %0 : tensor<2x200016xi32, #l32>
}
