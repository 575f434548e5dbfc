// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile-split-last-wave)' | FileCheck %s
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile-split-last-wave)' --remarks-filter=tile -verify-diagnostics -o /dev/null

// A kernel with a wide variant (two program tiles side by side): the wide
// variant and the kernel's variant that is not retiled take the slice's
// first block and the whole grid as their last arguments, add the first
// to each block id along x and read the grid for the block count; both
// are marked with their block order. The kernel itself is left alone.
// CHECK-LABEL: func.func @k(
// CHECK-NOT: tile.grid_slice
// CHECK: tile.block_id x
// CHECK: tile.num_blocks x
// CHECK: return
// CHECK: func.func @k__wide__tma(%{{.*}}: memref<?x?xf16>, %{{.*}}: memref<?x?xf16>, %[[FIRST:.*]]: index, %[[GRID:.*]]: index)
// CHECK-SAME: tile.grid_slice = 8 : i64
// CHECK: %[[ID:.*]] = tile.block_id x : index
// CHECK-NEXT: %[[BID:.*]] = arith.addi %[[ID]], %[[FIRST]] : index
// CHECK-NOT: tile.num_blocks
// CHECK: arith.divui %[[GRID]], %{{.*}} : index
// CHECK: arith.remui %[[BID]], %{{.*}} : index
// CHECK: tile.block_id y
// CHECK: func.func @k__tma(%{{.*}}: memref<?x?xf16>, %{{.*}}: memref<?x?xf16>, %{{.*}}: index, %{{.*}}: index)
// CHECK-SAME: tile.grid_slice = 8 : i64
// CHECK: tile.block_id x
// CHECK-NEXT: arith.addi
// expected-remark @+1 {{a launch's last partial wave of wide blocks may run as the program's own blocks}}
func.func @k(%A: memref<?x?xf16>) attributes {tile.kernel, tile.grouped = 8 : i64} {
  %bid = tile.block_id x : index
  %p = tile.num_blocks x : index
  %n = arith.divui %p, %bid : index
  return
}
func.func @k__wide__tma(%A: memref<?x?xf16>, %B: memref<?x?xf16>) attributes {tile.kernel, tile.grouped = 8 : i64,
    tile.retiled = array<i64: 2, 0, 1, 128, 128, 128, 256>, tile.variant_of = @k} {
  %bid = tile.block_id x : index
  %p = tile.num_blocks x : index
  %n = arith.divui %p, %bid : index
  %r = arith.remui %bid, %n : index
  %y = tile.block_id y : index
  return
}
func.func @k__tma(%A: memref<?x?xf16>, %B: memref<?x?xf16>) attributes {tile.kernel, tile.grouped = 8 : i64, tile.variant_of = @k} {
  %bid = tile.block_id x : index
  %p = tile.num_blocks x : index
  return
}

// -----

// Row-major blocks (no tile.grouped): G = 1. The narrow variant, the
// persistent one and the clustered one keep their arguments.
// CHECK-LABEL: func.func @r__narrow__tma(%{{.*}}: memref<?x?xf16>)
// CHECK-NOT: tile.grid_slice
// CHECK: func.func @r__wide__tma(%{{.*}}: memref<?x?xf16>, %{{.*}}: index, %{{.*}}: index)
// CHECK-SAME: tile.grid_slice = 1 : i64
// CHECK: func.func @r__persistent__tma(%{{.*}}: memref<?x?xf16>, %{{.*}}: index)
// CHECK-NOT: tile.grid_slice
// CHECK: func.func @r__clustered__tma(%{{.*}}: memref<?x?xf16>)
// CHECK-NOT: tile.grid_slice
// CHECK: func.func @r__tma(%{{.*}}: memref<?x?xf16>, %{{.*}}: index, %{{.*}}: index)
// CHECK-SAME: tile.grid_slice = 1 : i64
// expected-remark @+1 {{last partial wave}}
func.func @r(%A: memref<?x?xf16>) attributes {tile.kernel} {
  return
}
func.func @r__narrow__tma(%A: memref<?x?xf16>) attributes {tile.kernel,
    tile.retiled = array<i64: 0, 0, 1, 128, 128, 64, 64>, tile.variant_of = @r} {
  return
}
func.func @r__wide__tma(%A: memref<?x?xf16>) attributes {tile.kernel,
    tile.retiled = array<i64: 0, 0, 1, 128, 128, 128, 256>, tile.variant_of = @r} {
  return
}
func.func @r__persistent__tma(%A: memref<?x?xf16>, %grid: index) attributes {tile.kernel, tile.persistent, tile.variant_of = @r} {
  return
}
func.func @r__clustered__tma(%A: memref<?x?xf16>) attributes {tile.kernel, tile.cluster = 2 : i64, tile.variant_of = @r} {
  return
}
func.func @r__tma(%A: memref<?x?xf16>) attributes {tile.kernel, tile.variant_of = @r} {
  return
}

// -----

// No wide variant of two tiles side by side (a 64x128 program's blocks of
// four), or no variant of the program's tiles in the wide one's block
// order: nothing changes, and nothing is said.
// CHECK-LABEL: func.func @four__wide__wide__tma(%{{.*}}: memref<?x?xf16>)
// CHECK-NOT: tile.grid_slice
// CHECK-LABEL: func.func @mixed__wide__tma(%{{.*}}: memref<?x?xf16>)
// CHECK-NOT: tile.grid_slice
func.func @four(%A: memref<?x?xf16>) attributes {tile.kernel} {
  return
}
func.func @four__wide__wide__tma(%A: memref<?x?xf16>) attributes {tile.kernel,
    tile.retiled = array<i64: 0, 0, 1, 64, 128, 128, 256>, tile.variant_of = @four} {
  return
}
func.func @four__tma(%A: memref<?x?xf16>) attributes {tile.kernel, tile.variant_of = @four} {
  return
}
func.func @mixed(%A: memref<?x?xf16>) attributes {tile.kernel} {
  return
}
func.func @mixed__wide__tma(%A: memref<?x?xf16>) attributes {tile.kernel, tile.grouped = 8 : i64,
    tile.retiled = array<i64: 0, 0, 1, 128, 128, 128, 256>, tile.variant_of = @mixed} {
  return
}
func.func @mixed__tma(%A: memref<?x?xf16>) attributes {tile.kernel, tile.grouped = 4 : i64, tile.variant_of = @mixed} {
  return
}
