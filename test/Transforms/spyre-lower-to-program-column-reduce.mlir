// RUN: spyre-opt %s --spyre-pipeline | FileCheck %s
// RUN: spyre-opt %s --spyre-pipeline | FileCheck %s --check-prefix=NOACC

// softmax(x, dim=0) over 300 rows: one kernel whose column tiles hold all
// 300 rows, so the max and the sum reduce rows inside the tile (reduce_rows,
// nothing accumulated over loop iterations) and the subtraction and division
// read x again from LX. Before, it was five kernels with the fp32
// intermediates between them.
// CHECK: spyre.program @k0_cast
// CHECK-SAME: tile = [300, 64]
// CHECK: spyre.sfp_reduce "max" {{.*}}reduce_rows, rows = 300
// CHECK-NEXT: spyre.sfp_binary "sub"
// CHECK-NEXT: spyre.sfp_unary "exp"
// CHECK-NEXT: spyre.sfp_reduce "sum" {{.*}}reduce_rows, rows = 300
// CHECK-NEXT: spyre.sfp_binary "div"
// CHECK: spyre.plan [@k0_cast]
// NOACC-NOT: accumulate
module {
  func.func @main(%x: tensor<300x256xf16> {spyre.name = "x"}) -> tensor<300x256xf16> {
    %0 = spyre.aten "aten._softmax.default"(%x) {tensor_args = ["self"], args = {dim = 0 : i64, half_to_float = false}} : (tensor<300x256xf16>) -> tensor<300x256xf16>
    return %0 : tensor<300x256xf16>
  }
}
