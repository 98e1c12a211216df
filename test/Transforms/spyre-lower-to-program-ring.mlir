// RUN: spyre-opt %s --spyre-lower-to-program --split-input-file --verify-diagnostics | FileCheck %s

// Ring gathers (spyre-allocate-scratchpad's `ring` sources, docs/passes.md
// "Ring gathers"): the reader's program starts with its gather. Every core
// first sends the pieces of its held tile that other cores read (one
// ring_send per row of a piece; the peer is a parameter where the cores
// differ), then copies the piece it reads itself (SFP copy), then receives
// the rest into its input buffer; instructions only some cores run are
// wrapped in a loop whose per-core count is 0 or 1. Then the kernel runs
// as usual on its buffer.

// Rows split 2 ways -> sticks split 2 ways. Core 0 holds rows 0-31 at
// 2088960 and reads stick 0 of every row into [0, 8192) (pitch 128); core 1
// holds rows 32-63 and reads stick 1. Core 0 sends stick 1 of its rows to
// core 1 (parameter 1 = 1 on core 0), core 1 sends stick 0 of its rows to
// core 0 (peer 0); each copies its own quarter; core 0 receives rows 32-63
// at 4096, core 1 rows 0-31 at 0.
// CHECK-LABEL: module
// CHECK-DAG: spyre.tensor @t_a on_chip
// CHECK: spyre.program @a
// CHECK-NOT: spyre.dma_store
// CHECK: spyre.program @b
// CHECK-SAME: num_params = 3 : i64, params = array<i64: 0, 1, 0, 1, 0, 128>
// CHECK-NEXT: spyre.loop 0 attributes {count_param = 0 : i64} {
// CHECK-NEXT: spyre.loop 32 {
// CHECK-NEXT: spyre.ring_send {bytes = 128 : i64, lx = #spyre.lx<offset = 2088960, strides = [0, 256]>, peer = 0 : i64, tag = 0 : i64}
// CHECK: spyre.loop 1 attributes {count_param = 1 : i64} {
// CHECK-NEXT: spyre.loop 32 {
// CHECK-NEXT: spyre.ring_send {bytes = 128 : i64, lx = #spyre.lx<offset = 2089088, strides = [0, 256]>, peer = 0 : i64, peer_param = 1 : i64, tag = 0 : i64}
// CHECK: spyre.loop 1 attributes {count_param = 1 : i64} {
// CHECK-NEXT: spyre.sfp_unary "copy" {cols = 32 : i64, dst = #spyre.lx<offset = 0>, dst_type = f32, pitch = array<i64: 128, 256, 0>, rows = 32 : i64, src0 = #spyre.lx<offset = 2088960>
// CHECK: spyre.loop 0 attributes {count_param = 0 : i64} {
// CHECK-NEXT: spyre.sfp_unary "copy" {cols = 32 : i64, dst = #spyre.lx<offset = 4096>, dst_type = f32, pitch = array<i64: 128, 256, 0>, rows = 32 : i64, src0 = #spyre.lx<offset = 2089088>
// CHECK: spyre.loop 0 attributes {count_param = 0 : i64} {
// CHECK-NEXT: spyre.loop 32 {
// CHECK-NEXT: spyre.ring_recv {bytes = 128 : i64, lx = #spyre.lx<offset = 0, strides = [0, 128]>, peer = 0 : i64, tag = 0 : i64}
// CHECK: spyre.loop 1 attributes {count_param = 1 : i64} {
// CHECK-NEXT: spyre.loop 32 {
// CHECK-NEXT: spyre.ring_recv {bytes = 128 : i64, lx = #spyre.lx<offset = 4096, strides = [0, 128]>, peer = 0 : i64, peer_param = 1 : i64, tag = 0 : i64}
// CHECK: spyre.sfp_unary "neg" {{.*}}src0 = #spyre.lx<offset = 0>
// CHECK-NEXT: spyre.dma_store {{.*}}mem = #spyre.mem<tensor = @out0
// CHECK: spyre.reference @b [@t_a] -> [@out0]
#layout = #spyre.layout<stick_dim = 1, stick_elems = 32>
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @rows_to_columns(%arg0: tensor<64x64xf32, #layout>) -> tensor<64x64xf32, #layout> attributes {spyre.workspace_bytes = 0 : i64} {
  %0 = spyre.kernel "a"(%arg0) {buffers = [#spyre.buffer<name = "in0", offset = 0, bytes = 8192, copies = 1>, #spyre.buffer<name = "t0", offset = 2088960, bytes = 8192, copies = 1>], destinations = ["lx"], indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], result_offsets = array<i64: -1>, schedule = #spyre.schedule<split = [2, 1], tile = [32, 64], depth = 1, cost_ns = 0>, space = array<i64: 64, 64>} : (tensor<64x64xf32, #layout>) -> tensor<64x64xf32, #layout> {
  ^bb0(%arg1: tensor<64x64xf32, #layout>):
    %2 = spyre.unary exp %arg1 : tensor<64x64xf32, #layout> -> tensor<64x64xf32, #layout>
    spyre.yield %2 : tensor<64x64xf32, #layout>
  }
  %1 = spyre.kernel "b"(%0) {buffers = [#spyre.buffer<name = "in0", offset = 0, bytes = 8192, copies = 1>, #spyre.buffer<name = "t0", offset = 8192, bytes = 8192, copies = 1>], indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], result_offsets = array<i64: -1>, schedule = #spyre.schedule<split = [1, 2], tile = [64, 32], depth = 1, cost_ns = 0>, sources = ["ring"], space = array<i64: 64, 64>} : (tensor<64x64xf32, #layout>) -> tensor<64x64xf32, #layout> {
  ^bb0(%arg1: tensor<64x64xf32, #layout>):
    %2 = spyre.unary neg %arg1 : tensor<64x64xf32, #layout> -> tensor<64x64xf32, #layout>
    spyre.yield %2 : tensor<64x64xf32, #layout>
  }
  return %1 : tensor<64x64xf32, #layout>
}

// -----

// A re-split from 2 cores to 4: reader core c takes rows [16c, 16c+16),
// which producer core c / 2 holds. Per core (8 parameters each): core 0
// sends its second half to core 1 and copies its first half; core 1 sends
// its halves to cores 2 and 3; cores 1, 2 and 3 receive one contiguous
// 2 KiB piece from cores 0, 1 and 1.
// CHECK-LABEL: module
// CHECK: spyre.program @b
// CHECK-SAME: num_cores = 4 : i64, num_params = 8 : i64, params = array<i64: 0, 0, 1, 1, 1, 0, 0, 0, 1, 2, 1, 3, 0, 1, 0, 2048, 0, 0, 0, 0, 0, 1, 1, 4096, 0, 0, 0, 0, 0, 1, 1, 6144>
// CHECK-NEXT: spyre.loop 0 attributes {count_param = 0 : i64} {
// CHECK-NEXT: spyre.ring_send {bytes = 2048 : i64, lx = #spyre.lx<offset = 2093056>, peer = 0 : i64, peer_param = 1 : i64, tag = 0 : i64}
// CHECK: spyre.loop 1 attributes {count_param = 2 : i64} {
// CHECK-NEXT: spyre.ring_send {bytes = 2048 : i64, lx = #spyre.lx<offset = 2095104>, peer = 0 : i64, peer_param = 3 : i64, tag = 0 : i64}
// CHECK: spyre.loop 1 attributes {count_param = 4 : i64} {
// CHECK-NEXT: spyre.sfp_unary "copy" {cols = 512 : i64, dst = #spyre.lx<offset = 0>, dst_type = f32, pitch = array<i64: 128, 128, 0>, rows = 1 : i64, src0 = #spyre.lx<offset = 2093056>
// CHECK: spyre.loop 0 attributes {count_param = 5 : i64} {
// CHECK-NEXT: spyre.ring_recv {bytes = 2048 : i64, lx = #spyre.lx<offset = 0>, peer = 0 : i64, peer_param = 6 : i64, tag = 0 : i64}
// CHECK-NOT: spyre.ring_
// CHECK: spyre.sfp_unary "neg"
#layout = #spyre.layout<stick_dim = 1, stick_elems = 32>
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @two_to_four(%arg0: tensor<64x32xf32, #layout>) -> tensor<64x32xf32, #layout> attributes {spyre.workspace_bytes = 0 : i64} {
  %0 = spyre.kernel "a"(%arg0) {buffers = [#spyre.buffer<name = "in0", offset = 0, bytes = 4096, copies = 1>, #spyre.buffer<name = "t0", offset = 2093056, bytes = 4096, copies = 1>], destinations = ["lx"], indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], result_offsets = array<i64: -1>, schedule = #spyre.schedule<split = [2, 1], tile = [32, 32], depth = 1, cost_ns = 0>, space = array<i64: 64, 32>} : (tensor<64x32xf32, #layout>) -> tensor<64x32xf32, #layout> {
  ^bb0(%arg1: tensor<64x32xf32, #layout>):
    %2 = spyre.unary exp %arg1 : tensor<64x32xf32, #layout> -> tensor<64x32xf32, #layout>
    spyre.yield %2 : tensor<64x32xf32, #layout>
  }
  %1 = spyre.kernel "b"(%0) {buffers = [#spyre.buffer<name = "in0", offset = 0, bytes = 2048, copies = 1>, #spyre.buffer<name = "t0", offset = 2048, bytes = 2048, copies = 1>], indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], result_offsets = array<i64: -1>, schedule = #spyre.schedule<split = [4, 1], tile = [16, 32], depth = 1, cost_ns = 0>, sources = ["ring"], space = array<i64: 64, 32>} : (tensor<64x32xf32, #layout>) -> tensor<64x32xf32, #layout> {
  ^bb0(%arg1: tensor<64x32xf32, #layout>):
    %2 = spyre.unary neg %arg1 : tensor<64x32xf32, #layout> -> tensor<64x32xf32, #layout>
    spyre.yield %2 : tensor<64x32xf32, #layout>
  }
  return %1 : tensor<64x32xf32, #layout>
}

// -----

// A reader on fewer cores than its producer cannot gather the tiles the
// other cores hold (their programs do not run).
#row = #spyre.layout<stick_dim = 1, stick_elems = 32>
#map = affine_map<(d0, d1) -> (d0, d1)>

func.func @ring_fewer_cores(%x: tensor<64x32xf32, #row>) -> tensor<64x32xf32, #row> attributes {spyre.workspace_bytes = 0 : i64} {
  %0 = spyre.kernel "a"(%x) {buffers = [#spyre.buffer<name = "in0", offset = 0, bytes = 4096, copies = 1>, #spyre.buffer<name = "t0", offset = 4096, bytes = 4096, copies = 1>], destinations = ["lx"], indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], result_offsets = array<i64: -1>, schedule = #spyre.schedule<split = [2, 1], tile = [32, 32], depth = 1, cost_ns = 0>, space = array<i64: 64, 32>} : (tensor<64x32xf32, #row>) -> tensor<64x32xf32, #row> {
  ^bb0(%a: tensor<64x32xf32, #row>):
    %r = spyre.unary exp %a : tensor<64x32xf32, #row> -> tensor<64x32xf32, #row>
    spyre.yield %r : tensor<64x32xf32, #row>
  }
  // expected-error @+1 {{input 0 is gathered over the ring, but its tiles are not made of whole rows and sticks of its producer's tiles on at most this kernel's cores}}
  %1 = spyre.kernel "b"(%0) {buffers = [#spyre.buffer<name = "in0", offset = 8192, bytes = 8192, copies = 1>, #spyre.buffer<name = "t0", offset = 16384, bytes = 8192, copies = 1>], indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], result_offsets = array<i64: -1>, schedule = #spyre.schedule<split = [1, 1], tile = [64, 32], depth = 1, cost_ns = 0>, sources = ["ring"], space = array<i64: 64, 32>} : (tensor<64x32xf32, #row>) -> tensor<64x32xf32, #row> {
  ^bb0(%a: tensor<64x32xf32, #row>):
    %r = spyre.unary neg %a : tensor<64x32xf32, #row> -> tensor<64x32xf32, #row>
    spyre.yield %r : tensor<64x32xf32, #row>
  }
  return %1 : tensor<64x32xf32, #row>
}
