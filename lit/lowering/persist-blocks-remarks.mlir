// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-prefetch-loads, tile-assign-layouts), tile-remove-layout-conversions, tile-use-tma, func.func(tile-persist-blocks))' --remarks-filter=tile -verify-diagnostics -o /dev/null

// A program of a 2-D grid: the runtime's persistent launch walks a 1-D
// grid, so the variant keeps one tile a block, and says so.
// expected-remark@+1 {{variant @two_axes__tma keeps one tile a block (persistent = 1 not applied): its program uses a grid of more than one dimension}}
func.func @two_axes(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel, tile.hints = {persistent = 1}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<32x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %bm = tile.block_id x : index
  %bn = tile.block_id y : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x32xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%in = %z) -> (tensor<64x64xf32>) {
    %a = tile.load %pa[%bm, %k] : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
    %b = tile.load %pb[%k, %bn] : !tile.partition_view<32x64xf16> -> tensor<32x64xf16>
    %d = tile.mma %a, %b, %in : tensor<64x32xf16>, tensor<32x64xf16> into tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %acc, %pc[%bm, %bn] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}
