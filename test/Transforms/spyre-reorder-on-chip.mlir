// RUN: spyre-opt %s --spyre-form-kernels --spyre-reorder-on-chip --split-input-file | FileCheck %s
// RUN: spyre-opt %s --spyre-form-kernels=leave-permutes=false --split-input-file | FileCheck %s --check-prefix=OFF

#l4 = #spyre.layout<stick_dim = 3, stick_elems = 64>

// A transpose of a kernel's result is stored permuted by that kernel: the
// transpose kernel is gone, a tile alias ends the producer's body and its
// result map is permuted.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[P:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
// CHECK-LABEL: func.func @into_producer
// CHECK: %[[K:.*]] = spyre.kernel "k0_unary"(%arg0) {indexing_maps = [#[[ID]], #[[P]]]
// CHECK-SAME: -> tensor<2x4x9x64xf16
// CHECK: %[[E:.*]] = spyre.unary exp
// CHECK-NEXT: %[[T:.*]] = spyre.transpose %[[E]] [0, 2, 1, 3]
// CHECK-NEXT: spyre.yield %[[T]]
// CHECK-NOT: spyre.kernel
// CHECK: return %[[K]]
// OFF-LABEL: func.func @into_producer
// OFF: spyre.kernel "k0_unary"
// OFF: spyre.kernel "k1_transpose"
func.func @into_producer(%x: tensor<2x9x4x64xf16, #l4>) -> tensor<2x4x9x64xf16, #l4> {
  %0 = spyre.unary exp %x : tensor<2x9x4x64xf16, #l4> -> tensor<2x9x4x64xf16, #l4>
  %1 = spyre.transpose %0 [0, 2, 1, 3] : tensor<2x9x4x64xf16, #l4> -> tensor<2x4x9x64xf16, #l4>
  return %1 : tensor<2x4x9x64xf16, #l4>
}

// -----

#l4 = #spyre.layout<stick_dim = 3, stick_elems = 64>
#l5 = #spyre.layout<stick_dim = 4, stick_elems = 64>

// Through a view that merges heads ([1, KVH, G, S, D] -> [1, H, S, D], as
// after grouped-query attention): the permutation is lifted onto the 5-D
// result and the view rebuilt after the producer.
// CHECK-DAG: #[[P5:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d1, d2, d4)>
// CHECK-LABEL: func.func @through_view
// CHECK: %[[K:.*]] = spyre.kernel "k0_unary"(%arg0) {indexing_maps = [#{{.*}}, #[[P5]]]
// CHECK-SAME: -> tensor<1x16x2x2x64xf16
// CHECK: spyre.transpose %{{.*}} [0, 3, 1, 2, 4]
// CHECK-NOT: spyre.kernel
// CHECK: %[[V:.*]] = spyre.reshape %[[K]] : tensor<1x16x2x2x64xf16, {{.*}}> -> tensor<1x16x4x64xf16
// CHECK: return %[[V]]
func.func @through_view(%x: tensor<1x2x2x16x64xf16, #l5>) -> tensor<1x16x4x64xf16, #l4> {
  %0 = spyre.unary exp %x : tensor<1x2x2x16x64xf16, #l5> -> tensor<1x2x2x16x64xf16, #l5>
  %1 = spyre.reshape %0 : tensor<1x2x2x16x64xf16, #l5> -> tensor<1x4x16x64xf16, #l4>
  %2 = spyre.transpose %1 [0, 2, 1, 3] : tensor<1x4x16x64xf16, #l4> -> tensor<1x16x4x64xf16, #l4>
  return %2 : tensor<1x16x4x64xf16, #l4>
}

// -----

#l4 = #spyre.layout<stick_dim = 3, stick_elems = 64>
#row = #spyre.layout<stick_dim = 1, stick_elems = 64>

// A transpose of a graph input (no producer kernel) is read permuted by its
// consumer, here a matmul: its lhs map reads [B, S, H, D] as [B, H, S, D]
// and a tile alias starts its body.
// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d1, d4)>
// CHECK-LABEL: func.func @into_consumer
// CHECK-NOT: "k0_transpose"
// CHECK: spyre.kernel "k1_matmul"(%arg0, %arg1) {indexing_maps = [#[[LHS]],
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<1x16x2x64xf16, {{.*}}>, %[[W:.*]]: {{.*}}):
// CHECK-NEXT: %[[T:.*]] = spyre.transpose %[[X]] [0, 2, 1, 3]
// CHECK-NEXT: spyre.matmul %[[T]], %[[W]]
func.func @into_consumer(%x: tensor<1x16x2x64xf16, #l4>, %w: tensor<64x64xf16, #row>) -> tensor<1x2x16x64xf16, #l4> {
  %0 = spyre.transpose %x [0, 2, 1, 3] : tensor<1x16x2x64xf16, #l4> -> tensor<1x2x16x64xf16, #l4>
  %1 = spyre.matmul %0, %w : tensor<1x2x16x64xf16, #l4>, tensor<64x64xf16, #row> -> tensor<1x2x16x64xf16, #l4>
  return %1 : tensor<1x2x16x64xf16, #l4>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 64>

// A transpose that moves the stick dim reorders elements inside sticks: it
// stays a kernel of its own (SFP transposes).
// CHECK-LABEL: func.func @moves_stick
// CHECK: spyre.kernel "k0_unary"
// CHECK: spyre.kernel "k1_transpose"
func.func @moves_stick(%x: tensor<64x128xf16, #row>) -> tensor<128x64xf16, #row> {
  %0 = spyre.unary exp %x : tensor<64x128xf16, #row> -> tensor<64x128xf16, #row>
  %1 = spyre.transpose %0 [1, 0] : tensor<64x128xf16, #row> -> tensor<128x64xf16, #row>
  return %1 : tensor<128x64xf16, #row>
}

// -----

#l4 = #spyre.layout<stick_dim = 3, stick_elems = 64>

// The producer's result is also returned, and the transpose's only user is
// the return: neither side can take the permutation, the kernel stays.
// CHECK-LABEL: func.func @shared_result
// CHECK: %[[K:.*]] = spyre.kernel "k0_unary"
// CHECK: %[[T:.*]] = spyre.kernel "k1_transpose"(%[[K]])
// CHECK: return %[[K]], %[[T]]
func.func @shared_result(%x: tensor<2x9x4x64xf16, #l4>) -> (tensor<2x9x4x64xf16, #l4>, tensor<2x4x9x64xf16, #l4>) {
  %0 = spyre.unary exp %x : tensor<2x9x4x64xf16, #l4> -> tensor<2x9x4x64xf16, #l4>
  %1 = spyre.transpose %0 [0, 2, 1, 3] : tensor<2x9x4x64xf16, #l4> -> tensor<2x4x9x64xf16, #l4>
  return %0, %1 : tensor<2x9x4x64xf16, #l4>, tensor<2x4x9x64xf16, #l4>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 64>
#col = #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>

// a + b.t() + c.t() (IBM's add-mm operand) with b and c stored K-major:
// spyre-form-kernels (leave-permutes) fuses nothing into the transposes,
// which stay kernels that only permute; this pass folds both into the
// adds' kernel as prologue aliases: one kernel for the whole sum.
// CHECK-LABEL: func.func @sum_of_transposed_inputs
// CHECK: %[[K:.*]] = spyre.kernel "k1_binary"(%arg0, %arg1, %arg2)
// CHECK-NEXT: ^bb0(%[[A:.*]]: {{.*}}, %[[B:.*]]: {{.*}}, %[[C:.*]]: {{.*}}):
// CHECK-NEXT: %[[CT:.*]] = spyre.transpose %[[C]] [1, 0]
// CHECK-NEXT: %[[BT:.*]] = spyre.transpose %[[B]] [1, 0]
// CHECK-NEXT: %[[S:.*]] = spyre.binary add %[[A]], %[[BT]]
// CHECK-NEXT: spyre.binary add %[[S]], %[[CT]]
// CHECK-NOT: spyre.kernel
// CHECK: return %[[K]]
// OFF-LABEL: func.func @sum_of_transposed_inputs
// OFF: %[[T:.*]] = spyre.kernel "k1_transpose"(%arg2)
// OFF: spyre.kernel "k0_transpose"(%arg1, %arg0, %[[T]])
// OFF-NOT: spyre.kernel
func.func @sum_of_transposed_inputs(%a: tensor<128x128xf16, #row>, %b: tensor<128x128xf16, #col>, %c: tensor<128x128xf16, #col>) -> tensor<128x128xf16, #row> {
  %0 = spyre.transpose %b [1, 0] : tensor<128x128xf16, #col> -> tensor<128x128xf16, #row>
  %1 = spyre.binary add %a, %0 : tensor<128x128xf16, #row>, tensor<128x128xf16, #row> -> tensor<128x128xf16, #row>
  %2 = spyre.transpose %c [1, 0] : tensor<128x128xf16, #col> -> tensor<128x128xf16, #row>
  %3 = spyre.binary add %1, %2 : tensor<128x128xf16, #row>, tensor<128x128xf16, #row> -> tensor<128x128xf16, #row>
  return %3 : tensor<128x128xf16, #row>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 64>

// Windows (slices with unit steps) read by a kernel: the consumer reads the
// sliced tensor through its map offset, with a window-read alias starting
// its body; the slice kernels go. A window of the stick dim must start and
// end on sticks: x[:, 1:65] stays a kernel. Without this pass: 7 kernels.
// CHECK: #[[HI:.*]] = affine_map<(d0, d1) -> (d0, d1 + 64)>
// CHECK: #[[ROWS:.*]] = affine_map<(d0, d1) -> (d0 + 4, d1)>
// CHECK-LABEL: func.func @windows
// CHECK: %[[K:.*]] = spyre.kernel "k2_binary"(%arg0, %arg0)
// CHECK-SAME: indexing_maps = [#{{.*}}, #[[HI]], #{{.*}}]
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<8x128xf16, {{.*}}>, %[[B:.*]]: tensor<8x128xf16, {{.*}}>):
// CHECK-NEXT: %[[W1:.*]] = spyre.slice %[[B]] offsets [0, 64] strides [1, 1] : tensor<8x128xf16, {{.*}}> -> tensor<8x64xf16, {{.*}}>
// CHECK-NEXT: %[[W0:.*]] = spyre.slice %[[A]] offsets [0, 0] strides [1, 1]
// CHECK-NEXT: spyre.binary mul %[[W0]], %[[W1]]
// CHECK: %[[ODD:.*]] = spyre.kernel "k3_slice"(%arg0)
// CHECK: spyre.kernel "k4_unary"(%[[ODD]])
// CHECK: %[[R:.*]] = spyre.kernel "k6_unary"(%arg1)
// CHECK-SAME: indexing_maps = [#[[ROWS]], #{{.*}}]
// CHECK-NEXT: ^bb0(%[[C:.*]]: tensor<16x64xf16, {{.*}}>):
// CHECK-NEXT: %[[WR:.*]] = spyre.slice %[[C]] offsets [4, 0] strides [1, 1]
// CHECK-NEXT: spyre.unary exp %[[WR]]
// OFF-LABEL: func.func @windows
// OFF-COUNT-7: spyre.kernel
func.func @windows(%x: tensor<8x128xf16, #row>, %y: tensor<16x64xf16, #row>) -> (tensor<8x64xf16, #row>, tensor<8x64xf16, #row>, tensor<8x64xf16, #row>) {
  %a = spyre.slice %x offsets [0, 0] strides [1, 1] : tensor<8x128xf16, #row> -> tensor<8x64xf16, #row>
  %b = spyre.slice %x offsets [0, 64] strides [1, 1] : tensor<8x128xf16, #row> -> tensor<8x64xf16, #row>
  %m = spyre.binary mul %a, %b : tensor<8x64xf16, #row>, tensor<8x64xf16, #row> -> tensor<8x64xf16, #row>
  %c = spyre.slice %x offsets [0, 1] strides [1, 1] : tensor<8x128xf16, #row> -> tensor<8x64xf16, #row>
  %n = spyre.unary neg %c : tensor<8x64xf16, #row> -> tensor<8x64xf16, #row>
  %r = spyre.slice %y offsets [4, 0] strides [1, 1] : tensor<16x64xf16, #row> -> tensor<8x64xf16, #row>
  %e = spyre.unary exp %r : tensor<8x64xf16, #row> -> tensor<8x64xf16, #row>
  return %m, %n, %e : tensor<8x64xf16, #row>, tensor<8x64xf16, #row>, tensor<8x64xf16, #row>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 64>
#col = #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>

// A slice that also changes the layout (a K-major input, a row-major
// window) moves data within sticks: it stays a kernel.
// CHECK-LABEL: func.func @window_relayout
// CHECK: %[[W:.*]] = spyre.kernel "k0_slice"(%arg0)
// CHECK: spyre.kernel "k1_unary"(%[[W]])
func.func @window_relayout(%x: tensor<128x128xf16, #col>) -> tensor<64x128xf16, #row> {
  %a = spyre.slice %x offsets [64, 0] strides [1, 1] : tensor<128x128xf16, #col> -> tensor<64x128xf16, #row>
  %e = spyre.unary exp %a : tensor<64x128xf16, #row> -> tensor<64x128xf16, #row>
  return %e : tensor<64x128xf16, #row>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 64>
#idx = #spyre.layout<stick_dim = 0, stick_elems = 16>

// A gather of table rows (x[slots] before an expert matmul, an embedding)
// is read by its consumer: the table and the indices become the matmul's
// inputs, the table read through its rows' stick dim only (row 0 in its
// map: the indices pick the rows), a gather read starts the body, and the
// gather kernel is gone (KernelPlan loads the rows by DmaGather).
// CHECK-DAG: #[[TAB:.*]] = affine_map<(d0, d1, d2) -> (0, d2)>
// CHECK-DAG: #[[IDX:.*]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-LABEL: func.func @gather_into_matmul
// CHECK-NOT: spyre.kernel "k0_gather"
// CHECK: %[[K:.*]] = spyre.kernel "k1_matmul"(%arg0, %arg2, %arg1) {indexing_maps = [#[[TAB]], #{{.*}}, #[[IDX]], #{{.*}}]
// CHECK-NEXT: ^bb0(%[[T:.*]]: tensor<70x128xf16, {{.*}}>, %[[W:.*]]: tensor<128x64xf16, {{.*}}>, %[[I:.*]]: tensor<50xi64, {{.*}}>):
// CHECK-NEXT: %[[G:.*]] = spyre.gather %[[T]][%[[I]]]
// CHECK-NEXT: spyre.matmul %[[G]], %[[W]]
// CHECK: return %[[K]]
// OFF-LABEL: func.func @gather_into_matmul
// OFF: spyre.kernel "k0_gather"
// OFF: spyre.kernel "k1_matmul"
func.func @gather_into_matmul(%t: tensor<70x128xf16, #row>, %i: tensor<50xi64, #idx>, %w: tensor<128x64xf16, #row>) -> tensor<50x64xf16, #row> {
  %g = spyre.gather %t[%i] : tensor<70x128xf16, #row>, tensor<50xi64, #idx> -> tensor<50x128xf16, #row>
  %m = spyre.matmul %g, %w : tensor<50x128xf16, #row>, tensor<128x64xf16, #row> -> tensor<50x64xf16, #row>
  return %m : tensor<50x64xf16, #row>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 64>
#idx = #spyre.layout<stick_dim = 0, stick_elems = 16>

// The gathered rows are also a graph output: the gather kernel stays for
// that output, and the matmul still gathers its rows itself.
// CHECK-LABEL: func.func @gather_also_returned
// CHECK: %[[G:.*]] = spyre.kernel "k0_gather"(%arg0, %arg1)
// CHECK: %[[K:.*]] = spyre.kernel "k1_matmul"(%arg0, %arg2, %arg1)
// CHECK: spyre.gather
// CHECK-NEXT: spyre.matmul
// CHECK: return %[[K]], %[[G]]
func.func @gather_also_returned(%t: tensor<70x128xf16, #row>, %i: tensor<50xi64, #idx>, %w: tensor<128x64xf16, #row>) -> (tensor<50x64xf16, #row>, tensor<50x128xf16, #row>) {
  %g = spyre.gather %t[%i] : tensor<70x128xf16, #row>, tensor<50xi64, #idx> -> tensor<50x128xf16, #row>
  %m = spyre.matmul %g, %w : tensor<50x128xf16, #row>, tensor<128x64xf16, #row> -> tensor<50x64xf16, #row>
  return %m, %g : tensor<50x64xf16, #row>, tensor<50x128xf16, #row>
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 64>
#idx = #spyre.layout<stick_dim = 0, stick_elems = 16>

// An elementwise reader joins the gather's kernel already in
// spyre-form-kernels (the gather is a tile alias of the table there too).
// CHECK-LABEL: func.func @gather_then_scale
// CHECK: spyre.kernel "k0_gather"(%arg0, %arg1, %arg2)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: spyre.gather
// CHECK-NEXT: spyre.binary mul
// CHECK-NOT: spyre.kernel
// OFF-LABEL: func.func @gather_then_scale
// OFF: spyre.kernel "k0_gather"
// OFF-NOT: spyre.kernel
func.func @gather_then_scale(%t: tensor<70x128xf16, #row>, %i: tensor<50xi64, #idx>, %s: tensor<50x128xf16, #row>) -> tensor<50x128xf16, #row> {
  %g = spyre.gather %t[%i] : tensor<70x128xf16, #row>, tensor<50xi64, #idx> -> tensor<50x128xf16, #row>
  %m = spyre.binary mul %g, %s : tensor<50x128xf16, #row>, tensor<50x128xf16, #row> -> tensor<50x128xf16, #row>
  return %m : tensor<50x128xf16, #row>
}

// -----

#l3 = #spyre.layout<stick_dim = 2, stick_elems = 64>

// A broadcast along outer dims (an expand; gpt-oss's x.repeat(E, 1) viewed
// as [E, T, H]) is read by its consumer: the bmm's lhs map drops the
// expert dim, so every expert's cores read x's one tile (loaded once,
// multicast), a broadcast read starts the body, and the broadcast kernel
// is gone.
// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1, d2, d3) -> (0, d1, d3)>
// CHECK-LABEL: func.func @broadcast_into_bmm
// CHECK-NOT: spyre.kernel "k0_broadcast"
// CHECK: %[[K:.*]] = spyre.kernel "k1_matmul"(%arg0, %arg1) {indexing_maps = [#[[LHS]],
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<1x48x64xf16, {{.*}}>, %[[W:.*]]: tensor<4x64x96xf16, {{.*}}>):
// CHECK-NEXT: %[[B:.*]] = spyre.broadcast %[[X]] : tensor<1x48x64xf16, {{.*}}> -> tensor<4x48x64xf16
// CHECK-NEXT: spyre.matmul %[[B]], %[[W]]
// CHECK: return %[[K]]
// OFF-LABEL: func.func @broadcast_into_bmm
// OFF: spyre.kernel "k0_broadcast"
// OFF: spyre.kernel "k1_matmul"
func.func @broadcast_into_bmm(%x: tensor<1x48x64xf16, #l3>, %w: tensor<4x64x96xf16, #l3>) -> tensor<4x48x96xf16, #l3> {
  %b = spyre.broadcast %x : tensor<1x48x64xf16, #l3> -> tensor<4x48x64xf16, #l3>
  %m = spyre.matmul %b, %w : tensor<4x48x64xf16, #l3>, tensor<4x64x96xf16, #l3> -> tensor<4x48x96xf16, #l3>
  return %m : tensor<4x48x96xf16, #l3>
}

// -----

#l2 = #spyre.layout<stick_dim = 1, stick_elems = 64>
#l3 = #spyre.layout<stick_dim = 2, stick_elems = 64>

// A broadcast along the rows (a [1, 64] row repeated for 48 rows) is not
// an outer-dims broadcast: its tile differs from the input's, so the
// broadcast stays a kernel of its own before the matmul.
// CHECK-LABEL: func.func @row_broadcast_stays
// CHECK: spyre.kernel "k0_broadcast"
// CHECK: spyre.kernel "k1_matmul"
func.func @row_broadcast_stays(%x: tensor<1x64xf16, #l2>, %w: tensor<64x96xf16, #l2>) -> tensor<48x96xf16, #l2> {
  %b = spyre.broadcast %x : tensor<1x64xf16, #l2> -> tensor<48x64xf16, #l2>
  %m = spyre.matmul %b, %w : tensor<48x64xf16, #l2>, tensor<64x96xf16, #l2> -> tensor<48x96xf16, #l2>
  return %m : tensor<48x96xf16, #l2>
}
