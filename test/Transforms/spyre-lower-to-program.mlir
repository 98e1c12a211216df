// RUN: spyre-opt %s --spyre-lower-to-program --split-input-file --verify-diagnostics | FileCheck %s

// Two allocated kernels on 4 cores: a 100x256 @ 256x128 matmul with bias and
// relu (rows split in 32-row tiles, the last one clamped at row 100), then
// exp(x) * x over 16-row tiles (cores own 1 or 2 tiles: a per-core trip
// count).
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
// The cost model's estimate and the roofline inputs ride along.
// CHECK: spyre.program @k0_matmul attributes {estimate_ns = {{[0-9]+}} : i64, kernel = "k0_matmul", macs = 3276800 : i64, min_bytes = 142592 : i64, num_cores = 4 : i64, num_params = 3 : i64,
// CHECK-SAME: params = array<i64: 0, 0, 0, 16384, 32, 8192, 32768, 64, 16384, 49152, 96, 24576>}
// The activation rows are clamped at the edge; the weight and the bias are
// the same for every core: one multicast read each.
// CHECK-NEXT: spyre.dma_load {box = array<i64: 32, 1, 1>, clamp = #spyre.clamp<level = 0, arg = 0, step = 32, total = 100, param = 1>, lx = #spyre.lx<offset = 0>, mem = #spyre.mem<tensor = @in0, offset = 0, param = 0>, pitch = array<i64: 512, 0, 0>, run = 512 : i64}
// CHECK-NEXT: spyre.dma_load {{.*}}mem = #spyre.mem<tensor = @in1, offset = 0>, multicast
// CHECK-NEXT: spyre.dma_load {{.*}}mem = #spyre.mem<tensor = @in2, offset = 0>, multicast
// One K tile: no loop, no accumulation.
// CHECK-NEXT: spyre.pt_matmul {dst = #spyre.lx<offset = [[ACC:[0-9]+]]>, dst_type = f32, k = 256 : i64, lhs = #spyre.lx<offset = 0>, lhs_type = f16, m = 32 : i64, n = 128 : i64, pitch = array<i64: 512, 512, 256>, rhs = #spyre.lx<offset = 16384>, rhs_type = f16}
// The epilogue reads the fp32 accumulator and the bias row (pitch 0).
// CHECK-NEXT: spyre.sfp_binary "add" {cols = 128 : i64, dst = #spyre.lx<offset = [[T0:[0-9]+]]>, dst_type = f16, pitch = array<i64: 256, 512, 0>, rows = 32 : i64, src0 = #spyre.lx<offset = [[ACC]]>, src0_type = f32, src1 = #spyre.lx<offset = 81920>, src1_type = f16}
// CHECK-NEXT: spyre.sfp_unary "relu" {{.*}}src0 = #spyre.lx<offset = [[T0]]>
// CHECK-NEXT: spyre.dma_store {box = array<i64: 32, 1, 1>, clamp = #spyre.clamp<level = 0, arg = 0, step = 32, total = 100, param = 1>, {{.*}}mem = #spyre.mem<tensor = @t_k0_matmul, offset = 0, param = 2>
// CHECK-NEXT: {{^ *\}$}}
//
// CHECK: spyre.program @k1_unary attributes {estimate_ns = {{[0-9]+}} : i64, kernel = "k1_unary", macs = 0 : i64, min_bytes = {{[0-9]+}} : i64, num_cores = 4 : i64, num_params = 3 : i64,
// CHECK-SAME: params = array<i64: 1, 0, 0, 2, 4096, 16, 2, 12288, 48, 2, 20480, 80>}
// CHECK-NEXT: spyre.loop 1 attributes {count_param = 0 : i64} {
// Input and result tiles rotate through two buffers (double buffering).
// CHECK-NEXT: spyre.dma_load {box = array<i64: 16, 1, 1>, clamp = #spyre.clamp<level = 0, arg = 0, step = 16, total = 100, param = 2>, lx = #spyre.lx<offset = 0, strides = [4096], wrap = 8192>, mem = #spyre.mem<tensor = @t_k0_matmul, offset = 0, strides = [4096], param = 1>
// CHECK-NEXT: spyre.sfp_unary "exp"
// CHECK-NEXT: spyre.sfp_binary "mul"
// CHECK-NEXT: spyre.dma_store {{.*}}mem = #spyre.mem<tensor = @out0, offset = 0, strides = [4096], param = 1>
// CHECK-NEXT: {{^ *\}$}}
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
