// RUN: spyre-opt %s --spyre-lower-to-program --split-input-file --verify-diagnostics | FileCheck %s

// Two allocated kernels on 4 cores: a 100x256 @ 256x128 matmul with bias and
// relu (rows split in 32-row tiles, the last one clamped at row 100), then
// exp(x) * x over 16-row tiles, software-pipelined (cores own 1 or 2 tiles:
// per-core guards).
//
// CHECK-LABEL: module
// The caller's tensors, by io_index; the intermediate in the workspace.
// CHECK-DAG: spyre.tensor @out0 output {io_index = 0 : i64}
// CHECK-DAG: spyre.tensor @in0 input {io_index = 0 : i64}
// CHECK-DAG: spyre.tensor @in1 input {io_index = 1 : i64}
// CHECK-DAG: spyre.tensor @in2 input {io_index = 2 : i64}
// CHECK-DAG: spyre.tensor @t_k0_matmul workspace {workspace_offset = 0 : i64}
//
// Per-core parameters: [row offset of x in bytes, first row, row offset of
// the result]; each core owns 32 rows.
// The cost model's estimate, the roofline inputs, the schedule and the LX
// the buffers span ride along.
// CHECK: spyre.program @k0_matmul attributes {estimate_ns = {{[0-9]+}} : i64, kernel = "k0_matmul", lx_bytes = 114944 : i64, macs = 3276800 : i64, min_bytes = 142592 : i64, min_written_bytes = 25600 : i64, num_cores = 4 : i64, num_params = 3 : i64,
// CHECK-SAME: params = array<i64: 0, 0, 0, 16384, 32, 8192, 32768, 64, 16384, 49152, 96, 24576>, schedule = #spyre.schedule<split = [4, 1, 1], tile = [32, 128, 256], depth = 2, cost_ns = {{[0-9]+}}>}
// The activation rows are clamped at the edge; the weight and the bias are
// the same for every core: one multicast read each.
// CHECK-NEXT: spyre.dma_load {box = array<i64: 32, 1, 1>, clamp = #spyre.clamp<level = -1, arg = 0, step = 32, total = 100, param = 1>, lx = #spyre.lx<offset = 0>, mem = #spyre.mem<tensor = @in0, offset = 0, param = 0>, pitch = array<i64: 512, 0, 0>, run = 512 : i64}
// CHECK-NEXT: spyre.dma_load {{.*}}mem = #spyre.mem<tensor = @in1, offset = 0>, multicast
// CHECK-NEXT: spyre.dma_load {{.*}}mem = #spyre.mem<tensor = @in2, offset = 0>, multicast
// One K tile: no loop, no accumulation.
// CHECK-NEXT: spyre.pt_matmul {dst = #spyre.lx<offset = [[ACC:[0-9]+]]>, dst_type = f32, k = 256 : i64, lhs = #spyre.lx<offset = 0>, lhs_type = f16, m = 32 : i64, n = 128 : i64, pitch = array<i64: 512, 512, 256>, rhs = #spyre.lx<offset = 16384>, rhs_type = f16}
// The epilogue reads the fp32 accumulator and the bias row (pitch 0).
// CHECK-NEXT: spyre.sfp_binary "add" {cols = 128 : i64, dst = #spyre.lx<offset = [[T0:[0-9]+]]>, dst_type = f16, pitch = array<i64: 256, 512, 0>, rows = 32 : i64, src0 = #spyre.lx<offset = [[ACC]]>, src0_type = f32, src1 = #spyre.lx<offset = 81920>, src1_type = f16}
// CHECK-NEXT: spyre.sfp_unary "relu" {{.*}}src0 = #spyre.lx<offset = [[T0]]>
// CHECK-NEXT: spyre.dma_store {box = array<i64: 32, 1, 1>, clamp = #spyre.clamp<level = -1, arg = 0, step = 32, total = 100, param = 1>, {{.*}}mem = #spyre.mem<tensor = @t_k0_matmul, offset = 0, param = 2>
// CHECK-NEXT: {{^ *\}$}}
//
// CHECK: spyre.program @k1_unary attributes {estimate_ns = {{[0-9]+}} : i64, kernel = "k1_unary", lx_bytes = {{[0-9]+}} : i64, macs = 0 : i64, min_bytes = {{[0-9]+}} : i64, min_written_bytes = {{[0-9]+}} : i64, num_cores = 4 : i64, num_params = 5 : i64,
// CHECK-SAME: params = array<i64: 0, 0, 0, 4096, 16, 4096, 16, 1, 8192, 32, 12288, 48, 1, 16384, 64, 20480, 80, 1, 24576, 96>, schedule = #spyre.schedule<split = [4, 1], tile = [16, 128], depth = 2, cost_ns = {{[0-9]+}}>}
// Depth 2: tile t uses copy t mod 2 of the input and result buffers, and
// tile 1's load is issued before tile 0's compute and store. No core has
// three tiles, so there is no steady-state loop: tile 0 is loaded, then
// the cores that own a tile 1 (core 0 does not: a loop running P(2) = 0
// or 1 times) load it into copy 1; tile 0 is computed and stored; then
// the same cores compute and store tile 1. Per-core parameters: [offset
// and first row of tile 0, has a tile 1, offset and first row of tile 1].
// CHECK-NEXT: spyre.dma_load {box = array<i64: 16, 1, 1>, clamp = #spyre.clamp<level = -1, arg = 0, step = 16, total = 100, param = 1>, lx = #spyre.lx<offset = 0>, mem = #spyre.mem<tensor = @t_k0_matmul, offset = 0, param = 0>
// CHECK-NEXT: spyre.loop 0 attributes {count_param = 2 : i64} {
// CHECK-NEXT: spyre.dma_load {box = array<i64: 16, 1, 1>, clamp = #spyre.clamp<level = -1, arg = 0, step = 16, total = 100, param = 4>, lx = #spyre.lx<offset = 4096>, mem = #spyre.mem<tensor = @t_k0_matmul, offset = 0, strides = [0], param = 3>
// CHECK-NEXT: {{^ *\}$}}
// CHECK-NEXT: spyre.sfp_unary "exp" {{.*}}src0 = #spyre.lx<offset = 0>
// CHECK-NEXT: spyre.sfp_binary "mul" {{.*}}dst = #spyre.lx<offset = 12288>
// CHECK-NEXT: spyre.dma_store {{.*}}lx = #spyre.lx<offset = 12288>, mem = #spyre.mem<tensor = @out0, offset = 0, param = 0>
// CHECK-NEXT: spyre.loop 0 attributes {count_param = 2 : i64} {
// CHECK-NEXT: spyre.sfp_unary "exp" {{.*}}src0 = #spyre.lx<offset = 4096>
// CHECK-NEXT: spyre.sfp_binary "mul" {{.*}}dst = #spyre.lx<offset = 16384>
// CHECK-NEXT: spyre.dma_store {{.*}}lx = #spyre.lx<offset = 16384>, mem = #spyre.mem<tensor = @out0, offset = 0, strides = [0], param = 3>
// CHECK-NEXT: {{^ *\}$}}
// CHECK-NEXT: {{^ *\}$}}
// What the program computes, for spyre-run --check: the kernel's compute
// ops on its whole inputs, named by their tensors.
// CHECK-NEXT: spyre.reference @k1_unary [@t_k0_matmul] -> [@out0] {
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<100x128xf16, #{{.*}}>):
// CHECK-NEXT: %[[E:.*]] = spyre.unary exp %[[X]]
// CHECK-NEXT: %[[M:.*]] = spyre.binary mul %[[E]], %[[X]]
// CHECK-NEXT: spyre.yield %[[M]]
// CHECK-NEXT: {{^ *\}$}}
// CHECK-NEXT: spyre.plan [@k0_matmul, @k1_unary]
#layout = #spyre.layout<stick_dim = 1, stick_elems = 64>
#layout1 = #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>
#layout2 = #spyre.layout<stick_dim = 0, stick_elems = 64>
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d1)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map4 = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @main(%arg0: tensor<100x256xf16, #layout>, %arg1: tensor<128x256xf16, #layout1>, %arg2: tensor<128xf16, #layout2>) -> tensor<100x128xf16, #layout> attributes {spyre.workspace_bytes = 25600 : i64} {
    %0 = spyre.kernel "k0_matmul"(%arg0, %arg1, %arg2) {buffers = [#spyre.buffer<name = "in0", offset = 0, bytes = 16384, copies = 1>, #spyre.buffer<name = "in1", offset = 16384, bytes = 65536, copies = 1>, #spyre.buffer<name = "in2", offset = 81920, bytes = 256, copies = 1>, #spyre.buffer<name = "acc", offset = 82176, bytes = 16384, copies = 1, live = [0, 1]>, #spyre.buffer<name = "t0", offset = 98560, bytes = 8192, copies = 1, live = [1, 2]>, #spyre.buffer<name = "t1", offset = 106752, bytes = 8192, copies = 1>], indexing_maps = [#map, #map1, #map2, #map3], iterators = ["parallel", "parallel", "reduction"], result_offsets = array<i64: 0>, schedule = #spyre.schedule<split = [4, 1, 1], tile = [32, 128, 256], depth = 2, cost_ns = 2650>, space = array<i64: 100, 128, 256>} : (tensor<100x256xf16, #layout>, tensor<128x256xf16, #layout1>, tensor<128xf16, #layout2>) -> tensor<100x128xf16, #layout> {
    ^bb0(%arg3: tensor<100x256xf16, #layout>, %arg4: tensor<128x256xf16, #layout1>, %arg5: tensor<128xf16, #layout2>):
      %2 = spyre.matmul %arg3, %arg4 {transpose_rhs} : tensor<100x256xf16, #layout>, tensor<128x256xf16, #layout1> -> tensor<100x128xf16, #layout>
      %3 = spyre.binary add %2, %arg5 : tensor<100x128xf16, #layout>, tensor<128xf16, #layout2> -> tensor<100x128xf16, #layout>
      %4 = spyre.unary relu %3 : tensor<100x128xf16, #layout> -> tensor<100x128xf16, #layout>
      spyre.yield %4 : tensor<100x128xf16, #layout>
    }
    %1 = spyre.kernel "k1_unary"(%0) {buffers = [#spyre.buffer<name = "in0", offset = 0, bytes = 4096, copies = 2>, #spyre.buffer<name = "t0", offset = 8192, bytes = 4096, copies = 1, live = [0, 1]>, #spyre.buffer<name = "t1", offset = 12288, bytes = 4096, copies = 2>], indexing_maps = [#map4, #map4], iterators = ["parallel", "parallel"], result_offsets = array<i64: -1>, schedule = #spyre.schedule<split = [4, 1], tile = [16, 128], depth = 2, cost_ns = 729>, space = array<i64: 100, 128>} : (tensor<100x128xf16, #layout>) -> tensor<100x128xf16, #layout> {
    ^bb0(%arg3: tensor<100x128xf16, #layout>):
      %2 = spyre.unary exp %arg3 : tensor<100x128xf16, #layout> -> tensor<100x128xf16, #layout>
      %3 = spyre.binary mul %2, %arg3 : tensor<100x128xf16, #layout>, tensor<100x128xf16, #layout> -> tensor<100x128xf16, #layout>
      spyre.yield %3 : tensor<100x128xf16, #layout>
    }
    return %1 : tensor<100x128xf16, #layout>
  }
}


// -----

// A double-buffered elementwise kernel, exp over 8 tiles of 8 rows on one
// core, software-pipelined: the DMA queue of a core is in order, so the
// load of tile t+1 is issued before the compute and the store of tile t
// (which waits for that compute); LX interlocks keep the copies apart. Tile
// t lives in copy t mod 2 of the input (offset 0 / 1024) and result (2048 /
// 3072) buffers. A rotating address cannot name the next iteration's copy,
// so one iteration of the loop runs two tiles with fixed copies: (8-1)/2 = 3
// rounds cover tiles 0-5 and load up to tile 6; tiles 6 and 7 follow it.
// Per-core parameters: the device offsets of tiles 1 (the loop's odd
// tiles), 2 (its next even tile), 7 and 6.
// CHECK-LABEL: spyre.program @k0_exp
// CHECK-SAME: params = array<i64: 1024, 2048, 7168, 6144>
// CHECK-NEXT: spyre.dma_load {{.*}}lx = #spyre.lx<offset = 0>, mem = #spyre.mem<tensor = @in0, offset = 0>
// CHECK-NEXT: spyre.loop 3 {
// CHECK-NEXT: spyre.dma_load {{.*}}lx = #spyre.lx<offset = 1024>, mem = #spyre.mem<tensor = @in0, offset = 0, strides = [2048], param = 0>
// CHECK-NEXT: spyre.sfp_unary "exp" {{.*}}dst = #spyre.lx<offset = 2048>{{.*}}src0 = #spyre.lx<offset = 0>
// CHECK-NEXT: spyre.dma_store {{.*}}lx = #spyre.lx<offset = 2048>, mem = #spyre.mem<tensor = @out0, offset = 0, strides = [2048]>
// CHECK-NEXT: spyre.dma_load {{.*}}lx = #spyre.lx<offset = 0>, mem = #spyre.mem<tensor = @in0, offset = 0, strides = [2048], param = 1>
// CHECK-NEXT: spyre.sfp_unary "exp" {{.*}}dst = #spyre.lx<offset = 3072>{{.*}}src0 = #spyre.lx<offset = 1024>
// CHECK-NEXT: spyre.dma_store {{.*}}lx = #spyre.lx<offset = 3072>, mem = #spyre.mem<tensor = @out0, offset = 0, strides = [2048], param = 0>
// CHECK-NEXT: {{^ *\}$}}
// CHECK-NEXT: spyre.dma_load {{.*}}lx = #spyre.lx<offset = 1024>, mem = #spyre.mem<tensor = @in0, offset = 0, param = 2>
// CHECK-NEXT: spyre.sfp_unary "exp" {{.*}}dst = #spyre.lx<offset = 2048>{{.*}}src0 = #spyre.lx<offset = 0>
// CHECK-NEXT: spyre.dma_store {{.*}}lx = #spyre.lx<offset = 2048>, mem = #spyre.mem<tensor = @out0, offset = 0, param = 3>
// CHECK-NEXT: spyre.sfp_unary "exp" {{.*}}dst = #spyre.lx<offset = 3072>{{.*}}src0 = #spyre.lx<offset = 1024>
// CHECK-NEXT: spyre.dma_store {{.*}}lx = #spyre.lx<offset = 3072>, mem = #spyre.mem<tensor = @out0, offset = 0, param = 2>
// CHECK-NEXT: {{^ *\}$}}
#layout = #spyre.layout<stick_dim = 1, stick_elems = 32>
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%arg0: tensor<64x32xf32, #layout>) -> tensor<64x32xf32, #layout> attributes {spyre.workspace_bytes = 0 : i64} {
  %0 = spyre.kernel "k0_exp"(%arg0) {buffers = [#spyre.buffer<name = "in0", offset = 0, bytes = 1024, copies = 2>, #spyre.buffer<name = "t0", offset = 2048, bytes = 1024, copies = 2>], indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], result_offsets = array<i64: -1>, schedule = #spyre.schedule<split = [1, 1], tile = [8, 32], depth = 2, cost_ns = 0>, space = array<i64: 64, 32>} : (tensor<64x32xf32, #layout>) -> tensor<64x32xf32, #layout> {
  ^bb0(%arg1: tensor<64x32xf32, #layout>):
    %1 = spyre.unary exp %arg1 : tensor<64x32xf32, #layout> -> tensor<64x32xf32, #layout>
    spyre.yield %1 : tensor<64x32xf32, #layout>
  }
  return %0 : tensor<64x32xf32, #layout>
}

// -----

// The same kernel with depth 1 (one copy of each buffer, the baseline): no
// pipelining, each tile is loaded, computed and stored in turn.
// CHECK-LABEL: spyre.program @k0_exp
// CHECK-SAME: num_params = 0
// CHECK-NEXT: spyre.loop 8 {
// CHECK-NEXT: spyre.dma_load {{.*}}lx = #spyre.lx<offset = 0>, mem = #spyre.mem<tensor = @in0, offset = 0, strides = [1024]>
// CHECK-NEXT: spyre.sfp_unary "exp" {{.*}}dst = #spyre.lx<offset = 1024>{{.*}}src0 = #spyre.lx<offset = 0>
// CHECK-NEXT: spyre.dma_store {{.*}}lx = #spyre.lx<offset = 1024>, mem = #spyre.mem<tensor = @out0, offset = 0, strides = [1024]>
// CHECK-NEXT: {{^ *\}$}}
// CHECK-NEXT: {{^ *\}$}}
#layout = #spyre.layout<stick_dim = 1, stick_elems = 32>
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%arg0: tensor<64x32xf32, #layout>) -> tensor<64x32xf32, #layout> attributes {spyre.workspace_bytes = 0 : i64} {
  %0 = spyre.kernel "k0_exp"(%arg0) {buffers = [#spyre.buffer<name = "in0", offset = 0, bytes = 1024, copies = 1>, #spyre.buffer<name = "t0", offset = 1024, bytes = 1024, copies = 1>], indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], result_offsets = array<i64: -1>, schedule = #spyre.schedule<split = [1, 1], tile = [8, 32], depth = 1, cost_ns = 0>, space = array<i64: 64, 32>} : (tensor<64x32xf32, #layout>) -> tensor<64x32xf32, #layout> {
  ^bb0(%arg1: tensor<64x32xf32, #layout>):
    %1 = spyre.unary exp %arg1 : tensor<64x32xf32, #layout> -> tensor<64x32xf32, #layout>
    spyre.yield %1 : tensor<64x32xf32, #layout>
  }
  return %0 : tensor<64x32xf32, #layout>
}

// -----

// An fp32 matmul whose accumulator is stored as the result (two copies at
// depth 2), with k streamed over 2 tiles: the inputs rotate with the k
// loop, the accumulator with the row loop around it, so all the k steps
// of a tile accumulate into one copy, the one that tile's store reads.
// CHECK-LABEL: spyre.program @k0_mm
// CHECK-NEXT: spyre.loop 2 {
// CHECK-NEXT: spyre.loop 2 {
// CHECK-NEXT: spyre.dma_load {{.*}}lx = #spyre.lx<offset = 0, strides = [0, 1024], wrap = 2048>
// CHECK-NEXT: spyre.dma_load {{.*}}lx = #spyre.lx<offset = 2048, strides = [0, 4096], wrap = 8192>
// CHECK-NEXT: spyre.pt_matmul {accumulate, dst = #spyre.lx<offset = 10240, strides = [1024], wrap = 2048>
// CHECK-NEXT: {{^ *\}$}}
// CHECK-NEXT: spyre.dma_store {{.*}}lx = #spyre.lx<offset = 10240, strides = [1024], wrap = 2048>
#row = #spyre.layout<stick_dim = 1, stick_elems = 32>
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @main(%a: tensor<16x64xf32, #row>, %b: tensor<64x32xf32, #row>) -> tensor<16x32xf32, #row> attributes {spyre.workspace_bytes = 0 : i64} {
  %0 = spyre.kernel "k0_mm"(%a, %b) {buffers = [#spyre.buffer<name = "in0", offset = 0, bytes = 1024, copies = 2>, #spyre.buffer<name = "in1", offset = 2048, bytes = 4096, copies = 2>, #spyre.buffer<name = "acc", offset = 10240, bytes = 1024, copies = 2>], indexing_maps = [#map, #map1, #map2], iterators = ["parallel", "parallel", "reduction"], result_offsets = array<i64: -1>, schedule = #spyre.schedule<split = [1, 1, 1], tile = [8, 32, 32], depth = 2, cost_ns = 0>, space = array<i64: 16, 32, 64>} : (tensor<16x64xf32, #row>, tensor<64x32xf32, #row>) -> tensor<16x32xf32, #row> {
  ^bb0(%x: tensor<16x64xf32, #row>, %y: tensor<64x32xf32, #row>):
    %1 = spyre.matmul %x, %y : tensor<16x64xf32, #row>, tensor<64x32xf32, #row> -> tensor<16x32xf32, #row>
    spyre.yield %1 : tensor<16x32xf32, #row>
  }
  return %0 : tensor<16x32xf32, #row>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 32>
#map = affine_map<(d0, d1) -> (d0, d1)>

func.func @unallocated(%x: tensor<8x32xf32, #row>) -> tensor<8x32xf32, #row> {
  // expected-error @+1 {{kernel is not allocated; run spyre-allocate-scratchpad first}}
  %0 = spyre.kernel "k"(%x) {indexing_maps = [#map, #map], iterators = ["parallel", "parallel"], space = array<i64: 8, 32>, schedule = #spyre.schedule<split = [1, 1], tile = [8, 32], depth = 1, cost_ns = 0>} : (tensor<8x32xf32, #row>) -> tensor<8x32xf32, #row> {
  ^bb0(%a: tensor<8x32xf32, #row>):
    %r = spyre.unary exp %a : tensor<8x32xf32, #row> -> tensor<8x32xf32, #row>
    spyre.yield %r : tensor<8x32xf32, #row>
  }
  return %0 : tensor<8x32xf32, #row>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 32>

// expected-error @+1 {{output 0 is not computed by a kernel (it is an input, a weight or a constant); copying it is not supported yet}}
func.func @identity(%x: tensor<8x32xf32, #row>) -> tensor<8x32xf32, #row> {
  return %x : tensor<8x32xf32, #row>
}

// -----

// A gated MLP kernel (two matmuls of one lhs, spyre-form-kernels) whose K
// runs in 4 tiles: the schedule holds the lhs whole along K (`hold = [0]`),
// loaded once before the loops, and each k step's two matmuls read its
// next 64 columns (the address advances 128 bytes per k iteration, at the
// whole row's pitch of 512); each weight streams through its own rotating
// buffer into its own accumulator ("acc", "acc1"); the epilogue reads
// both.
// CHECK-LABEL: spyre.program @k_gated
// CHECK-NEXT: spyre.dma_load {box = array<i64: 64, 1, 1>, lx = #spyre.lx<offset = 0>, mem = #spyre.mem<tensor = @in0, offset = 0>, pitch = array<i64: 512, 0, 0>, run = 512 : i64}
// CHECK-NEXT: spyre.loop 2 {
// CHECK-NEXT: spyre.loop 4 {
// CHECK-NEXT: spyre.dma_load {{.*}}mem = #spyre.mem<tensor = @in1
// CHECK-NEXT: spyre.dma_load {{.*}}mem = #spyre.mem<tensor = @in2
// CHECK-NEXT: spyre.pt_matmul {accumulate, dst = #spyre.lx<offset = [[ACC:[0-9]+]]>, {{.*}}lhs = #spyre.lx<offset = 0, strides = [0, 128]>, {{.*}}pitch = array<i64: 256, 512, 128>, rhs = #spyre.lx<offset = [[IN1:[0-9]+]], strides = [0, 8192], wrap = 16384>
// CHECK-NEXT: spyre.pt_matmul {accumulate, dst = #spyre.lx<offset = [[ACC1:[0-9]+]]>, {{.*}}lhs = #spyre.lx<offset = 0, strides = [0, 128]>, {{.*}}pitch = array<i64: 256, 512, 128>, rhs = #spyre.lx<offset = [[IN2:[0-9]+]], strides = [0, 8192], wrap = 16384>
// CHECK-NEXT: {{^ *\}$}}
// CHECK-NEXT: spyre.sfp_unary "silu" {{.*}}src0 = #spyre.lx<offset = [[ACC1]]>
// CHECK-NEXT: spyre.sfp_binary "mul" {{.*}}src1 = #spyre.lx<offset = [[ACC]]>
// CHECK-NEXT: spyre.dma_store
#layout = #spyre.layout<stick_dim = 1, stick_elems = 64>
#layout1 = #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @gated(%arg0: tensor<64x256xf16, #layout>, %arg1: tensor<128x256xf16, #layout1>, %arg2: tensor<128x256xf16, #layout1>) -> tensor<64x128xf16, #layout> attributes {spyre.workspace_bytes = 0 : i64} {
  %0 = spyre.kernel "k_gated"(%arg0, %arg1, %arg2) {buffers = [#spyre.buffer<name = "in0", offset = 0, bytes = 32768, copies = 1>, #spyre.buffer<name = "in1", offset = 32768, bytes = 8192, copies = 2>, #spyre.buffer<name = "in2", offset = 49152, bytes = 8192, copies = 2>, #spyre.buffer<name = "acc", offset = 65536, bytes = 16384, copies = 1, live = [0, 3]>, #spyre.buffer<name = "acc1", offset = 81920, bytes = 16384, copies = 1, live = [1, 2]>, #spyre.buffer<name = "t0", offset = 98304, bytes = 8192, copies = 1, live = [2, 3]>, #spyre.buffer<name = "t1", offset = 106496, bytes = 8192, copies = 2>], indexing_maps = [#map, #map1, #map1, #map2], iterators = ["parallel", "parallel", "reduction"], result_offsets = array<i64: -1>, schedule = #spyre.schedule<split = [1, 1, 1], tile = [64, 64, 64], depth = 2, cost_ns = 0, hold = [0]>, space = array<i64: 64, 128, 256>} : (tensor<64x256xf16, #layout>, tensor<128x256xf16, #layout1>, tensor<128x256xf16, #layout1>) -> tensor<64x128xf16, #layout> {
  ^bb0(%arg3: tensor<64x256xf16, #layout>, %arg4: tensor<128x256xf16, #layout1>, %arg5: tensor<128x256xf16, #layout1>):
    %1 = spyre.matmul %arg3, %arg4 {transpose_rhs} : tensor<64x256xf16, #layout>, tensor<128x256xf16, #layout1> -> tensor<64x128xf16, #layout>
    %2 = spyre.matmul %arg3, %arg5 {transpose_rhs} : tensor<64x256xf16, #layout>, tensor<128x256xf16, #layout1> -> tensor<64x128xf16, #layout>
    %3 = spyre.unary silu %2 : tensor<64x128xf16, #layout> -> tensor<64x128xf16, #layout>
    %4 = spyre.binary mul %3, %1 : tensor<64x128xf16, #layout>, tensor<64x128xf16, #layout> -> tensor<64x128xf16, #layout>
    spyre.yield %4 : tensor<64x128xf16, #layout>
  }
  return %0 : tensor<64x128xf16, #layout>
}
