// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-defer-reductions))' | FileCheck %s

// A loop that sums the column sums of its tiles sums the tiles instead
// (from zeros) and reduces once after the loop; the old accumulator passes
// through and takes the reduction at the end.
// CHECK-LABEL: func.func @columns
// CHECK: %[[INIT:.*]] = arith.constant dense<0.000000e+00> : tensor<128xf32>
// CHECK: %[[ZEROS:.*]] = arith.constant dense<0.000000e+00> : tensor<64x128xf32>
// CHECK: %[[L:.*]]:2 = scf.for %{{.*}} iter_args(%[[ACC:.*]] = %[[INIT]], %[[RUNNING:.*]] = %[[ZEROS]]) -> (tensor<128xf32>, tensor<64x128xf32>) {
// CHECK-NEXT:   %[[X:.*]] = tile.load
// CHECK-NEXT:   %[[NEXT:.*]] = arith.addf %[[RUNNING]], %[[X]] : tensor<64x128xf32>
// CHECK-NEXT:   scf.yield %[[ACC]], %[[NEXT]] : tensor<128xf32>, tensor<64x128xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[P:.*]] = tile.reduce add %[[L]]#1 dim 0
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[L]]#0, %[[P]] : tensor<128xf32>
// CHECK-NEXT: tile.store %[[S]]
func.func @columns(%X: memref<?x?xf32>, %S: memref<?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %px = tile.partition_view %X : memref<?x?xf32> -> !tile.partition_view<64x128xf32>
  %ps = tile.partition_view %S : memref<?xf32> -> !tile.partition_view<128xf32>
  %j = tile.block_id x : index
  %rows = tile.num_tiles %px dim 0 : !tile.partition_view<64x128xf32>
  %init = arith.constant dense<0.0> : tensor<128xf32>
  %sum = scf.for %i = %c0 to %rows step %c1 iter_args(%acc = %init) -> (tensor<128xf32>) {
    %x = tile.load %px[%i, %j] : !tile.partition_view<64x128xf32> -> tensor<64x128xf32>
    %part = tile.reduce add %x dim 0 : tensor<64x128xf32> -> tensor<128xf32>
    %next = arith.addf %acc, %part : tensor<128xf32>
    scf.yield %next : tensor<128xf32>
  }
  tile.store %sum, %ps[%j] : tensor<128xf32> -> !tile.partition_view<128xf32>
  return
}

// -----

// Integer sums, the reduction first in the add, a computed tile, and a
// second carried value the pass leaves alone.
// CHECK-LABEL: func.func @squares
// CHECK: scf.for %{{.*}} iter_args(%[[N:.*]] = %{{.*}}, %[[ACC:.*]] = %{{.*}}, %[[RUNNING:.*]] = %{{.*}}) -> (index, tensor<16xi32>, tensor<16x16xi32>) {
// CHECK:   %[[SQ:.*]] = arith.muli
// CHECK:   %[[NEXT:.*]] = arith.addi %[[SQ]], %[[RUNNING]] : tensor<16x16xi32>
// CHECK:   scf.yield %{{.*}}, %[[ACC]], %[[NEXT]] :
// CHECK: %[[P:.*]] = tile.reduce add %{{.*}}#2 dim 1
// CHECK: arith.addi %[[P]], %{{.*}}#1 : tensor<16xi32>
func.func @squares(%X: memref<?x?xi32>, %S: memref<?xi32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %px = tile.partition_view %X : memref<?x?xi32> -> !tile.partition_view<16x16xi32>
  %ps = tile.partition_view %S : memref<?xi32> -> !tile.partition_view<16xi32>
  %j = tile.block_id x : index
  %cols = tile.num_tiles %px dim 1 : !tile.partition_view<16x16xi32>
  %init = arith.constant dense<0> : tensor<16xi32>
  %r:2 = scf.for %i = %c0 to %cols step %c1 iter_args(%n = %c0, %acc = %init) -> (index, tensor<16xi32>) {
    %x = tile.load %px[%j, %i] : !tile.partition_view<16x16xi32> -> tensor<16x16xi32>
    %sq = arith.muli %x, %x : tensor<16x16xi32>
    %part = tile.reduce add %sq dim 1 : tensor<16x16xi32> -> tensor<16xi32>
    %next = arith.addi %part, %acc : tensor<16xi32>
    %n1 = arith.addi %n, %c1 : index
    scf.yield %n1, %next : index, tensor<16xi32>
  }
  tile.store %r#1, %ps[%j] : tensor<16xi32> -> !tile.partition_view<16xi32>
  return
}

// -----

// Left alone: a running max, an accumulator read twice, and a tile too
// large to carry a copy of in registers.
// CHECK-LABEL: func.func @not_sums
// CHECK: scf.for %{{.*}} -> (tensor<128xf32>) {
// CHECK:   tile.reduce max
// CHECK: scf.for %{{.*}} -> (tensor<128xf32>) {
// CHECK:   tile.reduce add
// CHECK: scf.for %{{.*}} -> (tensor<128xf32>) {
// CHECK:   tile.reduce add %{{.*}} dim 0 : tensor<128x128xf32>
// CHECK-NOT: scf.for
func.func @not_sums(%X: memref<?x?xf32>, %S: memref<?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %px = tile.partition_view %X : memref<?x?xf32> -> !tile.partition_view<64x128xf32>
  %pw = tile.partition_view %X : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %ps = tile.partition_view %S : memref<?xf32> -> !tile.partition_view<128xf32>
  %j = tile.block_id x : index
  %rows = tile.num_tiles %px dim 0 : !tile.partition_view<64x128xf32>
  %init = arith.constant dense<0.0> : tensor<128xf32>
  %m = scf.for %i = %c0 to %rows step %c1 iter_args(%acc = %init) -> (tensor<128xf32>) {
    %x = tile.load %px[%i, %j] : !tile.partition_view<64x128xf32> -> tensor<64x128xf32>
    %part = tile.reduce max %x dim 0 : tensor<64x128xf32> -> tensor<128xf32>
    %next = arith.maximumf %acc, %part : tensor<128xf32>
    scf.yield %next : tensor<128xf32>
  }
  %t = scf.for %i = %c0 to %rows step %c1 iter_args(%acc = %init) -> (tensor<128xf32>) {
    %x = tile.load %px[%i, %j] : !tile.partition_view<64x128xf32> -> tensor<64x128xf32>
    %part = tile.reduce add %x dim 0 : tensor<64x128xf32> -> tensor<128xf32>
    %twice = arith.addf %acc, %acc : tensor<128xf32>
    %next = arith.addf %twice, %part : tensor<128xf32>
    scf.yield %next : tensor<128xf32>
  }
  %w = scf.for %i = %c0 to %rows step %c1 iter_args(%acc = %init) -> (tensor<128xf32>) {
    %x = tile.load %pw[%i, %j] : !tile.partition_view<128x128xf32> -> tensor<128x128xf32>
    %part = tile.reduce add %x dim 0 : tensor<128x128xf32> -> tensor<128xf32>
    %next = arith.addf %acc, %part : tensor<128xf32>
    scf.yield %next : tensor<128xf32>
  }
  %mt = arith.addf %m, %t : tensor<128xf32>
  %all = arith.addf %mt, %w : tensor<128xf32>
  tile.store %all, %ps[%j] : tensor<128xf32> -> !tile.partition_view<128xf32>
  return
}
