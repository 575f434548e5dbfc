// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile-widen-blocks)' | FileCheck %s
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile-widen-blocks)' --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile-widen-blocks)' --remarks-filter='tile' 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK

// A 128x128 program whose block splits its id row-major by a tile count
// of its output: an instance for 128x256 tiles follows it, its views and
// tiles widened along N only, marked with the kernel and the tiles of
// argument 2 along dims 0 and 1 that a block computes before and after.
// CHECK-LABEL: func.func @linear(
// CHECK-SAME: attributes {tile.kernel}
// CHECK: tile.partition_view %{{.*}} -> !tile.partition_view<128x128xf16>
// CHECK-LABEL: func.func @linear__wide(
// CHECK-SAME: tile.retiled = array<i64: 2, 0, 1, 128, 128, 128, 256>, tile.wide_of = @linear
// CHECK: tile.partition_view %arg0 {{.*}} -> !tile.partition_view<128x64xf16>
// CHECK: tile.partition_view %arg1 {{.*}} -> !tile.partition_view<256x64xf16>
// CHECK: tile.partition_view %arg2 {{.*}} -> !tile.partition_view<128x256xf16>
// CHECK: tile.mma {{.*}} : tensor<128x64xf16>, tensor<64x256xf16> into tensor<128x256xf32>
// The instance's remarks would repeat the kernel's: its ops' locations
// are named, which the remarks skip.
// An instance for 64x64 tiles follows, for launches of too few program
// tiles to fill the GPU (the decode step): its views halved along M and
// N, K kept, its loads four stages deep.
// CHECK-LABEL: func.func @linear__narrow(
// CHECK-SAME: tile.hints = {num_stages = 4 : i64}
// CHECK-SAME: tile.retiled = array<i64: 2, 0, 1, 128, 128, 64, 64>, tile.wide_of = @linear
// CHECK: tile.partition_view %arg0 {{.*}} -> !tile.partition_view<64x64xf16>
// CHECK: tile.partition_view %arg1 {{.*}} -> !tile.partition_view<64x64xf16>
// CHECK: tile.partition_view %arg2 {{.*}} -> !tile.partition_view<64x64xf16>
// CHECK: tile.mma {{.*}} : tensor<64x64xf16>, tensor<64x64xf16> into tensor<64x64xf32>
// LOC-LABEL: func.func @linear__wide(
// LOC: tile.block_id x : index loc(#[[WIDENED:.*]])
// LOC: #[[WIDENED]] = loc("tile.widened"(
// REMARK: remark: [Passed] NarrowBlocks {{.*}} a quarter of the program's 128x128 output tiles (64x64), for launches of one block per tile too few to fill the GPU
// REMARK: remark: [Passed] WideBlocks {{.*}} two of the program's 128x128 output tiles (128x256)
func.func @linear(%X: memref<?x?xf16>, %W: memref<?x?xf16>, %Y: memref<?x?xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %px = tile.partition_view %X : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pw = tile.partition_view %W : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %py = tile.partition_view %Y : memref<?x?xf16> -> !tile.partition_view<128x128xf16>
  %bid = tile.block_id x : index
  %tiles_n = tile.num_tiles %py dim 1 : !tile.partition_view<128x128xf16>
  %bm = arith.divui %bid, %tiles_n : index
  %bn = arith.remui %bid, %tiles_n : index
  %nk = tile.num_tiles %px dim 1 : !tile.partition_view<128x64xf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %zero) -> (tensor<128x128xf32>) {
    %x = tile.load %px[%bm, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %w = tile.load %pw[%bn, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %wt = tile.permute %w [1, 0] : tensor<128x64xf16> -> tensor<64x128xf16>
    %d = tile.mma %x, %wt, %acc_in : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %out = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xf16>
  tile.store %out, %py[%bm, %bn] : tensor<128x128xf16> -> !tile.partition_view<128x128xf16>
  return
}

// -----

// A program that asks for a ring depth keeps it in its narrow instance.
// CHECK-LABEL: func.func @hinted__narrow(
// CHECK-SAME: tile.hints = {num_stages = 2 : i64}
// CHECK-SAME: tile.retiled = array<i64: 2, 0, 1, 128, 128, 64, 64>, tile.wide_of = @hinted
func.func @hinted(%X: memref<?x?xf16>, %W: memref<?x?xf16>, %Y: memref<?x?xf16>) attributes {tile.kernel, tile.hints = {num_stages = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %px = tile.partition_view %X : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pw = tile.partition_view %W : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %py = tile.partition_view %Y : memref<?x?xf16> -> !tile.partition_view<128x128xf16>
  %bid = tile.block_id x : index
  %tiles_n = tile.num_tiles %py dim 1 : !tile.partition_view<128x128xf16>
  %bm = arith.divui %bid, %tiles_n : index
  %bn = arith.remui %bid, %tiles_n : index
  %nk = tile.num_tiles %px dim 1 : !tile.partition_view<128x64xf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %zero) -> (tensor<128x128xf32>) {
    %x = tile.load %px[%bm, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %w = tile.load %pw[%bn, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %wt = tile.permute %w [1, 0] : tensor<128x64xf16> -> tensor<64x128xf16>
    %d = tile.mma %x, %wt, %acc_in : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %out = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xf16>
  tile.store %out, %py[%bm, %bn] : tensor<128x128xf16> -> !tile.partition_view<128x128xf16>
  return
}

// -----

// 64x128 tiles widen along M (the block's row): 128x128, with its K
// steps of 32 widened to 64 (`tile-widen-k`), the 128x128x64 block; that
// instance widens again along N (the block's column): 128x256, four of the
// program's tiles a block, its tile.retiled counting the program's 64x128
// tiles and its tile.wide_of naming the kernel. The kernel keeps its own
// steps, and gets an instance of K steps of 64 alone, whose TMA variant
// replaces its own.
// CHECK-LABEL: func.func @small(
// CHECK: tile.mma {{.*}} : tensor<64x32xf16>, tensor<32x128xf16> into tensor<64x128xf32>
// CHECK-LABEL: func.func @small__wide(
// CHECK-SAME: tile.retiled = array<i64: 2, 0, 1, 64, 128, 128, 128>
// CHECK: tile.num_tiles {{.*}} : !tile.partition_view<128x64xf16>
// CHECK: tile.mma {{.*}} : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
// CHECK-LABEL: func.func @small__wide__wide(
// CHECK-SAME: tile.retiled = array<i64: 2, 0, 1, 64, 128, 128, 256>, tile.wide_of = @small
// CHECK: tile.num_tiles {{.*}} : !tile.partition_view<128x256xf16>
// CHECK: tile.mma {{.*}} : tensor<128x64xf16>, tensor<64x256xf16> into tensor<128x256xf32>
// The narrow instance halves N alone (64x64, wgmma's least M), its K
// steps widened likewise.
// CHECK-LABEL: func.func @small__narrow(
// CHECK-SAME: tile.retiled = array<i64: 2, 0, 1, 64, 128, 64, 64>, tile.wide_of = @small
// CHECK: tile.mma {{.*}} : tensor<64x64xf16>, tensor<64x64xf16> into tensor<64x64xf32>
// CHECK-LABEL: func.func @small__widek(
// CHECK-SAME: tile.wide_of = @small
// CHECK: tile.num_tiles {{.*}} : !tile.partition_view<64x64xf16>
// CHECK: tile.mma {{.*}} : tensor<64x64xf16>, tensor<64x128xf16> into tensor<64x128xf32>
// REMARK: remark: [Passed] WideKSteps {{.*}}a variant whose rings the TMA fills takes K steps of 64 (2 of the program's at once), where it can
// REMARK: remark: [Passed] NarrowBlocks {{.*}} half of the program's 64x128 output tiles (64x64, in K steps of 64)
// REMARK: remark: [Passed] WideBlocks {{.*}} two of the program's 64x128 output tiles (128x128, in K steps of 64)
// REMARK: remark: [Passed] WideBlocks {{.*}} four of the program's 64x128 output tiles (128x256)
func.func @small(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<32x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %bid = tile.block_id x : index
  %tiles_n = tile.num_tiles %pc dim 1 : !tile.partition_view<64x128xf16>
  %bm = arith.divui %bid, %tiles_n : index
  %bn = arith.remui %bid, %tiles_n : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x32xf16>
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %zero) -> (tensor<64x128xf32>) {
    %a = tile.load %pa[%bm, %k] : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
    %b = tile.load %pb[%k, %bn] : !tile.partition_view<32x128xf16> -> tensor<32x128xf16>
    %d = tile.mma %a, %b, %acc_in : tensor<64x32xf16>, tensor<32x128xf16> into tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  %out = arith.truncf %acc : tensor<64x128xf32> to tensor<64x128xf16>
  tile.store %out, %pc[%bm, %bn] : tensor<64x128xf16> -> !tile.partition_view<64x128xf16>
  return
}

// -----

// The block's column also feeds arithmetic (a hand-made element offset):
// a wide block would compute other values. No instance, and a remark.
// CHECK-LABEL: func.func @column_in_arithmetic(
// CHECK-NOT: __wide
// CHECK-NOT: __narrow
// REMARK: remark: [Missed] WideBlocks {{.*}}no variant with wider or narrower blocks: the block's row or column is read other than as a tile coordinate
func.func @column_in_arithmetic(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %bid = tile.block_id x : index
  %tiles_n = tile.num_tiles %pc dim 1 : !tile.partition_view<128x128xf32>
  %bm = arith.divui %bid, %tiles_n : index
  %bn = arith.remui %bid, %tiles_n : index
  %col = arith.muli %bn, %c128 : index
  %colf = arith.index_cast %col : index to i32
  %colt = tile.splat %colf : i32 -> tensor<128x128xi32>
  %colv = arith.sitofp %colt : tensor<128x128xi32> to tensor<128x128xf32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %a = tile.load %pa[%bm, %c0] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
  %b = tile.load %pb[%c0, %bn] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
  %d = tile.mma %a, %b, %zero : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
  %e = arith.addf %d, %colv : tensor<128x128xf32>
  tile.store %e, %pc[%bm, %bn] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}

// -----

// A reduction along the widened dim would sum other elements.
// CHECK-LABEL: func.func @row_sums(
// CHECK-NOT: __wide
// REMARK: remark: [Missed] WideBlocks {{.*}} the kernel holds tile.reduce, which may tell tiles apart by position
func.func @row_sums(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %S: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %ps = tile.partition_view %S : memref<?x?xf32> -> !tile.partition_view<128x1xf32>
  %bid = tile.block_id x : index
  %tiles_n = tile.num_tiles %pb dim 1 : !tile.partition_view<64x128xf16>
  %bm = arith.divui %bid, %tiles_n : index
  %bn = arith.remui %bid, %tiles_n : index
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %a = tile.load %pa[%bm, %c0] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
  %b = tile.load %pb[%c0, %bn] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
  %d = tile.mma %a, %b, %zero : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
  %s = tile.reduce add %d dim 1 : tensor<128x128xf32> -> tensor<128xf32>
  %s2 = tile.reshape %s : tensor<128xf32> -> tensor<128x1xf32>
  tile.store %s2, %ps[%bm, %bn] : tensor<128x1xf32> -> !tile.partition_view<128x1xf32>
  return
}

// -----

// A view's retiled dim read at a fixed tile (here the bias at tile 0)
// would read other elements in a wide or narrow block: no instance.
// CHECK-LABEL: func.func @fixed_column(
// CHECK-NOT: __wide
// CHECK-NOT: __narrow
// REMARK: remark: [Missed] WideBlocks {{.*}}no variant with narrower blocks: a view's dim 0 goes from 128 to 64, not as the tile of the coordinate that indexes it
// REMARK: remark: [Missed] WideBlocks {{.*}}no variant with wider blocks: a view's dim 0 goes from 128 to 256, not as the tile of the coordinate that indexes it
func.func @fixed_column(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %bias: memref<?xf32>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pbias = tile.partition_view %bias : memref<?xf32> -> !tile.partition_view<128xf32>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %bid = tile.block_id x : index
  %tiles_n = tile.num_tiles %pc dim 1 : !tile.partition_view<128x128xf32>
  %bm = arith.divui %bid, %tiles_n : index
  %bn = arith.remui %bid, %tiles_n : index
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %a = tile.load %pa[%bm, %c0] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
  %b = tile.load %pb[%c0, %bn] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
  %d = tile.mma %a, %b, %zero : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
  %bv = tile.load %pbias[%c0] : !tile.partition_view<128xf32> -> tensor<128xf32>
  %b1 = tile.reshape %bv : tensor<128xf32> -> tensor<1x128xf32>
  %bb = tile.broadcast %b1 : tensor<1x128xf32> -> tensor<128x128xf32>
  %e = arith.addf %d, %bb : tensor<128x128xf32>
  tile.store %e, %pc[%bm, %bn] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}

// -----

// A kernel the tuner instantiates (tile.config) is left alone, silently.
// CHECK-LABEL: func.func @configured(
// CHECK-NOT: __wide
func.func @configured(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel, tile.config = {tile_n = 64 : i64}} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %bid = tile.block_id x : index
  %tiles_n = tile.num_tiles %pc dim 1 : !tile.partition_view<128x128xf32>
  %bm = arith.divui %bid, %tiles_n : index
  %bn = arith.remui %bid, %tiles_n : index
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %a = tile.load %pa[%bm, %c0] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
  %b = tile.load %pb[%c0, %bn] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
  %d = tile.mma %a, %b, %zero : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
  tile.store %d, %pc[%bm, %bn] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}

// -----

// A persistent loop (each block walks every grid-size-th tile from its id,
// the grid's size read nowhere else) gets a narrow instance, marked as a
// walk (tile.retiled's eighth element): on a grid of more blocks than the
// program's tiles, the runtime launches it on one block a narrow tile.
// No wide one: it measured slower.
// CHECK-LABEL: func.func @persistent(
// CHECK-NOT: __wide
// CHECK: func.func @persistent__narrow(
// CHECK-SAME: tile.retiled = array<i64: 2, 0, 1, 128, 128, 64, 64, 1>
// CHECK: %[[BID:.*]] = tile.block_id x
// CHECK: %[[GRID:.*]] = tile.num_blocks x
// CHECK: %[[M:.*]] = tile.num_tiles %{{.*}} dim 0 : !tile.partition_view<64x64xf16>
// CHECK: %[[N:.*]] = tile.num_tiles %{{.*}} dim 1 : !tile.partition_view<64x64xf16>
// CHECK: %[[T:.*]] = arith.muli %[[M]], %[[N]]
// CHECK: scf.for %{{.*}} = %[[BID]] to %[[T]] step %[[GRID]] {
// CHECK: tile.mma {{.*}} : tensor<64x64xf16>, tensor<64x64xf16> into tensor<64x64xf32>
// REMARK: remark: [Passed] NarrowBlocks {{.*}} a quarter of the program's 128x128 output tiles (64x64), for launches of more blocks than program tiles (the walk then takes one narrow tile a block)
// REMARK: remark: [Missed] WideBlocks {{.*}}no variant with wider blocks: the kernel reads the grid's size (a persistent loop): a wide variant of it measured slower
func.func @persistent(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<128x128xf16>
  %bid = tile.block_id x : index
  %num_blocks = tile.num_blocks x : index
  %tiles_m = tile.num_tiles %pc dim 0 : !tile.partition_view<128x128xf16>
  %tiles_n = tile.num_tiles %pc dim 1 : !tile.partition_view<128x128xf16>
  %tiles = arith.muli %tiles_m, %tiles_n : index
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  scf.for %t = %bid to %tiles step %num_blocks {
    %bm = arith.divui %t, %tiles_n : index
    %bn = arith.remui %t, %tiles_n : index
    %a = tile.load %pa[%bm, %c0] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %b = tile.load %pb[%c0, %bn] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %zero : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    %out = arith.truncf %d : tensor<128x128xf32> to tensor<128x128xf16>
    tile.store %out, %pc[%bm, %bn] : tensor<128x128xf16> -> !tile.partition_view<128x128xf16>
  }
  return
}


// -----

// A walk that carries a value from tile to tile (here each tile adds the
// block's earlier ones): which tiles came before depends on the grid.
// CHECK-LABEL: func.func @walk_carries(
// CHECK-NOT: __narrow
// REMARK: remark: [Missed] WideBlocks {{.*}}no variant with wider or narrower blocks: the walk carries values from one tile to the next
func.func @walk_carries(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<128x128xf16>
  %bid = tile.block_id x : index
  %num_blocks = tile.num_blocks x : index
  %tiles_m = tile.num_tiles %pc dim 0 : !tile.partition_view<128x128xf16>
  %tiles_n = tile.num_tiles %pc dim 1 : !tile.partition_view<128x128xf16>
  %tiles = arith.muli %tiles_m, %tiles_n : index
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %seen = scf.for %t = %bid to %tiles step %num_blocks iter_args(%prev = %zero) -> (tensor<128x128xf32>) {
    %bm = arith.divui %t, %tiles_n : index
    %bn = arith.remui %t, %tiles_n : index
    %a = tile.load %pa[%bm, %c0] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %b = tile.load %pb[%c0, %bn] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %prev : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    %out = arith.truncf %d : tensor<128x128xf32> to tensor<128x128xf16>
    tile.store %out, %pc[%bm, %bn] : tensor<128x128xf16> -> !tile.partition_view<128x128xf16>
    scf.yield %d : tensor<128x128xf32>
  }
  return
}

// -----

// A store outside the walk: fewer blocks would run it fewer times.
// CHECK-LABEL: func.func @walk_stores_outside(
// CHECK-NOT: __narrow
// REMARK: remark: [Missed] WideBlocks {{.*}}no variant with wider or narrower blocks: the kernel stores a tile outside its walk over the tiles
func.func @walk_stores_outside(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<128x128xf16>
  %bid = tile.block_id x : index
  %num_blocks = tile.num_blocks x : index
  %tiles_m = tile.num_tiles %pc dim 0 : !tile.partition_view<128x128xf16>
  %tiles_n = tile.num_tiles %pc dim 1 : !tile.partition_view<128x128xf16>
  %tiles = arith.muli %tiles_m, %tiles_n : index
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  scf.for %t = %bid to %tiles step %num_blocks {
    %bm = arith.divui %t, %tiles_n : index
    %bn = arith.remui %t, %tiles_n : index
    %a = tile.load %pa[%bm, %c0] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %b = tile.load %pb[%c0, %bn] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %zero : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    %out = arith.truncf %d : tensor<128x128xf32> to tensor<128x128xf16>
    tile.store %out, %pc[%bm, %bn] : tensor<128x128xf16> -> !tile.partition_view<128x128xf16>
  }
  %first = arith.constant dense<0.0> : tensor<128x128xf16>
  tile.store %first, %pc[%c0, %c0] : tensor<128x128xf16> -> !tile.partition_view<128x128xf16>
  return
}


// -----

// The grid's size read as a value (here an element offset): not a walk.
// CHECK-LABEL: func.func @walk_reads_grid(
// CHECK-NOT: __narrow
// REMARK: remark: [Missed] WideBlocks {{.*}}no variant with wider or narrower blocks: the kernel reads the grid's size other than as the step of a walk over its tiles from the block id
func.func @walk_reads_grid(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<128x128xf16>
  %bid = tile.block_id x : index
  %num_blocks = tile.num_blocks x : index
  %tiles_m = tile.num_tiles %pc dim 0 : !tile.partition_view<128x128xf16>
  %tiles_n = tile.num_tiles %pc dim 1 : !tile.partition_view<128x128xf16>
  %tiles = arith.muli %tiles_m, %tiles_n : index
  %twice = arith.addi %num_blocks, %num_blocks : index
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  scf.for %t = %bid to %tiles step %num_blocks {
    %bm = arith.divui %t, %tiles_n : index
    %bn = arith.remui %t, %tiles_n : index
    %a = tile.load %pa[%bm, %c0] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %b = tile.load %pb[%c0, %bn] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %zero : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    %out = arith.truncf %d : tensor<128x128xf32> to tensor<128x128xf16>
    tile.store %out, %pc[%bm, %twice] : tensor<128x128xf16> -> !tile.partition_view<128x128xf16>
  }
  return
}


// -----

// A bound other than the product of the output's tile counts (here the
// row count alone): the narrow tiles would not all be walked.
// CHECK-LABEL: func.func @walk_bound(
// CHECK-NOT: __narrow
// REMARK: remark: [Missed] WideBlocks {{.*}}no variant with wider or narrower blocks: the walk's bound is not the product of the counted view's tile counts
func.func @walk_bound(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<128x128xf16>
  %bid = tile.block_id x : index
  %num_blocks = tile.num_blocks x : index
  %tiles_m = tile.num_tiles %pc dim 0 : !tile.partition_view<128x128xf16>
  %tiles_n = tile.num_tiles %pc dim 1 : !tile.partition_view<128x128xf16>
  %tiles = arith.muli %tiles_m, %tiles_n : index
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  scf.for %t = %bid to %tiles_m step %num_blocks {
    %bm = arith.divui %t, %tiles_n : index
    %bn = arith.remui %t, %tiles_n : index
    %a = tile.load %pa[%bm, %c0] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %b = tile.load %pb[%c0, %bn] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %zero : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    %out = arith.truncf %d : tensor<128x128xf32> to tensor<128x128xf16>
    tile.store %out, %pc[%bm, %bn] : tensor<128x128xf16> -> !tile.partition_view<128x128xf16>
  }
  return
}


// -----

// A transposed output: the count is of its dim 1 (M tiles), and the
// remainder, N's coordinate, indexes its dim 0: a wide block would cover
// other tiles than the two it replaces, and narrow blocks, counted along
// the other dims, fewer than the output's (with M and N apart, the
// halved counts differ; halving both dims at once would keep every view's
// shape and hide it).
// CHECK-LABEL: func.func @tr(
// CHECK-NOT: __wide
// CHECK-NOT: __narrow
// REMARK: remark: [Missed] WideBlocks {{.*}}no variant with narrower blocks: the counted array's dim 0 is stored at other than the block's coordinate for it
// REMARK: remark: [Missed] WideBlocks {{.*}}no variant with wider blocks: the counted array's dim 0 is stored at other than the block's coordinate for it
func.func @tr(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %Ct: memref<?x?xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pct = tile.partition_view %Ct : memref<?x?xf16> -> !tile.partition_view<128x128xf16>
  %bid = tile.block_id x : index
  %n = tile.num_tiles %pct dim 1 : !tile.partition_view<128x128xf16>
  %q = arith.divui %bid, %n : index
  %r = arith.remui %bid, %n : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x64xf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%q, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %b = tile.load %pb[%k, %r] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %acc_in : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %out = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xf16>
  %t = tile.permute %out [1, 0] : tensor<128x128xf16> -> tensor<128x128xf16>
  tile.store %t, %pct[%r, %q] : tensor<128x128xf16> -> !tile.partition_view<128x128xf16>
  return
}

// -----

// The tile count also feeds arithmetic (C = A B n): a wide block would
// see half of it.
// CHECK-LABEL: func.func @scaled(
// CHECK-NOT: __wide
// CHECK-NOT: __narrow
// REMARK: remark: [Missed] WideBlocks {{.*}}no variant with narrower blocks: a tile count of a view that changes is read other than as the block id's divisor
// REMARK: remark: [Missed] WideBlocks {{.*}}no variant with wider blocks: a tile count of a view that changes is read other than as the block id's divisor
func.func @scaled(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<128x128xf16>
  %bid = tile.block_id x : index
  %n = tile.num_tiles %pc dim 1 : !tile.partition_view<128x128xf16>
  %bm = arith.divui %bid, %n : index
  %bn = arith.remui %bid, %n : index
  %ni = arith.index_cast %n : index to i32
  %nf = arith.sitofp %ni : i32 to f32
  %ns = tile.splat %nf : f32 -> tensor<128x128xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x64xf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%bm, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %b = tile.load %pb[%k, %bn] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %acc_in : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %e = arith.mulf %acc, %ns : tensor<128x128xf32>
  %e_h = arith.truncf %e : tensor<128x128xf32> to tensor<128x128xf16>
  tile.store %e_h, %pc[%bm, %bn] : tensor<128x128xf16> -> !tile.partition_view<128x128xf16>
  return
}

// -----

// A second array stored along the retiled dims: where the counted one's
// last tile is half a wide one, a wide block would write this one further;
// narrow blocks, where the counted one's last tile is half a program tile,
// would leave this one's rest unwritten.
// CHECK-LABEL: func.func @two_out(
// CHECK-NOT: __wide
// CHECK-NOT: __narrow
// REMARK: remark: [Missed] WideBlocks {{.*}}no variant with narrower blocks: the kernel stores another array than the counted one
// REMARK: remark: [Missed] WideBlocks {{.*}}no variant with wider blocks: the kernel stores another array than the counted one
func.func @two_out(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>, %D: memref<?x?xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<128x128xf16>
  %pd = tile.partition_view %D : memref<?x?xf16> -> !tile.partition_view<128x128xf16>
  %bid = tile.block_id x : index
  %n = tile.num_tiles %pc dim 1 : !tile.partition_view<128x128xf16>
  %bm = arith.divui %bid, %n : index
  %bn = arith.remui %bid, %n : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x64xf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%bm, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %b = tile.load %pb[%k, %bn] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %acc_in : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %out = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xf16>
  tile.store %out, %pc[%bm, %bn] : tensor<128x128xf16> -> !tile.partition_view<128x128xf16>
  tile.store %out, %pd[%bm, %bn] : tensor<128x128xf16> -> !tile.partition_view<128x128xf16>
  return
}

// -----

// An f32 output of f16 operands: the wide tile's staging (128 KiB) would
// not fit beside the rings; the narrow one's does.
// CHECK-LABEL: func.func @gemm_ab(
// CHECK-NOT: __wide
// CHECK: func.func @gemm_ab__narrow(
// REMARK: remark: [Passed] NarrowBlocks
// REMARK: remark: [Missed] WideBlocks {{.*}}its f32 output tiles would not fit in shared memory beside the f16 operands' rings, twice as large
func.func @gemm_ab(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %bid = tile.block_id x : index
  %tiles_n = tile.num_tiles %pc dim 1 : !tile.partition_view<128x128xf32>
  %bm = arith.divui %bid, %tiles_n : index
  %bn = arith.remui %bid, %tiles_n : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x64xf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%bm, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %b = tile.load %pb[%k, %bn] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %acc_in : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %out = arith.addf %acc, %zero : tensor<128x128xf32>
  tile.store %out, %pc[%bm, %bn] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}

// -----

// A bias column from block id y's remainder (another id than the one
// split): not a retiled coordinate, so refused where the bias view changes.
// CHECK-LABEL: func.func @biasy(
// CHECK-NOT: __wide
// CHECK-NOT: __narrow
// REMARK: remark: [Missed] WideBlocks {{.*}}no variant with narrower blocks: a view's dim 0 goes from 128 to 64, not as the tile of the coordinate that indexes it
// REMARK: remark: [Missed] WideBlocks {{.*}}no variant with wider blocks: a view's dim 0 goes from 128 to 256, not as the tile of the coordinate that indexes it
func.func @biasy(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %bias: memref<?xf32>, %C: memref<?x?xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pbias = tile.partition_view %bias : memref<?xf32> -> !tile.partition_view<128xf32>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<128x128xf16>
  %bid = tile.block_id x : index
  %by = tile.block_id y : index
  %n = tile.num_tiles %pc dim 1 : !tile.partition_view<128x128xf16>
  %bm = arith.divui %bid, %n : index
  %bn = arith.remui %bid, %n : index
  %j = arith.remui %by, %c1 : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x64xf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%bm, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %b = tile.load %pb[%k, %bn] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %acc_in : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %bv = tile.load %pbias[%j] : !tile.partition_view<128xf32> -> tensor<128xf32>
  %b2 = tile.reshape %bv : tensor<128xf32> -> tensor<1x128xf32>
  %bb = tile.broadcast %b2 : tensor<1x128xf32> -> tensor<128x128xf32>
  %e = arith.addf %acc, %bb : tensor<128x128xf32>
  %e_h = arith.truncf %e : tensor<128x128xf32> to tensor<128x128xf16>
  tile.store %e_h, %pc[%bm, %bn] : tensor<128x128xf16> -> !tile.partition_view<128x128xf16>
  return
}

// -----

// The block's coordinates swapped in the loads (A's rows by the
// remainder, B's columns by the quotient): at 64x64 every view keeps its
// square shape, so only the coordinates halved one at a time tell it;
// narrow blocks would compute other products.
// CHECK-LABEL: func.func @sw(
// CHECK-NOT: __narrow
// REMARK: remark: [Missed] WideBlocks {{.*}}no variant with narrower blocks: a view's dim 0 goes from 128 to 64, not as the tile of the coordinate that indexes it
func.func @sw(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %Ct: memref<?x?xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pct = tile.partition_view %Ct : memref<?x?xf16> -> !tile.partition_view<128x128xf16>
  %bid = tile.block_id x : index
  %n = tile.num_tiles %pct dim 1 : !tile.partition_view<128x128xf16>
  %q = arith.divui %bid, %n : index
  %r = arith.remui %bid, %n : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x64xf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%r, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %b = tile.load %pb[%k, %q] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %acc_in : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %out = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xf16>
  %t = arith.addf %out, %out : tensor<128x128xf16>
  tile.store %t, %pct[%q, %r] : tensor<128x128xf16> -> !tile.partition_view<128x128xf16>
  return
}

// -----

// The output tile transposed before its store: likewise.
// CHECK-LABEL: func.func @it(
// CHECK-NOT: __narrow
// REMARK: remark: [Missed] WideBlocks {{.*}}no variant with narrower blocks: a tile.store at dim 0 of its view is indexed by a retiled coordinate of the block
func.func @it(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %Ct: memref<?x?xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pct = tile.partition_view %Ct : memref<?x?xf16> -> !tile.partition_view<128x128xf16>
  %bid = tile.block_id x : index
  %n = tile.num_tiles %pct dim 1 : !tile.partition_view<128x128xf16>
  %q = arith.divui %bid, %n : index
  %r = arith.remui %bid, %n : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x64xf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%q, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %b = tile.load %pb[%k, %r] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %acc_in : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %out = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xf16>
  %t = tile.permute %out [1, 0] : tensor<128x128xf16> -> tensor<128x128xf16>
  tile.store %t, %pct[%q, %r] : tensor<128x128xf16> -> !tile.partition_view<128x128xf16>
  return
}

// -----

// A read-modify-write of another array at a fixed tile: each block adds
// one, so narrow (or wide) blocks would add another count.
// CHECK-LABEL: func.func @cnt(
// CHECK-NOT: __narrow
// CHECK-NOT: __wide
// REMARK: remark: [Missed] WideBlocks {{.*}}no variant with narrower blocks: the kernel stores another array than the counted one
func.func @cnt(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>, %D: memref<?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<128x128xf16>
  %pd = tile.partition_view %D : memref<?xf32> -> !tile.partition_view<16xf32>
  %bid = tile.block_id x : index
  %n = tile.num_tiles %pc dim 1 : !tile.partition_view<128x128xf16>
  %q = arith.divui %bid, %n : index
  %r = arith.remui %bid, %n : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x64xf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%q, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %b = tile.load %pb[%k, %r] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %acc_in : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %out = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xf16>
  tile.store %out, %pc[%q, %r] : tensor<128x128xf16> -> !tile.partition_view<128x128xf16>
  %one = arith.constant dense<1.0> : tensor<16xf32>
  %v = tile.load %pd[%c0] : !tile.partition_view<16xf32> -> tensor<16xf32>
  %w = arith.addf %v, %one : tensor<16xf32>
  tile.store %w, %pd[%c0] : tensor<16xf32> -> !tile.partition_view<16xf32>
  return
}

// -----

// A walk whose loads swap the block's coordinates (A's rows by the column
// coordinate): the output's counts would still match at 64x64, so the
// coordinates are checked one at a time.
// CHECK-LABEL: func.func @walk_swapped(
// CHECK-NOT: __narrow
// REMARK: remark: [Missed] WideBlocks {{.*}}no variant with narrower blocks: a view's dim 0 goes from 128 to 64, not as the tile of the coordinate that indexes it
func.func @walk_swapped(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<128x128xf16>
  %bid = tile.block_id x : index
  %num_blocks = tile.num_blocks x : index
  %tiles_m = tile.num_tiles %pc dim 0 : !tile.partition_view<128x128xf16>
  %tiles_n = tile.num_tiles %pc dim 1 : !tile.partition_view<128x128xf16>
  %tiles = arith.muli %tiles_m, %tiles_n : index
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  scf.for %t = %bid to %tiles step %num_blocks {
    %bm = arith.divui %t, %tiles_n : index
    %bn = arith.remui %t, %tiles_n : index
    %a = tile.load %pa[%bn, %c0] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %b = tile.load %pb[%c0, %bm] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %zero : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    %out = arith.truncf %d : tensor<128x128xf32> to tensor<128x128xf16>
    tile.store %out, %pc[%bm, %bn] : tensor<128x128xf16> -> !tile.partition_view<128x128xf16>
  }
  return
}

// -----

// A walk bounded by the rows of another array (A's) than the output: its
// tiles need not be the output's.
// CHECK-LABEL: func.func @walk_other_rows(
// CHECK-NOT: __narrow
// REMARK: remark: [Missed] WideBlocks {{.*}}no variant with wider or narrower blocks: the walk's bound is not the product of the counted view's tile counts
func.func @walk_other_rows(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<128x128xf16>
  %bid = tile.block_id x : index
  %num_blocks = tile.num_blocks x : index
  %tiles_m = tile.num_tiles %pa dim 0 : !tile.partition_view<128x64xf16>
  %tiles_n = tile.num_tiles %pc dim 1 : !tile.partition_view<128x128xf16>
  %tiles = arith.muli %tiles_m, %tiles_n : index
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  scf.for %t = %bid to %tiles step %num_blocks {
    %bm = arith.divui %t, %tiles_n : index
    %bn = arith.remui %t, %tiles_n : index
    %a = tile.load %pa[%bm, %c0] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %b = tile.load %pb[%c0, %bn] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %zero : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    %out = arith.truncf %d : tensor<128x128xf32> to tensor<128x128xf16>
    tile.store %out, %pc[%bm, %bn] : tensor<128x128xf16> -> !tile.partition_view<128x128xf16>
  }
  return
}

// -----

// tf32 (f32 operands and output): the wide instance takes K steps of 32
// (the specialiser splits each of the program's steps of 64), so that its
// f32 tile can be staged in its rings' memory; no narrow instance.
// CHECK-LABEL: func.func @gemm_tf32(
// CHECK: tile.mma {{.*}} : tensor<128x64xf32>, tensor<64x128xf32> into tensor<128x128xf32>
// CHECK-LABEL: func.func @gemm_tf32__wide(
// CHECK-SAME: tile.retiled = array<i64: 2, 0, 1, 128, 128, 128, 256>, tile.wide_of = @gemm_tf32
// CHECK: tile.partition_view %arg0 {{.*}} -> !tile.partition_view<128x32xf32>
// CHECK: tile.partition_view %arg1 {{.*}} -> !tile.partition_view<32x256xf32>
// CHECK: tile.partition_view %arg2 {{.*}} -> !tile.partition_view<128x256xf32>
// CHECK: tile.mma {{.*}} : tensor<128x32xf32>, tensor<32x256xf32> into tensor<128x256xf32>
// CHECK-NOT: __narrow
// REMARK: remark: [Passed] WideBlocks {{.*}} two of the program's 128x128 output tiles (128x256, in K steps of 32), for launches of one block per tile
func.func @gemm_tf32(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf32> -> !tile.partition_view<128x64xf32>
  %pb = tile.partition_view %B : memref<?x?xf32> -> !tile.partition_view<64x128xf32>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %bid = tile.block_id x : index
  %tiles_n = tile.num_tiles %pc dim 1 : !tile.partition_view<128x128xf32>
  %bm = arith.divui %bid, %tiles_n : index
  %bn = arith.remui %bid, %tiles_n : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x64xf32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%bm, %k] : !tile.partition_view<128x64xf32> -> tensor<128x64xf32>
    %b = tile.load %pb[%k, %bn] : !tile.partition_view<64x128xf32> -> tensor<64x128xf32>
    %d = tile.mma %a, %b, %acc_in : tensor<128x64xf32>, tensor<64x128xf32> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %pc[%bm, %bn] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}

// -----

// tf32 of 64x128 tiles: left alone, saying why.
// CHECK-LABEL: func.func @tf32_64x128(
// CHECK-NOT: __wide
// CHECK-NOT: __narrow
// REMARK: remark: [Missed] WideBlocks {{.*}}no variant with wider or narrower blocks: its 64x128 tf32 tiles are not 128x128
func.func @tf32_64x128(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf32> -> !tile.partition_view<64x32xf32>
  %pb = tile.partition_view %B : memref<?x?xf32> -> !tile.partition_view<32x128xf32>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x128xf32>
  %bid = tile.block_id x : index
  %tiles_n = tile.num_tiles %pc dim 1 : !tile.partition_view<64x128xf32>
  %bm = arith.divui %bid, %tiles_n : index
  %bn = arith.remui %bid, %tiles_n : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x32xf32>
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %zero) -> (tensor<64x128xf32>) {
    %a = tile.load %pa[%bm, %k] : !tile.partition_view<64x32xf32> -> tensor<64x32xf32>
    %b = tile.load %pb[%k, %bn] : !tile.partition_view<32x128xf32> -> tensor<32x128xf32>
    %d = tile.mma %a, %b, %acc_in : tensor<64x32xf32>, tensor<32x128xf32> into tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  tile.store %acc, %pc[%bm, %bn] : tensor<64x128xf32> -> !tile.partition_view<64x128xf32>
  return
}

// -----

// tf32 with one K step and no loop: split K tiles would lose half of the
// step (the review's case), so no wide instance; the remark says why.
// CHECK-LABEL: func.func @tf32_one_step(
// CHECK-NOT: __wide
// REMARK: remark: [Missed] WideBlocks {{.*}}no variant with wider or narrower blocks: its K tiles of 64 could be split to 32 only in a loop from 0 by 1 over the tile count of its operands' views, the index their K coordinate
func.func @tf32_one_step(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf32> -> !tile.partition_view<128x64xf32>
  %pb = tile.partition_view %B : memref<?x?xf32> -> !tile.partition_view<64x128xf32>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %bid = tile.block_id x : index
  %tn = tile.num_tiles %pc dim 1 : !tile.partition_view<128x128xf32>
  %bm = arith.divui %bid, %tn : index
  %bn = arith.remui %bid, %tn : index
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  %a = tile.load %pa[%bm, %c0] : !tile.partition_view<128x64xf32> -> tensor<128x64xf32>
  %b = tile.load %pb[%c0, %bn] : !tile.partition_view<64x128xf32> -> tensor<64x128xf32>
  %d = tile.mma %a, %b, %z : tensor<128x64xf32>, tensor<64x128xf32> into tensor<128x128xf32>
  tile.store %d, %pc[%bm, %bn] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}

// -----

// tf32 whose K loop runs to a fixed count (64 tiles of 64): with K steps
// of 32 it would run the same 64 iterations over half of K.
// CHECK-LABEL: func.func @tf32_fixed_count(
// CHECK-NOT: __wide
// REMARK: remark: [Missed] WideBlocks {{.*}}its K tiles of 64 could be split to 32 only in a loop from 0 by 1 over the tile count of its operands' views
func.func @tf32_fixed_count(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %pa = tile.partition_view %A : memref<?x?xf32> -> !tile.partition_view<128x64xf32>
  %pb = tile.partition_view %B : memref<?x?xf32> -> !tile.partition_view<64x128xf32>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %bid = tile.block_id x : index
  %tn = tile.num_tiles %pc dim 1 : !tile.partition_view<128x128xf32>
  %bm = arith.divui %bid, %tn : index
  %bn = arith.remui %bid, %tn : index
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %c64 step %c1 iter_args(%acc_in = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%bm, %k] : !tile.partition_view<128x64xf32> -> tensor<128x64xf32>
    %b = tile.load %pb[%k, %bn] : !tile.partition_view<64x128xf32> -> tensor<64x128xf32>
    %d = tile.mma %a, %b, %acc_in : tensor<128x64xf32>, tensor<64x128xf32> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %pc[%bm, %bn] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}
