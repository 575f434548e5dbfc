// RUN: tile-opt %s --pass-pipeline='builtin.module(tile-defer-general-kernels)' -split-input-file | FileCheck %s
// RUN: tile-opt %s --pass-pipeline='builtin.module(tile-defer-general-kernels)' -split-input-file --remarks-filter=tile -verify-diagnostics -o /dev/null

// A kernel with a variant: the kernel itself goes, the variant stays.
// CHECK-LABEL: module
// CHECK-NOT: func.func @k(
// CHECK: func.func @k__tma(
// CHECK-SAME: tile.variant_of = @k
// expected-remark@+1 {{@k is left out: only its variants are compiled (the general kernel is deferred)}}
func.func @k(%A: memref<?xf32>) attributes {tile.kernel} {
  return
}
func.func @k__tma(%A: memref<?xf32>) attributes {tile.kernel, tile.variant_of = @k} {
  return
}

// -----

// A kernel without variants, and a function that is no kernel, stay.
// CHECK-LABEL: module
// CHECK: func.func @alone(
// CHECK: func.func @helper(
func.func @alone(%A: memref<?xf32>) attributes {tile.kernel} {
  return
}
func.func @helper(%A: memref<?xf32>) {
  return
}

// -----

// Two kernels, one with variants (kept in order), one without.
// CHECK-LABEL: module
// CHECK-NOT: func.func @a(
// CHECK: func.func @b(
// CHECK: func.func @a__tma(
// CHECK: func.func @a__wide__tma(
// expected-remark@+1 {{@a is left out}}
func.func @a(%A: memref<?xf32>) attributes {tile.kernel} {
  return
}
func.func @b(%A: memref<?xf32>) attributes {tile.kernel} {
  return
}
func.func @a__tma(%A: memref<?xf32>) attributes {tile.kernel, tile.variant_of = @a} {
  return
}
func.func @a__wide__tma(%A: memref<?xf32>) attributes {tile.kernel, tile.variant_of = @a} {
  return
}

// -----

// A variant whose descriptors are optional (`tile-split-thread-stores`'
// copy) goes with its deferred kernel.
// CHECK-LABEL: module
// CHECK-NOT: func.func @s(
// CHECK: func.func @s__tma(
// CHECK-NOT: func.func @s__tma__thread_store(
// expected-remark@+1 {{@s is left out}}
func.func @s(%A: memref<?x?xf16>, %C: memref<?x?xf16>) attributes {tile.kernel} {
  return
}
func.func @s__tma(%A: memref<?x?xf16>, %C: memref<?x?xf16>,
    %dA: !llvm.ptr {tile.tma = {arg = 0 : i64, box = array<i64: 64, 64>, swizzle = 128 : i64}},
    %dC: !llvm.ptr {tile.tma = {arg = 1 : i64, box = array<i64: 128, 64>, swizzle = 128 : i64}})
    attributes {tile.kernel, tile.variant_of = @s} {
  return
}
// expected-remark@+1 {{@s__tma__thread_store is left out with @s: it runs for arrays the TMA cannot describe, as the general kernel does}}
func.func @s__tma__thread_store(%A: memref<?x?xf16>, %C: memref<?x?xf16>,
    %dA: !llvm.ptr {tile.tma = {arg = 0 : i64, box = array<i64: 64, 64>, swizzle = 128 : i64}},
    %dC: !llvm.ptr {tile.tma = {arg = 1 : i64, box = array<i64: 128, 64>, optional, swizzle = 128 : i64}})
    attributes {tile.kernel, tile.variant_of = @s} {
  return
}

// -----

// A variant with optional descriptors that no other variant requires
// (a module `tile-split-thread-stores` has not split) stays.
// CHECK-LABEL: module
// CHECK-NOT: func.func @o(
// CHECK: func.func @o__tma(
// expected-remark@+1 {{@o is left out}}
func.func @o(%A: memref<?x?xf16>) attributes {tile.kernel} {
  return
}
func.func @o__tma(%A: memref<?x?xf16>,
    %dA: !llvm.ptr {tile.tma = {arg = 0 : i64, box = array<i64: 128, 64>, optional, swizzle = 128 : i64}})
    attributes {tile.kernel, tile.variant_of = @o} {
  return
}

// -----

// A variant with no descriptor beside one that requires them (a 128x128
// wide instance kept with its threads' copies, tile-finish-widening) runs
// only where the TMA cannot describe the arrays: it goes with its
// deferred kernel.
// CHECK-LABEL: module
// CHECK-NOT: func.func @w(
// CHECK: func.func @w__wide__tma(
// CHECK-NOT: func.func @w__wide(
// expected-remark@+1 {{@w is left out}}
func.func @w(%A: memref<?x?xf16>) attributes {tile.kernel} {
  return
}
func.func @w__wide__tma(%A: memref<?x?xf16>,
    %dA: !llvm.ptr {tile.tma = {arg = 0 : i64, box = array<i64: 128, 64>, swizzle = 128 : i64}})
    attributes {tile.kernel, tile.variant_of = @w, tile.retiled = array<i64: 0, 0, 1, 64, 128, 128, 128>} {
  return
}
// expected-remark@+1 {{@w__wide is left out with @w: it runs for arrays the TMA cannot describe, as the general kernel does}}
func.func @w__wide(%A: memref<?x?xf16>) attributes {tile.kernel, tile.variant_of = @w, tile.retiled = array<i64: 0, 0, 1, 64, 128, 128, 128>} {
  return
}
