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
