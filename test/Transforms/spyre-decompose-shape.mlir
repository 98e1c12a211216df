// RUN: spyre-opt %s --spyre-decompose --split-input-file --mlir-print-elementsattrs-with-hex-if-larger=100000 | FileCheck %s

// Shape and data movement ops (lib/Transforms/Decompositions/Views.cpp, Indexing.cpp, Creation.cpp):
// views are spyre.reshape / broadcast, windows spyre.slice, joins
// spyre.concat, index ops spyre.gather / scatter, factories constants.
// The RoPE rotate_half adapter is in spyre-decompose-adapters.mlir.

// view, _unsafe_view, reshape, unsqueeze, squeeze.dim, flatten: one
// spyre.reshape to the node's result shape (-1 resolved by the importer);
// squeeze(unsqueeze(x)) folds back to x.
// CHECK-LABEL: func.func @views
// CHECK-NEXT: %[[V:.*]] = spyre.reshape %arg0 : tensor<2x5x67xf32> -> tensor<10x67xf32>
// CHECK-NEXT: %[[U:.*]] = spyre.reshape %arg0 : tensor<2x5x67xf32> -> tensor<10x67xf32>
// CHECK-NEXT: %[[R:.*]] = spyre.reshape %arg0 : tensor<2x5x67xf32> -> tensor<2x335xf32>
// CHECK-NEXT: %[[UNSQ:.*]] = spyre.reshape %arg0 : tensor<2x5x67xf32> -> tensor<2x1x5x67xf32>
// CHECK-NEXT: %[[F:.*]] = spyre.reshape %arg0 : tensor<2x5x67xf32> -> tensor<2x335xf32>
// CHECK-NEXT: return %[[V]], %[[U]], %[[R]], %[[UNSQ]], %arg0, %[[F]]
func.func @views(%x: tensor<2x5x67xf32>) -> (tensor<10x67xf32>, tensor<10x67xf32>, tensor<2x335xf32>, tensor<2x1x5x67xf32>, tensor<2x5x67xf32>, tensor<2x335xf32>) {
  %0 = spyre.aten "aten.view.default"(%x) {args = {size = [-1, 67]}, tensor_args = ["self"]} : (tensor<2x5x67xf32>) -> tensor<10x67xf32>
  %1 = spyre.aten "aten._unsafe_view.default"(%x) {args = {size = [10, 67]}, tensor_args = ["self"]} : (tensor<2x5x67xf32>) -> tensor<10x67xf32>
  %2 = spyre.aten "aten.reshape.default"(%x) {args = {shape = [2, -1]}, tensor_args = ["self"]} : (tensor<2x5x67xf32>) -> tensor<2x335xf32>
  %3 = spyre.aten "aten.unsqueeze.default"(%x) {args = {dim = 1 : i64}, tensor_args = ["self"]} : (tensor<2x5x67xf32>) -> tensor<2x1x5x67xf32>
  %4 = spyre.aten "aten.squeeze.dim"(%3) {args = {dim = 1 : i64}, tensor_args = ["self"]} : (tensor<2x1x5x67xf32>) -> tensor<2x5x67xf32>
  %5 = spyre.aten "aten.flatten.using_ints"(%x) {args = {end_dim = -1 : i64, start_dim = 1 : i64}, tensor_args = ["self"]} : (tensor<2x5x67xf32>) -> tensor<2x335xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<10x67xf32>, tensor<10x67xf32>, tensor<2x335xf32>, tensor<2x1x5x67xf32>, tensor<2x5x67xf32>, tensor<2x335xf32>
}

// -----

// CHECK-LABEL: func.func @squeeze_default
// CHECK-NEXT: %[[R:.*]] = spyre.reshape %arg0 : tensor<7x1x67xf16> -> tensor<7x67xf16>
// CHECK-NEXT: return %[[R]]
func.func @squeeze_default(%x: tensor<7x1x67xf16>) -> tensor<7x67xf16> {
  %0 = spyre.aten "aten.squeeze.default"(%x) {args = {}, tensor_args = ["self"]} : (tensor<7x1x67xf16>) -> tensor<7x67xf16>
  return %0 : tensor<7x67xf16>
}

// -----

// permute: a transpose with the permutation.
// CHECK-LABEL: func.func @permute
// CHECK-NEXT: %[[T:.*]] = spyre.transpose %arg0 [2, 0, 1] : tensor<2x5x71xf16> -> tensor<71x2x5xf16>
// CHECK-NEXT: return %[[T]]
func.func @permute(%x: tensor<2x5x71xf16>) -> tensor<71x2x5xf16> {
  %0 = spyre.aten "aten.permute.default"(%x) {args = {dims = [2, 0, 1]}, tensor_args = ["self"]} : (tensor<2x5x71xf16>) -> tensor<71x2x5xf16>
  return %0 : tensor<71x2x5xf16>
}

// -----

// transpose.int: a swap of two dims (negative dims normalized); swapping a
// dim with itself is nothing.
// CHECK-LABEL: func.func @transpose
// CHECK-NEXT: %[[A:.*]] = spyre.transpose %arg0 [1, 0, 2] : tensor<2x5x67xf16> -> tensor<5x2x67xf16>
// CHECK-NEXT: %[[B:.*]] = spyre.transpose %arg0 [0, 2, 1] : tensor<2x5x67xf16> -> tensor<2x67x5xf16>
// CHECK-NEXT: return %[[A]], %[[B]], %arg0
func.func @transpose(%x: tensor<2x5x67xf16>) -> (tensor<5x2x67xf16>, tensor<2x67x5xf16>, tensor<2x5x67xf16>) {
  %0 = spyre.aten "aten.transpose.int"(%x) {args = {dim0 = 0 : i64, dim1 = 1 : i64}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> tensor<5x2x67xf16>
  %1 = spyre.aten "aten.transpose.int"(%x) {args = {dim0 = -1 : i64, dim1 = -2 : i64}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> tensor<2x67x5xf16>
  %2 = spyre.aten "aten.transpose.int"(%x) {args = {dim0 = 1 : i64, dim1 = 1 : i64}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> tensor<2x5x67xf16>
  return %0, %1, %2 : tensor<5x2x67xf16>, tensor<2x67x5xf16>, tensor<2x5x67xf16>
}

// -----

// t: [1, 0] for a matrix, nothing for a vector.
// CHECK-LABEL: func.func @t
// CHECK-NEXT: %[[T:.*]] = spyre.transpose %arg0 [1, 0] : tensor<7x67xf16> -> tensor<67x7xf16>
// CHECK-NEXT: return %[[T]], %arg1
func.func @t(%x: tensor<7x67xf16>, %v: tensor<8xf16>) -> (tensor<67x7xf16>, tensor<8xf16>) {
  %0 = spyre.aten "aten.t.default"(%x) {args = {}, tensor_args = ["self"]} : (tensor<7x67xf16>) -> tensor<67x7xf16>
  %1 = spyre.aten "aten.t.default"(%v) {args = {}, tensor_args = ["self"]} : (tensor<8xf16>) -> tensor<8xf16>
  return %0, %1 : tensor<67x7xf16>, tensor<8xf16>
}

// -----

// expand: a broadcast; to the same shape, nothing.
// CHECK-LABEL: func.func @expand
// CHECK-NEXT: %[[B:.*]] = spyre.broadcast %arg0 : tensor<1x5x67xf16> -> tensor<2x5x67xf16>
// CHECK-NEXT: return %[[B]], %arg0
func.func @expand(%x: tensor<1x5x67xf16>) -> (tensor<2x5x67xf16>, tensor<1x5x67xf16>) {
  %0 = spyre.aten "aten.expand.default"(%x) {args = {implicit = false, size = [2, -1, -1]}, tensor_args = ["self"]} : (tensor<1x5x67xf16>) -> tensor<2x5x67xf16>
  %1 = spyre.aten "aten.expand.default"(%x) {args = {implicit = false, size = [1, -1, -1]}, tensor_args = ["self"]} : (tensor<1x5x67xf16>) -> tensor<1x5x67xf16>
  return %0, %1 : tensor<2x5x67xf16>, tensor<1x5x67xf16>
}

// -----

// slice: a window with offsets and strides; a negative start counts from
// the end (-64 of 67 = 3), the end is clamped; the full window is nothing.
// CHECK-LABEL: func.func @slice
// CHECK: %[[A:.*]] = spyre.slice %arg0 offsets [0, 1, 0] strides [1, 1, 1] : tensor<2x5x67xf16> -> tensor<2x3x67xf16>
// CHECK: %[[C:.*]] = spyre.cast %arg0
// CHECK: %[[B:.*]] = spyre.slice %[[C]] offsets [0, 0, 3] strides [1, 1, 3] : tensor<2x5x67xf32> -> tensor<2x5x22xf32>
// CHECK: return %[[A]], %[[B]], %arg0
func.func @slice(%x: tensor<2x5x67xf16>) -> (tensor<2x3x67xf16>, tensor<2x5x22xf32>, tensor<2x5x67xf16>) {
  %0 = spyre.aten "aten.slice.Tensor"(%x) {args = {dim = 1 : i64, end = 4 : i64, start = 1 : i64, step = 1 : i64}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> tensor<2x3x67xf16>
  %c = spyre.aten "aten.to.dtype"(%x) {args = {copy = false, dtype = "f32", memory_format, non_blocking = false}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> tensor<2x5x67xf32>
  %1 = spyre.aten "aten.slice.Tensor"(%c) {args = {dim = -1 : i64, end = 9223372036854775807 : i64, start = -64 : i64, step = 3 : i64}, tensor_args = ["self"]} : (tensor<2x5x67xf32>) -> tensor<2x5x22xf32>
  %2 = spyre.aten "aten.slice.Tensor"(%x) {args = {dim = 0 : i64, end = 9223372036854775807 : i64, start = 0 : i64, step = 1 : i64}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> tensor<2x5x67xf16>
  return %0, %1, %2 : tensor<2x3x67xf16>, tensor<2x5x22xf32>, tensor<2x5x67xf16>
}

// -----

// select.int: a one-wide slice, then a reshape drops the dim; a negative
// index counts from the end.
// CHECK-LABEL: func.func @select
// CHECK-NEXT: %[[A:.*]] = spyre.slice %arg0 offsets [0, 3, 0] strides [1, 1, 1] : tensor<2x5x67xf16> -> tensor<2x1x67xf16>
// CHECK-NEXT: %[[AR:.*]] = spyre.reshape %[[A]] : tensor<2x1x67xf16> -> tensor<2x67xf16>
// CHECK-NEXT: %[[B:.*]] = spyre.slice %arg0 offsets [1, 0, 0] strides [1, 1, 1] : tensor<2x5x67xf16> -> tensor<1x5x67xf16>
// CHECK-NEXT: %[[BR:.*]] = spyre.reshape %[[B]] : tensor<1x5x67xf16> -> tensor<5x67xf16>
// CHECK-NEXT: return %[[AR]], %[[BR]]
func.func @select(%x: tensor<2x5x67xf16>) -> (tensor<2x67xf16>, tensor<5x67xf16>) {
  %0 = spyre.aten "aten.select.int"(%x) {args = {dim = 1 : i64, index = 3 : i64}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> tensor<2x67xf16>
  %1 = spyre.aten "aten.select.int"(%x) {args = {dim = 0 : i64, index = -1 : i64}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> tensor<5x67xf16>
  return %0, %1 : tensor<2x67xf16>, tensor<5x67xf16>
}

// -----

// cat: one concat; an empty legacy [0] input is dropped.
// CHECK-LABEL: func.func @cat
// CHECK-NEXT: %[[C:.*]] = spyre.concat %arg0, %arg1 dim 0 : tensor<2x67xf32>, tensor<5x67xf32> -> tensor<7x67xf32>
// CHECK-NEXT: return %[[C]]
func.func @cat(%a: tensor<2x67xf32>, %b: tensor<5x67xf32>, %e: tensor<0xf32>) -> tensor<7x67xf32> {
  %0 = spyre.aten "aten.cat.default"(%a, %e, %b) {args = {dim = 0 : i64}, tensor_args = ["tensors", "tensors", "tensors"]} : (tensor<2x67xf32>, tensor<0xf32>, tensor<5x67xf32>) -> tensor<7x67xf32>
  return %0 : tensor<7x67xf32>
}

// -----

// cat along the last dim with mixed dtypes: inputs converted first.
// CHECK-LABEL: func.func @cat_last_promote
// CHECK: %[[A:.*]] = spyre.cast %arg0 : tensor<4x3xf16> -> tensor<4x3xf32>
// CHECK: spyre.concat %[[A]], %arg1 dim 1 : tensor<4x3xf32>, tensor<4x5xf32> -> tensor<4x8xf32>
func.func @cat_last_promote(%a: tensor<4x3xf16>, %b: tensor<4x5xf32>) -> tensor<4x8xf32> {
  %0 = spyre.aten "aten.cat.default"(%a, %b) {args = {dim = -1 : i64}, tensor_args = ["tensors", "tensors"]} : (tensor<4x3xf16>, tensor<4x5xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// split.Tensor: consecutive slices, sizes from the results (30, 30, 7).
// CHECK-LABEL: func.func @split
// CHECK-NEXT: %[[A:.*]] = spyre.slice %arg0 offsets [0, 0, 0] strides [1, 1, 1] : tensor<2x5x67xf16> -> tensor<2x5x30xf16>
// CHECK-NEXT: %[[B:.*]] = spyre.slice %arg0 offsets [0, 0, 30] strides [1, 1, 1] : tensor<2x5x67xf16> -> tensor<2x5x30xf16>
// CHECK-NEXT: %[[C:.*]] = spyre.slice %arg0 offsets [0, 0, 60] strides [1, 1, 1] : tensor<2x5x67xf16> -> tensor<2x5x7xf16>
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]]
func.func @split(%x: tensor<2x5x67xf16>) -> (tensor<2x5x30xf16>, tensor<2x5x30xf16>, tensor<2x5x7xf16>) {
  %0:3 = spyre.aten "aten.split.Tensor"(%x) {args = {dim = -1 : i64, split_size = 30 : i64}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> (tensor<2x5x30xf16>, tensor<2x5x30xf16>, tensor<2x5x7xf16>)
  return %0#0, %0#1, %0#2 : tensor<2x5x30xf16>, tensor<2x5x30xf16>, tensor<2x5x7xf16>
}

// -----

// CHECK-LABEL: func.func @split_with_sizes
// CHECK-NEXT: %[[A:.*]] = spyre.slice %arg0 offsets [0, 0, 0] strides [1, 1, 1] : tensor<2x5x67xf16> -> tensor<2x5x10xf16>
// CHECK-NEXT: %[[B:.*]] = spyre.slice %arg0 offsets [0, 0, 10] strides [1, 1, 1] : tensor<2x5x67xf16> -> tensor<2x5x57xf16>
// CHECK-NEXT: return %[[A]], %[[B]]
func.func @split_with_sizes(%x: tensor<2x5x67xf16>) -> (tensor<2x5x10xf16>, tensor<2x5x57xf16>) {
  %0:2 = spyre.aten "aten.split_with_sizes.default"(%x) {args = {dim = -1 : i64, split_sizes = [10, 57]}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> (tensor<2x5x10xf16>, tensor<2x5x57xf16>)
  return %0#0, %0#1 : tensor<2x5x10xf16>, tensor<2x5x57xf16>
}

// -----

// chunk along dim 1 (5 into 2, 2, 1).
// CHECK-LABEL: func.func @chunk
// CHECK-NEXT: %[[A:.*]] = spyre.slice %arg0 offsets [0, 0, 0] strides [1, 1, 1] : tensor<2x5x67xf16> -> tensor<2x2x67xf16>
// CHECK-NEXT: %[[B:.*]] = spyre.slice %arg0 offsets [0, 2, 0] strides [1, 1, 1] : tensor<2x5x67xf16> -> tensor<2x2x67xf16>
// CHECK-NEXT: %[[C:.*]] = spyre.slice %arg0 offsets [0, 4, 0] strides [1, 1, 1] : tensor<2x5x67xf16> -> tensor<2x1x67xf16>
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]]
func.func @chunk(%x: tensor<2x5x67xf16>) -> (tensor<2x2x67xf16>, tensor<2x2x67xf16>, tensor<2x1x67xf16>) {
  %0:3 = spyre.aten "aten.chunk.default"(%x) {args = {chunks = 3 : i64, dim = 1 : i64}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> (tensor<2x2x67xf16>, tensor<2x2x67xf16>, tensor<2x1x67xf16>)
  return %0#0, %0#1, %0#2 : tensor<2x2x67xf16>, tensor<2x2x67xf16>, tensor<2x1x67xf16>
}

// -----

// index_select along dim 0: a gather of rows.
// CHECK-LABEL: func.func @index_select
// CHECK-NEXT: %[[G:.*]] = spyre.gather %arg0[%arg1] : tensor<7x67xf16>, tensor<5xi64> -> tensor<5x67xf16>
// CHECK-NEXT: return %[[G]]
func.func @index_select(%x: tensor<7x67xf16>, %i: tensor<5xi64>) -> tensor<5x67xf16> {
  %0 = spyre.aten "aten.index_select.default"(%x, %i) {args = {dim = 0 : i64}, tensor_args = ["self", "index"]} : (tensor<7x67xf16>, tensor<5xi64>) -> tensor<5x67xf16>
  return %0 : tensor<5x67xf16>
}

// -----

// index_select along dim 1: the dim moved first by a transpose, the rest
// flattened into rows, gathered, and moved back.
// CHECK-LABEL: func.func @index_select_dim1
// CHECK-NEXT: %[[T:.*]] = spyre.transpose %arg0 [1, 0, 2] : tensor<3x7x8xf32> -> tensor<7x3x8xf32>
// CHECK-NEXT: %[[R:.*]] = spyre.reshape %[[T]] : tensor<7x3x8xf32> -> tensor<7x24xf32>
// CHECK-NEXT: %[[G:.*]] = spyre.gather %[[R]][%arg1] : tensor<7x24xf32>, tensor<4xi32> -> tensor<4x24xf32>
// CHECK-NEXT: %[[GR:.*]] = spyre.reshape %[[G]] : tensor<4x24xf32> -> tensor<4x3x8xf32>
// CHECK-NEXT: %[[B:.*]] = spyre.transpose %[[GR]] [1, 0, 2] : tensor<4x3x8xf32> -> tensor<3x4x8xf32>
// CHECK-NEXT: return %[[B]]
func.func @index_select_dim1(%x: tensor<3x7x8xf32>, %i: tensor<4xi32>) -> tensor<3x4x8xf32> {
  %0 = spyre.aten "aten.index_select.default"(%x, %i) {args = {dim = 1 : i64}, tensor_args = ["self", "index"]} : (tensor<3x7x8xf32>, tensor<4xi32>) -> tensor<3x4x8xf32>
  return %0 : tensor<3x4x8xf32>
}

// -----

// embedding: a gather of table rows by a 2-D index tensor.
// CHECK-LABEL: func.func @embedding
// CHECK-NEXT: %[[G:.*]] = spyre.gather %arg0[%arg1] : tensor<16x8xf32>, tensor<2x5xi64> -> tensor<2x5x8xf32>
// CHECK-NEXT: return %[[G]]
func.func @embedding(%w: tensor<16x8xf32>, %i: tensor<2x5xi64>) -> tensor<2x5x8xf32> {
  %0 = spyre.aten "aten.embedding.default"(%w, %i) {args = {padding_idx = -1 : i64, scale_grad_by_freq = false, sparse = false}, tensor_args = ["weight", "indices"]} : (tensor<16x8xf32>, tensor<2x5xi64>) -> tensor<2x5x8xf32>
  return %0 : tensor<2x5x8xf32>
}

// -----

// index.Tensor with one index tensor: x[:, idx] (the `indices` mask says
// which dim) gathers along dim 1; x[idx] along dim 0. Negative indices
// count from the end of the dim they index (5, then 2).
// CHECK-LABEL: func.func @index
// CHECK-DAG: %[[TWO:.*]] = spyre.constant dense<2> : tensor<i64>
// CHECK-DAG: %[[FIVE:.*]] = spyre.constant dense<5> : tensor<i64>
// CHECK: %[[NEG:.*]] = spyre.compare lt %arg1
// CHECK: %[[UP:.*]] = spyre.binary add %arg1, %[[FIVE]]
// CHECK: %[[I:.*]] = spyre.select %[[NEG]], %[[UP]], %arg1
// CHECK: %[[T:.*]] = spyre.transpose %arg0 [1, 0, 2] : tensor<2x5x67xf16> -> tensor<5x2x67xf16>
// CHECK: %[[R:.*]] = spyre.reshape %[[T]] : tensor<5x2x67xf16> -> tensor<5x134xf16>
// CHECK: %[[G:.*]] = spyre.gather %[[R]][%[[I]]] : tensor<5x134xf16>, tensor<4xi64> -> tensor<4x134xf16>
// CHECK: %[[GR:.*]] = spyre.reshape %[[G]] : tensor<4x134xf16> -> tensor<4x2x67xf16>
// CHECK: %[[A:.*]] = spyre.transpose %[[GR]] [1, 0, 2] : tensor<4x2x67xf16> -> tensor<2x4x67xf16>
// CHECK: spyre.binary add %arg1, %[[TWO]]
// CHECK: %[[R0:.*]] = spyre.reshape %arg0 : tensor<2x5x67xf16> -> tensor<2x335xf16>
// CHECK: %[[G0:.*]] = spyre.gather %[[R0]][{{.*}}] : tensor<2x335xf16>, tensor<4xi64> -> tensor<4x335xf16>
// CHECK: %[[B:.*]] = spyre.reshape %[[G0]] : tensor<4x335xf16> -> tensor<4x5x67xf16>
// CHECK: return %[[A]], %[[B]]
func.func @index(%x: tensor<2x5x67xf16>, %i: tensor<4xi64>) -> (tensor<2x4x67xf16>, tensor<4x5x67xf16>) {
  %0 = spyre.aten "aten.index.Tensor"(%x, %i) {args = {indices = [false, true]}, tensor_args = ["self", "indices"]} : (tensor<2x5x67xf16>, tensor<4xi64>) -> tensor<2x4x67xf16>
  %1 = spyre.aten "aten.index.Tensor"(%x, %i) {args = {}, tensor_args = ["self", "indices"]} : (tensor<2x5x67xf16>, tensor<4xi64>) -> tensor<4x5x67xf16>
  return %0, %1 : tensor<2x4x67xf16>, tensor<4x5x67xf16>
}

// -----

// Several index tensors, broadcast together ([2, 1] with [3]), on dims that
// are not adjacent (None between them): one row index i * 6 + j into x
// with the indexed dims moved first, and the index dims lead the result.
// CHECK-LABEL: func.func @index_two
// CHECK-DAG: %[[SIX:.*]] = spyre.constant dense<6> : tensor<i64>
// CHECK: %[[J:.*]] = spyre.select {{.*}} : tensor<2x1xi1>, tensor<2x1xi64>, tensor<2x1xi64> -> tensor<2x1xi64>
// CHECK: %[[I:.*]] = spyre.select {{.*}} : tensor<3xi1>, tensor<3xi64>, tensor<3xi64> -> tensor<3xi64>
// CHECK: %[[I6:.*]] = spyre.binary mul %[[I]], %[[SIX]] : tensor<3xi64>, tensor<i64> -> tensor<3xi64>
// CHECK: %[[ROW:.*]] = spyre.binary add %[[J]], %[[I6]] : tensor<2x1xi64>, tensor<3xi64> -> tensor<2x3xi64>
// CHECK: %[[T:.*]] = spyre.transpose %arg0 [0, 2, 1] : tensor<4x5x6xf32> -> tensor<4x6x5xf32>
// CHECK: %[[TAB:.*]] = spyre.reshape %[[T]] : tensor<4x6x5xf32> -> tensor<24x5xf32>
// CHECK: %[[G:.*]] = spyre.gather %[[TAB]][%[[ROW]]] : tensor<24x5xf32>, tensor<2x3xi64> -> tensor<2x3x5xf32>
// CHECK: return %[[G]]
func.func @index_two(%x: tensor<4x5x6xf32>, %i: tensor<3xi64>, %j: tensor<2x1xi32>) -> tensor<2x3x5xf32> {
  %0 = spyre.aten "aten.index.Tensor"(%x, %i, %j) {args = {indices = [true, false, true]}, tensor_args = ["self", "indices", "indices"]} : (tensor<4x5x6xf32>, tensor<3xi64>, tensor<2x1xi32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// Adjacent indexed dims (x[:, i, j]) with a 2-D index: the index dims stand
// where dim 1 stood.
// CHECK-LABEL: func.func @index_adjacent
// CHECK: %[[G:.*]] = spyre.gather %{{.*}}[%{{.*}}] : tensor<30x2xf32>, tensor<3x2xi64> -> tensor<3x2x2xf32>
// CHECK: spyre.transpose %[[G]] [2, 0, 1] : tensor<3x2x2xf32> -> tensor<2x3x2xf32>
func.func @index_adjacent(%x: tensor<2x5x6xf32>, %i: tensor<3x2xi64>, %j: tensor<3x2xi64>) -> tensor<2x3x2xf32> {
  %0 = spyre.aten "aten.index.Tensor"(%x, %i, %j) {args = {indices = [false, true, true]}, tensor_args = ["self", "indices", "indices"]} : (tensor<2x5x6xf32>, tensor<3x2xi64>, tensor<3x2xi64>) -> tensor<2x3x2xf32>
  return %0 : tensor<2x3x2xf32>
}

// -----

// index_copy (the KV-cache update): a scatter of the source's slices
// along dim 2.
// CHECK-LABEL: func.func @index_copy
// CHECK-NEXT: %[[S:.*]] = spyre.scatter %arg2 into %arg0[%arg1] dim 2 : tensor<1x2x3x40xf16>, tensor<1x2x16x40xf16>, tensor<3xi64> -> tensor<1x2x16x40xf16>
// CHECK-NEXT: return %[[S]]
func.func @index_copy(%x: tensor<1x2x16x40xf16>, %i: tensor<3xi64>, %s: tensor<1x2x3x40xf16>) -> tensor<1x2x16x40xf16> {
  %0 = spyre.aten "aten.index_copy.default"(%x, %i, %s) {args = {dim = 2 : i64}, tensor_args = ["self", "index", "source"]} : (tensor<1x2x16x40xf16>, tensor<3xi64>, tensor<1x2x3x40xf16>) -> tensor<1x2x16x40xf16>
  return %0 : tensor<1x2x16x40xf16>
}

// -----

// Along the innermost dim a slice is one element per row: the scatter runs
// on the transpose (rows of columns), which is transposed back.
// CHECK-LABEL: func.func @index_copy_innermost
// CHECK-NEXT: %[[XT:.*]] = spyre.transpose %arg0 [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
// CHECK-NEXT: %[[ST:.*]] = spyre.transpose %arg2 [1, 0] : tensor<4x2xf32> -> tensor<2x4xf32>
// CHECK-NEXT: %[[S:.*]] = spyre.scatter %[[ST]] into %[[XT]][%arg1] dim 0 : tensor<2x4xf32>, tensor<8x4xf32>, tensor<2xi64> -> tensor<8x4xf32>
// CHECK-NEXT: %[[R:.*]] = spyre.transpose %[[S]] [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @index_copy_innermost(%x: tensor<4x8xf32>, %i: tensor<2xi64>, %s: tensor<4x2xf32>) -> tensor<4x8xf32> {
  %0 = spyre.aten "aten.index_copy.default"(%x, %i, %s) {args = {dim = 1 : i64}, tensor_args = ["self", "index", "source"]} : (tensor<4x8xf32>, tensor<2xi64>, tensor<4x2xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A rank-1 self scatters as a column: each element a row.
// CHECK-LABEL: func.func @index_put_innermost_rank1
// CHECK-NEXT: %[[XC:.*]] = spyre.reshape %arg0 : tensor<8xf32> -> tensor<8x1xf32>
// CHECK-NEXT: %[[VC:.*]] = spyre.reshape %arg2 : tensor<2xf32> -> tensor<2x1xf32>
// CHECK-NEXT: %[[S:.*]] = spyre.scatter %[[VC]] into %[[XC]][%arg1] dim 0
// CHECK-NEXT: %[[R:.*]] = spyre.reshape %[[S]] : tensor<8x1xf32> -> tensor<8xf32>
// CHECK-NEXT: return %[[R]]
func.func @index_put_innermost_rank1(%x: tensor<8xf32>, %i: tensor<2xi64>, %v: tensor<2xf32>) -> tensor<8xf32> {
  %0 = spyre.aten "aten.index_put.default"(%x, %i, %v) {args = {indices = [true]}, tensor_args = ["self", "indices", "values"]} : (tensor<8xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// The in-place variant uses the functional op's decomposition.
// CHECK-LABEL: func.func @index_copy_inplace
// CHECK-NEXT: %[[S:.*]] = spyre.scatter %arg2 into %arg0[%arg1] dim 2
// CHECK-NEXT: return %[[S]]
func.func @index_copy_inplace(%x: tensor<1x2x16x40xf16>, %i: tensor<3xi64>, %s: tensor<1x2x3x40xf16>) -> tensor<1x2x16x40xf16> {
  %0 = spyre.aten "aten.index_copy_.default"(%x, %i, %s) {args = {dim = 2 : i64}, tensor_args = ["self", "index", "source"]} : (tensor<1x2x16x40xf16>, tensor<3xi64>, tensor<1x2x3x40xf16>) -> tensor<1x2x16x40xf16>
  return %0 : tensor<1x2x16x40xf16>
}

// -----

// full / zeros / ones: splat constants of the result type; arange: a
// dense constant.
// CHECK-LABEL: func.func @factories
// CHECK-NEXT: %[[FULL:.*]] = spyre.constant dense<1.500000e+00> : tensor<7x67xf32>
// CHECK-NEXT: %[[ZEROS:.*]] = spyre.constant dense<0.000000e+00> : tensor<7x67xf16>
// CHECK-NEXT: %[[ONES:.*]] = spyre.constant dense<true> : tensor<9x9xi1>
// CHECK-NEXT: %[[AR:.*]] = spyre.constant dense<[0, 1, 2, {{.*}}, 65, 66]> : tensor<67xi64>
// CHECK-NEXT: %[[AR2:.*]] = spyre.constant dense<[1.000000e+00, 3.000000e+00, 5.000000e+00, 7.000000e+00, 9.000000e+00]> : tensor<5xf32>
// CHECK-NEXT: return %[[FULL]], %[[ZEROS]], %[[ONES]], %[[AR]], %[[AR2]]
func.func @factories() -> (tensor<7x67xf32>, tensor<7x67xf16>, tensor<9x9xi1>, tensor<67xi64>, tensor<5xf32>) {
  %0 = spyre.aten "aten.full.default"() {args = {device = "cpu", dtype, fill_value = 1.500000e+00 : f64, layout, pin_memory = false, size = [7, 67]}, tensor_args = []} : () -> tensor<7x67xf32>
  %1 = spyre.aten "aten.zeros.default"() {args = {device = "cpu", dtype = "f16", layout, pin_memory = false, size = [7, 67]}, tensor_args = []} : () -> tensor<7x67xf16>
  %2 = spyre.aten "aten.ones.default"() {args = {device = "cpu", dtype = "i1", layout, pin_memory = false, size = [9, 9]}, tensor_args = []} : () -> tensor<9x9xi1>
  %3 = spyre.aten "aten.arange.default"() {args = {device = "cpu", dtype, end = 67 : i64, layout, pin_memory = false}, tensor_args = []} : () -> tensor<67xi64>
  %4 = spyre.aten "aten.arange.start_step"() {args = {device = "cpu", dtype = "f32", end = 11 : i64, layout, pin_memory = false, start = 1 : i64, step = 2 : i64}, tensor_args = []} : () -> tensor<5xf32>
  return %0, %1, %2, %3, %4 : tensor<7x67xf32>, tensor<7x67xf16>, tensor<9x9xi1>, tensor<67xi64>, tensor<5xf32>
}

// -----

// triu (diagonal 1) keeps col >= row + 1, tril (diagonal 0) keeps
// col <= row: a compare of a [1, cols] and a [rows, 1] iota (the diagonal
// folded into the row iota), then a select with 0 (false for bool). The
// compare of two constants folds: the masks are i1 constants.
// CHECK-LABEL: func.func @triu_tril
// CHECK-DAG: %[[FALSE:.*]] = spyre.constant dense<false> : tensor<i1>
// CHECK-DAG: %[[KL:.*]] = spyre.constant dense<{{\[\[}}true, false, false, false, false, false, false, false, false], [true, true, false, {{.*}}, [true, true, true, true, true, true, true, true, true]]> : tensor<9x9xi1>
// CHECK-DAG: %[[ZERO:.*]] = spyre.constant dense<0.000000e+00> : tensor<f16>
// CHECK-DAG: %[[KU:.*]] = spyre.constant dense<{{\[\[}}false, true, true, {{.*}}], [false, false, true, {{.*}}, [false, false, false, false, false, false, false, true, {{.*}}]]> : tensor<7x67xi1>
// CHECK-NOT: spyre.compare
// CHECK: %[[U:.*]] = spyre.select %[[KU]], %arg0, %[[ZERO]]
// CHECK: %[[L:.*]] = spyre.select %[[KL]], %arg1, %[[FALSE]]
// CHECK: return %[[U]], %[[L]]
func.func @triu_tril(%x: tensor<7x67xf16>, %m: tensor<9x9xi1>) -> (tensor<7x67xf16>, tensor<9x9xi1>) {
  %0 = spyre.aten "aten.triu.default"(%x) {args = {diagonal = 1 : i64}, tensor_args = ["self"]} : (tensor<7x67xf16>) -> tensor<7x67xf16>
  %1 = spyre.aten "aten.tril.default"(%m) {args = {diagonal = 0 : i64}, tensor_args = ["self"]} : (tensor<9x9xi1>) -> tensor<9x9xi1>
  return %0, %1 : tensor<7x67xf16>, tensor<9x9xi1>
}

// -----

// clone, contiguous, alias, detach: the identity (layouts are the
// compiler's choice).
// CHECK-LABEL: func.func @identities
// CHECK-NEXT: %[[N:.*]] = spyre.unary neg %arg0
// CHECK-NEXT: return %[[N]]
func.func @identities(%x: tensor<7x67xf16>) -> tensor<7x67xf16> {
  %0 = spyre.aten "aten.clone.default"(%x) {args = {memory_format}, tensor_args = ["self"]} : (tensor<7x67xf16>) -> tensor<7x67xf16>
  %1 = spyre.aten "aten.contiguous.default"(%0) {args = {memory_format = 0 : i64}, tensor_args = ["self"]} : (tensor<7x67xf16>) -> tensor<7x67xf16>
  %2 = spyre.aten "aten.alias.default"(%1) {args = {}, tensor_args = ["self"]} : (tensor<7x67xf16>) -> tensor<7x67xf16>
  %3 = spyre.aten "aten.detach.default"(%2) {args = {}, tensor_args = ["self"]} : (tensor<7x67xf16>) -> tensor<7x67xf16>
  %4 = spyre.aten "aten.neg.default"(%3) {args = {}, tensor_args = ["self"]} : (tensor<7x67xf16>) -> tensor<7x67xf16>
  return %4 : tensor<7x67xf16>
}

// -----

// constant_pad_nd: the innermost pair first (1 before, 2 after the last
// dim), then dim 1 (3 after), each a concat with splats of the value.
// CHECK-LABEL: func.func @constant_pad_nd
// CHECK-DAG: %[[D1:.*]] = spyre.constant dense<5.000000e-01> : tensor<2x3x70xf16>
// CHECK-DAG: %[[BEFORE:.*]] = spyre.constant dense<5.000000e-01> : tensor<2x5x1xf16>
// CHECK-DAG: %[[AFTER:.*]] = spyre.constant dense<5.000000e-01> : tensor<2x5x2xf16>
// CHECK: %[[A:.*]] = spyre.concat %[[BEFORE]], %arg0, %[[AFTER]] dim 2 : tensor<2x5x1xf16>, tensor<2x5x67xf16>, tensor<2x5x2xf16> -> tensor<2x5x70xf16>
// CHECK: %[[B:.*]] = spyre.concat %[[A]], %[[D1]] dim 1 : tensor<2x5x70xf16>, tensor<2x3x70xf16> -> tensor<2x8x70xf16>
// CHECK: return %[[B]]
func.func @constant_pad_nd(%x: tensor<2x5x67xf16>) -> tensor<2x8x70xf16> {
  %0 = spyre.aten "aten.constant_pad_nd.default"(%x) {args = {pad = [1, 2, 0, 3], value = 5.000000e-01 : f64}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> tensor<2x8x70xf16>
  return %0 : tensor<2x8x70xf16>
}

// -----

// pad(mode = 'constant') with value None pads with 0.
// CHECK-LABEL: func.func @pad_default_value
// CHECK-DAG: %[[BEFORE:.*]] = spyre.constant dense<0.000000e+00> : tensor<2x5x1xf16>
// CHECK-DAG: %[[AFTER:.*]] = spyre.constant dense<0.000000e+00> : tensor<2x5x2xf16>
// CHECK: spyre.concat %[[BEFORE]], %arg0, %[[AFTER]] dim 2
func.func @pad_default_value(%x: tensor<2x5x67xf16>) -> tensor<2x5x70xf16> {
  %0 = spyre.aten "aten.pad.default"(%x) {args = {mode = "constant", pad = [1, 2], value}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> tensor<2x5x70xf16>
  return %0 : tensor<2x5x70xf16>
}

// -----

// stack: each input with a 1 at `dim`, then one concatenation.
// CHECK-LABEL: func.func @stack
// CHECK: %[[A:.*]] = spyre.reshape %arg0 : tensor<7x67xf16> -> tensor<7x1x67xf16>
// CHECK: %[[B:.*]] = spyre.reshape %arg1 : tensor<7x67xf16> -> tensor<7x1x67xf16>
// CHECK: %[[C:.*]] = spyre.concat %[[A]], %[[B]] dim 1 : tensor<7x1x67xf16>, tensor<7x1x67xf16> -> tensor<7x2x67xf16>
// CHECK: return %[[C]]
func.func @stack(%x: tensor<7x67xf16>, %y: tensor<7x67xf16>) -> tensor<7x2x67xf16> {
  %0 = spyre.aten "aten.stack.default"(%x, %y) {args = {dim = 1 : i64}, tensor_args = ["tensors", "tensors"]} : (tensor<7x67xf16>, tensor<7x67xf16>) -> tensor<7x2x67xf16>
  return %0 : tensor<7x2x67xf16>
}

// -----

// repeat: a leading 1 for the extra count; a repeated dim but the last is
// a broadcast of a new dim before it, merged into it by a view (the reader
// can read the copies as one broadcast tensor); the last dim's copies are
// concatenated (dim 1, count 1, untouched).
// CHECK-LABEL: func.func @repeat
// CHECK: %[[R:.*]] = spyre.reshape %arg0 : tensor<5x67xf16> -> tensor<1x1x5x67xf16>
// CHECK: %[[B:.*]] = spyre.broadcast %[[R]] : tensor<1x1x5x67xf16> -> tensor<2x1x5x67xf16>
// CHECK: %[[D0:.*]] = spyre.reshape %[[B]] : tensor<2x1x5x67xf16> -> tensor<2x5x67xf16>
// CHECK: %[[D2:.*]] = spyre.concat %[[D0]], %[[D0]], %[[D0]] dim 2 : {{.*}} -> tensor<2x5x201xf16>
// CHECK: return %[[D2]]
func.func @repeat(%x: tensor<5x67xf16>) -> tensor<2x5x201xf16> {
  %0 = spyre.aten "aten.repeat.default"(%x) {args = {repeats = [2, 1, 3]}, tensor_args = ["self"]} : (tensor<5x67xf16>) -> tensor<2x5x201xf16>
  return %0 : tensor<2x5x201xf16>
}

// -----

// A count of 0 repeats into an empty tensor: an empty constant, no copy.
// CHECK-LABEL: func.func @repeat_zero
// CHECK: %[[E:.*]] = spyre.constant dense<0.000000e+00> : tensor<0x8xf32> : tensor<0x8xf32>
// CHECK: return %[[E]]
func.func @repeat_zero(%x: tensor<4x8xf32>) -> tensor<0x8xf32> {
  %0 = spyre.aten "aten.repeat.default"(%x) {args = {repeats = [0, 1]}, tensor_args = ["self"]} : (tensor<4x8xf32>) -> tensor<0x8xf32>
  return %0 : tensor<0x8xf32>
}

// -----

// scatter.src: src cut to the index's extent, the index narrowed to i32
// (the iota's type); per index slice j, a one-hot mask (iota == index[:, j])
// selects src[:, j] over the running result.
// CHECK-LABEL: func.func @scatter_src
// CHECK: %[[IOTA:.*]] = spyre.constant dense<{{\[\[}}0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]]> : tensor<1x16xi32>
// CHECK: %[[SRC:.*]] = spyre.slice %arg2 offsets [0, 0] strides [1, 1] : tensor<7x3xf32> -> tensor<7x2xf32>
// CHECK: %[[IDX:.*]] = spyre.cast %arg1 : tensor<7x2xi64> -> tensor<7x2xi32>
// CHECK: %[[I0:.*]] = spyre.slice %[[IDX]] offsets [0, 0] strides [1, 1] : tensor<7x2xi32> -> tensor<7x1xi32>
// CHECK: %[[M0:.*]] = spyre.compare eq %[[IOTA]], %[[I0]] : tensor<1x16xi32>, tensor<7x1xi32> -> tensor<7x16xi1>
// CHECK: %[[S0:.*]] = spyre.slice %[[SRC]] offsets [0, 0] strides [1, 1] : tensor<7x2xf32> -> tensor<7x1xf32>
// CHECK: %[[R0:.*]] = spyre.select %[[M0]], %[[S0]], %arg0 : tensor<7x16xi1>, tensor<7x1xf32>, tensor<7x16xf32> -> tensor<7x16xf32>
// CHECK: %[[I1:.*]] = spyre.slice %[[IDX]] offsets [0, 1]
// CHECK: %[[M1:.*]] = spyre.compare eq %[[IOTA]], %[[I1]]
// CHECK: %[[S1:.*]] = spyre.slice %[[SRC]] offsets [0, 1]
// CHECK: %[[R1:.*]] = spyre.select %[[M1]], %[[S1]], %[[R0]]
// CHECK: return %[[R1]]
func.func @scatter_src(%x: tensor<7x16xf32>, %i: tensor<7x2xi64>, %s: tensor<7x3xf32>) -> tensor<7x16xf32> {
  %0 = spyre.aten "aten.scatter.src"(%x, %i, %s) {args = {dim = 1 : i64}, tensor_args = ["self", "index", "src"]} : (tensor<7x16xf32>, tensor<7x2xi64>, tensor<7x3xf32>) -> tensor<7x16xf32>
  return %0 : tensor<7x16xf32>
}

// -----

// scatter.value: the value is a splat.
// CHECK-LABEL: func.func @scatter_value
// CHECK: %[[V:.*]] = spyre.constant dense<-2.500000e+00> : tensor<f16>
// CHECK: %[[M:.*]] = spyre.compare eq
// CHECK: %[[R:.*]] = spyre.select %[[M]], %[[V]], %arg0 : tensor<4x16xi1>, tensor<f16>, tensor<4x16xf16> -> tensor<4x16xf16>
// CHECK: return %[[R]]
func.func @scatter_value(%x: tensor<4x16xf16>, %i: tensor<4x1xi64>) -> tensor<4x16xf16> {
  %0 = spyre.aten "aten.scatter.value"(%x, %i) {args = {dim = 1 : i64, value = -2.500000e+00 : f64}, tensor_args = ["self", "index"]} : (tensor<4x16xf16>, tensor<4x1xi64>) -> tensor<4x16xf16>
  return %0 : tensor<4x16xf16>
}

// -----

// scatter_add along dim 0: i32 indices used as they are; each slice's
// selection (0 elsewhere) is added, so repeated indices accumulate.
// CHECK-LABEL: func.func @scatter_add
// CHECK-DAG: %[[ZERO:.*]] = spyre.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG: %[[IOTA:.*]] = spyre.constant dense<{{\[\[}}0], [1], [2], [3], [4], [5], [6]]> : tensor<7x1xi32>
// CHECK-NOT: spyre.cast
// CHECK: %[[I0:.*]] = spyre.slice %arg1 offsets [0, 0]
// CHECK: %[[M0:.*]] = spyre.compare eq %[[IOTA]], %[[I0]] : tensor<7x1xi32>, tensor<1x16xi32> -> tensor<7x16xi1>
// CHECK: %[[S0:.*]] = spyre.slice %arg2 offsets [0, 0]
// CHECK: %[[P0:.*]] = spyre.select %[[M0]], %[[S0]], %[[ZERO]]
// CHECK: %[[A0:.*]] = spyre.binary add %arg0, %[[P0]]
// CHECK: spyre.slice %arg1 offsets [1, 0]
// CHECK: %[[A1:.*]] = spyre.binary add %[[A0]],
// CHECK: return %[[A1]]
func.func @scatter_add(%x: tensor<7x16xf32>, %i: tensor<2x16xi32>, %s: tensor<2x16xf32>) -> tensor<7x16xf32> {
  %0 = spyre.aten "aten.scatter_add.default"(%x, %i, %s) {args = {dim = 0 : i64}, tensor_args = ["self", "index", "src"]} : (tensor<7x16xf32>, tensor<2x16xi32>, tensor<2x16xf32>) -> tensor<7x16xf32>
  return %0 : tensor<7x16xf32>
}

// -----

// scatter with an index shorter than self in another dim (2 of 4 rows):
// only self's leading 2 rows are written; the one-hot selects run on that
// box, which is then concatenated with self's other rows.
// CHECK-LABEL: func.func @scatter_index_not_spanning
// CHECK: %[[BOX:.*]] = spyre.slice %arg0 offsets [0, 0] strides [1, 1] : tensor<4x8xf32> -> tensor<2x8xf32>
// CHECK-COUNT-3: spyre.select {{.*}} : tensor<2x8xi1>, tensor<2x1xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
// CHECK: %[[REST:.*]] = spyre.slice %arg0 offsets [2, 0] strides [1, 1] : tensor<4x8xf32> -> tensor<2x8xf32>
// CHECK: spyre.concat %{{.*}}, %[[REST]] dim 0 : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<4x8xf32>
func.func @scatter_index_not_spanning(%x: tensor<4x8xf32>, %i: tensor<2x3xi64>, %s: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = spyre.aten "aten.scatter.src"(%x, %i, %s) {args = {dim = 1 : i64}, tensor_args = ["self", "index", "src"]} : (tensor<4x8xf32>, tensor<2x3xi64>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// slice_scatter (the functional `x[:, 3:8] = y` of ATen IR): self's parts
// around the window and src between them, one concatenation.
// CHECK-LABEL: func.func @slice_scatter
// CHECK: %[[L:.*]] = spyre.slice %arg0 offsets [0, 0] strides [1, 1] : tensor<4x16xf16> -> tensor<4x3xf16>
// CHECK: %[[R:.*]] = spyre.slice %arg0 offsets [0, 8] strides [1, 1] : tensor<4x16xf16> -> tensor<4x8xf16>
// CHECK: %[[C:.*]] = spyre.concat %[[L]], %arg1, %[[R]] dim 1 : tensor<4x3xf16>, tensor<4x5xf16>, tensor<4x8xf16> -> tensor<4x16xf16>
// CHECK: return %[[C]]
func.func @slice_scatter(%x: tensor<4x16xf16>, %y: tensor<4x5xf16>) -> tensor<4x16xf16> {
  %0 = spyre.aten "aten.slice_scatter.default"(%x, %y) {args = {dim = 1 : i64, start = 3 : i64, end = 8 : i64}, tensor_args = ["self", "src"]} : (tensor<4x16xf16>, tensor<4x5xf16>) -> tensor<4x16xf16>
  return %0 : tensor<4x16xf16>
}

// -----

// slice_scatter with a step (`x[:, 1:8:3] = y`): an index_copy of src's
// columns at positions 1, 4, 7 (along the innermost dim, as rows of the
// transpose).
// CHECK-LABEL: func.func @slice_scatter_step
// CHECK-DAG: %[[I:.*]] = spyre.constant dense<[1, 4, 7]> : tensor<3xi64>
// CHECK-DAG: %[[XT:.*]] = spyre.transpose %arg0 [1, 0] : tensor<4x16xf16> -> tensor<16x4xf16>
// CHECK-DAG: %[[YT:.*]] = spyre.transpose %arg1 [1, 0] : tensor<4x3xf16> -> tensor<3x4xf16>
// CHECK: %[[S:.*]] = spyre.scatter %[[YT]] into %[[XT]][%[[I]]] dim 0
// CHECK: spyre.transpose %[[S]] [1, 0] : tensor<16x4xf16> -> tensor<4x16xf16>
func.func @slice_scatter_step(%x: tensor<4x16xf16>, %y: tensor<4x3xf16>) -> tensor<4x16xf16> {
  %0 = spyre.aten "aten.slice_scatter.default"(%x, %y) {args = {dim = 1 : i64, start = 1 : i64, end = 8 : i64, step = 3 : i64}, tensor_args = ["self", "src"]} : (tensor<4x16xf16>, tensor<4x3xf16>) -> tensor<4x16xf16>
  return %0 : tensor<4x16xf16>
}

// -----

// select_scatter at the last row (index -1): src gains the dim back; nothing
// follows the window.
// CHECK-LABEL: func.func @select_scatter
// CHECK: %[[S:.*]] = spyre.reshape %arg1 : tensor<16xf32> -> tensor<1x16xf32>
// CHECK: %[[L:.*]] = spyre.slice %arg0 offsets [0, 0] strides [1, 1] : tensor<4x16xf32> -> tensor<3x16xf32>
// CHECK: %[[C:.*]] = spyre.concat %[[L]], %[[S]] dim 0 : tensor<3x16xf32>, tensor<1x16xf32> -> tensor<4x16xf32>
// CHECK: return %[[C]]
func.func @select_scatter(%x: tensor<4x16xf32>, %y: tensor<16xf32>) -> tensor<4x16xf32> {
  %0 = spyre.aten "aten.select_scatter.default"(%x, %y) {args = {dim = 0 : i64, index = -1 : i64}, tensor_args = ["self", "src"]} : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// copy (the functional `self.copy_(src)`): src in self's dtype and shape.
// CHECK-LABEL: func.func @copy
// CHECK: %[[C:.*]] = spyre.cast %arg1 : tensor<16xf16> -> tensor<16xf32>
// CHECK: %[[B:.*]] = spyre.broadcast %[[C]] : tensor<16xf32> -> tensor<4x16xf32>
// CHECK: return %[[B]]
func.func @copy(%x: tensor<4x16xf32>, %y: tensor<16xf16>) -> tensor<4x16xf32> {
  %0 = spyre.aten "aten.copy.default"(%x, %y) {args = {}, tensor_args = ["self", "src"]} : (tensor<4x16xf32>, tensor<16xf16>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// index_put with one index tensor (cache[:, :, pos] = k): a DMA scatter
// along the index's position, as index_copy.
// CHECK-LABEL: func.func @index_put
// CHECK: %[[S:.*]] = spyre.scatter %arg2 into %arg0[%arg1] dim 2 : tensor<1x2x3x40xf16>, tensor<1x2x16x40xf16>, tensor<3xi64> -> tensor<1x2x16x40xf16>
// CHECK: return %[[S]]
func.func @index_put(%cache: tensor<1x2x16x40xf16>, %pos: tensor<3xi64>, %k: tensor<1x2x3x40xf16>) -> tensor<1x2x16x40xf16> {
  %0 = spyre.aten "aten.index_put.default"(%cache, %pos, %k) {args = {indices = [false, false, true]}, tensor_args = ["self", "indices", "values"]} : (tensor<1x2x16x40xf16>, tensor<3xi64>, tensor<1x2x3x40xf16>) -> tensor<1x2x16x40xf16>
  return %0 : tensor<1x2x16x40xf16>
}

// -----

// index_put with a broadcast value (cache[:, pos] = v[40]): the value is
// broadcast to the slices' shape first.
// CHECK-LABEL: func.func @index_put_broadcast
// CHECK: %[[B:.*]] = spyre.broadcast %arg2 : tensor<40xf32> -> tensor<2x3x40xf32>
// CHECK: spyre.scatter %[[B]] into %arg0[%arg1] dim 1
func.func @index_put_broadcast(%cache: tensor<2x16x40xf32>, %pos: tensor<3xi32>, %v: tensor<40xf32>) -> tensor<2x16x40xf32> {
  %0 = spyre.aten "aten.index_put.default"(%cache, %pos, %v) {args = {indices = [false, true]}, tensor_args = ["self", "indices", "values"]} : (tensor<2x16x40xf32>, tensor<3xi32>, tensor<40xf32>) -> tensor<2x16x40xf32>
  return %0 : tensor<2x16x40xf32>
}

// -----

// fill (fill_ in place) and empty: splat constants (empty's contents are
// undefined, zeros will do).
// CHECK-LABEL: func.func @fill
// CHECK: %[[C:.*]] = spyre.constant dense<2.500000e+00> : tensor<4x8xf16>
// CHECK: return %[[C]]
func.func @fill(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %0 = spyre.aten "aten.fill.Scalar"(%x) {args = {value = 2.5 : f64}, tensor_args = ["self"]} : (tensor<4x8xf16>) -> tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// -----

// CHECK-LABEL: func.func @empty
// CHECK: %[[C:.*]] = spyre.constant dense<0.000000e+00> : tensor<4x8xf32>
// CHECK: return %[[C]]
func.func @empty() -> tensor<4x8xf32> {
  %0 = spyre.aten "aten.empty.memory_format"() {args = {size = [4, 8]}, tensor_args = []} : () -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// gather along dim 1: per index column, a one-hot sum (in f32 for f16)
// picks the element; the columns are concatenated.
// CHECK-LABEL: func.func @gather
// CHECK-DAG: %[[IOTA:.*]] = spyre.constant dense<{{\[\[}}0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]]> : tensor<1x16xi32>
// CHECK-DAG: %[[X:.*]] = spyre.cast %arg0 : tensor<3x16xf16> -> tensor<3x16xf32>
// CHECK-DAG: %[[I:.*]] = spyre.cast %arg1 : tensor<3x2xi64> -> tensor<3x2xi32>
// CHECK: %[[I0:.*]] = spyre.slice %[[I]] offsets [0, 0]
// CHECK: %[[M0:.*]] = spyre.compare eq %[[IOTA]], %[[I0]] : tensor<1x16xi32>, tensor<3x1xi32> -> tensor<3x16xi1>
// CHECK: %[[P0:.*]] = spyre.select %[[M0]], %[[X]],
// CHECK: %[[S0:.*]] = spyre.reduce sum %[[P0]] dim 1 : tensor<3x16xf32> -> tensor<3x1xf32>
// CHECK: %[[S1:.*]] = spyre.reduce sum
// CHECK: %[[C:.*]] = spyre.concat %[[S0]], %[[S1]] dim 1 : tensor<3x1xf32>, tensor<3x1xf32> -> tensor<3x2xf32>
// CHECK: %[[R:.*]] = spyre.cast %[[C]] : tensor<3x2xf32> -> tensor<3x2xf16>
// CHECK: return %[[R]]
func.func @gather(%x: tensor<3x16xf16>, %i: tensor<3x2xi64>) -> tensor<3x2xf16> {
  %0 = spyre.aten "aten.gather.default"(%x, %i) {args = {dim = 1 : i64}, tensor_args = ["self", "index"]} : (tensor<3x16xf16>, tensor<3x2xi64>) -> tensor<3x2xf16>
  return %0 : tensor<3x2xf16>
}

// -----

// Negative padding crops (a slice) before the fill is added.
// CHECK-LABEL: func.func @pad_crop
// CHECK: %[[Z:.*]] = spyre.constant dense<0.000000e+00> : tensor<2x2xf32>
// CHECK: %[[S:.*]] = spyre.slice %arg0 offsets [0, 1] strides [1, 1] : tensor<2x8xf32> -> tensor<2x7xf32>
// CHECK: spyre.concat %[[S]], %[[Z]] dim 1 : tensor<2x7xf32>, tensor<2x2xf32> -> tensor<2x9xf32>
func.func @pad_crop(%x: tensor<2x8xf32>) -> tensor<2x9xf32> {
  %0 = spyre.aten "aten.constant_pad_nd.default"(%x) {args = {pad = [-1, 2], value = 0.000000e+00 : f64}, tensor_args = ["self"]} : (tensor<2x8xf32>) -> tensor<2x9xf32>
  return %0 : tensor<2x9xf32>
}

// -----

// index_add: a one-hot of the indices [5, 4] times the source's slices on
// the PT array (repeated indices accumulate), alpha, then the sum in f32.
// CHECK-LABEL: func.func @index_add
// CHECK: %[[HIT:.*]] = spyre.compare eq %{{.*}}, %{{.*}} : tensor<5x1xi32>, tensor<1x4xi32> -> tensor<5x4xi1>
// CHECK: %[[SRC:.*]] = spyre.cast %arg2 : tensor<4x3xf16> -> tensor<4x3xf32>
// CHECK: %[[ONE:.*]] = spyre.cast %[[HIT]] : tensor<5x4xi1> -> tensor<5x4xf32>
// CHECK: %[[ADD:.*]] = spyre.matmul %[[ONE]], %[[SRC]] : tensor<5x4xf32>, tensor<4x3xf32> -> tensor<5x3xf32>
// CHECK: %[[A2:.*]] = spyre.binary mul %[[ADD]], %{{.*}}
// CHECK: spyre.binary add %{{.*}}, %[[A2]] : tensor<5x3xf32>, tensor<5x3xf32> -> tensor<5x3xf32>
func.func @index_add(%x: tensor<5x3xf16>, %i: tensor<4xi64>, %s: tensor<4x3xf16>) -> tensor<5x3xf16> {
  %0 = spyre.aten "aten.index_add.default"(%x, %i, %s) {args = {dim = 0 : i64, alpha = 2 : i64}, tensor_args = ["self", "index", "source"]} : (tensor<5x3xf16>, tensor<4xi64>, tensor<4x3xf16>) -> tensor<5x3xf16>
  return %0 : tensor<5x3xf16>
}

// -----

// index_put with accumulate=True (`x[:, idx] += v`, repeated indices
// adding up) is index_add along the index's position: the values,
// broadcast to the indexed slices, times a one-hot on the PT array (along
// dim 1: the product transposed back), added in f32.
// CHECK-LABEL: func.func @index_put_accumulate
// CHECK: %[[V:.*]] = spyre.broadcast %arg2 : tensor<3xf16> -> tensor<4x3xf16>
// CHECK: spyre.compare eq %{{.*}}, %{{.*}} : tensor<8x1xi32>, tensor<1x3xi32> -> tensor<8x3xi1>
// CHECK: spyre.matmul %{{.*}}, %{{.*}} {transpose_rhs} : tensor<8x3xf32>, tensor<4x3xf32> -> tensor<8x4xf32>
// CHECK: spyre.transpose %{{.*}} [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
// CHECK: spyre.binary add %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK: spyre.cast %{{.*}} : tensor<4x8xf32> -> tensor<4x8xf16>
func.func @index_put_accumulate(%x: tensor<4x8xf16>, %i: tensor<3xi64>, %v: tensor<3xf16>) -> tensor<4x8xf16> {
  %0 = spyre.aten "aten.index_put.default"(%x, %i, %v) {args = {indices = [false, true], accumulate = true}, tensor_args = ["self", "indices", "values"]} : (tensor<4x8xf16>, tensor<3xi64>, tensor<3xf16>) -> tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// -----

// index_put with two index tensors (`x[i, j] = v`, as transformers' masking
// utilities write): the indexed dims 0 and 1 are flattened into one row
// index (i * 8 + j) of x viewed as [32 rows, 16]; the values' rows are
// scattered there and the rows viewed back.
// CHECK-LABEL: func.func @index_put_two_indices
// CHECK: %[[I8:.*]] = spyre.binary mul %{{.*}}, %{{.*}} : tensor<2xi64>, tensor<i64> -> tensor<2xi64>
// CHECK: %[[ROWS:.*]] = spyre.binary add %{{.*}}, %[[I8]] : tensor<2xi64>, tensor<2xi64> -> tensor<2xi64>
// CHECK: %[[T:.*]] = spyre.reshape %arg0 : tensor<4x8x16xf32> -> tensor<32x16xf32>
// CHECK: %[[S:.*]] = spyre.scatter %arg3 into %[[T]][%[[ROWS]]] dim 0 : tensor<2x16xf32>, tensor<32x16xf32>, tensor<2xi64> -> tensor<32x16xf32>
// CHECK: spyre.reshape %[[S]] : tensor<32x16xf32> -> tensor<4x8x16xf32>
func.func @index_put_two_indices(%x: tensor<4x8x16xf32>, %i: tensor<2xi64>, %j: tensor<2xi64>, %v: tensor<2x16xf32>) -> tensor<4x8x16xf32> {
  %0 = spyre.aten "aten.index_put.default"(%x, %i, %j, %v) {args = {indices = [true, true]}, tensor_args = ["self", "indices", "indices", "values"]} : (tensor<4x8x16xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2x16xf32>) -> tensor<4x8x16xf32>
  return %0 : tensor<4x8x16xf32>
}

// -----

// masked_scatter with a mask that is one value per row (a token mask, as
// vision-language models scatter image features): the true rows before
// each row (an exclusive prefix sum) pick whole source rows.
// CHECK-LABEL: func.func @masked_scatter_rows
// CHECK: %[[FULL:.*]] = spyre.broadcast %arg1 : tensor<2x4x1xi1> -> tensor<2x4x8xi1>
// CHECK: spyre.matmul
// CHECK: %[[ROWS:.*]] = spyre.reshape %{{.*}} : tensor<8x1xi32> -> tensor<8xi32>
// CHECK: %[[G:.*]] = spyre.gather %arg2[%[[ROWS]]] : tensor<3x8xf32>, tensor<8xi32> -> tensor<8x8xf32>
// CHECK: %[[GR:.*]] = spyre.reshape %[[G]] : tensor<8x8xf32> -> tensor<2x4x8xf32>
// CHECK: spyre.select %[[FULL]], %[[GR]], %arg0
func.func @masked_scatter_rows(%x: tensor<2x4x8xf32>, %m: tensor<2x4x1xi1>, %s: tensor<3x8xf32>) -> tensor<2x4x8xf32> {
  %0 = spyre.aten "aten.masked_scatter.default"(%x, %m, %s) {args = {}, tensor_args = ["self", "mask", "source"]} : (tensor<2x4x8xf32>, tensor<2x4x1xi1>, tensor<3x8xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

// masked_scatter, element by element: the source position is the true
// elements before in the row plus those of the rows before (two prefix
// sums), gathered from the flat source.
// CHECK-LABEL: func.func @masked_scatter
// CHECK: %[[WITHIN:.*]] = spyre.matmul %{{.*}}, %{{.*}} : tensor<3x5xf32>, tensor<5x5xf32> -> tensor<3x5xf32>
// CHECK: spyre.reduce sum %{{.*}} dim 1 : tensor<3x5xf32> -> tensor<3x1xf32>
// CHECK: %[[AT:.*]] = spyre.binary add %[[WITHIN]], %{{.*}} : tensor<3x5xf32>, tensor<3x1xf32> -> tensor<3x5xf32>
// CHECK: %[[G:.*]] = spyre.gather %{{.*}}[%{{.*}}] : tensor<9x1xf32>, tensor<15xi32> -> tensor<15x1xf32>
// CHECK: spyre.select %arg1, %{{.*}}, %arg0 : tensor<3x5xi1>, tensor<3x5xf32>, tensor<3x5xf32> -> tensor<3x5xf32>
func.func @masked_scatter(%x: tensor<3x5xf32>, %m: tensor<3x5xi1>, %s: tensor<9xf32>) -> tensor<3x5xf32> {
  %0 = spyre.aten "aten.masked_scatter.default"(%x, %m, %s) {args = {}, tensor_args = ["self", "mask", "source"]} : (tensor<3x5xf32>, tensor<3x5xi1>, tensor<9xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}
