// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-prefetch-loads, tile-assign-layouts), tile-remove-layout-conversions, func.func(convert-tile-to-registers))' --remarks-filter=tile -verify-diagnostics -o /dev/null

// A loop's tile.mma that is waited for before the loop goes on says why,
// at the mma: here its accumulator is rescaled every iteration.
func.func @rescaled(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<32x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x32xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %half = arith.constant dense<0.5> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%in = %z) -> (tensor<64x64xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<32x64xf16> -> tensor<32x64xf16>
    %scaled = arith.mulf %in, %half : tensor<64x64xf32>
    // expected-remark @below {{this tile.mma is waited for before the loop goes on (not kept in flight): its accumulator is read by other ops than the next iteration's mma}}
    %d = tile.mma %a, %b, %scaled : tensor<64x32xf16>, tensor<32x64xf16> into tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// The plain GEMM loop keeps its mma in flight and says nothing.
func.func @plain(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
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
// -----

// tf32 with B loaded N-major, with swap_operands = 0: B is written from registers (two buffers
// would let the mma stay in flight), but beside B's buffers and the
// epilogue's exchange, A's ring has no room for the spare slot.
func.func @no_spare_slot(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) attributes {tile.kernel, tile.hints = {swap_operands = 0}} {
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
    // expected-remark @below {{operand B of this tile.mma is written to shared memory from registers at every mma}}
    // expected-remark @below {{this tile.mma is waited for before the loop goes on (not kept in flight): an operand is written in the loop while the mma could still read it (a ring without the spare slot)}}
    %d = tile.mma %a, %b, %in : tensor<128x64xf32>, tensor<64x128xf32> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}

// -----

// tf32 with B loaded N-major, 128 columns: the mma is computed transposed
// (B^T from registers, A read K-major where the ring holds it) and nothing
// is written from registers. wgmma reads B^T's registers while it runs,
// so the mma is waited for in its iteration (after the loads issued
// ahead), and says so.
func.func @tf32_swapped_loop(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) attributes {tile.kernel} {
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
    // expected-remark @below {{this tile.mma is waited for before the loop goes on (not kept in flight): its A operand is read from registers, which the loop overwrites for the next iteration; it is waited for at the end of the iteration, after the loads issued ahead}}
    %d = tile.mma %a, %b, %in : tensor<128x64xf32>, tensor<64x128xf32> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}

// -----

// f8 with B loaded N-major, written K-major (swap_operands = 0): B's two
// buffers and A's spare slot fit, so the mma stays in flight and nothing
// is said.
func.func @registers_in_flight(%A: memref<?x?xf8E4M3FN>, %B: memref<?x?xf8E4M3FN>, %C: memref<?x?xf32>) attributes {tile.kernel, tile.hints = {swap_operands = 0}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf8E4M3FN> -> !tile.partition_view<128x64xf8E4M3FN>
  %pb = tile.partition_view %B : memref<?x?xf8E4M3FN> -> !tile.partition_view<64x128xf8E4M3FN>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x64xf8E4M3FN>
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%in = %z) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<128x64xf8E4M3FN> -> tensor<128x64xf8E4M3FN>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<64x128xf8E4M3FN> -> tensor<64x128xf8E4M3FN>
    // expected-remark @below {{operand B of this tile.mma is written to shared memory from registers at every mma}}
    %d = tile.mma %a, %b, %in : tensor<128x64xf8E4M3FN>, tensor<64x128xf8E4M3FN> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}
