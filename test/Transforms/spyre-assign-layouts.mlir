// RUN: spyre-opt %s --spyre-assign-layouts --split-input-file | FileCheck %s

// The PT unit's needs: lhs sticked along K, rhs and result along N. A
// weight used transposed (linear) takes the K-major layout for free.
// CHECK-DAG: #[[ROW:.*]] = #spyre.layout<stick_dim = 1, stick_elems = 64>
// CHECK-DAG: #[[KMAJOR:.*]] = #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>
// CHECK-DAG: #[[VEC:.*]] = #spyre.layout<stick_dim = 0, stick_elems = 64>
// CHECK-LABEL: func.func @linear
// CHECK-SAME: (%{{.*}}: tensor<64x256xf16, #[[ROW]]>) -> tensor<64x1024xf16, #[[ROW]]>
// CHECK: spyre.weight "w" parameter {{.*}} : tensor<1024x256xf16, #[[KMAJOR]]>
// CHECK: spyre.weight "b" parameter {{.*}} : tensor<1024xf16, #[[VEC]]>
// CHECK-NOT: spyre.restickify
// CHECK: spyre.matmul
// CHECK-SAME: -> tensor<64x1024xf16, #[[ROW]]>
func.func @linear(%x: tensor<64x256xf16>) -> tensor<64x1024xf16> {
  %w = spyre.weight "w" parameter = dense<1.0> : tensor<1024x256xf16> : tensor<1024x256xf16>
  %b = spyre.weight "b" parameter = dense<1.0> : tensor<1024xf16> : tensor<1024xf16>
  %0 = spyre.matmul %x, %w {transpose_rhs} : tensor<64x256xf16>, tensor<1024x256xf16> -> tensor<64x1024xf16>
  %1 = spyre.binary add %0, %b : tensor<64x1024xf16>, tensor<1024xf16> -> tensor<64x1024xf16>
  return %1 : tensor<64x1024xf16>
}

// -----

// fp32 tensors have 32-element sticks; a function argument read transposed
// by the matmul takes the transposed layout (the runtime converts inputs).
// CHECK-DAG: #[[T:.*]] = #spyre.layout<stick_dim = 0, stick_elems = 32, dim_order = [1, 0]>
// CHECK-LABEL: func.func @transposed_input
// CHECK-SAME: (%{{.*}}: tensor<128x32xf32, #[[T]]>
// CHECK-NOT: spyre.restickify
func.func @transposed_input(%x: tensor<128x32xf32>, %w: tensor<128x64xf32>) -> tensor<32x64xf32> {
  %0 = spyre.matmul %x, %w {transpose_lhs} : tensor<128x32xf32>, tensor<128x64xf32> -> tensor<32x64xf32>
  return %0 : tensor<32x64xf32>
}

// -----

// A computed value needed in two layouts: its producer's layout plus one
// restickify for the other use (shared by every use that needs it).
// CHECK-DAG: #[[ROW:.*]] = #spyre.layout<stick_dim = 1, stick_elems = 64>
// CHECK-DAG: #[[T:.*]] = #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>
// CHECK-LABEL: func.func @restickify_once
// CHECK: %[[K:.*]] = spyre.unary relu
// CHECK-SAME: -> tensor<16x64xf16, #[[ROW]]>
// CHECK: %[[R:.*]] = spyre.restickify %[[K]] : tensor<16x64xf16, #[[ROW]]> -> tensor<16x64xf16, #[[T]]>
// CHECK-NOT: spyre.restickify
// CHECK: spyre.matmul %{{.*}}, %[[R]] {transpose_rhs}
// CHECK: spyre.matmul %{{.*}}, %[[R]] {transpose_rhs}
// CHECK: spyre.binary add %[[K]], %[[K]]
func.func @restickify_once(%q: tensor<8x64xf16>, %k: tensor<16x64xf16>) -> (tensor<8x16xf16>, tensor<8x16xf16>, tensor<16x64xf16>) {
  %kk = spyre.unary relu %k : tensor<16x64xf16> -> tensor<16x64xf16>
  %0 = spyre.matmul %q, %kk {transpose_rhs} : tensor<8x64xf16>, tensor<16x64xf16> -> tensor<8x16xf16>
  %1 = spyre.matmul %q, %kk {transpose_rhs} : tensor<8x64xf16>, tensor<16x64xf16> -> tensor<8x16xf16>
  %2 = spyre.binary add %kk, %kk : tensor<16x64xf16>, tensor<16x64xf16> -> tensor<16x64xf16>
  return %0, %1, %2 : tensor<8x16xf16>, tensor<8x16xf16>, tensor<16x64xf16>
}

// -----

// A free value takes the layout most of its uses need (two transposed
// matmul uses against one elementwise use).
// CHECK-DAG: #[[ROW:.*]] = #spyre.layout<stick_dim = 1, stick_elems = 64>
// CHECK-DAG: #[[T:.*]] = #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>
// CHECK-LABEL: func.func @majority
// CHECK-SAME: %[[W:[^:]*]]: tensor<16x64xf16, #[[T]]>
// CHECK: %[[R:.*]] = spyre.restickify %[[W]] : tensor<16x64xf16, #[[T]]> -> tensor<16x64xf16, #[[ROW]]>
// CHECK: spyre.unary neg %[[R]]
func.func @majority(%q: tensor<8x64xf16>, %w: tensor<16x64xf16>) -> (tensor<16x64xf16>, tensor<8x16xf16>, tensor<8x16xf16>) {
  %n = spyre.unary neg %w : tensor<16x64xf16> -> tensor<16x64xf16>
  %0 = spyre.matmul %q, %w {transpose_rhs} : tensor<8x64xf16>, tensor<16x64xf16> -> tensor<8x16xf16>
  %1 = spyre.matmul %q, %w {transpose_rhs} : tensor<8x64xf16>, tensor<16x64xf16> -> tensor<8x16xf16>
  return %n, %0, %1 : tensor<16x64xf16>, tensor<8x16xf16>, tensor<8x16xf16>
}

// -----

// Rank-0 splats have one stick and no stick dim.
// CHECK-DAG: #[[S:.*]] = #spyre.layout<stick_dim = -1, stick_elems = 32>
// CHECK-LABEL: func.func @scalar
// CHECK: spyre.constant dense<2.000000e+00> : tensor<f32> : tensor<f32, #[[S]]>
func.func @scalar(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = spyre.constant dense<2.0> : tensor<f32> : tensor<f32>
  %0 = spyre.binary mul %x, %c : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A result holding a mutated input's new contents takes the input's layout
// (the runtime copies it over the input byte for byte): the transposed
// result is restickified back.
// CHECK-LABEL: func.func @mutated_input_layout
// CHECK-SAME: (%{{.*}}: tensor<64x64xf16, #[[XL:layout[0-9]*]]> {spyre.name = "x"})
// CHECK: %[[MM:.*]] = spyre.matmul
// CHECK: %[[T:.*]] = spyre.transpose %[[MM]]
// CHECK: %[[R:.*]] = spyre.restickify %[[T]] : tensor<64x64xf16, #{{layout[0-9]*}}> -> tensor<64x64xf16, #[[XL]]>
// CHECK: return %[[MM]], %[[R]]
func.func @mutated_input_layout(%x: tensor<64x64xf16> {spyre.name = "x"}) -> (tensor<64x64xf16> {spyre.output = "user"}, tensor<64x64xf16> {spyre.output = "user_input_mutation:x"}) {
  %w = spyre.constant dense<1.0> : tensor<64x64xf16> : tensor<64x64xf16>
  %0 = spyre.matmul %w, %x {transpose_rhs} : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf16>
  %1 = spyre.transpose %0 [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
  return %0, %1 : tensor<64x64xf16>, tensor<64x64xf16>
}

// -----

// A weight read in two layouts (a tied embedding/lm_head table: here a
// transposed matmul and an elementwise use, two against one) is written
// twice by the emitter, once per layout: no restickify of load-time data is
// left for the device to run. A constant likewise.
// CHECK-DAG: #[[ROW:.*]] = #spyre.layout<stick_dim = 1, stick_elems = 64>
// CHECK-DAG: #[[T:.*]] = #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>
// CHECK-LABEL: func.func @weight_in_two_layouts
// CHECK: %[[W:.*]] = spyre.weight "tied" parameter = dense<5.000000e-01> : tensor<16x64xf16> : tensor<16x64xf16, #[[T]]>
// CHECK: %[[WROW:.*]] = spyre.weight "tied" parameter = dense<5.000000e-01> : tensor<16x64xf16> : tensor<16x64xf16, #[[ROW]]>
// CHECK: %[[C:.*]] = spyre.constant dense<2.000000e+00> : tensor<16x64xf16> : tensor<16x64xf16, #[[T]]>
// CHECK: %[[CROW:.*]] = spyre.constant dense<2.000000e+00> : tensor<16x64xf16> : tensor<16x64xf16, #[[ROW]]>
// CHECK-NOT: spyre.restickify
// CHECK: spyre.unary neg %[[WROW]]
// CHECK: spyre.matmul %{{.*}}, %[[W]]
// CHECK: spyre.matmul %{{.*}}, %[[W]]
// CHECK: spyre.unary neg %[[CROW]]
// CHECK: spyre.matmul %{{.*}}, %[[C]]
// CHECK: spyre.matmul %{{.*}}, %[[C]]
func.func @weight_in_two_layouts(%q: tensor<8x64xf16>) -> (tensor<16x64xf16>, tensor<8x16xf16>, tensor<8x16xf16>, tensor<16x64xf16>, tensor<8x16xf16>, tensor<8x16xf16>) {
  %w = spyre.weight "tied" parameter = dense<0.5> : tensor<16x64xf16> : tensor<16x64xf16>
  %c = spyre.constant dense<2.0> : tensor<16x64xf16> : tensor<16x64xf16>
  %n = spyre.unary neg %w : tensor<16x64xf16> -> tensor<16x64xf16>
  %0 = spyre.matmul %q, %w {transpose_rhs} : tensor<8x64xf16>, tensor<16x64xf16> -> tensor<8x16xf16>
  %1 = spyre.matmul %q, %w {transpose_rhs} : tensor<8x64xf16>, tensor<16x64xf16> -> tensor<8x16xf16>
  %m = spyre.unary neg %c : tensor<16x64xf16> -> tensor<16x64xf16>
  %2 = spyre.matmul %q, %c {transpose_rhs} : tensor<8x64xf16>, tensor<16x64xf16> -> tensor<8x16xf16>
  %3 = spyre.matmul %q, %c {transpose_rhs} : tensor<8x64xf16>, tensor<16x64xf16> -> tensor<8x16xf16>
  return %n, %0, %1, %m, %2, %3 : tensor<16x64xf16>, tensor<8x16xf16>, tensor<8x16xf16>, tensor<16x64xf16>, tensor<8x16xf16>, tensor<8x16xf16>
}

// -----

// A buffer the program mutates stays one tensor (the runtime writes its new
// contents over it): the other layout is a restickify.
// CHECK-LABEL: func.func @mutated_buffer_in_two_layouts
// CHECK: %[[S:.*]] = spyre.weight "state" buffer
// CHECK-NOT: spyre.weight "state"
// CHECK: spyre.restickify %[[S]]
func.func @mutated_buffer_in_two_layouts(%q: tensor<8x64xf16>) -> (tensor<8x16xf16> {spyre.output = "user"}, tensor<8x16xf16> {spyre.output = "user"}, tensor<16x64xf16> {spyre.output = "buffer_mutation:state"}) {
  %s = spyre.weight "state" buffer = dense<0.5> : tensor<16x64xf16> : tensor<16x64xf16>
  %n = spyre.unary neg %s : tensor<16x64xf16> -> tensor<16x64xf16>
  %0 = spyre.matmul %q, %s {transpose_rhs} : tensor<8x64xf16>, tensor<16x64xf16> -> tensor<8x16xf16>
  %1 = spyre.matmul %q, %s {transpose_rhs} : tensor<8x64xf16>, tensor<16x64xf16> -> tensor<8x16xf16>
  return %0, %1, %n : tensor<8x16xf16>, tensor<8x16xf16>, tensor<16x64xf16>
}
