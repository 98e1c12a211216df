// RUN: spyre-opt %s --spyre-pipeline | FileCheck %s
// RUN: spyre-opt %s --spyre-pipeline="max-cores=1 depth=1" | FileCheck %s --check-prefix=ONE
// RUN: spyre-opt %s --spyre-pipeline="on-chip=false" | FileCheck %s --check-prefix=MEM

// The whole pipeline on a 2-layer MLP at the graph level: two programs
// (each matmul with its bias/activation epilogue), the weights stored
// K-major, the intermediate kept in LX for fc2 (on one core both hold all
// of it): fc1 stores nothing, fc2 loads only its weight. With
// on-chip=false it goes through the workspace.
// CHECK-DAG: spyre.tensor @out0 output
// CHECK-DAG: spyre.tensor @in0 input {io_index = 0 : i64, source_name = "x"}
// CHECK-DAG: spyre.tensor @w_fc1_weight weight {{.*}} : tensor<64x32xf16, #[[KMAJ:layout[0-9]*]]>
// CHECK-DAG: #[[KMAJ]] = #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>
// CHECK-DAG: spyre.tensor @t_k0_matmul_fc1 on_chip
// CHECK: spyre.program @k0_matmul_fc1
// CHECK: spyre.pt_matmul
// CHECK: spyre.sfp_binary "add"
// CHECK: spyre.sfp_unary "gelu"
// CHECK-NOT: spyre.dma_store
// CHECK: spyre.program @k1_matmul_fc2
// CHECK-NOT: @t_k0_matmul_fc1, offset
// CHECK: spyre.dma_store
// CHECK: spyre.plan [@k0_matmul_fc1, @k1_matmul_fc2]
// ONE-COUNT-2: num_cores = 1 : i64
// MEM: spyre.tensor @t_k0_matmul_fc1 workspace
// MEM: spyre.program @k0_matmul_fc1
// MEM: spyre.dma_store {{.*}}tensor = @t_k0_matmul_fc1
// MEM: spyre.program @k1_matmul_fc2
// MEM: spyre.dma_load {{.*}}tensor = @t_k0_matmul_fc1
module {
  func.func @main(%x: tensor<16x32xf16> {spyre.name = "x"}) -> tensor<16x32xf16> {
    %w1 = spyre.weight "fc1.weight" parameter = dense<0.01> : tensor<64x32xf16> : tensor<64x32xf16>
    %b1 = spyre.weight "fc1.bias" parameter = dense<0.5> : tensor<64xf16> : tensor<64xf16>
    %w2 = spyre.weight "fc2.weight" parameter = dense<0.02> : tensor<32x64xf16> : tensor<32x64xf16>
    %0 = spyre.aten "aten.linear.default"(%x, %w1, %b1) {tensor_args = ["input", "weight", "bias"], args = {}} : (tensor<16x32xf16>, tensor<64x32xf16>, tensor<64xf16>) -> tensor<16x64xf16> loc("fc1")
    %1 = spyre.aten "aten.gelu.default"(%0) {tensor_args = ["self"], args = {approximate = "none"}} : (tensor<16x64xf16>) -> tensor<16x64xf16>
    %2 = spyre.aten "aten.linear.default"(%1, %w2) {tensor_args = ["input", "weight"], args = {}} : (tensor<16x64xf16>, tensor<32x64xf16>) -> tensor<16x32xf16> loc("fc2")
    return %2 : tensor<16x32xf16>
  }
}
