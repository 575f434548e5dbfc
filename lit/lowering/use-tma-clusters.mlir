// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-widen-accumulators, tile-slice-clusters, tile-prefetch-loads, tile-assign-layouts), tile-remove-layout-conversions, tile-use-tma)' | FileCheck %s
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-widen-accumulators, tile-slice-clusters, tile-prefetch-loads, tile-assign-layouts), tile-remove-layout-conversions, tile-use-tma, func.func(tile-persist-blocks, convert-tile-to-registers))' | FileCheck %s --check-prefix=REG
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-widen-accumulators, tile-slice-clusters, tile-prefetch-loads, tile-assign-layouts), tile-remove-layout-conversions, tile-use-tma)' | sed -e 's/warp_specialize = 1 : i64/warp_specialize = 0 : i64/' | tile-opt -split-input-file --pass-pipeline='builtin.module(func.func(convert-tile-to-registers))' | FileCheck %s --check-prefix=PARTS

// A sliced cluster of two blocks (tile-slice-clusters) with a producer
// warp: B's tile, the same in both blocks, is multicast, each block asking
// for 32 of its 64 rows (the descriptor's box); A's rows are each block's
// own. The empty barriers count this block's 256 consumer threads and the
// other block's 8 consumer warps; the barriers' initialisation and the
// kernel's end are cluster barriers.
// CHECK-LABEL: func.func @multicast__tma(
// CHECK-SAME:    %{{.*}}: !llvm.ptr {tile.tma = {arg = 0 : i64, box = array<i64: 128, 64>, swizzle = 128 : i64}}
// CHECK-SAME:    %{{.*}}: !llvm.ptr {tile.tma = {arg = 1 : i64, box = array<i64: 32, 64>, swizzle = 128 : i64}}
// CHECK-SAME:    tile.cluster = 2 : i64
// CHECK-SAME:    tile.sliced
// CHECK:         tile.load {{.*}}tile.tma_load = 3 : i64} : !tile.partition_view<128x64xf16>
// CHECK-NEXT:    tile.load {{.*}}tile.tma_load = 4 : i64, tile.tma_multicast} : !tile.partition_view<64x128xf16>
// CHECK:         scf.for
// CHECK:           tile.load {{.*}}tile.tma_load = 3 : i64} : !tile.partition_view<128x64xf16>
// CHECK-NEXT:      tile.load {{.*}}tile.tma_load = 4 : i64, tile.tma_multicast} : !tile.partition_view<64x128xf16>
// REG-LABEL: func.func @multicast__tma(
// REG:         %[[LANE:.*]] = arith.remui %thread_id_x, %c32
// REG:         %[[RANK:.*]] = arith.remui %block_id_x, %c2
// REG-COUNT-4: nvvm.mbarrier.init %{{.*}}, %c1_i32
// REG-COUNT-4: nvvm.mbarrier.init %{{.*}}, %c264_i32
// REG:         nvvm.fence.mbarrier.init
// REG-NEXT:    nvvm.cluster.arrive {aligned}
// REG-NEXT:    nvvm.cluster.wait {aligned}
// REG:         nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg3, {{.*}} predicate
// REG:         %[[PART:.*]] = arith.muli %[[RANK]], %c32
// REG:         %[[MASK:.*]] = arith.constant 3 : i16
// REG:         %[[ROW:.*]] = arith.addi %{{.*}}, %[[PART]] : index
// REG-NEXT:    %[[ROW32:.*]] = arith.index_cast %[[ROW]] : index to i32
// REG-NEXT:    nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg4, %{{.*}}, box[%{{.*}}, %[[ROW32]]] multicast_mask = %[[MASK]]
// REG:         nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg4, %{{.*}}, box[%{{.*}}, %{{.*}}] multicast_mask = %[[MASK]]
// REG:         nvvm.mbarrier.arrive %[[EMPTY:.*]] : !llvm.ptr<3>
// REG:         %[[FIRST:.*]] = arith.cmpi eq, %[[LANE]], %{{.*}} : index
// REG-NEXT:    scf.if %[[FIRST]] {
// REG:           %[[PEER:.*]] = arith.remui %{{.*}}, %{{.*}} : index
// REG-NEXT:      %[[PEER32:.*]] = arith.index_cast %[[PEER]] : index to i32
// REG-NEXT:      %[[REMOTE:.*]] = nvvm.mapa %[[EMPTY]], %[[PEER32]] : !llvm.ptr<3> -> !llvm.ptr<7>
// REG-NEXT:      nvvm.mbarrier.arrive %[[REMOTE]] : !llvm.ptr<7>
// REG:         nvvm.cluster.arrive {aligned}
// REG-NEXT:    nvvm.cluster.wait {aligned}
// REG-NEXT:    return
// A multicast ring in a kernel that gets no producer warp after all (the
// hint turned off between the passes, as a walk's ring that starts again
// would): each block asks for both parts of each of B's two boxes itself
// (8 copies: the first tile and the loop's), with no mask,
// no remote arrivals and no cluster barriers.
// PARTS-LABEL: func.func @multicast__tma(
// PARTS-NOT:     nvvm.cluster.arrive
// PARTS:         nvvm.fence.mbarrier.init
// PARTS-NEXT:    gpu.barrier
// PARTS-NOT:     multicast_mask
// PARTS-NOT:     nvvm.mapa
// PARTS-COUNT-8: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg4,
// PARTS-NOT:     nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg4,
// PARTS-NOT:     nvvm.cluster.arrive
// PARTS:         return
func.func @multicast(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>)
    attributes {tile.kernel, tile.hints = {num_ctas = 2 : i64, warp_specialize = 1 : i64}} {
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
    %a = tile.load %pa[%bm, %k] : !tile.partition_view<256x64xf16> -> tensor<256x64xf16>
    %b = tile.load %pb[%k, %bn] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %acc_in : tensor<256x64xf16>, tensor<64x128xf16> into tensor<256x128xf32>
    scf.yield %d : tensor<256x128xf32>
  }
  tile.store %acc, %pc[%bm, %bn] : tensor<256x128xf32> -> !tile.partition_view<256x128xf32>
  return
}

// -----

// Without a producer warp (warp_specialize = 0) a block barrier guards
// each slot, which cannot wait for the other block's mmas: the cluster
// stays sliced, and each block asks for B's whole tile itself.
// CHECK-LABEL: func.func @no_producer__tma(
// CHECK-SAME:    box = array<i64: 64, 64>
// CHECK-NOT:     tile.tma_multicast
// CHECK:         return
// REG-LABEL: func.func @no_producer__tma(
// REG-NOT:     multicast_mask
// REG-NOT:     nvvm.mapa
// REG:         return
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
    %a = tile.load %pa[%bm, %k] : !tile.partition_view<256x64xf16> -> tensor<256x64xf16>
    %b = tile.load %pb[%k, %bn] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %acc_in : tensor<256x64xf16>, tensor<64x128xf16> into tensor<256x128xf32>
    scf.yield %d : tensor<256x128xf32>
  }
  tile.store %acc, %pc[%bm, %bn] : tensor<256x128xf32> -> !tile.partition_view<256x128xf32>
  return
}

// -----

// A persistent kernel whose loop bound depends on the block (a causal
// loop): each walk of it would start the rings again, so nothing is
// multicast (and it compiles).
// CHECK-LABEL: func.func @causal_persistent__tma(
// CHECK-NOT:     tile.tma_multicast
// CHECK:         return
// REG-LABEL: func.func @causal_persistent__tma(
// REG-NOT:     multicast_mask
// REG:         return
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
    %a = tile.load %pa[%bm, %k] : !tile.partition_view<256x64xf16> -> tensor<256x64xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %acc_in : tensor<256x64xf16>, tensor<64x128xf16> into tensor<256x128xf32>
    scf.yield %d : tensor<256x128xf32>
  }
  tile.store %acc, %pc[%bm, %c0] : tensor<256x128xf32> -> !tile.partition_view<256x128xf32>
  return
}

// -----

// An f16 accumulator (the contract's matmul with f16 output): carried in
// f32 by tile-widen-accumulators, which puts the kernel on the register
// path before it is sliced (tile-to-ptx's order).
// CHECK-LABEL: func.func @f16_accumulator__tma(
// CHECK-SAME:    tile.sliced
// CHECK:         tile.tma_multicast
// REG-LABEL: func.func @f16_accumulator__tma(
// REG:         multicast_mask
func.func @f16_accumulator(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>)
    attributes {tile.kernel, tile.hints = {num_ctas = 2 : i64, warp_specialize = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<256x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<256x128xf16>
  %bm = tile.block_id x : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<256x64xf16>
  %zero = arith.constant dense<0.0> : tensor<256x128xf16>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %zero) -> (tensor<256x128xf16>) {
    %a = tile.load %pa[%bm, %k] : !tile.partition_view<256x64xf16> -> tensor<256x64xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %acc_in : tensor<256x64xf16>, tensor<64x128xf16> into tensor<256x128xf16>
    scf.yield %d : tensor<256x128xf16>
  }
  tile.store %acc, %pc[%bm, %c0] : tensor<256x128xf16> -> !tile.partition_view<256x128xf16>
  return
}
