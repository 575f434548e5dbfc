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
// four), no variant of the program's tiles in the wide one's block order,
// a block order only partly relabelled (tile.grouped = 0), a persistent
// wide variant: nothing changes, and a remark says why. A kernel with no
// wide variant is left alone, and nothing is said.
// CHECK-LABEL: func.func @four__wide__wide__tma(%{{.*}}: memref<?x?xf16>)
// CHECK-NOT: tile.grid_slice
// CHECK-LABEL: func.func @mixed__wide__tma(%{{.*}}: memref<?x?xf16>)
// CHECK-NOT: tile.grid_slice
// expected-remark @+1 {{a launch's last partial wave of wide blocks stays wide: its blocks are not two of the program's tiles side by side along the columns}}
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
// expected-remark @+1 {{no variant of the program's own tiles, one block a tile in the wide blocks' order}}
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
// CHECK-LABEL: func.func @partly__wide__tma(%{{.*}}: memref<?x?xf16>)
// CHECK-NOT: tile.grid_slice
// CHECK-LABEL: func.func @persisting__wide__tma(%{{.*}}: memref<?x?xf16>, %{{.*}}: index) attributes
// CHECK-NOT: tile.grid_slice
// CHECK-LABEL: func.func @plain__tma(%{{.*}}: memref<?x?xf16>)
// CHECK-NOT: tile.grid_slice
// expected-remark @+1 {{tile-group-blocks relabelled only some of its block ids}}
func.func @partly(%A: memref<?x?xf16>) attributes {tile.kernel} {
  return
}
func.func @partly__wide__tma(%A: memref<?x?xf16>) attributes {tile.kernel, tile.grouped = 0 : i64,
    tile.retiled = array<i64: 0, 0, 1, 128, 128, 128, 256>, tile.variant_of = @partly} {
  return
}
func.func @partly__tma(%A: memref<?x?xf16>) attributes {tile.kernel, tile.grouped = 0 : i64, tile.variant_of = @partly} {
  return
}
// expected-remark @+1 {{the wide variant is persistent or runs in clusters}}
func.func @persisting(%A: memref<?x?xf16>) attributes {tile.kernel} {
  return
}
func.func @persisting__wide__tma(%A: memref<?x?xf16>, %grid: index) attributes {tile.kernel, tile.persistent,
    tile.retiled = array<i64: 0, 0, 1, 128, 128, 128, 256>, tile.variant_of = @persisting} {
  return
}
func.func @persisting__tma(%A: memref<?x?xf16>) attributes {tile.kernel, tile.variant_of = @persisting} {
  return
}
func.func @plain(%A: memref<?x?xf16>) attributes {tile.kernel} {
  return
}
func.func @plain__tma(%A: memref<?x?xf16>) attributes {tile.kernel, tile.variant_of = @plain} {
  return
}

// -----

// Run twice, the pass slices nothing twice: the marked variants keep two
// added arguments and one addition to the block id.
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile-split-last-wave, tile-split-last-wave)' | FileCheck %s --check-prefix=TWICE
// TWICE-LABEL: func.func @k__wide__tma(%{{[^,]*}}: memref<?x?xf16>, %{{[^,]*}}: memref<?x?xf16>, %{{[^,]*}}: index, %{{[^,]*}}: index) attributes
// TWICE: tile.block_id x
// TWICE-NEXT: arith.addi
// TWICE-NOT: arith.addi
// TWICE: return
// A block id inside a loop is offset where it is.
// CHECK-LABEL: func.func @nested__wide__tma
// CHECK: scf.for
// CHECK: %[[ID:.*]] = tile.block_id x : index
// CHECK-NEXT: arith.addi %[[ID]], %{{.*}} : index
// expected-remark @+1 {{last partial wave}}
func.func @nested(%A: memref<?x?xf16>, %n: index) attributes {tile.kernel} {
  return
}
func.func @nested__wide__tma(%A: memref<?x?xf16>, %n: index) attributes {tile.kernel,
    tile.retiled = array<i64: 0, 0, 1, 128, 128, 128, 256>, tile.variant_of = @nested} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %id = tile.block_id x : index
    %x = arith.addi %id, %i : index
  }
  return
}
func.func @nested__tma(%A: memref<?x?xf16>, %n: index) attributes {tile.kernel, tile.variant_of = @nested} {
  return
}
