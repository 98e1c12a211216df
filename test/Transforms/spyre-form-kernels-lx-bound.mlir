// RUN: spyre-opt %s --spyre-attach-arch=file=%S/Inputs/tiny-arch.json --spyre-decompose --canonicalize --spyre-assign-layouts --spyre-form-kernels --spyre-schedule-cores | FileCheck %s

// spyre-form-kernels stops fusing when the grown kernel would not fit LX
// even at its smallest tiles. topk's rounds (max, argmax, mask the taken
// element, again) all need whole rows; on a 64 KiB scratchpad, 4096-long
// f32 rows fused into one kernel would need 126 KiB per core, so the chain
// is cut into kernels that each fit (and spyre-schedule-cores finds a
// schedule for every one: no "no schedule fits" error).
// CHECK-LABEL: func.func @topk_long_rows
// CHECK: spyre.kernel "k0_reduce"{{.*}}schedule = #spyre.schedule
// CHECK: spyre.kernel "k1_reduce"{{.*}}schedule = #spyre.schedule
// CHECK: spyre.kernel "k2_select"{{.*}}schedule = #spyre.schedule
// CHECK: spyre.kernel "k3_select"{{.*}}schedule = #spyre.schedule
// CHECK: spyre.kernel "k4_concat"
// CHECK: spyre.kernel "k5_concat"
// CHECK-NOT: spyre.kernel
func.func @topk_long_rows(%x: tensor<2x4096xf32>) -> (tensor<2x4xf32>, tensor<2x4xi64>) {
  %0:2 = spyre.aten "aten.topk.default"(%x) {args = {k = 4 : i64}, tensor_args = ["self"]} : (tensor<2x4096xf32>) -> (tensor<2x4xf32>, tensor<2x4xi64>)
  return %0#0, %0#1 : tensor<2x4xf32>, tensor<2x4xi64>
}
