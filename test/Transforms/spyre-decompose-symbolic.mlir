// RUN: spyre-opt %s --spyre-decompose --split-input-file -verify-diagnostics

// spyre-decompose needs static shapes. A symbolic input dim names its
// symbol and the range torch.export recorded for it.
module attributes {spyre.range_constraints = {s0 = [1, 64], s1 = [2, "inf"]}} {
  // expected-error@+1 {{dimension 0 of input 'x' is symbolic (s0); spyre-decompose needs static shapes: specialize with --bind-dims <symbol>=<size> (exported range: s0 in [1, 64])}}
  func.func @input(%x: tensor<?x128xf16> {spyre.dims = ["s0", ""], spyre.name = "x"}) -> tensor<?x128xf16> {
    %0 = spyre.aten "aten.relu.default"(%x) {args = {}, tensor_args = ["self"]} : (tensor<?x128xf16>) -> tensor<?x128xf16>
    return %0 : tensor<?x128xf16>
  }
}

// -----

// Each symbolic input is reported; an unbounded range prints "inf".
module attributes {spyre.range_constraints = {s0 = [1, 64], s1 = [2, "inf"]}} {
  // expected-error@+2 {{dimension 0 of input 'a' is symbolic (s0)}}
  // expected-error@+1 {{dimension 1 of input 'b' is symbolic (2*s1); spyre-decompose needs static shapes: specialize with --bind-dims <symbol>=<size> (exported range: s1 in [2, inf])}}
  func.func @two(%a: tensor<?x8xf32> {spyre.dims = ["s0", ""], spyre.name = "a"}, %b: tensor<8x?xf32> {spyre.dims = ["", "2*s1"], spyre.name = "b"}) -> tensor<?x8xf32> {
    return %a : tensor<?x8xf32>
  }
}

// -----

// A SymInt argument left symbolic (the importer writes its expression as a
// string) is reported at its op.
module attributes {spyre.range_constraints = {s0 = [1, 64]}} {
  func.func @view(%x: tensor<4x64xf16>) -> tensor<4x2x32xf16> {
    // expected-error@+1 {{argument 'size' of 'aten.view.default' is symbolic (s0); spyre-decompose needs static shapes: specialize with --bind-dims <symbol>=<size> (exported range: s0 in [1, 64])}}
    %0 = spyre.aten "aten.view.default"(%x) {args = {size = ["s0", 2, 32]}, tensor_args = ["self"]} : (tensor<4x64xf16>) -> tensor<4x2x32xf16>
    return %0 : tensor<4x2x32xf16>
  }
}

// -----

// A dynamic result from static inputs (a data-dependent size).
func.func @result(%x: tensor<8xf32>) -> tensor<?xf32> {
  // expected-error@+1 {{result 0 of 'aten.relu.default' has a symbolic shape; spyre-decompose needs static shapes: specialize with --bind-dims <symbol>=<size>}}
  %0 = spyre.aten "aten.relu.default"(%x) {args = {}, tensor_args = ["self"]} : (tensor<8xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// The importer's expressions of a result name its symbols; every symbol of
// an expression gets its range, s1 as well as s10.
module attributes {spyre.range_constraints = {s1 = [1, 8], s10 = [1, 4]}} {
  func.func @result_symbols(%x: tensor<8xf32>) -> tensor<?xf32> {
    // expected-error@+1 {{result 0 of 'aten.relu.default' has a symbolic shape (s10 + s1); spyre-decompose needs static shapes: specialize with --bind-dims <symbol>=<size> (exported range: s10 in [1, 4], s1 in [1, 8])}}
    %0 = spyre.aten "aten.relu.default"(%x) {args = {}, spyre.dims = [["s10 + s1"]], tensor_args = ["self"]} : (tensor<8xf32>) -> tensor<?xf32>
    return %0 : tensor<?xf32>
  }
}
