// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-prefetch-loads, tile-assign-layouts), tile-remove-layout-conversions, tile-use-tma, func.func(tile-persist-blocks, tile-stream-k))' | FileCheck %s

// A GEMM asked for persistent = 1 and stream_k = 1: the kernel is as
// written; its persistent TMA variant takes the workspace, the flags and
// the runtime's seven schedule numbers before the program's grid, and
// walks units carrying the ring position: its whole tiles (b + j G), then
// the pieces of the shared tiles its range covers. The K loop runs from 0
// over the unit's K tiles (the first ring tiles at its first, k0), marked
// tile.ring_base; the piece that starts its tile sums the others'
// partial tiles and stores, the others publish theirs.
// CHECK-LABEL: func.func @gemm(
// CHECK-NOT:     tile.stream_k
// CHECK:         return
// CHECK-LABEL: func.func @gemm__tma(
// CHECK-SAME:      %[[WS:[a-z0-9]+]]: memref<?xf32>, %[[FLAGS:[a-z0-9]+]]: memref<?xi32>, %[[D:[a-z0-9]+]]: index, %{{[a-z0-9]+}}: index, %{{[a-z0-9]+}}: index, %{{[a-z0-9]+}}: index, %{{[a-z0-9]+}}: index, %[[M:[a-z0-9]+]]: index, %[[S:[a-z0-9]+]]: index, %{{[a-z0-9]+}}: index)
// CHECK-SAME:      tile.persistent
// CHECK-SAME:      tile.stream_k = array<i64: 4096, 0, 1, 32>
// CHECK:         %[[B:.*]] = tile.block_id x
// CHECK:         arith.muli %{{.*}}, %[[M]]
// CHECK-NEXT:    arith.shrui %{{.*}}, %[[S]]
// CHECK-NOT:     arith.divui
// CHECK:         %{{.*}} = scf.for %{{.*}} = %{{.*}} to %[[UNITS:.*]] step %{{.*}} iter_args(%[[POS:.*]] = %{{.*}}) -> (index) {
// CHECK-NOT:       arith.divui
// CHECK:           %[[TILE:.*]] = arith.select
// CHECK:           %[[K0:.*]] = arith.select
// CHECK:           %[[K1:.*]] = arith.select
// CHECK:           %[[SPAN:.*]] = arith.subi %[[K1]], %[[K0]]
// CHECK:           %[[NEXT:.*]] = arith.addi %[[POS]], %[[SPAN]]
// CHECK:           tile.load %{{.*}}[%[[TILE]], %{{.*}}] {tile.ring = array<i64: 0, 2, 0, 4>
// CHECK:           scf.for %[[I:.*]] = %{{.*}} to %[[SPAN]] step
// CHECK-NEXT:        arith.addi %[[I]], %[[K0]]
// CHECK:           } {tile.ring_base = 0 : index}
// CHECK:           %[[OWNER:.*]] = arith.cmpi eq, %[[K0]]
// CHECK:           scf.if %[[OWNER]] {
// CHECK-NEXT:        %[[SUM:.*]] = tile.partial_sum %{{.*}}, %[[WS]][%{{.*}} to %{{.*}}], %[[FLAGS]]
// CHECK-NEXT:        tile.store %[[SUM]], {{.*}} {tile.tma_store
// CHECK-NEXT:      } else {
// CHECK-NEXT:        tile.partial_store %{{.*}}, %[[WS]][%[[B]]], %[[FLAGS]]
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.yield %[[NEXT]] : index
func.func @gemm(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel, tile.hints = {persistent = 1, stream_k = 1}} {
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
