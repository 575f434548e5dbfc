// RUN: tile-opt %s -split-input-file --convert-tile-to-nvgpu | FileCheck %s

// The contract's main loop: a variant with two descriptor arguments, a
// ring of four stages of 1024-aligned workgroup buffers (views of one
// allocation, which the f32 tile reuses after the loop), the first three
// stages requested before the loop, wgmma left in flight
// (waitGroup 1) on a loop-carried accumulator, the stage the previous
// wgmma released refilled after a barrier, and the registers back in a
// tensor after the last wgmma group is waited for. Two warpgroups share
// the 128 rows: each multiplies its 64 rows of A and holds a 64x128
// accumulator.

// CHECK-LABEL: func.func @mm(
// CHECK-SAME:    attributes {tile.kernel}
// CHECK:         tile.mma
// CHECK-LABEL: func.func @mm__wgmma(
// CHECK-SAME:    %{{.*}}: memref<?x?xf16>, %{{.*}}: memref<?x?xf16>, %{{.*}}: memref<?x?xf32>,
// CHECK-SAME:    %[[TA:.*]]: !llvm.ptr {tile.tma = {arg = 0 : i64, box = array<i64: 128, 64>, swizzle = 128 : i64}},
// CHECK-SAME:    %[[TB:.*]]: !llvm.ptr {tile.tma = {arg = 1 : i64, box = array<i64: 64, 64>, swizzle = 128 : i64}})
// CHECK-SAME:    attributes {tile.block_size = 256 : i64, tile.kernel, tile.variant_of = @mm}
// CHECK:         %[[BAR:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
// CHECK-COUNT-4: nvgpu.mbarrier.init %[[BAR]]
// CHECK:         %[[RAW:.*]] = memref.alloc() {alignment = 1024 : i64} : memref<131072xi8, #gpu.address_space<workgroup>>
// CHECK:         %[[SA:.*]] = memref.view %[[RAW]][%{{.*}}][] : memref<131072xi8, #gpu.address_space<workgroup>> to memref<4x128x64xf16, #gpu.address_space<workgroup>>
// CHECK:         %[[SB:.*]] = memref.view %[[RAW]][%c65536][] : memref<131072xi8, #gpu.address_space<workgroup>> to memref<4x64x128xf16, #gpu.address_space<workgroup>>
// CHECK:         builtin.unrealized_conversion_cast %[[TA]] : !llvm.ptr to !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, 3>, swizzle = swizzle_128b
// CHECK:         %[[INIT:.*]] = nvgpu.warpgroup.mma.init.accumulator -> <fragmented = vector<64x128xf32>>
// The prologue: stages 0 to 2, each only if its iteration exists.
// CHECK:         nvgpu.mbarrier.arrive.expect_tx %[[BAR]][%{{.*}}], %c32768
// CHECK:         memref.reinterpret_cast %[[SA]] to offset: [%{{.*}}], sizes: [128, 64], strides: [64, 1]
// CHECK:         nvgpu.tma.async.load
// CHECK:         memref.reinterpret_cast %[[SB]] to offset: [%{{.*}}], sizes: [64, 64], strides: [64, 1]
// CHECK:         nvgpu.tma.async.load
// CHECK:         nvgpu.tma.async.load
// CHECK:         nvgpu.mbarrier.arrive.expect_tx
// CHECK-COUNT-3: nvgpu.tma.async.load
// CHECK:         nvgpu.mbarrier.arrive.expect_tx
// CHECK-COUNT-3: nvgpu.tma.async.load
// CHECK-NOT:     nvgpu.tma.async.load
// CHECK:         %[[R:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (!nvgpu.warpgroup.accumulator<fragmented = vector<64x128xf32>>)
// CHECK-NOT:       tile.load
// CHECK:           %[[STAGE:.*]] = arith.remui %{{.*}}, %c4
// CHECK:           nvgpu.mbarrier.try_wait.parity %[[BAR]][%[[STAGE]]]
// CHECK:           memref.reinterpret_cast %[[SA]] to offset: [%{{.*}}], sizes: [64, 64], strides: [64, 1]
// CHECK:           nvgpu.warpgroup.generate.descriptor {{.*}} -> <tensor = memref<64x64xf16, 3>>
// CHECK:           %[[D:.*]] = nvgpu.warpgroup.mma %{{.*}}, %{{.*}}, %[[ACC]] {transposeB}
// CHECK-NEXT:      gpu.barrier
// CHECK:           nvgpu.mbarrier.arrive.expect_tx
// CHECK-COUNT-3:   nvgpu.tma.async.load
// CHECK:           scf.yield %[[D]]
// CHECK:         nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT:    gpu.barrier
// CHECK:         %[[BUF:.*]] = memref.view %[[RAW]][%{{.*}}][] : memref<131072xi8, #gpu.address_space<workgroup>> to memref<128x128xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[VIEW:.*]] = memref.subview %[[BUF]][0, 0] [64, 128] [1, 1]
// CHECK-NEXT:    nvgpu.warpgroup.mma.store %[[R]], %[[VIEW]]
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

// -----

// The num_stages hint sets the ring's size (within what fits).
// CHECK-LABEL: func.func @hinted__wgmma(
// CHECK:         nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
// CHECK:         memref.view {{.*}} to memref<2x128x64xf16, #gpu.address_space<workgroup>>
func.func @hinted(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel, tile.hints = {num_stages = 2 : i64}} {
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

// Load coordinates computed in the body (here K walked backwards) cannot
// be requested ahead: one stage, loads at the top of each iteration, and
// the mma waited for (waitGroup 0) before the buffers are refilled.
// CHECK-LABEL: func.func @backwards__wgmma(
// CHECK:         nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>>{{$}}
// CHECK:         scf.for
// CHECK:           nvgpu.mbarrier.arrive.expect_tx
// CHECK:           nvgpu.mbarrier.try_wait.parity
// CHECK:           nvgpu.warpgroup.mma {{.*}} {transposeB, waitGroup = 0 : i64}
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      scf.yield
// CHECK-NOT:     nvvm.wgmma.wait.group
func.func @backwards(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %bm = tile.block_id x : index
  %bn = tile.block_id y : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x64xf16>
  %last = arith.subi %nk, %c1 : index
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%c = %zero) -> (tensor<128x128xf32>) {
    %kk = arith.subi %last, %k : index
    %a = tile.load %pa[%bm, %kk] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %b = tile.load %pb[%kk, %bn] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %c : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %pc[%bm, %bn] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}

// -----

// warp_specialize: a producer warpgroup after the two consumers (block
// 384); its first thread requests every stage once its `empty` barrier
// (one arrive per consumer warp, 8) says the stage is free; the
// consumers' loop has no iterations for the producer, no block barrier,
// and releases the previous stage from lane 0 of each warp; only the
// consumers store the accumulator.
// CHECK-LABEL: func.func @specialized__wgmma(
// CHECK-SAME:    tile.block_size = 384 : i64
// CHECK:         %[[FULL:.*]] = nvgpu.mbarrier.create -> <{{.*}}num_barriers = 2>
// CHECK:         %[[EMPTY:.*]] = nvgpu.mbarrier.create -> <{{.*}}num_barriers = 2>
// CHECK:         nvgpu.mbarrier.init %[[EMPTY]][%{{.*}}], %c8
// CHECK:         scf.if
// CHECK-NEXT:      scf.for
// CHECK:             nvgpu.mbarrier.try_wait.parity %[[EMPTY]]
// CHECK:             nvgpu.mbarrier.arrive.expect_tx %[[FULL]]
// CHECK:             nvgpu.tma.async.load
// CHECK:         %[[BOUND:.*]] = arith.select
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[BOUND]]
// CHECK:           nvgpu.mbarrier.try_wait.parity %[[FULL]]
// CHECK-NOT:       gpu.barrier
// CHECK:           nvgpu.warpgroup.mma {{.*}} {transposeB} :
// CHECK-NOT:       gpu.barrier
// CHECK:           scf.if
// CHECK-NEXT:        arith.subi
// CHECK-NEXT:        arith.remui
// CHECK-NEXT:        nvgpu.mbarrier.arrive %[[EMPTY]]
// CHECK:         scf.if
// CHECK-NEXT:      nvgpu.warpgroup.mma.store
func.func @specialized(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>)
    attributes {tile.kernel, tile.hints = {num_stages = 2 : i64, warp_specialize = 1 : i64}} {
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
