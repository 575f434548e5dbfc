// RUN: tile-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(convert-tile-to-registers))'

// A layout written by hand that gives some elements to no thread (two lane
// bases alike) is refused at the op, not miscompiled.
#l = #tile.linear<register = [[0, 1], [0, 2]], lane = [[0, 4], [0, 4], [0, 8], [0, 16], [1, 0]], warp = []>
func.func @gaps(%X: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %px = tile.partition_view %X : memref<?x?xf32> -> !tile.partition_view<2x32xf32>
  // expected-error @+1 {{leaves elements to no thread, has a basis of several bits, or spans more warps}}
  %x = tile.load %px[%c0, %c0] : !tile.partition_view<2x32xf32> -> tensor<2x32xf32, #l>
  tile.store %x, %px[%c0, %c0] : tensor<2x32xf32, #l> -> !tile.partition_view<2x32xf32>
  return
}

// -----

// So is a basis of several bits (a swizzle: a shared-memory layout).
#s = #tile.linear<register = [[0, 1], [0, 2]], lane = [[0, 4], [0, 8], [0, 16], [1, 0], [0, 3]], warp = []>
func.func @swizzled(%X: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %px = tile.partition_view %X : memref<?x?xf32> -> !tile.partition_view<2x32xf32>
  // expected-error @+1 {{leaves elements to no thread, has a basis of several bits, or spans more warps}}
  %x = tile.load %px[%c0, %c0] : !tile.partition_view<2x32xf32> -> tensor<2x32xf32, #s>
  tile.store %x, %px[%c0, %c0] : tensor<2x32xf32, #s> -> !tile.partition_view<2x32xf32>
  return
}

// -----

// So is a layout over more warps than the kernel's block has (two warps,
// a block of 32 threads).
#w = #tile.blocked<size_per_thread = [4], threads_per_warp = [32], warps_per_block = [2], order = [0]>
func.func @warps(%X: memref<?xf32>) attributes {tile.kernel, tile.block_size = 32 : i64} {
  %c0 = arith.constant 0 : index
  %px = tile.partition_view %X : memref<?xf32> -> !tile.partition_view<256xf32>
  // expected-error @+1 {{spans more warps than the kernel's blocks have}}
  %x = tile.load %px[%c0] : !tile.partition_view<256xf32> -> tensor<256xf32, #w>
  tile.store %x, %px[%c0] : tensor<256xf32, #w> -> !tile.partition_view<256xf32>
  return
}
