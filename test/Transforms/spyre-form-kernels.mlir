// RUN: spyre-opt %s --spyre-form-kernels --split-input-file | FileCheck %s
// RUN: spyre-opt %s --spyre-form-kernels=fusion=false --split-input-file | FileCheck %s --check-prefix=UNFUSED
// RUN: spyre-opt %s --spyre-form-kernels=leave-permutes=false --split-input-file | FileCheck %s --check-prefix=NOPERM

#row = #spyre.layout<stick_dim = 1, stick_elems = 64>
#kmaj = #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>
#vec = #spyre.layout<stick_dim = 0, stick_elems = 64>

// The elementwise tail of a matmul (bias, activation) joins its kernel; the
// loop nest is (m, n, k) and the bias is read along n.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[BIAS:.*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @matmul_epilogue
// CHECK: %[[K:.*]] = spyre.kernel "k0_matmul"(%arg0, %arg1, %arg2)
// CHECK-SAME: indexing_maps = [#[[A]], #[[B]], #[[BIAS]], #[[C]]]
// CHECK-SAME: iterators = ["parallel", "parallel", "reduction"]
// CHECK-SAME: space = array<i64: 64, 1024, 256>
// CHECK-NEXT: ^bb0(%[[X:.*]]: {{.*}}, %[[W:.*]]: {{.*}}, %[[BB:.*]]: {{.*}}):
// CHECK-NEXT: %[[MM:.*]] = spyre.matmul %[[X]], %[[W]] {transpose_rhs}
// CHECK-NEXT: %[[ADD:.*]] = spyre.binary add %[[MM]], %[[BB]]
// CHECK-NEXT: %[[G:.*]] = spyre.unary gelu %[[ADD]]
// CHECK-NEXT: spyre.yield %[[G]]
// CHECK: return %[[K]]
// Without fusion (the baseline of bench/perf) each op is its own kernel.
// UNFUSED-LABEL: func.func @matmul_epilogue
// UNFUSED: %[[MM:.*]] = spyre.kernel "k0_matmul"(%arg0, %arg1)
// UNFUSED: %[[ADD:.*]] = spyre.kernel "k1_binary"(%[[MM]], %arg2)
// UNFUSED: %[[G:.*]] = spyre.kernel "k2_unary"(%[[ADD]])
// UNFUSED: return %[[G]]
func.func @matmul_epilogue(%x: tensor<64x256xf16, #row>, %w: tensor<1024x256xf16, #kmaj>, %b: tensor<1024xf16, #vec>) -> tensor<64x1024xf16, #row> {
  %0 = spyre.matmul %x, %w {transpose_rhs} : tensor<64x256xf16, #row>, tensor<1024x256xf16, #kmaj> -> tensor<64x1024xf16, #row>
  %1 = spyre.binary add %0, %b : tensor<64x1024xf16, #row>, tensor<1024xf16, #vec> -> tensor<64x1024xf16, #row>
  %2 = spyre.unary gelu %1 : tensor<64x1024xf16, #row> -> tensor<64x1024xf16, #row>
  return %2 : tensor<64x1024xf16, #row>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 32>

// An intermediate with two users stays in LX when both users join the
// kernel; one that is also returned stays a result of the kernel too.
// CHECK-LABEL: func.func @multi_use
// CHECK: %[[K:.*]]:2 = spyre.kernel "k0_unary"(%arg0)
// CHECK-NEXT: ^bb0(%[[X:.*]]: {{.*}}):
// CHECK-NEXT: %[[E:.*]] = spyre.unary exp %[[X]]
// CHECK-NEXT: %[[M:.*]] = spyre.binary mul %[[E]], %[[E]]
// CHECK-NEXT: %[[R:.*]] = spyre.unary relu %[[M]]
// CHECK-NEXT: spyre.yield %[[E]], %[[R]]
// CHECK: return %[[K]]#1, %[[K]]#0
func.func @multi_use(%x: tensor<63x65xf32, #row>) -> (tensor<63x65xf32, #row>, tensor<63x65xf32, #row>) {
  %e = spyre.unary exp %x : tensor<63x65xf32, #row> -> tensor<63x65xf32, #row>
  %m = spyre.binary mul %e, %e : tensor<63x65xf32, #row>, tensor<63x65xf32, #row> -> tensor<63x65xf32, #row>
  %r = spyre.unary relu %m : tensor<63x65xf32, #row> -> tensor<63x65xf32, #row>
  return %r, %e : tensor<63x65xf32, #row>, tensor<63x65xf32, #row>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 32>
#vec = #spyre.layout<stick_dim = 0, stick_elems = 32>

// An elementwise op that broadcasts its operand to a bigger shape is not
// fused into that operand's kernel (the tile shapes differ); the operand's
// elementwise kernel, read by nothing else, is computed inside it instead.
// CHECK-LABEL: func.func @no_fuse_broadcast
// CHECK: spyre.kernel "k1_binary"(%arg0, %arg1)
// CHECK-NEXT: ^bb0(%[[X:.*]]: {{.*}}, %[[V:.*]]: {{.*}}):
// CHECK-NEXT: %[[N:.*]] = spyre.unary neg %[[V]]
// CHECK-NEXT: spyre.binary add %[[X]], %[[N]]
// CHECK-NOT: spyre.kernel
// UNFUSED-LABEL: func.func @no_fuse_broadcast
// UNFUSED: spyre.kernel "k0_unary"
// UNFUSED: spyre.kernel "k1_binary"
func.func @no_fuse_broadcast(%x: tensor<8x32xf32, #row>, %v: tensor<32xf32, #vec>) -> tensor<8x32xf32, #row> {
  %n = spyre.unary neg %v : tensor<32xf32, #vec> -> tensor<32xf32, #vec>
  %a = spyre.binary add %x, %n : tensor<8x32xf32, #row>, tensor<32xf32, #vec> -> tensor<8x32xf32, #row>
  return %a : tensor<8x32xf32, #row>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 64>

// RoPE's shape: x * c + (x @ w) * s. The add joins the matmul's kernel
// (its epilogue); the elementwise x * c, read by nothing else, is then
// computed in that epilogue from x (a second read, through the result's
// map) and c, after the accumulation: one kernel, no intermediate stored.
// CHECK-LABEL: func.func @inline_into_epilogue
// CHECK: %[[K:.*]] = spyre.kernel "k1_matmul"(%arg0, %arg1, %arg3, %arg0, %arg2)
// CHECK-SAME: indexing_maps = [#[[LHS:.*]], #[[RHS:.*]], #[[OUT:.*]], #[[OUT]], #[[OUT]], #[[OUT]]]
// CHECK-NEXT: ^bb0(%[[X:.*]]: {{.*}}, %[[W:.*]]: {{.*}}, %[[S:.*]]: {{.*}}, %[[X2:.*]]: {{.*}}, %[[C:.*]]: {{.*}}):
// CHECK-NEXT: %[[M:.*]] = spyre.matmul %[[X]], %[[W]]
// CHECK-NEXT: %[[MS:.*]] = spyre.binary mul %[[M]], %[[S]]
// CHECK-NEXT: %[[XC:.*]] = spyre.binary mul %[[X2]], %[[C]]
// CHECK-NEXT: spyre.binary add %[[XC]], %[[MS]]
// CHECK-NOT: spyre.kernel
// CHECK: return %[[K]]
func.func @inline_into_epilogue(%x: tensor<64x64xf16, #row>, %w: tensor<64x64xf16, #row>, %c: tensor<64x64xf16, #row>, %s: tensor<64x64xf16, #row>) -> tensor<64x64xf16, #row> {
  %xc = spyre.binary mul %x, %c : tensor<64x64xf16, #row>, tensor<64x64xf16, #row> -> tensor<64x64xf16, #row>
  %m = spyre.matmul %x, %w : tensor<64x64xf16, #row>, tensor<64x64xf16, #row> -> tensor<64x64xf16, #row>
  %ms = spyre.binary mul %m, %s : tensor<64x64xf16, #row>, tensor<64x64xf16, #row> -> tensor<64x64xf16, #row>
  %r = spyre.binary add %xc, %ms : tensor<64x64xf16, #row>, tensor<64x64xf16, #row> -> tensor<64x64xf16, #row>
  return %r : tensor<64x64xf16, #row>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 64>

// An elementwise kernel read as a matmul operand (the matmul would
// recompute it for every tile of the other side) or by two kernels stays
// a kernel of its own.
// CHECK-LABEL: func.func @not_inlined
// CHECK: %[[N:.*]] = spyre.kernel "k0_unary"(%arg0)
// CHECK: spyre.kernel "k1_matmul"(%[[N]], %arg1)
// CHECK: %[[E:.*]] = spyre.kernel "k2_unary"(%arg0)
// CHECK: spyre.kernel "k3_matmul"(%arg0, %arg1, %[[E]])
// CHECK: spyre.kernel "k4_matmul"(%arg1, %arg0, %[[E]])
func.func @not_inlined(%x: tensor<64x64xf16, #row>, %w: tensor<64x64xf16, #row>) -> (tensor<64x64xf16, #row>, tensor<64x64xf16, #row>, tensor<64x64xf16, #row>) {
  %n = spyre.unary neg %x : tensor<64x64xf16, #row> -> tensor<64x64xf16, #row>
  %m = spyre.matmul %n, %w : tensor<64x64xf16, #row>, tensor<64x64xf16, #row> -> tensor<64x64xf16, #row>
  %e = spyre.unary exp %x : tensor<64x64xf16, #row> -> tensor<64x64xf16, #row>
  %m1 = spyre.matmul %x, %w : tensor<64x64xf16, #row>, tensor<64x64xf16, #row> -> tensor<64x64xf16, #row>
  %a = spyre.binary add %m1, %e : tensor<64x64xf16, #row>, tensor<64x64xf16, #row> -> tensor<64x64xf16, #row>
  %m2 = spyre.matmul %w, %x : tensor<64x64xf16, #row>, tensor<64x64xf16, #row> -> tensor<64x64xf16, #row>
  %b = spyre.binary add %m2, %e : tensor<64x64xf16, #row>, tensor<64x64xf16, #row> -> tensor<64x64xf16, #row>
  return %m, %a, %b : tensor<64x64xf16, #row>, tensor<64x64xf16, #row>, tensor<64x64xf16, #row>
}

// -----

#l3 = #spyre.layout<stick_dim = 2, stick_elems = 64>

// A transpose that keeps the stick dim stays a kernel that only permutes
// (leave-permutes, the default): spyre-reorder-on-chip folds it into a
// neighbour. With leave-permutes=false its consumer joins it.
// CHECK-LABEL: func.func @leave_permutes
// CHECK: %[[T:.*]] = spyre.kernel "k0_transpose"(%arg0)
// CHECK: spyre.kernel "k1_unary"(%[[T]])
// NOPERM-LABEL: func.func @leave_permutes
// NOPERM: %[[K:.*]] = spyre.kernel "k0_transpose"(%arg0)
// NOPERM: spyre.transpose
// NOPERM-NEXT: spyre.unary exp
// NOPERM-NEXT: spyre.yield
// NOPERM-NEXT: }
// NOPERM-NEXT: return %[[K]]
func.func @leave_permutes(%x: tensor<4x8x64xf16, #l3>) -> tensor<8x4x64xf16, #l3> {
  %t = spyre.transpose %x [1, 0, 2] : tensor<4x8x64xf16, #l3> -> tensor<8x4x64xf16, #l3>
  %e = spyre.unary exp %t : tensor<8x4x64xf16, #l3> -> tensor<8x4x64xf16, #l3>
  return %e : tensor<8x4x64xf16, #l3>
}

// -----

#r2 = #spyre.layout<stick_dim = 1, stick_elems = 32>
#r3 = #spyre.layout<stick_dim = 2, stick_elems = 32>

// A reshape of the outer dims is a view and stays outside kernels.
// CHECK-LABEL: func.func @view
// CHECK: %[[K:.*]] = spyre.kernel "k0_unary"
// CHECK: %[[V:.*]] = spyre.reshape %[[K]]
// CHECK: spyre.kernel "k1_unary"(%[[V]])
func.func @view(%x: tensor<6x32xf32, #r2>) -> tensor<2x3x32xf32, #r3> {
  %e = spyre.unary exp %x : tensor<6x32xf32, #r2> -> tensor<6x32xf32, #r2>
  %v = spyre.reshape %e : tensor<6x32xf32, #r2> -> tensor<2x3x32xf32, #r3>
  %n = spyre.unary neg %v : tensor<2x3x32xf32, #r3> -> tensor<2x3x32xf32, #r3>
  return %n : tensor<2x3x32xf32, #r3>
}

// -----

#r2 = #spyre.layout<stick_dim = 1, stick_elems = 32>
#r1 = #spyre.layout<stick_dim = 0, stick_elems = 32>

// A reshape that changes the innermost dim where it is padded (40 of 64
// elements of a row's second stick) is not a view: a copy kernel repacks
// the elements (its input map only carries the rank).
// CHECK-DAG: #[[ZEROS:map[0-9]*]] = affine_map<(d0) -> (0, 0)>
// CHECK-LABEL: func.func @stick_reshape
// CHECK: spyre.kernel "k0_reshape"(%arg0)
// CHECK-SAME: indexing_maps = [#[[ZEROS]],
// CHECK: spyre.reshape
func.func @stick_reshape(%x: tensor<6x40xf32, #r2>) -> tensor<240xf32, #r1> {
  %v = spyre.reshape %x : tensor<6x40xf32, #r2> -> tensor<240xf32, #r1>
  return %v : tensor<240xf32, #r1>
}

// -----

#r2 = #spyre.layout<stick_dim = 1, stick_elems = 32>
#r3 = #spyre.layout<stick_dim = 2, stick_elems = 32>

// Without padding on either side (innermost dims of whole sticks, as heads
// split off a projection's [S, H * D]) the bytes are the same: a view, no
// kernel (only the consumer's).
// CHECK-LABEL: func.func @split_heads
// CHECK: %[[V:.*]] = spyre.reshape %arg0 : tensor<4x128xf32, #{{.*}}> -> tensor<4x2x64xf32, #{{.*}}>
// CHECK-NEXT: spyre.kernel "k0_unary"(%[[V]])
// CHECK-NOT: "k1
func.func @split_heads(%x: tensor<4x128xf32, #r2>) -> tensor<4x2x64xf32, #r3> {
  %v = spyre.reshape %x : tensor<4x128xf32, #r2> -> tensor<4x2x64xf32, #r3>
  %n = spyre.unary neg %v : tensor<4x2x64xf32, #r3> -> tensor<4x2x64xf32, #r3>
  return %n : tensor<4x2x64xf32, #r3>
}

// -----

#r2 = #spyre.layout<stick_dim = 1, stick_elems = 32>

// An input returned as is gets a copy kernel (outputs are the caller's
// buffers, written by kernels).
// CHECK-LABEL: func.func @identity
// CHECK: %[[K:.*]] = spyre.kernel "k0_copy"(%arg0)
// CHECK: spyre.slice
// CHECK: return %[[K]]
func.func @identity(%x: tensor<6x32xf32, #r2>) -> tensor<6x32xf32, #r2> {
  return %x : tensor<6x32xf32, #r2>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 32>
#col = #spyre.layout<stick_dim = 1, stick_elems = 32>

// Softmax along the stick dim: both reductions and the elementwise ops
// around them form one kernel; the reduced loop becomes a reduction
// iterator and the reduced values are read along it at 0.
// CHECK-DAG: #[[FULL:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @softmax
// CHECK: %[[K:.*]] = spyre.kernel "k0_reduce"(%arg0)
// CHECK-SAME: indexing_maps = [#[[FULL]], #[[FULL]]]
// CHECK-SAME: iterators = ["parallel", "reduction"]
// CHECK: spyre.reduce max
// CHECK: spyre.binary sub
// CHECK: spyre.unary exp
// CHECK: spyre.reduce sum
// CHECK: spyre.binary div
// CHECK-NEXT: spyre.yield
// CHECK-NOT: spyre.kernel
func.func @softmax(%x: tensor<8x40xf32, #row>) -> tensor<8x40xf32, #row> {
  %m = spyre.reduce max %x dim 1 : tensor<8x40xf32, #row> -> tensor<8x1xf32, #col>
  %s = spyre.binary sub %x, %m : tensor<8x40xf32, #row>, tensor<8x1xf32, #col> -> tensor<8x40xf32, #row>
  %e = spyre.unary exp %s : tensor<8x40xf32, #row> -> tensor<8x40xf32, #row>
  %z = spyre.reduce sum %e dim 1 : tensor<8x40xf32, #row> -> tensor<8x1xf32, #col>
  %o = spyre.binary div %e, %z : tensor<8x40xf32, #row>, tensor<8x1xf32, #col> -> tensor<8x40xf32, #row>
  return %o : tensor<8x40xf32, #row>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 32>
#vec = #spyre.layout<stick_dim = -1, stick_elems = 32>

// RMSNorm: x * rsqrt(mean(x * x) + eps) * w in one kernel; the ops on the
// reduced [8, 1] values run on the reduced loop's index 0; the splat
// constants are rank-0 inputs.
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @rms_norm
// CHECK: spyre.kernel "k0_binary"(%arg0, %{{.*}}, %{{.*}}, %arg1)
// CHECK-SAME: #[[SCALAR]], #[[SCALAR]]
// CHECK-SAME: iterators = ["parallel", "reduction"]
// CHECK: spyre.reduce sum
// CHECK: spyre.unary rsqrt
// CHECK-NOT: spyre.kernel
func.func @rms_norm(%x: tensor<8x40xf32, #row>, %w: tensor<40xf32, #spyre.layout<stick_dim = 0, stick_elems = 32>>) -> tensor<8x40xf32, #row> {
  %sq = spyre.binary mul %x, %x : tensor<8x40xf32, #row>, tensor<8x40xf32, #row> -> tensor<8x40xf32, #row>
  %s = spyre.reduce sum %sq dim 1 : tensor<8x40xf32, #row> -> tensor<8x1xf32, #row>
  %n = spyre.constant dense<0.025> : tensor<f32> : tensor<f32, #vec>
  %mean = spyre.binary mul %s, %n : tensor<8x1xf32, #row>, tensor<f32, #vec> -> tensor<8x1xf32, #row>
  %eps = spyre.constant dense<1.0e-6> : tensor<f32> : tensor<f32, #vec>
  %v = spyre.binary add %mean, %eps : tensor<8x1xf32, #row>, tensor<f32, #vec> -> tensor<8x1xf32, #row>
  %r = spyre.unary rsqrt %v : tensor<8x1xf32, #row> -> tensor<8x1xf32, #row>
  %y = spyre.binary mul %x, %r : tensor<8x40xf32, #row>, tensor<8x1xf32, #row> -> tensor<8x40xf32, #row>
  %o = spyre.binary mul %y, %w : tensor<8x40xf32, #row>, tensor<40xf32, #spyre.layout<stick_dim = 0, stick_elems = 32>> -> tensor<8x40xf32, #row>
  return %o : tensor<8x40xf32, #row>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 32>

// A sum over rows that x then needs again (x - sum(x, 0)): the kernel holds
// all 100 rows of a column tile, so the subtraction joins it.
// CHECK-LABEL: func.func @column_sum
// CHECK: spyre.kernel "k0_reduce"(%arg0)
// CHECK-SAME: iterators = ["reduction", "parallel"]
// CHECK: spyre.reduce sum
// CHECK-NEXT: spyre.binary sub
// CHECK-NEXT: spyre.yield
// CHECK-NOT: spyre.kernel
func.func @column_sum(%x: tensor<100x40xf32, #row>) -> tensor<100x40xf32, #row> {
  %s = spyre.reduce sum %x dim 0 : tensor<100x40xf32, #row> -> tensor<1x40xf32, #row>
  %d = spyre.binary sub %x, %s : tensor<100x40xf32, #row>, tensor<1x40xf32, #row> -> tensor<100x40xf32, #row>
  return %d : tensor<100x40xf32, #row>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 32>

// The same over 100,000 rows: a column tile of them (12.8 MB) does not fit
// LX, so the sum accumulates over row tiles and the subtraction, which
// needs every row again after the loop, starts a new kernel.
// CHECK-LABEL: func.func @long_column_sum
// CHECK: %[[K:.*]] = spyre.kernel "k0_reduce"(%arg0)
// CHECK-SAME: iterators = ["reduction", "parallel"]
// CHECK: spyre.kernel "k1_binary"(%arg0, %[[K]])
func.func @long_column_sum(%x: tensor<100000x40xf32, #row>) -> tensor<100000x40xf32, #row> {
  %s = spyre.reduce sum %x dim 0 : tensor<100000x40xf32, #row> -> tensor<1x40xf32, #row>
  %d = spyre.binary sub %x, %s : tensor<100000x40xf32, #row>, tensor<1x40xf32, #row> -> tensor<100000x40xf32, #row>
  return %d : tensor<100000x40xf32, #row>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 64>
#kmaj = #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>

// The gated MLP, silu(x @ wg) * (x @ wu): the gate's matmul kernel (with
// its SiLU) is read only by the up projection's epilogue, multiplies the
// same lhs over the same loops, so it is computed in the up projection's
// kernel: one read of x per tile, two accumulators, the gate never stored.
// CHECK-LABEL: func.func @gated_mlp
// CHECK: %[[K:.*]] = spyre.kernel "k1_matmul"(%arg0, %arg2, %arg1)
// CHECK-SAME: indexing_maps = [#[[LHS:.*]], #[[RHS:.*]], #[[RHS]], #[[OUT:.*]]]
// CHECK-NEXT: ^bb0(%[[X:.*]]: {{.*}}, %[[WU:.*]]: {{.*}}, %[[WG:.*]]: {{.*}}):
// CHECK-NEXT: %[[U:.*]] = spyre.matmul %[[X]], %[[WU]] {transpose_rhs}
// CHECK-NEXT: %[[G:.*]] = spyre.matmul %[[X]], %[[WG]] {transpose_rhs}
// CHECK-NEXT: %[[S:.*]] = spyre.unary silu %[[G]]
// CHECK-NEXT: spyre.binary mul %[[S]], %[[U]]
// CHECK-NOT: spyre.kernel
// CHECK: return %[[K]]
// UNFUSED-LABEL: func.func @gated_mlp
// UNFUSED-COUNT-4: spyre.kernel
func.func @gated_mlp(%x: tensor<64x128xf16, #row>, %wg: tensor<256x128xf16, #kmaj>, %wu: tensor<256x128xf16, #kmaj>) -> tensor<64x256xf16, #row> {
  %g = spyre.matmul %x, %wg {transpose_rhs} : tensor<64x128xf16, #row>, tensor<256x128xf16, #kmaj> -> tensor<64x256xf16, #row>
  %s = spyre.unary silu %g : tensor<64x256xf16, #row> -> tensor<64x256xf16, #row>
  %u = spyre.matmul %x, %wu {transpose_rhs} : tensor<64x128xf16, #row>, tensor<256x128xf16, #kmaj> -> tensor<64x256xf16, #row>
  %p = spyre.binary mul %s, %u : tensor<64x256xf16, #row>, tensor<64x256xf16, #row> -> tensor<64x256xf16, #row>
  return %p : tensor<64x256xf16, #row>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 64>
#kmaj = #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>

// Near-misses of the gated MLP keep two matmul kernels: the two matmuls
// multiply different lhs tensors (x and y); the gate's SiLU is also an
// output (it must be stored anyway). The two products of x by wg, read
// by different kernels, are sibling projections: one kernel computes both.
// CHECK-LABEL: func.func @not_gated
// CHECK: %[[G:.*]]:2 = spyre.kernel "k0_matmul"(%arg0, %arg2)
// CHECK: spyre.kernel "k1_matmul"(%arg1, %arg3, %[[G]]#0)
// CHECK: spyre.kernel "k3_matmul"(%arg0, %arg3, %[[G]]#1)
// CHECK: return {{.*}}, %[[G]]#1
func.func @not_gated(%x: tensor<64x128xf16, #row>, %y: tensor<64x128xf16, #row>, %wg: tensor<256x128xf16, #kmaj>, %wu: tensor<256x128xf16, #kmaj>) -> (tensor<64x256xf16, #row>, tensor<64x256xf16, #row>, tensor<64x256xf16, #row>) {
  %g = spyre.matmul %x, %wg {transpose_rhs} : tensor<64x128xf16, #row>, tensor<256x128xf16, #kmaj> -> tensor<64x256xf16, #row>
  %u = spyre.matmul %y, %wu {transpose_rhs} : tensor<64x128xf16, #row>, tensor<256x128xf16, #kmaj> -> tensor<64x256xf16, #row>
  %p = spyre.binary mul %g, %u : tensor<64x256xf16, #row>, tensor<64x256xf16, #row> -> tensor<64x256xf16, #row>
  %g2 = spyre.matmul %x, %wg {transpose_rhs} : tensor<64x128xf16, #row>, tensor<256x128xf16, #kmaj> -> tensor<64x256xf16, #row>
  %s2 = spyre.unary silu %g2 : tensor<64x256xf16, #row> -> tensor<64x256xf16, #row>
  %u2 = spyre.matmul %x, %wu {transpose_rhs} : tensor<64x128xf16, #row>, tensor<256x128xf16, #kmaj> -> tensor<64x256xf16, #row>
  %p2 = spyre.binary mul %s2, %u2 : tensor<64x256xf16, #row>, tensor<64x256xf16, #row> -> tensor<64x256xf16, #row>
  return %p, %p2, %s2 : tensor<64x256xf16, #row>, tensor<64x256xf16, #row>, tensor<64x256xf16, #row>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 64>
#row32 = #spyre.layout<stick_dim = 1, stick_elems = 32>
#kmaj = #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>

// transformers' RMSNorm on a residual: h = x + o @ w (fp16) is read by
// the norm and again later (the next residual), and the norm starts with
// h.float(). The widening cast does not join the matmul's kernel, which
// writes h anyway: fused, that kernel would also write the fp32 copies
// (h.float() and its square), twice h's bytes each, for the norm to read
// instead of h. The cast starts the norm's kernel, which reads h.
// CHECK-LABEL: func.func @residual_norm
// CHECK: %[[H:[0-9]+]]:2 = spyre.kernel "k0_matmul"
// CHECK: spyre.yield %{{.*}}, %{{.*}} : tensor<64x256xf16, #{{.*}}>, tensor<64x256xf16, #{{.*}}>
// CHECK: spyre.kernel "k1_cast"(%[[H]]#0)
// CHECK: spyre.cast
// CHECK: spyre.reduce sum
func.func @residual_norm(%x: tensor<64x256xf16, #row>, %o: tensor<64x256xf16, #row>, %w: tensor<256x256xf16, #kmaj>) -> (tensor<64x1xf32, #row32>, tensor<64x256xf16, #row>) {
  %0 = spyre.matmul %o, %w {transpose_rhs} : tensor<64x256xf16, #row>, tensor<256x256xf16, #kmaj> -> tensor<64x256xf16, #row>
  %h = spyre.binary add %x, %0 : tensor<64x256xf16, #row>, tensor<64x256xf16, #row> -> tensor<64x256xf16, #row>
  %f = spyre.cast %h : tensor<64x256xf16, #row> -> tensor<64x256xf32, #row32>
  %sq = spyre.binary mul %f, %f : tensor<64x256xf32, #row32>, tensor<64x256xf32, #row32> -> tensor<64x256xf32, #row32>
  %s = spyre.reduce sum %sq dim 1 : tensor<64x256xf32, #row32> -> tensor<64x1xf32, #row32>
  %next = spyre.binary add %h, %x : tensor<64x256xf16, #row>, tensor<64x256xf16, #row> -> tensor<64x256xf16, #row>
  return %s, %next : tensor<64x1xf32, #row32>, tensor<64x256xf16, #row>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 64>
#kmaj = #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>

// The k and v projections of grouped-query attention (one lhs, weights of
// the same shape) form one kernel with a result each: both products, then
// both epilogues. Not merged: a projection of another N (q), and one whose
// weights are computed after the first projection (it cannot move there).
// CHECK-LABEL: func.func @sibling_projections
// CHECK: %[[Q:.*]] = spyre.kernel "k0_matmul"(%arg0, %arg1)
// CHECK: %[[KV:.*]]:2 = spyre.kernel "k1_matmul"(%arg0, %arg2, %arg3)
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<64x128xf16, #layout>, %[[WK:.*]]: tensor<128x128xf16, #layout1>, %[[WV:.*]]: tensor<128x128xf16, #layout1>):
// CHECK-NEXT: %[[PK:.*]] = spyre.matmul %[[X]], %[[WK]]
// CHECK-NEXT: %[[PV:.*]] = spyre.matmul %[[X]], %[[WV]]
// CHECK-NEXT: %[[E:.*]] = spyre.unary neg %[[PV]]
// CHECK-NEXT: spyre.yield %[[PK]], %[[E]]
// CHECK: %[[W2:.*]] = spyre.kernel "k3_unary"(%arg3)
// CHECK: spyre.kernel "k4_matmul"(%arg0, %[[W2]])
// CHECK: return %[[Q]], %[[KV]]#0, %[[KV]]#1
// UNFUSED-LABEL: func.func @sibling_projections
// UNFUSED-COUNT-5: spyre.kernel
func.func @sibling_projections(%x: tensor<64x128xf16, #row>, %wq: tensor<256x128xf16, #kmaj>, %wk: tensor<128x128xf16, #kmaj>, %wv: tensor<128x128xf16, #kmaj>) -> (tensor<64x256xf16, #row>, tensor<64x128xf16, #row>, tensor<64x128xf16, #row>, tensor<64x128xf16, #row>) {
  %q = spyre.matmul %x, %wq {transpose_rhs} : tensor<64x128xf16, #row>, tensor<256x128xf16, #kmaj> -> tensor<64x256xf16, #row>
  %k = spyre.matmul %x, %wk {transpose_rhs} : tensor<64x128xf16, #row>, tensor<128x128xf16, #kmaj> -> tensor<64x128xf16, #row>
  %v = spyre.matmul %x, %wv {transpose_rhs} : tensor<64x128xf16, #row>, tensor<128x128xf16, #kmaj> -> tensor<64x128xf16, #row>
  %nv = spyre.unary neg %v : tensor<64x128xf16, #row> -> tensor<64x128xf16, #row>
  %w2 = spyre.unary neg %wv : tensor<128x128xf16, #kmaj> -> tensor<128x128xf16, #kmaj>
  %late = spyre.matmul %x, %w2 {transpose_rhs} : tensor<64x128xf16, #row>, tensor<128x128xf16, #kmaj> -> tensor<64x128xf16, #row>
  return %q, %k, %nv, %late : tensor<64x256xf16, #row>, tensor<64x128xf16, #row>, tensor<64x128xf16, #row>, tensor<64x128xf16, #row>
}
