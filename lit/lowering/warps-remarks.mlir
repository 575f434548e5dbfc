// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-prefetch-loads, tile-assign-layouts), tile-remove-layout-conversions, tile-use-tma, func.func(convert-tile-to-registers))' --remarks-filter=tile -verify-diagnostics -o /dev/null

// A kernel that asks for a producer warp where its TMA variant cannot
// have one (an mma after the loop, at the kernel's top level) says so, at
// the kernel; the variant is still made, its consumers requesting the
// tiles.
// expected-remark @below {{this kernel asks for a producer warp (warp_specialize = 1), but not every shared tile is a TMA ring tile of a loop at the kernel's top level (or of one whose rings continue across such a loop) or a tile copied before its loops, or a tile.mma reads other operands than those and wgmma's A fragments in registers; its consumers request the tiles themselves}}
func.func @two_mmas(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>, %D: memref<?x?xf32>)
    attributes {tile.kernel, tile.hints = {warp_specialize = 1}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<32x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %pd = tile.partition_view %D : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x32xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc:2 = scf.for %k = %c0 to %nk step %c1 iter_args(%x = %z, %y = %z) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<32x64xf16> -> tensor<32x64xf16>
    %d = tile.mma %a, %b, %x : tensor<64x32xf16>, tensor<32x64xf16> into tensor<64x64xf32>
    %e = tile.mma %a, %b, %y : tensor<64x32xf16>, tensor<32x64xf16> into tensor<64x64xf32>
    scf.yield %d, %e : tensor<64x64xf32>, tensor<64x64xf32>
  }
  %a0 = tile.load %pa[%c0, %c0] : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
  %b0 = tile.load %pb[%c0, %c0] : !tile.partition_view<32x64xf16> -> tensor<32x64xf16>
  %g = tile.mma %a0, %b0, %acc#1 : tensor<64x32xf16>, tensor<32x64xf16> into tensor<64x64xf32>
  // expected-remark @below {{this tile is converted and stored by the threads, not staged for the TMA: a loop of this kernel holds several mmas, which measured slower with the TMA's store}}
  tile.store %acc#0, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  // expected-remark @below {{this tile is converted and stored by the threads, not staged for the TMA: a loop of this kernel holds several mmas, which measured slower with the TMA's store}}
  tile.store %g, %pd[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// A kernel whose variant gets the producer it asks for says nothing.
func.func @one_mma(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>)
    attributes {tile.kernel, tile.hints = {warp_specialize = 1}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<32x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x32xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%in = %z) -> (tensor<64x64xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<32x64xf16> -> tensor<32x64xf16>
    %d = tile.mma %a, %b, %in : tensor<64x32xf16>, tensor<32x64xf16> into tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}
