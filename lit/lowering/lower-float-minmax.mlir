// RUN: tile-opt %s --tile-lower-float-minmax | FileCheck %s

// Float minimum and maximum on 16- and 32-bit floats (and vectors of
// them) become LLVM's intrinsics, which arith-expand leaves alone and the
// NVPTX back end makes one instruction each.
// CHECK-LABEL: func.func @scalars
// CHECK-SAME: (%[[A:.*]]: f32, %[[B:.*]]: f32, %[[H:.*]]: f16, %[[G:.*]]: bf16)
// CHECK: %[[M:.*]] = llvm.intr.maximum(%[[A]], %[[B]]) : (f32, f32) -> f32
// CHECK: %[[N:.*]] = llvm.intr.minimum(%[[M]], %[[B]]) : (f32, f32) -> f32
// CHECK: %[[X:.*]] = llvm.intr.maxnum(%[[N]], %[[A]]) : (f32, f32) -> f32
// CHECK: %[[Y:.*]] = llvm.intr.minnum(%[[X]], %[[A]]) : (f32, f32) -> f32
// CHECK: llvm.intr.maximum(%[[H]], %[[H]]) : (f16, f16) -> f16
// CHECK: llvm.intr.minimum(%[[G]], %[[G]]) : (bf16, bf16) -> bf16
// CHECK-NOT: arith.maximumf
// CHECK: return %[[Y]]
func.func @scalars(%a: f32, %b: f32, %h: f16, %g: bf16) -> (f32, f16, bf16) {
  %m = arith.maximumf %a, %b : f32
  %n = arith.minimumf %m, %b : f32
  %x = arith.maxnumf %n, %a : f32
  %y = arith.minnumf %x, %a : f32
  %hh = arith.maximumf %h, %h : f16
  %gg = arith.minimumf %g, %g : bf16
  return %y, %hh, %gg : f32, f16, bf16
}

// Vectors too; f64 and tensors stay for arith-expand (and bufferization).
// CHECK-LABEL: func.func @others
// CHECK: llvm.intr.maximum(%{{.*}}, %{{.*}}) : (vector<4xf32>, vector<4xf32>) -> vector<4xf32>
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : f64
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : tensor<4xf32>
func.func @others(%v: vector<4xf32>, %d: f64, %t: tensor<4xf32>) -> (vector<4xf32>, f64, tensor<4xf32>) {
  %a = arith.maximumf %v, %v : vector<4xf32>
  %b = arith.maximumf %d, %d : f64
  %c = arith.maximumf %t, %t : tensor<4xf32>
  return %a, %b, %c : vector<4xf32>, f64, tensor<4xf32>
}
