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
// CHECK-SAME:    %[[TB:.*]]: !llvm.ptr {tile.tma = {arg = 1 : i64, box = array<i64: 64, 64>, swizzle = 128 : i64}},
// CHECK-SAME:    %[[TC:.*]]: !llvm.ptr {tile.tma = {arg = 2 : i64, box = array<i64: 128, 32>, swizzle = 128 : i64}})
// CHECK-SAME:    attributes {tile.block_size = 256 : i64, tile.kernel, tile.variant_of = @mm}
// CHECK:         %[[BAR:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
// CHECK-COUNT-4: nvgpu.mbarrier.init %[[BAR]]
// CHECK:         %[[RAW:.*]] = memref.alloc() {alignment = 1024 : i64} : memref<131072xi8, #gpu.address_space<workgroup>>
// CHECK:         %[[SA:.*]] = memref.view %[[RAW]][%{{.*}}][] : memref<131072xi8, #gpu.address_space<workgroup>> to memref<4x128x64xf16, #gpu.address_space<workgroup>>
// CHECK:         %[[SB:.*]] = memref.view %[[RAW]][%c65536][] : memref<131072xi8, #gpu.address_space<workgroup>> to memref<4x64x128xf16, #gpu.address_space<workgroup>>
// CHECK:         builtin.unrealized_conversion_cast %[[TA]] : !llvm.ptr to !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, 3>, swizzle = swizzle_128b
// CHECK:         %[[INIT:.*]] = nvgpu.warpgroup.mma.init.accumulator -> <fragmented = vector<64x128xf32>>
// The prologue: stages 0 to 2, each only if its iteration exists. Tile
// coordinates are clamped to [-1, (2^31 - 1) / box - 1] before they are
// scaled, so a far coordinate cannot wrap onto the array in 32 bits.
// CHECK:         %[[ROW0:.*]] = arith.maxsi %{{.*}}, %c-1
// CHECK:         %[[ROW1:.*]] = arith.minsi %[[ROW0]], %c16777214
// CHECK:         arith.muli %[[ROW1]], %c128
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
// The stage and the phase in 32 bits.
// CHECK:           %[[NARROW:.*]] = arith.index_castui %{{.*}} : index to i32
// CHECK:           %[[STAGE32:.*]] = arith.remui %[[NARROW]], %c4_i32
// CHECK:           %[[ROUND:.*]] = arith.divui %[[NARROW]], %c4_i32
// CHECK:           %[[ODD:.*]] = arith.trunci %[[ROUND]] : i32 to i1
// CHECK:           %[[STAGE:.*]] = arith.index_castui %[[STAGE32]] : i32 to index
// CHECK:           nvgpu.mbarrier.try_wait.parity %[[BAR]][%[[STAGE]]], %[[ODD]]
// CHECK:           memref.reinterpret_cast %[[SA]] to offset: [%{{.*}}], sizes: [64, 64], strides: [64, 1]
// CHECK:           nvgpu.warpgroup.generate.descriptor {{.*}} -> <tensor = memref<64x64xf16, 3>>
// CHECK:           %[[D:.*]] = nvgpu.warpgroup.mma %{{.*}}, %{{.*}}, %[[ACC]] {transposeB}
// CHECK-NEXT:      gpu.barrier
// CHECK:           nvgpu.mbarrier.arrive.expect_tx
// CHECK-COUNT-3:   nvgpu.tma.async.load
// CHECK:           scf.yield %[[D]]
// The epilogue: the registers go to the ring's memory as 128-byte
// swizzled f32 boxes of 32 columns (each thread its own pairs, stores
// tile-distribute leaves alone), a proxy fence and a barrier, then thread 0
// stores the four boxes with the TMA through C's descriptor and waits until
// they are read out.
// CHECK:         nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT:    gpu.barrier
// CHECK:         %[[REGS:.*]] = builtin.unrealized_conversion_cast %[[R]] : !nvgpu.warpgroup.accumulator<fragmented = vector<64x128xf32>> to !llvm.struct<(struct<(f32,
// CHECK:         %[[FLAT:.*]] = memref.view %[[RAW]][%{{.*}}][] : memref<131072xi8, #gpu.address_space<workgroup>> to memref<8192xi64, #gpu.address_space<workgroup>>
// CHECK:         %[[FRAG:.*]] = llvm.extractvalue %[[REGS]][0]
// CHECK:         arith.xori
// CHECK:         llvm.extractvalue %[[FRAG]][0] : !llvm.struct<(f32,
// CHECK-NEXT:    llvm.extractvalue %[[FRAG]][1] : !llvm.struct<(f32,
// CHECK-NEXT:    %[[PAIR:.*]] = vector.from_elements
// CHECK-NEXT:    %[[BITS:.*]] = llvm.bitcast %[[PAIR]] : vector<2xf32> to i64
// CHECK-NEXT:    memref.store %[[BITS]], %[[FLAT]][%{{.*}}] {tile.distributed}
// CHECK-COUNT-31: memref.store {{.*}} {tile.distributed}
// CHECK-NOT:     memref.store
// CHECK:         nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    scf.if
// CHECK:           builtin.unrealized_conversion_cast %[[TC]] : !llvm.ptr to !nvgpu.tensormap.descriptor<tensor = memref<128x32xf32, 3>, swizzle = swizzle_128b
// CHECK-COUNT-4:   nvgpu.tma.async.store
// CHECK-NOT:       nvgpu.tma.async.store
// CHECK:           nvvm.cp.async.bulk.commit.group
// CHECK-NEXT:      nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-NOT:     tile.store
// CHECK-NOT:     nvgpu.warpgroup.mma.store
// CHECK:         return
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

// bf16 out through an arith.truncf: the pairs are rounded in registers and
// stored as 32-bit words in 64-column boxes. Anything else between the loop
// and the store (here a relu) takes the general epilogue.

// CHECK-LABEL: func.func @bf16out__wgmma(
// CHECK-SAME:    !llvm.ptr {tile.tma = {arg = 2 : i64, box = array<i64: 128, 64>, swizzle = 128 : i64}})
// CHECK:         %[[PAIR:.*]] = vector.from_elements
// CHECK-NEXT:    %[[HALF:.*]] = arith.truncf %[[PAIR]] : vector<2xf32> to vector<2xbf16>
// CHECK-NEXT:    %[[BITS:.*]] = llvm.bitcast %[[HALF]] : vector<2xbf16> to i32
// CHECK-NEXT:    memref.store %[[BITS]], %{{.*}} {tile.distributed} : memref<8192xi32, #gpu.address_space<workgroup>>
// CHECK:         nvgpu.tma.async.store {{.*}} : memref<128x64xbf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>> -> <tensor = memref<128x64xbf16, 3>
// CHECK:         nvgpu.tma.async.store
// CHECK-NEXT:    nvvm.cp.async.bulk.commit.group
// CHECK-NOT:     tile.store
// CHECK:         return
// CHECK-LABEL: func.func @relu__wgmma(
// CHECK-NOT:     tma.async.store
// CHECK:         nvgpu.warpgroup.mma.store
// CHECK:         arith.maximumf
// CHECK:         tile.store
func.func @bf16out(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %C: memref<?x?xbf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xbf16> -> !tile.partition_view<128x64xbf16>
  %pb = tile.partition_view %B : memref<?x?xbf16> -> !tile.partition_view<64x128xbf16>
  %pc = tile.partition_view %C : memref<?x?xbf16> -> !tile.partition_view<128x128xbf16>
  %bm = tile.block_id x : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x64xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%c = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%bm, %k] : !tile.partition_view<128x64xbf16> -> tensor<128x64xbf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<64x128xbf16> -> tensor<64x128xbf16>
    %d = tile.mma %a, %b, %c : tensor<128x64xbf16>, tensor<64x128xbf16> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %out = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %out, %pc[%bm, %c0] : tensor<128x128xbf16> -> !tile.partition_view<128x128xbf16>
  return
}
func.func @relu(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x64xf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%c = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %c : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %relu = arith.maximumf %acc, %zero : tensor<128x128xf32>
  tile.store %relu, %pc[%c0, %c0] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
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
// 384). The warpgroup index is broadcast from lane 0 (warp-uniform, so
// ptxas does not serialise the consumers' wgmma); the producer warpgroup
// waits until its `empty` barrier (one arrive per consumer warp, 8) says
// the stage is free, and its first thread requests the stage (predicated,
// not a branch); the consumers' loop has no iterations for the producer,
// no block barrier, and releases the previous stage from lane 0 of each
// warp; only the consumers write the accumulator to shared memory for the
// TMA store.
// CHECK-LABEL: func.func @specialized__wgmma(
// CHECK-SAME:    tile.block_size = 384 : i64
// CHECK:         %[[SHUFFLED:.*]], %{{.*}} = gpu.shuffle  idx
// CHECK:         %[[WG:.*]] = arith.index_castui %[[SHUFFLED]] : i32 to index
// CHECK:         %[[FULL:.*]] = nvgpu.mbarrier.create -> <{{.*}}num_barriers = 2>
// CHECK:         %[[EMPTY:.*]] = nvgpu.mbarrier.create -> <{{.*}}num_barriers = 2>
// CHECK:         nvgpu.mbarrier.init %[[EMPTY]][%{{.*}}], %c8
// CHECK:         %[[PRODUCER:.*]] = arith.cmpi eq, %[[WG]], %c2
// CHECK:         %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %c256
// CHECK:         scf.if %[[PRODUCER]]
// CHECK-NEXT:      scf.for
// CHECK:             nvgpu.mbarrier.try_wait.parity %[[EMPTY]]
// CHECK:             nvgpu.mbarrier.arrive.expect_tx %[[FULL]][%{{.*}}], %{{.*}}, predicate = %[[FIRST]]
// CHECK:             nvgpu.tma.async.load {{.*}} predicate = %[[FIRST]]
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
// CHECK:         %[[CONSUMER:.*]] = arith.cmpi ult, %{{.*}}, %c2
// CHECK:         scf.if %[[CONSUMER]]
// CHECK:           memref.store {{.*}} {tile.distributed}
// CHECK:         nvvm.fence.proxy
// CHECK:         nvgpu.tma.async.store
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

// -----

// persistent = 1: the variant takes the program's 1-D grid as a last
// index argument. A loop over this block's tiles (their count from the
// grid and gpu.grid_dim) recomputes the program's block-dependent indices
// once per tile and runs the K loop inside; in the K loop, the loads of
// the next K steps take the tile's coordinates, and past the tile's end
// (the else branch) those of the next tile, so they are in flight during
// the epilogue. After each K loop the accumulator is staged after the ring
// (offset 98304) and stored with the TMA; the last boxes are waited for
// after the loop over tiles.
// CHECK-LABEL: func.func @persistent__wgmma(
// CHECK-SAME:    %[[GRID:.*]]: index)
// CHECK-SAME:    tile.persistent
// CHECK:         memref.alloc() {alignment = 1024 : i64} : memref<131072xi8
// CHECK:         %[[G:.*]] = gpu.grid_dim x
// CHECK:         %[[COUNT:.*]] = arith.divui %{{.*}}, %[[G]]
// CHECK:         scf.for %[[T:.*]] = %{{.*}} to %[[COUNT]] step
// CHECK:           %[[VB_OFFSET:.*]] = arith.muli %[[T]], %[[G]]
// CHECK:           scf.for %{{.*}} = %c0 to %{{.*}} step %c1 iter_args
// CHECK:             nvgpu.warpgroup.mma
// CHECK:             gpu.barrier
// CHECK:             arith.cmpi ult
// CHECK:             scf.if
// CHECK:               nvgpu.tma.async.load
// CHECK:             } else {
// CHECK:               arith.divui
// CHECK:               nvgpu.tma.async.load
// CHECK:             scf.yield
// CHECK:           nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:           nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK:           gpu.barrier
// CHECK:           memref.view %{{.*}}[%c98304{{.*}}] : memref<131072xi8, #gpu.address_space<workgroup>> to memref<8192xi32
// CHECK:           nvgpu.tma.async.store
// CHECK:           nvvm.cp.async.bulk.commit.group
// CHECK-NOT:       nvvm.cp.async.bulk.wait_group
// CHECK:         }
// CHECK:         nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-NOT:     tile.store
// CHECK:         return
func.func @persistent(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>)
    attributes {tile.kernel, tile.hints = {num_stages = 3 : i64, persistent = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<128x128xf16>
  %bid = tile.block_id x : index
  %nn = tile.num_tiles %pc dim 1 : !tile.partition_view<128x128xf16>
  %bm = arith.divui %bid, %nn : index
  %bn = arith.remui %bid, %nn : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x64xf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%c = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%bm, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %b = tile.load %pb[%k, %bn] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %c : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %out = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xf16>
  tile.store %out, %pc[%bm, %bn] : tensor<128x128xf16> -> !tile.partition_view<128x128xf16>
  return
}

// -----

// persistent = 1 with warp_specialize = 1: the roles are the two sides of
// one if/else, so that `setmaxnreg` moves registers from the producer (40)
// to the consumers (232), under a register cap at entry (nvvm.minctasm =
// 1). The producer warpgroup walks the block's tiles as the consumers do
// (their coordinates once per tile) and requests each K step; the
// consumers walk the tiles in the else branch, and their epilogue meets at
// named barrier 1 of 256 threads, as the producer is still loading.
// CHECK-LABEL: func.func @persistent_producer__wgmma(
// CHECK-SAME:    nvvm.minctasm = 1 : i32
// CHECK-SAME:    tile.block_size = 384 : i64
// CHECK-SAME:    tile.persistent
// CHECK:         %[[G:.*]] = gpu.grid_dim x
// CHECK:         %[[COUNT:.*]] = arith.divui %{{.*}}, %[[G]]
// CHECK:         scf.if
// CHECK-NEXT:      nvvm.setmaxregister decrease 40
// CHECK-NEXT:      scf.for %{{.*}} = %{{.*}} to %[[COUNT]]
// CHECK:             arith.divui
// CHECK:             scf.for
// CHECK-NOT:           arith.divui {{.*}} : index
// CHECK:               nvgpu.mbarrier.try_wait.parity
// CHECK-NOT:           arith.divui {{.*}} : index
// CHECK:               nvgpu.tma.async.load
// CHECK:         } else {
// CHECK-NEXT:      nvvm.setmaxregister increase 232
// CHECK-NEXT:      scf.for %{{.*}} = %{{.*}} to %[[COUNT]]
// CHECK:             scf.for
// CHECK-NOT:           gpu.barrier
// CHECK:               nvgpu.warpgroup.mma
// CHECK:               nvgpu.mbarrier.arrive
// CHECK:             nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:             nvvm.barrier id = %{{.*}} number_of_threads = %c256_i32
// CHECK:             nvvm.fence.proxy
// CHECK:             nvvm.barrier id = %{{.*}} number_of_threads = %c256_i32
// CHECK:             nvgpu.tma.async.store
// CHECK:           nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-NOT:     gpu.barrier
// CHECK:         return
func.func @persistent_producer(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>)
    attributes {tile.kernel, tile.hints = {num_stages = 3 : i64, persistent = 1 : i64, warp_specialize = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<128x128xf16>
  %bid = tile.block_id x : index
  %nn = tile.num_tiles %pc dim 1 : !tile.partition_view<128x128xf16>
  %bm = arith.divui %bid, %nn : index
  %bn = arith.remui %bid, %nn : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x64xf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%c = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%bm, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %b = tile.load %pb[%k, %bn] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %c : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %out = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xf16>
  tile.store %out, %pc[%bm, %bn] : tensor<128x128xf16> -> !tile.partition_view<128x128xf16>
  return
}

// -----

// num_ctas = 2 with a persistent producer: clusters of two blocks. Each
// `empty` barrier counts both blocks' consumer warps (16); the barriers are
// initialised for the cluster before either block touches the other's. Per
// tile, each block recomputes its partner's (virtual block ^ 1) B
// coordinates; when they agree, each requests every other 64-column box of
// B for both (multicast mask 0b11), and lane 1 of each consumer warp
// releases the partner's stage through `mapa` whenever the partner has a
// tile, shared or not (a later shared tile's multicast must wait for it).
// No block exits before its partner is done with its barriers.
// CHECK-LABEL: func.func @cluster__wgmma(
// CHECK-SAME:    nvvm.cluster_dim = array<i32: 2, 1, 1>
// CHECK:         nvgpu.mbarrier.init %{{.*}}[%{{.*}}], %c16
// CHECK:         nvvm.fence.mbarrier.init
// CHECK-NEXT:    nvvm.cluster.arrive {aligned}
// CHECK-NEXT:    nvvm.cluster.wait {aligned}
// CHECK:         scf.if
// CHECK-NEXT:      nvvm.setmaxregister decrease 40
// CHECK:             arith.xori %{{.*}}, %c1{{.*}} : index
// CHECK:             scf.for
// CHECK:               nvgpu.tma.async.load {{.*}} multicast_mask = %c3_i16
// CHECK:         } else {
// CHECK:               nvgpu.warpgroup.mma
// CHECK:               nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT:          nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<7>
// CHECK:             nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:             nvvm.mapa
// CHECK:         nvvm.cluster.arrive {aligned}
// CHECK-NEXT:    nvvm.cluster.wait {aligned}
// CHECK-NEXT:    return
func.func @cluster(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>)
    attributes {tile.kernel, tile.hints = {num_stages = 3 : i64, persistent = 1 : i64, warp_specialize = 1 : i64, num_ctas = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<128x128xf16>
  %bid = tile.block_id x : index
  %nm = tile.num_tiles %pc dim 0 : !tile.partition_view<128x128xf16>
  %bm = arith.remui %bid, %nm : index
  %bn = arith.divui %bid, %nm : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x64xf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%c = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%bm, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %b = tile.load %pb[%k, %bn] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %c : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %out = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xf16>
  tile.store %out, %pc[%bm, %bn] : tensor<128x128xf16> -> !tile.partition_view<128x128xf16>
  return
}

// -----

// M = 256: each of the two warpgroups holds 128 accumulator rows (two
// wgmma row blocks), one 256-row TMA box of A a stage. With the TMA
// epilogue the ring may take 200 KiB: four stages of 48 KiB.
// CHECK-LABEL: func.func @tall__wgmma(
// CHECK-SAME:    box = array<i64: 256, 64>
// CHECK-SAME:    tile.block_size = 256 : i64
// CHECK:         nvgpu.mbarrier.create -> <{{.*}}num_barriers = 4>
// CHECK:         memref.alloc() {{.*}} : memref<196608xi8
// CHECK:         scf.for {{.*}} -> (!nvgpu.warpgroup.accumulator<fragmented = vector<128x128xf32>>)
// CHECK:         nvgpu.tma.async.store
func.func @tall(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>)
    attributes {tile.kernel, tile.hints = {num_stages = 4 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<256x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<256x128xf16>
  %bid = tile.block_id x : index
  %nm = tile.num_tiles %pc dim 0 : !tile.partition_view<256x128xf16>
  %bm = arith.remui %bid, %nm : index
  %bn = arith.divui %bid, %nm : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<256x64xf16>
  %zero = arith.constant dense<0.0> : tensor<256x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%c = %zero) -> (tensor<256x128xf32>) {
    %a = tile.load %pa[%bm, %k] : !tile.partition_view<256x64xf16> -> tensor<256x64xf16>
    %b = tile.load %pb[%k, %bn] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %c : tensor<256x64xf16>, tensor<64x128xf16> into tensor<256x128xf32>
    scf.yield %d : tensor<256x128xf32>
  }
  %out = arith.truncf %acc : tensor<256x128xf32> to tensor<256x128xf16>
  tile.store %out, %pc[%bm, %bn] : tensor<256x128xf16> -> !tile.partition_view<256x128xf16>
  return
}

// -----

// A persistent 128x256 tile with four stages (192 KiB) leaves room for two
// of the output's four boxes beside the ring: the epilogue stages the
// first pair there and the second in the tile's last ring stage (its B
// part, 32 KiB), without waiting for the first to be read out. That stage
// is not released after the K loop: thread 0 releases it for all eight
// consumer warps once the TMA has read it, after the next tile's first
// wgmma.
// CHECK-LABEL: func.func @chunked__wgmma(
// CHECK:         nvgpu.mbarrier.create -> <{{.*}}num_barriers = 4>
// CHECK:         memref.alloc() {{.*}} : memref<229376xi8
// CHECK:         } else {
// CHECK:             scf.for
// CHECK:               nvgpu.warpgroup.mma
// CHECK:               nvgpu.mbarrier.arrive
// CHECK:               arith.cmpi eq, %{{.*}}, %c0
// CHECK:               scf.if
// CHECK-NEXT:            nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-COUNT-8:         nvgpu.mbarrier.arrive
// CHECK:             nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT:         nvgpu.mbarrier.arrive
// CHECK:             nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK:             nvvm.barrier
// CHECK:             nvvm.barrier
// CHECK-COUNT-2:     nvgpu.tma.async.store
// CHECK:             nvvm.cp.async.bulk.commit.group
// CHECK-NOT:         nvvm.cp.async.bulk.wait_group
// CHECK:             arith.constant 65536 : index
// CHECK:             nvvm.barrier
// CHECK-COUNT-2:     nvgpu.tma.async.store
// CHECK:             nvvm.cp.async.bulk.commit.group
// CHECK-NOT:         nvgpu.tma.async.store
// CHECK:           nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK:         return
func.func @chunked(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>)
    attributes {tile.kernel, tile.hints = {num_stages = 4 : i64, persistent = 1 : i64, warp_specialize = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x256xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<128x256xf16>
  %bid = tile.block_id x : index
  %nm = tile.num_tiles %pc dim 0 : !tile.partition_view<128x256xf16>
  %bm = arith.remui %bid, %nm : index
  %bn = arith.divui %bid, %nm : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x64xf16>
  %zero = arith.constant dense<0.0> : tensor<128x256xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%c = %zero) -> (tensor<128x256xf32>) {
    %a = tile.load %pa[%bm, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %b = tile.load %pb[%k, %bn] : !tile.partition_view<64x256xf16> -> tensor<64x256xf16>
    %d = tile.mma %a, %b, %c : tensor<128x64xf16>, tensor<64x256xf16> into tensor<128x256xf32>
    scf.yield %d : tensor<128x256xf32>
  }
  %out = arith.truncf %acc : tensor<128x256xf32> to tensor<128x256xf16>
  tile.store %out, %pc[%bm, %bn] : tensor<128x256xf16> -> !tile.partition_view<128x256xf16>
  return
}

// -----

// split_k = 2: each program block runs as a cluster of two blocks; the
// program's block id and grid are the launched ones halved, and the K
// loop runs over the rank's half. Rank 1 adds its accumulator into rank
// 0's shared memory through `mapa` (after the ring and the staging),
// between two halves of cluster barriers; rank 0's thread 0 stores.
// CHECK-LABEL: func.func @split__wgmma(
// CHECK-SAME:    nvvm.cluster_dim = array<i32: 2, 1, 1>
// CHECK-SAME:    tile.split_k = 2 : i64
// CHECK:         %[[LAUNCHED:.*]] = gpu.block_id x
// CHECK:         %[[RANK:.*]] = arith.remui %[[LAUNCHED]], %c2
// CHECK:         %[[BID:.*]] = tile.block_id x
// CHECK:         arith.divui %[[BID]], %c2
// CHECK:         arith.ceildivui
// CHECK:         arith.select
// CHECK:         nvvm.cluster.arrive.relaxed {aligned}
// CHECK:         memref.alloc() {{.*}} : memref<196608xi8
// CHECK:         nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:         nvvm.cluster.wait {aligned}
// CHECK:         scf.if
// CHECK:           nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-COUNT-16:  llvm.store {{.*}} : vector<4xf32>, !llvm.ptr<7>
// CHECK:         nvvm.cluster.arrive {aligned}
// CHECK-NEXT:    nvvm.cluster.wait {aligned}
// CHECK:         llvm.load {{.*}} : !llvm.ptr<3> -> vector<4xf32>
// CHECK:         arith.addf
// CHECK:         nvgpu.tma.async.store
func.func @split(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>)
    attributes {tile.kernel, tile.hints = {num_stages = 4 : i64, split_k = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<128x128xf16>
  %bid = tile.block_id x : index
  %nm = tile.num_tiles %pc dim 0 : !tile.partition_view<128x128xf16>
  %bm = arith.remui %bid, %nm : index
  %bn = arith.divui %bid, %nm : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x64xf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%c = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%bm, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %b = tile.load %pb[%k, %bn] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %c : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %out = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xf16>
  tile.store %out, %pc[%bm, %bn] : tensor<128x128xf16> -> !tile.partition_view<128x128xf16>
  return
}

// -----

// pingpong = 1 (persistent, with a producer): the two consumer warpgroups
// take alternate tiles (w, w + 2, ...), each a whole 128x128 tile (two
// wgmma row blocks, all of A's rows); each stage is read by one warpgroup
// (4 warps release it). Their K loops take turns through two mbarriers;
// each stores its own tile, meeting at named barrier 1 + w of 128 threads,
// from its own staging buffer (two after the ring).
// CHECK-LABEL: func.func @pingpong__wgmma(
// CHECK-SAME:    tile.block_size = 384 : i64
// CHECK:         nvgpu.mbarrier.init %{{.*}}[%{{.*}}], %c4
// CHECK:         nvgpu.mbarrier.create -> <{{.*}}num_barriers = 2>
// CHECK-COUNT-2: nvgpu.mbarrier.init %{{.*}}, %c128
// CHECK:         memref.alloc() {{.*}} : memref<196608xi8
// CHECK:         } else {
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c2
// CHECK:             nvgpu.mbarrier.try_wait.parity
// CHECK:             scf.for {{.*}} -> (!nvgpu.warpgroup.accumulator<fragmented = vector<128x128xf32>>)
// CHECK:             nvgpu.mbarrier.arrive {{.*}}num_barriers = 2>
// CHECK-NEXT:        nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:             nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
// CHECK:             nvgpu.tma.async.store
func.func @pingpong(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>)
    attributes {tile.kernel, tile.hints = {num_stages = 4 : i64, persistent = 1 : i64, warp_specialize = 1 : i64, pingpong = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<128x128xf16>
  %bid = tile.block_id x : index
  %nm = tile.num_tiles %pc dim 0 : !tile.partition_view<128x128xf16>
  %bm = arith.remui %bid, %nm : index
  %bn = arith.divui %bid, %nm : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x64xf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%c = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%bm, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %b = tile.load %pb[%k, %bn] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %c : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %out = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xf16>
  tile.store %out, %pc[%bm, %bn] : tensor<128x128xf16> -> !tile.partition_view<128x128xf16>
  return
}
