// RUN: spyre-opt %s --spyre-allocate-scratchpad="resident=false" --split-input-file --verify-diagnostics | FileCheck %s
// Residency across kernels: spyre-allocate-scratchpad-resident.mlir.

#row = #spyre.layout<stick_dim = 1, stick_elems = 32>
#map = affine_map<(d0, d1) -> (d0, d1)>

// Buffers of a scheduled kernel: the streamed input with two rotating
// copies, the body's values, then the stored result with two copies. The
// SFP reads each row before writing it, so neg and abs, whose operands
// nothing reads again, overwrite them: exp, neg and abs share t0, live
// from exp to the mul that reads abs. Offsets are 128-byte aligned.
// CHECK-LABEL: func.func @elementwise
// CHECK: spyre.kernel "k"
// CHECK-SAME: buffers = [#spyre.buffer<name = "in0", offset = 0, bytes = 1024, copies = 2>,
// CHECK-SAME: #spyre.buffer<name = "t0", offset = 2048, bytes = 1024, copies = 1, live = [0, 3]>,
// CHECK-SAME: #spyre.buffer<name = "t1", offset = 3072, bytes = 1024, copies = 2>]
// CHECK-SAME: result_offsets = array<i64: -1>
func.func @elementwise(%x: tensor<64x32xf32, #row>) -> tensor<64x32xf32, #row> {
  %0 = spyre.kernel "k"(%x) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 64, 32>, schedule = #spyre.schedule<split = [1, 1], tile = [8, 32], depth = 2, cost_ns = 0>} : (tensor<64x32xf32, #row>) -> tensor<64x32xf32, #row> {
  ^bb0(%a: tensor<64x32xf32, #row>):
    %1 = spyre.unary exp %a : tensor<64x32xf32, #row> -> tensor<64x32xf32, #row>
    %2 = spyre.unary neg %1 : tensor<64x32xf32, #row> -> tensor<64x32xf32, #row>
    %3 = spyre.unary abs %2 : tensor<64x32xf32, #row> -> tensor<64x32xf32, #row>
    %4 = spyre.binary mul %3, %a : tensor<64x32xf32, #row>, tensor<64x32xf32, #row> -> tensor<64x32xf32, #row>
    spyre.yield %4 : tensor<64x32xf32, #row>
  }
  return %0 : tensor<64x32xf32, #row>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 32>
#row16 = #spyre.layout<stick_dim = 1, stick_elems = 64>
#map = affine_map<(d0, d1) -> (d0, d1)>

// Which values overwrite an operand: exp does not overwrite the cast (the
// first mul reads it again), the first mul overwrites exp (t1, live from
// exp to the last mul), the row sums are a buffer of their own, and the
// last mul, stored as the result, writes the result's buffer.
// CHECK-LABEL: func.func @in_place_only_when_dead
// CHECK: spyre.kernel "k"
// CHECK-SAME: #spyre.buffer<name = "t0", offset = 2048, bytes = 1024, copies = 1, live = [0, 2]>,
// CHECK-SAME: #spyre.buffer<name = "t1", offset = 3072, bytes = 1024, copies = 1, live = [1, 4]>,
// CHECK-SAME: #spyre.buffer<name = "t2", offset = 2048, bytes = 1024, copies = 1, live = [3, 4]>,
// CHECK-SAME: #spyre.buffer<name = "t3", offset = 4096, bytes = 1024, copies = 2>]
func.func @in_place_only_when_dead(%x: tensor<64x32xf16, #row16>) -> tensor<64x32xf32, #row> {
  %0 = spyre.kernel "k"(%x) {indexing_maps = [#map, #map], iterators = ["parallel", "reduction"], space = array<i64: 64, 32>, schedule = #spyre.schedule<split = [1, 1], tile = [8, 32], depth = 2, cost_ns = 0>} : (tensor<64x32xf16, #row16>) -> tensor<64x32xf32, #row> {
  ^bb0(%a: tensor<64x32xf16, #row16>):
    %c = spyre.cast %a : tensor<64x32xf16, #row16> -> tensor<64x32xf32, #row>
    %1 = spyre.unary exp %c : tensor<64x32xf32, #row> -> tensor<64x32xf32, #row>
    %2 = spyre.binary mul %1, %c : tensor<64x32xf32, #row>, tensor<64x32xf32, #row> -> tensor<64x32xf32, #row>
    %s = spyre.reduce sum %2 dim 1 : tensor<64x32xf32, #row> -> tensor<64x1xf32, #row>
    %3 = spyre.binary mul %2, %s : tensor<64x32xf32, #row>, tensor<64x1xf32, #row> -> tensor<64x32xf32, #row>
    spyre.yield %3 : tensor<64x32xf32, #row>
  }
  return %0 : tensor<64x32xf32, #row>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 32>
#map = affine_map<(d0, d1) -> (d0, d1)>

// Device memory between kernels: %0 and %1 are alive while c reads them and
// writes %2 (a kernel's inputs and outputs never share bytes); %0 is dead
// once c is done, so %3 (written by d) reuses its bytes. The returned tensor
// is the caller's buffer (-1).
// CHECK-LABEL: func.func @workspace
// CHECK-SAME: spyre.workspace_bytes = 24576
// CHECK: spyre.kernel "a"
// CHECK-SAME: result_offsets = array<i64: 0>
// CHECK: spyre.kernel "b"
// CHECK-SAME: result_offsets = array<i64: 8192>
// CHECK: spyre.kernel "c"
// CHECK-SAME: result_offsets = array<i64: 16384>
// CHECK: spyre.kernel "d"
// CHECK-SAME: result_offsets = array<i64: 0>
// CHECK: spyre.kernel "e"
// CHECK-SAME: result_offsets = array<i64: -1>
func.func @workspace(%x: tensor<64x32xf32, #row>) -> tensor<64x32xf32, #row> {
  %0 = spyre.kernel "a"(%x) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 64, 32>, schedule = #spyre.schedule<split = [1, 1], tile = [64, 32], depth = 1, cost_ns = 0>} : (tensor<64x32xf32, #row>) -> tensor<64x32xf32, #row> {
  ^bb0(%a: tensor<64x32xf32, #row>):
    %r = spyre.unary exp %a : tensor<64x32xf32, #row> -> tensor<64x32xf32, #row>
    spyre.yield %r : tensor<64x32xf32, #row>
  }
  %1 = spyre.kernel "b"(%x) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 64, 32>, schedule = #spyre.schedule<split = [1, 1], tile = [64, 32], depth = 1, cost_ns = 0>} : (tensor<64x32xf32, #row>) -> tensor<64x32xf32, #row> {
  ^bb0(%a: tensor<64x32xf32, #row>):
    %r = spyre.unary neg %a : tensor<64x32xf32, #row> -> tensor<64x32xf32, #row>
    spyre.yield %r : tensor<64x32xf32, #row>
  }
  %2 = spyre.kernel "c"(%0, %1) {indexing_maps = [#map, #map, #map], iterators = ["parallel", "parallel"], space = array<i64: 64, 32>, schedule = #spyre.schedule<split = [1, 1], tile = [64, 32], depth = 1, cost_ns = 0>} : (tensor<64x32xf32, #row>, tensor<64x32xf32, #row>) -> tensor<64x32xf32, #row> {
  ^bb0(%a: tensor<64x32xf32, #row>, %b: tensor<64x32xf32, #row>):
    %r = spyre.binary add %a, %b : tensor<64x32xf32, #row>, tensor<64x32xf32, #row> -> tensor<64x32xf32, #row>
    spyre.yield %r : tensor<64x32xf32, #row>
  }
  %3 = spyre.kernel "d"(%2) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 64, 32>, schedule = #spyre.schedule<split = [1, 1], tile = [64, 32], depth = 1, cost_ns = 0>} : (tensor<64x32xf32, #row>) -> tensor<64x32xf32, #row> {
  ^bb0(%a: tensor<64x32xf32, #row>):
    %r = spyre.unary exp %a : tensor<64x32xf32, #row> -> tensor<64x32xf32, #row>
    spyre.yield %r : tensor<64x32xf32, #row>
  }
  %4 = spyre.kernel "e"(%3, %1) {indexing_maps = [#map, #map, #map], iterators = ["parallel", "parallel"], space = array<i64: 64, 32>, schedule = #spyre.schedule<split = [1, 1], tile = [64, 32], depth = 1, cost_ns = 0>} : (tensor<64x32xf32, #row>, tensor<64x32xf32, #row>) -> tensor<64x32xf32, #row> {
  ^bb0(%a: tensor<64x32xf32, #row>, %b: tensor<64x32xf32, #row>):
    %r = spyre.binary mul %a, %b : tensor<64x32xf32, #row>, tensor<64x32xf32, #row> -> tensor<64x32xf32, #row>
    spyre.yield %r : tensor<64x32xf32, #row>
  }
  return %4 : tensor<64x32xf32, #row>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 32>
#map = affine_map<(d0, d1) -> (d0, d1)>

// A pinned schedule whose tiles cannot fit: 2048 x 256 fp32 is 2 MiB for
// the input tile and 2 MiB for the result's.
func.func @overflow(%x: tensor<2048x256xf32, #row>) -> tensor<2048x256xf32, #row> {
  // expected-error @+3 {{kernel 'big' needs 4194304 bytes of LX per core; 2097152 are usable (lx_bytes 2097152, reserved fraction 0)}}
  // expected-note @+2 {{LX buffer 'in0': 2097152 bytes x 1 copies}}
  // expected-note @+1 {{LX buffer 't0': 2097152 bytes x 1 copies}}
  %0 = spyre.kernel "big"(%x) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 2048, 256>, schedule = #spyre.schedule<split = [1, 1], tile = [2048, 256], depth = 2, cost_ns = 0>} : (tensor<2048x256xf32, #row>) -> tensor<2048x256xf32, #row> {
  ^bb0(%a: tensor<2048x256xf32, #row>):
    %r = spyre.unary exp %a : tensor<2048x256xf32, #row> -> tensor<2048x256xf32, #row>
    spyre.yield %r : tensor<2048x256xf32, #row>
  }
  return %0 : tensor<2048x256xf32, #row>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 32>
#map = affine_map<(d0, d1) -> (d0, d1)>

func.func @unscheduled(%x: tensor<8x32xf32, #row>) -> tensor<8x32xf32, #row> {
  // expected-error @+1 {{kernel has no schedule; run spyre-schedule-cores first}}
  %0 = spyre.kernel "k"(%x) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 8, 32>} : (tensor<8x32xf32, #row>) -> tensor<8x32xf32, #row> {
  ^bb0(%a: tensor<8x32xf32, #row>):
    %r = spyre.unary exp %a : tensor<8x32xf32, #row> -> tensor<8x32xf32, #row>
    spyre.yield %r : tensor<8x32xf32, #row>
  }
  return %0 : tensor<8x32xf32, #row>
}

// -----

// A transpose that keeps the stick is an alias of its input's buffer: its
// users keep that buffer alive, and they never shorten it. The streamed
// input (two copies: the next tile is loaded while this one is computed)
// stays live for the whole kernel, so the reduction's temporary t1 does not
// take its bytes (it did, and the prefetched tile was overwritten).
#in = #spyre.layout<stick_dim = 1, stick_elems = 64, dim_order = [0, 2, 1]>
#h = #spyre.layout<stick_dim = 2, stick_elems = 64>
#f = #spyre.layout<stick_dim = 2, stick_elems = 32>
// CHECK-LABEL: func.func @alias_keeps_input_live
// CHECK: buffers = [#spyre.buffer<name = "in0", offset = 0, bytes = 128, copies = 2>,
// CHECK-SAME: #spyre.buffer<name = "t0", offset = 256, bytes = 128, copies = 1, live = [1, 2]>,
// CHECK-SAME: #spyre.buffer<name = "t1", offset = 384, bytes = 128, copies = 1, live = [2, 3]>,
func.func @alias_keeps_input_live(%x: tensor<1x25x100xf16, #in>) -> tensor<100x1x1xf16, #h> {
  %0 = spyre.kernel "k"(%x) {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2, d0)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>], iterators = ["parallel", "parallel", "reduction"], schedule = #spyre.schedule<split = [32, 1, 1], tile = [1, 1, 25], depth = 2, cost_ns = 0>, space = array<i64: 100, 1, 25>} : (tensor<1x25x100xf16, #in>) -> tensor<100x1x1xf16, #h> {
  ^bb0(%a: tensor<1x25x100xf16, #in>):
    %1 = spyre.transpose %a [2, 0, 1] : tensor<1x25x100xf16, #in> -> tensor<100x1x25xf16, #h>
    %2 = spyre.cast %1 : tensor<100x1x25xf16, #h> -> tensor<100x1x25xf32, #f>
    %3 = spyre.reduce sum %2 dim 2 : tensor<100x1x25xf32, #f> -> tensor<100x1x1xf32, #f>
    %4 = spyre.cast %3 : tensor<100x1x1xf32, #f> -> tensor<100x1x1xf16, #h>
    spyre.yield %4 : tensor<100x1x1xf16, #h>
  }
  return %0 : tensor<100x1x1xf16, #h>
}

// -----

#layout = #spyre.layout<stick_dim = 1, stick_elems = 64>
#layout1 = #spyre.layout<stick_dim = 0, stick_elems = 32>
#map = affine_map<(d0, d1, d2, d3) -> (d0, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d2, d1)>
#map3 = affine_map<(d0, d1, d2, d3) -> (0)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d0, d1)>

// A causal attention kernel's query tiles must be its key tiles (or one
// query tile): two query tiles of 8 against one key tile of 16 would put
// the diagonal in different places of one key tile.
func.func @causal_attention_tiles(%q: tensor<16x64xf16, #layout>, %k: tensor<16x64xf16, #layout>, %v: tensor<16x64xf16, #layout>, %c: tensor<24xf32, #layout1>) -> tensor<16x64xf16, #layout> {
  // expected-error @+1 {{a causal attention needs square tiles (query tile 8, key tile 16)}}
  %1 = spyre.kernel "k0_attention"(%q, %k, %v, %c) {indexing_maps = [#map, #map1, #map2, #map3, #map4], iterators = ["parallel", "parallel", "reduction", "reduction"], space = array<i64: 16, 64, 16, 64>, schedule = #spyre.schedule<split = [1, 1, 1, 1], tile = [8, 64, 16, 64], depth = 2, cost_ns = 0>} : (tensor<16x64xf16, #layout>, tensor<16x64xf16, #layout>, tensor<16x64xf16, #layout>, tensor<24xf32, #layout1>) -> tensor<16x64xf16, #layout> {
  ^bb0(%a: tensor<16x64xf16, #layout>, %b: tensor<16x64xf16, #layout>, %d: tensor<16x64xf16, #layout>, %e: tensor<24xf32, #layout1>):
    %2 = spyre.attention %a, %b, %d {causal, scale = 1.250000e-01 : f64} : tensor<16x64xf16, #layout>, tensor<16x64xf16, #layout>, tensor<16x64xf16, #layout> -> tensor<16x64xf16, #layout>
    spyre.yield %2 : tensor<16x64xf16, #layout>
  }
  return %1 : tensor<16x64xf16, #layout>
}

// -----

#layout = #spyre.layout<stick_dim = 1, stick_elems = 64>
#layout1 = #spyre.layout<stick_dim = 0, stick_elems = 32>
#cols = #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>
#map = affine_map<(d0, d1, d2, d3) -> (d0, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d2, d1)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d3, d3)>
#map4 = affine_map<(d0, d1, d2, d3) -> (0)>
#map5 = affine_map<(d0, d1, d2, d3) -> (d0, d1)>

// The rope's rotation is the PT array's right operand, read in rows of
// sticks: a rotation laid out in columns (a layout spyre-assign-layouts
// never gives it) is refused.
func.func @rope_rotation_layout(%q: tensor<16x64xf16, #layout>, %k: tensor<16x64xf16, #layout>, %v: tensor<16x64xf16, #layout>, %cos: tensor<16x64xf16, #layout>, %r: tensor<64x64xf16, #cols>, %c: tensor<24xf32, #layout1>) -> tensor<16x64xf16, #layout> {
  // expected-error @+1 {{attention rope input 5 is not in the canonical layout}}
  %1 = spyre.kernel "k0_attention"(%q, %k, %v, %cos, %cos, %r, %c) {indexing_maps = [#map, #map1, #map2, #map, #map, #map3, #map4, #map5], iterators = ["parallel", "parallel", "reduction", "reduction"], space = array<i64: 16, 64, 16, 64>, schedule = #spyre.schedule<split = [1, 1, 1, 1], tile = [16, 64, 16, 64], depth = 2, cost_ns = 0>} : (tensor<16x64xf16, #layout>, tensor<16x64xf16, #layout>, tensor<16x64xf16, #layout>, tensor<16x64xf16, #layout>, tensor<16x64xf16, #layout>, tensor<64x64xf16, #cols>, tensor<24xf32, #layout1>) -> tensor<16x64xf16, #layout> {
  ^bb0(%a: tensor<16x64xf16, #layout>, %b: tensor<16x64xf16, #layout>, %d: tensor<16x64xf16, #layout>, %x: tensor<16x64xf16, #layout>, %y: tensor<16x64xf16, #layout>, %z: tensor<64x64xf16, #cols>, %e: tensor<24xf32, #layout1>):
    %2 = spyre.attention %a, %b, %d rope(%x, %y, %z : tensor<16x64xf16, #layout>, tensor<16x64xf16, #layout>, tensor<64x64xf16, #cols>) {causal, scale = 1.250000e-01 : f64} : tensor<16x64xf16, #layout>, tensor<16x64xf16, #layout>, tensor<16x64xf16, #layout> -> tensor<16x64xf16, #layout>
    spyre.yield %2 : tensor<16x64xf16, #layout>
  }
  return %1 : tensor<16x64xf16, #layout>
}

// -----

#layout = #spyre.layout<stick_dim = 1, stick_elems = 64>
#layout1 = #spyre.layout<stick_dim = 0, stick_elems = 32>
#map = affine_map<(d0, d1, d2, d3) -> (d0, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d2, d1)>
#map3 = affine_map<(d0, d1, d2, d3) -> (0)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d0, d1)>

// The value columns (loop 1) and the head dim (loop 3) are whole in a tile.
func.func @attention_value_columns_tiled(%q: tensor<16x64xf16, #layout>, %k: tensor<16x64xf16, #layout>, %v: tensor<16x64xf16, #layout>, %c: tensor<24xf32, #layout1>) -> tensor<16x64xf16, #layout> {
  // expected-error @+1 {{attention loop 1 cannot have tile 32}}
  %1 = spyre.kernel "k0_attention"(%q, %k, %v, %c) {indexing_maps = [#map, #map1, #map2, #map3, #map4], iterators = ["parallel", "parallel", "reduction", "reduction"], space = array<i64: 16, 64, 16, 64>, schedule = #spyre.schedule<split = [1, 1, 1, 1], tile = [16, 32, 16, 64], depth = 2, cost_ns = 0>} : (tensor<16x64xf16, #layout>, tensor<16x64xf16, #layout>, tensor<16x64xf16, #layout>, tensor<24xf32, #layout1>) -> tensor<16x64xf16, #layout> {
  ^bb0(%a: tensor<16x64xf16, #layout>, %b: tensor<16x64xf16, #layout>, %d: tensor<16x64xf16, #layout>, %e: tensor<24xf32, #layout1>):
    %2 = spyre.attention %a, %b, %d {causal, scale = 1.250000e-01 : f64} : tensor<16x64xf16, #layout>, tensor<16x64xf16, #layout>, tensor<16x64xf16, #layout> -> tensor<16x64xf16, #layout>
    spyre.yield %2 : tensor<16x64xf16, #layout>
  }
  return %1 : tensor<16x64xf16, #layout>
}

// -----

#layout = #spyre.layout<stick_dim = 1, stick_elems = 64>
#layout1 = #spyre.layout<stick_dim = 0, stick_elems = 32>
#map = affine_map<(d0, d1, d2, d3) -> (d0, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d2, d1)>
#map3 = affine_map<(d0, d1, d2, d3) -> (0)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d0, d1)>

// The key positions (loop 2) are one stream per query tile: never split.
func.func @attention_keys_split(%q: tensor<16x64xf16, #layout>, %k: tensor<16x64xf16, #layout>, %v: tensor<16x64xf16, #layout>, %c: tensor<24xf32, #layout1>) -> tensor<16x64xf16, #layout> {
  // expected-error @+1 {{attention loop 2 cannot be split 2 ways}}
  %1 = spyre.kernel "k0_attention"(%q, %k, %v, %c) {indexing_maps = [#map, #map1, #map2, #map3, #map4], iterators = ["parallel", "parallel", "reduction", "reduction"], space = array<i64: 16, 64, 16, 64>, schedule = #spyre.schedule<split = [1, 1, 2, 1], tile = [16, 64, 8, 64], depth = 2, cost_ns = 0>} : (tensor<16x64xf16, #layout>, tensor<16x64xf16, #layout>, tensor<16x64xf16, #layout>, tensor<24xf32, #layout1>) -> tensor<16x64xf16, #layout> {
  ^bb0(%a: tensor<16x64xf16, #layout>, %b: tensor<16x64xf16, #layout>, %d: tensor<16x64xf16, #layout>, %e: tensor<24xf32, #layout1>):
    %2 = spyre.attention %a, %b, %d {causal, scale = 1.250000e-01 : f64} : tensor<16x64xf16, #layout>, tensor<16x64xf16, #layout>, tensor<16x64xf16, #layout> -> tensor<16x64xf16, #layout>
    spyre.yield %2 : tensor<16x64xf16, #layout>
  }
  return %1 : tensor<16x64xf16, #layout>
}

// -----

#layout = #spyre.layout<stick_dim = 1, stick_elems = 64>
#layout1 = #spyre.layout<stick_dim = 0, stick_elems = 32>
#map = affine_map<(d0, d1, d2, d3) -> (d0, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d2, d1)>
#map3 = affine_map<(d0, d1, d2, d3) -> (0)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d0, d1)>

// K and V held whole along the key positions (one core runs both query
// tiles): each buffer spans the 16 keys, one copy.
// CHECK-LABEL: func.func @attention_held_kv
// CHECK: #spyre.buffer<name = "in1", offset = {{[0-9]+}}, bytes = 2048, copies = 1>, #spyre.buffer<name = "in2", offset = {{[0-9]+}}, bytes = 2048, copies = 1>
// CHECK-SAME: hold = [1, 2]
func.func @attention_held_kv(%q: tensor<16x64xf16, #layout>, %k: tensor<16x64xf16, #layout>, %v: tensor<16x64xf16, #layout>, %c: tensor<24xf32, #layout1>) -> tensor<16x64xf16, #layout> {
  %1 = spyre.kernel "k0_attention"(%q, %k, %v, %c) {indexing_maps = [#map, #map1, #map2, #map3, #map4], iterators = ["parallel", "parallel", "reduction", "reduction"], space = array<i64: 16, 64, 16, 64>, schedule = #spyre.schedule<split = [1, 1, 1, 1], tile = [8, 64, 8, 64], depth = 2, cost_ns = 0, hold = [1, 2]>} : (tensor<16x64xf16, #layout>, tensor<16x64xf16, #layout>, tensor<16x64xf16, #layout>, tensor<24xf32, #layout1>) -> tensor<16x64xf16, #layout> {
  ^bb0(%a: tensor<16x64xf16, #layout>, %b: tensor<16x64xf16, #layout>, %d: tensor<16x64xf16, #layout>, %e: tensor<24xf32, #layout1>):
    %2 = spyre.attention %a, %b, %d {causal, scale = 1.250000e-01 : f64} : tensor<16x64xf16, #layout>, tensor<16x64xf16, #layout>, tensor<16x64xf16, #layout> -> tensor<16x64xf16, #layout>
    spyre.yield %2 : tensor<16x64xf16, #layout>
  }
  return %1 : tensor<16x64xf16, #layout>
}

// -----

#layout = #spyre.layout<stick_dim = 1, stick_elems = 64>
#layout1 = #spyre.layout<stick_dim = 0, stick_elems = 32>
#map = affine_map<(d0, d1, d2, d3) -> (d0, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d2, d1)>
#map3 = affine_map<(d0, d1, d2, d3) -> (0)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d0, d1)>

// Only K and V can be held.
func.func @attention_hold_query(%q: tensor<16x64xf16, #layout>, %k: tensor<16x64xf16, #layout>, %v: tensor<16x64xf16, #layout>, %c: tensor<24xf32, #layout1>) -> tensor<16x64xf16, #layout> {
  // expected-error @+1 {{schedule holds input 0 of an attention kernel, but only its keys}}
  %1 = spyre.kernel "k0_attention"(%q, %k, %v, %c) {indexing_maps = [#map, #map1, #map2, #map3, #map4], iterators = ["parallel", "parallel", "reduction", "reduction"], space = array<i64: 16, 64, 16, 64>, schedule = #spyre.schedule<split = [1, 1, 1, 1], tile = [8, 64, 8, 64], depth = 2, cost_ns = 0, hold = [0]>} : (tensor<16x64xf16, #layout>, tensor<16x64xf16, #layout>, tensor<16x64xf16, #layout>, tensor<24xf32, #layout1>) -> tensor<16x64xf16, #layout> {
  ^bb0(%a: tensor<16x64xf16, #layout>, %b: tensor<16x64xf16, #layout>, %d: tensor<16x64xf16, #layout>, %e: tensor<24xf32, #layout1>):
    %2 = spyre.attention %a, %b, %d {causal, scale = 1.250000e-01 : f64} : tensor<16x64xf16, #layout>, tensor<16x64xf16, #layout>, tensor<16x64xf16, #layout> -> tensor<16x64xf16, #layout>
    spyre.yield %2 : tensor<16x64xf16, #layout>
  }
  return %1 : tensor<16x64xf16, #layout>
}

// -----

#layout = #spyre.layout<stick_dim = 1, stick_elems = 64>
#layout1 = #spyre.layout<stick_dim = 0, stick_elems = 32>
#map = affine_map<(d0, d1, d2, d3) -> (d0, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d2, d1)>
#map3 = affine_map<(d0, d1, d2, d3) -> (0)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d0, d1)>

// One query tile per core: nothing to hold K and V for.
func.func @attention_hold_one_query_tile(%q: tensor<16x64xf16, #layout>, %k: tensor<16x64xf16, #layout>, %v: tensor<16x64xf16, #layout>, %c: tensor<24xf32, #layout1>) -> tensor<16x64xf16, #layout> {
  // expected-error @+1 {{schedule holds input 1 of an attention kernel, but only its keys and values can be held, when a core runs several query tiles of several key tiles (causal: split over at most 8 cores)}}
  %1 = spyre.kernel "k0_attention"(%q, %k, %v, %c) {indexing_maps = [#map, #map1, #map2, #map3, #map4], iterators = ["parallel", "parallel", "reduction", "reduction"], space = array<i64: 16, 64, 16, 64>, schedule = #spyre.schedule<split = [2, 1, 1, 1], tile = [8, 64, 8, 64], depth = 2, cost_ns = 0, hold = [1, 2]>} : (tensor<16x64xf16, #layout>, tensor<16x64xf16, #layout>, tensor<16x64xf16, #layout>, tensor<24xf32, #layout1>) -> tensor<16x64xf16, #layout> {
  ^bb0(%a: tensor<16x64xf16, #layout>, %b: tensor<16x64xf16, #layout>, %d: tensor<16x64xf16, #layout>, %e: tensor<24xf32, #layout1>):
    %2 = spyre.attention %a, %b, %d {causal, scale = 1.250000e-01 : f64} : tensor<16x64xf16, #layout>, tensor<16x64xf16, #layout>, tensor<16x64xf16, #layout> -> tensor<16x64xf16, #layout>
    spyre.yield %2 : tensor<16x64xf16, #layout>
  }
  return %1 : tensor<16x64xf16, #layout>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 64>
#kmaj = #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>
#lhs = affine_map<(d0, d1, d2) -> (d0, d2)>
#rhs = affine_map<(d0, d1, d2) -> (d1, d2)>
#out = affine_map<(d0, d1, d2) -> (d0, d1)>

// A pinned schedule may hold only a matmul's lhs whole along k, and only
// where k runs in several tiles: here K is one tile, and input 1 is the rhs.
func.func @hold_one_k_tile(%x: tensor<64x128xf16, #row>, %w: tensor<128x128xf16, #kmaj>) -> tensor<64x128xf16, #row> {
  // expected-error @+1 {{schedule holds input 0 whole along the accumulation loop, but only the lhs of a matmul whose k runs in several tiles on one core (not split over cores) and whose lhs moves along no other such loop can be held}}
  %0 = spyre.kernel "k"(%x, %w) {indexing_maps = [#lhs, #rhs, #out], iterators = ["parallel", "parallel", "reduction"], space = array<i64: 64, 128, 128>, schedule = #spyre.schedule<split = [1, 1, 1], tile = [64, 64, 128], depth = 2, cost_ns = 0, hold = [0]>} : (tensor<64x128xf16, #row>, tensor<128x128xf16, #kmaj>) -> tensor<64x128xf16, #row> {
  ^bb0(%a: tensor<64x128xf16, #row>, %b: tensor<128x128xf16, #kmaj>):
    %1 = spyre.matmul %a, %b {transpose_rhs} : tensor<64x128xf16, #row>, tensor<128x128xf16, #kmaj> -> tensor<64x128xf16, #row>
    spyre.yield %1 : tensor<64x128xf16, #row>
  }
  return %0 : tensor<64x128xf16, #row>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 64>
#kmaj = #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>
#lhs = affine_map<(d0, d1, d2) -> (d0, d2)>
#rhs = affine_map<(d0, d1, d2) -> (d1, d2)>
#out = affine_map<(d0, d1, d2) -> (d0, d1)>

func.func @hold_rhs(%x: tensor<64x128xf16, #row>, %w: tensor<128x128xf16, #kmaj>) -> tensor<64x128xf16, #row> {
  // expected-error @+1 {{schedule holds input 1 whole along the accumulation loop, but only the lhs}}
  %0 = spyre.kernel "k"(%x, %w) {indexing_maps = [#lhs, #rhs, #out], iterators = ["parallel", "parallel", "reduction"], space = array<i64: 64, 128, 128>, schedule = #spyre.schedule<split = [1, 1, 1], tile = [64, 64, 64], depth = 2, cost_ns = 0, hold = [1]>} : (tensor<64x128xf16, #row>, tensor<128x128xf16, #kmaj>) -> tensor<64x128xf16, #row> {
  ^bb0(%a: tensor<64x128xf16, #row>, %b: tensor<128x128xf16, #kmaj>):
    %1 = spyre.matmul %a, %b {transpose_rhs} : tensor<64x128xf16, #row>, tensor<128x128xf16, #kmaj> -> tensor<64x128xf16, #row>
    spyre.yield %1 : tensor<64x128xf16, #row>
  }
  return %0 : tensor<64x128xf16, #row>
}

// -----

// A result kept whole per core (`keep`) is a slab of the tiles the plan
// writes from its buffers: not of a transpose kernel's.
#row = #spyre.layout<stick_dim = 1, stick_elems = 64>

func.func @keep_transpose(%x: tensor<64x128xf16, #row>) -> tensor<128x64xf16, #row> {
  // expected-error @+1 {{schedule keeps result 0 whole per core, but only matmul, elementwise and reduction kernels can, not a transpose kernel}}
  %0 = spyre.kernel "k"(%x) {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterators = ["parallel", "parallel"], space = array<i64: 128, 64>, schedule = #spyre.schedule<split = [1, 1], tile = [64, 64], depth = 1, cost_ns = 0, keep = [0]>} : (tensor<64x128xf16, #row>) -> tensor<128x64xf16, #row> {
  ^bb0(%a: tensor<64x128xf16, #row>):
    %r = spyre.transpose %a [1, 0] : tensor<64x128xf16, #row> -> tensor<128x64xf16, #row>
    spyre.yield %r : tensor<128x64xf16, #row>
  }
  return %0 : tensor<128x64xf16, #row>
}

// -----

// A slab's place of a tile follows the hardware loop counters: the result
// may move in several tiles per core only along its row and stick loops.
#row = #spyre.layout<stick_dim = 2, stick_elems = 64>
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

func.func @keep_outer_loop(%x: tensor<4x32x64xf16, #row>) -> tensor<4x32x64xf16, #row> {
  // expected-error @+1 {{schedule keeps result 0 whole per core, but it moves along outer loop 0 in several tiles per core}}
  %0 = spyre.kernel "k"(%x) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel", "parallel"], space = array<i64: 4, 32, 64>, schedule = #spyre.schedule<split = [1, 1, 1], tile = [1, 32, 64], depth = 1, cost_ns = 0, keep = [0]>} : (tensor<4x32x64xf16, #row>) -> tensor<4x32x64xf16, #row> {
  ^bb0(%a: tensor<4x32x64xf16, #row>):
    %r = spyre.unary exp %a : tensor<4x32x64xf16, #row> -> tensor<4x32x64xf16, #row>
    spyre.yield %r : tensor<4x32x64xf16, #row>
  }
  return %0 : tensor<4x32x64xf16, #row>
}

// -----

// ... and every core writes as many of its tiles (3 row tiles on 2 cores).
#row = #spyre.layout<stick_dim = 1, stick_elems = 64>
#map = affine_map<(d0, d1) -> (d0, d1)>

func.func @keep_unbalanced(%x: tensor<48x64xf16, #row>) -> tensor<48x64xf16, #row> {
  // expected-error @+1 {{schedule keeps result 0 whole per core, but the cores write different numbers of its tiles along loop 0}}
  %0 = spyre.kernel "k"(%x) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 48, 64>, schedule = #spyre.schedule<split = [2, 1], tile = [16, 64], depth = 1, cost_ns = 0, keep = [0]>} : (tensor<48x64xf16, #row>) -> tensor<48x64xf16, #row> {
  ^bb0(%a: tensor<48x64xf16, #row>):
    %r = spyre.unary exp %a : tensor<48x64xf16, #row> -> tensor<48x64xf16, #row>
    spyre.yield %r : tensor<48x64xf16, #row>
  }
  return %0 : tensor<48x64xf16, #row>
}
