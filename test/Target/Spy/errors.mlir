// RUN: spyre-translate --spyre-to-spy --split-input-file --verify-diagnostics --allow-unregistered-dialect %s -o /dev/null

// Every error of the .spy emitter (lib/Target/Spy/SpyEmitter.cpp) and of
// the instruction encoding (lib/Dialect/Spyre/InstEncoder.cpp,
// InstructionEncoding.cpp) on IR the verifiers accept. External weight
// data has its own tests (external-data-errors.test).

// expected-error @+1 {{the module is not at program level (it needs spyre.tensor, spyre.program and spyre.plan ops and no functions); run spyre-opt --spyre-pipeline first}}
module {
  func.func @f() { return }
}

// -----

#vec = #spyre.layout<stick_dim = 0, stick_elems = 16>
module {
  // expected-error @+1 {{element type 'f64' has no device representation}}
  spyre.tensor @x input {io_index = 0 : i64} : tensor<16xf64, #vec>
  spyre.plan []
}

// -----

// A shape whose device size does not fit 64 bits.
#row = #spyre.layout<stick_dim = 1, stick_elems = 64>
module {
  // expected-error @+1 {{invalid layout: }}
  spyre.tensor @x input {io_index = 0 : i64} : tensor<4611686018427387904x128xf16, #row>
  spyre.plan []
}

// -----

#vec = #spyre.layout<stick_dim = 0, stick_elems = 64>
module {
  // expected-error @+1 {{unsupported weight value attribute}}
  spyre.tensor @w weight {value = sparse<[[0]], [1.0]> : tensor<128xf16>} : tensor<128xf16, #vec>
  spyre.plan []
}

// -----

#vec = #spyre.layout<stick_dim = 0, stick_elems = 64>
module {
  // expected-error @+1 {{resource blob of the weight is missing}}
  spyre.tensor @w weight {value = dense_resource<nowhere> : tensor<128xf16>} : tensor<128xf16, #vec>
  spyre.plan []
}

// -----

#vec = #spyre.layout<stick_dim = 0, stick_elems = 64>
module {
  // expected-error @+1 {{resource blob has 4 bytes, the tensor needs 256}}
  spyre.tensor @w weight {value = dense_resource<blob1> : tensor<128xf16>} : tensor<128xf16, #vec>
  spyre.plan []
}
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x0400000001020304"
    }
  }
#-}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 64>
module {
  spyre.tensor @x input {io_index = 0 : i64} : tensor<10x128xf16, #row>
  spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
    // expected-error @+1 {{cannot encode 'test.op'}}
    "test.op"() : () -> ()
  }
  spyre.plan [@p]
}

// -----

// Fields the verifiers leave to the encoding: 32-bit device pitches and
// strides, loop counts, clamp extents.
#row = #spyre.layout<stick_dim = 1, stick_elems = 64>
module {
  spyre.tensor @x input {io_index = 0 : i64} : tensor<10x128xf16, #row>
  spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
    // expected-error @+1 {{pitch 5000000000 does not fit its instruction field}}
    spyre.dma_load {box = array<i64: 1, 1, 1>, lx = #spyre.lx<offset = 0>, mem = #spyre.mem<tensor = @x, offset = 0>, pitch = array<i64: 5000000000, 0, 0>, run = 256 : i64}
  }
  spyre.plan [@p]
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 64>
module {
  spyre.tensor @x input {io_index = 0 : i64} : tensor<10x128xf16, #row>
  spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
    spyre.loop 2 {
      // expected-error @+1 {{memory stride 5000000000 does not fit its instruction field}}
      spyre.dma_load {box = array<i64: 1, 1, 1>, lx = #spyre.lx<offset = 0>, mem = #spyre.mem<tensor = @x, offset = 0, strides = [5000000000]>, pitch = array<i64: 256, 0, 0>, run = 256 : i64}
    }
  }
  spyre.plan [@p]
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 64>
module {
  spyre.tensor @x input {io_index = 0 : i64} : tensor<10x128xf16, #row>
  spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
    // expected-error @+1 {{loop count 5000000000 does not fit its instruction field}}
    spyre.loop 5000000000 {
    }
  }
  spyre.plan [@p]
}

// -----

#row = #spyre.layout<stick_dim = 1, stick_elems = 64>
module {
  spyre.tensor @x input {io_index = 0 : i64} : tensor<10x128xf16, #row>
  spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
    // expected-error @+1 {{clamp total 5000000000 does not fit its instruction field}}
    spyre.dma_load {box = array<i64: 3, 1, 1>, clamp = #spyre.clamp<level = 0, arg = 0, step = 3, total = 5000000000, param = -1>, lx = #spyre.lx<offset = 0>, mem = #spyre.mem<tensor = @x, offset = 0>, pitch = array<i64: 256, 0, 0>, run = 256 : i64}
  }
  spyre.plan [@p]
}
