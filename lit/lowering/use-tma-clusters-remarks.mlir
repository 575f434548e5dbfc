// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-widen-accumulators, tile-slice-clusters, tile-prefetch-loads, tile-assign-layouts), tile-remove-layout-conversions, tile-use-tma)' --remarks-filter=tile -verify-diagnostics -o /dev/null

// A sliced cluster whose B, read alike by both blocks, is not multicast
// says why at B's load: no producer warp (warp_specialize = 0).
// expected-remark@+1 {{each program block runs as a cluster of 2 blocks}}
func.func @no_producer(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>)
    attributes {tile.kernel, tile.hints = {num_ctas = 2 : i64, warp_specialize = 0 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<256x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<256x128xf32>
  %bm = tile.block_id x : index
  %bn = tile.block_id y : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<256x64xf16>
  %zero = arith.constant dense<0.0> : tensor<256x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %zero) -> (tensor<256x128xf32>) {
    // expected-remark @+1 {{go 1 iteration(s) ahead, not 2}}
    %a = tile.load %pa[%bm, %k] : !tile.partition_view<256x64xf16> -> tensor<256x64xf16>
  // expected-remark@+1 {{not once for all (multicast): the variant has no producer warp}}
    %b = tile.load %pb[%k, %bn] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %acc_in : tensor<256x64xf16>, tensor<64x128xf16> into tensor<256x128xf32>
    scf.yield %d : tensor<256x128xf32>
  }
  tile.store %acc, %pc[%bm, %bn] : tensor<256x128xf32> -> !tile.partition_view<256x128xf32>
  return
}

// -----

// A persistent kernel whose K loop's bound depends on the block.
// expected-remark@+1 {{each program block runs as a cluster of 2 blocks}}
func.func @causal_persistent(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>)
    attributes {tile.kernel, tile.hints = {num_ctas = 2 : i64, warp_specialize = 1 : i64, persistent = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<256x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<256x128xf32>
  %bm = tile.block_id x : index
  %last = arith.addi %bm, %c1 : index
  %zero = arith.constant dense<0.0> : tensor<256x128xf32>
  %acc = scf.for %k = %c0 to %last step %c1 iter_args(%acc_in = %zero) -> (tensor<256x128xf32>) {
    // expected-remark @+1 {{go 1 iteration(s) ahead, not 2}}
    %a = tile.load %pa[%bm, %k] : !tile.partition_view<256x64xf16> -> tensor<256x64xf16>
  // expected-remark@+1 {{not once for all (multicast): its loop would start the ring again in each walk of the persistent kernel}}
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %acc_in : tensor<256x64xf16>, tensor<64x128xf16> into tensor<256x128xf32>
    scf.yield %d : tensor<256x128xf32>
  }
  tile.store %acc, %pc[%bm, %c0] : tensor<256x128xf32> -> !tile.partition_view<256x128xf32>
  return
}
