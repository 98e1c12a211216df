// RUN: spyre-opt %s --spyre-form-kernels --verify-diagnostics

// spyre-form-kernels needs every tensor laid out.
func.func @no_layouts(%x: tensor<32x128xf16>) -> tensor<32x128xf16> {
  // expected-error @+1 {{'spyre-form-kernels' needs a layout on every tensor: this 'spyre.unary' has a tensor without one; run spyre-assign-layouts first}}
  %0 = spyre.unary neg %x : tensor<32x128xf16> -> tensor<32x128xf16>
  return %0 : tensor<32x128xf16>
}
