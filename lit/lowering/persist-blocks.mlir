// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-prefetch-loads, tile-assign-layouts), tile-remove-layout-conversions, tile-use-tma, func.func(tile-persist-blocks))' | FileCheck %s

// A GEMM asked for persistent = 1: the kernel keeps one tile a block; its
// TMA variant takes the program's grid as a last argument and walks the
// virtual blocks from its block id by the blocks launched, the program's
// body (its first ring loads, the K loop, the store) the loop's, the block
// id the loop's index. What does not depend on the block (the views, the
// tile count, constants) stays before the loop, so that the K loop has
// the same bounds in every walk.
// CHECK-LABEL: func.func @gemm(
// CHECK-NOT:     tile.persistent
// CHECK:         %[[BID:.*]] = tile.block_id x
// CHECK-NOT:     tile.num_blocks
// CHECK:         tile.load %{{.*}}[%[[BID]], %{{.*}}]
// CHECK:         return
// CHECK-LABEL: func.func @gemm__tma(
// CHECK-SAME:      %[[GRID:[a-z0-9]+]]: index)
// CHECK-SAME:      tile.persistent
// CHECK:         %[[B:.*]] = tile.block_id x
// CHECK-NEXT:    %[[G:.*]] = tile.num_blocks x
// CHECK-NOT:     tile.load
// CHECK:         %[[NK:.*]] = tile.num_tiles
// CHECK-NEXT:    scf.for %[[V:.*]] = %[[B]] to %[[GRID]] step %[[G]] {
// CHECK-NOT:       tile.partition_view
// CHECK:           tile.load %{{.*}}[%[[V]], %{{.*}}] {tile.ring = array<i64: 0, 2, 0, 4>, tile.tma_load
// CHECK:           scf.for %{{.*}} = %{{.*}} to %[[NK]] step
// CHECK:           tile.store {{.*}}[%[[V]], %{{.*}}] {tile.tma_store
// CHECK:         return
func.func @gemm(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel, tile.hints = {persistent = 1}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<32x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %bid = tile.block_id x : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x32xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%in = %z) -> (tensor<64x64xf32>) {
    %a = tile.load %pa[%bid, %k] : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<32x64xf16> -> tensor<32x64xf16>
    %d = tile.mma %a, %b, %in : tensor<64x32xf16>, tensor<32x64xf16> into tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %acc, %pc[%bid, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// Without the hint, or for a program that walks its tiles itself, the
// variant is left as it is.
// CHECK-LABEL: func.func @unasked__tma(
// CHECK-NOT:     tile.persistent
// CHECK-NOT:     tile.num_blocks
// CHECK:         return
// CHECK-LABEL: func.func @walks__tma(
// CHECK-NOT:     tile.persistent
// CHECK:         tile.num_blocks x
// CHECK-NOT:     tile.num_blocks
// CHECK:         return
func.func @unasked(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<32x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %bid = tile.block_id x : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x32xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%in = %z) -> (tensor<64x64xf32>) {
    %a = tile.load %pa[%bid, %k] : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<32x64xf16> -> tensor<32x64xf16>
    %d = tile.mma %a, %b, %in : tensor<64x32xf16>, tensor<32x64xf16> into tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %acc, %pc[%bid, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}
func.func @walks(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel, tile.hints = {persistent = 1}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<32x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %bid = tile.block_id x : index
  %nb = tile.num_blocks x : index
  %tiles = tile.num_tiles %pc dim 0 : !tile.partition_view<64x64xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x32xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  scf.for %t = %bid to %tiles step %nb {
    %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%in = %z) -> (tensor<64x64xf32>) {
      %a = tile.load %pa[%t, %k] : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
      %b = tile.load %pb[%k, %c0] : !tile.partition_view<32x64xf16> -> tensor<32x64xf16>
      %d = tile.mma %a, %b, %in : tensor<64x32xf16>, tensor<32x64xf16> into tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    tile.store %acc, %pc[%t, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  }
  return
}
