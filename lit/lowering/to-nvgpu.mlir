// RUN: tile-opt %s -split-input-file --convert-tile-to-nvgpu | FileCheck %s

// The contract's main loop: a variant with two descriptor arguments, TMA
// loads into 1024-aligned workgroup buffers, wgmma on a loop-carried
// accumulator, and the registers back in a tensor after the loop.

// CHECK-LABEL: func.func @mm(
// CHECK-SAME:    attributes {tile.kernel}
// CHECK:         tile.mma
// CHECK-LABEL: func.func @mm__wgmma(
// CHECK-SAME:    %{{.*}}: memref<?x?xf16>, %{{.*}}: memref<?x?xf16>, %{{.*}}: memref<?x?xf32>,
// CHECK-SAME:    %[[TA:.*]]: !llvm.ptr {tile.tma = {arg = 0 : i64, box = array<i64: 128, 64>, swizzle = 128 : i64}},
// CHECK-SAME:    %[[TB:.*]]: !llvm.ptr {tile.tma = {arg = 1 : i64, box = array<i64: 64, 64>, swizzle = 128 : i64}})
// CHECK-SAME:    attributes {tile.block_size = 128 : i64, tile.kernel, tile.variant_of = @mm}
// CHECK:         %[[BAR:.*]] = nvgpu.mbarrier.create
// CHECK:         nvgpu.mbarrier.init %[[BAR]]
// CHECK:         %[[SA:.*]] = memref.alloc() {alignment = 1024 : i64} : memref<128x64xf16, #gpu.address_space<workgroup>>
// CHECK:         %[[SB:.*]] = memref.alloc() {alignment = 1024 : i64} : memref<64x128xf16, #gpu.address_space<workgroup>>
// CHECK:         memref.reinterpret_cast %[[SB]] to offset: [0], sizes: [64, 64]
// CHECK:         memref.reinterpret_cast %[[SB]] to offset: [4096], sizes: [64, 64]
// CHECK:         builtin.unrealized_conversion_cast %[[TA]] : !llvm.ptr to !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, 3>, swizzle = swizzle_128b
// CHECK:         %[[INIT:.*]] = nvgpu.warpgroup.mma.init.accumulator -> <fragmented = vector<128x128xf32>>
// CHECK:         %[[R:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (!nvgpu.warpgroup.accumulator<fragmented = vector<128x128xf32>>)
// CHECK-NOT:       tile.load
// CHECK:           nvgpu.mbarrier.arrive.expect_tx %[[BAR]][%{{.*}}], %c32768
// CHECK:           nvgpu.tma.async.load {{.*}} to %[[SA]]
// CHECK:           nvgpu.tma.async.load
// CHECK:           nvgpu.tma.async.load
// CHECK:           nvgpu.mbarrier.try_wait.parity %[[BAR]]
// CHECK:           %[[D:.*]] = nvgpu.warpgroup.mma %{{.*}}, %{{.*}}, %[[ACC]] {transposeB, waitGroup = 0 : i64}
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      scf.yield %[[D]]
// CHECK:         %[[BUF:.*]] = memref.alloc() : memref<128x128xf32>
// CHECK:         nvgpu.warpgroup.mma.store %[[R]], %[[BUF]]
// CHECK:         %[[T:.*]] = bufferization.to_tensor %[[BUF]] restrict
// CHECK-NOT:     arith.addf
// CHECK:         tile.store %[[T]]
func.func @mm(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %bm = tile.block_id x : index
  %bn = tile.block_id y : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x64xf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%c = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%bm, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %b = tile.load %pb[%k, %bn] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %c : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %pc[%bm, %bn] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}

// -----

// An f16 accumulator with a non-zero start: f32 registers, the start
// added after the loop, one rounding at the end. M = 64, N = 64.

// CHECK-LABEL: func.func @acc16__wgmma(
// CHECK:         nvgpu.warpgroup.mma.init.accumulator -> <fragmented = vector<64x64xf32>>
// CHECK:         nvgpu.warpgroup.mma.store
// CHECK:         %[[T:.*]] = bufferization.to_tensor
// CHECK:         %[[E:.*]] = arith.extf %[[START:.*]] : tensor<64x64xf16> to tensor<64x64xf32>
// CHECK:         %[[S:.*]] = arith.addf %[[T]], %[[E]] : tensor<64x64xf32>
// CHECK:         %[[H:.*]] = arith.truncf %[[S]] : tensor<64x64xf32> to tensor<64x64xf16>
// CHECK:         tile.store %[[H]]
func.func @acc16(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %start = tile.load %pc[%c0, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
  %acc = scf.for %k = %c0 to %c4 step %c1 iter_args(%c = %start) -> (tensor<64x64xf16>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %d = tile.mma %a, %b, %c : tensor<64x64xf16>, tensor<64x64xf16> into tensor<64x64xf16>
    scf.yield %d : tensor<64x64xf16>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<64x64xf16> -> !tile.partition_view<64x64xf16>
  return
}

// -----

// What stays on the general path, never an error: tf32 operands, a
// non-zero padding, a loop inside a loop, an accumulator read besides the
// mma, K other than 64.

// CHECK-NOT: __wgmma
func.func @tf32(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf32> -> !tile.partition_view<128x64xf32>
  %pb = tile.partition_view %B : memref<?x?xf32> -> !tile.partition_view<64x128xf32>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %c1 step %c1 iter_args(%c = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<128x64xf32> -> tensor<128x64xf32>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<64x128xf32> -> tensor<64x128xf32>
    %d = tile.mma %a, %b, %c : tensor<128x64xf32>, tensor<64x128xf32> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}
func.func @padded(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16, padding = nan>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %c1 step %c1 iter_args(%c = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<128x64xf16, padding = nan> -> tensor<128x64xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %c : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}
func.func @nested(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  scf.for %t = %c0 to %c2 step %c1 {
    %acc = scf.for %k = %c0 to %c1 step %c1 iter_args(%c = %zero) -> (tensor<128x128xf32>) {
      %a = tile.load %pa[%t, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
      %b = tile.load %pb[%k, %c0] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
      %d = tile.mma %a, %b, %c : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
      scf.yield %d : tensor<128x128xf32>
    }
    tile.store %acc, %pc[%t, %c0] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  }
  return
}
func.func @reread(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %c1 step %c1 iter_args(%c = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %c : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    %e = arith.addf %d, %c : tensor<128x128xf32>
    scf.yield %e : tensor<128x128xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}
func.func @k32(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x32xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<32x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %c1 step %c1 iter_args(%c = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<128x32xf16> -> tensor<128x32xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<32x128xf16> -> tensor<32x128xf16>
    %d = tile.mma %a, %b, %c : tensor<128x32xf16>, tensor<32x128xf16> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}
