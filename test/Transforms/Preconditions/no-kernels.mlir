// RUN: spyre-opt %s --spyre-schedule-cores --verify-diagnostics
// RUN: spyre-opt %s --spyre-allocate-scratchpad --verify-diagnostics
// RUN: spyre-opt %s --spyre-lower-to-program --verify-diagnostics

// The schedule level and below need every compute op in a kernel.
#l = #spyre.layout<stick_dim = 1, stick_elems = 64>
func.func @no_kernels(%x: tensor<32x128xf16, #l>) -> tensor<32x128xf16, #l> {
  // expected-error @+1 {{needs every compute op inside a kernel: this 'spyre.unary' is outside one; run spyre-form-kernels first}}
  %0 = spyre.unary neg %x : tensor<32x128xf16, #l> -> tensor<32x128xf16, #l>
  return %0 : tensor<32x128xf16, #l>
}
