// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-split-k, tile-slice-clusters))' | FileCheck %s
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-split-k, tile-slice-clusters))' --remarks-filter=tile -verify-diagnostics -o /dev/null
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-split-k, tile-assign-layouts), tile-remove-layout-conversions, func.func(convert-tile-to-registers))' | FileCheck %s --check-prefix=REG
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-split-k, tile-prefetch-loads, tile-assign-layouts), tile-remove-layout-conversions, func.func(convert-tile-to-registers))' | FileCheck %s --check-prefixes=RING,ROUNDS
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-split-k, tile-prefetch-loads))' | FileCheck %s --check-prefix=DEEP

// A GEMM, split two ways: block r runs iterations [r h, min(n, r h + h))
// of the K loop (h = ceil(n / 2)), from zeros (the loop's init is zeros
// already: no choice of init); the sum goes to block 0, which alone
// stores.
// CHECK-LABEL: func.func @gemm
// CHECK-SAME:    tile.cluster = 2 : i64
// CHECK-SAME:    tile.sliced
// CHECK:         %[[R:.*]] = gpu.cluster_block_id x
// CHECK:         %[[NK:.*]] = tile.num_tiles
// CHECK:         %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
// CHECK:         %[[SHARE:.*]] = arith.divui %{{.*}}, %c2 : index
// CHECK:         %[[STRIDE:.*]] = arith.muli %[[SHARE]], %c1 : index
// CHECK:         %[[OFF:.*]] = arith.muli %[[R]], %[[STRIDE]] : index
// CHECK:         %[[FIRST:.*]] = arith.addi %c0, %[[OFF]] : index
// CHECK:         %[[END:.*]] = arith.addi %[[FIRST]], %[[STRIDE]] : index
// CHECK:         %[[LAST:.*]] = arith.minsi %[[NK]], %[[END]] : index
// CHECK:         %[[IS0:.*]] = arith.cmpi eq, %[[R]], %{{.*}} : index
// CHECK-NEXT:    %[[ACC:.*]] = scf.for %{{.*}} = %[[FIRST]] to %[[LAST]] step %c1 iter_args(%{{.*}} = %[[ZERO]])
// CHECK:         %[[SUM:.*]] = tile.cluster_sum %[[ACC]] : tensor<128x128xf32>
// CHECK-NEXT:    scf.if %[[IS0]] {
// CHECK-NEXT:      tile.store %[[SUM]], %{{.*}}[%{{.*}}, %{{.*}}]
// CHECK-NEXT:    } else {
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// REG-LABEL: func.func @gemm
// REG:         %[[RANK:.*]] = arith.remui %block_id_x, %c2
// REG:         %[[SCRATCH:.*]] = memref.alloc() {alignment = 1024 : i64} : memref<16384xf32>
// The cluster meets before the writes (no block writes into one that has
// not started) and between the writes and the reads.
// REG:         %[[OTHERS:.*]] = arith.cmpi ne, %[[RANK]], %{{.*}} : index
// REG-NEXT:    nvvm.cluster.arrive {aligned}
// REG-NEXT:    nvvm.cluster.wait {aligned}
// REG-NEXT:    scf.if %[[OTHERS]] {
// REG:           nvvm.mapa %{{.*}}, %c0_i32{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// REG:           llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<7>
// REG:         } else {
// REG-NEXT:    }
// REG-NEXT:    nvvm.cluster.arrive {aligned}
// REG-NEXT:    nvvm.cluster.wait {aligned}
// REG:         llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// With the operands in rings, the other block's accumulator lands in the
// last ring (64 KiB of f16, as many bytes as the f32 accumulator): its loop
// is done, so the sum takes no shared memory of its own.
// RING-LABEL: func.func @gemm
// RING:         memref.alloc() {alignment = 1024 : i64} : memref<32768xf16>
// RING:         %[[RING:.*]] = memref.alloc() {alignment = 1024 : i64} : memref<32768xf16>
// RING-NOT:     memref.alloc() {alignment = 1024 : i64} : memref<16384xf32>
// RING:         memref.extract_aligned_pointer_as_index %[[RING]]
// RING:         nvvm.cluster.arrive {aligned}
// RING-NEXT:    nvvm.cluster.wait {aligned}
// RING-NEXT:    scf.if
// RING:           nvvm.mapa
// RING:         nvvm.cluster.arrive {aligned}
// RING-NEXT:    nvvm.cluster.wait {aligned}
// RING-NOT:     nvvm.cluster.arrive
// RING:         llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// RING:         return
// REG-NEXT:    arith.addf
// expected-remark@+1 {{num_ctas = 2 is not applied: the kernel's blocks already split its K loop (split_k)}}
func.func @gemm(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>)
    attributes {tile.kernel, tile.hints = {split_k = 2 : i64, num_ctas = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %bm = tile.block_id x : index
  %bn = tile.block_id y : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x64xf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  // expected-remark@+1 {{each program block runs as a cluster of 2 blocks, each a share of this loop; the first sums their accumulators and runs the rest}}
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%bm, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %b = tile.load %pb[%k, %bn] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %acc_in : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %pc[%bm, %bn] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}

// -----

// A loop that also carries a running maximum: its shares would not add
// up; the kernel stays whole.
// CHECK-LABEL: func.func @running_max
// CHECK-NOT:     tile.cluster_sum
// CHECK:         return
func.func @running_max(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>, %M: memref<?x?xf32>)
    attributes {tile.kernel, tile.hints = {split_k = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x64xf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-remark@+1 {{split_k = 2 is not applied: the loop carries a value that is not an mma accumulator (a running maximum, a counter), whose shares would not add up}}
  %acc, %mx = scf.for %k = %c0 to %nk step %c1 iter_args(%in = %zero, %m = %zero) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %d = tile.mma %a, %b, %in : tensor<64x64xf16>, tensor<64x64xf16> into tensor<64x64xf32>
    %m2 = arith.maximumf %m, %d : tensor<64x64xf32>
    scf.yield %d, %m2 : tensor<64x64xf32>, tensor<64x64xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// A bias as the loop's init: block 0 starts from it, the others from
// zeros.
// CHECK-LABEL: func.func @bias_init
// CHECK:         %[[BIAS:.*]] = tile.load
// CHECK:         %[[INIT:.*]] = scf.if %{{.*}} -> (tensor<64x64xf32>) {
// CHECK-NEXT:      scf.yield %[[BIAS]]
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
// CHECK-NEXT:      scf.yield %[[Z]]
// CHECK:         scf.for {{.*}} iter_args(%{{.*}} = %[[INIT]])
func.func @bias_init(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>)
    attributes {tile.kernel, tile.hints = {split_k = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x64xf16>
  %bias = tile.load %pc[%c0, %c0] : !tile.partition_view<64x64xf32> -> tensor<64x64xf32>
  // expected-remark@+1 {{each program block runs as a cluster of 2 blocks}}
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%in = %bias) -> (tensor<64x64xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %d = tile.mma %a, %b, %in : tensor<64x64xf16>, tensor<64x64xf16> into tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// An mma outside any loop: nothing to share.
// CHECK-LABEL: func.func @no_loop
// CHECK-NOT:     tile.cluster
func.func @no_loop(%A: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel, tile.hints = {split_k = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-remark@+1 {{split_k = 2 is not applied: its tile.mma is not in a loop at the kernel's top level}}
  %d = tile.mma %a, %a, %zero : tensor<64x64xf16>, tensor<64x64xf16> into tensor<64x64xf32>
  tile.store %d, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// A split kernel storing f16, the operands' type: after its loop, the sum
// and the store's exchange take the rings' memory, which then need no room
// beside them; with no num_stages hint, its rings go as far ahead as fit
// (a tile a block, the K loop all it does): 3 ahead, 6 slots of 32 KiB.
// (The f32 store of @gemm above keeps room for its exchange: 1 ahead.)
// CHECK-LABEL: func.func @gemm_f16_out
// DEEP-LABEL: func.func @gemm_f16_out
// DEEP:         tile.load {{.*}} {tile.ring = array<i64: 0, 3, 0, 6>}
// DEEP:         tile.load {{.*}} {tile.ring = array<i64: 1, 3, 0, 6>}
func.func @gemm_f16_out(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>)
    attributes {tile.kernel, tile.hints = {split_k = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<128x128xf16>
  %bm = tile.block_id x : index
  %bn = tile.block_id y : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x64xf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  // expected-remark@+1 {{each program block runs as a cluster of 2 blocks, each a share of this loop; the first sums their accumulators and runs the rest}}
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%bm, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %b = tile.load %pb[%k, %bn] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %acc_in : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %h = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xf16>
  tile.store %h, %pc[%bm, %bn] : tensor<128x128xf16> -> !tile.partition_view<128x128xf16>
  return
}

// -----

// A 128x256 f32 accumulator (128 KiB) with a 96 KiB ring of B the largest
// done: the other block's registers go over in two rounds (96 registers a
// thread, then 32), the cluster meeting before and after each.
// CHECK-LABEL: func.func @gemm_wide
// ROUNDS-LABEL: func.func @gemm_wide
// ROUNDS:         %[[B:.*]] = memref.alloc() {alignment = 1024 : i64} : memref<49152xf16>
// ROUNDS-NOT:     memref.alloc() {alignment = 1024 : i64} : memref<{{.*}}xf32>
// ROUNDS:         memref.extract_aligned_pointer_as_index %[[B]]
// ROUNDS-COUNT-2: nvvm.cluster.arrive {aligned}
// ROUNDS:         llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// ROUNDS-COUNT-2: nvvm.cluster.arrive {aligned}
// ROUNDS:         llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// ROUNDS-NOT:     nvvm.cluster.arrive
// ROUNDS:         return
func.func @gemm_wide(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>)
    attributes {tile.kernel, tile.hints = {split_k = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x256xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x256xf32>
  %bm = tile.block_id x : index
  %bn = tile.block_id y : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x64xf16>
  %zero = arith.constant dense<0.0> : tensor<128x256xf32>
  // expected-remark@+1 {{each program block runs as a cluster of 2 blocks, each a share of this loop; the first sums their accumulators and runs the rest}}
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %zero) -> (tensor<128x256xf32>) {
    %a = tile.load %pa[%bm, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %b = tile.load %pb[%k, %bn] : !tile.partition_view<64x256xf16> -> tensor<64x256xf16>
    %d = tile.mma %a, %b, %acc_in : tensor<128x64xf16>, tensor<64x256xf16> into tensor<128x256xf32>
    scf.yield %d : tensor<128x256xf32>
  }
  tile.store %acc, %pc[%bm, %bn] : tensor<128x256xf32> -> !tile.partition_view<128x256xf32>
  return
}
