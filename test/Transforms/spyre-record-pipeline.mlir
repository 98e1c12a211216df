// RUN: spyre-opt %s --spyre-record-pipeline="pipeline=any(spyre-decompose)" | FileCheck %s
// RUN: spyre-opt %s --spyre-pipeline | FileCheck %s --check-prefix=WHOLE

// The module records the pipeline it was given; --spyre-pipeline ends by
// recording itself (what the .spy's metadata then says).
// CHECK: module attributes {spyre.pipeline = "any(spyre-decompose)"}
// WHOLE: spyre.pipeline = "any(spyre-attach-arch{{.*}}spyre-lower-to-program)"
module {
  func.func @main(%x: tensor<4x64xf16>) -> tensor<4x64xf16> {
    return %x : tensor<4x64xf16>
  }
}
