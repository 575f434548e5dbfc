// RUN: tile-opt %s --pass-pipeline='builtin.module(tile-split-thread-stores)' -split-input-file | FileCheck %s

// A variant with an optional (store) descriptor requires it, keeping the
// argument's other attributes; its copy, right after it, keeps it
// optional. The kernel itself is left as it is.
// CHECK-LABEL: module
// CHECK: func.func @k(
// CHECK: func.func @k__tma(
// CHECK-SAME: %{{.*}}: !llvm.ptr {tile.tma = {arg = 0 : i64, box = array<i64: 64, 64>, swizzle = 128 : i64}}
// CHECK-SAME: %{{.*}}: !llvm.ptr {llvm.noalias, tile.tma = {arg = 1 : i64, box = array<i64: 128, 64>, swizzle = 128 : i64}}
// CHECK-SAME: tile.variant_of = @k
// CHECK: tile.store
// CHECK: func.func @k__tma__thread_store(
// CHECK-SAME: %{{.*}}: !llvm.ptr {tile.tma = {arg = 0 : i64, box = array<i64: 64, 64>, swizzle = 128 : i64}}
// CHECK-SAME: %{{.*}}: !llvm.ptr {llvm.noalias, tile.tma = {arg = 1 : i64, box = array<i64: 128, 64>, optional, swizzle = 128 : i64}}
// CHECK-SAME: tile.variant_of = @k
// CHECK: tile.store
// CHECK: func.func @other(
func.func @k(%A: memref<?x?xf16>, %C: memref<?x?xf16>) attributes {tile.kernel} {
  return
}
func.func @k__tma(%A: memref<?x?xf16>, %C: memref<?x?xf16>,
    %dA: !llvm.ptr {tile.tma = {arg = 0 : i64, box = array<i64: 64, 64>, swizzle = 128 : i64}},
    %dC: !llvm.ptr {llvm.noalias, tile.tma = {arg = 1 : i64, box = array<i64: 128, 64>, optional, swizzle = 128 : i64}})
    attributes {tile.kernel, tile.variant_of = @k} {
  %t = arith.constant dense<0.0> : tensor<64x64xf16>
  %v = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %c0 = arith.constant 0 : index
  tile.store %t, %v[%c0, %c0] {tile.tma_store = 3 : i64} : tensor<64x64xf16> -> !tile.partition_view<64x64xf16>
  return
}
func.func @other(%A: memref<?x?xf16>) attributes {tile.kernel} {
  return
}

// -----

// Variants whose descriptors are all required, and kernels without
// variants, are left as they are.
// CHECK-LABEL: module
// CHECK: func.func @r(
// CHECK: func.func @r__tma(
// CHECK-NOT: thread_store
func.func @r(%A: memref<?x?xf16>) attributes {tile.kernel} {
  return
}
func.func @r__tma(%A: memref<?x?xf16>,
    %dA: !llvm.ptr {tile.tma = {arg = 0 : i64, box = array<i64: 128, 64>, swizzle = 128 : i64}})
    attributes {tile.kernel, tile.variant_of = @r} {
  return
}

// -----

// A variant that stores through the TMA in a loop (a persistent walk) is
// split as well: it requires its descriptor, and its copy keeps the
// loop.
// CHECK-LABEL: module
// CHECK: func.func @p__tma(
// CHECK-NOT: optional
// CHECK-SAME: tile.variant_of = @p
// CHECK: scf.for
// CHECK: tile.store
// CHECK: func.func @p__tma__thread_store(
// CHECK-SAME: optional
// CHECK: scf.for
// CHECK: tile.store
func.func @p(%C: memref<?x?xf16>) attributes {tile.kernel} {
  return
}
func.func @p__tma(%C: memref<?x?xf16>,
    %dC: !llvm.ptr {tile.tma = {arg = 0 : i64, box = array<i64: 64, 64>, optional, swizzle = 128 : i64}})
    attributes {tile.kernel, tile.variant_of = @p} {
  %t = arith.constant dense<0.0> : tensor<64x64xf16>
  %v = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    tile.store %t, %v[%i, %c0] {tile.tma_store = 1 : i64} : tensor<64x64xf16> -> !tile.partition_view<64x64xf16>
  }
  return
}
