// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-distribute))' | FileCheck %s

// Each thread takes linear iterations tid, tid + ntid, ...; the innermost
// dim varies fastest; a barrier follows the loop.
// CHECK-LABEL: func.func @k
// CHECK: %[[T:.*]] = gpu.thread_id x
// CHECK: %[[N:.*]] = gpu.block_dim x
// CHECK: scf.for %[[L:.*]] = %[[T]] to %{{.*}} step %[[N]] {
// CHECK:   %[[J:.*]] = arith.remui %[[L]], %{{.*}}
// CHECK:   %[[I:.*]] = arith.divui %[[L]], %{{.*}}
// CHECK:   memref.load %{{.*}}[%{{.*}}, %{{.*}}]
// CHECK: }
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: scf.parallel
func.func @k(%a: memref<4x8xf32>, %b: memref<4x8xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    %v = memref.load %a[%i, %j] : memref<4x8xf32>
    memref.store %v, %b[%i, %j] : memref<4x8xf32>
    scf.reduce
  }
  return
}

// -----

// Functions that are not kernels are left alone.
// CHECK-LABEL: func.func @helper
// CHECK: scf.parallel
func.func @helper(%a: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %a[%i] : memref<4xf32>
    memref.store %v, %a[%i] : memref<4xf32>
    scf.reduce
  }
  return
}
