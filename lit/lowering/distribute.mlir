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

// -----

// A reduction with few outputs: a warp per output, lanes strided over the
// reduced dim from the combiner's identity, a butterfly of xor shuffles,
// and lane 0 folding the result into the element.
// CHECK-LABEL: func.func @rowmax
// CHECK:   %[[TID:.*]] = gpu.thread_id x
// CHECK:   %[[LANE:.*]] = arith.remui %[[TID]], %c32
// CHECK:   %[[WARP:.*]] = arith.divui %[[TID]], %c32
// CHECK:   scf.for %[[O:.*]] = %[[WARP]] to
// CHECK:     %[[NEG:.*]] = arith.constant 0xFF800000 : f32
// CHECK:     %[[P:.*]] = scf.for %{{.*}} = %{{.*}} to %c1024 step %{{.*}} iter_args(%[[ACC:.*]] = %[[NEG]]) -> (f32)
// CHECK:       %[[V:.*]] = memref.load %{{.*}} : memref<4x1024xf32>
// CHECK:       %[[M:.*]] = arith.maximumf %[[ACC]], %[[V]] : f32
// CHECK:       scf.yield %[[M]] : f32
// CHECK:     gpu.shuffle xor %[[P]], %c16_i32, %c32_i32 : f32
// CHECK-COUNT-4: gpu.shuffle xor
// CHECK:     %[[FIRST:.*]] = arith.cmpi eq, %[[LANE]], %c0
// CHECK:     scf.if %[[FIRST]] {
// CHECK:       memref.load %{{.*}} : memref<4xf32>
// CHECK:       arith.maximumf
// CHECK:       memref.store %{{.*}} : memref<4xf32>
// CHECK:   gpu.barrier
func.func @rowmax(%x: memref<4x1024xf32>, %m: memref<4xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c1024 = arith.constant 1024 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %j = %c0 to %c1024 step %c1 {
      %v = memref.load %x[%i, %j] : memref<4x1024xf32>
      %a = memref.load %m[%i] : memref<4xf32>
      %n = arith.maximumf %a, %v : f32
      memref.store %n, %m[%i] : memref<4xf32>
    }
    scf.reduce
  }
  return
}

// -----

// Many outputs (a 128x128 matmul on CUDA cores): a thread per output.
// CHECK-LABEL: func.func @many
// CHECK-NOT: gpu.shuffle
func.func @many(%a: memref<128x64xf32>, %b: memref<64x128xf32>, %c: memref<128x128xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c128, %c128) step (%c1, %c1) {
    scf.for %k = %c0 to %c64 step %c1 {
      %x = memref.load %a[%i, %k] : memref<128x64xf32>
      %y = memref.load %b[%k, %j] : memref<64x128xf32>
      %acc = memref.load %c[%i, %j] : memref<128x128xf32>
      %p = arith.mulf %x, %y : f32
      %s = arith.addf %acc, %p : f32
      memref.store %s, %c[%i, %j] : memref<128x128xf32>
    }
    scf.reduce
  }
  return
}

// -----

// A store outside parallel loops (a one-element tile, whose loop folded
// away) is thread 0's, between barriers; loads stay with every thread.
// CHECK-LABEL: func.func @stray_store
// CHECK:      %[[V:.*]] = memref.load %{{.*}}[%c0] : memref<1xf32>
// CHECK:      %[[W:.*]] = arith.addf %[[V]], %[[V]] : f32
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: %[[T:.*]] = gpu.thread_id x
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[FIRST:.*]] = arith.cmpi eq, %[[T]], %[[C0]] : index
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK-NEXT:   memref.store %[[W]], %{{.*}}[%c0] : memref<1xf32>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: return
func.func @stray_store(%a: memref<1xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%c0] : memref<1xf32>
  %w = arith.addf %v, %v : f32
  memref.store %w, %a[%c0] : memref<1xf32>
  return
}
