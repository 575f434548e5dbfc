// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-vectorize-copies))' | FileCheck %s

// A tile load's copy (global view to tile buffer, f16): 8 elements a
// vector, behind a check of both start addresses and the source's row
// stride; the scalar loop stays, as the fallback and for ragged columns.
// CHECK-LABEL: func.func @copy_f16
// CHECK-SAME: (%[[SRC:.*]]: memref<?x?xf16, strided<[?, 1], offset: ?>>, %[[DST:.*]]: memref<?x?xf16, strided<[64, 1], offset: ?>>, %[[M:.*]]: index, %[[N:.*]]: index)
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK: %{{.*}}, %[[OFF:.*]], %{{.*}}:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata %[[SRC]]
// CHECK: %[[PTR:.*]] = memref.extract_aligned_pointer_as_index %[[SRC]]
// CHECK: %[[OFFB:.*]] = arith.muli %[[OFF]], %{{.*}}
// CHECK: %[[START:.*]] = arith.addi %[[PTR]], %[[OFFB]]
// CHECK: arith.remui %[[START]], %[[C16]]
// CHECK: arith.remui %[[STRIDES]]#0, %[[C8]]
// CHECK: memref.extract_strided_metadata %[[DST]]
// CHECK: memref.extract_aligned_pointer_as_index %[[DST]]
// CHECK: arith.andi
// CHECK: arith.andi
// CHECK: %[[OK:.*]] = arith.andi
// CHECK-NEXT: scf.if %[[OK]] {
// CHECK:   %[[NV:.*]] = arith.divsi %[[N]], %[[C8]]
// CHECK:   scf.parallel (%[[I:.*]], %[[JV:.*]]) = ({{.*}}) to (%[[M]], %[[NV]])
// CHECK:     %[[J:.*]] = arith.muli %[[JV]], %{{.*}}
// CHECK:     %[[V:.*]] = vector.load %[[SRC]][%[[I]], %[[J]]] {alignment = 16 : i64} : {{.*}}, vector<8xf16>
// CHECK:     vector.store %[[V]], %[[DST]][%[[I]], %[[J]]] {alignment = 16 : i64} : {{.*}}, vector<8xf16>
// CHECK:   %[[COVERED:.*]] = arith.muli %[[NV]], %[[C8]]
// CHECK:   %[[RAGGED:.*]] = arith.cmpi ne, %[[COVERED]], %[[N]]
// CHECK:   scf.if %[[RAGGED]] {
// CHECK:     scf.parallel (%{{.*}}, %{{.*}}) = (%{{.*}}, %[[COVERED]]) to (%[[M]], %[[N]])
// CHECK:       memref.load %[[SRC]]
// CHECK:       memref.store
// CHECK: } else {
// CHECK:   scf.parallel
// CHECK:     memref.load %[[SRC]]
// CHECK:     memref.store
func.func @copy_f16(%src: memref<?x?xf16, strided<[?, 1], offset: ?>>, %dst: memref<?x?xf16, strided<[64, 1], offset: ?>>, %m: index, %n: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
    %v = memref.load %src[%i, %j] : memref<?x?xf16, strided<[?, 1], offset: ?>>
    memref.store %v, %dst[%i, %j] : memref<?x?xf16, strided<[64, 1], offset: ?>>
    scf.reduce
  }
  return
}

// -----

// f32 (4 a vector) and 8-bit types (16 a vector); 1-D copies have no row
// stride to check.
// CHECK-LABEL: func.func @copy_f32
// CHECK: vector.load {{.*}} vector<4xf32>
// CHECK: vector.store {{.*}} vector<4xf32>
// CHECK-LABEL: func.func @copy_f8
// CHECK: vector.load {{.*}} vector<16xf8E4M3FN>
func.func @copy_f32(%src: memref<1024xf32>, %dst: memref<?xf32, strided<[1], offset: ?>>, %n: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %v = memref.load %src[%i] : memref<1024xf32>
    memref.store %v, %dst[%i] : memref<?xf32, strided<[1], offset: ?>>
    scf.reduce
  }
  return
}
func.func @copy_f8(%src: memref<64x64xf8E4M3FN>, %dst: memref<64x64xf8E4M3FN>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c64) step (%c1, %c1) {
    %v = memref.load %src[%i, %j] : memref<64x64xf8E4M3FN>
    memref.store %v, %dst[%i, %j] : memref<64x64xf8E4M3FN>
    scf.reduce
  }
  return
}

// -----

// Loops that stay scalar: a conversion between load and store, permuted
// indices, a strided innermost dim, booleans, an innermost extent shorter
// than a vector (of the loop, or of a memref's rows), and a function that
// is not a kernel.
// CHECK-LABEL: func.func @stays
// CHECK-NOT: vector.
// CHECK-NOT: scf.if
// CHECK-LABEL: func.func @not_a_kernel
// CHECK-NOT: vector.
func.func @stays(%a: memref<64x64xf16>, %b: memref<64x64xf32>, %c: memref<64x64xf16, strided<[1, 64]>>, %d: memref<64x64xi1>, %e: memref<64x64xi1>, %f: memref<64x4xf16>, %g: memref<?xf32>, %h: memref<2xf32>, %n: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c64) step (%c1, %c1) {
    %v = memref.load %a[%i, %j] : memref<64x64xf16>
    %w = arith.extf %v : f16 to f32
    memref.store %w, %b[%i, %j] : memref<64x64xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c64) step (%c1, %c1) {
    %v = memref.load %a[%j, %i] : memref<64x64xf16>
    memref.store %v, %a[%i, %j] : memref<64x64xf16>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c64) step (%c1, %c1) {
    %v = memref.load %c[%i, %j] : memref<64x64xf16, strided<[1, 64]>>
    memref.store %v, %a[%i, %j] : memref<64x64xf16>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c64) step (%c1, %c1) {
    %v = memref.load %d[%i, %j] : memref<64x64xi1>
    memref.store %v, %e[%i, %j] : memref<64x64xi1>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c4) step (%c1, %c1) {
    %v = memref.load %f[%i, %j] : memref<64x4xf16>
    memref.store %v, %f[%i, %j] : memref<64x4xf16>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %v = memref.load %g[%i] : memref<?xf32>
    memref.store %v, %h[%i] : memref<2xf32>
    scf.reduce
  }
  return
}
func.func @not_a_kernel(%a: memref<64xf32>, %b: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %v = memref.load %a[%i] : memref<64xf32>
    memref.store %v, %b[%i] : memref<64xf32>
    scf.reduce
  }
  return
}
