// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-group-blocks))' | FileCheck %s
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-group-blocks))' --remarks-filter=tile -verify-diagnostics -o /dev/null

// A block id split row-major into the tile coordinates is relabelled: 8
// rows a group (the default), over the grid's whole rows, and every use of
// the id reads the relabelled one.
// The kernel is marked with its group (tile-split-last-wave reads it).
// CHECK-LABEL: func.func @row_major
// CHECK-SAME: tile.grouped = 8 : i64
// CHECK: %[[BID:.*]] = tile.block_id x : index
// CHECK: %[[N:.*]] = tile.num_tiles
// CHECK: %[[P:.*]] = tile.num_blocks x : index
// CHECK: %[[ROWS:.*]] = arith.divui %[[P]], %[[N]] : index
// CHECK: %[[C8:.*]] = arith.constant 8 : index
// CHECK: %[[PER:.*]] = arith.muli %[[N]], %[[C8]] : index
// CHECK: %[[GROUP:.*]] = arith.divui %[[BID]], %[[PER]] : index
// CHECK: %[[FIRST:.*]] = arith.muli %[[GROUP]], %[[C8]] : index
// CHECK: %[[LEFT:.*]] = arith.subi %[[ROWS]], %[[FIRST]] : index
// CHECK: %[[IN:.*]] = arith.remui %[[BID]], %[[PER]] : index
// CHECK: %[[OFF:.*]] = arith.remui %[[IN]], %[[H:.*]] : index
// CHECK: %[[ROW:.*]] = arith.addi %[[FIRST]], %[[OFF]] : index
// CHECK: %[[COL:.*]] = arith.divui %[[IN]], %[[H]] : index
// CHECK: %[[AT:.*]] = arith.muli %[[ROW]], %[[N]] : index
// CHECK: %[[GROUPED:.*]] = arith.addi %[[AT]], %[[COL]] : index
// CHECK: %[[WHOLE:.*]] = arith.muli %[[ROWS]], %[[N]] : index
// CHECK: %[[INSIDE:.*]] = arith.cmpi ult, %[[BID]], %[[WHOLE]] : index
// CHECK: %[[ID:.*]] = arith.select %[[INSIDE]], %[[GROUPED]], %[[BID]] : index
// CHECK: arith.divui %[[ID]], %[[N]] : index
// CHECK: arith.remui %[[ID]], %[[N]] : index
// CHECK: arith.addi %[[ID]]
// expected-remark @+3 {{blocks walk the tiles in groups of rows for L2 reuse (group_m)}}
func.func @row_major(%A: memref<?x?xf32>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<16x16xf32>
  %bid = tile.block_id x : index
  %n = tile.num_tiles %pc dim 1 : !tile.partition_view<16x16xf32>
  %bm = arith.divui %bid, %n : index
  %bn = arith.remui %bid, %n : index
  %pa = tile.partition_view %A : memref<?x?xf32> -> !tile.partition_view<16x16xf32>
  %t = tile.load %pa[%bm, %bn] : !tile.partition_view<16x16xf32> -> tensor<16x16xf32>
  tile.store %t, %pc[%bm, %bn] : tensor<16x16xf32> -> !tile.partition_view<16x16xf32>
  %other = arith.addi %bid, %n : index
  return
}

// -----

// `group_m` sets the group; 1 keeps the program's order.
// CHECK-LABEL: func.func @four
// CHECK-SAME: tile.grouped = 4 : i64
// CHECK: tile.num_blocks
// CHECK: arith.constant 4 : index
// CHECK-LABEL: func.func @kept
// CHECK-NOT: tile.grouped
// CHECK-NOT: tile.num_blocks
// CHECK: return
// expected-remark @+3 {{blocks walk the tiles in groups of rows}}
func.func @four(%C: memref<?x?xf32>) attributes {tile.kernel, tile.hints = {group_m = 4}} {
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<16x16xf32>
  %bid = tile.block_id x : index
  %n = tile.num_tiles %pc dim 1 : !tile.partition_view<16x16xf32>
  %bm = arith.divui %bid, %n : index
  %bn = arith.remui %bid, %n : index
  %t = arith.constant dense<1.0> : tensor<16x16xf32>
  tile.store %t, %pc[%bm, %bn] : tensor<16x16xf32> -> !tile.partition_view<16x16xf32>
  return
}
func.func @kept(%C: memref<?x?xf32>) attributes {tile.kernel, tile.hints = {group_m = 1}} {
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<16x16xf32>
  %bid = tile.block_id x : index
  %n = tile.num_tiles %pc dim 1 : !tile.partition_view<16x16xf32>
  %bm = arith.divui %bid, %n : index
  %bn = arith.remui %bid, %n : index
  %t = arith.constant dense<1.0> : tensor<16x16xf32>
  tile.store %t, %pc[%bm, %bn] : tensor<16x16xf32> -> !tile.partition_view<16x16xf32>
  return
}

// -----

// Left alone: an order the program chose itself (the contract's grouped
// matmul: the quotient and remainder feed more arithmetic, not a load),
// a block id used before the tiles' count is known, a split along y, and
// the matcher's persistent variant.
// CHECK-LABEL: func.func @by_hand
// CHECK-NOT: tile.num_blocks
// CHECK-LABEL: func.func @used_before
// CHECK-NOT: tile.num_blocks
// CHECK-LABEL: func.func @along_y
// CHECK-NOT: tile.num_blocks
// CHECK-LABEL: func.func @persistent_variant
// CHECK-NOT: tile.num_blocks
// CHECK: return
func.func @by_hand(%C: memref<?x?xf32>) attributes {tile.kernel} {
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<16x16xf32>
  %bid = tile.block_id x : index
  %c8 = arith.constant 8 : index
  %nm = tile.num_tiles %pc dim 0 : !tile.partition_view<16x16xf32>
  %nn = tile.num_tiles %pc dim 1 : !tile.partition_view<16x16xf32>
  %per_group = arith.muli %c8, %nn : index
  %group = arith.divui %bid, %per_group : index
  %first_m = arith.muli %group, %c8 : index
  %rows_left = arith.subi %nm, %first_m : index
  %group_m = arith.minui %rows_left, %c8 : index
  %in_group = arith.remui %bid, %per_group : index
  %off_m = arith.remui %in_group, %group_m : index
  %bm = arith.addi %first_m, %off_m : index
  %bn = arith.divui %in_group, %group_m : index
  %t = arith.constant dense<1.0> : tensor<16x16xf32>
  tile.store %t, %pc[%bm, %bn] : tensor<16x16xf32> -> !tile.partition_view<16x16xf32>
  return
}
func.func @used_before(%C: memref<?x?xf32>, %D: memref<?x?xf32>) attributes {tile.kernel} {
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<16x16xf32>
  %pd = tile.partition_view %D : memref<?x?xf32> -> !tile.partition_view<16x16xf32>
  %bid = tile.block_id x : index
  %c0 = arith.constant 0 : index
  %t = arith.constant dense<1.0> : tensor<16x16xf32>
  tile.store %t, %pd[%bid, %c0] : tensor<16x16xf32> -> !tile.partition_view<16x16xf32>
  %n = tile.num_tiles %pc dim 1 : !tile.partition_view<16x16xf32>
  %bm = arith.divui %bid, %n : index
  %bn = arith.remui %bid, %n : index
  tile.store %t, %pc[%bm, %bn] : tensor<16x16xf32> -> !tile.partition_view<16x16xf32>
  return
}
func.func @along_y(%C: memref<?x?xf32>) attributes {tile.kernel} {
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<16x16xf32>
  %bid = tile.block_id y : index
  %n = tile.num_tiles %pc dim 1 : !tile.partition_view<16x16xf32>
  %bm = arith.divui %bid, %n : index
  %bn = arith.remui %bid, %n : index
  %t = arith.constant dense<1.0> : tensor<16x16xf32>
  tile.store %t, %pc[%bm, %bn] : tensor<16x16xf32> -> !tile.partition_view<16x16xf32>
  return
}
func.func @persistent_variant(%C: memref<?x?xf32>, %T: index) attributes {tile.kernel, tile.persistent} {
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<16x16xf32>
  %bid = tile.block_id x : index
  %n = tile.num_tiles %pc dim 1 : !tile.partition_view<16x16xf32>
  %bm = arith.divui %bid, %n : index
  %bn = arith.remui %bid, %n : index
  %t = arith.constant dense<1.0> : tensor<16x16xf32>
  tile.store %t, %pc[%bm, %bn] : tensor<16x16xf32> -> !tile.partition_view<16x16xf32>
  return
}

// -----

// A hand-written persistent loop over `m * n` tiles: the index the body
// reads is relabelled (no select: the loop's indices are all below m n).
// CHECK-LABEL: func.func @persistent
// CHECK: %[[M:.*]] = tile.num_tiles %{{.*}} dim 0
// CHECK: %[[N:.*]] = tile.num_tiles %{{.*}} dim 1
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: %[[C8:.*]] = arith.constant 8 : index
// CHECK: arith.divui %[[T]]
// CHECK: arith.subi %[[M]]
// CHECK: %[[AT:.*]] = arith.muli %{{.*}}, %[[N]] : index
// CHECK-NEXT: %[[GROUPED:.*]] = arith.addi %[[AT]], %{{.*}} : index
// CHECK-NEXT: %[[BM:.*]] = arith.divui %[[GROUPED]], %[[N]] : index
// CHECK-NEXT: %[[BN:.*]] = arith.remui %[[GROUPED]], %[[N]] : index
// CHECK-NEXT: tile.load %{{.*}}[%[[BM]], %[[BN]]]
// CHECK-NOT: arith.cmpi ult, %[[T]]
// CHECK: return
func.func @persistent(%A: memref<?x?xf32>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %pa = tile.partition_view %A : memref<?x?xf32> -> !tile.partition_view<16x16xf32>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<16x16xf32>
  %bid = tile.block_id x : index
  %blocks = tile.num_blocks x : index
  %m = tile.num_tiles %pc dim 0 : !tile.partition_view<16x16xf32>
  %n = tile.num_tiles %pc dim 1 : !tile.partition_view<16x16xf32>
  %tiles = arith.muli %m, %n : index
  // expected-remark @+1 {{the loop walks the tiles in groups of rows}}
  scf.for %t = %bid to %tiles step %blocks {
    %bm = arith.divui %t, %n : index
    %bn = arith.remui %t, %n : index
    %x = tile.load %pa[%bm, %bn] : !tile.partition_view<16x16xf32> -> tensor<16x16xf32>
    tile.store %x, %pc[%bm, %bn] : tensor<16x16xf32> -> !tile.partition_view<16x16xf32>
  }
  return
}

// -----

// Left alone: a loop that loads what it stores (its order may matter), one
// whose bound is not a multiple of the split's n, and one that starts at 0.
// CHECK-LABEL: func.func @in_place
// CHECK-NOT: arith.constant 8
// CHECK-LABEL: func.func @other_bound
// CHECK-NOT: arith.constant 8
// CHECK-LABEL: func.func @from_zero
// CHECK-NOT: arith.constant 8
// CHECK: return
func.func @in_place(%C: memref<?x?xf32>) attributes {tile.kernel} {
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<16x16xf32>
  %pc2 = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<16x16xf32>
  %bid = tile.block_id x : index
  %blocks = tile.num_blocks x : index
  %m = tile.num_tiles %pc dim 0 : !tile.partition_view<16x16xf32>
  %n = tile.num_tiles %pc dim 1 : !tile.partition_view<16x16xf32>
  %tiles = arith.muli %m, %n : index
  scf.for %t = %bid to %tiles step %blocks {
    %bm = arith.divui %t, %n : index
    %bn = arith.remui %t, %n : index
    %x = tile.load %pc2[%bm, %bn] : !tile.partition_view<16x16xf32> -> tensor<16x16xf32>
    tile.store %x, %pc[%bn, %bm] : tensor<16x16xf32> -> !tile.partition_view<16x16xf32>
  }
  return
}
func.func @other_bound(%A: memref<?x?xf32>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %pa = tile.partition_view %A : memref<?x?xf32> -> !tile.partition_view<16x16xf32>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<16x16xf32>
  %bid = tile.block_id x : index
  %blocks = tile.num_blocks x : index
  %m = tile.num_tiles %pc dim 0 : !tile.partition_view<16x16xf32>
  %n = tile.num_tiles %pc dim 1 : !tile.partition_view<16x16xf32>
  %tiles = arith.muli %m, %m : index
  scf.for %t = %bid to %tiles step %blocks {
    %bm = arith.divui %t, %n : index
    %bn = arith.remui %t, %n : index
    %x = tile.load %pa[%bm, %bn] : !tile.partition_view<16x16xf32> -> tensor<16x16xf32>
    tile.store %x, %pc[%bm, %bn] : tensor<16x16xf32> -> !tile.partition_view<16x16xf32>
  }
  return
}
func.func @from_zero(%A: memref<?x?xf32>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %pa = tile.partition_view %A : memref<?x?xf32> -> !tile.partition_view<16x16xf32>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<16x16xf32>
  %c0 = arith.constant 0 : index
  %blocks = tile.num_blocks x : index
  %m = tile.num_tiles %pc dim 0 : !tile.partition_view<16x16xf32>
  %n = tile.num_tiles %pc dim 1 : !tile.partition_view<16x16xf32>
  %tiles = arith.muli %m, %n : index
  scf.for %t = %c0 to %tiles step %blocks {
    %bm = arith.divui %t, %n : index
    %bn = arith.remui %t, %n : index
    %x = tile.load %pa[%bm, %bn] : !tile.partition_view<16x16xf32> -> tensor<16x16xf32>
    tile.store %x, %pc[%bm, %bn] : tensor<16x16xf32> -> !tile.partition_view<16x16xf32>
  }
  return
}

// -----

// Two block ids along x, only one of them split row-major: that one is
// relabelled, the other is not, and the kernel is marked 0 (its order is
// not one group's: tile-split-last-wave leaves it alone).
// CHECK-LABEL: func.func @partly
// CHECK-SAME: tile.grouped = 0 : i64
// CHECK: tile.num_blocks x
// expected-remark @+4 {{blocks walk the tiles in groups of rows}}
func.func @partly(%C: memref<?x?xf32>, %D: memref<?x?xf32>) attributes {tile.kernel} {
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<16x16xf32>
  %pd = tile.partition_view %D : memref<?x?xf32> -> !tile.partition_view<16x16xf32>
  %bid = tile.block_id x : index
  %n = tile.num_tiles %pc dim 1 : !tile.partition_view<16x16xf32>
  %bm = arith.divui %bid, %n : index
  %bn = arith.remui %bid, %n : index
  %t = arith.constant dense<1.0> : tensor<16x16xf32>
  tile.store %t, %pc[%bm, %bn] : tensor<16x16xf32> -> !tile.partition_view<16x16xf32>
  %c0 = arith.constant 0 : index
  %other = tile.block_id x : index
  tile.store %t, %pd[%other, %c0] : tensor<16x16xf32> -> !tile.partition_view<16x16xf32>
  return
}
