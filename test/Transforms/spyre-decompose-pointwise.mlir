// RUN: spyre-opt %s --spyre-decompose --split-input-file | FileCheck %s

// The pointwise family (lib/Transforms/Decompositions/Pointwise.cpp):
// spyre.unary / binary / compare / select / cast. Scalar operands become
// rank-0 splat constants (the hardware has no immediates; canonicalization
// hoists them to the top of the function, hence CHECK-DAG).

// add.Tensor with alpha: other * alpha, then the add (other broadcasts).
// CHECK-LABEL: func.func @add_alpha
// CHECK: %[[TWO:.*]] = spyre.constant dense<2.000000e+00> : tensor<f16>
// CHECK: %[[S:.*]] = spyre.binary mul %arg1, %[[TWO]] : tensor<128xf16>, tensor<f16> -> tensor<128xf16>
// CHECK: %[[A:.*]] = spyre.binary add %arg0, %[[S]] : tensor<32x128xf16>, tensor<128xf16> -> tensor<32x128xf16>
// CHECK: return %[[A]]
func.func @add_alpha(%x: tensor<32x128xf16>, %y: tensor<128xf16>) -> tensor<32x128xf16> {
  %0 = spyre.aten "aten.add.Tensor"(%x, %y) {args = {alpha = 2 : i64}, tensor_args = ["self", "other"]} : (tensor<32x128xf16>, tensor<128xf16>) -> tensor<32x128xf16>
  return %0 : tensor<32x128xf16>
}

// -----

// add.Scalar with alpha: the splat alpha * other is folded to one constant.
// CHECK-LABEL: func.func @add_scalar_alpha
// CHECK: %[[C:.*]] = spyre.constant dense<7.500000e+00> : tensor<f16>
// CHECK-NOT: spyre.binary mul
// CHECK: %[[A:.*]] = spyre.binary add %arg0, %[[C]] : tensor<7x67xf16>, tensor<f16> -> tensor<7x67xf16>
// CHECK: return %[[A]]
func.func @add_scalar_alpha(%x: tensor<7x67xf16>) -> tensor<7x67xf16> {
  %0 = spyre.aten "aten.add.Scalar"(%x) {args = {alpha = 3 : i64, other = 2.500000e+00 : f64}, tensor_args = ["self"]} : (tensor<7x67xf16>) -> tensor<7x67xf16>
  return %0 : tensor<7x67xf16>
}

// -----

// sub.Tensor with alpha: self - other * alpha.
// CHECK-LABEL: func.func @sub_alpha
// CHECK: %[[TWO:.*]] = spyre.constant dense<2.000000e+00> : tensor<f16>
// CHECK: %[[S:.*]] = spyre.binary mul %arg1, %[[TWO]]
// CHECK: %[[D:.*]] = spyre.binary sub %arg0, %[[S]] : tensor<7x67xf16>, tensor<7x67xf16> -> tensor<7x67xf16>
// CHECK: return %[[D]]
func.func @sub_alpha(%x: tensor<7x67xf16>, %y: tensor<7x67xf16>) -> tensor<7x67xf16> {
  %0 = spyre.aten "aten.sub.Tensor"(%x, %y) {args = {alpha = 2 : i64}, tensor_args = ["self", "other"]} : (tensor<7x67xf16>, tensor<7x67xf16>) -> tensor<7x67xf16>
  return %0 : tensor<7x67xf16>
}

// -----

// sub.Tensor with a scalar other (alpha 1: no multiply).
// CHECK-LABEL: func.func @sub_scalar
// CHECK: %[[C:.*]] = spyre.constant dense<1.250000e+00> : tensor<f32>
// CHECK-NEXT: %[[D:.*]] = spyre.binary sub %arg0, %[[C]] : tensor<7x67xf32>, tensor<f32> -> tensor<7x67xf32>
// CHECK-NEXT: return %[[D]]
func.func @sub_scalar(%x: tensor<7x67xf32>) -> tensor<7x67xf32> {
  %0 = spyre.aten "aten.sub.Tensor"(%x) {args = {alpha = 1 : i64, other = 1.250000e+00 : f64}, tensor_args = ["self"]} : (tensor<7x67xf32>) -> tensor<7x67xf32>
  return %0 : tensor<7x67xf32>
}

// -----

// rsub: other - alpha * self (alpha scales self, operands swapped).
// CHECK-LABEL: func.func @rsub_alpha
// CHECK-DAG: %[[ONE:.*]] = spyre.constant dense<1.000000e+00> : tensor<f16>
// CHECK-DAG: %[[TWO:.*]] = spyre.constant dense<2.000000e+00> : tensor<f16>
// CHECK: %[[S:.*]] = spyre.binary mul %arg0, %[[TWO]] : tensor<7x67xf16>, tensor<f16> -> tensor<7x67xf16>
// CHECK: %[[D:.*]] = spyre.binary sub %[[ONE]], %[[S]] : tensor<f16>, tensor<7x67xf16> -> tensor<7x67xf16>
// CHECK: return %[[D]]
func.func @rsub_alpha(%x: tensor<7x67xf16>) -> tensor<7x67xf16> {
  %0 = spyre.aten "aten.rsub.Scalar"(%x) {args = {alpha = 2 : i64, other = 1.000000e+00 : f64}, tensor_args = ["self"]} : (tensor<7x67xf16>) -> tensor<7x67xf16>
  return %0 : tensor<7x67xf16>
}

// -----

// mul by a scalar: a splat operand.
// CHECK-LABEL: func.func @mul_scalar
// CHECK: %[[C:.*]] = spyre.constant dense<2.000000e+00> : tensor<f32>
// CHECK: spyre.binary mul %arg0, %[[C]] : tensor<7x67xf32>, tensor<f32> -> tensor<7x67xf32>
func.func @mul_scalar(%x: tensor<7x67xf32>) -> tensor<7x67xf32> {
  %0 = spyre.aten "aten.mul.Tensor"(%x) {args = {other = 2.000000e+00 : f64}, tensor_args = ["self"]} : (tensor<7x67xf32>) -> tensor<7x67xf32>
  return %0 : tensor<7x67xf32>
}

// -----

// mul by 1 (RoPE's attention_scaling) folds away.
// CHECK-LABEL: func.func @mul_one
// CHECK-NEXT: return %arg0
func.func @mul_one(%x: tensor<7x67xf32>) -> tensor<7x67xf32> {
  %0 = spyre.aten "aten.mul.Tensor"(%x) {args = {other = 1.000000e+00 : f64}, tensor_args = ["self"]} : (tensor<7x67xf32>) -> tensor<7x67xf32>
  return %0 : tensor<7x67xf32>
}

// -----

// div.Tensor: true division, other broadcast.
// CHECK-LABEL: func.func @div_tensor
// CHECK-NEXT: %[[D:.*]] = spyre.binary div %arg0, %arg1 : tensor<2x5x67xf16>, tensor<5x1xf16> -> tensor<2x5x67xf16>
// CHECK-NEXT: return %[[D]]
func.func @div_tensor(%x: tensor<2x5x67xf16>, %y: tensor<5x1xf16>) -> tensor<2x5x67xf16> {
  %0 = spyre.aten "aten.div.Tensor"(%x, %y) {args = {}, tensor_args = ["self", "other"]} : (tensor<2x5x67xf16>, tensor<5x1xf16>) -> tensor<2x5x67xf16>
  return %0 : tensor<2x5x67xf16>
}

// -----

// div.Scalar: a division by a splat (not a multiply by its reciprocal,
// which would round differently).
// CHECK-LABEL: func.func @div_scalar
// CHECK: %[[C:.*]] = spyre.constant dense<3.000000e+00> : tensor<f32>
// CHECK: spyre.binary div %arg0, %[[C]] : tensor<7x67xf32>, tensor<f32> -> tensor<7x67xf32>
func.func @div_scalar(%x: tensor<7x67xf32>) -> tensor<7x67xf32> {
  %0 = spyre.aten "aten.div.Scalar"(%x) {args = {other = 3.000000e+00 : f64}, tensor_args = ["self"]} : (tensor<7x67xf32>) -> tensor<7x67xf32>
  return %0 : tensor<7x67xf32>
}

// -----

// rounding_mode = "floor": floor(x / y).
// CHECK-LABEL: func.func @div_floor
// CHECK: %[[Q:.*]] = spyre.binary div %arg0, %arg1 : tensor<2x5x67xf16>, tensor<5x1xf16> -> tensor<2x5x67xf16>
// CHECK: %[[F:.*]] = spyre.unary floor %[[Q]]
// CHECK: return %[[F]]
func.func @div_floor(%x: tensor<2x5x67xf16>, %y: tensor<5x1xf16>) -> tensor<2x5x67xf16> {
  %0 = spyre.aten "aten.div.Tensor_mode"(%x, %y) {args = {rounding_mode = "floor"}, tensor_args = ["self", "other"]} : (tensor<2x5x67xf16>, tensor<5x1xf16>) -> tensor<2x5x67xf16>
  return %0 : tensor<2x5x67xf16>
}

// -----

// rounding_mode = "trunc": sign(q) * floor(|q|) (the SFP has no trunc).
// CHECK-LABEL: func.func @div_trunc
// CHECK: %[[Q:.*]] = spyre.binary div %arg0, %arg1
// CHECK: %[[A:.*]] = spyre.unary abs %[[Q]]
// CHECK: %[[F:.*]] = spyre.unary floor %[[A]]
// CHECK: %[[S:.*]] = spyre.unary sign %[[Q]]
// CHECK: %[[T:.*]] = spyre.binary mul %[[S]], %[[F]]
// CHECK: return %[[T]]
func.func @div_trunc(%x: tensor<7x67xf32>, %y: tensor<7x67xf32>) -> tensor<7x67xf32> {
  %0 = spyre.aten "aten.div.Tensor_mode"(%x, %y) {args = {rounding_mode = "trunc"}, tensor_args = ["self", "other"]} : (tensor<7x67xf32>, tensor<7x67xf32>) -> tensor<7x67xf32>
  return %0 : tensor<7x67xf32>
}

// -----

// div.Scalar_mode with rounding_mode None: plain true division.
// CHECK-LABEL: func.func @div_scalar_mode_none
// CHECK: %[[C:.*]] = spyre.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[Q:.*]] = spyre.binary div %arg0, %[[C]]
// CHECK-NEXT: return %[[Q]]
func.func @div_scalar_mode_none(%x: tensor<7x67xf32>) -> tensor<7x67xf32> {
  %0 = spyre.aten "aten.div.Scalar_mode"(%x) {args = {other = 2.000000e+00 : f64, rounding_mode}, tensor_args = ["self"]} : (tensor<7x67xf32>) -> tensor<7x67xf32>
  return %0 : tensor<7x67xf32>
}

// -----

// Integer floor division computes in f32, then converts back.
// CHECK-LABEL: func.func @div_int_floor
// CHECK: %[[X:.*]] = spyre.cast %arg0 : tensor<8xi32> -> tensor<8xf32>
// CHECK: %[[Y:.*]] = spyre.cast %arg1 : tensor<8xi32> -> tensor<8xf32>
// CHECK: %[[Q:.*]] = spyre.binary div %[[X]], %[[Y]] : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
// CHECK: %[[F:.*]] = spyre.unary floor %[[Q]]
// CHECK: %[[R:.*]] = spyre.cast %[[F]] : tensor<8xf32> -> tensor<8xi32>
// CHECK: return %[[R]]
func.func @div_int_floor(%x: tensor<8xi32>, %y: tensor<8xi32>) -> tensor<8xi32> {
  %0 = spyre.aten "aten.div.Tensor_mode"(%x, %y) {args = {rounding_mode = "floor"}, tensor_args = ["self", "other"]} : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  return %0 : tensor<8xi32>
}

// -----

// Unary ops that are one SFP function each.
// CHECK-LABEL: func.func @unaries
// CHECK-NEXT: %[[NEG:.*]] = spyre.unary neg %arg0 : tensor<2x5x67xf16> -> tensor<2x5x67xf16>
// CHECK-NEXT: %[[ABS:.*]] = spyre.unary abs %arg0
// CHECK-NEXT: %[[EXP:.*]] = spyre.unary exp %arg0
// CHECK-NEXT: %[[LOG:.*]] = spyre.unary log %arg0
// CHECK-NEXT: %[[SQRT:.*]] = spyre.unary sqrt %arg0
// CHECK-NEXT: %[[RSQRT:.*]] = spyre.unary rsqrt %arg0
// CHECK-NEXT: %[[RECIP:.*]] = spyre.unary reciprocal %arg0
// CHECK-NEXT: %[[TANH:.*]] = spyre.unary tanh %arg0
// CHECK-NEXT: %[[SIGMOID:.*]] = spyre.unary sigmoid %arg0
// CHECK-NEXT: %[[RELU:.*]] = spyre.unary relu %arg0
// CHECK-NEXT: %[[SILU:.*]] = spyre.unary silu %arg0
// CHECK-NEXT: %[[SIN:.*]] = spyre.unary sin %arg0
// CHECK-NEXT: %[[COS:.*]] = spyre.unary cos %arg0
// CHECK-NEXT: %[[FLOOR:.*]] = spyre.unary floor %arg0
// CHECK-NEXT: %[[CEIL:.*]] = spyre.unary ceil %arg0
// CHECK-NEXT: return %[[NEG]], %[[ABS]], %[[EXP]], %[[LOG]], %[[SQRT]], %[[RSQRT]], %[[RECIP]], %[[TANH]], %[[SIGMOID]], %[[RELU]], %[[SILU]], %[[SIN]], %[[COS]], %[[FLOOR]], %[[CEIL]] :
func.func @unaries(%x: tensor<2x5x67xf16>) -> (tensor<2x5x67xf16>, tensor<2x5x67xf16>, tensor<2x5x67xf16>, tensor<2x5x67xf16>, tensor<2x5x67xf16>, tensor<2x5x67xf16>, tensor<2x5x67xf16>, tensor<2x5x67xf16>, tensor<2x5x67xf16>, tensor<2x5x67xf16>, tensor<2x5x67xf16>, tensor<2x5x67xf16>, tensor<2x5x67xf16>, tensor<2x5x67xf16>, tensor<2x5x67xf16>) {
  %0 = spyre.aten "aten.neg.default"(%x) {args = {}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> tensor<2x5x67xf16>
  %1 = spyre.aten "aten.abs.default"(%x) {args = {}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> tensor<2x5x67xf16>
  %2 = spyre.aten "aten.exp.default"(%x) {args = {}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> tensor<2x5x67xf16>
  %3 = spyre.aten "aten.log.default"(%x) {args = {}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> tensor<2x5x67xf16>
  %4 = spyre.aten "aten.sqrt.default"(%x) {args = {}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> tensor<2x5x67xf16>
  %5 = spyre.aten "aten.rsqrt.default"(%x) {args = {}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> tensor<2x5x67xf16>
  %6 = spyre.aten "aten.reciprocal.default"(%x) {args = {}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> tensor<2x5x67xf16>
  %7 = spyre.aten "aten.tanh.default"(%x) {args = {}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> tensor<2x5x67xf16>
  %8 = spyre.aten "aten.sigmoid.default"(%x) {args = {}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> tensor<2x5x67xf16>
  %9 = spyre.aten "aten.relu.default"(%x) {args = {}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> tensor<2x5x67xf16>
  %10 = spyre.aten "aten.silu.default"(%x) {args = {}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> tensor<2x5x67xf16>
  %11 = spyre.aten "aten.sin.default"(%x) {args = {}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> tensor<2x5x67xf16>
  %12 = spyre.aten "aten.cos.default"(%x) {args = {}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> tensor<2x5x67xf16>
  %13 = spyre.aten "aten.floor.default"(%x) {args = {}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> tensor<2x5x67xf16>
  %14 = spyre.aten "aten.ceil.default"(%x) {args = {}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> tensor<2x5x67xf16>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14 : tensor<2x5x67xf16>, tensor<2x5x67xf16>, tensor<2x5x67xf16>, tensor<2x5x67xf16>, tensor<2x5x67xf16>, tensor<2x5x67xf16>, tensor<2x5x67xf16>, tensor<2x5x67xf16>, tensor<2x5x67xf16>, tensor<2x5x67xf16>, tensor<2x5x67xf16>, tensor<2x5x67xf16>, tensor<2x5x67xf16>, tensor<2x5x67xf16>, tensor<2x5x67xf16>
}

// -----

// A unary op on an input of another dtype converts it first.
// CHECK-LABEL: func.func @unary_promote
// CHECK: %[[C:.*]] = spyre.cast %arg0 : tensor<8xi32> -> tensor<8xf32>
// CHECK: spyre.unary exp %[[C]] : tensor<8xf32> -> tensor<8xf32>
func.func @unary_promote(%x: tensor<8xi32>) -> tensor<8xf32> {
  %0 = spyre.aten "aten.exp.default"(%x) {args = {}, tensor_args = ["self"]} : (tensor<8xi32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// gelu: approximate 'none' is the erf form, 'tanh' the tanh form.
// CHECK-LABEL: func.func @gelu
// CHECK-NEXT: %[[E:.*]] = spyre.unary gelu %arg0 : tensor<63x65xf32> -> tensor<63x65xf32>
// CHECK-NEXT: %[[T:.*]] = spyre.unary gelu_tanh %arg0 : tensor<63x65xf32> -> tensor<63x65xf32>
// CHECK-NEXT: return %[[E]], %[[T]]
func.func @gelu(%x: tensor<63x65xf32>) -> (tensor<63x65xf32>, tensor<63x65xf32>) {
  %0 = spyre.aten "aten.gelu.default"(%x) {args = {approximate = "none"}, tensor_args = ["self"]} : (tensor<63x65xf32>) -> tensor<63x65xf32>
  %1 = spyre.aten "aten.gelu.default"(%x) {args = {approximate = "tanh"}, tensor_args = ["self"]} : (tensor<63x65xf32>) -> tensor<63x65xf32>
  return %0, %1 : tensor<63x65xf32>, tensor<63x65xf32>
}

// -----

// pow by small integers: repeated multiplication in the input dtype
// (x*x, x*x*x, 1/(x*x)); pow(x, 0) is a splat 1.
// CHECK-LABEL: func.func @pow_small_int
// CHECK-DAG: %[[ONE:.*]] = spyre.constant dense<1.000000e+00> : tensor<7x67xf16>
// CHECK-DAG: %[[SQ:.*]] = spyre.binary mul %arg0, %arg0 : tensor<7x67xf16>, tensor<7x67xf16> -> tensor<7x67xf16>
// CHECK: %[[SQ2:.*]] = spyre.binary mul %arg0, %arg0
// CHECK: %[[CUBE:.*]] = spyre.binary mul %arg0, %[[SQ2]]
// CHECK: %[[SQ3:.*]] = spyre.binary mul %arg0, %arg0
// CHECK: %[[INV:.*]] = spyre.unary reciprocal %[[SQ3]]
// CHECK-NOT: spyre.cast
// CHECK: return %[[SQ]], %[[CUBE]], %[[INV]], %[[ONE]]
func.func @pow_small_int(%x: tensor<7x67xf16>) -> (tensor<7x67xf16>, tensor<7x67xf16>, tensor<7x67xf16>, tensor<7x67xf16>) {
  %0 = spyre.aten "aten.pow.Tensor_Scalar"(%x) {args = {exponent = 2 : i64}, tensor_args = ["self"]} : (tensor<7x67xf16>) -> tensor<7x67xf16>
  %1 = spyre.aten "aten.pow.Tensor_Scalar"(%x) {args = {exponent = 3 : i64}, tensor_args = ["self"]} : (tensor<7x67xf16>) -> tensor<7x67xf16>
  %2 = spyre.aten "aten.pow.Tensor_Scalar"(%x) {args = {exponent = -2 : i64}, tensor_args = ["self"]} : (tensor<7x67xf16>) -> tensor<7x67xf16>
  %3 = spyre.aten "aten.pow.Tensor_Scalar"(%x) {args = {exponent = 0 : i64}, tensor_args = ["self"]} : (tensor<7x67xf16>) -> tensor<7x67xf16>
  return %0, %1, %2, %3 : tensor<7x67xf16>, tensor<7x67xf16>, tensor<7x67xf16>, tensor<7x67xf16>
}

// -----

// Larger integers: square-and-multiply in f32 (x^5 = x * (x^2)^2); beyond
// 64, exp(e * log|x|) with the sign restored for an odd e; e = 1 is x.
// CHECK-LABEL: func.func @pow_large_int
// CHECK-DAG: %[[E:.*]] = spyre.constant dense<6.500000e+01> : tensor<f32>
// CHECK: %[[X:.*]] = spyre.cast %arg0 : tensor<8xf16> -> tensor<8xf32>
// CHECK: %[[X2:.*]] = spyre.binary mul %[[X]], %[[X]] : tensor<8xf32>
// CHECK: %[[X4:.*]] = spyre.binary mul %[[X2]], %[[X2]]
// CHECK: %[[X5:.*]] = spyre.binary mul %[[X]], %[[X4]]
// CHECK: %[[P5:.*]] = spyre.cast %[[X5]] : tensor<8xf32> -> tensor<8xf16>
// CHECK: %[[Y:.*]] = spyre.cast %arg0 : tensor<8xf16> -> tensor<8xf32>
// CHECK: %[[ABS:.*]] = spyre.unary abs %[[Y]]
// CHECK: %[[LOG:.*]] = spyre.unary log %[[ABS]]
// CHECK: %[[M:.*]] = spyre.binary mul %[[LOG]], %[[E]]
// CHECK: %[[EXP:.*]] = spyre.unary exp %[[M]]
// CHECK: %[[SIGN:.*]] = spyre.unary sign %[[Y]]
// CHECK: %[[S:.*]] = spyre.binary mul %[[EXP]], %[[SIGN]]
// CHECK: %[[P65:.*]] = spyre.cast %[[S]] : tensor<8xf32> -> tensor<8xf16>
// CHECK: return %[[P5]], %[[P65]], %arg0
func.func @pow_large_int(%x: tensor<8xf16>) -> (tensor<8xf16>, tensor<8xf16>, tensor<8xf16>) {
  %0 = spyre.aten "aten.pow.Tensor_Scalar"(%x) {args = {exponent = 5 : i64}, tensor_args = ["self"]} : (tensor<8xf16>) -> tensor<8xf16>
  %1 = spyre.aten "aten.pow.Tensor_Scalar"(%x) {args = {exponent = 65 : i64}, tensor_args = ["self"]} : (tensor<8xf16>) -> tensor<8xf16>
  %2 = spyre.aten "aten.pow.Tensor_Scalar"(%x) {args = {exponent = 1 : i64}, tensor_args = ["self"]} : (tensor<8xf16>) -> tensor<8xf16>
  return %0, %1, %2 : tensor<8xf16>, tensor<8xf16>, tensor<8xf16>
}

// -----

// pow by 0.5, -0.5 and -1 are one SFP op each; 1.7 is exp(1.7 * log(x)) in
// f32 (the exponent keeps its f32 value, not an f16 rounding of it).
// CHECK-LABEL: func.func @pow_fractional
// CHECK-DAG: %[[E:.*]] = spyre.constant dense<1.700000e+00> : tensor<f32>
// CHECK: %[[SQRT:.*]] = spyre.unary sqrt %arg0 : tensor<7x67xf16> -> tensor<7x67xf16>
// CHECK: %[[RSQRT:.*]] = spyre.unary rsqrt %arg0
// CHECK: %[[RECIP:.*]] = spyre.unary reciprocal %arg0
// CHECK: %[[X:.*]] = spyre.cast %arg0 : tensor<7x67xf16> -> tensor<7x67xf32>
// CHECK: %[[LOG:.*]] = spyre.unary log %[[X]] : tensor<7x67xf32>
// CHECK: %[[M:.*]] = spyre.binary mul %[[LOG]], %[[E]] : tensor<7x67xf32>, tensor<f32> -> tensor<7x67xf32>
// CHECK: %[[EXP:.*]] = spyre.unary exp %[[M]]
// CHECK: %[[P:.*]] = spyre.cast %[[EXP]] : tensor<7x67xf32> -> tensor<7x67xf16>
// CHECK: return %[[SQRT]], %[[RSQRT]], %[[RECIP]], %[[P]]
func.func @pow_fractional(%x: tensor<7x67xf16>) -> (tensor<7x67xf16>, tensor<7x67xf16>, tensor<7x67xf16>, tensor<7x67xf16>) {
  %0 = spyre.aten "aten.pow.Tensor_Scalar"(%x) {args = {exponent = 5.000000e-01 : f64}, tensor_args = ["self"]} : (tensor<7x67xf16>) -> tensor<7x67xf16>
  %1 = spyre.aten "aten.pow.Tensor_Scalar"(%x) {args = {exponent = -5.000000e-01 : f64}, tensor_args = ["self"]} : (tensor<7x67xf16>) -> tensor<7x67xf16>
  %2 = spyre.aten "aten.pow.Tensor_Scalar"(%x) {args = {exponent = -1.000000e+00 : f64}, tensor_args = ["self"]} : (tensor<7x67xf16>) -> tensor<7x67xf16>
  %3 = spyre.aten "aten.pow.Tensor_Scalar"(%x) {args = {exponent = 1.700000e+00 : f64}, tensor_args = ["self"]} : (tensor<7x67xf16>) -> tensor<7x67xf16>
  return %0, %1, %2, %3 : tensor<7x67xf16>, tensor<7x67xf16>, tensor<7x67xf16>, tensor<7x67xf16>
}

// -----

// A tensor exponent: exp(y * log(x)) in f32.
// CHECK-LABEL: func.func @pow_tensor
// CHECK-DAG: %[[Y:.*]] = spyre.cast %arg1 : tensor<67xf16> -> tensor<67xf32>
// CHECK-DAG: %[[X:.*]] = spyre.cast %arg0 : tensor<2x5x67xf16> -> tensor<2x5x67xf32>
// CHECK: %[[LOG:.*]] = spyre.unary log %[[X]]
// CHECK: %[[M:.*]] = spyre.binary mul %[[LOG]], %[[Y]] : tensor<2x5x67xf32>, tensor<67xf32> -> tensor<2x5x67xf32>
// CHECK: %[[EXP:.*]] = spyre.unary exp %[[M]]
// CHECK: %[[P:.*]] = spyre.cast %[[EXP]] : tensor<2x5x67xf32> -> tensor<2x5x67xf16>
// CHECK: return %[[P]]
func.func @pow_tensor(%x: tensor<2x5x67xf16>, %e: tensor<67xf16>) -> tensor<2x5x67xf16> {
  %0 = spyre.aten "aten.pow.Tensor_Tensor"(%x, %e) {args = {}, tensor_args = ["self", "exponent"]} : (tensor<2x5x67xf16>, tensor<67xf16>) -> tensor<2x5x67xf16>
  return %0 : tensor<2x5x67xf16>
}

// -----

// A scalar base: log(base) is folded at compile time (log 2).
// CHECK-LABEL: func.func @pow_scalar_base
// CHECK: %[[LOG2:.*]] = spyre.constant dense<0.693147182> : tensor<f32>
// CHECK: %[[M:.*]] = spyre.binary mul %[[LOG2]], %arg0 : tensor<f32>, tensor<8xf32> -> tensor<8xf32>
// CHECK: %[[EXP:.*]] = spyre.unary exp %[[M]]
// CHECK: return %[[EXP]]
func.func @pow_scalar_base(%e: tensor<8xf32>) -> tensor<8xf32> {
  %0 = spyre.aten "aten.pow.Scalar"(%e) {args = {self = 2.000000e+00 : f64}, tensor_args = ["exponent"]} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// softplus (beta 1): the SFP softplus, linear above the threshold.
// CHECK-LABEL: func.func @softplus
// CHECK: %[[T:.*]] = spyre.constant dense<2.000000e+01> : tensor<f16>
// CHECK: %[[SP:.*]] = spyre.unary softplus %arg0
// CHECK: %[[OVER:.*]] = spyre.compare gt %arg0, %[[T]] : tensor<2x5x67xf16>, tensor<f16> -> tensor<2x5x67xi1>
// CHECK: %[[R:.*]] = spyre.select %[[OVER]], %arg0, %[[SP]]
// CHECK: return %[[R]]
func.func @softplus(%x: tensor<2x5x67xf16>) -> tensor<2x5x67xf16> {
  %0 = spyre.aten "aten.softplus.default"(%x) {args = {beta = 1 : i64, threshold = 20 : i64}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> tensor<2x5x67xf16>
  return %0 : tensor<2x5x67xf16>
}

// -----

// softplus with beta: softplus(beta * x) / beta, linear where beta * x >
// threshold.
// CHECK-LABEL: func.func @softplus_beta
// CHECK-DAG: %[[T:.*]] = spyre.constant dense<1.000000e+01> : tensor<f32>
// CHECK-DAG: %[[B:.*]] = spyre.constant dense<2.000000e+00> : tensor<f32>
// CHECK: %[[BX:.*]] = spyre.binary mul %arg0, %[[B]]
// CHECK: %[[SP:.*]] = spyre.unary softplus %[[BX]]
// CHECK: %[[D:.*]] = spyre.binary div %[[SP]], %[[B]]
// CHECK: %[[OVER:.*]] = spyre.compare gt %[[BX]], %[[T]]
// CHECK: %[[R:.*]] = spyre.select %[[OVER]], %arg0, %[[D]]
// CHECK: return %[[R]]
func.func @softplus_beta(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = spyre.aten "aten.softplus.default"(%x) {args = {beta = 2.000000e+00 : f64, threshold = 1.000000e+01 : f64}, tensor_args = ["self"]} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// clamp is max then min; clamp_min / clamp_max / a None bound one of them.
// CHECK-LABEL: func.func @clamps
// CHECK-DAG: %[[HI2:.*]] = spyre.constant dense<2.500000e-01> : tensor<f16>
// CHECK-DAG: %[[LO2:.*]] = spyre.constant dense<-2.500000e-01> : tensor<f16>
// CHECK-DAG: %[[ZERO:.*]] = spyre.constant dense<0.000000e+00> : tensor<f16>
// CHECK-DAG: %[[HI:.*]] = spyre.constant dense<7.500000e-01> : tensor<f16>
// CHECK-DAG: %[[LO:.*]] = spyre.constant dense<-5.000000e-01> : tensor<f16>
// CHECK: %[[A:.*]] = spyre.binary max %arg0, %[[LO]]
// CHECK: %[[CLAMP:.*]] = spyre.binary min %[[A]], %[[HI]]
// CHECK: %[[RELU:.*]] = spyre.binary max %arg0, %[[ZERO]]
// CHECK: %[[CMIN:.*]] = spyre.binary max %arg0, %[[LO2]]
// CHECK: %[[CMAX:.*]] = spyre.binary min %arg0, %[[HI2]]
// CHECK: return %[[CLAMP]], %[[RELU]], %[[CMIN]], %[[CMAX]]
func.func @clamps(%x: tensor<2x5x67xf16>) -> (tensor<2x5x67xf16>, tensor<2x5x67xf16>, tensor<2x5x67xf16>, tensor<2x5x67xf16>) {
  %0 = spyre.aten "aten.clamp.default"(%x) {args = {max = 7.500000e-01 : f64, min = -5.000000e-01 : f64}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> tensor<2x5x67xf16>
  %1 = spyre.aten "aten.clamp.default"(%x) {args = {max, min = 0.000000e+00 : f64}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> tensor<2x5x67xf16>
  %2 = spyre.aten "aten.clamp_min.default"(%x) {args = {min = -2.500000e-01 : f64}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> tensor<2x5x67xf16>
  %3 = spyre.aten "aten.clamp_max.default"(%x) {args = {max = 2.500000e-01 : f64}, tensor_args = ["self"]} : (tensor<2x5x67xf16>) -> tensor<2x5x67xf16>
  return %0, %1, %2, %3 : tensor<2x5x67xf16>, tensor<2x5x67xf16>, tensor<2x5x67xf16>, tensor<2x5x67xf16>
}

// -----

// clamp.Tensor: tensor bounds, each broadcast.
// CHECK-LABEL: func.func @clamp_tensor
// CHECK: %[[A:.*]] = spyre.binary max %arg0, %arg1 : tensor<2x5x67xf16>, tensor<67xf16> -> tensor<2x5x67xf16>
// CHECK: %[[B:.*]] = spyre.binary min %[[A]], %arg2 : tensor<2x5x67xf16>, tensor<5x1xf16> -> tensor<2x5x67xf16>
// CHECK: return %[[B]]
func.func @clamp_tensor(%x: tensor<2x5x67xf16>, %lo: tensor<67xf16>, %hi: tensor<5x1xf16>) -> tensor<2x5x67xf16> {
  %0 = spyre.aten "aten.clamp.Tensor"(%x, %lo, %hi) {args = {}, tensor_args = ["self", "min", "max"]} : (tensor<2x5x67xf16>, tensor<67xf16>, tensor<5x1xf16>) -> tensor<2x5x67xf16>
  return %0 : tensor<2x5x67xf16>
}

// -----

// minimum / maximum: binary min / max.
// CHECK-LABEL: func.func @minimum_maximum
// CHECK-NEXT: %[[MIN:.*]] = spyre.binary min %arg0, %arg1 : tensor<2x5x67xf16>, tensor<67xf16> -> tensor<2x5x67xf16>
// CHECK-NEXT: %[[MAX:.*]] = spyre.binary max %arg0, %arg1 : tensor<2x5x67xf16>, tensor<67xf16> -> tensor<2x5x67xf16>
// CHECK-NEXT: return %[[MIN]], %[[MAX]]
func.func @minimum_maximum(%x: tensor<2x5x67xf16>, %y: tensor<67xf16>) -> (tensor<2x5x67xf16>, tensor<2x5x67xf16>) {
  %0 = spyre.aten "aten.minimum.default"(%x, %y) {args = {}, tensor_args = ["self", "other"]} : (tensor<2x5x67xf16>, tensor<67xf16>) -> tensor<2x5x67xf16>
  %1 = spyre.aten "aten.maximum.default"(%x, %y) {args = {}, tensor_args = ["self", "other"]} : (tensor<2x5x67xf16>, tensor<67xf16>) -> tensor<2x5x67xf16>
  return %0, %1 : tensor<2x5x67xf16>, tensor<2x5x67xf16>
}

// -----

// where.self: a select.
// CHECK-LABEL: func.func @where
// CHECK-NEXT: %[[S:.*]] = spyre.select %arg0, %arg1, %arg2 : tensor<2x5x67xi1>, tensor<2x5x67xf16>, tensor<67xf16> -> tensor<2x5x67xf16>
// CHECK-NEXT: return %[[S]]
func.func @where(%c: tensor<2x5x67xi1>, %x: tensor<2x5x67xf16>, %y: tensor<67xf16>) -> tensor<2x5x67xf16> {
  %0 = spyre.aten "aten.where.self"(%c, %x, %y) {args = {}, tensor_args = ["condition", "self", "other"]} : (tensor<2x5x67xi1>, tensor<2x5x67xf16>, tensor<67xf16>) -> tensor<2x5x67xf16>
  return %0 : tensor<2x5x67xf16>
}

// -----

// where with scalar branches: splats; a non-bool condition is compared
// with 0.
// CHECK-LABEL: func.func @where_scalars
// CHECK-DAG: %[[ZERO:.*]] = spyre.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG: %[[C:.*]] = spyre.constant dense<-1.500000e+00> : tensor<f32>
// CHECK: %[[A:.*]] = spyre.select %arg0, %[[C]], %arg1 : tensor<7x1xi1>, tensor<f32>, tensor<7x67xf32> -> tensor<7x67xf32>
// CHECK: %[[NZ:.*]] = spyre.compare ne %arg2, %[[ZERO]] : tensor<7x67xf32>, tensor<f32> -> tensor<7x67xi1>
// CHECK: %[[B:.*]] = spyre.select %[[NZ]], %arg1, %[[ZERO]]
// CHECK: return %[[A]], %[[B]]
func.func @where_scalars(%c: tensor<7x1xi1>, %x: tensor<7x67xf32>, %f: tensor<7x67xf32>) -> (tensor<7x67xf32>, tensor<7x67xf32>) {
  %0 = spyre.aten "aten.where.ScalarSelf"(%c, %x) {args = {self = -1.500000e+00 : f64}, tensor_args = ["condition", "other"]} : (tensor<7x1xi1>, tensor<7x67xf32>) -> tensor<7x67xf32>
  %1 = spyre.aten "aten.where.ScalarOther"(%f, %x) {args = {other = 0.000000e+00 : f64}, tensor_args = ["condition", "self"]} : (tensor<7x67xf32>, tensor<7x67xf32>) -> tensor<7x67xf32>
  return %0, %1 : tensor<7x67xf32>, tensor<7x67xf32>
}

// -----

// masked_fill: select(mask, value, self), the value a splat.
// CHECK-LABEL: func.func @masked_fill
// CHECK: %[[V:.*]] = spyre.constant dense<-1.000000e+04> : tensor<f16>
// CHECK: %[[S:.*]] = spyre.select %arg1, %[[V]], %arg0 : tensor<9x9xi1>, tensor<f16>, tensor<2x9x9xf16> -> tensor<2x9x9xf16>
// CHECK: return %[[S]]
func.func @masked_fill(%x: tensor<2x9x9xf16>, %m: tensor<9x9xi1>) -> tensor<2x9x9xf16> {
  %0 = spyre.aten "aten.masked_fill.Scalar"(%x, %m) {args = {value = -1.000000e+04 : f64}, tensor_args = ["self", "mask"]} : (tensor<2x9x9xf16>, tensor<9x9xi1>) -> tensor<2x9x9xf16>
  return %0 : tensor<2x9x9xf16>
}

// -----

// masked_fill.Tensor: the value a rank-0 tensor.
// CHECK-LABEL: func.func @masked_fill_tensor
// CHECK-NEXT: %[[S:.*]] = spyre.select %arg1, %arg2, %arg0 : tensor<9x9xi1>, tensor<f32>, tensor<2x9x9xf32> -> tensor<2x9x9xf32>
// CHECK-NEXT: return %[[S]]
func.func @masked_fill_tensor(%x: tensor<2x9x9xf32>, %m: tensor<9x9xi1>, %v: tensor<f32>) -> tensor<2x9x9xf32> {
  %0 = spyre.aten "aten.masked_fill.Tensor"(%x, %m, %v) {args = {}, tensor_args = ["self", "mask", "value"]} : (tensor<2x9x9xf32>, tensor<9x9xi1>, tensor<f32>) -> tensor<2x9x9xf32>
  return %0 : tensor<2x9x9xf32>
}

// -----

// The six comparisons, broadcasting, with bool results.
// CHECK-LABEL: func.func @compares
// CHECK-NEXT: %[[EQ:.*]] = spyre.compare eq %arg0, %arg1 : tensor<2x5x67xf16>, tensor<5x67xf16> -> tensor<2x5x67xi1>
// CHECK-NEXT: %[[NE:.*]] = spyre.compare ne %arg0, %arg1
// CHECK-NEXT: %[[LT:.*]] = spyre.compare lt %arg0, %arg1
// CHECK-NEXT: %[[LE:.*]] = spyre.compare le %arg0, %arg1
// CHECK-NEXT: %[[GT:.*]] = spyre.compare gt %arg0, %arg1
// CHECK-NEXT: %[[GE:.*]] = spyre.compare ge %arg0, %arg1
// CHECK-NEXT: return %[[EQ]], %[[NE]], %[[LT]], %[[LE]], %[[GT]], %[[GE]]
func.func @compares(%x: tensor<2x5x67xf16>, %y: tensor<5x67xf16>) -> (tensor<2x5x67xi1>, tensor<2x5x67xi1>, tensor<2x5x67xi1>, tensor<2x5x67xi1>, tensor<2x5x67xi1>, tensor<2x5x67xi1>) {
  %0 = spyre.aten "aten.eq.Tensor"(%x, %y) {args = {}, tensor_args = ["self", "other"]} : (tensor<2x5x67xf16>, tensor<5x67xf16>) -> tensor<2x5x67xi1>
  %1 = spyre.aten "aten.ne.Tensor"(%x, %y) {args = {}, tensor_args = ["self", "other"]} : (tensor<2x5x67xf16>, tensor<5x67xf16>) -> tensor<2x5x67xi1>
  %2 = spyre.aten "aten.lt.Tensor"(%x, %y) {args = {}, tensor_args = ["self", "other"]} : (tensor<2x5x67xf16>, tensor<5x67xf16>) -> tensor<2x5x67xi1>
  %3 = spyre.aten "aten.le.Tensor"(%x, %y) {args = {}, tensor_args = ["self", "other"]} : (tensor<2x5x67xf16>, tensor<5x67xf16>) -> tensor<2x5x67xi1>
  %4 = spyre.aten "aten.gt.Tensor"(%x, %y) {args = {}, tensor_args = ["self", "other"]} : (tensor<2x5x67xf16>, tensor<5x67xf16>) -> tensor<2x5x67xi1>
  %5 = spyre.aten "aten.ge.Tensor"(%x, %y) {args = {}, tensor_args = ["self", "other"]} : (tensor<2x5x67xf16>, tensor<5x67xf16>) -> tensor<2x5x67xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<2x5x67xi1>, tensor<2x5x67xi1>, tensor<2x5x67xi1>, tensor<2x5x67xi1>, tensor<2x5x67xi1>, tensor<2x5x67xi1>
}

// -----

// A comparison with a scalar: a splat of the tensor's dtype.
// CHECK-LABEL: func.func @compare_scalar
// CHECK: %[[C:.*]] = spyre.constant dense<5.000000e-01> : tensor<f32>
// CHECK: spyre.compare ge %arg0, %[[C]] : tensor<7x67xf32>, tensor<f32> -> tensor<7x67xi1>
func.func @compare_scalar(%x: tensor<7x67xf32>) -> tensor<7x67xi1> {
  %0 = spyre.aten "aten.ge.Scalar"(%x) {args = {other = 5.000000e-01 : f64}, tensor_args = ["self"]} : (tensor<7x67xf32>) -> tensor<7x67xi1>
  return %0 : tensor<7x67xi1>
}

// -----

// Mixed dtypes compare in the promoted dtype (a float beats an integer).
// CHECK-LABEL: func.func @compare_promote
// CHECK: %[[C:.*]] = spyre.cast %arg1 : tensor<8xi64> -> tensor<8xf16>
// CHECK: spyre.compare lt %arg0, %[[C]] : tensor<8xf16>, tensor<8xf16> -> tensor<8xi1>
func.func @compare_promote(%x: tensor<8xf16>, %y: tensor<8xi64>) -> tensor<8xi1> {
  %0 = spyre.aten "aten.lt.Tensor"(%x, %y) {args = {}, tensor_args = ["self", "other"]} : (tensor<8xf16>, tensor<8xi64>) -> tensor<8xi1>
  return %0 : tensor<8xi1>
}

// -----

// logical_not: x == 0, for bool and float inputs.
// CHECK-LABEL: func.func @logical_not
// CHECK-DAG: %[[FZERO:.*]] = spyre.constant dense<0.000000e+00> : tensor<f16>
// CHECK-DAG: %[[FALSE:.*]] = spyre.constant dense<false> : tensor<i1>
// CHECK: %[[A:.*]] = spyre.compare eq %arg0, %[[FALSE]] : tensor<9x9xi1>, tensor<i1> -> tensor<9x9xi1>
// CHECK: %[[B:.*]] = spyre.compare eq %arg1, %[[FZERO]] : tensor<8xf16>, tensor<f16> -> tensor<8xi1>
// CHECK: return %[[A]], %[[B]]
func.func @logical_not(%x: tensor<9x9xi1>, %y: tensor<8xf16>) -> (tensor<9x9xi1>, tensor<8xi1>) {
  %0 = spyre.aten "aten.logical_not.default"(%x) {args = {}, tensor_args = ["self"]} : (tensor<9x9xi1>) -> tensor<9x9xi1>
  %1 = spyre.aten "aten.logical_not.default"(%y) {args = {}, tensor_args = ["self"]} : (tensor<8xf16>) -> tensor<8xi1>
  return %0, %1 : tensor<9x9xi1>, tensor<8xi1>
}

// -----

// _to_copy / to.dtype: one spyre.cast to the node's output dtype (fp16,
// bf16, fp32, int32, int64 indices, bool).
// CHECK-LABEL: func.func @casts
// CHECK-NEXT: %[[BF:.*]] = spyre.cast %arg0 : tensor<7x67xf16> -> tensor<7x67xbf16>
// CHECK-NEXT: %[[F32:.*]] = spyre.cast %arg0 : tensor<7x67xf16> -> tensor<7x67xf32>
// CHECK-NEXT: %[[I2F:.*]] = spyre.cast %arg1 : tensor<4xi32> -> tensor<4xf32>
// CHECK-NEXT: %[[B2H:.*]] = spyre.cast %arg2 : tensor<4xi1> -> tensor<4xf16>
// CHECK-NEXT: %[[I64:.*]] = spyre.cast %arg1 : tensor<4xi32> -> tensor<4xi64>
// CHECK-NEXT: %[[BOOL:.*]] = spyre.cast %arg3 : tensor<4xf32> -> tensor<4xi1>
// CHECK-NEXT: %[[I32:.*]] = spyre.cast %arg3 : tensor<4xf32> -> tensor<4xi32>
// CHECK-NEXT: return %[[BF]], %[[F32]], %[[I2F]], %[[B2H]], %[[I64]], %[[BOOL]], %[[I32]]
func.func @casts(%x: tensor<7x67xf16>, %i: tensor<4xi32>, %b: tensor<4xi1>, %f: tensor<4xf32>) -> (tensor<7x67xbf16>, tensor<7x67xf32>, tensor<4xf32>, tensor<4xf16>, tensor<4xi64>, tensor<4xi1>, tensor<4xi32>) {
  %0 = spyre.aten "aten._to_copy.default"(%x) {args = {device, dtype = "bf16", layout, memory_format, non_blocking = false, pin_memory}, tensor_args = ["self"]} : (tensor<7x67xf16>) -> tensor<7x67xbf16>
  %1 = spyre.aten "aten.to.dtype"(%x) {args = {copy = false, dtype = "f32", memory_format, non_blocking = false}, tensor_args = ["self"]} : (tensor<7x67xf16>) -> tensor<7x67xf32>
  %2 = spyre.aten "aten.to.dtype"(%i) {args = {copy = false, dtype = "f32", memory_format, non_blocking = false}, tensor_args = ["self"]} : (tensor<4xi32>) -> tensor<4xf32>
  %3 = spyre.aten "aten.to.dtype"(%b) {args = {copy = false, dtype = "f16", memory_format, non_blocking = false}, tensor_args = ["self"]} : (tensor<4xi1>) -> tensor<4xf16>
  %4 = spyre.aten "aten._to_copy.default"(%i) {args = {device, dtype = "i64", layout, memory_format, non_blocking = false, pin_memory}, tensor_args = ["self"]} : (tensor<4xi32>) -> tensor<4xi64>
  %5 = spyre.aten "aten.to.dtype"(%f) {args = {copy = false, dtype = "i1", memory_format, non_blocking = false}, tensor_args = ["self"]} : (tensor<4xf32>) -> tensor<4xi1>
  %6 = spyre.aten "aten.to.dtype"(%f) {args = {copy = false, dtype = "i32", memory_format, non_blocking = false}, tensor_args = ["self"]} : (tensor<4xf32>) -> tensor<4xi32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<7x67xbf16>, tensor<7x67xf32>, tensor<4xf32>, tensor<4xf16>, tensor<4xi64>, tensor<4xi1>, tensor<4xi32>
}

// -----

// A cast to the input's own dtype is nothing.
// CHECK-LABEL: func.func @cast_same
// CHECK-NEXT: return %arg0
func.func @cast_same(%x: tensor<7x67xf16>) -> tensor<7x67xf16> {
  %0 = spyre.aten "aten.to.dtype"(%x) {args = {copy = false, dtype = "f16", memory_format, non_blocking = false}, tensor_args = ["self"]} : (tensor<7x67xf16>) -> tensor<7x67xf16>
  return %0 : tensor<7x67xf16>
}

// -----

// dropout in inference is the identity.
// CHECK-LABEL: func.func @dropout_eval
// CHECK-NEXT: return %arg0
func.func @dropout_eval(%x: tensor<7x67xf16>) -> tensor<7x67xf16> {
  %0 = spyre.aten "aten.dropout.default"(%x) {args = {p = 1.000000e-01 : f64, train = false}, tensor_args = ["input"]} : (tensor<7x67xf16>) -> tensor<7x67xf16>
  return %0 : tensor<7x67xf16>
}
