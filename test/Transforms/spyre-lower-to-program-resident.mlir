// RUN: spyre-opt %s --spyre-lower-to-program --split-input-file --verify-diagnostics | FileCheck %s

// A result kept in LX (spyre-allocate-scratchpad's residency): "a" stores
// nothing, "b" loads nothing of it and reads it at a's buffer (4096); the
// tensor is declared on_chip (no workspace offset) for the references.
#row = #spyre.layout<stick_dim = 1, stick_elems = 32>
#map = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: module
// CHECK-DAG: spyre.tensor @t_a on_chip : tensor<64x32xf32, #layout>
// CHECK: spyre.program @a
// CHECK-NEXT: spyre.dma_load {{.*}}mem = #spyre.mem<tensor = @in0
// CHECK-NEXT: spyre.sfp_unary "exp" {{.*}}dst = #spyre.lx<offset = 4096>
// CHECK-NEXT: {{^ *\}$}}
// CHECK: spyre.reference @a [@in0] -> [@t_a]
// CHECK: spyre.program @b
// CHECK-NEXT: spyre.sfp_unary "neg" {{.*}}src0 = #spyre.lx<offset = 4096>
// CHECK-NEXT: spyre.dma_store {{.*}}mem = #spyre.mem<tensor = @out0
// CHECK: spyre.reference @b [@t_a] -> [@out0]
func.func @handoff(%x: tensor<64x32xf32, #row>) -> tensor<64x32xf32, #row> attributes {spyre.workspace_bytes = 0 : i64} {
  %0 = spyre.kernel "a"(%x) {buffers = [#spyre.buffer<name = "in0", offset = 0, bytes = 4096, copies = 1>, #spyre.buffer<name = "t0", offset = 4096, bytes = 4096, copies = 1>], destinations = ["lx"], indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], result_offsets = array<i64: -1>, schedule = #spyre.schedule<split = [2, 1], tile = [32, 32], depth = 1, cost_ns = 0>, space = array<i64: 64, 32>} : (tensor<64x32xf32, #row>) -> tensor<64x32xf32, #row> {
  ^bb0(%a: tensor<64x32xf32, #row>):
    %r = spyre.unary exp %a : tensor<64x32xf32, #row> -> tensor<64x32xf32, #row>
    spyre.yield %r : tensor<64x32xf32, #row>
  }
  %1 = spyre.kernel "b"(%0) {buffers = [#spyre.buffer<name = "in0", offset = 4096, bytes = 4096, copies = 1>, #spyre.buffer<name = "t0", offset = 0, bytes = 4096, copies = 1>], indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], result_offsets = array<i64: -1>, schedule = #spyre.schedule<split = [2, 1], tile = [32, 32], depth = 1, cost_ns = 0>, sources = ["lx"], space = array<i64: 64, 32>} : (tensor<64x32xf32, #row>) -> tensor<64x32xf32, #row> {
  ^bb0(%a: tensor<64x32xf32, #row>):
    %r = spyre.unary neg %a : tensor<64x32xf32, #row> -> tensor<64x32xf32, #row>
    spyre.yield %r : tensor<64x32xf32, #row>
  }
  return %1 : tensor<64x32xf32, #row>
}

// -----

// The consumer's buffer is not where the producer left the tile.
#row = #spyre.layout<stick_dim = 1, stick_elems = 32>
#map = affine_map<(d0, d1) -> (d0, d1)>

func.func @moved(%x: tensor<64x32xf32, #row>) -> tensor<64x32xf32, #row> attributes {spyre.workspace_bytes = 0 : i64} {
  %0 = spyre.kernel "a"(%x) {buffers = [#spyre.buffer<name = "in0", offset = 0, bytes = 4096, copies = 1>, #spyre.buffer<name = "t0", offset = 4096, bytes = 4096, copies = 1>], destinations = ["lx"], indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], result_offsets = array<i64: -1>, schedule = #spyre.schedule<split = [2, 1], tile = [32, 32], depth = 1, cost_ns = 0>, space = array<i64: 64, 32>} : (tensor<64x32xf32, #row>) -> tensor<64x32xf32, #row> {
  ^bb0(%a: tensor<64x32xf32, #row>):
    %r = spyre.unary exp %a : tensor<64x32xf32, #row> -> tensor<64x32xf32, #row>
    spyre.yield %r : tensor<64x32xf32, #row>
  }
  // expected-error @+1 {{input 0 is read from LX at offset 0, where its producer did not leave it}}
  %1 = spyre.kernel "b"(%0) {buffers = [#spyre.buffer<name = "in0", offset = 0, bytes = 4096, copies = 1>, #spyre.buffer<name = "t0", offset = 4096, bytes = 4096, copies = 1>], indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], result_offsets = array<i64: -1>, schedule = #spyre.schedule<split = [2, 1], tile = [32, 32], depth = 1, cost_ns = 0>, sources = ["lx"], space = array<i64: 64, 32>} : (tensor<64x32xf32, #row>) -> tensor<64x32xf32, #row> {
  ^bb0(%a: tensor<64x32xf32, #row>):
    %r = spyre.unary neg %a : tensor<64x32xf32, #row> -> tensor<64x32xf32, #row>
    spyre.yield %r : tensor<64x32xf32, #row>
  }
  return %1 : tensor<64x32xf32, #row>
}

// -----

// A kernel in between writes over the held tile.
#row = #spyre.layout<stick_dim = 1, stick_elems = 32>
#map = affine_map<(d0, d1) -> (d0, d1)>

func.func @overwritten(%x: tensor<64x32xf32, #row>) -> (tensor<64x32xf32, #row>, tensor<64x32xf32, #row>) attributes {spyre.workspace_bytes = 0 : i64} {
  %0 = spyre.kernel "a"(%x) {buffers = [#spyre.buffer<name = "in0", offset = 0, bytes = 4096, copies = 1>, #spyre.buffer<name = "t0", offset = 4096, bytes = 4096, copies = 1>], destinations = ["lx"], indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], result_offsets = array<i64: -1>, schedule = #spyre.schedule<split = [2, 1], tile = [32, 32], depth = 1, cost_ns = 0>, space = array<i64: 64, 32>} : (tensor<64x32xf32, #row>) -> tensor<64x32xf32, #row> {
  ^bb0(%a: tensor<64x32xf32, #row>):
    %r = spyre.unary exp %a : tensor<64x32xf32, #row> -> tensor<64x32xf32, #row>
    spyre.yield %r : tensor<64x32xf32, #row>
  }
  // expected-error @+1 {{LX buffer 't0' overlaps the tile a kernel result keeps in LX at offset 4096 for a later kernel}}
  %1 = spyre.kernel "b"(%x) {buffers = [#spyre.buffer<name = "in0", offset = 0, bytes = 4096, copies = 1>, #spyre.buffer<name = "t0", offset = 4096, bytes = 4096, copies = 1>], indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], result_offsets = array<i64: -1>, schedule = #spyre.schedule<split = [2, 1], tile = [32, 32], depth = 1, cost_ns = 0>, space = array<i64: 64, 32>} : (tensor<64x32xf32, #row>) -> tensor<64x32xf32, #row> {
  ^bb0(%a: tensor<64x32xf32, #row>):
    %r = spyre.unary neg %a : tensor<64x32xf32, #row> -> tensor<64x32xf32, #row>
    spyre.yield %r : tensor<64x32xf32, #row>
  }
  %2 = spyre.kernel "c"(%0) {buffers = [#spyre.buffer<name = "in0", offset = 4096, bytes = 4096, copies = 1>, #spyre.buffer<name = "t0", offset = 0, bytes = 4096, copies = 1>], indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], result_offsets = array<i64: -1>, schedule = #spyre.schedule<split = [2, 1], tile = [32, 32], depth = 1, cost_ns = 0>, sources = ["lx"], space = array<i64: 64, 32>} : (tensor<64x32xf32, #row>) -> tensor<64x32xf32, #row> {
  ^bb0(%a: tensor<64x32xf32, #row>):
    %r = spyre.unary abs %a : tensor<64x32xf32, #row> -> tensor<64x32xf32, #row>
    spyre.yield %r : tensor<64x32xf32, #row>
  }
  return %1, %2 : tensor<64x32xf32, #row>, tensor<64x32xf32, #row>
}

// -----

// A tile that moves more than once per core cannot stay in LX: "b" runs
// two 16-row tiles per core.
#row = #spyre.layout<stick_dim = 1, stick_elems = 32>
#map = affine_map<(d0, d1) -> (d0, d1)>

func.func @streamed(%x: tensor<64x32xf32, #row>) -> tensor<64x32xf32, #row> attributes {spyre.workspace_bytes = 0 : i64} {
  %0 = spyre.kernel "a"(%x) {buffers = [#spyre.buffer<name = "in0", offset = 0, bytes = 4096, copies = 1>, #spyre.buffer<name = "t0", offset = 4096, bytes = 4096, copies = 1>], destinations = ["lx"], indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], result_offsets = array<i64: -1>, schedule = #spyre.schedule<split = [2, 1], tile = [32, 32], depth = 1, cost_ns = 0>, space = array<i64: 64, 32>} : (tensor<64x32xf32, #row>) -> tensor<64x32xf32, #row> {
  ^bb0(%a: tensor<64x32xf32, #row>):
    %r = spyre.unary exp %a : tensor<64x32xf32, #row> -> tensor<64x32xf32, #row>
    spyre.yield %r : tensor<64x32xf32, #row>
  }
  // expected-error @+1 {{kernel input 0 is kept in LX, but the elementwise kernel moves it more than once per core or schedules its own transfers}}
  %1 = spyre.kernel "b"(%0) {buffers = [#spyre.buffer<name = "in0", offset = 4096, bytes = 2048, copies = 1>, #spyre.buffer<name = "t0", offset = 0, bytes = 2048, copies = 1>], indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], result_offsets = array<i64: -1>, schedule = #spyre.schedule<split = [2, 1], tile = [16, 32], depth = 1, cost_ns = 0>, sources = ["lx"], space = array<i64: 64, 32>} : (tensor<64x32xf32, #row>) -> tensor<64x32xf32, #row> {
  ^bb0(%a: tensor<64x32xf32, #row>):
    %r = spyre.unary neg %a : tensor<64x32xf32, #row> -> tensor<64x32xf32, #row>
    spyre.yield %r : tensor<64x32xf32, #row>
  }
  return %1 : tensor<64x32xf32, #row>
}
