// RUN: spyre-opt %s --spyre-assign-layouts --verify-diagnostics
// RUN: spyre-opt %s --spyre-collapse-dims --verify-diagnostics
// RUN: spyre-opt %s --spyre-fuse-attention --verify-diagnostics
// RUN: spyre-opt %s --spyre-expand-attention --verify-diagnostics
// RUN: spyre-opt %s --spyre-form-kernels --verify-diagnostics

// Passes of the compute level refuse graph-level IR, naming the pass that
// must run first (lib/Transforms/Preconditions.cpp).
func.func @graph(%x: tensor<32x128xf16>, %y: tensor<32x128xf16>) -> tensor<32x128xf16> {
  // expected-error @+1 {{needs compute-level IR: this 'spyre.aten' is graph-level; run spyre-decompose first}}
  %0 = spyre.aten "aten.add.Tensor"(%x, %y) {args = {alpha = 1 : i64}, tensor_args = ["self", "other"]} : (tensor<32x128xf16>, tensor<32x128xf16>) -> tensor<32x128xf16>
  return %0 : tensor<32x128xf16>
}
