// RUN: tile-opt %s --pass-pipeline='builtin.module(tile-finish-widening)' | FileCheck %s

// The widened instance's variant becomes the kernel's, tried first (right
// after the kernel, before the kernel's own variant), keeps tile.retiled
// and loses tile.wide_of; the instance itself is erased.
// CHECK-LABEL: func.func @k(
// CHECK-NEXT: return
// CHECK: func.func @k__wide__tma({{.*}}) attributes {tile.kernel, tile.retiled = array<i64: 2, 0, 1, 128, 128, 128, 256>, tile.variant_of = @k}
// CHECK: func.func @k__tma({{.*}}) attributes {tile.kernel, tile.variant_of = @k}
// CHECK-NOT: @k__wide(
func.func @k(%A: memref<?x?xf16>) attributes {tile.kernel} {
  return
}
func.func @k__tma(%A: memref<?x?xf16>) attributes {tile.kernel, tile.variant_of = @k} {
  return
}
func.func @k__wide(%A: memref<?x?xf16>) attributes {tile.kernel, tile.wide_of = @k, tile.retiled = array<i64: 2, 0, 1, 128, 128, 128, 256>} {
  return
}
func.func @k__wide__tma(%A: memref<?x?xf16>) attributes {tile.kernel, tile.variant_of = @k__wide, tile.wide_of = @k, tile.retiled = array<i64: 2, 0, 1, 128, 128, 128, 256>} {
  return
}
