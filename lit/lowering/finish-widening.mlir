// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile-finish-widening)' | FileCheck %s

// The widened instance's variant becomes the kernel's, tried first (right
// after the kernel, before the kernel's own variant), keeps tile.retiled
// and loses tile.wide_of; the instance itself (128x256 tiles) is erased.
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

// -----

// A 64x128 program's 128x128 instance: its variants come first, as
// above, and the instance itself, with tile.retiled and without
// tile.wide_of, becomes the kernel's last variant (after a K-widened
// instance's too): the threads' copies of the wider tiles, for rows the
// TMA cannot take.
// CHECK-LABEL: func.func @s(
// CHECK-NEXT: return
// CHECK: func.func @s__wide__tma({{.*}}) attributes {tile.kernel, tile.retiled = array<i64: 2, 0, 1, 64, 128, 128, 128>, tile.variant_of = @s}
// CHECK: func.func @s__widek__tma({{.*}}) attributes {tile.kernel, tile.variant_of = @s}
// CHECK: func.func @s__tma({{.*}}) attributes {tile.kernel, tile.variant_of = @s}
// CHECK: func.func @s__wide({{.*}}) attributes {tile.kernel, tile.retiled = array<i64: 2, 0, 1, 64, 128, 128, 128>, tile.variant_of = @s}
// CHECK-NOT: func.func @s__widek(
func.func @s(%A: memref<?x?xf16>) attributes {tile.kernel} {
  return
}
func.func @s__tma(%A: memref<?x?xf16>) attributes {tile.kernel, tile.variant_of = @s} {
  return
}
func.func @s__wide(%A: memref<?x?xf16>) attributes {tile.kernel, tile.wide_of = @s, tile.retiled = array<i64: 2, 0, 1, 64, 128, 128, 128>} {
  return
}
func.func @s__wide__tma(%A: memref<?x?xf16>) attributes {tile.kernel, tile.variant_of = @s__wide, tile.wide_of = @s, tile.retiled = array<i64: 2, 0, 1, 64, 128, 128, 128>} {
  return
}
func.func @s__widek(%A: memref<?x?xf16>) attributes {tile.kernel, tile.wide_of = @s} {
  return
}
func.func @s__widek__tma(%A: memref<?x?xf16>) attributes {tile.kernel, tile.variant_of = @s__widek, tile.wide_of = @s} {
  return
}

// -----

// An instance of wider K steps: its TMA variant comes before the kernel's TMA variant, which stays for
// where it cannot run; a wide instance's variant still comes first.
// CHECK-LABEL: func.func @j(
// CHECK: func.func @j__wide__tma({{.*}}) attributes {tile.kernel, tile.retiled = array<i64: 2, 0, 1, 128, 128, 128, 256>, tile.variant_of = @j}
// CHECK: func.func @j__widek__tma({{.*}}) attributes {tile.kernel, tile.variant_of = @j}
// CHECK: func.func @j__tma({{.*}}) attributes {tile.kernel, tile.variant_of = @j}
// CHECK-NOT: func.func @j__widek(
// CHECK-NOT: func.func @j__wide(
func.func @j(%A: memref<?x?xf16>) attributes {tile.kernel} {
  return
}
func.func @j__tma(%A: memref<?x?xf16>) attributes {tile.kernel, tile.variant_of = @j} {
  return
}
func.func @j__wide(%A: memref<?x?xf16>) attributes {tile.kernel, tile.wide_of = @j, tile.retiled = array<i64: 2, 0, 1, 128, 128, 128, 256>} {
  return
}
func.func @j__wide__tma(%A: memref<?x?xf16>) attributes {tile.kernel, tile.variant_of = @j__wide, tile.wide_of = @j, tile.retiled = array<i64: 2, 0, 1, 128, 128, 128, 256>} {
  return
}
func.func @j__widek(%A: memref<?x?xf16>) attributes {tile.kernel, tile.wide_of = @j} {
  return
}
func.func @j__widek__tma(%A: memref<?x?xf16>) attributes {tile.kernel, tile.variant_of = @j__widek, tile.wide_of = @j} {
  return
}

// -----

// An instance of wider K steps without a TMA variant: the kernel keeps
// its own.
// CHECK-LABEL: func.func @i(
// CHECK: func.func @i__tma({{.*}}) attributes {tile.kernel, tile.variant_of = @i}
// CHECK-NOT: func.func @i__widek(
func.func @i(%A: memref<?x?xf16>) attributes {tile.kernel} {
  return
}
func.func @i__tma(%A: memref<?x?xf16>) attributes {tile.kernel, tile.variant_of = @i} {
  return
}
func.func @i__widek(%A: memref<?x?xf16>) attributes {tile.kernel, tile.wide_of = @i} {
  return
}

// -----

// An instance whose variant leaves a shared tile to the threads' copies
// (no tile.tma_load): wider steps there measured slower, so the variant
// goes and the kernel keeps its own.
// CHECK-LABEL: func.func @h(
// CHECK: func.func @h__tma({{.*}}) attributes {tile.kernel, tile.variant_of = @h}
// CHECK-NOT: @h__widek
func.func @h(%A: memref<?x?xf16>) attributes {tile.kernel} {
  return
}
func.func @h__tma(%A: memref<?x?xf16>) attributes {tile.kernel, tile.variant_of = @h} {
  return
}
func.func @h__widek(%A: memref<?x?xf16>) attributes {tile.kernel, tile.wide_of = @h} {
  return
}
func.func @h__widek__tma(%A: memref<?x?xf16>) attributes {tile.kernel, tile.variant_of = @h__widek, tile.wide_of = @h} {
  %c0 = arith.constant 0 : index
  %p = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %t = tile.load %p[%c0, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>>
  return
}

// -----

// A narrow instance (64x64 tiles) beside a wide one, in the order
// tile-widen-blocks leaves them: both instances' variants become the
// kernel's, before its own, each keeping its tile.retiled (the runtime
// takes at most one of them for a launch); both instances are erased, a
// walk's eighth element kept.
// CHECK-LABEL: func.func @n(
// CHECK-NEXT: return
// CHECK: func.func @n__narrow__tma({{.*}}) attributes {tile.kernel, tile.retiled = array<i64: 2, 0, 1, 128, 128, 64, 64, 1>, tile.variant_of = @n}
// CHECK: func.func @n__wide__tma({{.*}}) attributes {tile.kernel, tile.retiled = array<i64: 2, 0, 1, 128, 128, 128, 256>, tile.variant_of = @n}
// CHECK: func.func @n__tma({{.*}}) attributes {tile.kernel, tile.variant_of = @n}
// CHECK-NOT: func.func @n__narrow(
// CHECK-NOT: func.func @n__wide(
func.func @n(%A: memref<?x?xf16>) attributes {tile.kernel} {
  return
}
func.func @n__tma(%A: memref<?x?xf16>) attributes {tile.kernel, tile.variant_of = @n} {
  return
}
func.func @n__wide(%A: memref<?x?xf16>) attributes {tile.kernel, tile.wide_of = @n, tile.retiled = array<i64: 2, 0, 1, 128, 128, 128, 256>} {
  return
}
func.func @n__wide__tma(%A: memref<?x?xf16>) attributes {tile.kernel, tile.variant_of = @n__wide, tile.wide_of = @n, tile.retiled = array<i64: 2, 0, 1, 128, 128, 128, 256>} {
  return
}
func.func @n__narrow(%A: memref<?x?xf16>) attributes {tile.kernel, tile.wide_of = @n, tile.retiled = array<i64: 2, 0, 1, 128, 128, 64, 64, 1>} {
  return
}
func.func @n__narrow__tma(%A: memref<?x?xf16>) attributes {tile.kernel, tile.variant_of = @n__narrow, tile.wide_of = @n, tile.retiled = array<i64: 2, 0, 1, 128, 128, 64, 64, 1>} {
  return
}
