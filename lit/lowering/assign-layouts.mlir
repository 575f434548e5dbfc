// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-assign-layouts))' | FileCheck %s

// A row kernel: the load is coalesced (8 f16 a thread, 16 bytes), the
// reduction yields the slice of its operand's layout, the broadcast takes
// its user's layout, and the block size comes from the tile (2 KiB of f32
// at 64 bytes a thread: 64 threads).
// CHECK-LABEL: func.func @row
// CHECK-SAME: tile.block_size = 64 : i64
// CHECK: tile.load {{.*}} -> tensor<1x1024xf16, #tile.blocked<size_per_thread = [1, 8], threads_per_warp = [1, 32], warps_per_block = [1, 2], order = [1, 0]>>
// CHECK: arith.extf {{.*}} to tensor<1x1024xf32, #tile.blocked<size_per_thread = [1, 8], threads_per_warp = [1, 32], warps_per_block = [1, 2], order = [1, 0]>>
// CHECK: tile.reduce max {{.*}} -> tensor<1xf32, #tile.slice<dim = 1, parent = #tile.blocked<size_per_thread = [1, 8], threads_per_warp = [1, 32], warps_per_block = [1, 2], order = [1, 0]>>>
// CHECK: tile.reshape {{.*}} -> tensor<1x1xf32, #tile.linear<
// CHECK: tile.broadcast {{.*}} -> tensor<1x1024xf32, #tile.blocked<size_per_thread = [1, 8], threads_per_warp = [1, 32], warps_per_block = [1, 2], order = [1, 0]>>
// CHECK-NOT: tile.convert_layout
// CHECK: tile.store
func.func @row(%X: memref<?x1024xf16>, %Y: memref<?x1024xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %px = tile.partition_view %X : memref<?x1024xf16> -> !tile.partition_view<1x1024xf16>
  %py = tile.partition_view %Y : memref<?x1024xf16> -> !tile.partition_view<1x1024xf16>
  %r = tile.block_id x : index
  %xio = tile.load %px[%r, %c0] : !tile.partition_view<1x1024xf16> -> tensor<1x1024xf16>
  %x = arith.extf %xio : tensor<1x1024xf16> to tensor<1x1024xf32>
  %m = tile.reduce max %x dim 1 : tensor<1x1024xf32> -> tensor<1xf32>
  %m1 = tile.reshape %m : tensor<1xf32> -> tensor<1x1xf32>
  %mb = tile.broadcast %m1 : tensor<1x1xf32> -> tensor<1x1024xf32>
  %y = arith.subf %x, %mb : tensor<1x1024xf32>
  %yio = arith.truncf %y : tensor<1x1024xf32> to tensor<1x1024xf16>
  tile.store %yio, %py[%r, %c0] : tensor<1x1024xf16> -> !tile.partition_view<1x1024xf16>
  return
}

// -----

// Splats and constants have no layout of their own: they take their
// users'. A column sum's slice meets the store's coalesced 1-D layout in
// a conversion; the loop's carried tile, its init and its result share one
// layout.
// CHECK-LABEL: func.func @columns
// CHECK: arith.constant dense<0.000000e+00> : tensor<128xf32, #tile.slice<dim = 0,
// CHECK: scf.for {{.*}} -> (tensor<128xf32, #tile.slice<dim = 0,
// CHECK:   tile.load {{.*}} -> tensor<64x128xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [1, 32], warps_per_block = [16, 1], order = [1, 0]>>
// CHECK:   tile.reduce add {{.*}} -> tensor<128xf32, #tile.slice<dim = 0,
// CHECK:   arith.addf {{.*}} : tensor<128xf32, #tile.slice<dim = 0,
// CHECK: tile.convert_layout {{.*}} -> tensor<128xf32, #tile.blocked<size_per_thread = [4], threads_per_warp = [32], warps_per_block = [16], order = [0]>>
// CHECK: tile.store
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

// An element-wise kernel: one layout throughout, a splat takes it too.
// CHECK-LABEL: func.func @scale
// CHECK-SAME: tile.block_size = 256 : i64
// CHECK: tile.splat {{.*}} -> tensor<4096xf32, #tile.blocked<size_per_thread = [4], threads_per_warp = [32], warps_per_block = [8], order = [0]>>
// CHECK: arith.mulf {{.*}} : tensor<4096xf32, #tile.blocked<size_per_thread = [4], threads_per_warp = [32], warps_per_block = [8], order = [0]>>
// CHECK-NOT: tile.convert_layout
func.func @scale(%X: memref<?xf32>, %Y: memref<?xf32>, %a: f32) attributes {tile.kernel} {
  %px = tile.partition_view %X : memref<?xf32> -> !tile.partition_view<4096xf32>
  %py = tile.partition_view %Y : memref<?xf32> -> !tile.partition_view<4096xf32>
  %i = tile.block_id x : index
  %x = tile.load %px[%i] : !tile.partition_view<4096xf32> -> tensor<4096xf32>
  %s = tile.splat %a : f32 -> tensor<4096xf32>
  %y = arith.mulf %x, %s : tensor<4096xf32>
  tile.store %y, %py[%i] : tensor<4096xf32> -> !tile.partition_view<4096xf32>
  return
}

// -----

// A transpose: the permuted layout meets the store's coalesced one.
// CHECK-LABEL: func.func @transpose
// CHECK: tile.permute {{.*}} -> tensor<64x32xf32, #tile.linear<
// CHECK: tile.convert_layout {{.*}} -> tensor<64x32xf32, #tile.blocked<
// CHECK: tile.store
func.func @transpose(%X: memref<?x?xf32>, %Y: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %px = tile.partition_view %X : memref<?x?xf32> -> !tile.partition_view<32x64xf32>
  %py = tile.partition_view %Y : memref<?x?xf32> -> !tile.partition_view<64x32xf32>
  %x = tile.load %px[%c0, %c0] : !tile.partition_view<32x64xf32> -> tensor<32x64xf32>
  %t = tile.permute %x [1, 0] : tensor<32x64xf32> -> tensor<64x32xf32>
  tile.store %t, %py[%c0, %c0] : tensor<64x32xf32> -> !tile.partition_view<64x32xf32>
  return
}

// -----

// A tile.mma anchors the wgmma accumulator layout (one warpgroup a 64 rows
// of the smallest mma, here one: 128 threads) on its result and its
// accumulator (the zero constant takes it); its operands, loaded only for
// it, stay in shared memory, swizzled by their rows' bytes (A's 32, B's
// 128: B is N-major); the store gets the coalesced layout through a
// conversion.
// CHECK-LABEL: func.func @mm
// CHECK-SAME: tile.block_size = 128
// CHECK: %[[A:.*]] = tile.load {{.*}} -> tensor<64x16xf16, #tile.shared<swizzle_bytes = 32, element_bits = 16, transposed = false>>
// CHECK: tile.load {{.*}} -> tensor<16x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>>
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>
// CHECK: %[[D:.*]] = tile.mma %[[A]], %{{.*}}, %[[Z]] : {{.*}} into tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>
// CHECK: tile.convert_layout %[[D]] : {{.*}} -> tensor<64x64xf32, #tile.blocked<
func.func @mm(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x16xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<16x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<64x16xf16> -> tensor<64x16xf16>
  %b = tile.load %pb[%c0, %c0] : !tile.partition_view<16x64xf16> -> tensor<16x64xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.mma %a, %b, %z : tensor<64x16xf16>, tensor<16x64xf16> into tensor<64x64xf32>
  tile.store %d, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// An mma the register path cannot put on wgmma (an f16 accumulator) keeps
// the kernel on the general path: unchanged.
// CHECK-LABEL: func.func @mm_f16
// CHECK-NOT: tile.block_size
// CHECK-NOT: #tile.
// CHECK: tile.mma {{.*}} : tensor<64x16xf16>, tensor<16x64xf16> into tensor<64x64xf16>
func.func @mm_f16(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x16xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<16x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<64x16xf16> -> tensor<64x16xf16>
  %b = tile.load %pb[%c0, %c0] : !tile.partition_view<16x64xf16> -> tensor<16x64xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf16>
  %d = tile.mma %a, %b, %z : tensor<64x16xf16>, tensor<16x64xf16> into tensor<64x64xf16>
  tile.store %d, %pc[%c0, %c0] : tensor<64x64xf16> -> !tile.partition_view<64x64xf16>
  return
}

// -----

// With a `num_ctas = 2` hint the tile block runs as a cluster of two
// blocks: the same 256 threads for the 16 KiB row, 128 a block, and the
// layouts' eight warps span the cluster.
// CHECK-LABEL: func.func @cluster
// CHECK-SAME: tile.block_size = 128 : i64
// CHECK-SAME: tile.cluster = 2 : i64
// CHECK: tile.load {{.*}} -> tensor<1x4096xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [1, 32], warps_per_block = [1, 8], order = [1, 0]>>
func.func @cluster(%X: memref<?x4096xf32>, %Y: memref<?x4096xf32>) attributes {tile.kernel, tile.hints = {num_ctas = 2}} {
  %c0 = arith.constant 0 : index
  %px = tile.partition_view %X : memref<?x4096xf32> -> !tile.partition_view<1x4096xf32>
  %py = tile.partition_view %Y : memref<?x4096xf32> -> !tile.partition_view<1x4096xf32>
  %r = tile.block_id x : index
  %x = tile.load %px[%r, %c0] : !tile.partition_view<1x4096xf32> -> tensor<1x4096xf32>
  %e = math.exp %x : tensor<1x4096xf32>
  tile.store %e, %py[%r, %c0] : tensor<1x4096xf32> -> !tile.partition_view<1x4096xf32>
  return
}

// -----

// tile.cluster belongs to the pass: one written by hand, without a
// num_ctas hint, is dropped with the layouts made for one block.
// CHECK-LABEL: func.func @hand_cluster
// CHECK-NOT: tile.cluster
// CHECK: return
func.func @hand_cluster(%X: memref<?x4096xf32>, %Y: memref<?x4096xf32>) attributes {tile.kernel, tile.cluster = 4 : i64} {
  %c0 = arith.constant 0 : index
  %px = tile.partition_view %X : memref<?x4096xf32> -> !tile.partition_view<1x4096xf32>
  %py = tile.partition_view %Y : memref<?x4096xf32> -> !tile.partition_view<1x4096xf32>
  %r = tile.block_id x : index
  %x = tile.load %px[%r, %c0] : !tile.partition_view<1x4096xf32> -> tensor<1x4096xf32>
  tile.store %x, %py[%r, %c0] : tensor<1x4096xf32> -> !tile.partition_view<1x4096xf32>
  return
}

// -----

// A permuted operand is the same shared tile read the other way round
// (`transposed`); a load used by anything but mmas stays in registers.
// CHECK-LABEL: func.func @mm_permuted
// CHECK: %[[W:.*]] = tile.load {{.*}} -> tensor<64x16xf16, #tile.shared<swizzle_bytes = 32, element_bits = 16, transposed = false>>
// CHECK: tile.permute %[[W]] [1, 0] : {{.*}} -> tensor<16x64xf16, #tile.shared<swizzle_bytes = 32, element_bits = 16, transposed = true>>
// CHECK: %[[X:.*]] = tile.load {{.*}} -> tensor<64x16xf16, #tile.blocked<
// CHECK: arith.negf %[[X]]
func.func @mm_permuted(%A: memref<?x?xf16>, %W: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x16xf16>
  %pw = tile.partition_view %W : memref<?x?xf16> -> !tile.partition_view<64x16xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %w = tile.load %pw[%c0, %c0] : !tile.partition_view<64x16xf16> -> tensor<64x16xf16>
  %wt = tile.permute %w [1, 0] : tensor<64x16xf16> -> tensor<16x64xf16>
  %x = tile.load %pa[%c0, %c0] : !tile.partition_view<64x16xf16> -> tensor<64x16xf16>
  %a = arith.negf %x : tensor<64x16xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.mma %a, %wt, %z : tensor<64x16xf16>, tensor<16x64xf16> into tensor<64x64xf32>
  tile.store %d, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// wgmma reads f32 (tf32) operands only K-major. B loaded N-major with a
// multiple of 64 columns: the mma is computed transposed (C^T = B^T A^T).
// Both stay in shared memory: A K-major, B N-major, from which the threads
// read wgmma's A fragments of B^T at the mma; the accumulator is wgmma's
// of C^T, transposed (register bit 0 the next row, lanes 0-1 along M,
// warps along N), with columns 4 apart swapped with columns 16 apart
// (lane 4 holds column 16, warp 1 column 4: B^T's fragment loads then
// meet no bank twice), and nothing converts it for the mma.
// CHECK-LABEL: func.func @mm_tf32
// CHECK: tile.load {{.*}} -> tensor<64x8xf32, #tile.shared<swizzle_bytes = 32, element_bits = 32, transposed = false>>
// CHECK: tile.load {{.*}} -> tensor<8x64xf32, #tile.shared<swizzle_bytes = 128, element_bits = 32, transposed = false>>
// CHECK: arith.constant {{.*}} : tensor<64x64xf32, #tile.linear<register = {{\[}}[1, 0], [0, 8], [8, 0], [16, 0], [32, 0]], lane = {{\[}}[2, 0], [4, 0], [0, 1], [0, 2], [0, 16]], warp = {{\[}}[0, 4], [0, 32]]>>
// CHECK-NEXT: tile.mma
// CHECK-SAME: into tensor<64x64xf32, #tile.linear<register = {{\[}}[1, 0], [0, 8], [8, 0], [16, 0], [32, 0]]
func.func @mm_tf32(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf32> -> !tile.partition_view<64x8xf32>
  %pb = tile.partition_view %B : memref<?x?xf32> -> !tile.partition_view<8x64xf32>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<64x8xf32> -> tensor<64x8xf32>
  %b = tile.load %pb[%c0, %c0] : !tile.partition_view<8x64xf32> -> tensor<8x64xf32>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.mma %a, %b, %z : tensor<64x8xf32>, tensor<8x64xf32> into tensor<64x64xf32>
  tile.store %d, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// With swap_operands = 0: wgmma reads f32 (tf32) operands only
// K-major, so B loaded N-major stays in
// registers (the lowering writes it K-major), A goes to shared memory.
// B's staging layout: 4 registers along K (one 16-byte write), lanes along
// K first; this tile holds no more than 4 elements a thread, so no run
// along N.
// CHECK-LABEL: func.func @mm_tf32_staged
// CHECK: tile.load {{.*}} -> tensor<64x8xf32, #tile.shared<swizzle_bytes = 32, element_bits = 32, transposed = false>>
// CHECK: tile.load {{.*}} -> tensor<8x64xf32, #tile.linear<register = {{\[}}[1, 0], [2, 0]], lane = {{\[}}[4, 0], [0, 1], [0, 2], [0, 4], [0, 8]], warp = {{\[}}[0, 16], [0, 32]]>>
func.func @mm_tf32_staged(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) attributes {tile.kernel, tile.hints = {swap_operands = 0}} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf32> -> !tile.partition_view<64x8xf32>
  %pb = tile.partition_view %B : memref<?x?xf32> -> !tile.partition_view<8x64xf32>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<64x8xf32> -> tensor<64x8xf32>
  %b = tile.load %pb[%c0, %c0] : !tile.partition_view<8x64xf32> -> tensor<8x64xf32>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.mma %a, %b, %z : tensor<64x8xf32>, tensor<8x64xf32> into tensor<64x64xf32>
  tile.store %d, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// B N-major but only 32 columns wide (B^T's rows are wgmma's 64-row
// blocks): B stays in registers, written K-major by the lowering, in the
// staging layout: 4 registers along K (one 16-byte write), lanes along K
// first; this tile holds no more than 4 elements a thread, so no run along
// N.
// CHECK-LABEL: func.func @mm_tf32_narrow
// CHECK: tile.load {{.*}} -> tensor<64x16xf32, #tile.shared<swizzle_bytes = 64, element_bits = 32, transposed = false>>
// CHECK: tile.load {{.*}} -> tensor<16x32xf32, #tile.linear<register = {{\[}}[1, 0], [2, 0]], lane = {{\[}}[4, 0], [8, 0], [0, 1], [0, 2], [0, 4]], warp = {{\[}}[0, 8], [0, 16]]>>
// CHECK: tile.mma {{.*}} into tensor<64x32xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 32>>
func.func @mm_tf32_narrow(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf32> -> !tile.partition_view<64x16xf32>
  %pb = tile.partition_view %B : memref<?x?xf32> -> !tile.partition_view<16x32xf32>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x32xf32>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<64x16xf32> -> tensor<64x16xf32>
  %b = tile.load %pb[%c0, %c0] : !tile.partition_view<16x32xf32> -> tensor<16x32xf32>
  %z = arith.constant dense<0.0> : tensor<64x32xf32>
  %d = tile.mma %a, %b, %z : tensor<64x16xf32>, tensor<16x32xf32> into tensor<64x32xf32>
  tile.store %d, %pc[%c0, %c0] : tensor<64x32xf32> -> !tile.partition_view<64x32xf32>
  return
}

// -----

// 8-bit float operands loaded K-major (B as N x K, permuted) stay in
// shared memory, 32-byte rows swizzled by 32 bytes.
// CHECK-LABEL: func.func @mm_f8_k_major
// CHECK: tile.load {{.*}} -> tensor<64x32xf8E4M3FN, #tile.shared<swizzle_bytes = 32, element_bits = 8, transposed = false>>
// CHECK: tile.load {{.*}} -> tensor<64x32xf8E4M3FN, #tile.shared<swizzle_bytes = 32, element_bits = 8, transposed = false>>
// CHECK: tile.permute {{.*}} -> tensor<32x64xf8E4M3FN, #tile.shared<swizzle_bytes = 32, element_bits = 8, transposed = true>>
func.func @mm_f8_k_major(%A: memref<?x?xf8E4M3FN>, %B: memref<?x?xf8E4M3FN>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf8E4M3FN> -> !tile.partition_view<64x32xf8E4M3FN>
  %pb = tile.partition_view %B : memref<?x?xf8E4M3FN> -> !tile.partition_view<64x32xf8E4M3FN>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<64x32xf8E4M3FN> -> tensor<64x32xf8E4M3FN>
  %b = tile.load %pb[%c0, %c0] : !tile.partition_view<64x32xf8E4M3FN> -> tensor<64x32xf8E4M3FN>
  %bt = tile.permute %b [1, 0] : tensor<64x32xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.mma %a, %bt, %z : tensor<64x32xf8E4M3FN>, tensor<32x64xf8E4M3FN> into tensor<64x64xf32>
  tile.store %d, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// B loaded N-major (E5M2 too) with swap_operands = 0 stays in registers;
// the lowering writes its bytes K-major for the mma, 4 along K at a time:
// 4 registers along N (the loads' vector), then 4 along K; 8 lanes along
// K, then 4 along N.
// CHECK-LABEL: func.func @mm_f8_n_major
// CHECK: tile.load {{.*}} -> tensor<64x32xf8E5M2, #tile.shared<swizzle_bytes = 32, element_bits = 8, transposed = false>>
// CHECK: tile.load {{.*}} -> tensor<32x64xf8E5M2, #tile.linear<register = {{\[}}[0, 1], [0, 2], [1, 0], [2, 0]], lane = {{\[}}[4, 0], [8, 0], [16, 0], [0, 4], [0, 8]], warp = {{\[}}[0, 16], [0, 32]]>>
func.func @mm_f8_n_major(%A: memref<?x?xf8E5M2>, %B: memref<?x?xf8E5M2>, %C: memref<?x?xf32>) attributes {tile.kernel, tile.hints = {swap_operands = 0}} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf8E5M2> -> !tile.partition_view<64x32xf8E5M2>
  %pb = tile.partition_view %B : memref<?x?xf8E5M2> -> !tile.partition_view<32x64xf8E5M2>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<64x32xf8E5M2> -> tensor<64x32xf8E5M2>
  %b = tile.load %pb[%c0, %c0] : !tile.partition_view<32x64xf8E5M2> -> tensor<32x64xf8E5M2>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.mma %a, %b, %z : tensor<64x32xf8E5M2>, tensor<32x64xf8E5M2> into tensor<64x64xf32>
  tile.store %d, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}


// -----

// Without the hint the mma is computed transposed, as tf32's: B stays in
// shared memory N-major (64-byte rows), the accumulator is wgmma's of C^T,
// transposed, wgmma rows p and p + 8 of a warp's 16 on columns 2 p and
// 2 p + 1 (register bit 1 on column 1, lanes 4 apart on columns 2, 4 and
// 8), so that the fragments' reads are transposed b16 ldmatrix loads.
// CHECK-LABEL: func.func @mm_f8_n_major_swapped
// CHECK: tile.load {{.*}} -> tensor<32x64xf8E5M2, #tile.shared<swizzle_bytes = 64, element_bits = 8, transposed = false>>
// CHECK: arith.constant {{.*}} : tensor<64x64xf32, #tile.linear<register = {{\[}}[1, 0], [0, 1], [8, 0], [16, 0], [32, 0]], lane = {{\[}}[2, 0], [4, 0], [0, 2], [0, 4], [0, 8]], warp = {{\[}}[0, 16], [0, 32]]>>
func.func @mm_f8_n_major_swapped(%A: memref<?x?xf8E5M2>, %B: memref<?x?xf8E5M2>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf8E5M2> -> !tile.partition_view<64x32xf8E5M2>
  %pb = tile.partition_view %B : memref<?x?xf8E5M2> -> !tile.partition_view<32x64xf8E5M2>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<64x32xf8E5M2> -> tensor<64x32xf8E5M2>
  %b = tile.load %pb[%c0, %c0] : !tile.partition_view<32x64xf8E5M2> -> tensor<32x64xf8E5M2>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.mma %a, %b, %z : tensor<64x32xf8E5M2>, tensor<32x64xf8E5M2> into tensor<64x64xf32>
  tile.store %d, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}
