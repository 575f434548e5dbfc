// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-prefetch-loads, tile-assign-layouts), tile-remove-layout-conversions, tile-use-tma)' | FileCheck %s
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-prefetch-loads, tile-assign-layouts), tile-remove-layout-conversions, tile-use-tma, func.func(convert-tile-to-registers))' | FileCheck %s --check-prefix=REG

// The GEMM loop's operand rings get a TMA variant after the kernel: one
// descriptor argument per array (box = the tile, one block of swizzled
// rows; swizzle = the row), each ring load naming its descriptor. The
// store of the accumulator gets one too (boxes of 128-byte rows, 32 f32
// columns), optional (the variant runs without it where the output's rows
// are unaligned), and stores the wgmma layout's registers: the conversion
// for the threads' store is gone. Its mma stays in flight with the block
// barrier after its wgmma.wait_group 1, so its rings give back the spare
// slot the kernel's cp.async rings keep: 4 slots two ahead, not 5. The
// kernel itself is unchanged.
// CHECK-LABEL: func.func @plain(
// CHECK-NOT:   tile.tma_
// CHECK:       tile.load {{.*}}tile.ring = array<i64: 0, 2, 0, 5>}
// CHECK-NOT:   tile.tma_
// CHECK:       tile.convert_layout
// CHECK-NOT:   tile.tma_
// CHECK:       return
// CHECK-LABEL: func.func @plain__tma(
// CHECK-SAME:    %[[DA:[a-z0-9]+]]: !llvm.ptr {tile.tma = {arg = 0 : i64, box = array<i64: 64, 32>, swizzle = 64 : i64}}
// CHECK-SAME:    %[[DB:[a-z0-9]+]]: !llvm.ptr {tile.tma = {arg = 1 : i64, box = array<i64: 32, 64>, swizzle = 128 : i64}}
// CHECK-SAME:    %[[DC:[a-z0-9]+]]: !llvm.ptr {tile.tma = {arg = 2 : i64, box = array<i64: 64, 32>, optional, swizzle = 128 : i64}}
// CHECK-SAME:    tile.variant_of = @plain
// CHECK:       tile.load {{.*}}tile.ring = array<i64: 0, 2, 0, 4>, tile.tma_load = 3 : i64
// CHECK:       tile.load {{.*}}tile.ring = array<i64: 1, 2, 0, 4>, tile.tma_load = 4 : i64
// CHECK:       tile.load {{.*}}tile.ring = array<i64: 0, 2, 1, 4>, tile.tma_load = 3 : i64
// CHECK:       tile.load {{.*}}tile.ring = array<i64: 1, 2, 1, 4>, tile.tma_load = 4 : i64
// CHECK:       %[[ACC:.*]]:5 = scf.for
// CHECK:         tile.load {{.*}}tile.ring = array<i64: 0, 2, -1, 4>, tile.tma_load = 3 : i64
// CHECK:         tile.load {{.*}}tile.ring = array<i64: 1, 2, -1, 4>, tile.tma_load = 4 : i64
// CHECK-NOT:   tile.convert_layout
// CHECK:       tile.store %[[ACC]]#0, {{.*}} {tile.tma_store = 5 : i64} : tensor<64x64xf32, #tile.wgmma

// Lowered: the kernel keeps its cp.async copies. The variant's two rings,
// which its mma reads together, share one mbarrier a slot, initialised by
// thread 0; thread 0 requests each tile of both (A's request announces the
// bytes of both tiles, then each copy completes on the slot's barrier),
// every thread waits once for the slot's phase before the wgmmas, and the
// block meets after wgmma.wait_group 1 (not before the wgmmas); after the
// loop, every thread waits for the first tiles past its end. A tile's slot
// and phase are its index mod and over 4 (a mask and a shift).
// REG-LABEL: func.func @plain__tma(
// REG-NOT:     nvvm.cp.async.shared.global
// REG:         memref.alloc() {alignment = 1024 : i64} : memref<8192xf16>
// REG-COUNT-4: nvvm.mbarrier.init {{.*}}, %c1_i32 : !llvm.ptr<3>, i32
// REG-NOT:     nvvm.mbarrier.init
// REG:         nvvm.fence.mbarrier.init
// REG:         gpu.barrier
// REG:         scf.if
// REG:           nvvm.mbarrier.arrive.expect_tx {{.*}}, %c8192_i32 : !llvm.ptr<3>, i32
// REG:           nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}}, %arg3, {{.*}} box[{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// REG:         scf.if
// REG-NOT:       nvvm.mbarrier.arrive
// REG:           nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}}, %arg4,
// REG:         scf.for
// REG:           arith.remui %{{.*}}, %c4_i32
// REG:           nvvm.mbarrier.arrive.expect_tx {{.*}}, %c8192_i32
// REG:           nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}}, %arg3,
// REG-NOT:       nvvm.mbarrier.arrive
// REG:           nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}}, %arg4,
// REG:           arith.divui %{{.*}}, %c4_i32
// REG:           nvvm.mbarrier.try_wait.parity
// REG-NOT:       nvvm.mbarrier.try_wait.parity
// REG-NOT:       gpu.barrier
// REG-NOT:       nvvm.fence.proxy
// REG:           nvvm.wgmma.fence.aligned
// REG:           nvvm.wgmma.mma_async
// REG:           nvvm.wgmma.wait.group.sync.aligned 1
// REG-NEXT:      gpu.barrier
// REG:           scf.yield
// REG:         "wgmma.wait_group.sync.aligned 0;"
// REG-COUNT-2: nvvm.mbarrier.try_wait.parity
// REG-NOT:     nvvm.mbarrier.try_wait.parity
// Then the store, where the runtime passed its descriptor: each thread
// writes its accumulator's register pairs into the staging boxes, fences
// them for the TMA, the block meets, and thread 0 stores both boxes and
// waits until they have been read. Where it passed a null pointer (rows
// the TMA cannot describe), the threads store their registers.
// REG:         %[[BITS:.*]] = llvm.ptrtoint %arg5 : !llvm.ptr to i64
// REG:         %[[SET:.*]] = arith.cmpi ne, %[[BITS]]
// REG-NEXT:    scf.if %[[SET]] {
// REG-NOT:       gpu.barrier
// REG-COUNT-16:  vector.store {{.*}} : memref<4096xf32>, vector<2xf32>
// REG-NEXT:      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// REG-NEXT:      gpu.barrier
// REG:           scf.if
// REG:             nvvm.cp.async.bulk.tensor.global.shared.cta %arg5, {{.*}}, box[
// REG:             nvvm.cp.async.bulk.tensor.global.shared.cta %arg5, {{.*}}, box[
// REG-NEXT:        nvvm.cp.async.bulk.commit.group
// REG-NEXT:        nvvm.cp.async.bulk.wait_group 0 {read}
// REG:         } else {
// REG-NOT:       nvvm.cp.async.bulk
// REG:           vector.store {{.*}}, %arg2[{{.*}}] {{.*}} : memref<?x?xf32>, vector<2xf32>
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

// An f16 output stored after the loop is staged in a ring's memory (the
// first ring, A's: 4 slots of 64x32 f16 hold the 64x64 tile), which every
// warp is done with once past a barrier: no buffer of its own.
// REG-LABEL: func.func @narrowed__tma(
// REG:         %[[RING:.*]] = memref.alloc() {alignment = 1024 : i64} : memref<8192xf16>
// REG:         memref.alloc() {alignment = 1024 : i64} : memref<8192xf16>
// REG-NOT:     memref.alloc() {alignment = 1024 : i64} : memref<4096xf16>
// REG:         scf.for
// REG:         %[[BITS:.*]] = llvm.ptrtoint %arg5 : !llvm.ptr to i64
// REG:         %[[SET:.*]] = arith.cmpi ne, %[[BITS]]
// REG-NEXT:    scf.if %[[SET]] {
// REG-NEXT:      gpu.barrier
// REG-COUNT-16:  vector.store {{.*}}, %[[RING]][{{.*}}] {{.*}} : memref<8192xf16>, vector<2xf16>
// REG-NEXT:      nvvm.fence.proxy
// REG-NEXT:      gpu.barrier
// REG:             nvvm.cp.async.bulk.tensor.global.shared.cta
func.func @narrowed(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<32x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x32xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%in = %z) -> (tensor<64x64xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<32x64xf16> -> tensor<32x64xf16>
    %d = tile.mma %a, %b, %in : tensor<64x32xf16>, tensor<32x64xf16> into tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %out = arith.truncf %acc : tensor<64x64xf32> to tensor<64x64xf16>
  tile.store %out, %pc[%c0, %c0] : tensor<64x64xf16> -> !tile.partition_view<64x64xf16>
  return
}

// -----

// Two loads of one array with one box share a descriptor.
// CHECK-LABEL: func.func @square__tma(
// CHECK-SAME:    %arg2: !llvm.ptr {tile.tma = {arg = 0 : i64, box = array<i64: 64, 64>, swizzle = 128 : i64}}
// CHECK-SAME:    %arg3: !llvm.ptr {tile.tma = {arg = 1 : i64, box = array<i64: 64, 32>, optional, swizzle = 128 : i64}})
// CHECK-SAME:    tile.variant_of = @square
// CHECK:       scf.for
// CHECK:         tile.load {{.*}}tile.tma_load = 2 : i64
// CHECK:         tile.load {{.*}}tile.tma_load = 2 : i64
func.func @square(%X: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %px = tile.partition_view %X : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %nk = tile.num_tiles %px dim 1 : !tile.partition_view<64x64xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%in = %z) -> (tensor<64x64xf32>) {
    %a = tile.load %px[%c0, %k] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %b = tile.load %px[%k, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %d = tile.mma %a, %b, %in : tensor<64x64xf16>, tensor<64x64xf16> into tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// A B tile whose rows are 256 bytes is two blocks of 128-byte rows: the
// descriptor's box is one block, and each request is two copies. A's
// request announces the bytes of both tiles (B's twice A's), and B's
// copies complete on the same barrier.
// CHECK-LABEL: func.func @wide__tma(
// CHECK-SAME:    !llvm.ptr {tile.tma = {arg = 1 : i64, box = array<i64: 32, 64>, swizzle = 128 : i64}}
// REG-LABEL: func.func @wide__tma(
// REG:         scf.for
// REG:           nvvm.mbarrier.arrive.expect_tx {{.*}}, %c12288_i32
// REG:           nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}}, %arg3,
// REG-NOT:       nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}}, %arg3,
// REG-NOT:       nvvm.mbarrier.arrive
// REG:           nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}}, %arg4,
// REG:           nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}}, %arg4,
// REG:           nvvm.wgmma.mma_async
func.func @wide(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<32x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x128xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x32xf16>
  %z = arith.constant dense<0.0> : tensor<64x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%in = %z) -> (tensor<64x128xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<32x128xf16> -> tensor<32x128xf16>
    %d = tile.mma %a, %b, %in : tensor<64x32xf16>, tensor<32x128xf16> into tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<64x128xf32> -> !tile.partition_view<64x128xf32>
  return
}

// -----

// A kernel without rings gets no variant.
// CHECK-LABEL: func.func @no_loop(
// CHECK-NOT:   func.func @no_loop__tma
func.func @no_loop(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<32x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
  %b = tile.load %pb[%c0, %c0] : !tile.partition_view<32x64xf16> -> tensor<32x64xf16>
  %d = tile.mma %a, %b, %z : tensor<64x32xf16>, tensor<32x64xf16> into tensor<64x64xf32>
  tile.store %d, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// A ring one tile ahead (num_stages = 2): the consumers' own requests
// could not run far ahead, so the variant gets a producer warp after its
// 4 consumer warps (tile.block_size 160). The loop's two rings move in
// step and share one set of barriers: every thread initialises the
// `full` ones (one arrival: the first request of a tile, which announces
// the bytes of both) and the `empty` ones (128: every consumer thread),
// once; then the kernel splits on the warp: the producer's side keeps
// only the requests, the first of each tile waiting for its slot's
// `empty` phase; the consumers' side waits, multiplies, gives the slots
// back after the wgmmas, and meets at named barrier 1 of 128 threads.
// Its rings keep their spare slot (4 slots one ahead), as the kernel's.
// The producer asks for a tile only where the loop runs that far.
// CHECK-LABEL: func.func @shallow__tma(
// CHECK:       tile.load {{.*}}tile.ring = array<i64: 0, 1, 0, 4>, tile.tma_load = 3 : i64
// CHECK:       scf.for
// CHECK:         tile.load {{.*}}tile.ring = array<i64: 0, 1, -1, 4>, tile.tma_load = 3 : i64
// CHECK:         tile.load {{.*}}tile.ring = array<i64: 1, 1, -1, 4>, tile.tma_load = 4 : i64
// REG-LABEL: func.func @shallow__tma(
// REG-SAME:    tile.block_size = 160 : i64
// REG:         nvvm.mbarrier.init {{.*}}, %c1_i32
// REG:         nvvm.mbarrier.init {{.*}}, %c128_i32
// REG:         nvvm.fence.mbarrier.init
// REG-NEXT:    gpu.barrier
// REG-NOT:     nvvm.mbarrier.init
// The role branches on the warpgroup as lane 0 has it (warp-uniform to
// ptxas); the producer warp waits for a slot as a whole, and only its
// first thread's arrival and copies are predicated on.
// REG:         gpu.shuffle  idx
// REG:         %[[ROLE:.*]] = arith.cmpi uge, %{{.*}}, %c1{{.*}} : index
// REG:         scf.if %[[ROLE]] {
// REG-NOT:       nvvm.wgmma.mma_async
// REG:           nvvm.mbarrier.try_wait.parity
// REG:           nvvm.mbarrier.arrive.expect_tx {{.*}}, %c8192_i32, predicate = %[[FIRST:[^ ]*]] :
// REG:           nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}}, %arg3, {{.*}} predicate = %[[FIRST]] :
// REG-NOT:       nvvm.mbarrier
// REG:           nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}}, %arg4, {{.*}} predicate =
// REG:           scf.for %{{.*}} = %{{.*}} to %[[N:.*]] step
// REG:             %[[RUNS:.*]] = arith.cmpi slt, %{{.*}}, %[[N]] : index
// REG-NOT:         arith.andi %{{.*}}, %[[RUNS]] : i1
// REG:             scf.if %[[RUNS]] {
// REG:             nvvm.mbarrier.try_wait.parity
// REG:             nvvm.mbarrier.arrive.expect_tx {{.*}}, %c8192_i32, predicate =
// REG:             nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}}, %arg3, {{.*}} predicate =
// REG-NOT:         nvvm.mbarrier
// REG:             nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}}, %arg4, {{.*}} predicate =
// REG-NOT:       nvvm.cp.async.bulk.tensor
// REG-NOT:       gpu.barrier
// REG:           nvvm.wgmma.mma_async
// REG:           nvvm.wgmma.wait.group.sync.aligned 1
// REG:           scf.if
// REG:             nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// REG-NOT:         nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// REG:           }
// After the loop, the consumers wait only for a first tile the loop
// did not reach (n <= 0): no request runs past the loop's end.
// REG:           %[[PAST:.*]] = arith.cmpi ule, %{{.*}}, %c0{{.*}} : index
// REG-NEXT:      scf.if %[[PAST]] {
// REG-NOT:         nvvm.cp.async.bulk.tensor
// REG:             nvvm.mbarrier.try_wait.parity
// REG-NOT:       nvvm.cp.async.bulk.tensor
// REG-NOT:       gpu.barrier
// REG:           nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
// REG:         return
func.func @shallow(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>)
    attributes {tile.kernel, tile.hints = {num_stages = 2}} {
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

// Two ahead with a spare slot, the consumers request the tiles
// themselves unless the kernel asks for a producer warp
// (warp_specialize = 1); warp_specialize = 0 keeps it off even where it
// would be used. With the producer warp, the rings keep their spare
// slot (5 slots two ahead).
// CHECK-LABEL: func.func @asked__tma(
// CHECK:       scf.for
// CHECK:         tile.load {{.*}}tile.ring = array<i64: 0, 2, -1, 5>, tile.tma_load = 3 : i64
// CHECK:         tile.load {{.*}}tile.ring = array<i64: 1, 2, -1, 5>, tile.tma_load = 4 : i64
// REG-LABEL: func.func @asked__tma(
// REG-SAME:    tile.block_size = 160 : i64
// REG:         arith.cmpi uge
// REG-LABEL: func.func @refused__tma(
// REG-SAME:    tile.block_size = 128 : i64
// REG-NOT:     arith.cmpi uge
// REG:         gpu.barrier
// REG:         nvvm.wgmma.mma_async
// REG:         return
func.func @asked(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>)
    attributes {tile.kernel, tile.hints = {warp_specialize = 1}} {
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
func.func @refused(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>)
    attributes {tile.kernel, tile.hints = {num_stages = 2, warp_specialize = 0}} {
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

// A 128x256 f32 accumulator over two warpgroups takes 128 registers a
// consumer thread: the producer is a whole warpgroup (block 256 + 128,
// one block a multiprocessor), which gives its registers to the
// consumers with `setmaxnreg`. Its first warp alone requests (the index
// shuffled from lane 0: warp-uniform); the others leave. The consumers
// meet at the named barrier of their 256 threads. One warpgroup whose
// 64x256 accumulator takes as many registers keeps a producer warp and
// no `setmaxnreg` (the register counts are two warpgroups').
// REG-LABEL: func.func @wide_accumulator__tma(
// REG-SAME:    nvvm.minctasm = 1 : i32, tile.block_size = 384 : i64
// REG:         %[[ROLE:.*]] = arith.cmpi uge, %{{.*}}, %c2{{(_[0-9]+)?}} : index
// REG-NEXT:    scf.if %[[ROLE]] {
// REG-NEXT:      nvvm.setmaxregister decrease 40
// REG-NEXT:      %[[WARP:.*]] = arith.index_cast %{{.*}} : index to i32
// REG:           %[[UNIFORM:.*]], %{{.*}} = gpu.shuffle idx %[[WARP]], %c0{{.*}}, %c32{{.*}} : i32
// REG-NEXT:      %[[EIGHT:.*]] = arith.constant 8 : i32
// REG-NEXT:      %[[FIRST:.*]] = arith.cmpi eq, %[[UNIFORM]], %[[EIGHT]] : i32
// REG-NEXT:      scf.if %[[FIRST]] {
// REG-NEXT:        arith.constant
// REG-NOT:         nvvm.wgmma.mma_async
// REG:             nvvm.cp.async.bulk.tensor.shared.cluster.global
// REG-NOT:         nvvm.setmaxregister
// REG-NOT:         nvvm.wgmma.mma_async
// REG:           nvvm.setmaxregister increase 232
// REG-NEXT:      arith.constant dense<0.000000e+00> : vector<128xf32>
// REG-NOT:       nvvm.cp.async.bulk.tensor.shared.cluster.global
// REG-NOT:       gpu.barrier
// REG:           nvvm.wgmma.mma_async
// REG-NOT:       gpu.barrier
// REG:           nvvm.barrier id = %{{.*}} number_of_threads = %c256_i32
// REG-NOT:       gpu.barrier
// REG:         return
// REG-LABEL: func.func @one_warpgroup__tma(
// REG-SAME:    tile.block_size = 160 : i64
// REG-NOT:     nvvm.setmaxregister
// REG:         nvvm.wgmma.mma_async
// REG-NOT:     nvvm.setmaxregister
// REG:         return
func.func @wide_accumulator(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>)
    attributes {tile.kernel, tile.hints = {num_stages = 4, warp_specialize = 1}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bid = tile.block_id x : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x256xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x256xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x64xf16>
  %z = arith.constant dense<0.0> : tensor<128x256xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%in = %z) -> (tensor<128x256xf32>) {
    %a = tile.load %pa[%bid, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<64x256xf16> -> tensor<64x256xf16>
    %d = tile.mma %a, %b, %in : tensor<128x64xf16>, tensor<64x256xf16> into tensor<128x256xf32>
    scf.yield %d : tensor<128x256xf32>
  }
  tile.store %acc, %pc[%bid, %c0] : tensor<128x256xf32> -> !tile.partition_view<128x256xf32>
  return
}
func.func @one_warpgroup(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>)
    attributes {tile.kernel, tile.hints = {num_stages = 4, warp_specialize = 1}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bid = tile.block_id x : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x256xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x256xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x64xf16>
  %z = arith.constant dense<0.0> : tensor<64x256xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%in = %z) -> (tensor<64x256xf32>) {
    %a = tile.load %pa[%bid, %k] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<64x256xf16> -> tensor<64x256xf16>
    %d = tile.mma %a, %b, %in : tensor<64x64xf16>, tensor<64x256xf16> into tensor<64x256xf32>
    scf.yield %d : tensor<64x256xf32>
  }
  tile.store %acc, %pc[%bid, %c0] : tensor<64x256xf32> -> !tile.partition_view<64x256xf32>
  return
}

// -----

// Three ahead (num_stages = 4), the mma in flight and the block barrier
// after its wait, no producer warp: 5 slots would do, but a slot and
// phase mod 5 cost a division an iteration, so the rings keep their 6
// (only a ring whose distance + 2 is a power of two gives a slot back).
// CHECK-LABEL: func.func @three_ahead__tma(
// CHECK:       tile.load {{.*}}tile.ring = array<i64: 0, 3, 0, 6>, tile.tma_load = 3 : i64
// CHECK:       scf.for
// CHECK:         tile.load {{.*}}tile.ring = array<i64: 0, 3, -1, 6>, tile.tma_load = 3 : i64
// CHECK:         tile.load {{.*}}tile.ring = array<i64: 1, 3, -1, 6>, tile.tma_load = 4 : i64
// REG-LABEL: func.func @three_ahead__tma(
// REG-SAME:    tile.block_size = 128 : i64
// REG-COUNT-6: nvvm.mbarrier.init {{.*}}, %c1_i32 : !llvm.ptr<3>, i32
// REG-NOT:     nvvm.mbarrier.init
// REG:         scf.for
// REG:           nvvm.wgmma.wait.group.sync.aligned 1
// REG-NEXT:      gpu.barrier
// REG:           scf.yield
func.func @three_ahead(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>)
    attributes {tile.kernel, tile.hints = {num_stages = 4}} {
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

// A hand-written `tile_request` (the lowering's own marker of requests)
// is dropped before lowering, so the split does not take its op for a
// request and erase it while in use (which left an unlinked operand).
// REG-LABEL: func.func @marked__tma(
// REG-NOT:     tile_request
// REG:         arith.cmpi uge
// REG:         arith.minui
// REG:         nvvm.wgmma.mma_async
// REG-NOT:     tile_request
func.func @marked(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>)
    attributes {tile.kernel, tile.hints = {num_stages = 2}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<32x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x32xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%in = %z) -> (tensor<64x64xf32>) {
    %k2 = arith.minui %k, %nk {tile_request} : index
    %a = tile.load %pa[%c0, %k2] : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<32x64xf16> -> tensor<32x64xf16>
    %d = tile.mma %a, %b, %in : tensor<64x32xf16>, tensor<32x64xf16> into tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// A store in a loop (a persistent kernel's tiles) is written out by the
// TMA too; its staging waits at a barrier before the threads write it
// (the previous iteration's copy must have been read). A store of a tile
// that needed no conversion (here a copy of a loaded tile) stays the
// threads': its staging would be shared memory the rings' budget has not
// counted.
// CHECK-LABEL: func.func @stores_in_a_loop__tma(
// CHECK-SAME:    %arg6: !llvm.ptr {tile.tma = {arg = 2 : i64, box = array<i64: 64, 32>, optional, swizzle = 128 : i64}}
// CHECK:       scf.for
// CHECK:         scf.for
// CHECK:         tile.store {{.*}} {tile.tma_store = 6 : i64}
// CHECK:       tile.load
// CHECK-NOT:   tile.tma_store
// CHECK:       tile.store
// CHECK-NOT:   tile.tma_store
// CHECK:       return
// The copy out stays in flight into the next iteration: the consumers'
// thread 0 waits for it before that iteration's barrier ahead of the
// writes, and once after the loop. The rings continue from one tile of
// the outer loop to the next, so a producer warp (block 128 + 32) asks
// for the next tile's operands while the consumers store this one; the
// consumers' barriers are a named barrier of their 128 threads.
// REG-LABEL: func.func @stores_in_a_loop__tma(
// REG-SAME:    tile.block_size = 160
// REG:         scf.for
// REG:           scf.for
// REG:           "wgmma.wait_group.sync.aligned 0;"
// REG:           llvm.ptrtoint %arg6
// REG:           scf.if
// REG:             scf.if
// REG-NEXT:          nvvm.cp.async.bulk.wait_group 0 {read}
// REG:             nvvm.barrier id = %{{.*}} number_of_threads = %c128
// REG:             vector.store {{.*}} : memref<4096xf32>, vector<2xf32>
// REG:             nvvm.fence.proxy
// REG-NEXT:        arith.constant 1 : i32
// REG-NEXT:        arith.constant 128 : i32
// REG-NEXT:        nvvm.barrier id
// REG:             scf.if
// REG:               nvvm.cp.async.bulk.tensor.global.shared.cta %arg6
// REG:               nvvm.cp.async.bulk.commit.group
// REG-NEXT:        } else {
// REG:           } else {
// REG-NOT:         nvvm.cp.async.bulk
// REG:           vector.store {{.*}}, %arg2[{{.*}}]
// REG-NOT:       nvvm.cp.async.bulk
// REG:         nvvm.cp.async.bulk.wait_group 0 {read}
// REG-NOT:     nvvm.cp.async.bulk
// REG:         return
func.func @stores_in_a_loop(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>, %D: memref<?x?xf32>)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<32x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %pd = tile.partition_view %D : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x32xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  scf.for %t = %c0 to %c2 step %c1 {
    %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%in = %z) -> (tensor<64x64xf32>) {
      %a = tile.load %pa[%t, %k] : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
      %b = tile.load %pb[%k, %c0] : !tile.partition_view<32x64xf16> -> tensor<32x64xf16>
      %d = tile.mma %a, %b, %in : tensor<64x32xf16>, tensor<32x64xf16> into tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    tile.store %acc, %pc[%t, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  }
  %x = tile.load %pc[%c0, %c0] : !tile.partition_view<64x64xf32> -> tensor<64x64xf32>
  tile.store %x, %pd[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// A loop of two mmas (attention's shape) keeps the threads' stores: its
// rings get the TMA, its stores no descriptor (measured slower for
// attention, BENCHMARKS.md session 20).
// CHECK-LABEL: func.func @two_mmas__tma(
// CHECK-NOT:     arg = 3 : i64
// CHECK-NOT:     arg = 4 : i64
// CHECK-SAME:    tile.variant_of = @two_mmas
// CHECK-NOT:   tile.tma_store
// CHECK:       return
func.func @two_mmas(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %E: memref<?x?xf16>, %C: memref<?x?xf32>, %D: memref<?x?xf32>)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<32x64xf16>
  %pe = tile.partition_view %E : memref<?x?xf16> -> !tile.partition_view<32x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %pd = tile.partition_view %D : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x32xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc:2 = scf.for %k = %c0 to %nk step %c1 iter_args(%x = %z, %y = %z) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<32x64xf16> -> tensor<32x64xf16>
    %e = tile.load %pe[%k, %c0] : !tile.partition_view<32x64xf16> -> tensor<32x64xf16>
    %d1 = tile.mma %a, %b, %x : tensor<64x32xf16>, tensor<32x64xf16> into tensor<64x64xf32>
    %d2 = tile.mma %a, %e, %y : tensor<64x32xf16>, tensor<32x64xf16> into tensor<64x64xf32>
    scf.yield %d1, %d2 : tensor<64x64xf32>, tensor<64x64xf32>
  }
  tile.store %acc#0, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  tile.store %acc#1, %pd[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// Attention's loop: S = Q K^T, then P = exp(S) (its registers in the
// accumulator layout, wgmma's A fragments) times V. The second mma reads
// P from registers (wgmma's register form, inline assembly: no buffer,
// no barrier before its writes), and in the TMA variant one block barrier
// an iteration, before the first mma, keeps the rings' slots from being
// refilled early for both (the second waits only for its slot's phase).
// The general kernel, whose threads copy K and V, meets before each mma.
// Two such blocks fit on an SM, so the variant gets no producer warp.
// REG-LABEL: func.func @attention(
// REG:         scf.for
// REG:           gpu.barrier
// REG:           nvvm.wgmma.mma_async
// REG:           gpu.barrier
// REG-NOT:       nvvm.wgmma.mma_async
// REG:           llvm.inline_asm has_side_effects "{{.*}}wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}"
// K and V, waited for at different points, keep a set of barriers each,
// and each request announces its own tile.
// REG-LABEL: func.func @attention__tma(
// REG-SAME:    tile.block_size = 256
// REG-COUNT-4: nvvm.mbarrier.init
// REG:         nvvm.fence.mbarrier.init
// REG-COUNT-4: nvvm.mbarrier.init
// REG:         scf.for
// REG:           nvvm.mbarrier.arrive.expect_tx {{.*}}, %c8192_i32
// REG:           nvvm.mbarrier.arrive.expect_tx {{.*}}, %c8192_i32
// REG:           nvvm.mbarrier.try_wait.parity
// REG-NEXT:      gpu.barrier
// REG:           nvvm.wgmma.mma_async
// REG:           nvvm.mbarrier.try_wait.parity
// REG-NOT:       gpu.barrier
// REG:           llvm.inline_asm has_side_effects "{{.*}}wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}"
// REG-NOT:       gpu.barrier
// REG:           scf.yield
func.func @attention(%Q: memref<?x64xf16>, %K: memref<?x64xf16>, %V: memref<?x64xf16>, %O: memref<?x64xf32>)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pq = tile.partition_view %Q : memref<?x64xf16> -> !tile.partition_view<128x64xf16>
  %pk = tile.partition_view %K : memref<?x64xf16> -> !tile.partition_view<64x64xf16>
  %pv = tile.partition_view %V : memref<?x64xf16> -> !tile.partition_view<64x64xf16>
  %po = tile.partition_view %O : memref<?x64xf32> -> !tile.partition_view<128x64xf32>
  %i = tile.block_id x : index
  %q = tile.load %pq[%i, %c0] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
  %n = tile.num_tiles %pk dim 0 : !tile.partition_view<64x64xf16>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %acc = scf.for %j = %c0 to %n step %c1 iter_args(%acc_in = %zero) -> (tensor<128x64xf32>) {
    %k = tile.load %pk[%j, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %kt = tile.permute %k [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
    %s = tile.mma %q, %kt, %zero : tensor<128x64xf16>, tensor<64x64xf16> into tensor<128x64xf32>
    %p = math.exp %s : tensor<128x64xf32>
    %p16 = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xf16>
    %v = tile.load %pv[%j, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %acc_new = tile.mma %p16, %v, %acc_in : tensor<128x64xf16>, tensor<64x64xf16> into tensor<128x64xf32>
    scf.yield %acc_new : tensor<128x64xf32>
  }
  tile.store %acc, %po[%i, %c0] : tensor<128x64xf32> -> !tile.partition_view<128x64xf32>
  return
}

// -----

// The same loop at head dim 128: the block's rings and Q fill more than
// half an SM's shared memory, so the TMA variant gets a producer warp
// (its loop has two mmas). After the consumers' named barrier for Q,
// copied before the loop, they meet at no block barrier in the loop, and
// give the slots of K and V back once an iteration, after the second
// mma. Its two consumer warpgroups take turns at the tensor cores: each
// waits for its turn (named barrier 2 + its warpgroup) before its
// wgmmas and passes the turn on (3 - its warpgroup) once they are
// issued; warpgroup 1 gives the first turn before the loop, and
// warpgroup 0 takes back the last one after it.
// REG-LABEL: func.func @attention_d128__tma(
// REG-SAME:    tile.block_size = 288
// REG:         nvvm.barrier id = %{{.*}} number_of_threads = %c256_i32
// REG:         llvm.inline_asm has_side_effects "{{.*}}@p bar.arrive 2, 256;{{.*}}"
// REG-NEXT:    scf.for
// REG-NOT:       gpu.barrier
// REG-NOT:       nvvm.mbarrier.arrive
// REG:           nvvm.barrier id = %{{.*}} number_of_threads = %c256_i32
// REG-NEXT:      nvvm.wgmma.fence.aligned
// REG:           nvvm.wgmma.mma_async
// REG:           nvvm.wgmma.commit.group.sync.aligned
// REG-NOT:       nvvm.barrier id
// REG:           nvvm.barrier.arrive id = %{{.*}} number_of_threads = %c256_i32
// REG-NOT:       gpu.barrier
// REG-NOT:       nvvm.mbarrier.arrive
// REG:           nvvm.barrier id = %{{.*}} number_of_threads = %c256_i32
// REG-NEXT:      nvvm.wgmma.fence.aligned
// REG:           llvm.inline_asm has_side_effects "{{.*}}wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}"
// REG:           nvvm.wgmma.commit.group.sync.aligned
// REG:           nvvm.barrier.arrive id = %{{.*}} number_of_threads = %c256_i32
// REG-NOT:       gpu.barrier
// REG:           nvvm.mbarrier.arrive
// REG-NOT:       nvvm.mbarrier.arrive
// REG:           scf.yield
// REG:         llvm.inline_asm has_side_effects "{{.*}}@p bar.sync 2, 256;{{.*}}"
func.func @attention_d128(%Q: memref<?x128xf16>, %K: memref<?x128xf16>, %V: memref<?x128xf16>, %O: memref<?x128xf32>)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pq = tile.partition_view %Q : memref<?x128xf16> -> !tile.partition_view<128x128xf16>
  %pk = tile.partition_view %K : memref<?x128xf16> -> !tile.partition_view<64x128xf16>
  %pv = tile.partition_view %V : memref<?x128xf16> -> !tile.partition_view<64x128xf16>
  %po = tile.partition_view %O : memref<?x128xf32> -> !tile.partition_view<128x128xf32>
  %i = tile.block_id x : index
  %q = tile.load %pq[%i, %c0] : !tile.partition_view<128x128xf16> -> tensor<128x128xf16>
  %n = tile.num_tiles %pk dim 0 : !tile.partition_view<64x128xf16>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %zero_o = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %j = %c0 to %n step %c1 iter_args(%acc_in = %zero_o) -> (tensor<128x128xf32>) {
    %k = tile.load %pk[%j, %c0] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %kt = tile.permute %k [1, 0] : tensor<64x128xf16> -> tensor<128x64xf16>
    %s = tile.mma %q, %kt, %zero : tensor<128x128xf16>, tensor<128x64xf16> into tensor<128x64xf32>
    %p = math.exp %s : tensor<128x64xf32>
    %p16 = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xf16>
    %v = tile.load %pv[%j, %c0] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %acc_new = tile.mma %p16, %v, %acc_in : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    scf.yield %acc_new : tensor<128x128xf32>
  }
  tile.store %acc, %po[%i, %c0] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}

// -----

// With `pingpong = 0` the warpgroups do not take turns: no named barrier
// in the loop.
// REG-LABEL: func.func @attention_no_turns__tma(
// REG-SAME:    tile.block_size = 288
// REG-NOT:     nvvm.barrier.arrive
// REG-NOT:     bar.arrive 2
// REG-NOT:     bar.sync 2
// REG:         return
func.func @attention_no_turns(%Q: memref<?x128xf16>, %K: memref<?x128xf16>, %V: memref<?x128xf16>, %O: memref<?x128xf32>)
    attributes {tile.kernel, tile.hints = {pingpong = 0}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pq = tile.partition_view %Q : memref<?x128xf16> -> !tile.partition_view<128x128xf16>
  %pk = tile.partition_view %K : memref<?x128xf16> -> !tile.partition_view<64x128xf16>
  %pv = tile.partition_view %V : memref<?x128xf16> -> !tile.partition_view<64x128xf16>
  %po = tile.partition_view %O : memref<?x128xf32> -> !tile.partition_view<128x128xf32>
  %i = tile.block_id x : index
  %q = tile.load %pq[%i, %c0] : !tile.partition_view<128x128xf16> -> tensor<128x128xf16>
  %n = tile.num_tiles %pk dim 0 : !tile.partition_view<64x128xf16>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %zero_o = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %j = %c0 to %n step %c1 iter_args(%acc_in = %zero_o) -> (tensor<128x128xf32>) {
    %k = tile.load %pk[%j, %c0] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %kt = tile.permute %k [1, 0] : tensor<64x128xf16> -> tensor<128x64xf16>
    %s = tile.mma %q, %kt, %zero : tensor<128x128xf16>, tensor<128x64xf16> into tensor<128x64xf32>
    %p = math.exp %s : tensor<128x64xf32>
    %p16 = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xf16>
    %v = tile.load %pv[%j, %c0] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %acc_new = tile.mma %p16, %v, %acc_in : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    scf.yield %acc_new : tensor<128x128xf32>
  }
  tile.store %acc, %po[%i, %c0] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}

// -----

// Without a producer warp (two blocks fit on an SM), the warpgroups take
// turns only when asked (`pingpong = 1`): after the block barrier before
// the first mma, each waits for its turn before its wgmmas.
// REG-LABEL: func.func @attention_asked_turns__tma(
// REG-SAME:    tile.block_size = 256
// REG:         llvm.inline_asm has_side_effects "{{.*}}@p bar.arrive 2, 256;{{.*}}"
// REG-NEXT:    scf.for
// REG:           gpu.barrier
// REG:           nvvm.barrier id = %{{.*}} number_of_threads = %c256_i32
// REG-NEXT:      nvvm.wgmma.fence.aligned
// REG:           nvvm.barrier.arrive id = %{{.*}} number_of_threads = %c256_i32
// REG:           nvvm.barrier id = %{{.*}} number_of_threads = %c256_i32
// REG-NEXT:      nvvm.wgmma.fence.aligned
// REG:           nvvm.barrier.arrive id = %{{.*}} number_of_threads = %c256_i32
// REG:           scf.yield
// REG:         llvm.inline_asm has_side_effects "{{.*}}@p bar.sync 2, 256;{{.*}}"
func.func @attention_asked_turns(%Q: memref<?x64xf16>, %K: memref<?x64xf16>, %V: memref<?x64xf16>, %O: memref<?x64xf32>)
    attributes {tile.kernel, tile.hints = {pingpong = 1}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pq = tile.partition_view %Q : memref<?x64xf16> -> !tile.partition_view<128x64xf16>
  %pk = tile.partition_view %K : memref<?x64xf16> -> !tile.partition_view<64x64xf16>
  %pv = tile.partition_view %V : memref<?x64xf16> -> !tile.partition_view<64x64xf16>
  %po = tile.partition_view %O : memref<?x64xf32> -> !tile.partition_view<128x64xf32>
  %i = tile.block_id x : index
  %q = tile.load %pq[%i, %c0] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
  %n = tile.num_tiles %pk dim 0 : !tile.partition_view<64x64xf16>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %acc = scf.for %j = %c0 to %n step %c1 iter_args(%acc_in = %zero) -> (tensor<128x64xf32>) {
    %k = tile.load %pk[%j, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %kt = tile.permute %k [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
    %s = tile.mma %q, %kt, %zero : tensor<128x64xf16>, tensor<64x64xf16> into tensor<128x64xf32>
    %p = math.exp %s : tensor<128x64xf32>
    %p16 = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xf16>
    %v = tile.load %pv[%j, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %acc_new = tile.mma %p16, %v, %acc_in : tensor<128x64xf16>, tensor<64x64xf16> into tensor<128x64xf32>
    scf.yield %acc_new : tensor<128x64xf32>
  }
  tile.store %acc, %po[%i, %c0] : tensor<128x64xf32> -> !tile.partition_view<128x64xf32>
  return
}

// -----

// Two loops of several mmas: turns in both could let warpgroup 1 give the
// second loop's first turn before warpgroup 0 took back the first loop's
// last, so neither takes turns, even when asked.
// REG-LABEL: func.func @two_turn_loops__tma(
// REG-NOT:     nvvm.barrier.arrive
// REG-NOT:     bar.arrive 2
// REG:         return
func.func @two_turn_loops(%Q: memref<?x64xf16>, %K: memref<?x64xf16>, %V: memref<?x64xf16>, %O: memref<?x64xf32>)
    attributes {tile.kernel, tile.hints = {pingpong = 1}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pq = tile.partition_view %Q : memref<?x64xf16> -> !tile.partition_view<128x64xf16>
  %pk = tile.partition_view %K : memref<?x64xf16> -> !tile.partition_view<64x64xf16>
  %pv = tile.partition_view %V : memref<?x64xf16> -> !tile.partition_view<64x64xf16>
  %po = tile.partition_view %O : memref<?x64xf32> -> !tile.partition_view<128x64xf32>
  %i = tile.block_id x : index
  %q = tile.load %pq[%i, %c0] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
  %n = tile.num_tiles %pk dim 0 : !tile.partition_view<64x64xf16>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %acc = scf.for %j = %c0 to %n step %c1 iter_args(%acc_in = %zero) -> (tensor<128x64xf32>) {
    %k = tile.load %pk[%j, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %kt = tile.permute %k [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
    %s = tile.mma %q, %kt, %zero : tensor<128x64xf16>, tensor<64x64xf16> into tensor<128x64xf32>
    %p = math.exp %s : tensor<128x64xf32>
    %p16 = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xf16>
    %v = tile.load %pv[%j, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %acc_new = tile.mma %p16, %v, %acc_in : tensor<128x64xf16>, tensor<64x64xf16> into tensor<128x64xf32>
    scf.yield %acc_new : tensor<128x64xf32>
  }
  %acc2 = scf.for %j = %c0 to %n step %c1 iter_args(%acc_in = %acc) -> (tensor<128x64xf32>) {
    %k = tile.load %pk[%j, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %kt = tile.permute %k [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
    %s = tile.mma %q, %kt, %zero : tensor<128x64xf16>, tensor<64x64xf16> into tensor<128x64xf32>
    %p = math.exp %s : tensor<128x64xf32>
    %p16 = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xf16>
    %v = tile.load %pv[%j, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %acc_new = tile.mma %p16, %v, %acc_in : tensor<128x64xf16>, tensor<64x64xf16> into tensor<128x64xf32>
    scf.yield %acc_new : tensor<128x64xf32>
  }
  tile.store %acc2, %po[%i, %c0] : tensor<128x64xf32> -> !tile.partition_view<128x64xf32>
  return
}

// -----

// tf32 computed transposed with B's view padded with NaN: the TMA fills
// A's ring only, the threads copy B's. The threads read B^T's fragments
// from B's slot, so before the reads they wait for its copies (those of
// the iterations ahead left pending), fence and meet at the barrier,
// beside the wait for A's slot.
// CHECK-LABEL: func.func @tf32_b_copied__tma
// CHECK: tile.load %{{.*}} {tile.ring = {{.*}}, tile.tma_load = {{.*}}} : !tile.partition_view<64x32xf32>
// CHECK-NOT: tile.tma_load
// CHECK: tile.load %{{.*}} {tile.ring = array<i64: {{.*}}>} : !tile.partition_view<32x64xf32, padding = nan>
// REG-LABEL: func.func @tf32_b_copied__tma
// REG: scf.for
// REG: nvvm.mbarrier.try_wait.parity
// REG-NEXT: nvvm.cp.async.wait.group {{[1-9]}}
// REG-NEXT: nvvm.fence.proxy
// REG-NEXT: gpu.barrier
// REG: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
func.func @tf32_b_copied(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf32> -> !tile.partition_view<64x32xf32>
  %pb = tile.partition_view %B : memref<?x?xf32> -> !tile.partition_view<32x64xf32, padding = nan>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x32xf32>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%in = %z) -> (tensor<64x64xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<64x32xf32> -> tensor<64x32xf32>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<32x64xf32, padding = nan> -> tensor<32x64xf32>
    %d = tile.mma %a, %b, %in : tensor<64x32xf32>, tensor<32x64xf32> into tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// 128x256 tiles (a K step of 48 KiB): beside the kernel's 64 KiB exchange
// for the f16 tile, tile-prefetch-loads fits only 3 slots, one ahead and
// no spare. The kernel's cp.async mma is waited for in its iteration; the
// variant's, with the block barrier after its wgmma.wait_group 1, stays in
// flight on the same 3 slots (tile t + 1's request refills tile t - 2's
// slot, whose wgmmas retired before the last barrier), with no producer
// warp. A tile's slot is its index mod 3.
// REG-LABEL: func.func @three_slots(
// REG:         scf.for
// REG:           nvvm.wgmma.mma_async
// REG-NOT:       nvvm.wgmma.wait.group.sync.aligned 1
// REG:           "wgmma.wait_group.sync.aligned 0;"
// REG:           scf.yield
// REG-LABEL: func.func @three_slots__tma(
// REG-SAME:      tile.block_size = 256
// REG:         scf.for
// REG:           arith.remui %{{.*}}, %c3_i32
// REG:           nvvm.wgmma.mma_async
// REG:           nvvm.wgmma.wait.group.sync.aligned 1
// REG-NEXT:      gpu.barrier
// REG:           scf.yield
// REG:         "wgmma.wait_group.sync.aligned 0;"
func.func @three_slots(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x256xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<128x256xf16>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x64xf16>
  %z = arith.constant dense<0.0> : tensor<128x256xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%in = %z) -> (tensor<128x256xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<64x256xf16> -> tensor<64x256xf16>
    %d = tile.mma %a, %b, %in : tensor<128x64xf16>, tensor<64x256xf16> into tensor<128x256xf32>
    scf.yield %d : tensor<128x256xf32>
  }
  %h = arith.truncf %acc : tensor<128x256xf32> to tensor<128x256xf16>
  tile.store %h, %pc[%c0, %c0] : tensor<128x256xf16> -> !tile.partition_view<128x256xf16>
  return
}
