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

// -----

// Two loads of one ring (tile.ring, written by tile-prefetch-loads) with
// different distances and slots: refused at the second, not lowered into
// a ring whose waits would not hold.
func.func @bad(%A: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel, tile.block_size = 128 : i64} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %a = tile.load %pa[%c0, %c0] {tile.ring = array<i64: 0, 1, 0, 3>} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  // expected-error @+1 {{cannot lower this op in registers: another load of this ring (its tile.ring id) has another distance, slot count or tile}}
  %b = tile.load %pa[%c0, %c0] {tile.ring = array<i64: 0, 2, 0, 4>} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  %bt = tile.permute %b [1, 0] : tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>> -> tensor<32x64xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = true>>
  %z = arith.constant dense<0.0> : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>
  %d = tile.mma %a, %bt, %z : tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<32x64xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = true>> into tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>
  %s = tile.convert_layout %d : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>> -> tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [2, 16], warps_per_block = [4, 1], order = [1, 0]>>
  tile.store %s, %pc[%c0, %c0] : tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [2, 16], warps_per_block = [4, 1], order = [1, 0]>> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// A #tile.shared tile written by hand where only loads, permutes, reshapes
// and loops make them: refused at the op, not lowered on its address.
func.func @neg(%A: memref<?x?xf16>, %C: memref<?x?xf16>) attributes {tile.kernel, tile.block_size = 128 : i64} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  // expected-error @+1 {{cannot lower this op in registers: only tile.load, tile.permute, tile.reshape and loops make #tile.shared tiles}}
  %n = arith.negf %a : tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  %b = tile.convert_layout %n : tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>> -> tensor<64x32xf16, #tile.blocked<size_per_thread = [1, 8], threads_per_warp = [8, 4], warps_per_block = [4, 1], order = [1, 0]>>
  tile.store %b, %pc[%c0, %c0] : tensor<64x32xf16, #tile.blocked<size_per_thread = [1, 8], threads_per_warp = [8, 4], warps_per_block = [4, 1], order = [1, 0]>> -> !tile.partition_view<64x32xf16>
  return
}

// -----

// An scf.if that gives a #tile.shared tile (one load or the other): which
// buffer the tile is in is not known after it, so it is refused at the
// scf.if, not lowered on one branch's address.
func.func @shared_if(%A: memref<?x?xf16>, %C: memref<?x?xf16>, %n: index) attributes {tile.kernel, tile.block_size = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %p = arith.cmpi ult, %n, %c1 : index
  // expected-error @+1 {{cannot lower this op in registers: an scf.if cannot give #tile.shared tiles}}
  %a = scf.if %p -> (tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>) {
    %x = tile.load %pa[%c0, %c0] : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
    scf.yield %x : tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  } else {
    %y = tile.load %pa[%c0, %c1] : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
    scf.yield %y : tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  }
  %b = tile.convert_layout %a : tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>> -> tensor<64x32xf16, #tile.blocked<size_per_thread = [1, 8], threads_per_warp = [8, 4], warps_per_block = [4, 1], order = [1, 0]>>
  tile.store %b, %pc[%c0, %c0] : tensor<64x32xf16, #tile.blocked<size_per_thread = [1, 8], threads_per_warp = [8, 4], warps_per_block = [4, 1], order = [1, 0]>> -> !tile.partition_view<64x32xf16>
  return
}

// -----

// A hand-written tile.tma_load whose descriptor's box is not the tile's
// (here half its columns) is refused at the load: the TMA would deliver
// other bytes than the slot's barrier waits for.
func.func @wrong_box(%arg0: memref<?x?xf16>, %arg1: memref<?x?xf16>, %arg2: memref<?x?xf32>, %arg3: !llvm.ptr {tile.tma = {arg = 0 : i64, box = array<i64: 64, 16>, swizzle = 64 : i64}}, %arg4: !llvm.ptr {tile.tma = {arg = 1 : i64, box = array<i64: 32, 64>, swizzle = 128 : i64}}) attributes {tile.block_size = 128 : i64, tile.kernel, tile.variant_of = @plain} {
  %c2 = arith.constant 2 : index
  %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = tile.partition_view %arg0 : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %1 = tile.partition_view %arg1 : memref<?x?xf16> -> !tile.partition_view<32x64xf16>
  %2 = tile.partition_view %arg2 : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %3 = tile.num_tiles %0 dim 1 : !tile.partition_view<64x32xf16>
  // expected-error @+1 {{descriptor (its kernel argument's tile.tma) does not describe this tile}}
  %4 = tile.load %0[%c0, %c0] {tile.ring = array<i64: 0, 2, 0, 5>, tile.tma_load = 3 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  %5 = tile.load %1[%c0, %c0] {tile.ring = array<i64: 1, 2, 0, 5>, tile.tma_load = 4 : i64} : !tile.partition_view<32x64xf16> -> tensor<32x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>>
  %6 = tile.load %0[%c0, %c1] {tile.ring = array<i64: 0, 2, 1, 5>, tile.tma_load = 3 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  %7 = tile.load %1[%c1, %c0] {tile.ring = array<i64: 1, 2, 1, 5>, tile.tma_load = 4 : i64} : !tile.partition_view<32x64xf16> -> tensor<32x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>>
  %8:5 = scf.for %arg5 = %c0 to %3 step %c1 iter_args(%arg6 = %cst, %arg7 = %4, %arg8 = %6, %arg9 = %5, %arg10 = %7) -> (tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<32x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>>, tensor<32x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>>) {
    %10 = arith.addi %arg5, %c2 : index
    %11 = tile.load %0[%c0, %10] {tile.ring = array<i64: 0, 2, -1, 5>, tile.tma_load = 3 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
    %12 = tile.load %1[%10, %c0] {tile.ring = array<i64: 1, 2, -1, 5>, tile.tma_load = 4 : i64} : !tile.partition_view<32x64xf16> -> tensor<32x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>>
    %13 = tile.mma %arg7, %arg9, %arg6 : tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<32x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>> into tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>
    scf.yield %13, %arg8, %11, %arg10, %12 : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<32x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>>, tensor<32x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>>
  }
  %9 = tile.convert_layout %8#0 : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>> -> tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [2, 16], warps_per_block = [4, 1], order = [1, 0]>>
  tile.store %9, %2[%c0, %c0] : tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [2, 16], warps_per_block = [4, 1], order = [1, 0]>> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// A hand-written tile.tma_load in a kernel whose blocks run as a cluster
// is refused at the load: each block's slots would need barriers the
// others' copies do not complete.
func.func @in_a_cluster(%arg0: memref<?x?xf16>, %arg1: memref<?x?xf16>, %arg2: memref<?x?xf32>, %arg3: !llvm.ptr {tile.tma = {arg = 0 : i64, box = array<i64: 64, 32>, swizzle = 64 : i64}}, %arg4: !llvm.ptr {tile.tma = {arg = 1 : i64, box = array<i64: 32, 64>, swizzle = 128 : i64}}) attributes {tile.block_size = 128 : i64, tile.cluster = 2 : i64, tile.kernel, tile.variant_of = @plain} {
  %c2 = arith.constant 2 : index
  %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = tile.partition_view %arg0 : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %1 = tile.partition_view %arg1 : memref<?x?xf16> -> !tile.partition_view<32x64xf16>
  %2 = tile.partition_view %arg2 : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %3 = tile.num_tiles %0 dim 1 : !tile.partition_view<64x32xf16>
  // expected-error @+1 {{in a kernel whose blocks run as a cluster}}
  %4 = tile.load %0[%c0, %c0] {tile.ring = array<i64: 0, 2, 0, 5>, tile.tma_load = 3 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  %5 = tile.load %1[%c0, %c0] {tile.ring = array<i64: 1, 2, 0, 5>, tile.tma_load = 4 : i64} : !tile.partition_view<32x64xf16> -> tensor<32x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>>
  %6 = tile.load %0[%c0, %c1] {tile.ring = array<i64: 0, 2, 1, 5>, tile.tma_load = 3 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  %7 = tile.load %1[%c1, %c0] {tile.ring = array<i64: 1, 2, 1, 5>, tile.tma_load = 4 : i64} : !tile.partition_view<32x64xf16> -> tensor<32x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>>
  %8:5 = scf.for %arg5 = %c0 to %3 step %c1 iter_args(%arg6 = %cst, %arg7 = %4, %arg8 = %6, %arg9 = %5, %arg10 = %7) -> (tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<32x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>>, tensor<32x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>>) {
    %10 = arith.addi %arg5, %c2 : index
    %11 = tile.load %0[%c0, %10] {tile.ring = array<i64: 0, 2, -1, 5>, tile.tma_load = 3 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
    %12 = tile.load %1[%10, %c0] {tile.ring = array<i64: 1, 2, -1, 5>, tile.tma_load = 4 : i64} : !tile.partition_view<32x64xf16> -> tensor<32x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>>
    %13 = tile.mma %arg7, %arg9, %arg6 : tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<32x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>> into tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>
    scf.yield %13, %arg8, %11, %arg10, %12 : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<32x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>>, tensor<32x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>>
  }
  %9 = tile.convert_layout %8#0 : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>> -> tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [2, 16], warps_per_block = [4, 1], order = [1, 0]>>
  tile.store %9, %2[%c0, %c0] : tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [2, 16], warps_per_block = [4, 1], order = [1, 0]>> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// A hand-written tile.tma_store whose descriptor's box is not the staged
// one (here half its columns) is refused at the store: the TMA would read
// other bytes than the threads wrote.
func.func @wrong_store_box(%arg0: memref<?x?xf16>, %arg1: memref<?x?xf16>, %arg2: memref<?x?xf32>, %arg3: !llvm.ptr {tile.tma = {arg = 0 : i64, box = array<i64: 64, 32>, swizzle = 64 : i64}}, %arg4: !llvm.ptr {tile.tma = {arg = 1 : i64, box = array<i64: 32, 64>, swizzle = 128 : i64}}, %arg5: !llvm.ptr {tile.tma = {arg = 2 : i64, box = array<i64: 64, 16>, swizzle = 128 : i64}}) attributes {tile.block_size = 128 : i64, tile.kernel, tile.variant_of = @plain} {
  %c2 = arith.constant 2 : index
  %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = tile.partition_view %arg0 : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %1 = tile.partition_view %arg1 : memref<?x?xf16> -> !tile.partition_view<32x64xf16>
  %2 = tile.partition_view %arg2 : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %3 = tile.num_tiles %0 dim 1 : !tile.partition_view<64x32xf16>
  %4 = tile.load %0[%c0, %c0] {tile.ring = array<i64: 0, 2, 0, 5>, tile.tma_load = 3 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  %5 = tile.load %1[%c0, %c0] {tile.ring = array<i64: 1, 2, 0, 5>, tile.tma_load = 4 : i64} : !tile.partition_view<32x64xf16> -> tensor<32x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>>
  %6 = tile.load %0[%c0, %c1] {tile.ring = array<i64: 0, 2, 1, 5>, tile.tma_load = 3 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  %7 = tile.load %1[%c1, %c0] {tile.ring = array<i64: 1, 2, 1, 5>, tile.tma_load = 4 : i64} : !tile.partition_view<32x64xf16> -> tensor<32x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>>
  %8:5 = scf.for %arg6 = %c0 to %3 step %c1 iter_args(%arg7 = %cst, %arg8 = %4, %arg9 = %6, %arg10 = %5, %arg11 = %7) -> (tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<32x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>>, tensor<32x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>>) {
    %9 = arith.addi %arg6, %c2 : index
    %10 = tile.load %0[%c0, %9] {tile.ring = array<i64: 0, 2, -1, 5>, tile.tma_load = 3 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
    %11 = tile.load %1[%9, %c0] {tile.ring = array<i64: 1, 2, -1, 5>, tile.tma_load = 4 : i64} : !tile.partition_view<32x64xf16> -> tensor<32x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>>
    %12 = tile.mma %arg8, %arg10, %arg7 : tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<32x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>> into tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>
    scf.yield %12, %arg9, %10, %arg11, %11 : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<32x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>>, tensor<32x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>>
  }
  // expected-error @+1 {{cannot lower this op in registers}}
  tile.store %8#0, %2[%c0, %c0] {tile.tma_store = 5 : i64} : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// A hand-written tile.tma_load naming an optional descriptor is refused
// at the load: the runtime may pass an optional descriptor as a null
// pointer, which only a store's lowering checks for.
func.func @optional_load_descriptor(%arg0: memref<?x?xf16>, %arg1: memref<?x?xf16>, %arg2: memref<?x?xf32>, %arg3: !llvm.ptr {tile.tma = {arg = 0 : i64, box = array<i64: 64, 32>, optional, swizzle = 64 : i64}}, %arg4: !llvm.ptr {tile.tma = {arg = 1 : i64, box = array<i64: 32, 64>, swizzle = 128 : i64}}) attributes {tile.block_size = 128 : i64, tile.kernel, tile.variant_of = @plain} {
  %c2 = arith.constant 2 : index
  %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = tile.partition_view %arg0 : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %1 = tile.partition_view %arg1 : memref<?x?xf16> -> !tile.partition_view<32x64xf16>
  %2 = tile.partition_view %arg2 : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %3 = tile.num_tiles %0 dim 1 : !tile.partition_view<64x32xf16>
  // expected-error @+1 {{cannot lower this op in registers}}
  %4 = tile.load %0[%c0, %c0] {tile.ring = array<i64: 0, 2, 0, 5>, tile.tma_load = 3 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  %5 = tile.load %1[%c0, %c0] {tile.ring = array<i64: 1, 2, 0, 5>, tile.tma_load = 4 : i64} : !tile.partition_view<32x64xf16> -> tensor<32x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>>
  %6 = tile.load %0[%c0, %c1] {tile.ring = array<i64: 0, 2, 1, 5>, tile.tma_load = 3 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  %7 = tile.load %1[%c1, %c0] {tile.ring = array<i64: 1, 2, 1, 5>, tile.tma_load = 4 : i64} : !tile.partition_view<32x64xf16> -> tensor<32x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>>
  %8:5 = scf.for %arg5 = %c0 to %3 step %c1 iter_args(%arg6 = %cst, %arg7 = %4, %arg8 = %6, %arg9 = %5, %arg10 = %7) -> (tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<32x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>>, tensor<32x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>>) {
    %10 = arith.addi %arg5, %c2 : index
    %11 = tile.load %0[%c0, %10] {tile.ring = array<i64: 0, 2, -1, 5>, tile.tma_load = 3 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
    %12 = tile.load %1[%10, %c0] {tile.ring = array<i64: 1, 2, -1, 5>, tile.tma_load = 4 : i64} : !tile.partition_view<32x64xf16> -> tensor<32x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>>
    %13 = tile.mma %arg7, %arg9, %arg6 : tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<32x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>> into tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>
    scf.yield %13, %arg8, %11, %arg10, %12 : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<32x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>>, tensor<32x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>>
  }
  %9 = tile.convert_layout %8#0 : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>> -> tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [2, 16], warps_per_block = [4, 1], order = [1, 0]>>
  tile.store %9, %2[%c0, %c0] : tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [2, 16], warps_per_block = [4, 1], order = [1, 0]>> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// A transposed accumulator (a tf32 mma computed transposed) whose B is not
// laid out as wgmma's A fragments of B^T, written by hand: the mma would
// multiply it as if it were wgmma's own layout, so it is refused.
func.func @mm_tf32_mismatch(%arg0: memref<?x?xf32>, %arg1: memref<?x?xf32>, %arg2: memref<?x?xf32>) attributes {tile.block_size = 128 : i64, tile.kernel} {
  %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #tile.linear<register = [[1, 0], [0, 8], [8, 0], [16, 0], [32, 0]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 16], [0, 32]]>>
  %c0 = arith.constant 0 : index
  %0 = tile.partition_view %arg0 : memref<?x?xf32> -> !tile.partition_view<64x8xf32>
  %1 = tile.partition_view %arg1 : memref<?x?xf32> -> !tile.partition_view<8x64xf32>
  %2 = tile.partition_view %arg2 : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %3 = tile.load %0[%c0, %c0] : !tile.partition_view<64x8xf32> -> tensor<64x8xf32, #tile.shared<swizzle_bytes = 32, element_bits = 32, transposed = false>>
  %4 = tile.load %1[%c0, %c0] : !tile.partition_view<8x64xf32> -> tensor<8x64xf32, #tile.linear<register = [[1, 0], [2, 0]], lane = [[4, 0], [0, 1], [0, 2], [0, 4], [0, 8]], warp = [[0, 16], [0, 32]]>>
  // expected-error @+1 {{cannot lower this op in registers}}
  %5 = tile.mma %3, %4, %cst : tensor<64x8xf32, #tile.shared<swizzle_bytes = 32, element_bits = 32, transposed = false>>, tensor<8x64xf32, #tile.linear<register = [[1, 0], [2, 0]], lane = [[4, 0], [0, 1], [0, 2], [0, 4], [0, 8]], warp = [[0, 16], [0, 32]]>> into tensor<64x64xf32, #tile.linear<register = [[1, 0], [0, 8], [8, 0], [16, 0], [32, 0]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 16], [0, 32]]>>
  %6 = tile.convert_layout %5 : tensor<64x64xf32, #tile.linear<register = [[1, 0], [0, 8], [8, 0], [16, 0], [32, 0]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 16], [0, 32]]>> -> tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [2, 16], warps_per_block = [4, 1], order = [1, 0]>>
  tile.store %6, %2[%c0, %c0] : tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [2, 16], warps_per_block = [4, 1], order = [1, 0]>> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// A hand-written ring whose mma reads the tile carried once of a ring two
// ahead (the next iteration's, not this one's): the TMA's waits are for
// this iteration's tile, and without a producer warp no tile past the
// loop's end is requested, so it is refused, not read unwaited for.
func.func @later_tile_tma(%arg0: memref<?x?xf16>, %arg1: memref<?x?xf16>, %arg2: memref<?x?xf32>, %arg3: !llvm.ptr {tile.tma = {arg = 0 : i64, box = array<i64: 64, 32>, swizzle = 64 : i64}}, %arg4: !llvm.ptr {tile.tma = {arg = 1 : i64, box = array<i64: 64, 32>, swizzle = 64 : i64}}, %arg5: !llvm.ptr {tile.tma = {arg = 2 : i64, box = array<i64: 64, 32>, optional, swizzle = 128 : i64}}) attributes {tile.block_size = 128 : i64, tile.kernel, tile.variant_of = @mm_loop} {
  %c2 = arith.constant 2 : index
  %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = tile.partition_view %arg0 : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %1 = tile.partition_view %arg1 : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %2 = tile.partition_view %arg2 : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %3 = tile.num_tiles %0 dim 1 : !tile.partition_view<64x32xf16>
  %4 = tile.load %0[%c0, %c0] {tile.ring = array<i64: 0, 2, 0, 5>, tile.tma_load = 3 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  %5 = tile.load %1[%c0, %c0] {tile.ring = array<i64: 1, 2, 0, 5>, tile.tma_load = 4 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  %6 = tile.load %0[%c0, %c1] {tile.ring = array<i64: 0, 2, 1, 5>, tile.tma_load = 3 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  %7 = tile.load %1[%c0, %c1] {tile.ring = array<i64: 1, 2, 1, 5>, tile.tma_load = 4 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  %8:5 = scf.for %arg6 = %c0 to %3 step %c1 iter_args(%arg7 = %cst, %arg8 = %4, %arg9 = %6, %arg10 = %5, %arg11 = %7) -> (tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>) {
    %9 = arith.addi %arg6, %c2 : index
    %10 = tile.load %0[%c0, %9] {tile.ring = array<i64: 0, 2, -1, 5>, tile.tma_load = 3 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
    %11 = tile.load %1[%c0, %9] {tile.ring = array<i64: 1, 2, -1, 5>, tile.tma_load = 4 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
    %12 = tile.permute %arg10 [1, 0] : tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>> -> tensor<32x64xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = true>>
    // expected-error @+1 {{reads a TMA ring's tile carried fewer times than the ring's distance}}
    %13 = tile.mma %arg9, %12, %arg7 : tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<32x64xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = true>> into tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>
    scf.yield %13, %arg9, %10, %arg11, %11 : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  }
  tile.store %8#0, %2[%c0, %c0] {tile.tma_store = 5 : i64} : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// The first tiles of a ring whose loop an enclosing loop runs with the
// same bounds each time (its positions continue from walk to walk),
// loaded before the enclosing loop instead of in it: refused.
func.func @first_tiles_outside__tma(%arg0: memref<?x?xf16>, %arg1: memref<?x?xf16>, %arg2: memref<?x?xf32>, %arg3: !llvm.ptr {tile.tma = {arg = 0 : i64, box = array<i64: 64, 32>, swizzle = 64 : i64}}, %arg4: !llvm.ptr {tile.tma = {arg = 1 : i64, box = array<i64: 64, 32>, swizzle = 64 : i64}}, %arg5: index) attributes {tile.block_size = 128 : i64, tile.kernel, tile.variant_of = @first_tiles_outside} {
  %c2 = arith.constant 2 : index
  %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = tile.partition_view %arg0 : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %1 = tile.partition_view %arg1 : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %2 = tile.partition_view %arg2 : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %3 = tile.num_tiles %0 dim 1 : !tile.partition_view<64x32xf16>
  // expected-error @+1 {{cannot lower this op in registers: one of a TMA ring's first tiles is loaded outside the loop that runs the ring's loop}}
  %4 = tile.load %0[%c0, %c0] {tile.ring = array<i64: 0, 2, 0, 5>, tile.tma_load = 3 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  %5 = tile.load %1[%c0, %c0] {tile.ring = array<i64: 1, 2, 0, 5>, tile.tma_load = 4 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  %6 = tile.load %0[%c0, %c1] {tile.ring = array<i64: 0, 2, 1, 5>, tile.tma_load = 3 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  %7 = tile.load %1[%c0, %c1] {tile.ring = array<i64: 1, 2, 1, 5>, tile.tma_load = 4 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  scf.for %t = %c0 to %arg5 step %c1 {
    %8:5 = scf.for %arg6 = %c0 to %3 step %c1 iter_args(%arg7 = %cst, %arg8 = %4, %arg9 = %6, %arg10 = %5, %arg11 = %7) -> (tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>) {
      %9 = arith.addi %arg6, %c2 : index
      %10 = tile.load %0[%t, %9] {tile.ring = array<i64: 0, 2, -1, 5>, tile.tma_load = 3 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
      %11 = tile.load %1[%t, %9] {tile.ring = array<i64: 1, 2, -1, 5>, tile.tma_load = 4 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
      %12 = tile.permute %arg10 [1, 0] : tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>> -> tensor<32x64xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = true>>
      %13 = tile.mma %arg8, %12, %arg7 : tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<32x64xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = true>> into tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>
      scf.yield %13, %arg9, %10, %arg11, %11 : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
    }
    %14 = tile.convert_layout %8#0 : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>> -> tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [2, 16], warps_per_block = [4, 1], order = [1, 0]>>
    tile.store %14, %2[%t, %c0] : tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [2, 16], warps_per_block = [4, 1], order = [1, 0]>> -> !tile.partition_view<64x64xf32>
  }
  return
}
