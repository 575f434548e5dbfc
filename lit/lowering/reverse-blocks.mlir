// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-reverse-blocks))' | FileCheck %s
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-reverse-blocks))' --remarks-filter=tile -verify-diagnostics -o /dev/null

// Causal attention's loop: block x walks the key tiles up to its diagonal,
// min(tiles, 2 (x + 1)) of them. The id becomes P - 1 - x, so the blocks
// with the longest loops start first; every use reads it.
// CHECK-LABEL: func.func @causal
// CHECK:         %[[X:.*]] = tile.block_id x : index
// CHECK-NEXT:    %[[P:.*]] = tile.num_blocks x : index
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[P1:.*]] = arith.subi %[[P]], %[[ONE]] : index
// CHECK-NEXT:    %[[R:.*]] = arith.subi %[[P1]], %[[X]] : index
// CHECK:         arith.addi %[[R]], %{{.*}} : index
// CHECK:         scf.for
// CHECK:           tile.load %{{.*}}[%[[R]], %{{.*}}]
// CHECK:         tile.store %{{.*}}, %{{.*}}[%[[R]], %{{.*}}]
func.func @causal(%A: memref<?x64xf32>, %B: memref<?x64xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %pa = tile.partition_view %A : memref<?x64xf32> -> !tile.partition_view<64x64xf32>
  %pb = tile.partition_view %B : memref<?x64xf32> -> !tile.partition_view<64x64xf32>
  // expected-remark @below {{blocks run in reverse order of this id: a loop runs longer the larger it is, so the longest blocks start first}}
  %x = tile.block_id x : index
  %tiles = tile.num_tiles %pa dim 0 : !tile.partition_view<64x64xf32>
  %next = arith.addi %x, %c1 : index
  %diagonal = arith.muli %next, %c2 : index
  %last = arith.minui %tiles, %diagonal : index
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %sum = scf.for %j = %c0 to %last step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32>) {
    %a = tile.load %pa[%x, %c0] : !tile.partition_view<64x64xf32> -> tensor<64x64xf32>
    %s = arith.addf %acc, %a : tensor<64x64xf32>
    scf.yield %s : tensor<64x64xf32>
  }
  tile.store %sum, %pb[%x, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// A loop whose bound does not depend on the id (attention without the
// mask), or shrinks as it grows: the order stays.
// CHECK-LABEL: func.func @same_length
// CHECK-NOT:     tile.num_blocks
// CHECK-LABEL: func.func @shorter
// CHECK-NOT:     tile.num_blocks
// CHECK:         return
func.func @same_length(%A: memref<?x64xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x64xf32> -> !tile.partition_view<64x64xf32>
  %x = tile.block_id x : index
  %tiles = tile.num_tiles %pa dim 0 : !tile.partition_view<64x64xf32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %sum = scf.for %j = %c0 to %tiles step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32>) {
    %a = tile.load %pa[%j, %c0] : !tile.partition_view<64x64xf32> -> tensor<64x64xf32>
    %s = arith.addf %acc, %a : tensor<64x64xf32>
    scf.yield %s : tensor<64x64xf32>
  }
  tile.store %sum, %pa[%x, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

func.func @shorter(%A: memref<?x64xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x64xf32> -> !tile.partition_view<64x64xf32>
  %x = tile.block_id x : index
  %tiles = tile.num_tiles %pa dim 0 : !tile.partition_view<64x64xf32>
  %left = arith.subi %tiles, %x : index
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %sum = scf.for %j = %c0 to %left step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32>) {
    %a = tile.load %pa[%j, %c0] : !tile.partition_view<64x64xf32> -> tensor<64x64xf32>
    %s = arith.addf %acc, %a : tensor<64x64xf32>
    scf.yield %s : tensor<64x64xf32>
  }
  tile.store %sum, %pa[%x, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// An id split row-major into tile coordinates is tile-group-blocks'
// relabelling, even with a loop that grows with it.
// CHECK-LABEL: func.func @split
// CHECK-NOT:     tile.num_blocks
// CHECK:         return
func.func @split(%A: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %x = tile.block_id x : index
  %n = tile.num_tiles %pa dim 1 : !tile.partition_view<64x64xf32>
  %row = arith.divui %x, %n : index
  %col = arith.remui %x, %n : index
  %last = arith.addi %x, %c1 : index
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %sum = scf.for %j = %c0 to %last step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32>) {
    %a = tile.load %pa[%row, %j] : !tile.partition_view<64x64xf32> -> tensor<64x64xf32>
    %s = arith.addf %acc, %a : tensor<64x64xf32>
    scf.yield %s : tensor<64x64xf32>
  }
  tile.store %sum, %pa[%row, %col] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}
