// RUN: spyre-translate %s -o %t.spy
// RUN: spyre-translate --spy-to-text %t.spy | FileCheck %s
// The emitter is deterministic: the same IR gives the same bytes.
// RUN: spyre-translate --spyre-to-spy %s -o %t2.spy
// RUN: cmp %t.spy %t2.spy
// Without a translation flag the input selects it: MLIR is emitted whatever
// the output's name (stdout too), a .spy is dumped, a .pt2 imported.
// RUN: spyre-translate %s -o - | cmp - %t.spy
// RUN: spyre-translate %s -o %t.any && cmp %t.any %t.spy
// RUN: spyre-translate %t.spy | FileCheck %s
// RUN: cat %t.spy | spyre-translate --spy-to-text | FileCheck %s
// A .pt2 to a .spy is spyre-compile's job: said, not misread.
// RUN: not spyre-translate %S/../Import/Inputs/aliased_weights.pt2 -o %t.x.spy 2>&1 | FileCheck %s --check-prefix=PT2
// PT2: spyre-translate: error: '{{.*}}aliased_weights.pt2' is an exported program, not program-level MLIR: compile it with spyre-compile (or import it with --import-pt2 and run spyre-opt --spyre-pipeline)

// A hand-written program-level module: one input, one f16 weight of two
// sticks (a splat), one output; one program on 2 cores with a loop, a
// clamped load, an SFP op and a store.
// CHECK: spy format 3.{{[0-9]+}}, arch "spyre-v1-default" hash 0x{{[0-9a-f]+}}
// CHECK: workspace: 0 bytes
// CHECK: tensor 0 "x": input #0 f16 [10, 128] stick_dim=1 dim_order=[0, 1] device_shape=[10, 2, 64] bytes=2560
// CHECK: tensor 1 "y": output #0 f16 [10, 128] stick_dim=1 dim_order=[0, 1] device_shape=[10, 2, 64] bytes=2560
// CHECK: tensor 2 "w": weight f16 [128] stick_dim=0 dim_order=[0] device_shape=[2, 64] bytes=256 segment=1
// CHECK: program 0 "p": cores 2, params 2, instructions 6, segment 0
// CHECK-NEXT: core 0 params [0, 0]
// CHECK-NEXT: core 1 params [1536, 6]
// CHECK-NEXT: 0: dma_load mem=@w(load) lx=lx:4096 box=[1, 1, 1] pitch=[0, 0, 0] run=256 multicast
// CHECK-NEXT: 1: loop count=2
// CHECK-NEXT: 2:   dma_load mem=@x(launch)+p0+iv*[768, 0, 0] lx=lx:0+iv*[768, 0, 0]%1536 box=[3, 1, 1] pitch=[256, 0, 0] run=256 clamp(arg0, level 0, step 3, total 10, start=p1)
// CHECK-NEXT: 3:   sfp_binary mul dst=lx:2048 src0=lx:0+iv*[768, 0, 0]%1536 src1=lx:4096 rows=3 cols=128 pitch=[256, 256, 0] types=f16,f16,f16
// CHECK-NEXT: 4:   dma_store mem=@y(launch)+p0+iv*[768, 0, 0] lx=lx:2048 box=[3, 1, 1] pitch=[256, 0, 0] run=256 clamp(arg0, level 0, step 3, total 10, start=p1)
// CHECK-NEXT: 5: endloop
// CHECK: plan: p

#row = #spyre.layout<stick_dim = 1, stick_elems = 64>
#vec = #spyre.layout<stick_dim = 0, stick_elems = 64>
module {
  spyre.tensor @x input {io_index = 0 : i64} : tensor<10x128xf16, #row>
  spyre.tensor @y output {io_index = 0 : i64} : tensor<10x128xf16, #row>
  spyre.tensor @w weight {value = dense<2.0> : tensor<128xf16>} : tensor<128xf16, #vec>
  spyre.program @p attributes {kernel = "k", num_cores = 2 : i64, num_params = 2 : i64, params = array<i64: 0, 0, 1536, 6>} {
    spyre.dma_load {box = array<i64: 1, 1, 1>, lx = #spyre.lx<offset = 4096>, mem = #spyre.mem<tensor = @w, offset = 0>, multicast, pitch = array<i64: 0, 0, 0>, run = 256 : i64}
    spyre.loop 2 {
      spyre.dma_load {box = array<i64: 3, 1, 1>, clamp = #spyre.clamp<level = 0, arg = 0, step = 3, total = 10, param = 1>, lx = #spyre.lx<offset = 0, strides = [768], wrap = 1536>, mem = #spyre.mem<tensor = @x, offset = 0, strides = [768], param = 0>, pitch = array<i64: 256, 0, 0>, run = 256 : i64}
      spyre.sfp_binary "mul" {cols = 128 : i64, dst = #spyre.lx<offset = 2048>, dst_type = f16, pitch = array<i64: 256, 256, 0>, rows = 3 : i64, src0 = #spyre.lx<offset = 0, strides = [768], wrap = 1536>, src0_type = f16, src1 = #spyre.lx<offset = 4096>, src1_type = f16}
      spyre.dma_store {box = array<i64: 3, 1, 1>, clamp = #spyre.clamp<level = 0, arg = 0, step = 3, total = 10, param = 1>, lx = #spyre.lx<offset = 2048>, mem = #spyre.mem<tensor = @y, offset = 0, strides = [768], param = 0>, pitch = array<i64: 256, 0, 0>, run = 256 : i64}
    }
  }
  spyre.plan [@p]
}
