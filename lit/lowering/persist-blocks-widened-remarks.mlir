// RUN: tile-opt %s --pass-pipeline='builtin.module(tile-widen-blocks, func.func(tile-prefetch-loads, tile-assign-layouts), tile-remove-layout-conversions, tile-use-tma, tile-finish-widening, func.func(tile-persist-blocks))' --remarks-filter=tile -verify-diagnostics -o /dev/null

// A widened instance (tile-widen-blocks: two program tiles a block) is
// not made persistent, nor is a narrowed one (a quarter of a program tile
// a block); their own TMA variants say so, although the remarks of a
// widened instance's ops are not repeated.
// expected-remark@+4 {{a variant's blocks each compute a quarter of the program's 128x128 output tiles (64x64), for launches of one block per tile too few to fill the GPU}}
// expected-remark@+3 {{a variant's blocks each compute two of the program's 128x128 output tiles (128x256), for launches of one block per tile}}
// expected-remark@+2 {{variant @wide__narrow__tma keeps one tile a block (persistent = 1 not applied): its blocks compute other tiles than the program's (tile.retiled: several, or part of one)}}
// expected-remark@+1 {{variant @wide__wide__tma keeps one tile a block (persistent = 1 not applied): its blocks compute other tiles than the program's (tile.retiled: several, or part of one)}}
func.func @wide(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) attributes {tile.kernel, tile.hints = {persistent = 1}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<128x128xf16>
  %bid = tile.block_id x : index
  %tiles_n = tile.num_tiles %pc dim 1 : !tile.partition_view<128x128xf16>
  %bm = arith.divui %bid, %tiles_n : index
  %bn = arith.remui %bid, %tiles_n : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x64xf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%in = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%bm, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %b = tile.load %pb[%k, %bn] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %in : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %out = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xf16>
  tile.store %out, %pc[%bm, %bn] : tensor<128x128xf16> -> !tile.partition_view<128x128xf16>
  return
}
