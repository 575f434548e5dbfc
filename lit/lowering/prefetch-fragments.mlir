// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-prefetch-loads, tile-assign-layouts), tile-remove-layout-conversions, tile-use-tma, func.func(tile-prefetch-fragments))' | FileCheck %s
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-prefetch-loads, tile-assign-layouts), tile-remove-layout-conversions, tile-use-tma, func.func(tile-prefetch-fragments), func.func(convert-tile-to-registers))' | FileCheck %s --check-prefix=REG

// tf32 with B loaded N-major, computed transposed. In the TMA variant,
// B's fragments come from its ring one iteration ahead: the first before
// the loop from B's first tile, each next one before the mma from the
// tile the loop carries into the next (slot 1 of a ring two ahead),
// carried as registers in the fragment layout, which the mma reads. The
// kernel itself, whose rings the threads copy, keeps B shared.
// CHECK-LABEL: func.func @tf32_loop(
// CHECK-NOT: tile.convert_layout {{.*}}#tile.shared
// CHECK: tile.mma %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x32xf32, #tile.shared<{{.*}}>>, tensor<32x64xf32, #tile.shared<
// CHECK-LABEL: func.func @tf32_loop__tma(
// CHECK: %[[B0:.*]] = tile.load %{{.*}}[%c0, %c0] {tile.ring = array<i64: 1, 2, 0, 4>
// CHECK: %[[B1:.*]] = tile.load %{{.*}}[%c1, %c0] {tile.ring = array<i64: 1, 2, 1, 4>
// CHECK: %[[F0:.*]] = tile.convert_layout %[[B0]] : tensor<32x64xf32, #tile.shared<{{.*}}>> -> tensor<32x64xf32, #tile.linear<register = {{\[}}[0, 8], [4, 0], [8, 0], [16, 0]], lane = {{\[}}[1, 0], [2, 0], [0, 1], [0, 2], [0, 16]], warp = {{\[}}[0, 4], [0, 32]]>>
// CHECK: scf.for {{.*}} iter_args({{.*}}, %[[S1:.*]] = %[[B1]], %[[F:.*]] = %[[F0]])
// CHECK: %[[NEXT:.*]] = tile.convert_layout %[[S1]]
// CHECK-NEXT: tile.mma %{{.*}}, %[[F]], %{{.*}} : tensor<64x32xf32, #tile.shared<{{.*}}>>, tensor<32x64xf32, #tile.linear<
// CHECK-NEXT: scf.yield {{.*}}, %[[NEXT]] :
// On the way to registers: before the loop the wait for B's first tile
// and its 4 reads; in the loop, the wait for the next iteration's tile
// (the loop's iteration + 1) and its 4 reads, then the wgmma's fence (no
// read after it), the wgmma, and the wait for it, which takes the
// accumulator's and the fragments' registers.
// REG-LABEL: func.func @tf32_loop__tma(
// REG: nvvm.mbarrier.try_wait.parity
// REG-COUNT-4: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// REG: scf.for
// REG: nvvm.mbarrier.try_wait.parity
// REG-COUNT-4: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// REG: nvvm.wgmma.fence.aligned
// REG-NOT: llvm.load {{.*}}!llvm.ptr<3> -> f32
// REG: wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32
// REG-NOT: llvm.load {{.*}}!llvm.ptr<3> -> f32
// REG: "wgmma.wait_group.sync.aligned 0;"
// REG: scf.yield
func.func @tf32_loop(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf32> -> !tile.partition_view<64x32xf32>
  %pb = tile.partition_view %B : memref<?x?xf32> -> !tile.partition_view<32x64xf32>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x32xf32>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%in = %z) -> (tensor<64x64xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<64x32xf32> -> tensor<64x32xf32>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<32x64xf32> -> tensor<32x64xf32>
    %d = tile.mma %a, %b, %in : tensor<64x32xf32>, tensor<32x64xf32> into tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// 8-bit floats likewise, with wgmma rows p and p + 8 of a warp's 16 on
// C's columns 2 p and 2 p + 1 (the accumulator's and the fragments'
// column bits 0-3 rotated: lanes 4 apart on columns 2, 4 and 8, register
// bit 2 on column 1): a thread's two rows are one b16 of B's tile, so the
// reads are transposed ldmatrix loads (two of four 8x8 b16 matrices for
// K = 64) and eight byte permutes, before the loop and ahead of the fence
// in it; no byte loads.
// CHECK-LABEL: func.func @f8_loop__tma(
// CHECK: tile.convert_layout %{{.*}} : tensor<64x64xf8E4M3FN, #tile.shared<{{.*}}>> -> tensor<64x64xf8E4M3FN, #tile.linear<register = {{\[}}[1, 0], [2, 0], [0, 1], [16, 0], [32, 0]], lane = {{\[}}[4, 0], [8, 0], [0, 2], [0, 4], [0, 8]], warp = {{\[}}[0, 16], [0, 32]]>>
// CHECK: scf.for
// CHECK: tile.mma {{.*}} into tensor<64x64xf32, #tile.linear<register = {{\[}}[1, 0], [0, 1], [8, 0], [16, 0], [32, 0]], lane = {{\[}}[2, 0], [4, 0], [0, 2], [0, 4], [0, 8]], warp = {{\[}}[0, 16], [0, 32]]>>
// REG-LABEL: func.func @f8_loop__tma(
// REG: nvvm.mbarrier.try_wait.parity
// REG-COUNT-2: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<col>, num = 4 : i32
// REG-COUNT-8: nvvm.prmt <default>
// REG: scf.for
// REG: nvvm.mbarrier.try_wait.parity
// REG-COUNT-2: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<col>, num = 4 : i32
// REG-COUNT-8: nvvm.prmt <default>
// REG-NOT: llvm.load {{.*}}!llvm.ptr<3> -> i8
// REG: nvvm.wgmma.fence.aligned
// REG-NOT: nvvm.ldmatrix
// REG: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3
// REG: "wgmma.wait_group.sync.aligned 0;"
// REG: scf.yield
func.func @f8_loop(%A: memref<?x?xf8E4M3FN>, %B: memref<?x?xf8E4M3FN>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf8E4M3FN> -> !tile.partition_view<64x64xf8E4M3FN>
  %pb = tile.partition_view %B : memref<?x?xf8E4M3FN> -> !tile.partition_view<64x64xf8E4M3FN>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x64xf8E4M3FN>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%in = %z) -> (tensor<64x64xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<64x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<64x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
    %d = tile.mma %a, %b, %in : tensor<64x64xf8E4M3FN>, tensor<64x64xf8E4M3FN> into tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// A 16-bit B loaded N-major is read by wgmma where it is (the
// descriptor's transpose): nothing to prefetch.
// CHECK-LABEL: func.func @f16_loop__tma(
// CHECK-NOT: tile.convert_layout {{.*}}#tile.shared
// CHECK: return
func.func @f16_loop(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x64xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%in = %z) -> (tensor<64x64xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %d = tile.mma %a, %b, %in : tensor<64x64xf16>, tensor<64x64xf16> into tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// A loaded once before the loop: the mma gives back only the slots of its
// shared operands' rings, and A has none, so B's fragments stay read at
// the mma (with a producer warp, nobody would give B's slots back).
// CHECK-LABEL: func.func @a_before_loop__tma(
// CHECK-NOT: tile.convert_layout {{.*}}#tile.shared
// CHECK: return
// REG-LABEL: func.func @a_before_loop__tma(
// REG: wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32
func.func @a_before_loop(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf32> -> !tile.partition_view<64x32xf32>
  %pb = tile.partition_view %B : memref<?x?xf32> -> !tile.partition_view<32x64xf32>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %nk = tile.num_tiles %pb dim 0 : !tile.partition_view<32x64xf32>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<64x32xf32> -> tensor<64x32xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%in = %z) -> (tensor<64x64xf32>) {
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<32x64xf32> -> tensor<32x64xf32>
    %d = tile.mma %a, %b, %in : tensor<64x32xf32>, tensor<32x64xf32> into tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// The same without a producer warp: the ring's requests stop at the loop's
// end, so the in-loop read of the next iteration's tile waits only where
// that tile was requested (the loop runs that far, or it is one of the
// first tiles): the wait is under an scf.if.
// REG-LABEL: func.func @tf32_no_producer__tma(
// REG: scf.for
// REG: %[[FIRST:.*]] = arith.cmpi ult
// REG: %[[REQUESTED:.*]] = arith.ori %{{.*}}, %[[FIRST]] : i1
// REG-NEXT: scf.if %[[REQUESTED]] {
// REG: nvvm.mbarrier.try_wait.parity
// REG: }
// REG-COUNT-4: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// REG: wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32

func.func @tf32_no_producer(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) attributes {tile.kernel, tile.hints = {warp_specialize = 0}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf32> -> !tile.partition_view<64x32xf32>
  %pb = tile.partition_view %B : memref<?x?xf32> -> !tile.partition_view<32x64xf32>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x32xf32>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%in = %z) -> (tensor<64x64xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<64x32xf32> -> tensor<64x32xf32>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<32x64xf32> -> tensor<32x64xf32>
    %d = tile.mma %a, %b, %in : tensor<64x32xf32>, tensor<32x64xf32> into tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}
