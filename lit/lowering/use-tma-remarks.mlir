// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-prefetch-loads, tile-assign-layouts), tile-remove-layout-conversions, tile-use-tma)' --remarks-filter=tile -verify-diagnostics -o /dev/null

// A view padded with NaN: the TMA fills with zeros, so the threads copy.
func.func @nan_padding(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16, padding = nan>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<32x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x32xf16, padding = nan>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%in = %z) -> (tensor<64x64xf32>) {
    // expected-remark @below {{this ring of mma operand tiles is filled by cp.async copies, not the TMA: its view pads with other values than zero, and the TMA fills with zeros}}
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<64x32xf16, padding = nan> -> tensor<64x32xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<32x64xf16> -> tensor<32x64xf16>
    %d = tile.mma %a, %b, %in : tensor<64x32xf16>, tensor<32x64xf16> into tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// A tile whose rows are 16 bytes (8 f16 columns) cuts into no TMA box (the
// narrowest swizzled row is 32 bytes): the threads store it, and say why.
func.func @narrow_output(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x8xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<64x8xf16>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x64xf16>
  %z = arith.constant dense<0.0> : tensor<64x8xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%in = %z) -> (tensor<64x8xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    // expected-remark @below {{these mma operand tiles are loaded into registers by the threads, not the TMA: they are not kept in shared memory}}
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<64x8xf16> -> tensor<64x8xf16>
    // expected-remark @below {{operand B of this tile.mma is written to shared memory from registers at every mma, not loaded there: its loaded rows are 16 bytes (wgmma's swizzles take 32, 64 or 128)}}
    %d = tile.mma %a, %b, %in : tensor<64x64xf16>, tensor<64x8xf16> into tensor<64x8xf32>
    scf.yield %d : tensor<64x8xf32>
  }
  %o = arith.truncf %acc : tensor<64x8xf32> to tensor<64x8xf16>
  // expected-remark @below {{this tile is converted and stored by the threads, not staged for the TMA: its tile is not rows of whole bytes, at most 256 of them, each a whole number of 32-, 64- or 128-byte box rows, with leading dims of 1}}
  tile.store %o, %pc[%c0, %c0] : tensor<64x8xf16> -> !tile.partition_view<64x8xf16>
  return
}

// -----

// A loop of two mmas (attention's shape): its stores stay the threads'.
func.func @two_mmas(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %E: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<32x64xf16>
  %pe = tile.partition_view %E : memref<?x?xf16> -> !tile.partition_view<32x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x32xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc:2 = scf.for %k = %c0 to %nk step %c1 iter_args(%x = %z, %y = %z) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<32x64xf16> -> tensor<32x64xf16>
    %e = tile.load %pe[%k, %c0] : !tile.partition_view<32x64xf16> -> tensor<32x64xf16>
    %d1 = tile.mma %a, %b, %x : tensor<64x32xf16>, tensor<32x64xf16> into tensor<64x64xf32>
    %d2 = tile.mma %a, %e, %y : tensor<64x32xf16>, tensor<32x64xf16> into tensor<64x64xf32>
    scf.yield %d1, %d2 : tensor<64x64xf32>, tensor<64x64xf32>
  }
  %sum = arith.addf %acc#0, %acc#1 : tensor<64x64xf32>
  // expected-remark @below {{this tile is converted and stored by the threads, not staged for the TMA: a loop of this kernel holds several mmas, which measured slower with the TMA's store}}
  tile.store %sum, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// tf32 with B loaded N-major: the mma is computed transposed, and the
// threads read B^T's fragments from B's ring; both rings are the TMA's
// (no remark).
func.func @tf32_swapped(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf32> -> !tile.partition_view<128x64xf32>
  %pb = tile.partition_view %B : memref<?x?xf32> -> !tile.partition_view<64x128xf32>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x64xf32>
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%in = %z) -> (tensor<128x128xf32>) {
    // expected-remark @+1 {{go 1 iteration(s) ahead, not 2}}
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<128x64xf32> -> tensor<128x64xf32>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<64x128xf32> -> tensor<64x128xf32>
    %d = tile.mma %a, %b, %in : tensor<128x64xf32>, tensor<64x128xf32> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}

// -----

// Knobs that the TMA variant leaves as if unset where tile-split-k and
// tile-slice-clusters did not apply them (neither runs here): said at the kernel
// (the variant is its copy), once for all (persistent = 1 is
// tile-persist-blocks', after this pass).
// expected-remark@+1 {{the TMA variant of this kernel leaves split_k = 2 (one block a tile's K loop) as if unset}}
func.func @unapplied_knobs(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel, tile.hints = {persistent = 1, split_k = 2}} {
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

