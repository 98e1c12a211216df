// Folders and canonicalization patterns of the spyre dialect (SpyreFolds.cpp),
// each with the cases where it must not apply.

// RUN: spyre-opt %s -canonicalize -split-input-file -allow-unregistered-dialect --mlir-print-local-scope | FileCheck %s

//===----------------------------------------------------------------------===//
// spyre.unary: splat folding
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @unary_splat
// CHECK-DAG: %[[NEG:.*]] = spyre.constant dense<-4.000000e+00> : tensor<4xf32> : tensor<4xf32>
// CHECK-DAG: %[[ABS:.*]] = spyre.constant dense<2.500000e+00> : tensor<4xf32> : tensor<4xf32>
// CHECK-DAG: %[[EXP:.*]] = spyre.constant dense<1.000000e+00> : tensor<4xf32> : tensor<4xf32>
// CHECK-DAG: %[[SQRT:.*]] = spyre.constant dense<2.000000e+00> : tensor<4xf32> : tensor<4xf32>
// CHECK-DAG: %[[RSQRT:.*]] = spyre.constant dense<5.000000e-01> : tensor<4xf32> : tensor<4xf32>
// CHECK-DAG: %[[RCP:.*]] = spyre.constant dense<2.500000e-01> : tensor<4xf32> : tensor<4xf32>
// CHECK-DAG: %[[RELU:.*]] = spyre.constant dense<0.000000e+00> : tensor<4xf32> : tensor<4xf32>
// CHECK-NOT: spyre.unary
// CHECK: return %[[NEG]], %[[ABS]], %[[EXP]], %[[SQRT]], %[[RSQRT]], %[[RCP]], %[[RELU]], %[[ABS]]
func.func @unary_splat() -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
                             tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
                             tensor<4xf32>, tensor<4xf32>) {
  %four = spyre.constant dense<4.0> : tensor<4xf32> : tensor<4xf32>
  %mhalf = spyre.constant dense<-2.5> : tensor<4xf32> : tensor<4xf32>
  %zero = spyre.constant dense<0.0> : tensor<4xf32> : tensor<4xf32>
  %0 = spyre.unary neg %four : tensor<4xf32> -> tensor<4xf32>
  %1 = spyre.unary abs %mhalf : tensor<4xf32> -> tensor<4xf32>
  %2 = spyre.unary exp %zero : tensor<4xf32> -> tensor<4xf32>
  %3 = spyre.unary sqrt %four : tensor<4xf32> -> tensor<4xf32>
  %4 = spyre.unary rsqrt %four : tensor<4xf32> -> tensor<4xf32>
  %5 = spyre.unary reciprocal %four : tensor<4xf32> -> tensor<4xf32>
  %6 = spyre.unary relu %mhalf : tensor<4xf32> -> tensor<4xf32>
  // relu of a positive value is the value.
  %7 = spyre.unary relu %1 : tensor<4xf32> -> tensor<4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<4xf32>, tensor<4xf32>,
      tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
      tensor<4xf32>, tensor<4xf32>
}

// -----

// The folded value is rounded to the element type, and the result keeps its
// layout.
// CHECK-LABEL: func.func @unary_splat_f16_layout
// CHECK: %[[C:.*]] = spyre.constant dense<3.161620e-01> : tensor<64xf16> : tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
// CHECK-NEXT: return %[[C]]
func.func @unary_splat_f16_layout() -> tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>> {
  %c = spyre.constant dense<10.0> : tensor<64xf16> : tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
  %0 = spyre.unary rsqrt %c : tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
                           -> tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
  return %0 : tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
}

// -----

// Non-finite results fold too: the device computes them the same way
// (sqrt of a negative is NaN, rsqrt and reciprocal of 0 are inf).
// CHECK-LABEL: func.func @unary_splat_nonfinite
// CHECK-DAG: %[[NAN:.*]] = spyre.constant dense<0x{{7|F}}FC00000> : tensor<4xf32> : tensor<4xf32>
// CHECK-DAG: %[[INF:.*]] = spyre.constant dense<0x7F800000> : tensor<4xf32> : tensor<4xf32>
// CHECK-DAG: %[[ZERO:.*]] = spyre.constant dense<0.000000e+00> : tensor<4xf32> : tensor<4xf32>
// CHECK-NOT: spyre.unary
// CHECK: return %[[NAN]], %[[INF]], %[[INF]], %[[ZERO]]
func.func @unary_splat_nonfinite() -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %m = spyre.constant dense<-1.0> : tensor<4xf32> : tensor<4xf32>
  %z = spyre.constant dense<0.0> : tensor<4xf32> : tensor<4xf32>
  %0 = spyre.unary sqrt %m : tensor<4xf32> -> tensor<4xf32>
  %1 = spyre.unary rsqrt %z : tensor<4xf32> -> tensor<4xf32>
  %2 = spyre.unary reciprocal %z : tensor<4xf32> -> tensor<4xf32>
  %3 = spyre.unary tanh %z : tensor<4xf32> -> tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Non-splat constants: evaluated in fp32 with the simulator's functions
// (cosf(1) = 0.540302277 in fp32), f16 results rounded to nearest even
// (exp(1) = 2.71875, exp(12) overflows f16), integers in int64 wrapping to
// the element type (-(-2^31) = -2^31 in i32), round half to even.
// CHECK-LABEL: func.func @unary_values
// CHECK-DAG: %[[COS:.*]] = spyre.constant dense<[1.000000e+00, 0.540302277, -0.801143586, -0.93645668]> : tensor<4xf32>
// CHECK-DAG: %[[SIN:.*]] = spyre.constant dense<[0.000000e+00, 0.841470957, -0.598472118, -0.350783229]> : tensor<4xf32>
// CHECK-DAG: %[[EXP:.*]] = spyre.constant dense<[2.718750e+00, 3.679200e-01, 0x7C00]> : tensor<3xf16>
// CHECK-DAG: %[[NEG:.*]] = spyre.constant dense<[0, 7, -2147483647, -2147483648]> : tensor<4xi32>
// CHECK-DAG: %[[NOT:.*]] = spyre.constant dense<[false, true, false, true]> : tensor<4xi1>
// CHECK-DAG: %[[ROUND:.*]] = spyre.constant dense<[0.000000e+00, 1.000000e+00, -2.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK-DAG: %[[GELU:.*]] = spyre.constant dense<[0.000000e+00, 0.841344714, -0.0155241787, 3.4991858]> : tensor<4xf32>
// CHECK-NOT: spyre.unary
// CHECK: return %[[COS]], %[[SIN]], %[[EXP]], %[[NEG]], %[[NOT]], %[[ROUND]], %[[GELU]]
func.func @unary_values() -> (tensor<4xf32>, tensor<4xf32>, tensor<3xf16>, tensor<4xi32>, tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) {
  %v = spyre.constant dense<[0.0, 1.0, -2.5, 3.5]> : tensor<4xf32> : tensor<4xf32>
  %h = spyre.constant dense<[1.0, -1.0, 12.0]> : tensor<3xf16> : tensor<3xf16>
  %i = spyre.constant dense<[0, -7, 2147483647, -2147483648]> : tensor<4xi32> : tensor<4xi32>
  %b = spyre.constant dense<[true, false, true, false]> : tensor<4xi1> : tensor<4xi1>
  %0 = spyre.unary cos %v : tensor<4xf32> -> tensor<4xf32>
  %1 = spyre.unary sin %v : tensor<4xf32> -> tensor<4xf32>
  %2 = spyre.unary exp %h : tensor<3xf16> -> tensor<3xf16>
  %3 = spyre.unary neg %i : tensor<4xi32> -> tensor<4xi32>
  %4 = spyre.unary logical_not %b : tensor<4xi1> -> tensor<4xi1>
  %5 = spyre.unary round %v : tensor<4xf32> -> tensor<4xf32>
  %6 = spyre.unary gelu %v : tensor<4xf32> -> tensor<4xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4xf32>, tensor<4xf32>, tensor<3xf16>, tensor<4xi32>, tensor<4xi1>, tensor<4xf32>, tensor<4xf32>
}

// -----

// No fold: a non-constant operand, a result type without a static shape
// (elements attributes are static).
// CHECK-LABEL: func.func @unary_no_fold
// CHECK: spyre.unary exp %{{.*}} : tensor<4xf32> -> tensor<4xf32>
// CHECK: spyre.unary neg %{{.*}} : tensor<4xf32> -> tensor<?xf32>
func.func @unary_no_fold(%x: tensor<4xf32>) {
  %m = spyre.constant dense<-1.0> : tensor<4xf32> : tensor<4xf32>
  %0 = spyre.unary exp %x : tensor<4xf32> -> tensor<4xf32>
  %1 = spyre.unary neg %m : tensor<4xf32> -> tensor<?xf32>
  "test.use"(%0, %1) : (tensor<4xf32>, tensor<?xf32>) -> ()
  return
}

// -----

//===----------------------------------------------------------------------===//
// spyre.binary: splat folding
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @binary_splat
// CHECK-DAG: %[[ADD:.*]] = spyre.constant dense<5.000000e+00> : tensor<4xf32> : tensor<4xf32>
// CHECK-DAG: %[[SUB:.*]] = spyre.constant dense<3.000000e+00> : tensor<4xf32> : tensor<4xf32>
// CHECK-DAG: %[[MUL:.*]] = spyre.constant dense<8.000000e+00> : tensor<4xf32> : tensor<4xf32>
// CHECK-DAG: %[[DIV:.*]] = spyre.constant dense<2.000000e+00> : tensor<4xf32> : tensor<4xf32>
// CHECK-DAG: %[[MAX:.*]] = spyre.constant dense<4.000000e+00> : tensor<4xf32> : tensor<4xf32>
// CHECK-DAG: %[[MIN:.*]] = spyre.constant dense<1.000000e+00> : tensor<4xf32> : tensor<4xf32>
// Broadcasting splats fold to a splat of the result shape.
// CHECK-DAG: %[[BC:.*]] = spyre.constant dense<-3.000000e+00> : tensor<2x4xf32> : tensor<2x4xf32>
// CHECK-NOT: spyre.binary
// CHECK: return %[[ADD]], %[[SUB]], %[[MUL]], %[[DIV]], %[[MAX]], %[[MIN]], %[[BC]]
func.func @binary_splat() -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
                              tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
                              tensor<2x4xf32>) {
  %four = spyre.constant dense<4.0> : tensor<4xf32> : tensor<4xf32>
  %one = spyre.constant dense<1.0> : tensor<f32> : tensor<f32>
  %two = spyre.constant dense<2.0> : tensor<4xf32> : tensor<4xf32>
  %col = spyre.constant dense<1.0> : tensor<2x1xf32> : tensor<2x1xf32>
  %0 = spyre.binary add %four, %one : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %1 = spyre.binary sub %four, %one : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %2 = spyre.binary mul %four, %two : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %3 = spyre.binary div %four, %two : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %4 = spyre.binary max %one, %four : tensor<f32>, tensor<4xf32> -> tensor<4xf32>
  %5 = spyre.binary min %one, %four : tensor<f32>, tensor<4xf32> -> tensor<4xf32>
  %6 = spyre.binary sub %col, %four : tensor<2x1xf32>, tensor<4xf32> -> tensor<2x4xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
      tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2x4xf32>
}

// -----

// Non-splat operands broadcast numpy-style; division by zero is inf as on
// the device; integers wrap at their width (2^31 - 1 + 1 in i32) and an
// integer floor division by zero is 0 (the SFP's answer).
// CHECK-LABEL: func.func @binary_values
// CHECK-DAG: %[[ADD:.*]] = spyre.constant dense<{{\[\[}}1.100000e+01, 2.100000e+01, 3.100000e+01], [1.200000e+01, 2.200000e+01, 3.200000e+01]]> : tensor<2x3xf32>
// CHECK-DAG: %[[DIV:.*]] = spyre.constant dense<[0x7F800000, 2.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[POW:.*]] = spyre.constant dense<[1.000000e+00, 4.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[IADD:.*]] = spyre.constant dense<[-2147483648, 5]> : tensor<2xi32>
// CHECK-DAG: %[[FDIV:.*]] = spyre.constant dense<[0, -4]> : tensor<2xi64>
// CHECK-DAG: %[[MAX:.*]] = spyre.constant dense<[0x7FC00000, 2.000000e+00]> : tensor<2xf32>
// CHECK-NOT: spyre.binary
// CHECK: return %[[ADD]], %[[DIV]], %[[POW]], %[[IADD]], %[[FDIV]], %[[MAX]]
func.func @binary_values() -> (tensor<2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xi32>, tensor<2xi64>, tensor<2xf32>) {
  %col = spyre.constant dense<[[1.0], [2.0]]> : tensor<2x1xf32> : tensor<2x1xf32>
  %row = spyre.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32> : tensor<3xf32>
  %0 = spyre.binary add %col, %row : tensor<2x1xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %v = spyre.constant dense<[1.0, 2.0]> : tensor<2xf32> : tensor<2xf32>
  %d = spyre.constant dense<[0.0, 1.0]> : tensor<2xf32> : tensor<2xf32>
  %1 = spyre.binary div %v, %d : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  %two = spyre.constant dense<2.0> : tensor<f32> : tensor<f32>
  %2 = spyre.binary pow %v, %two : tensor<2xf32>, tensor<f32> -> tensor<2xf32>
  %i = spyre.constant dense<[2147483647, 2]> : tensor<2xi32> : tensor<2xi32>
  %j = spyre.constant dense<[1, 3]> : tensor<2xi32> : tensor<2xi32>
  %3 = spyre.binary add %i, %j : tensor<2xi32>, tensor<2xi32> -> tensor<2xi32>
  %a = spyre.constant dense<[7, 7]> : tensor<2xi64> : tensor<2xi64>
  %b = spyre.constant dense<[0, -2]> : tensor<2xi64> : tensor<2xi64>
  %4 = spyre.binary floordiv %a, %b : tensor<2xi64>, tensor<2xi64> -> tensor<2xi64>
  %n = spyre.constant dense<[0x7FC00000, 1.0]> : tensor<2xf32> : tensor<2xf32>
  %5 = spyre.binary max %n, %v : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xi32>, tensor<2xi64>, tensor<2xf32>
}

// -----

// Elementwise ops on splats give a splat of any size (no work, no limit).
// CHECK-LABEL: func.func @binary_splat_large
// CHECK-NEXT: %[[C:.*]] = spyre.constant dense<3.000000e+00> : tensor<1024x1024xf16> : tensor<1024x1024xf16>
// CHECK-NEXT: return %[[C]]
func.func @binary_splat_large() -> tensor<1024x1024xf16> {
  %one = spyre.constant dense<1.0> : tensor<1024x1024xf16> : tensor<1024x1024xf16>
  %two = spyre.constant dense<2.0> : tensor<f16> : tensor<f16>
  %0 = spyre.binary add %one, %two : tensor<1024x1024xf16>, tensor<f16> -> tensor<1024x1024xf16>
  return %0 : tensor<1024x1024xf16>
}

// -----

// No fold: one non-constant operand; a result over the limit of 65536
// elements (a non-splat [256] broadcast over [512, 256]).
// CHECK-LABEL: func.func @binary_no_fold
// CHECK: spyre.binary mul %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xf32>
// CHECK: spyre.binary add %{{.*}}, %{{.*}} : tensor<256xf32>, tensor<512x1xf32> -> tensor<512x256xf32>
func.func @binary_no_fold(%x: tensor<4xf32>) {
  %two = spyre.constant dense<2.0> : tensor<4xf32> : tensor<4xf32>
  %0 = spyre.binary mul %x, %two : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %r = spyre.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0, 64.0, 65.0, 66.0, 67.0, 68.0, 69.0, 70.0, 71.0, 72.0, 73.0, 74.0, 75.0, 76.0, 77.0, 78.0, 79.0, 80.0, 81.0, 82.0, 83.0, 84.0, 85.0, 86.0, 87.0, 88.0, 89.0, 90.0, 91.0, 92.0, 93.0, 94.0, 95.0, 96.0, 97.0, 98.0, 99.0, 100.0, 101.0, 102.0, 103.0, 104.0, 105.0, 106.0, 107.0, 108.0, 109.0, 110.0, 111.0, 112.0, 113.0, 114.0, 115.0, 116.0, 117.0, 118.0, 119.0, 120.0, 121.0, 122.0, 123.0, 124.0, 125.0, 126.0, 127.0, 128.0, 129.0, 130.0, 131.0, 132.0, 133.0, 134.0, 135.0, 136.0, 137.0, 138.0, 139.0, 140.0, 141.0, 142.0, 143.0, 144.0, 145.0, 146.0, 147.0, 148.0, 149.0, 150.0, 151.0, 152.0, 153.0, 154.0, 155.0, 156.0, 157.0, 158.0, 159.0, 160.0, 161.0, 162.0, 163.0, 164.0, 165.0, 166.0, 167.0, 168.0, 169.0, 170.0, 171.0, 172.0, 173.0, 174.0, 175.0, 176.0, 177.0, 178.0, 179.0, 180.0, 181.0, 182.0, 183.0, 184.0, 185.0, 186.0, 187.0, 188.0, 189.0, 190.0, 191.0, 192.0, 193.0, 194.0, 195.0, 196.0, 197.0, 198.0, 199.0, 200.0, 201.0, 202.0, 203.0, 204.0, 205.0, 206.0, 207.0, 208.0, 209.0, 210.0, 211.0, 212.0, 213.0, 214.0, 215.0, 216.0, 217.0, 218.0, 219.0, 220.0, 221.0, 222.0, 223.0, 224.0, 225.0, 226.0, 227.0, 228.0, 229.0, 230.0, 231.0, 232.0, 233.0, 234.0, 235.0, 236.0, 237.0, 238.0, 239.0, 240.0, 241.0, 242.0, 243.0, 244.0, 245.0, 246.0, 247.0, 248.0, 249.0, 250.0, 251.0, 252.0, 253.0, 254.0, 255.0]> : tensor<256xf32> : tensor<256xf32>
  %c = spyre.constant dense<1.0> : tensor<512x1xf32> : tensor<512x1xf32>
  %1 = spyre.binary add %r, %c : tensor<256xf32>, tensor<512x1xf32> -> tensor<512x256xf32>
  "test.use"(%0, %1) : (tensor<4xf32>, tensor<512x256xf32>) -> ()
  return
}

// -----

//===----------------------------------------------------------------------===//
// spyre.binary: x + 0, x - 0, x * 1, x / 1
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @binary_identity
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NOT: spyre.binary
// CHECK: return %[[X]], %[[X]], %[[X]], %[[X]], %[[X]]
func.func @binary_identity(%x: tensor<4x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %z = spyre.constant dense<0.0> : tensor<8xf32> : tensor<8xf32>
  %o = spyre.constant dense<1.0> : tensor<4x8xf32> : tensor<4x8xf32>
  %mz = spyre.constant dense<-0.0> : tensor<f32> : tensor<f32>
  // The constant broadcasts into x's shape.
  %0 = spyre.binary add %x, %z : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %1 = spyre.binary sub %x, %z : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %2 = spyre.binary mul %x, %o : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %3 = spyre.binary div %x, %o : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %4 = spyre.binary add %x, %mz : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  return %0, %1, %2, %3, %4 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>,
      tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// With layouts: x keeps its layout when the result has the same one.
// CHECK-LABEL: func.func @binary_identity_layout
// CHECK-SAME: (%[[X:.*]]: tensor<4x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>)
// CHECK-NOT: spyre.binary
// CHECK: return %[[X]]
func.func @binary_identity_layout(%x: tensor<4x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>)
    -> tensor<4x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>> {
  %o = spyre.constant dense<1.0> : tensor<f16> : tensor<f16, #spyre.layout<stick_dim = -1, stick_elems = 64>>
  %0 = spyre.binary mul %x, %o : tensor<4x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>,
                                 tensor<f16, #spyre.layout<stick_dim = -1, stick_elems = 64>>
                              -> tensor<4x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
  return %0 : tensor<4x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
}

// -----

// No identity fold: the neutral element on the left (0 - x is not x), other
// constants, a broadcasting x smaller than the result, x in another layout
// than the result, integer types.
// CHECK-LABEL: func.func @binary_identity_no_fold
// CHECK: spyre.binary sub %[[Z:.*]], %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK: spyre.binary add %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK: spyre.binary mul %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK: spyre.binary mul %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<f32>
// CHECK: spyre.binary add %{{.*}}, %{{.*}} : tensor<8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK: spyre.binary sub %{{.*}}, %{{.*}} : tensor<1x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK: spyre.binary add %{{.*}}, %{{.*}} : tensor<4x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>, tensor<f16> -> tensor<4x64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>>
// CHECK: spyre.binary add %{{.*}}, %{{.*}} : tensor<4xi32>, tensor<4xi32>
func.func @binary_identity_no_fold(%x: tensor<4x8xf32>, %v: tensor<8xf32>,
    %r: tensor<1x8xf32>, %l: tensor<4x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>,
    %i: tensor<4xi32>) {
  %z = spyre.constant dense<0.0> : tensor<4x8xf32> : tensor<4x8xf32>
  %o = spyre.constant dense<1.0> : tensor<4x8xf32> : tensor<4x8xf32>
  %zero = spyre.constant dense<0.0> : tensor<f32> : tensor<f32>
  %zc = spyre.constant dense<0.0> : tensor<4x1xf32> : tensor<4x1xf32>
  %zh = spyre.constant dense<0.0> : tensor<f16> : tensor<f16>
  %zi = spyre.constant dense<0> : tensor<4xi32> : tensor<4xi32>
  %0 = spyre.binary sub %z, %x : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %1 = spyre.binary add %x, %o : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %2 = spyre.binary mul %o, %x : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %3 = spyre.binary mul %x, %zero : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %4 = spyre.binary add %v, %z : tensor<8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %5 = spyre.binary sub %r, %zc : tensor<1x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  %6 = spyre.binary add %l, %zh : tensor<4x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>, tensor<f16>
                              -> tensor<4x64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>>
  %7 = spyre.binary add %i, %zi : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  "test.use"(%0, %1, %2, %3, %4, %5, %6, %7) : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>>, tensor<4xi32>) -> ()
  return
}

// -----

//===----------------------------------------------------------------------===//
// spyre.cast
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @cast_fold
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-DAG: %[[H:.*]] = spyre.constant dense<1.000980e+00> : tensor<4xf16> : tensor<4xf16>
// CHECK-DAG: %[[B:.*]] = spyre.constant dense<1.000000e+00> : tensor<4xbf16> : tensor<4xbf16>
// CHECK-NOT: spyre.cast
// CHECK: return %[[X]], %[[H]], %[[B]]
func.func @cast_fold(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf16>, tensor<4xbf16>) {
  // A cast to the same type is the input.
  %0 = spyre.cast %x : tensor<4xf32> -> tensor<4xf32>
  // Float splats convert with round to nearest even.
  %c = spyre.constant dense<1.0009765625> : tensor<4xf32> : tensor<4xf32>
  %1 = spyre.cast %c : tensor<4xf32> -> tensor<4xf16>
  %2 = spyre.cast %c : tensor<4xf32> -> tensor<4xbf16>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf16>, tensor<4xbf16>
}

// -----

// Non-splat casts as the SFP converts: f32 -> f16 to nearest even (ties
// 1 + 2^-11 -> 1 and 1 + 3 * 2^-11 -> 1 + 2^-9; 65519 -> 65504, 65520 ->
// inf; 2^-25 -> 0, 3 * 2^-26 -> 2^-24, the smallest subnormal); float ->
// integer truncated toward zero, NaN -> 0, wrapped at the width (3e10);
// -> i1 tests != 0 (-0 is false, NaN true); integer -> float through fp32
// (2049 -> 2048: a tie to even; 2^24 + 1 -> 2^24 -> inf in f16).
// CHECK-LABEL: func.func @cast_values
// CHECK-DAG: %[[H:.*]] = spyre.constant dense<[1.000000e+00, 1.001950e+00, 6.550400e+04, 0x7C00, 0.000000e+00, 5.960460e-08, -0.000000e+00, 9.997550e-02]> : tensor<8xf16>
// CHECK-DAG: %[[I:.*]] = spyre.constant dense<[-1, 2, 0, -64770048]> : tensor<4xi32>
// CHECK-DAG: %[[B:.*]] = spyre.constant dense<[false, false, true, true]> : tensor<4xi1>
// CHECK-DAG: %[[L:.*]] = spyre.constant dense<[2.048000e+03, 0x7C00, -3.000000e+00]> : tensor<3xf16>
// CHECK-DAG: %[[F:.*]] = spyre.constant dense<[1.000000e+00, 0.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[W:.*]] = spyre.constant dense<[1, -1]> : tensor<2xi32>
// CHECK-NOT: spyre.cast
// CHECK: return %[[H]], %[[I]], %[[B]], %[[L]], %[[F]], %[[W]]
func.func @cast_values() -> (tensor<8xf16>, tensor<4xi32>, tensor<4xi1>, tensor<3xf16>, tensor<2xf32>, tensor<2xi32>) {
  %f = spyre.constant dense<[1.00048828125, 1.00146484375, 65519.0, 65520.0, 2.98023223876953125e-08, 4.470348358154296875e-08, -0.0, 0.1]> : tensor<8xf32> : tensor<8xf32>
  %0 = spyre.cast %f : tensor<8xf32> -> tensor<8xf16>
  %g = spyre.constant dense<[-1.5, 2.9, 0x7FC00000, 3.0e10]> : tensor<4xf32> : tensor<4xf32>
  %1 = spyre.cast %g : tensor<4xf32> -> tensor<4xi32>
  %z = spyre.constant dense<[0.0, -0.0, 0x7FC00000, 0.5]> : tensor<4xf32> : tensor<4xf32>
  %2 = spyre.cast %z : tensor<4xf32> -> tensor<4xi1>
  %l = spyre.constant dense<[2049, 16777217, -3]> : tensor<3xi64> : tensor<3xi64>
  %3 = spyre.cast %l : tensor<3xi64> -> tensor<3xf16>
  %b = spyre.constant dense<[true, false]> : tensor<2xi1> : tensor<2xi1>
  %4 = spyre.cast %b : tensor<2xi1> -> tensor<2xf32>
  %w = spyre.constant dense<[4294967297, -1]> : tensor<2xi64> : tensor<2xi64>
  %5 = spyre.cast %w : tensor<2xi64> -> tensor<2xi32>
  return %0, %1, %2, %3, %4, %5 : tensor<8xf16>, tensor<4xi32>, tensor<4xi1>, tensor<3xf16>, tensor<2xf32>, tensor<2xi32>
}

// -----

// No fold: a change of layout only of a non-constant (that is a
// restickify, not a no-op), a non-constant, a dynamic result.
// CHECK-LABEL: func.func @cast_no_fold
// CHECK: spyre.cast %{{.*}} : tensor<4x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>> -> tensor<4x64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
// CHECK: spyre.cast %{{.*}} : tensor<4xf32> -> tensor<4xf16>
// CHECK: spyre.cast %{{.*}} : tensor<4xf32> -> tensor<?xf16>
func.func @cast_no_fold(%x: tensor<4xf32>, %l: tensor<4x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>) {
  %c = spyre.constant dense<1.5> : tensor<4xf32> : tensor<4xf32>
  %0 = spyre.cast %l : tensor<4x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
                    -> tensor<4x64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
  %1 = spyre.cast %x : tensor<4xf32> -> tensor<4xf16>
  %2 = spyre.cast %c : tensor<4xf32> -> tensor<?xf16>
  "test.use"(%0, %1, %2) : (tensor<4x64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>, tensor<4xf16>, tensor<?xf16>) -> ()
  return
}

// -----

//===----------------------------------------------------------------------===//
// spyre.transpose
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @transpose_identity
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NOT: spyre.transpose
// CHECK: return %[[X]], %[[X]]
func.func @transpose_identity(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %0 = spyre.transpose %x [0, 1, 2] : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  // Two transposes composing to the identity.
  %1 = spyre.transpose %x [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %2 = spyre.transpose %1 [2, 0, 1] : tensor<3x4x2xf32> -> tensor<2x3x4xf32>
  return %0, %2 : tensor<2x3x4xf32>, tensor<2x3x4xf32>
}

// -----

// transpose(transpose(x, p), q) = transpose(x, p o q), keeping the outer
// result type.
// CHECK-LABEL: func.func @transpose_compose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[T:.*]] = spyre.transpose %[[X]] [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
// CHECK-NEXT: return %[[T]]
func.func @transpose_compose(%x: tensor<2x3x4xf32>) -> tensor<3x4x2xf32> {
  %0 = spyre.transpose %x [1, 0, 2] : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  %1 = spyre.transpose %0 [0, 2, 1] : tensor<3x2x4xf32> -> tensor<3x4x2xf32>
  return %1 : tensor<3x4x2xf32>
}

// -----

// Three transposes compose into one; the intermediate layouts disappear.
// CHECK-LABEL: func.func @transpose_compose_chain
// CHECK-SAME: (%[[X:.*]]: tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>)
// CHECK-NEXT: %[[T:.*]] = spyre.transpose %[[X]] [1, 0] : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>> -> tensor<128x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
// CHECK-NEXT: return %[[T]]
func.func @transpose_compose_chain(%x: tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>)
    -> tensor<128x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>> {
  %0 = spyre.transpose %x [1, 0] : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
                               -> tensor<128x64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>>
  %1 = spyre.transpose %0 [1, 0] : tensor<128x64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>>
                               -> tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
  %2 = spyre.transpose %1 [1, 0] : tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
                               -> tensor<128x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
  return %2 : tensor<128x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
}

// -----

// A transposed splat is a splat.
// CHECK-LABEL: func.func @transpose_splat
// CHECK-NEXT: %[[C:.*]] = spyre.constant dense<2.000000e+00> : tensor<4x2xf32> : tensor<4x2xf32>
// CHECK-NEXT: return %[[C]]
func.func @transpose_splat() -> tensor<4x2xf32> {
  %c = spyre.constant dense<2.0> : tensor<2x4xf32> : tensor<2x4xf32>
  %0 = spyre.transpose %c [1, 0] : tensor<2x4xf32> -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

// A permuted constant is a constant.
// CHECK-LABEL: func.func @transpose_values
// CHECK-NEXT: %[[C:.*]] = spyre.constant dense<{{\[\[\[}}1, 4], [2, 5], [3, 6]]]> : tensor<1x3x2xi32> : tensor<1x3x2xi32>
// CHECK-NEXT: return %[[C]]
func.func @transpose_values() -> tensor<1x3x2xi32> {
  %c = spyre.constant dense<[[[1, 2, 3]], [[4, 5, 6]]]> : tensor<2x1x3xi32> : tensor<2x1x3xi32>
  %0 = spyre.transpose %c [1, 2, 0] : tensor<2x1x3xi32> -> tensor<1x3x2xi32>
  return %0 : tensor<1x3x2xi32>
}

// -----

// No fold: a real permutation of a non-constant, the identity permutation
// that changes the layout (that moves data).
// CHECK-LABEL: func.func @transpose_no_fold
// CHECK: spyre.transpose %{{.*}} [1, 0] : tensor<2x4xf32> -> tensor<4x2xf32>
// CHECK: spyre.transpose %{{.*}} [0, 1] : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>> -> tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
func.func @transpose_no_fold(%x: tensor<2x4xf32>, %l: tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>) {
  %0 = spyre.transpose %x [1, 0] : tensor<2x4xf32> -> tensor<4x2xf32>
  %1 = spyre.transpose %l [0, 1] : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
                               -> tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
  "test.use"(%0, %1) : (tensor<4x2xf32>, tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>) -> ()
  return
}

// -----

//===----------------------------------------------------------------------===//
// spyre.matmul: transposes folded into the transpose flags
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @matmul_fold_transpose
// CHECK-SAME: (%[[A:.*]]: tensor<32x64xf16>, %[[B:.*]]: tensor<16x32xf16>)
// CHECK-NOT: spyre.transpose
// CHECK: %[[M0:.*]] = spyre.matmul %[[A]], %[[A]] {transpose_lhs} : tensor<32x64xf16>, tensor<32x64xf16> -> tensor<64x64xf16>
// CHECK: %[[M1:.*]] = spyre.matmul %[[B]], %[[B]] {transpose_rhs} : tensor<16x32xf16>, tensor<16x32xf16> -> tensor<16x16xf16>
// CHECK: %[[M2:.*]] = spyre.matmul %[[A]], %[[B]] {transpose_lhs, transpose_rhs} : tensor<32x64xf16>, tensor<16x32xf16> -> tensor<64x16xf16>
// A set flag is cleared when the operand is the transposed value.
// CHECK: %[[M3:.*]] = spyre.matmul %[[B]], %[[A]] : tensor<16x32xf16>, tensor<32x64xf16> -> tensor<16x64xf16>
// CHECK: return %[[M0]], %[[M1]], %[[M2]], %[[M3]]
func.func @matmul_fold_transpose(%a: tensor<32x64xf16>, %b: tensor<16x32xf16>)
    -> (tensor<64x64xf16>, tensor<16x16xf16>, tensor<64x16xf16>, tensor<16x64xf16>) {
  %at = spyre.transpose %a [1, 0] : tensor<32x64xf16> -> tensor<64x32xf16>
  %bt = spyre.transpose %b [1, 0] : tensor<16x32xf16> -> tensor<32x16xf16>
  %0 = spyre.matmul %at, %a : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf16>
  %1 = spyre.matmul %b, %bt : tensor<16x32xf16>, tensor<32x16xf16> -> tensor<16x16xf16>
  %2 = spyre.matmul %at, %bt : tensor<64x32xf16>, tensor<32x16xf16> -> tensor<64x16xf16>
  %3 = spyre.matmul %bt, %a {transpose_lhs} : tensor<32x16xf16>, tensor<32x64xf16> -> tensor<16x64xf16>
  return %0, %1, %2, %3 : tensor<64x64xf16>, tensor<16x16xf16>, tensor<64x16xf16>, tensor<16x64xf16>
}

// -----

// A set flag is cleared when the operand is the transposed value; batch dims
// stay.
// CHECK-LABEL: func.func @matmul_fold_transpose_batch
// CHECK-SAME: (%[[A:.*]]: tensor<2x8x32xf32>, %[[B:.*]]: tensor<32x16xf32>)
// CHECK-NEXT: %[[M:.*]] = spyre.matmul %[[A]], %[[B]] : tensor<2x8x32xf32>, tensor<32x16xf32> -> tensor<2x8x16xf32>
// CHECK-NEXT: return %[[M]]
func.func @matmul_fold_transpose_batch(%a: tensor<2x8x32xf32>, %b: tensor<32x16xf32>) -> tensor<2x8x16xf32> {
  %at = spyre.transpose %a [0, 2, 1] : tensor<2x8x32xf32> -> tensor<2x32x8xf32>
  %bt = spyre.transpose %b [1, 0] : tensor<32x16xf32> -> tensor<16x32xf32>
  %0 = spyre.matmul %at, %bt {transpose_lhs, transpose_rhs} : tensor<2x32x8xf32>, tensor<16x32xf32> -> tensor<2x8x16xf32>
  return %0 : tensor<2x8x16xf32>
}

// -----

// A transpose with other users stays for them.
// CHECK-LABEL: func.func @matmul_fold_transpose_shared
// CHECK-SAME: (%[[A:.*]]: tensor<32x64xf16>, %[[B:.*]]: tensor<32x16xf16>)
// CHECK: %[[T:.*]] = spyre.transpose %[[A]] [1, 0]
// CHECK: %[[M:.*]] = spyre.matmul %[[A]], %[[B]] {transpose_lhs}
// CHECK: return %[[M]], %[[T]]
func.func @matmul_fold_transpose_shared(%a: tensor<32x64xf16>, %b: tensor<32x16xf16>)
    -> (tensor<64x16xf16>, tensor<64x32xf16>) {
  %at = spyre.transpose %a [1, 0] : tensor<32x64xf16> -> tensor<64x32xf16>
  %0 = spyre.matmul %at, %b : tensor<64x32xf16>, tensor<32x16xf16> -> tensor<64x16xf16>
  return %0, %at : tensor<64x16xf16>, tensor<64x32xf16>
}

// -----

// No fold: after layout assignment (on the transpose's input or result), or
// when the permutation is not a swap of the last two dims.
// CHECK-LABEL: func.func @matmul_no_fold_transpose
// CHECK: %[[AT:.*]] = spyre.transpose
// CHECK-NEXT: spyre.matmul %[[AT]], %{{.*}} : tensor<64x32xf16>, tensor<32x16xf16> -> tensor<64x16xf16>
// CHECK-NEXT: %[[CT:.*]] = spyre.transpose
// CHECK-NEXT: spyre.matmul %[[CT]], %{{.*}} : tensor<64x32xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>, tensor<32x16xf16> -> tensor<64x16xf16>
// CHECK-NEXT: %[[DT:.*]] = spyre.transpose
// CHECK-NEXT: spyre.matmul %[[DT]], %{{.*}} : tensor<4x2x8x32xf32>, tensor<32x16xf32> -> tensor<4x2x8x16xf32>
func.func @matmul_no_fold_transpose(
    %a: tensor<32x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>,
    %c: tensor<32x64xf16>, %b: tensor<32x16xf16>,
    %d: tensor<2x4x8x32xf32>, %e: tensor<32x16xf32>) {
  %at = spyre.transpose %a [1, 0] : tensor<32x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>> -> tensor<64x32xf16>
  %0 = spyre.matmul %at, %b : tensor<64x32xf16>, tensor<32x16xf16> -> tensor<64x16xf16>
  %ct = spyre.transpose %c [1, 0] : tensor<32x64xf16> -> tensor<64x32xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
  %1 = spyre.matmul %ct, %b : tensor<64x32xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>, tensor<32x16xf16> -> tensor<64x16xf16>
  %dt = spyre.transpose %d [1, 0, 2, 3] : tensor<2x4x8x32xf32> -> tensor<4x2x8x32xf32>
  %2 = spyre.matmul %dt, %e : tensor<4x2x8x32xf32>, tensor<32x16xf32> -> tensor<4x2x8x16xf32>
  "test.use"(%0, %1, %2) : (tensor<64x16xf16>, tensor<64x16xf16>, tensor<4x2x8x16xf32>) -> ()
  return
}

// -----

//===----------------------------------------------------------------------===//
// spyre.reshape
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @reshape_fold
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[C:.*]] = spyre.constant dense<1.000000e+00> : tensor<2x2xf32> : tensor<2x2xf32>
// CHECK-NEXT: %[[R:.*]] = spyre.reshape %[[X]] : tensor<2x3x4xf32> -> tensor<4x6xf32>
// CHECK-NEXT: return %[[X]], %[[R]], %[[X]], %[[C]]
func.func @reshape_fold(%x: tensor<2x3x4xf32>)
    -> (tensor<2x3x4xf32>, tensor<4x6xf32>, tensor<2x3x4xf32>, tensor<2x2xf32>) {
  // Same type: the input.
  %0 = spyre.reshape %x : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  // reshape(reshape(x)) = reshape(x).
  %1 = spyre.reshape %x : tensor<2x3x4xf32> -> tensor<24xf32>
  %2 = spyre.reshape %1 : tensor<24xf32> -> tensor<4x6xf32>
  // ... and back to x's type: x.
  %3 = spyre.reshape %2 : tensor<4x6xf32> -> tensor<2x3x4xf32>
  // A reshaped splat is a splat.
  %c = spyre.constant dense<1.0> : tensor<4xf32> : tensor<4xf32>
  %4 = spyre.reshape %c : tensor<4xf32> -> tensor<2x2xf32>
  return %0, %2, %3, %4 : tensor<2x3x4xf32>, tensor<4x6xf32>, tensor<2x3x4xf32>, tensor<2x2xf32>
}

// -----

// A reshaped constant is a constant.
// CHECK-LABEL: func.func @reshape_values
// CHECK-NEXT: %[[C:.*]] = spyre.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00]]> : tensor<1x2xf32> : tensor<1x2xf32>
// CHECK-NEXT: return %[[C]]
func.func @reshape_values() -> tensor<1x2xf32> {
  %v = spyre.constant dense<[1.0, 2.0]> : tensor<2xf32> : tensor<2xf32>
  %0 = spyre.reshape %v : tensor<2xf32> -> tensor<1x2xf32>
  return %0 : tensor<1x2xf32>
}

// -----

// No fold: a reshape of a non-reshape, and a layout change (same shape,
// another layout).
// CHECK-LABEL: func.func @reshape_no_fold
// CHECK: spyre.reshape %{{.*}} : tensor<2x3xf32> -> tensor<6xf32>
// CHECK: spyre.reshape %{{.*}} : tensor<4x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>> -> tensor<4x64xf16>
func.func @reshape_no_fold(%x: tensor<2x3xf32>, %l: tensor<4x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>) {
  %e = spyre.unary exp %x : tensor<2x3xf32> -> tensor<2x3xf32>
  %0 = spyre.reshape %e : tensor<2x3xf32> -> tensor<6xf32>
  %1 = spyre.reshape %l : tensor<4x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>> -> tensor<4x64xf16>
  "test.use"(%0, %1) : (tensor<6xf32>, tensor<4x64xf16>) -> ()
  return
}

// -----

//===----------------------------------------------------------------------===//
// spyre.broadcast
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @broadcast_fold
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[C:.*]] = spyre.constant dense<3.000000e+00> : tensor<2x4x8xf32> : tensor<2x4x8xf32>
// CHECK-NEXT: return %[[X]], %[[C]]
func.func @broadcast_fold(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<2x4x8xf32>) {
  %0 = spyre.broadcast %x : tensor<4x8xf32> -> tensor<4x8xf32>
  %c = spyre.constant dense<3.0> : tensor<8xf32> : tensor<8xf32>
  %1 = spyre.broadcast %c : tensor<8xf32> -> tensor<2x4x8xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<2x4x8xf32>
}

// -----

// A broadcast of a broadcast is one broadcast of the first input (as
// repeat along two dims decomposes: the views between them fold away).
// CHECK-LABEL: func.func @broadcast_of_broadcast
// CHECK-SAME: (%[[X:.*]]: tensor<1x1x5x8xf32>)
// CHECK-NEXT: %[[B:.*]] = spyre.broadcast %[[X]] : tensor<1x1x5x8xf32> -> tensor<2x3x5x8xf32>
// CHECK-NEXT: return %[[B]]
func.func @broadcast_of_broadcast(%x: tensor<1x1x5x8xf32>) -> tensor<2x3x5x8xf32> {
  %0 = spyre.broadcast %x : tensor<1x1x5x8xf32> -> tensor<2x1x5x8xf32>
  %1 = spyre.broadcast %0 : tensor<2x1x5x8xf32> -> tensor<2x3x5x8xf32>
  return %1 : tensor<2x3x5x8xf32>
}

// -----

// A broadcast constant is a constant.
// CHECK-LABEL: func.func @broadcast_values
// CHECK-NEXT: %[[C:.*]] = spyre.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [1.000000e+00, 2.000000e+00], [1.000000e+00, 2.000000e+00]]> : tensor<3x2xf32> : tensor<3x2xf32>
// CHECK-NEXT: return %[[C]]
func.func @broadcast_values() -> tensor<3x2xf32> {
  %v = spyre.constant dense<[1.0, 2.0]> : tensor<2xf32> : tensor<2xf32>
  %0 = spyre.broadcast %v : tensor<2xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// No fold: a real broadcast of a non-constant, a layout change.
// CHECK-LABEL: func.func @broadcast_no_fold
// CHECK: spyre.broadcast %{{.*}} : tensor<8xf32> -> tensor<4x8xf32>
// CHECK: spyre.broadcast %{{.*}} : tensor<4x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>> -> tensor<4x64xf16>
func.func @broadcast_no_fold(%x: tensor<8xf32>, %l: tensor<4x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>) {
  %0 = spyre.broadcast %x : tensor<8xf32> -> tensor<4x8xf32>
  %1 = spyre.broadcast %l : tensor<4x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>> -> tensor<4x64xf16>
  "test.use"(%0, %1) : (tensor<4x8xf32>, tensor<4x64xf16>) -> ()
  return
}

// -----

//===----------------------------------------------------------------------===//
// spyre.slice, spyre.concat
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @slice_concat_values
// CHECK-DAG: %[[S:.*]] = spyre.constant dense<{{\[\[}}1, 3], [9, 11]]> : tensor<2x2xi64>
// CHECK-DAG: %[[C0:.*]] = spyre.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00], [5.000000e+00, 5.000000e+00]]> : tensor<3x2xf16>
// CHECK-DAG: %[[C1:.*]] = spyre.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00, 5.000000e+00], [3.000000e+00, 4.000000e+00, 5.000000e+00]]> : tensor<2x3xf16>
// CHECK-NOT: spyre.slice
// CHECK-NOT: spyre.concat
// CHECK: return %[[S]], %[[C0]], %[[C1]]
func.func @slice_concat_values() -> (tensor<2x2xi64>, tensor<3x2xf16>, tensor<2x3xf16>) {
  %v = spyre.constant dense<[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]> : tensor<3x4xi64> : tensor<3x4xi64>
  %0 = spyre.slice %v offsets [0, 1] strides [2, 2] : tensor<3x4xi64> -> tensor<2x2xi64>
  %a = spyre.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf16> : tensor<2x2xf16>
  %r = spyre.constant dense<5.0> : tensor<1x2xf16> : tensor<1x2xf16>
  %c = spyre.constant dense<5.0> : tensor<2x1xf16> : tensor<2x1xf16>
  %1 = spyre.concat %a, %r dim 0 : tensor<2x2xf16>, tensor<1x2xf16> -> tensor<3x2xf16>
  %2 = spyre.concat %a, %c dim 1 : tensor<2x2xf16>, tensor<2x1xf16> -> tensor<2x3xf16>
  return %0, %1, %2 : tensor<2x2xi64>, tensor<3x2xf16>, tensor<2x3xf16>
}

// -----

// No fold: an operand that is not a constant.
// CHECK-LABEL: func.func @slice_concat_no_fold
// CHECK: spyre.slice
// CHECK: spyre.concat
func.func @slice_concat_no_fold(%x: tensor<2x2xf16>) -> (tensor<1x2xf16>, tensor<4x2xf16>) {
  %a = spyre.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf16> : tensor<2x2xf16>
  %0 = spyre.slice %x offsets [1, 0] strides [1, 1] : tensor<2x2xf16> -> tensor<1x2xf16>
  %1 = spyre.concat %a, %x dim 0 : tensor<2x2xf16>, tensor<2x2xf16> -> tensor<4x2xf16>
  return %0, %1 : tensor<1x2xf16>, tensor<4x2xf16>
}

// -----

//===----------------------------------------------------------------------===//
// spyre.compare, spyre.select
//===----------------------------------------------------------------------===//

// A causal mask from two iotas (spyre-decompose's form) is an i1 constant;
// a select on constants picks without converting.
// CHECK-LABEL: func.func @compare_select_values
// CHECK-DAG: %[[MASK:.*]] = spyre.constant dense<{{\[\[}}false, true, true], [false, false, true], [false, false, false]]> : tensor<3x3xi1>
// CHECK-DAG: %[[LT:.*]] = spyre.constant dense<[true, false, false]> : tensor<3xi1>
// CHECK-DAG: %[[SEL:.*]] = spyre.constant dense<{{\[\[}}0.000000e+00, 0xFF800000, 0xFF800000], [0.000000e+00, 0.000000e+00, 0xFF800000], [0.000000e+00, 0.000000e+00, 0.000000e+00]]> : tensor<3x3xf32>
// CHECK-NOT: spyre.compare
// CHECK-NOT: spyre.select
// CHECK: return %[[MASK]], %[[LT]], %[[SEL]]
func.func @compare_select_values() -> (tensor<3x3xi1>, tensor<3xi1>, tensor<3x3xf32>) {
  %cols = spyre.constant dense<[[0, 1, 2]]> : tensor<1x3xi32> : tensor<1x3xi32>
  %rows = spyre.constant dense<[[0], [1], [2]]> : tensor<3x1xi32> : tensor<3x1xi32>
  %0 = spyre.compare gt %cols, %rows : tensor<1x3xi32>, tensor<3x1xi32> -> tensor<3x3xi1>
  %v = spyre.constant dense<[1.0, 2.0, 0x7FC00000]> : tensor<3xf32> : tensor<3xf32>
  %two = spyre.constant dense<2.0> : tensor<f32> : tensor<f32>
  %1 = spyre.compare lt %v, %two : tensor<3xf32>, tensor<f32> -> tensor<3xi1>
  %ninf = spyre.constant dense<0xFF800000> : tensor<f32> : tensor<f32>
  %zero = spyre.constant dense<0.0> : tensor<3x3xf32> : tensor<3x3xf32>
  %2 = spyre.select %0, %ninf, %zero : tensor<3x3xi1>, tensor<f32>, tensor<3x3xf32> -> tensor<3x3xf32>
  return %0, %1, %2 : tensor<3x3xi1>, tensor<3xi1>, tensor<3x3xf32>
}

// -----

// No fold: a select of a non-constant (the mask itself is constant).
// CHECK-LABEL: func.func @compare_select_no_fold
// CHECK: spyre.compare gt %arg0
// CHECK: spyre.select %{{.*}}, %{{.*}}, %arg1
func.func @compare_select_no_fold(%x: tensor<3xi32>, %s: tensor<3xf32>) -> (tensor<3xi1>, tensor<3xf32>) {
  %c = spyre.constant dense<1> : tensor<i32> : tensor<i32>
  %0 = spyre.compare gt %x, %c : tensor<3xi32>, tensor<i32> -> tensor<3xi1>
  %m = spyre.constant dense<[true, false, true]> : tensor<3xi1> : tensor<3xi1>
  %z = spyre.constant dense<0.0> : tensor<f32> : tensor<f32>
  %1 = spyre.select %m, %z, %s : tensor<3xi1>, tensor<f32>, tensor<3xf32> -> tensor<3xf32>
  return %0, %1 : tensor<3xi1>, tensor<3xf32>
}

// -----

//===----------------------------------------------------------------------===//
// spyre.reduce
//===----------------------------------------------------------------------===//

// In order along the dim, as the SFP folds: arg-reductions give the first
// extreme (a NaN is the extreme), integer sums wrap.
// CHECK-LABEL: func.func @reduce_values
// CHECK-DAG: %[[SUM:.*]] = spyre.constant dense<{{\[\[}}6.000000e+00], [1.500000e+01]]> : tensor<2x1xf32>
// CHECK-DAG: %[[MAX:.*]] = spyre.constant dense<{{\[\[}}4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<1x3xf32>
// CHECK-DAG: %[[ARG:.*]] = spyre.constant dense<{{\[\[}}0], [1]]> : tensor<2x1xi64>
// CHECK-DAG: %[[ISUM:.*]] = spyre.constant dense<-2147483648> : tensor<1xi32>
// CHECK-NOT: spyre.reduce
// CHECK: return %[[SUM]], %[[MAX]], %[[ARG]], %[[ISUM]]
func.func @reduce_values() -> (tensor<2x1xf32>, tensor<1x3xf32>, tensor<2x1xi64>, tensor<1xi32>) {
  %v = spyre.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32> : tensor<2x3xf32>
  %0 = spyre.reduce sum %v dim 1 : tensor<2x3xf32> -> tensor<2x1xf32>
  %1 = spyre.reduce max %v dim 0 : tensor<2x3xf32> -> tensor<1x3xf32>
  %w = spyre.constant dense<[[3.0, 1.0, 3.0], [1.0, 0x7FC00000, 3.0]]> : tensor<2x3xf32> : tensor<2x3xf32>
  %2 = spyre.reduce argmax %w dim 1 : tensor<2x3xf32> -> tensor<2x1xi64>
  %i = spyre.constant dense<[2147483647, 1]> : tensor<2xi32> : tensor<2xi32>
  %3 = spyre.reduce sum %i dim 0 : tensor<2xi32> -> tensor<1xi32>
  return %0, %1, %2, %3 : tensor<2x1xf32>, tensor<1x3xf32>, tensor<2x1xi64>, tensor<1xi32>
}

// -----

// No fold: a non-constant input.
// CHECK-LABEL: func.func @reduce_no_fold
// CHECK: spyre.reduce sum
func.func @reduce_no_fold(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %0 = spyre.reduce sum %x dim 1 : tensor<2x3xf32> -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

//===----------------------------------------------------------------------===//
// spyre.matmul: constant operands
//===----------------------------------------------------------------------===//

// Accumulated in fp32 and rounded once to the result type: 1 + 3 * 2^-11
// is a tie in f16 (-> 1 + 2^-9); batch dims broadcast, transposes are
// honoured.
// CHECK-LABEL: func.func @matmul_values
// CHECK-DAG: %[[M:.*]] = spyre.constant dense<{{\[\[}}4.000000e+00, 5.000000e+00], [1.000000e+01, 1.100000e+01]]> : tensor<2x2xf32>
// CHECK-DAG: %[[H:.*]] = spyre.constant dense<1.001950e+00> : tensor<1x1xf16>
// CHECK-DAG: %[[B:.*]] = spyre.constant dense<{{\[\[\[}}1.000000e+00, 2.000000e+00]], {{\[\[}}2.000000e+00, 4.000000e+00]]]> : tensor<2x1x2xf32>
// CHECK-NOT: spyre.matmul
// CHECK: return %[[M]], %[[M]], %[[H]], %[[B]]
func.func @matmul_values() -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<1x1xf16>, tensor<2x1x2xf32>) {
  %a = spyre.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32> : tensor<2x3xf32>
  %b = spyre.constant dense<[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]> : tensor<3x2xf32> : tensor<3x2xf32>
  %bt = spyre.constant dense<[[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]]> : tensor<2x3xf32> : tensor<2x3xf32>
  %0 = spyre.matmul %a, %b : tensor<2x3xf32>, tensor<3x2xf32> -> tensor<2x2xf32>
  %1 = spyre.matmul %a, %bt {transpose_rhs} : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x2xf32>
  %h = spyre.constant dense<[[1.0, 1.46484375e-03]]> : tensor<1x2xf16> : tensor<1x2xf16>
  %one = spyre.constant dense<1.0> : tensor<2x1xf16> : tensor<2x1xf16>
  %2 = spyre.matmul %h, %one : tensor<1x2xf16>, tensor<2x1xf16> -> tensor<1x1xf16>
  %l = spyre.constant dense<[[[1.0]], [[2.0]]]> : tensor<2x1x1xf32> : tensor<2x1x1xf32>
  %r = spyre.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32> : tensor<1x2xf32>
  %3 = spyre.matmul %l, %r : tensor<2x1x1xf32>, tensor<1x2xf32> -> tensor<2x1x2xf32>
  return %0, %1, %2, %3 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<1x1xf16>, tensor<2x1x2xf32>
}

// -----

// No fold: over the work limit (2^22 multiply-accumulates: 4096 x 2 x 1024
// here, though every operand and the result are small or splats).
// CHECK-LABEL: func.func @matmul_no_fold_work
// CHECK: spyre.matmul %{{.*}}, %{{.*}} : tensor<4096x1024xf32>, tensor<1024x2xf32> -> tensor<4096x2xf32>
func.func @matmul_no_fold_work() -> tensor<4096x2xf32> {
  %a = spyre.constant dense<1.0> : tensor<4096x1024xf32> : tensor<4096x1024xf32>
  %v = spyre.constant dense<[1.0, 2.0]> : tensor<2xf32> : tensor<2xf32>
  %b = spyre.broadcast %v : tensor<2xf32> -> tensor<1024x2xf32>
  %0 = spyre.matmul %a, %b : tensor<4096x1024xf32>, tensor<1024x2xf32> -> tensor<4096x2xf32>
  return %0 : tensor<4096x2xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Kernel bodies are not evaluated
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @kernel_body_no_fold
// CHECK: spyre.kernel
// CHECK: spyre.unary exp
func.func @kernel_body_no_fold(%x: tensor<64xf32>) -> tensor<64xf32> {
  %r = spyre.kernel "k"(%x) {space = array<i64: 64>, iterators = ["parallel"],
      indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]}
      : (tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%a: tensor<64xf32>):
    %c = spyre.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0, 64.0]> : tensor<64xf32> : tensor<64xf32>
    %e = spyre.unary exp %c : tensor<64xf32> -> tensor<64xf32>
    %s = spyre.binary add %a, %e : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
    spyre.yield %s : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}

// -----

//===----------------------------------------------------------------------===//
// spyre.weight: constants in value
//===----------------------------------------------------------------------===//

// A lifted constant and a buffer no output mutates become constants when a
// user can fold (RoPE's inv_freq x positions); the chain folds. Parameters,
// a mutated buffer (buffer_mutation:count) and a buffer read only with a
// non-constant stay weights.
// CHECK-LABEL: func.func @weights
// CHECK-NOT: spyre.weight
// CHECK: %[[F:.*]] = spyre.constant dense<{{\[\[}}0.000000e+00, 0.000000e+00], [1.000000e+00, 5.000000e-01], [2.000000e+00, 1.000000e+00]]> : tensor<3x2xf32>
// CHECK-NEXT: %[[C:.*]] = spyre.constant dense<[2.000000e+00, 3.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: %[[P:.*]] = spyre.weight "fc.weight" parameter
// CHECK-NEXT: spyre.unary neg %[[P]]
// CHECK-NEXT: %[[CNT:.*]] = spyre.weight "count" buffer
// CHECK-NEXT: spyre.unary neg %[[CNT]]
// CHECK-NEXT: %[[SC:.*]] = spyre.weight "scale" buffer
// CHECK-NEXT: spyre.binary mul %arg0, %[[SC]]
// CHECK-NEXT: %[[NEW:.*]] = spyre.binary add %[[CNT]], %{{.*}}
// CHECK-NEXT: return %[[F]], %[[C]], %{{.*}}, %{{.*}}, %{{.*}}, %[[NEW]]
func.func @weights(%x: tensor<2xf32>)
    -> (tensor<3x2xf32> {spyre.output = "user"}, tensor<2xf32> {spyre.output = "user"},
        tensor<2xf32> {spyre.output = "user"}, tensor<2xi64> {spyre.output = "user"},
        tensor<2xf32> {spyre.output = "user"}, tensor<2xi64> {spyre.output = "buffer_mutation:count"}) {
  %inv = spyre.weight "inv_freq" buffer = dense<[1.0, 0.5]> : tensor<2xf32> : tensor<2xf32>
  %pos = spyre.constant dense<[0, 1, 2]> : tensor<3xi64> : tensor<3xi64>
  %pf = spyre.cast %pos : tensor<3xi64> -> tensor<3xf32>
  %p2 = spyre.reshape %pf : tensor<3xf32> -> tensor<3x1xf32>
  %i2 = spyre.reshape %inv : tensor<2xf32> -> tensor<1x2xf32>
  %0 = spyre.matmul %p2, %i2 : tensor<3x1xf32>, tensor<1x2xf32> -> tensor<3x2xf32>
  %c0 = spyre.weight "c0" constant = dense<[1.0, 2.0]> : tensor<2xf32> : tensor<2xf32>
  %one = spyre.constant dense<1.0> : tensor<f32> : tensor<f32>
  %1 = spyre.binary add %c0, %one : tensor<2xf32>, tensor<f32> -> tensor<2xf32>
  %p = spyre.weight "fc.weight" parameter = dense<[1.0, 2.0]> : tensor<2xf32> : tensor<2xf32>
  %2 = spyre.unary neg %p : tensor<2xf32> -> tensor<2xf32>
  %cnt = spyre.weight "count" buffer = dense<[3, 4]> : tensor<2xi64> : tensor<2xi64>
  %3 = spyre.unary neg %cnt : tensor<2xi64> -> tensor<2xi64>
  %sc = spyre.weight "scale" buffer = dense<[2.0, 4.0]> : tensor<2xf32> : tensor<2xf32>
  %4 = spyre.binary mul %x, %sc : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  %i1 = spyre.constant dense<1> : tensor<i64> : tensor<i64>
  %5 = spyre.binary add %cnt, %i1 : tensor<2xi64>, tensor<i64> -> tensor<2xi64>
  return %0, %1, %2, %3, %4, %5 : tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xi64>, tensor<2xf32>, tensor<2xi64>
}

// -----

// A weight read only by a reshape takes the reshape's shape (gpt-oss's
// attention sinks [H] viewed as [1, H, 1, 1]: a repack kernel in every run
// otherwise): an inline value is reshaped, contiguous external data kept.
// Not: external data with strides, a weight read elsewhere too, a mutated
// buffer.
// CHECK-LABEL: func.func @weight_reshaped
// CHECK-NEXT: %[[S:.*]] = spyre.weight "attn.sinks" parameter = dense<{{\[\[\[\[}}1.000000e+00]], {{\[\[}}2.000000e+00]], {{\[\[}}3.000000e+00]], {{\[\[}}4.000000e+00]]]]> : tensor<1x4x1x1xf16> : tensor<1x4x1x1xf16>
// CHECK-NEXT: %[[E:.*]] = spyre.weight "e" parameter external <file = "m.pt2", entry = "data/0", offset = 64> : tensor<32xf16>
// CHECK-NEXT: %[[T:.*]] = spyre.weight "t" parameter external <file = "m.pt2", entry = "data/1", offset = 0, strides = [1, 4]> : tensor<4x8xf16>
// CHECK-NEXT: %[[TR:.*]] = spyre.reshape %[[T]] : tensor<4x8xf16> -> tensor<32xf16>
// CHECK-NEXT: %[[U:.*]] = spyre.weight "u" parameter = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf16> : tensor<4xf16>
// CHECK-NEXT: %[[UR:.*]] = spyre.reshape %[[U]]
// CHECK-NEXT: %[[UN:.*]] = spyre.unary neg %[[U]]
// CHECK-NEXT: %[[C:.*]] = spyre.weight "count" buffer external <file = "m.pt2", entry = "data/2", offset = 0> : tensor<4xf16>
// CHECK-NEXT: %[[CR:.*]] = spyre.reshape %[[C]]
// CHECK-NEXT: return %[[S]], %[[E]], %[[TR]], %[[UR]], %[[UN]], %[[CR]]
func.func @weight_reshaped()
    -> (tensor<1x4x1x1xf16> {spyre.output = "user"}, tensor<32xf16> {spyre.output = "user"},
        tensor<32xf16> {spyre.output = "user"}, tensor<1x4x1x1xf16> {spyre.output = "user"},
        tensor<4xf16> {spyre.output = "user"},
        tensor<1x4x1x1xf16> {spyre.output = "buffer_mutation:count"}) {
  %s = spyre.weight "attn.sinks" parameter = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf16> : tensor<4xf16>
  %0 = spyre.reshape %s : tensor<4xf16> -> tensor<1x4x1x1xf16>
  %e = spyre.weight "e" parameter external <file = "m.pt2", entry = "data/0", offset = 64> : tensor<4x8xf16>
  %1 = spyre.reshape %e : tensor<4x8xf16> -> tensor<32xf16>
  %t = spyre.weight "t" parameter external <file = "m.pt2", entry = "data/1", offset = 0, strides = [1, 4]> : tensor<4x8xf16>
  %2 = spyre.reshape %t : tensor<4x8xf16> -> tensor<32xf16>
  %u = spyre.weight "u" parameter = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf16> : tensor<4xf16>
  %3 = spyre.reshape %u : tensor<4xf16> -> tensor<1x4x1x1xf16>
  %4 = spyre.unary neg %u : tensor<4xf16> -> tensor<4xf16>
  %c = spyre.weight "count" buffer external <file = "m.pt2", entry = "data/2", offset = 0> : tensor<4xf16>
  %5 = spyre.reshape %c : tensor<4xf16> -> tensor<1x4x1x1xf16>
  return %0, %1, %2, %3, %4, %5 : tensor<1x4x1x1xf16>, tensor<32xf16>, tensor<32xf16>, tensor<1x4x1x1xf16>, tensor<4xf16>, tensor<1x4x1x1xf16>
}

// -----

//===----------------------------------------------------------------------===//
// spyre.attention: constant masks
//===----------------------------------------------------------------------===//

// A constant mask that is exactly the top-left causal one for every head
// (0 where key <= query, the dtype's minimum or -inf past it: exp() of it
// is 0 in f32) becomes the op's `causal`, also with fewer queries than
// keys; a zero mask is dropped. Kept: a sliding window, a "mask" of -1,
// one mask per head.
// CHECK-LABEL: func.func @attention_constant_masks
// CHECK-DAG: %[[HEADS:.*]] = spyre.constant {{.*}} : tensor<2x4x4xf16>
// CHECK-DAG: %[[SOFT:.*]] = spyre.constant dense<{{\[\[}}0.000000e+00, -1.000000e+00
// CHECK-DAG: %[[WINDOW:.*]] = spyre.constant dense<{{\[\[}}0.000000e+00, -6.550400e+04, -6.550400e+04, -6.550400e+04], [0.000000e+00, 0.000000e+00, -6.550400e+04, -6.550400e+04], [-6.550400e+04
// CHECK: %[[A0:.*]] = spyre.attention %arg0, %arg1, %arg2 {causal, scale = 5.000000e-01 : f64} : tensor<2x4x8xf16>, tensor<2x4x8xf16>, tensor<2x4x8xf16> -> tensor<2x4x8xf16>
// CHECK-NEXT: %[[A1:.*]] = spyre.attention %arg0, %arg1, %arg2 {scale = 5.000000e-01 : f64} : tensor<2x4x8xf16>, tensor<2x4x8xf16>, tensor<2x4x8xf16> -> tensor<2x4x8xf16>
// CHECK-NEXT: %[[A2:.*]] = spyre.attention %arg3, %arg4, %arg5 {causal, scale = 5.000000e-01 : f64}
// CHECK-NEXT: %[[A3:.*]] = spyre.attention %arg0, %arg1, %arg2 mask %[[WINDOW]]
// CHECK-NEXT: %[[A4:.*]] = spyre.attention %arg0, %arg1, %arg2 mask %[[SOFT]]
// CHECK-NEXT: %[[A5:.*]] = spyre.attention %arg0, %arg1, %arg2 mask %[[HEADS]]
// CHECK-NEXT: return %[[A0]], %[[A1]], %[[A2]], %[[A3]], %[[A4]], %[[A5]]
func.func @attention_constant_masks(%q: tensor<2x4x8xf16>, %k: tensor<2x4x8xf16>, %v: tensor<2x4x8xf16>, %q3: tensor<2x3x8xf16>, %k5: tensor<2x5x8xf16>, %v5: tensor<2x5x8xf16>)
    -> (tensor<2x4x8xf16>, tensor<2x4x8xf16>, tensor<2x3x8xf16>, tensor<2x4x8xf16>, tensor<2x4x8xf16>, tensor<2x4x8xf16>) {
  %causal = spyre.constant dense<[[[0.0, -65504.0, -65504.0, -65504.0], [0.0, 0.0, -65504.0, -65504.0], [0.0, 0.0, 0.0, -65504.0], [0.0, 0.0, 0.0, 0.0]]]> : tensor<1x4x4xf16> : tensor<1x4x4xf16>
  %0 = spyre.attention %q, %k, %v mask %causal {scale = 0.5 : f64} : tensor<2x4x8xf16>, tensor<2x4x8xf16>, tensor<2x4x8xf16>, tensor<1x4x4xf16> -> tensor<2x4x8xf16>
  %zero = spyre.constant dense<0.0> : tensor<4x4xf16> : tensor<4x4xf16>
  %1 = spyre.attention %q, %k, %v mask %zero {scale = 0.5 : f64} : tensor<2x4x8xf16>, tensor<2x4x8xf16>, tensor<2x4x8xf16>, tensor<4x4xf16> -> tensor<2x4x8xf16>
  %wide = spyre.constant dense<[[0.0, 0xFC00, 0xFC00, 0xFC00, 0xFC00], [0.0, 0.0, 0xFC00, 0xFC00, 0xFC00], [0.0, 0.0, 0.0, 0xFC00, 0xFC00]]> : tensor<3x5xf16> : tensor<3x5xf16>
  %2 = spyre.attention %q3, %k5, %v5 mask %wide {scale = 0.5 : f64} : tensor<2x3x8xf16>, tensor<2x5x8xf16>, tensor<2x5x8xf16>, tensor<3x5xf16> -> tensor<2x3x8xf16>
  %window = spyre.constant dense<[[0.0, -65504.0, -65504.0, -65504.0], [0.0, 0.0, -65504.0, -65504.0], [-65504.0, 0.0, 0.0, -65504.0], [-65504.0, -65504.0, 0.0, 0.0]]> : tensor<4x4xf16> : tensor<4x4xf16>
  %3 = spyre.attention %q, %k, %v mask %window {scale = 0.5 : f64} : tensor<2x4x8xf16>, tensor<2x4x8xf16>, tensor<2x4x8xf16>, tensor<4x4xf16> -> tensor<2x4x8xf16>
  %soft = spyre.constant dense<[[0.0, -1.0, -1.0, -1.0], [0.0, 0.0, -1.0, -1.0], [0.0, 0.0, 0.0, -1.0], [0.0, 0.0, 0.0, 0.0]]> : tensor<4x4xf16> : tensor<4x4xf16>
  %4 = spyre.attention %q, %k, %v mask %soft {scale = 0.5 : f64} : tensor<2x4x8xf16>, tensor<2x4x8xf16>, tensor<2x4x8xf16>, tensor<4x4xf16> -> tensor<2x4x8xf16>
  %heads = spyre.constant dense<[[[0.0, -65504.0, -65504.0, -65504.0], [0.0, 0.0, -65504.0, -65504.0], [0.0, 0.0, 0.0, -65504.0], [0.0, 0.0, 0.0, 0.0]], [[0.0, -65504.0, -65504.0, -65504.0], [0.0, 0.0, -65504.0, -65504.0], [0.0, 0.0, 0.0, -65504.0], [0.0, 0.0, 0.0, 0.0]]]> : tensor<2x4x4xf16> : tensor<2x4x4xf16>
  %5 = spyre.attention %q, %k, %v mask %heads {scale = 0.5 : f64} : tensor<2x4x8xf16>, tensor<2x4x8xf16>, tensor<2x4x8xf16>, tensor<2x4x4xf16> -> tensor<2x4x8xf16>
  return %0, %1, %2, %3, %4, %5 : tensor<2x4x8xf16>, tensor<2x4x8xf16>, tensor<2x3x8xf16>, tensor<2x4x8xf16>, tensor<2x4x8xf16>, tensor<2x4x8xf16>
}

// -----

// The same masks unfolded (over 2^16 elements, canonicalization does not
// fold them): select(key > query, finfo.min, 0) over position iotas, as
// triu and transformers' arange masks decompose, through a reshape; also
// select(query >= key, 0, finfo.min). Kept: key > query + 1, a diagonal
// one further.
// CHECK-LABEL: func.func @attention_causal_selects
// CHECK: %[[A0:.*]] = spyre.attention %arg0, %arg1, %arg2 {{.}}causal, scale = 5.000000e-01 : f64
// CHECK: %[[A1:.*]] = spyre.attention %arg0, %arg1, %arg2 {{.}}causal, scale = 5.000000e-01 : f64
// CHECK: %[[M:.*]] = spyre.select
// CHECK: %[[A2:.*]] = spyre.attention %arg0, %arg1, %arg2 mask %[[M]] {{.}}scale
// CHECK: return %[[A0]], %[[A1]], %[[A2]]
func.func @attention_causal_selects(%q: tensor<1x256x8xf16>, %k: tensor<1x257x8xf16>, %v: tensor<1x257x8xf16>)
    -> (tensor<1x256x8xf16>, tensor<1x256x8xf16>, tensor<1x256x8xf16>) {
  %cols = spyre.constant dense<[[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 128, 129, 130, 131, 132, 133, 134, 135, 136, 137, 138, 139, 140, 141, 142, 143, 144, 145, 146, 147, 148, 149, 150, 151, 152, 153, 154, 155, 156, 157, 158, 159, 160, 161, 162, 163, 164, 165, 166, 167, 168, 169, 170, 171, 172, 173, 174, 175, 176, 177, 178, 179, 180, 181, 182, 183, 184, 185, 186, 187, 188, 189, 190, 191, 192, 193, 194, 195, 196, 197, 198, 199, 200, 201, 202, 203, 204, 205, 206, 207, 208, 209, 210, 211, 212, 213, 214, 215, 216, 217, 218, 219, 220, 221, 222, 223, 224, 225, 226, 227, 228, 229, 230, 231, 232, 233, 234, 235, 236, 237, 238, 239, 240, 241, 242, 243, 244, 245, 246, 247, 248, 249, 250, 251, 252, 253, 254, 255, 256]]> : tensor<1x257xi32> : tensor<1x257xi32>
  %rows1 = spyre.constant dense<[[1], [2], [3], [4], [5], [6], [7], [8], [9], [10], [11], [12], [13], [14], [15], [16], [17], [18], [19], [20], [21], [22], [23], [24], [25], [26], [27], [28], [29], [30], [31], [32], [33], [34], [35], [36], [37], [38], [39], [40], [41], [42], [43], [44], [45], [46], [47], [48], [49], [50], [51], [52], [53], [54], [55], [56], [57], [58], [59], [60], [61], [62], [63], [64], [65], [66], [67], [68], [69], [70], [71], [72], [73], [74], [75], [76], [77], [78], [79], [80], [81], [82], [83], [84], [85], [86], [87], [88], [89], [90], [91], [92], [93], [94], [95], [96], [97], [98], [99], [100], [101], [102], [103], [104], [105], [106], [107], [108], [109], [110], [111], [112], [113], [114], [115], [116], [117], [118], [119], [120], [121], [122], [123], [124], [125], [126], [127], [128], [129], [130], [131], [132], [133], [134], [135], [136], [137], [138], [139], [140], [141], [142], [143], [144], [145], [146], [147], [148], [149], [150], [151], [152], [153], [154], [155], [156], [157], [158], [159], [160], [161], [162], [163], [164], [165], [166], [167], [168], [169], [170], [171], [172], [173], [174], [175], [176], [177], [178], [179], [180], [181], [182], [183], [184], [185], [186], [187], [188], [189], [190], [191], [192], [193], [194], [195], [196], [197], [198], [199], [200], [201], [202], [203], [204], [205], [206], [207], [208], [209], [210], [211], [212], [213], [214], [215], [216], [217], [218], [219], [220], [221], [222], [223], [224], [225], [226], [227], [228], [229], [230], [231], [232], [233], [234], [235], [236], [237], [238], [239], [240], [241], [242], [243], [244], [245], [246], [247], [248], [249], [250], [251], [252], [253], [254], [255], [256]]> : tensor<256x1xi32> : tensor<256x1xi32>
  %rows = spyre.constant dense<[[0], [1], [2], [3], [4], [5], [6], [7], [8], [9], [10], [11], [12], [13], [14], [15], [16], [17], [18], [19], [20], [21], [22], [23], [24], [25], [26], [27], [28], [29], [30], [31], [32], [33], [34], [35], [36], [37], [38], [39], [40], [41], [42], [43], [44], [45], [46], [47], [48], [49], [50], [51], [52], [53], [54], [55], [56], [57], [58], [59], [60], [61], [62], [63], [64], [65], [66], [67], [68], [69], [70], [71], [72], [73], [74], [75], [76], [77], [78], [79], [80], [81], [82], [83], [84], [85], [86], [87], [88], [89], [90], [91], [92], [93], [94], [95], [96], [97], [98], [99], [100], [101], [102], [103], [104], [105], [106], [107], [108], [109], [110], [111], [112], [113], [114], [115], [116], [117], [118], [119], [120], [121], [122], [123], [124], [125], [126], [127], [128], [129], [130], [131], [132], [133], [134], [135], [136], [137], [138], [139], [140], [141], [142], [143], [144], [145], [146], [147], [148], [149], [150], [151], [152], [153], [154], [155], [156], [157], [158], [159], [160], [161], [162], [163], [164], [165], [166], [167], [168], [169], [170], [171], [172], [173], [174], [175], [176], [177], [178], [179], [180], [181], [182], [183], [184], [185], [186], [187], [188], [189], [190], [191], [192], [193], [194], [195], [196], [197], [198], [199], [200], [201], [202], [203], [204], [205], [206], [207], [208], [209], [210], [211], [212], [213], [214], [215], [216], [217], [218], [219], [220], [221], [222], [223], [224], [225], [226], [227], [228], [229], [230], [231], [232], [233], [234], [235], [236], [237], [238], [239], [240], [241], [242], [243], [244], [245], [246], [247], [248], [249], [250], [251], [252], [253], [254], [255]]> : tensor<256x1xi32> : tensor<256x1xi32>
  %min = spyre.constant dense<-65504.0> : tensor<f16> : tensor<f16>
  %zero = spyre.constant dense<0.0> : tensor<f16> : tensor<f16>
  %past = spyre.compare ge %cols, %rows1 : tensor<1x257xi32>, tensor<256x1xi32> -> tensor<256x257xi1>
  %m0 = spyre.select %past, %min, %zero : tensor<256x257xi1>, tensor<f16>, tensor<f16> -> tensor<256x257xf16>
  %m0r = spyre.reshape %m0 : tensor<256x257xf16> -> tensor<1x256x257xf16>
  %0 = spyre.attention %q, %k, %v mask %m0r {scale = 0.5 : f64} : tensor<1x256x8xf16>, tensor<1x257x8xf16>, tensor<1x257x8xf16>, tensor<1x256x257xf16> -> tensor<1x256x8xf16>
  %kept = spyre.compare ge %rows, %cols : tensor<256x1xi32>, tensor<1x257xi32> -> tensor<256x257xi1>
  %m1 = spyre.select %kept, %zero, %min : tensor<256x257xi1>, tensor<f16>, tensor<f16> -> tensor<256x257xf16>
  %1 = spyre.attention %q, %k, %v mask %m1 {scale = 0.5 : f64} : tensor<1x256x8xf16>, tensor<1x257x8xf16>, tensor<1x257x8xf16>, tensor<256x257xf16> -> tensor<1x256x8xf16>
  %shifted = spyre.compare gt %cols, %rows1 : tensor<1x257xi32>, tensor<256x1xi32> -> tensor<256x257xi1>
  %m2 = spyre.select %shifted, %min, %zero : tensor<256x257xi1>, tensor<f16>, tensor<f16> -> tensor<256x257xf16>
  %2 = spyre.attention %q, %k, %v mask %m2 {scale = 0.5 : f64} : tensor<1x256x8xf16>, tensor<1x257x8xf16>, tensor<1x257x8xf16>, tensor<256x257xf16> -> tensor<1x256x8xf16>
  return %0, %1, %2 : tensor<1x256x8xf16>, tensor<1x256x8xf16>, tensor<1x256x8xf16>
}

// -----

// A weight's product read only through strided column slices (gpt-oss's
// interleaved gate/up projection with its bias, `[..., ::2]` and
// `[..., 1::2]`) multiplies each slice of the weight: inline values picked
// (the bias too), external data with its offset and strides moved (a
// transposed rhs: its rows). Kept: a unit-step window (read in place by
// its consumer), a product read whole too.
// CHECK-LABEL: func.func @strided_weight_products
// CHECK-NEXT: %[[W0:.*]] = spyre.weight "experts.gate_up_proj" parameter = dense<{{\[\[\[}}1.000000e+00, 3.000000e+00], [5.000000e+00, 7.000000e+00]
// CHECK-SAME: : tensor<2x4x2xf32>
// CHECK-NEXT: %[[P0:.*]] = spyre.matmul %arg0, %[[W0]] : tensor<2x3x4xf32>, tensor<2x4x2xf32> -> tensor<2x3x2xf32>
// CHECK-NEXT: %[[B0:.*]] = spyre.weight "experts.gate_up_proj_bias" parameter = dense<{{\[\[\[}}5.000000e-01, 2.500000e+00]], {{\[\[}}4.500000e+00, 6.500000e+00]]]> : tensor<2x1x2xf32>
// CHECK-NEXT: %[[G:.*]] = spyre.binary add %[[P0]], %[[B0]]
// CHECK-NEXT: %[[W1:.*]] = spyre.weight "experts.gate_up_proj" parameter = dense<{{\[\[\[}}2.000000e+00, 4.000000e+00]
// CHECK-NEXT: %[[P1:.*]] = spyre.matmul %arg0, %[[W1]]
// CHECK-NEXT: %[[B1:.*]] = spyre.weight "experts.gate_up_proj_bias" parameter = dense<{{\[\[\[}}1.500000e+00, 3.500000e+00]]
// CHECK-NEXT: %[[U:.*]] = spyre.binary add %[[P1]], %[[B1]]
// CHECK-NEXT: %[[F:.*]] = spyre.weight "fc.weight" parameter external <file = "m.pt2", entry = "data/0", offset = 68, strides = [8, 2]> : tensor<4x4xf32>
// CHECK-NEXT: %[[ODD:.*]] = spyre.matmul %arg1, %[[F]] : tensor<3x4xf32>, tensor<4x4xf32> -> tensor<3x4xf32>
// CHECK-NEXT: %[[L:.*]] = spyre.weight "lin.weight" parameter external <file = "m.pt2", entry = "data/1", offset = 0, strides = [8, 1]> : tensor<4x4xf32>
// CHECK-NEXT: %[[EVEN:.*]] = spyre.matmul %arg1, %[[L]] {transpose_rhs} : tensor<3x4xf32>, tensor<4x4xf32> -> tensor<3x4xf32>
// CHECK-NEXT: %[[WIN:.*]] = spyre.weight "win.weight"
// CHECK-NEXT: %[[S:.*]] = spyre.matmul %arg1, %[[WIN]] : tensor<3x4xf32>, tensor<4x4xf32> -> tensor<3x4xf32>
// CHECK-NEXT: %[[HALF:.*]] = spyre.slice %[[S]] offsets [0, 2] strides [1, 1]
// CHECK-NEXT: %[[SH:.*]] = spyre.weight "shared.weight"
// CHECK-NEXT: %[[O:.*]] = spyre.matmul %arg1, %[[SH]] : tensor<3x4xf32>, tensor<4x4xf32> -> tensor<3x4xf32>
// CHECK-NEXT: %[[OE:.*]] = spyre.slice %[[O]] offsets [0, 0] strides [1, 2]
// CHECK-NEXT: return %[[G]], %[[U]], %[[ODD]], %[[EVEN]], %[[HALF]], %[[OE]], %[[O]]
func.func @strided_weight_products(%x: tensor<2x3x4xf32>, %y: tensor<3x4xf32>)
    -> (tensor<2x3x2xf32>, tensor<2x3x2xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x4xf32>) {
  %w = spyre.weight "experts.gate_up_proj" parameter = dense<[[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0], [13.0, 14.0, 15.0, 16.0]], [[17.0, 18.0, 19.0, 20.0], [21.0, 22.0, 23.0, 24.0], [25.0, 26.0, 27.0, 28.0], [29.0, 30.0, 31.0, 32.0]]]> : tensor<2x4x4xf32> : tensor<2x4x4xf32>
  %b = spyre.weight "experts.gate_up_proj_bias" parameter = dense<[[[0.5, 1.5, 2.5, 3.5]], [[4.5, 5.5, 6.5, 7.5]]]> : tensor<2x1x4xf32> : tensor<2x1x4xf32>
  %p = spyre.matmul %x, %w : tensor<2x3x4xf32>, tensor<2x4x4xf32> -> tensor<2x3x4xf32>
  %pb = spyre.binary add %p, %b : tensor<2x3x4xf32>, tensor<2x1x4xf32> -> tensor<2x3x4xf32>
  %gate = spyre.slice %pb offsets [0, 0, 0] strides [1, 1, 2] : tensor<2x3x4xf32> -> tensor<2x3x2xf32>
  %up = spyre.slice %pb offsets [0, 0, 1] strides [1, 1, 2] : tensor<2x3x4xf32> -> tensor<2x3x2xf32>
  %e = spyre.weight "fc.weight" parameter external <file = "m.pt2", entry = "data/0", offset = 64> : tensor<4x8xf32>
  %q = spyre.matmul %y, %e : tensor<3x4xf32>, tensor<4x8xf32> -> tensor<3x8xf32>
  %odd = spyre.slice %q offsets [0, 1] strides [1, 2] : tensor<3x8xf32> -> tensor<3x4xf32>
  %t = spyre.weight "lin.weight" parameter external <file = "m.pt2", entry = "data/1", offset = 0> : tensor<8x4xf32>
  %r = spyre.matmul %y, %t {transpose_rhs} : tensor<3x4xf32>, tensor<8x4xf32> -> tensor<3x8xf32>
  %even = spyre.slice %r offsets [0, 0] strides [1, 2] : tensor<3x8xf32> -> tensor<3x4xf32>
  %u = spyre.weight "win.weight" parameter external <file = "m.pt2", entry = "data/2", offset = 0> : tensor<4x4xf32>
  %s = spyre.matmul %y, %u : tensor<3x4xf32>, tensor<4x4xf32> -> tensor<3x4xf32>
  %half = spyre.slice %s offsets [0, 2] strides [1, 1] : tensor<3x4xf32> -> tensor<3x2xf32>
  %v = spyre.weight "shared.weight" parameter external <file = "m.pt2", entry = "data/3", offset = 0> : tensor<4x4xf32>
  %o = spyre.matmul %y, %v : tensor<3x4xf32>, tensor<4x4xf32> -> tensor<3x4xf32>
  %oe = spyre.slice %o offsets [0, 0] strides [1, 2] : tensor<3x4xf32> -> tensor<3x2xf32>
  return %gate, %up, %odd, %even, %half, %oe, %o : tensor<2x3x2xf32>, tensor<2x3x2xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// spyre.restickify
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @restickify_fold
// CHECK-SAME: (%[[X:.*]]: tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>, %[[Y:.*]]: tensor<64x128xf16>)
// Only the last layout of a chain counts.
// CHECK-NEXT: %[[R:.*]] = spyre.restickify %[[X]] : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>> -> tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
// CHECK-NEXT: %[[S:.*]] = spyre.restickify %[[Y]] : tensor<64x128xf16> -> tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
// CHECK-NEXT: return %[[X]], %[[R]], %[[X]], %[[S]]
func.func @restickify_fold(%x: tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>,
                           %y: tensor<64x128xf16>)
    -> (tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>,
        tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>,
        tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>,
        tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>) {
  // To the same layout: the input.
  %0 = spyre.restickify %x : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
                          -> tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
  // restickify(restickify(x)) = restickify(x).
  %1 = spyre.restickify %x : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
                          -> tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>>
  %2 = spyre.restickify %1 : tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>>
                          -> tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
  // ... and back to x's layout: x.
  %3 = spyre.restickify %1 : tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 0]>>
                          -> tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
  // From no layout, through two: one restickify.
  %4 = spyre.restickify %y : tensor<64x128xf16>
                          -> tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
  %5 = spyre.restickify %4 : tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
                          -> tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
  return %0, %2, %3, %5 : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>,
      tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>,
      tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>,
      tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
}

// -----

// No fold: a real change of layout (even one that only reorders dims), and a
// restickify of another op.
// CHECK-LABEL: func.func @restickify_no_fold
// CHECK: spyre.restickify %{{.*}} : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>> -> tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64, dim_order = [1, 0]>>
// CHECK: spyre.unary exp
// CHECK: spyre.restickify %{{.*}} : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>> -> tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
func.func @restickify_no_fold(%x: tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>) {
  %0 = spyre.restickify %x : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
                          -> tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64, dim_order = [1, 0]>>
  %e = spyre.unary exp %x : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
                         -> tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
  %1 = spyre.restickify %e : tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
                          -> tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
  "test.use"(%0, %1) : (tensor<64x128xf16, #spyre.layout<stick_dim = 1, stick_elems = 64, dim_order = [1, 0]>>, tensor<64x128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>) -> ()
  return
}

// -----

//===----------------------------------------------------------------------===//
// spyre.constant
//===----------------------------------------------------------------------===//

// Equal constants are uniqued; dead ones are removed; constants with
// different layouts stay apart.
// CHECK-LABEL: func.func @constants
// CHECK-DAG: %[[A:.*]] = spyre.constant dense<1.000000e+00> : tensor<64xf16> : tensor<64xf16>
// CHECK-DAG: %[[B:.*]] = spyre.constant dense<1.000000e+00> : tensor<64xf16> : tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
// CHECK-NOT: spyre.constant
// CHECK: return %[[A]], %[[A]], %[[B]]
func.func @constants() -> (tensor<64xf16>, tensor<64xf16>, tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>) {
  %0 = spyre.constant dense<1.0> : tensor<64xf16> : tensor<64xf16>
  %1 = spyre.constant dense<1.0> : tensor<64xf16> : tensor<64xf16>
  %2 = spyre.constant dense<1.0> : tensor<64xf16> : tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
  %3 = spyre.constant dense<2.0> : tensor<64xf16> : tensor<64xf16>
  return %0, %1, %2 : tensor<64xf16>, tensor<64xf16>, tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
}

// -----

// matmul by repeat_kv'd keys (each of 2 kv heads repeated for 4 query
// heads): the query heads become rows of a matmul with the 2 kv heads, so
// the keys are never copied 4 times; the result is viewed back.
// CHECK-LABEL: func.func @grouped_heads_as_rows
// CHECK: %[[Q:.*]] = spyre.reshape %arg0 : tensor<1x8x3x16xf16> -> tensor<1x2x12x16xf16>
// CHECK: %[[S:.*]] = spyre.matmul %[[Q]], %arg1 {transpose_rhs} : tensor<1x2x12x16xf16>, tensor<1x2x9x16xf16> -> tensor<1x2x12x9xf32>
// CHECK: %[[R:.*]] = spyre.reshape %[[S]] : tensor<1x2x12x9xf32> -> tensor<1x8x3x9xf32>
// CHECK-NOT: spyre.broadcast
// CHECK: return %[[R]]
func.func @grouped_heads_as_rows(%q: tensor<1x8x3x16xf16>, %k: tensor<1x2x9x16xf16>) -> tensor<1x8x3x9xf32> {
  %0 = spyre.reshape %k : tensor<1x2x9x16xf16> -> tensor<1x2x1x9x16xf16>
  %1 = spyre.broadcast %0 : tensor<1x2x1x9x16xf16> -> tensor<1x2x4x9x16xf16>
  %2 = spyre.reshape %1 : tensor<1x2x4x9x16xf16> -> tensor<1x8x9x16xf16>
  %3 = spyre.matmul %q, %2 {transpose_rhs} : tensor<1x8x3x16xf16>, tensor<1x8x9x16xf16> -> tensor<1x8x3x9xf32>
  return %3 : tensor<1x8x3x9xf32>
}

// -----

// Not a head repeat (the broadcast dim is not next to the heads), and a
// transposed lhs whose rows cannot be regrouped: left alone.
// CHECK-LABEL: func.func @grouped_heads_not_applicable
// CHECK: spyre.broadcast
// CHECK: spyre.matmul %arg0, %{{.*}} : tensor<4x3x16xf16>, tensor<4x16x9xf16>
// CHECK: spyre.matmul %arg2, %{{.*}} {transpose_lhs} : tensor<1x8x16x3xf16>
func.func @grouped_heads_not_applicable(%a: tensor<4x3x16xf16>, %b: tensor<1x16x9xf16>, %q: tensor<1x8x16x3xf16>, %k: tensor<1x2x16x9xf16>) -> (tensor<4x3x9xf16>, tensor<1x8x3x9xf16>) {
  %0 = spyre.broadcast %b : tensor<1x16x9xf16> -> tensor<4x16x9xf16>
  %1 = spyre.matmul %a, %0 : tensor<4x3x16xf16>, tensor<4x16x9xf16> -> tensor<4x3x9xf16>
  %2 = spyre.reshape %k : tensor<1x2x16x9xf16> -> tensor<1x2x1x16x9xf16>
  %3 = spyre.broadcast %2 : tensor<1x2x1x16x9xf16> -> tensor<1x2x4x16x9xf16>
  %4 = spyre.reshape %3 : tensor<1x2x4x16x9xf16> -> tensor<1x8x16x9xf16>
  %5 = spyre.matmul %q, %4 {transpose_lhs} : tensor<1x8x16x3xf16>, tensor<1x8x16x9xf16> -> tensor<1x8x3x9xf16>
  return %1, %5 : tensor<4x3x9xf16>, tensor<1x8x3x9xf16>
}

// -----

// Zero-size tensors (lib/Dialect/Spyre/EmptyTensors.cpp): an op with an
// empty result is an empty constant; a sum over an empty dim is 0 and a
// product 1; a matmul with K = 0 is zeros; empty concat inputs are dropped;
// scattering nothing leaves the destination.
// CHECK-LABEL: func.func @empty_tensors
// CHECK-DAG: %[[E:.*]] = spyre.constant dense<0.000000e+00> : tensor<4x0xf32>
// CHECK-DAG: %[[S:.*]] = spyre.constant dense<0.000000e+00> : tensor<3x1xf32>
// CHECK-DAG: %[[P:.*]] = spyre.constant dense<1.000000e+00> : tensor<3x1xf32>
// CHECK-DAG: %[[M:.*]] = spyre.constant dense<0.000000e+00> : tensor<3x5xf32>
// CHECK: %[[C:.*]] = spyre.concat %arg0, %arg0 dim 1 : tensor<4x5xf32>, tensor<4x5xf32> -> tensor<4x10xf32>
// CHECK: return %[[E]], %[[S]], %[[P]], %[[M]], %[[C]], %arg2
func.func @empty_tensors(%x: tensor<4x5xf32>, %e: tensor<3x0xf32>, %d: tensor<4x5xf32>, %i: tensor<0xi64>, %s: tensor<0x5xf32>, %f: tensor<0x5xf32>) -> (tensor<4x0xf32>, tensor<3x1xf32>, tensor<3x1xf32>, tensor<3x5xf32>, tensor<4x10xf32>, tensor<4x5xf32>) {
  %0 = spyre.slice %x offsets [0, 2] strides [1, 1] : tensor<4x5xf32> -> tensor<4x0xf32>
  %1 = spyre.reduce sum %e dim 1 : tensor<3x0xf32> -> tensor<3x1xf32>
  %2 = spyre.reduce prod %e dim 1 : tensor<3x0xf32> -> tensor<3x1xf32>
  %3 = spyre.matmul %e, %f : tensor<3x0xf32>, tensor<0x5xf32> -> tensor<3x5xf32>
  %4 = spyre.concat %x, %0, %x dim 1 : tensor<4x5xf32>, tensor<4x0xf32>, tensor<4x5xf32> -> tensor<4x10xf32>
  %5 = spyre.scatter %s into %d [%i] dim 0 : tensor<0x5xf32>, tensor<4x5xf32>, tensor<0xi64> -> tensor<4x5xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4x0xf32>, tensor<3x1xf32>, tensor<3x1xf32>, tensor<3x5xf32>, tensor<4x10xf32>, tensor<4x5xf32>
}
