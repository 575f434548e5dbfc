// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(convert-tile-to-registers))' | FileCheck %s

#b = #tile.blocked<size_per_thread = [4], threads_per_warp = [32], warps_per_block = [2], order = [0]>

// Element-wise code on each thread's registers (16 of 1024 elements):
// 16-byte vector loads and stores behind one uniform check, no shared
// memory and no barrier; an f32 exp is the hardware's ex2 (flushing
// subnormal results) of x log2(e), element by element.
// CHECK-LABEL: func.func @elementwise
// CHECK-SAME: tile.registers
// CHECK-NOT: memref.alloc
// CHECK: gpu.thread_id x
// CHECK: scf.if %{{.*}} -> (vector<16xf32>) {
// CHECK-COUNT-4: vector.load %{{.*}}[%{{.*}}] {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
// CHECK: } else {
// CHECK: memref.load
// CHECK: %[[LOG2E:.*]] = vector.broadcast %{{.*}} : f32 to vector<16xf32>
// CHECK: %[[SCALED:.*]] = arith.mulf %{{.*}}, %[[LOG2E]] : vector<16xf32>
// CHECK: vector.extract %[[SCALED]][0] : f32 from vector<16xf32>
// CHECK-COUNT-16: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%{{.*}}) : (f32) -> f32
// CHECK: arith.mulf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK-COUNT-4: vector.store %{{.*}}, %{{.*}}[%{{.*}}] {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
// CHECK-NOT: gpu.barrier
// CHECK-NOT: tile.
// CHECK: return
func.func @elementwise(%X: memref<?xf32>, %Y: memref<?xf32>, %s: f32) attributes {tile.kernel, tile.block_size = 64 : i64} {
  %px = tile.partition_view %X : memref<?xf32> -> !tile.partition_view<1024xf32>
  %py = tile.partition_view %Y : memref<?xf32> -> !tile.partition_view<1024xf32>
  %i = tile.block_id x : index
  %x = tile.load %px[%i] : !tile.partition_view<1024xf32> -> tensor<1024xf32, #b>
  %e = math.exp %x : tensor<1024xf32, #b>
  %t = tile.splat %s : f32 -> tensor<1024xf32, #b>
  %y = arith.mulf %e, %t : tensor<1024xf32, #b>
  tile.store %y, %py[%i] : tensor<1024xf32, #b> -> !tile.partition_view<1024xf32>
  return
}

// -----

#b = #tile.blocked<size_per_thread = [4], threads_per_warp = [32], warps_per_block = [2], order = [0]>

// exp(x - m) scales the difference, not x and m apart (m log2(e)
// overflows for |m| over FLT_MAX / log2(e), and a row masked with the
// largest finite negative value would take exp(0) as infinite).
// CHECK-LABEL: func.func @shifted_exp
// CHECK: %[[D:.*]] = arith.subf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK: arith.constant 1.44269502 : f32
// CHECK-NEXT: %[[LOG2E:.*]] = vector.broadcast %{{.*}} : f32 to vector<16xf32>
// CHECK-NEXT: %[[SCALED:.*]] = arith.mulf %[[D]], %[[LOG2E]] : vector<16xf32>
// CHECK-NOT: math.fma
// CHECK: vector.extract %[[SCALED]][0] : f32 from vector<16xf32>
// CHECK-COUNT-16: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
func.func @shifted_exp(%X: memref<?xf32>, %Y: memref<?xf32>, %m: f32) attributes {tile.kernel, tile.block_size = 64 : i64} {
  %px = tile.partition_view %X : memref<?xf32> -> !tile.partition_view<1024xf32>
  %py = tile.partition_view %Y : memref<?xf32> -> !tile.partition_view<1024xf32>
  %i = tile.block_id x : index
  %x = tile.load %px[%i] : !tile.partition_view<1024xf32> -> tensor<1024xf32, #b>
  %t = tile.splat %m : f32 -> tensor<1024xf32, #b>
  %d = arith.subf %x, %t : tensor<1024xf32, #b>
  %e = math.exp %d : tensor<1024xf32, #b>
  tile.store %e, %py[%i] : tensor<1024xf32, #b> -> !tile.partition_view<1024xf32>
  return
}

// -----

#b = #tile.blocked<size_per_thread = [4], threads_per_warp = [32], warps_per_block = [2], order = [0]>

// An f32 exp2 is the hardware's ex2 of x itself: no multiply before it.
// CHECK-LABEL: func.func @exp2
// CHECK: %[[D:.*]] = arith.subf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK-NOT: arith.mulf
// CHECK: vector.extract %[[D]][0] : f32 from vector<16xf32>
// CHECK-COUNT-16: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
// CHECK-NOT: math.exp2
func.func @exp2(%X: memref<?xf32>, %Y: memref<?xf32>, %m: f32) attributes {tile.kernel, tile.block_size = 64 : i64} {
  %px = tile.partition_view %X : memref<?xf32> -> !tile.partition_view<1024xf32>
  %py = tile.partition_view %Y : memref<?xf32> -> !tile.partition_view<1024xf32>
  %i = tile.block_id x : index
  %x = tile.load %px[%i] : !tile.partition_view<1024xf32> -> tensor<1024xf32, #b>
  %t = tile.splat %m : f32 -> tensor<1024xf32, #b>
  %d = arith.subf %x, %t : tensor<1024xf32, #b>
  %e = math.exp2 %d : tensor<1024xf32, #b>
  tile.store %e, %py[%i] : tensor<1024xf32, #b> -> !tile.partition_view<1024xf32>
  return
}

// -----

#b = #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [1, 32], warps_per_block = [1, 2], order = [1, 0]>
#s = #tile.slice<dim = 1, parent = #b>
#r = #tile.linear<register = [], lane = [[0, 0], [0, 0], [0, 0], [0, 0], [0, 0]], warp = [[0, 0]]>

// A row reduction: within the thread, a butterfly of five shuffles across
// the lanes, one shared-memory exchange across the two warps (a barrier
// between its writes and reads, none before: it is not in a loop): lane 0
// of each warp writes its partial, each lane reads one (lane 1 the other
// warp's) and one more shuffle folds them; the broadcast back stays in
// registers.
// CHECK-LABEL: func.func @row
// CHECK: %[[SCRATCH:.*]] = memref.alloc() : memref<2xf32>
// CHECK: arith.maximumf
// CHECK-COUNT-5: gpu.shuffle xor
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %[[SCRATCH]]
// CHECK: gpu.barrier
// CHECK-NOT: memref.load
// CHECK: memref.load %[[SCRATCH]]
// CHECK-NOT: memref.load
// CHECK: gpu.shuffle xor
// CHECK-NOT: gpu.shuffle
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] : vector<1xf32>, vector<1xf32>
// CHECK: arith.subf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK-NOT: gpu.barrier
func.func @row(%X: memref<?x1024xf32>, %Y: memref<?x1024xf32>) attributes {tile.kernel, tile.block_size = 64 : i64} {
  %c0 = arith.constant 0 : index
  %px = tile.partition_view %X : memref<?x1024xf32> -> !tile.partition_view<1x1024xf32>
  %py = tile.partition_view %Y : memref<?x1024xf32> -> !tile.partition_view<1x1024xf32>
  %r = tile.block_id x : index
  %x = tile.load %px[%r, %c0] : !tile.partition_view<1x1024xf32> -> tensor<1x1024xf32, #b>
  %m = tile.reduce max %x dim 1 : tensor<1x1024xf32, #b> -> tensor<1xf32, #s>
  %m1 = tile.reshape %m : tensor<1xf32, #s> -> tensor<1x1xf32, #r>
  %mb = tile.broadcast %m1 : tensor<1x1xf32, #r> -> tensor<1x1024xf32, #b>
  %y = arith.subf %x, %mb : tensor<1x1024xf32, #b>
  tile.store %y, %py[%r, %c0] : tensor<1x1024xf32, #b> -> !tile.partition_view<1x1024xf32>
  return
}

// -----

#a = #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [4, 8], warps_per_block = [2, 1], order = [1, 0]>
#t = #tile.blocked<size_per_thread = [4, 1], threads_per_warp = [8, 4], warps_per_block = [1, 2], order = [0, 1]>

// A conversion that moves elements between threads: one round trip
// through shared memory (16-byte writes of the rows' vectors, element
// reads of the columns'), a barrier between;
// in a loop, a barrier before the writes too. The loop carries the tile
// in registers.
// CHECK-LABEL: func.func @converts
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<1024xf32>
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<16xf32>) {
// CHECK:   gpu.barrier
// CHECK:   vector.store %{{.*}}, %[[BUF]][%{{.*}}] {alignment = 16 : i64} : memref<1024xf32>, vector<4xf32>
// CHECK:   gpu.barrier
// CHECK:   vector.load %[[BUF]][%{{.*}}] {alignment = 4 : i64} : memref<1024xf32>, vector<1xf32>
// CHECK:   arith.addf %[[ACC]], %{{.*}} : vector<16xf32>
// CHECK:   scf.yield %{{.*}} : vector<16xf32>
func.func @converts(%X: memref<32x32xf32>, %n: index) attributes {tile.kernel, tile.block_size = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %px = tile.partition_view %X : memref<32x32xf32> -> !tile.partition_view<32x32xf32>
  %x = tile.load %px[%c0, %c0] : !tile.partition_view<32x32xf32> -> tensor<32x32xf32, #a>
  %z = arith.constant dense<0.0> : tensor<32x32xf32, #t>
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<32x32xf32, #t>) {
    %c = tile.convert_layout %x : tensor<32x32xf32, #a> -> tensor<32x32xf32, #t>
    %next = arith.addf %acc, %c : tensor<32x32xf32, #t>
    scf.yield %next : tensor<32x32xf32, #t>
  }
  %back = tile.convert_layout %sum : tensor<32x32xf32, #t> -> tensor<32x32xf32, #a>
  tile.store %back, %px[%c0, %c0] : tensor<32x32xf32, #a> -> !tile.partition_view<32x32xf32>
  return
}

// -----

// The iota: each register's own index plus the thread's.
// CHECK-LABEL: func.func @iota
// CHECK: arith.constant dense<[0, 1, 2, 3, 128, 129, 130, 131]> : vector<8xi64>
// CHECK: vector.broadcast %{{.*}} : i64 to vector<8xi64>
// CHECK: arith.trunci %{{.*}} : vector<8xi64> to vector<8xi32>
func.func @iota(%Y: memref<?xi32>) attributes {tile.kernel, tile.block_size = 32 : i64} {
  %c0 = arith.constant 0 : index
  %py = tile.partition_view %Y : memref<?xi32> -> !tile.partition_view<256xi32>
  %i = tile.iota : tensor<256xi32, #tile.blocked<size_per_thread = [4], threads_per_warp = [32], warps_per_block = [1], order = [0]>>
  tile.store %i, %py[%c0] : tensor<256xi32, #tile.blocked<size_per_thread = [4], threads_per_warp = [32], warps_per_block = [1], order = [0]>> -> !tile.partition_view<256xi32>
  return
}

// -----

#b = #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [1, 32], warps_per_block = [1, 1], order = [1, 0]>

// The element path (a tile past the array's edge, or an unaligned array):
// a run of registers contiguous along a row shares its index and one
// unsigned check of the row; the columns of a tile at a constant
// coordinate inside a static extent are not checked at all, in the load
// or in the store.
// CHECK-LABEL: func.func @rows
// CHECK: } else {
// CHECK: scf.if
// CHECK: arith.cmpi ult
// CHECK-NOT: arith.cmpi
// CHECK-COUNT-4: memref.load
// CHECK-NOT: arith.cmpi
// CHECK: vector.from_elements
// CHECK: } else {
// CHECK: arith.cmpi ult
// CHECK-NOT: arith.cmpi
// CHECK: memref.store
// CHECK: return
func.func @rows(%X: memref<?x128xf32>, %Y: memref<?x128xf32>) attributes {tile.kernel, tile.block_size = 32 : i64} {
  %c0 = arith.constant 0 : index
  %px = tile.partition_view %X : memref<?x128xf32> -> !tile.partition_view<1x128xf32>
  %py = tile.partition_view %Y : memref<?x128xf32> -> !tile.partition_view<1x128xf32>
  %i = tile.block_id x : index
  %x = tile.load %px[%i, %c0] : !tile.partition_view<1x128xf32> -> tensor<1x128xf32, #b>
  tile.store %x, %py[%i, %c0] : tensor<1x128xf32, #b> -> !tile.partition_view<1x128xf32>
  return
}

// -----

#b = #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [1, 32], warps_per_block = [1, 2], order = [1, 0]>
#s = #tile.slice<dim = 1, parent = #b>
#r = #tile.linear<register = [], lane = [[0, 0], [0, 0], [0, 0], [0, 0], [0, 0]], warp = [[0, 0]]>

// f32 division: by a broadcast (a row's sum), one correctly rounded
// reciprocal and a product; element by element, div.full.f32.
// CHECK-LABEL: func.func @divide
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[RCP:.*]] = arith.divf %[[ONE]], %{{.*}} : f32
// CHECK: %[[SCALE:.*]] = vector.broadcast %[[RCP]] : f32 to vector<16xf32>
// CHECK: arith.mulf %{{.*}}, %[[SCALE]] : vector<16xf32>
// CHECK-COUNT-16: llvm.call_intrinsic "llvm.nvvm.div.full"
// CHECK-NOT: arith.divf
// CHECK: return
func.func @divide(%X: memref<?x1024xf32>, %Y: memref<?x1024xf32>) attributes {tile.kernel, tile.block_size = 64 : i64} {
  %c0 = arith.constant 0 : index
  %px = tile.partition_view %X : memref<?x1024xf32> -> !tile.partition_view<1x1024xf32>
  %py = tile.partition_view %Y : memref<?x1024xf32> -> !tile.partition_view<1x1024xf32>
  %r = tile.block_id x : index
  %x = tile.load %px[%r, %c0] : !tile.partition_view<1x1024xf32> -> tensor<1x1024xf32, #b>
  %s = tile.reduce add %x dim 1 : tensor<1x1024xf32, #b> -> tensor<1xf32, #s>
  %s1 = tile.reshape %s : tensor<1xf32, #s> -> tensor<1x1xf32, #r>
  %sb = tile.broadcast %s1 : tensor<1x1xf32, #r> -> tensor<1x1024xf32, #b>
  %y = arith.divf %x, %sb : tensor<1x1024xf32, #b>
  %z = arith.divf %y, %x : tensor<1x1024xf32, #b>
  tile.store %z, %py[%r, %c0] : tensor<1x1024xf32, #b> -> !tile.partition_view<1x1024xf32>
  return
}

// -----

#b = #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [1, 32], warps_per_block = [1, 4], order = [1, 0]>
#s = #tile.slice<dim = 1, parent = #b>

// A tile block that runs as a cluster of two blocks of 64 threads: the
// program's block is the launched one over two, the warps span the
// cluster, every block starts with a cluster barrier, and the exchange of
// a reduction writes its slot in both blocks (mapa) before a cluster
// barrier; its reads stay local.
// CHECK-LABEL: func.func @cluster
// CHECK: %[[LAUNCHED:.*]] = gpu.block_id x
// CHECK: %[[TWO:.*]] = arith.constant 2 : index
// CHECK: %[[PROGRAM:.*]] = arith.divui %[[LAUNCHED]], %[[TWO]] : index
// CHECK: %[[RANK:.*]] = arith.remui %[[LAUNCHED]], %[[TWO]] : index
// CHECK: arith.muli %[[RANK]], %{{.*}} : index
// CHECK: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// CHECK-COUNT-5: gpu.shuffle xor
// CHECK: scf.if
// CHECK: llvm.inttoptr
// CHECK: nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: llvm.store
// CHECK: nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: llvm.store
// CHECK: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// CHECK: memref.load
// CHECK-NOT: gpu.barrier
// CHECK: return
func.func @cluster(%X: memref<?x2048xf32>, %S: memref<?xf32>) attributes {tile.kernel, tile.block_size = 64 : i64, tile.cluster = 2 : i64} {
  %c0 = arith.constant 0 : index
  %px = tile.partition_view %X : memref<?x2048xf32> -> !tile.partition_view<1x2048xf32>
  %ps = tile.partition_view %S : memref<?xf32> -> !tile.partition_view<1xf32>
  %r = tile.block_id x : index
  %x = tile.load %px[%r, %c0] : !tile.partition_view<1x2048xf32> -> tensor<1x2048xf32, #b>
  %s = tile.reduce add %x dim 1 : tensor<1x2048xf32, #b> -> tensor<1xf32, #s>
  tile.store %s, %ps[%r] : tensor<1xf32, #s> -> !tile.partition_view<1xf32>
  return
}

// -----

// The same with tile.block_id as the kernel's first op (the op the
// lowering's set-up code goes before): the query is replaced, not erased
// under the builder (a crash the fuzzer found).
#b = #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [1, 32], warps_per_block = [1, 4], order = [1, 0]>
#s = #tile.slice<dim = 1, parent = #b>
// CHECK-LABEL: func.func @cluster_first
// CHECK: %[[LAUNCHED:.*]] = gpu.block_id x
// CHECK: arith.divui %[[LAUNCHED]]
// CHECK: nvvm.cluster.arrive {aligned}
// CHECK: return
func.func @cluster_first(%X: memref<?x2048xf32>, %S: memref<?xf32>) attributes {tile.kernel, tile.block_size = 64 : i64, tile.cluster = 2 : i64} {
  %r = tile.block_id x : index
  %c0 = arith.constant 0 : index
  %px = tile.partition_view %X : memref<?x2048xf32> -> !tile.partition_view<1x2048xf32>
  %ps = tile.partition_view %S : memref<?xf32> -> !tile.partition_view<1xf32>
  %x = tile.load %px[%r, %c0] : !tile.partition_view<1x2048xf32> -> tensor<1x2048xf32, #b>
  %s = tile.reduce add %x dim 1 : tensor<1x2048xf32, #b> -> tensor<1xf32, #s>
  tile.store %s, %ps[%r] : tensor<1xf32, #s> -> !tile.partition_view<1xf32>
  return
}

// -----

// A tile.mma on wgmma: A (64x16) and B (16x64) written K-major into
// swizzled shared buffers aligned to 1 KiB (A's rows run along K: 16-byte
// vectors; B's along N: one element a store), a proxy fence and a barrier,
// then one m64n64k16 wgmma on the accumulator's registers (an LLVM struct
// of its 32), committed and waited for by inline assembly that takes and
// gives back the registers (so no read of them moves above the wait).
#a = #tile.blocked<size_per_thread = [1, 8], threads_per_warp = [16, 2], warps_per_block = [4, 1], order = [1, 0]>
#bb = #tile.blocked<size_per_thread = [1, 8], threads_per_warp = [4, 8], warps_per_block = [4, 1], order = [1, 0]>
#w = #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>
// CHECK-LABEL: func.func @mma
// CHECK: memref.alloc() {alignment = 1024 : i64} : memref<1024xf16>
// CHECK: memref.alloc() {alignment = 1024 : i64} : memref<1024xf16>
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<1024xf16>, vector<8xf16>
// CHECK: vector.store %{{.*}} {alignment = 2 : i64} : memref<1024xf16>, vector<1xf16>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: gpu.barrier
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: llvm.insertvalue
// CHECK: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %{{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>] : !llvm.struct<(f32,
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: llvm.extractvalue
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;", "=f,
// CHECK-NOT: tile.mma
func.func @mma(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel, tile.block_size = 128 : i64} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x16xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<16x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<64x16xf16> -> tensor<64x16xf16, #a>
  %b = tile.load %pb[%c0, %c0] : !tile.partition_view<16x64xf16> -> tensor<16x64xf16, #bb>
  %z = arith.constant dense<0.0> : tensor<64x64xf32, #w>
  %d = tile.mma %a, %b, %z : tensor<64x16xf16, #a>, tensor<16x64xf16, #bb> into tensor<64x64xf32, #w>
  tile.store %d, %pc[%c0, %c0] : tensor<64x64xf32, #w> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// Operands in shared memory (#tile.shared): each load copies its tile
// 16 bytes a cp.async into a swizzled buffer of its own, the bytes outside
// the array zero-filled (the cp.async's source size), 8 bytes a cp.async.ca
// where the array's rows are 8-byte but not 16-byte aligned; where not
// even that, each thread loads the two aligned 16-byte words around each
// of its chunks (none for a chunk whose words reach outside the array),
// then shifts each chunk out of its words (or loads it element by
// element; where the tile runs past the rows' end, a branch the whole
// block takes alike, each word masked to its bytes inside the row, the
// rest the padding) and stores it swizzled: a copy outside a loop
// versioned on alignment keeps each chunk's element path in its own
// branch (@mm_loop_alone: branch-free chunks, then one rolled loop). One commit group a load; the mma waits
// for all groups, then reads the tiles where
// they are: A K-major (row), B N-major (row: the descriptor's transpose,
// its leading byte offset 32 rows of 128 bytes, 256 in 16-byte units).
// CHECK-LABEL: func.func @mm_ab
// CHECK: memref.alloc() {alignment = 1024 : i64} : memref<2048xf16>
// CHECK: memref.alloc() {alignment = 1024 : i64} : memref<2048xf16>
// CHECK: %[[BYTES:.*]] = arith.select %{{.*}}, %{{.*}}, %c0{{.*}} : index
// CHECK: %[[SIZE:.*]] = arith.index_cast %[[BYTES]] : index to i32
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg, %[[SIZE]] : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK: } else {
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 8, cache =  ca, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK: } else {
// CHECK: scf.if %[[FAST:[0-9]+]] -> (vector<4xi32>, vector<4xi32>) {
// CHECK-COUNT-2: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK: scf.if %{{[0-9]+}} -> (vector<4xi32>, vector<4xi32>) {
// CHECK-COUNT-2: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK-NOT: vector.store
// CHECK: scf.if %[[FAST]] -> (vector<8xf16>) {
// CHECK-COUNT-4: llvm.intr.fshr(%{{.*}}, %{{.*}}, %{{.*}}) : (i32, i32, i32) -> i32
// CHECK: %[[WORDS:.*]] = vector.from_elements %{{.*}} : vector<4xi32>
// CHECK-NEXT: %[[MASKED:.*]] = scf.if %[[WHOLE:[0-9]+]] -> (vector<4xi32>) {
// CHECK-NEXT: scf.yield %[[WORDS]] : vector<4xi32>
// CHECK-NEXT: } else {
// CHECK-COUNT-4: arith.ori %{{.*}}, %{{.*}} : i32
// CHECK: %[[CHUNK:.*]] = vector.bitcast %[[MASKED]] : vector<4xi32> to vector<8xf16>
// CHECK-NEXT: scf.yield %[[CHUNK]] : vector<8xf16>
// CHECK-NEXT: } else {
// CHECK-COUNT-8: memref.load %arg0
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<2048xf16>, vector<8xf16>
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: gpu.barrier
// Each operand's descriptor is encoded once; the second K step's are
// those plus its offset over 16 (A: 32 bytes along its K-major rows; B:
// 16 rows of 128 bytes).
// CHECK: arith.constant 4611686293322072064 : i64
// CHECK: %[[B0:.*]] = arith.ori %{{.*}}, %{{.*}} : i64
// CHECK: %[[D0:.*]] = nvvm.wgmma.mma_async %[[A0:[0-9]+]], %[[B0]], %{{.*}} A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// CHECK-NEXT: %[[C2:.*]] = arith.constant 2 : i64
// CHECK-NEXT: %[[A1:.*]] = arith.addi %[[A0]], %[[C2]] : i64
// CHECK-NEXT: %[[C128:.*]] = arith.constant 128 : i64
// CHECK-NEXT: %[[B1:.*]] = arith.addi %[[B0]], %[[C128]] : i64
// CHECK-NEXT: nvvm.wgmma.mma_async %[[A1]], %[[B1]], %[[D0]]
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;"
func.func @mm_ab(%arg0: memref<?x?xf16>, %arg1: memref<?x?xf16>, %arg2: memref<?x?xf32>) attributes {tile.block_size = 128 : i64, tile.kernel} {
  %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>
  %c0 = arith.constant 0 : index
  %0 = tile.partition_view %arg0 : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %1 = tile.partition_view %arg1 : memref<?x?xf16> -> !tile.partition_view<32x64xf16>
  %2 = tile.partition_view %arg2 : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %3 = tile.load %0[%c0, %c0] : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  %4 = tile.load %1[%c0, %c0] : !tile.partition_view<32x64xf16> -> tensor<32x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>>
  %5 = tile.mma %3, %4, %cst : tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<32x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>> into tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>
  %6 = tile.convert_layout %5 : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>> -> tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [2, 16], warps_per_block = [4, 1], order = [1, 0]>>
  tile.store %6, %2[%c0, %c0] : tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [2, 16], warps_per_block = [4, 1], order = [1, 0]>> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// A loop of ring loads (tile-prefetch-loads' tile.ring: two ahead, five
// slots): each ring is one buffer of five tiles, the loop's load writes
// slot (iteration + 2) % 5 (in 32 bits); the loop carries the tiles'
// addresses. The mma
// waits until at most 4 groups (two iterations of two loads) are pending,
// reads B = W^T K-major (col), and stays in flight (wait_group 1); after
// the loop, the accumulator goes through the wait for all, and the copies
// past the loop's end are waited for. The loop is there twice, chosen by
// the arrays' alignment (both arrays' rows whole 8-byte chunks, else
// not): one copy makes only cp.asyncs (16 bytes where the rows allow it,
// else 8), the other only the shifted copies (two aligned 16-byte words a
// chunk), so that neither keeps the other's registers.
// CHECK-LABEL: func.func @mm_loop
// CHECK: memref.alloc() {alignment = 1024 : i64} : memref<10240xf16>
// CHECK: scf.if %{{.*}} -> (vector<32xf32>) {
// CHECK-NEXT: scf.for {{.*}} -> (vector<32xf32>, index, index, index, index) {
// CHECK: arith.remui %{{.*}}, %c5_i32 : i32
// CHECK-NOT: vector<4xi32>
// CHECK: nvvm.cp.async.shared.global {{.*}}, 16, cache =  cg
// CHECK-NOT: vector<4xi32>
// CHECK: nvvm.cp.async.shared.global {{.*}}, 8, cache =  ca
// CHECK-NOT: vector<4xi32>
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 4
// CHECK: nvvm.wgmma.mma_async {{.*}} A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: scf.yield {{.*}} : vector<32xf32>, index, index, index, index
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;"
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: } else {
// CHECK-NEXT: scf.for {{.*}} -> (vector<32xf32>, index, index, index, index) {
// CHECK-NOT: nvvm.cp.async.shared.global
// CHECK: llvm.load {{.*}} -> vector<4xi32>
// CHECK-NOT: nvvm.cp.async.shared.global
// CHECK: vector.store {{.*}} vector<8xf16>
// CHECK: nvvm.cp.async.wait.group 4
// CHECK: nvvm.wgmma.mma_async
// CHECK: scf.yield {{.*}} : vector<32xf32>, index, index, index, index
// CHECK: nvvm.cp.async.wait.group 0
func.func @mm_loop(%arg0: memref<?x?xf16>, %arg1: memref<?x?xf16>, %arg2: memref<?x?xf32>) attributes {tile.block_size = 128 : i64, tile.kernel} {
  %c2 = arith.constant 2 : index
  %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = tile.partition_view %arg0 : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %1 = tile.partition_view %arg1 : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %2 = tile.partition_view %arg2 : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %3 = tile.num_tiles %0 dim 1 : !tile.partition_view<64x32xf16>
  %4 = tile.load %0[%c0, %c0] {tile.ring = array<i64: 0, 2, 0, 5>} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  %5 = tile.load %1[%c0, %c0] {tile.ring = array<i64: 1, 2, 0, 5>} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  %6 = tile.load %0[%c0, %c1] {tile.ring = array<i64: 0, 2, 1, 5>} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  %7 = tile.load %1[%c0, %c1] {tile.ring = array<i64: 1, 2, 1, 5>} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  %8:5 = scf.for %arg3 = %c0 to %3 step %c1 iter_args(%arg4 = %cst, %arg5 = %4, %arg6 = %6, %arg7 = %5, %arg8 = %7) -> (tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>) {
    %10 = arith.addi %arg3, %c2 : index
    %11 = tile.load %0[%c0, %10] {tile.ring = array<i64: 0, 2, -1, 5>} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
    %12 = tile.load %1[%c0, %10] {tile.ring = array<i64: 1, 2, -1, 5>} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
    %13 = tile.permute %arg7 [1, 0] : tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>> -> tensor<32x64xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = true>>
    %14 = tile.mma %arg5, %13, %arg4 : tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<32x64xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = true>> into tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>
    scf.yield %14, %arg6, %11, %arg8, %12 : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  }
  %9 = tile.convert_layout %8#0 : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>> -> tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [2, 16], warps_per_block = [4, 1], order = [1, 0]>>
  tile.store %9, %2[%c0, %c0] : tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [2, 16], warps_per_block = [4, 1], order = [1, 0]>> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// The same loop from views that pad with -inf: their tiles always take the
// shifted copy (cp.async fills with zeros), so the loop is not versioned
// and chooses at each load.
// CHECK-LABEL: func.func @mm_loop_padded
// CHECK-NOT: scf.if %{{.*}} -> (vector<32xf32>)
// CHECK: scf.for {{.*}} -> (vector<32xf32>, index, index, index, index) {
// CHECK: llvm.load {{.*}} -> vector<4xi32>
// CHECK: nvvm.wgmma.mma_async
func.func @mm_loop_padded(%arg0: memref<?x?xf16>, %arg1: memref<?x?xf16>, %arg2: memref<?x?xf32>) attributes {tile.block_size = 128 : i64, tile.kernel} {
  %c2 = arith.constant 2 : index
  %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = tile.partition_view %arg0 : memref<?x?xf16> -> !tile.partition_view<64x32xf16, padding = neg_inf>
  %1 = tile.partition_view %arg1 : memref<?x?xf16> -> !tile.partition_view<64x32xf16, padding = neg_inf>
  %2 = tile.partition_view %arg2 : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %3 = tile.num_tiles %0 dim 1 : !tile.partition_view<64x32xf16, padding = neg_inf>
  %4 = tile.load %0[%c0, %c0] {tile.ring = array<i64: 0, 2, 0, 5>} : !tile.partition_view<64x32xf16, padding = neg_inf> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  %5 = tile.load %1[%c0, %c0] {tile.ring = array<i64: 1, 2, 0, 5>} : !tile.partition_view<64x32xf16, padding = neg_inf> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  %6 = tile.load %0[%c0, %c1] {tile.ring = array<i64: 0, 2, 1, 5>} : !tile.partition_view<64x32xf16, padding = neg_inf> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  %7 = tile.load %1[%c0, %c1] {tile.ring = array<i64: 1, 2, 1, 5>} : !tile.partition_view<64x32xf16, padding = neg_inf> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  %8:5 = scf.for %arg3 = %c0 to %3 step %c1 iter_args(%arg4 = %cst, %arg5 = %4, %arg6 = %6, %arg7 = %5, %arg8 = %7) -> (tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>) {
    %10 = arith.addi %arg3, %c2 : index
    %11 = tile.load %0[%c0, %10] {tile.ring = array<i64: 0, 2, -1, 5>} : !tile.partition_view<64x32xf16, padding = neg_inf> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
    %12 = tile.load %1[%c0, %10] {tile.ring = array<i64: 1, 2, -1, 5>} : !tile.partition_view<64x32xf16, padding = neg_inf> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
    %13 = tile.permute %arg7 [1, 0] : tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>> -> tensor<32x64xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = true>>
    %14 = tile.mma %arg5, %13, %arg4 : tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<32x64xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = true>> into tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>
    scf.yield %14, %arg6, %11, %arg8, %12 : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  }
  %9 = tile.convert_layout %8#0 : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>> -> tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [2, 16], warps_per_block = [4, 1], order = [1, 0]>>
  tile.store %9, %2[%c0, %c0] : tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [2, 16], warps_per_block = [4, 1], order = [1, 0]>> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// The same loop with rings of 16 slots (128 KiB: the block has its
// multiprocessor to itself): in the shifted version, both tiles' words
// are loaded first and stored once the iteration's wgmmas are issued,
// before the wait for the previous ones.
// CHECK-LABEL: func.func @mm_loop_alone
// CHECK: scf.yield %{{[0-9]+}}#0 : vector<32xf32>
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.for
// CHECK-NOT: vector.store {{.*}} vector<8xf16>
// CHECK: llvm.load {{.*}} -> vector<4xi32>
// CHECK-NOT: vector.store {{.*}} vector<8xf16>
// CHECK: nvvm.wgmma.mma_async
// CHECK-NOT: vector.store {{.*}} vector<8xf16>
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// A tile every chunk of which lies inside the array (the whole block
// alike): each chunk shifted and stored, nothing else; a branch, which
// keeps ptxas from moving the shifts above the wgmmas.
// CHECK-NEXT: scf.if
// CHECK-NOT: arith.select {{.*}} : vector<8xf16>
// CHECK: llvm.intr.fshr
// CHECK-NOT: arith.select {{.*}} : vector<8xf16>
// CHECK: vector.store {{.*}} : memref<32768xf16>, vector<8xf16>
// CHECK-NOT: arith.select {{.*}} : vector<8xf16>
// CHECK: } else {
// The others: each chunk's checks, the padding where they fail.
// CHECK-NOT: vector.store
// CHECK: llvm.intr.fshr
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<8xf16>
// CHECK: vector.store {{.*}} : memref<32768xf16>, vector<8xf16>
// CHECK: vector.store {{.*}} : memref<32768xf16>, vector<8xf16>
// The few chunks whose words reach outside the array: one rolled loop,
// entered only by a thread that has one.
// CHECK: scf.if
// CHECK: scf.for
// CHECK: memref.load %arg0
// CHECK: } {llvm.loop_annotation = #loop_annotation}
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
func.func @mm_loop_alone(%arg0: memref<?x?xf16>, %arg1: memref<?x?xf16>, %arg2: memref<?x?xf32>) attributes {tile.block_size = 128 : i64, tile.kernel} {
  %c2 = arith.constant 2 : index
  %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = tile.partition_view %arg0 : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %1 = tile.partition_view %arg1 : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %2 = tile.partition_view %arg2 : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %3 = tile.num_tiles %0 dim 1 : !tile.partition_view<64x32xf16>
  %4 = tile.load %0[%c0, %c0] {tile.ring = array<i64: 0, 2, 0, 16>} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  %5 = tile.load %1[%c0, %c0] {tile.ring = array<i64: 1, 2, 0, 16>} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  %6 = tile.load %0[%c0, %c1] {tile.ring = array<i64: 0, 2, 1, 16>} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  %7 = tile.load %1[%c0, %c1] {tile.ring = array<i64: 1, 2, 1, 16>} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  %8:5 = scf.for %arg3 = %c0 to %3 step %c1 iter_args(%arg4 = %cst, %arg5 = %4, %arg6 = %6, %arg7 = %5, %arg8 = %7) -> (tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>) {
    %10 = arith.addi %arg3, %c2 : index
    %11 = tile.load %0[%c0, %10] {tile.ring = array<i64: 0, 2, -1, 16>} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
    %12 = tile.load %1[%c0, %10] {tile.ring = array<i64: 1, 2, -1, 16>} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
    %13 = tile.permute %arg7 [1, 0] : tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>> -> tensor<32x64xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = true>>
    %14 = tile.mma %arg5, %13, %arg4 : tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<32x64xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = true>> into tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>
    scf.yield %14, %arg6, %11, %arg8, %12 : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  }
  %9 = tile.convert_layout %8#0 : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>> -> tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [2, 16], warps_per_block = [4, 1], order = [1, 0]>>
  tile.store %9, %2[%c0, %c0] : tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [2, 16], warps_per_block = [4, 1], order = [1, 0]>> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// The same loop with its rings filled by the TMA (tile-use-tma's variant):
// thread 0 asks for the tile two iterations ahead only where the loop
// runs that far (iv + 2 step < n), so no tile past the loop's end is
// requested. The two rings, read by the same mma, share one mbarrier a
// slot: A's request announces both tiles' bytes and B's only copies, the
// mma waits once for the slot's phase, and the block meets after
// `wgmma.wait_group 1` rather than before the wgmmas. After the loop, only
// the first tiles (requested before it) that lie past its end are waited
// for: tile d where the trip count is at most d, two for both rings.
// The warpgroup's rows of A come from its index shuffled from lane 0 at
// the mma (no producer warp here), which ptxas knows is warp-uniform.
// CHECK-LABEL: func.func @mm_loop__tma
// CHECK-COUNT-5: nvvm.mbarrier.init
// CHECK-NOT: nvvm.mbarrier.init
// CHECK: scf.for %[[IV:.*]] = %{{.*}} to %[[N:.*]] step %[[STEP:[^ ]*]] iter_args
// CHECK: %[[TWO:.*]] = arith.muli %[[STEP]], %{{.*}} : index
// CHECK-NEXT: %[[AHEAD:.*]] = arith.addi %[[IV]], %[[TWO]] : index
// CHECK-NEXT: %[[RUNS:.*]] = arith.cmpi slt, %[[AHEAD]], %[[N]] : index
// CHECK: %[[ASK:.*]] = arith.andi %{{.*}}, %[[RUNS]] : i1
// CHECK-NEXT: scf.if %[[ASK]] {
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c8192_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: arith.andi %{{.*}}, %{{.*}} : i1
// CHECK-NEXT: scf.if
// CHECK-NOT: nvvm.mbarrier.arrive
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: gpu.barrier
// CHECK: gpu.shuffle idx
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NEXT: gpu.barrier
// CHECK: scf.yield
// CHECK: %[[TRIPS:.*]] = arith.select
// CHECK: %[[PAST0:.*]] = arith.cmpi ule, %[[TRIPS]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[PAST0]] {
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: %[[PAST1:.*]] = arith.cmpi ule, %[[TRIPS]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[PAST1]] {
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: return
func.func @mm_loop__tma(%arg0: memref<?x?xf16>, %arg1: memref<?x?xf16>, %arg2: memref<?x?xf32>, %arg3: !llvm.ptr {tile.tma = {arg = 0 : i64, box = array<i64: 64, 32>, swizzle = 64 : i64}}, %arg4: !llvm.ptr {tile.tma = {arg = 1 : i64, box = array<i64: 64, 32>, swizzle = 64 : i64}}, %arg5: !llvm.ptr {tile.tma = {arg = 2 : i64, box = array<i64: 64, 32>, optional, swizzle = 128 : i64}}) attributes {tile.block_size = 128 : i64, tile.kernel, tile.variant_of = @mm_loop} {
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
    %13 = tile.mma %arg8, %12, %arg7 : tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<32x64xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = true>> into tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>
    scf.yield %13, %arg9, %10, %arg11, %11 : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  }
  tile.store %8#0, %2[%c0, %c0] {tile.tma_store = 5 : i64} : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// The TMA loop of @mm_loop__tma inside an enclosing loop (a persistent
// kernel's walk over its tile blocks) that runs it with the same bounds
// each time: its rings continue from one walk to the next. Here the
// kernel declines a producer warp (warp_specialize = 0), so the
// consumers ask for the tiles themselves. The barriers
// are initialised once, at the start (five slots for both rings); each
// walk's tile t is the ring's position i n + t (i the enclosing loop's
// iteration, n the trip count); a first tile is asked for only where the
// loop reads it (t < n), so nothing is left to wait for after the loop.
// The block meets before the first tiles: another warpgroup's mmas of the
// last walk may still read their slots. A's request of each first tile
// announces both tiles, B's only copies.
// CHECK-LABEL: func.func @continued__tma
// CHECK-COUNT-5: nvvm.mbarrier.init
// CHECK-NOT: nvvm.mbarrier
// CHECK: scf.for %{{.*}} = %{{.*}} to
// CHECK: gpu.barrier
// CHECK-NOT: nvvm.mbarrier.inval
// CHECK-NOT: nvvm.mbarrier.init
// CHECK: %[[I:.*]] = arith.divui %{{.*}}, %{{.*}} : index
// CHECK: %[[BASE:.*]] = arith.muli %[[I]], %{{.*}} : index
// CHECK: %[[P:.*]] = arith.addi %[[BASE]], %c0{{.*}} : index
// CHECK: %[[READ:.*]] = arith.cmpi ult, %c0{{.*}}, %{{.*}} : index
// CHECK: arith.index_castui %[[P]] : index to i32
// CHECK: %[[ASK:.*]] = arith.andi %{{.*}}, %[[READ]] : i1
// CHECK-NEXT: scf.if %[[ASK]] {
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c8192_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}}, %arg3,
// CHECK-NOT: nvvm.mbarrier.inval
// CHECK-NOT: nvvm.mbarrier.arrive
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}}, %arg4,
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c8192_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}}, %arg3,
// CHECK-NOT: nvvm.mbarrier.arrive
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}}, %arg4,
// CHECK: scf.for
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c8192_i32
// CHECK-NOT: nvvm.mbarrier.arrive
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: nvvm.mbarrier.try_wait.parity
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK-NOT: nvvm.mbarrier
// CHECK: return
func.func @continued__tma(%arg0: memref<?x?xf16>, %arg1: memref<?x?xf16>, %arg2: memref<?x?xf32>, %arg3: !llvm.ptr {tile.tma = {arg = 0 : i64, box = array<i64: 64, 32>, swizzle = 64 : i64}}, %arg4: !llvm.ptr {tile.tma = {arg = 1 : i64, box = array<i64: 64, 32>, swizzle = 64 : i64}}, %arg5: index) attributes {tile.block_size = 128 : i64, tile.kernel, tile.hints = {warp_specialize = 0 : i64}, tile.variant_of = @continued} {
  %c2 = arith.constant 2 : index
  %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = tile.partition_view %arg0 : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %1 = tile.partition_view %arg1 : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %2 = tile.partition_view %arg2 : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %3 = tile.num_tiles %0 dim 1 : !tile.partition_view<64x32xf16>
  scf.for %t = %c0 to %arg5 step %c1 {
    %4 = tile.load %0[%t, %c0] {tile.ring = array<i64: 0, 2, 0, 5>, tile.tma_load = 3 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
    %5 = tile.load %1[%t, %c0] {tile.ring = array<i64: 1, 2, 0, 5>, tile.tma_load = 4 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
    %6 = tile.load %0[%t, %c1] {tile.ring = array<i64: 0, 2, 1, 5>, tile.tma_load = 3 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
    %7 = tile.load %1[%t, %c1] {tile.ring = array<i64: 1, 2, 1, 5>, tile.tma_load = 4 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
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

// -----

// A TMA store in a loop (a persistent walk): its coordinates for the TMA
// are made where its own are known, before the tile's mma loop, and given
// back by inline assembly that LLVM does not move, so that the store's
// request reads them there (computed after the loop, they kept what they
// come from live across it, and ptxas ran the loop off its uniform
// datapath).
// CHECK-LABEL: func.func @walk_store__tma
// CHECK: scf.for
// CHECK: %[[P0:.*]] = llvm.inline_asm has_side_effects "mov.b32 $0, $2; mov.b32 $1, $3;", "=r,=r,r,r"
// CHECK-NEXT: %[[X0:.*]] = llvm.extractvalue %[[P0]][0]
// CHECK-NEXT: %[[Y0:.*]] = llvm.extractvalue %[[P0]][1]
// CHECK: %[[P1:.*]] = llvm.inline_asm has_side_effects "mov.b32 $0, $2; mov.b32 $1, $3;", "=r,=r,r,r"
// CHECK-NEXT: %[[X1:.*]] = llvm.extractvalue %[[P1]][0]
// CHECK-NEXT: %[[Y1:.*]] = llvm.extractvalue %[[P1]][1]
// CHECK: scf.for
// CHECK: nvvm.wgmma.mma_async
// CHECK: scf.yield
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %{{.*}}, %{{.*}}, box[%[[X0]], %[[Y0]]]
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %{{.*}}, %{{.*}}, box[%[[X1]], %[[Y1]]]
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
func.func @walk_store__tma(%arg0: memref<?x?xf16>, %arg1: memref<?x?xf16>, %arg2: memref<?x?xf32>, %arg3: !llvm.ptr {tile.tma = {arg = 0 : i64, box = array<i64: 64, 32>, swizzle = 64 : i64}}, %arg4: !llvm.ptr {tile.tma = {arg = 1 : i64, box = array<i64: 64, 32>, swizzle = 64 : i64}}, %arg5: !llvm.ptr {tile.tma = {arg = 2 : i64, box = array<i64: 64, 32>, swizzle = 128 : i64}}, %arg6: index) attributes {tile.block_size = 128 : i64, tile.kernel, tile.hints = {warp_specialize = 0 : i64}, tile.variant_of = @walk_store} {
  %c2 = arith.constant 2 : index
  %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %0 = tile.partition_view %arg0 : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %1 = tile.partition_view %arg1 : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %2 = tile.partition_view %arg2 : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %3 = tile.num_tiles %0 dim 1 : !tile.partition_view<64x32xf16>
  scf.for %t = %c0 to %arg6 step %c1 {
    %row = arith.divui %t, %c3 : index
    %col = arith.remui %t, %c3 : index
    %4 = tile.load %0[%row, %c0] {tile.ring = array<i64: 0, 2, 0, 5>, tile.tma_load = 3 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
    %5 = tile.load %1[%col, %c0] {tile.ring = array<i64: 1, 2, 0, 5>, tile.tma_load = 4 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
    %6 = tile.load %0[%row, %c1] {tile.ring = array<i64: 0, 2, 1, 5>, tile.tma_load = 3 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
    %7 = tile.load %1[%col, %c1] {tile.ring = array<i64: 1, 2, 1, 5>, tile.tma_load = 4 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
    %8:5 = scf.for %arg7 = %c0 to %3 step %c1 iter_args(%arg8 = %cst, %arg9 = %4, %arg10 = %6, %arg11 = %5, %arg12 = %7) -> (tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>) {
      %9 = arith.addi %arg7, %c2 : index
      %10 = tile.load %0[%row, %9] {tile.ring = array<i64: 0, 2, -1, 5>, tile.tma_load = 3 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
      %11 = tile.load %1[%col, %9] {tile.ring = array<i64: 1, 2, -1, 5>, tile.tma_load = 4 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
      %12 = tile.permute %arg11 [1, 0] : tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>> -> tensor<32x64xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = true>>
      %13 = tile.mma %arg9, %12, %arg8 : tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<32x64xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = true>> into tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>
      scf.yield %13, %arg10, %10, %arg12, %11 : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
    }
    tile.store %8#0, %2[%row, %col] {tile.tma_store = 5 : i64} : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>> -> !tile.partition_view<64x64xf32>
  }
  return
}

// -----


// The same continued rings, the producer warp left to the compiler: such
// rings get one unasked. It walks the tile blocks too and runs ahead into
// the next walk while the consumers store this one. Its first tiles of each walk are asked for
// inside the walk, where the loop reads them; the consumers meet at no
// barrier before a walk's mma loop (the `empty` barriers keep a slot from
// being refilled until all 128 have given it back), their other block
// barriers are the named barrier of their 128 threads, and they give back
// the last iteration's slot after the loop.
// CHECK-LABEL: func.func @continued_producer__tma
// CHECK-SAME: tile.block_size = 160 : i64
// Thread 0 first asks for both descriptors, which the TMA reads at their
// first use.
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %c0{{.*}} : index
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK-COUNT-2: @p prefetch.tensormap [$0]
// CHECK-COUNT-5: nvvm.mbarrier.init {{.*}}, %c1_i32
// CHECK-COUNT-5: nvvm.mbarrier.init {{.*}}, %c128_i32
// CHECK-NOT: nvvm.mbarrier.init
// CHECK: %[[ROLE:.*]] = arith.cmpi uge, %{{.*}}, %c1{{.*}} : index
// CHECK-NEXT: scf.if %[[ROLE]] {
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: scf.for
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive.expect_tx {{.*}}, %c8192_i32, predicate =
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive.expect_tx {{.*}}, %c8192_i32, predicate =
// CHECK-NOT: nvvm.wgmma.mma_async
// The consumers' side (their walk, then its mma loop): no request, and no
// barrier before the mma loop.
// CHECK: scf.for
// CHECK-NOT: nvvm.barrier
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
// CHECK: return
func.func @continued_producer__tma(%arg0: memref<?x?xf16>, %arg1: memref<?x?xf16>, %arg2: memref<?x?xf32>, %arg3: !llvm.ptr {tile.tma = {arg = 0 : i64, box = array<i64: 64, 32>, swizzle = 64 : i64}}, %arg4: !llvm.ptr {tile.tma = {arg = 1 : i64, box = array<i64: 64, 32>, swizzle = 64 : i64}}, %arg5: index) attributes {tile.block_size = 128 : i64, tile.kernel, tile.variant_of = @continued_producer} {
  %c2 = arith.constant 2 : index
  %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = tile.partition_view %arg0 : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %1 = tile.partition_view %arg1 : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %2 = tile.partition_view %arg2 : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %3 = tile.num_tiles %0 dim 1 : !tile.partition_view<64x32xf16>
  scf.for %t = %c0 to %arg5 step %c1 {
    %4 = tile.load %0[%t, %c0] {tile.ring = array<i64: 0, 2, 0, 5>, tile.tma_load = 3 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
    %5 = tile.load %1[%t, %c0] {tile.ring = array<i64: 1, 2, 0, 5>, tile.tma_load = 4 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
    %6 = tile.load %0[%t, %c1] {tile.ring = array<i64: 0, 2, 1, 5>, tile.tma_load = 3 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
    %7 = tile.load %1[%t, %c1] {tile.ring = array<i64: 1, 2, 1, 5>, tile.tma_load = 4 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
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


// -----

// The same loop whose trip count changes with the enclosing loop's
// iteration: started again for each walk. Before the rings' first tiles
// the block meets and the group's barriers are initialised again, once
// for both rings, so that phases count from zero.
// CHECK-LABEL: func.func @restarted__tma
// CHECK-COUNT-5: nvvm.mbarrier.init
// CHECK-NOT: nvvm.mbarrier
// CHECK: scf.for
// CHECK: gpu.barrier
// CHECK-COUNT-5: nvvm.mbarrier.inval
// CHECK-NOT: nvvm.mbarrier.inval
// CHECK: nvvm.fence.mbarrier.init
// CHECK-NEXT: gpu.barrier
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c8192_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}}, %arg3,
// CHECK: scf.for
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
func.func @restarted__tma(%arg0: memref<?x?xf16>, %arg1: memref<?x?xf16>, %arg2: memref<?x?xf32>, %arg3: !llvm.ptr {tile.tma = {arg = 0 : i64, box = array<i64: 64, 32>, swizzle = 64 : i64}}, %arg4: !llvm.ptr {tile.tma = {arg = 1 : i64, box = array<i64: 64, 32>, swizzle = 64 : i64}}, %arg5: index) attributes {tile.block_size = 128 : i64, tile.kernel, tile.variant_of = @restarted} {
  %c2 = arith.constant 2 : index
  %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = tile.partition_view %arg0 : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %1 = tile.partition_view %arg1 : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %2 = tile.partition_view %arg2 : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %3 = tile.num_tiles %0 dim 1 : !tile.partition_view<64x32xf16>
  scf.for %t = %c0 to %arg5 step %c1 {
    %4 = tile.load %0[%t, %c0] {tile.ring = array<i64: 0, 2, 0, 5>, tile.tma_load = 3 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
    %5 = tile.load %1[%t, %c0] {tile.ring = array<i64: 1, 2, 0, 5>, tile.tma_load = 4 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
    %6 = tile.load %0[%t, %c1] {tile.ring = array<i64: 0, 2, 1, 5>, tile.tma_load = 3 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
    %7 = tile.load %1[%t, %c1] {tile.ring = array<i64: 1, 2, 1, 5>, tile.tma_load = 4 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
    %n = arith.addi %3, %t : index
    %8:5 = scf.for %arg6 = %c0 to %n step %c1 iter_args(%arg7 = %cst, %arg8 = %4, %arg9 = %6, %arg10 = %5, %arg11 = %7) -> (tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>) {
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

// -----

// The same cp.async ring, its mma reading the tile carried once (the next
// iteration's, by hand): only this iteration's tile may be among the
// groups left pending, so the mma waits for every copy.
// CHECK-LABEL: func.func @later_tile_copies
// CHECK: scf.for {{.*}} iter_args
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK: nvvm.wgmma.mma_async

func.func @later_tile_copies(%arg0: memref<?x?xf16>, %arg1: memref<?x?xf16>, %arg2: memref<?x?xf32>) attributes {tile.block_size = 128 : i64, tile.kernel} {
  %c2 = arith.constant 2 : index
  %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = tile.partition_view %arg0 : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %1 = tile.partition_view %arg1 : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %2 = tile.partition_view %arg2 : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %3 = tile.num_tiles %0 dim 1 : !tile.partition_view<64x32xf16>
  %4 = tile.load %0[%c0, %c0] {tile.ring = array<i64: 0, 2, 0, 5>} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  %5 = tile.load %1[%c0, %c0] {tile.ring = array<i64: 1, 2, 0, 5>} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  %6 = tile.load %0[%c0, %c1] {tile.ring = array<i64: 0, 2, 1, 5>} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  %7 = tile.load %1[%c0, %c1] {tile.ring = array<i64: 1, 2, 1, 5>} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  %8:5 = scf.for %arg3 = %c0 to %3 step %c1 iter_args(%arg4 = %cst, %arg5 = %4, %arg6 = %6, %arg7 = %5, %arg8 = %7) -> (tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>) {
    %10 = arith.addi %arg3, %c2 : index
    %11 = tile.load %0[%c0, %10] {tile.ring = array<i64: 0, 2, -1, 5>} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
    %12 = tile.load %1[%c0, %10] {tile.ring = array<i64: 1, 2, -1, 5>} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
    %13 = tile.permute %arg7 [1, 0] : tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>> -> tensor<32x64xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = true>>
    %14 = tile.mma %arg6, %13, %arg4 : tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<32x64xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = true>> into tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>
    scf.yield %14, %arg6, %11, %arg8, %12 : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>, tensor<64x32xf16, #tile.shared<swizzle_bytes = 64, element_bits = 16, transposed = false>>
  }
  %9 = tile.convert_layout %8#0 : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>> -> tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [2, 16], warps_per_block = [4, 1], order = [1, 0]>>
  tile.store %9, %2[%c0, %c0] : tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [2, 16], warps_per_block = [4, 1], order = [1, 0]>> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// 8-bit float operands, both K-major in shared memory (B = W^T: col):
// one m64nNk32 wgmma of E4M3 a K step, 32 bytes of it. Rows of any length
// (1-byte elements: any misalignment) take 16 elements a chunk out of two
// aligned words, the bytes left by a funnel shift.
// CHECK-LABEL: func.func @mm_f8
// CHECK: memref.alloc() {alignment = 1024 : i64} : memref<2048xf8E4M3FN>
// CHECK: memref.alloc() {alignment = 1024 : i64} : memref<2048xf8E4M3FN>
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK: llvm.intr.fshr
// CHECK: vector.bitcast %{{.*}} : vector<4xi32> to vector<16xf8E4M3FN>
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<2048xf8E4M3FN>, vector<16xf8E4M3FN>
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 32>, D[<f32>, <one>], A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <col>]
// CHECK-NOT: nvvm.wgmma.mma_async
func.func @mm_f8(%arg0: memref<?x?xf8E4M3FN>, %arg1: memref<?x?xf8E4M3FN>, %arg2: memref<?x?xf32>) attributes {tile.block_size = 128 : i64, tile.kernel} {
  %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>
  %c0 = arith.constant 0 : index
  %0 = tile.partition_view %arg0 : memref<?x?xf8E4M3FN> -> !tile.partition_view<64x32xf8E4M3FN>
  %1 = tile.partition_view %arg1 : memref<?x?xf8E4M3FN> -> !tile.partition_view<64x32xf8E4M3FN>
  %2 = tile.partition_view %arg2 : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %3 = tile.load %0[%c0, %c0] : !tile.partition_view<64x32xf8E4M3FN> -> tensor<64x32xf8E4M3FN, #tile.shared<swizzle_bytes = 32, element_bits = 8, transposed = false>>
  %4 = tile.load %1[%c0, %c0] : !tile.partition_view<64x32xf8E4M3FN> -> tensor<64x32xf8E4M3FN, #tile.shared<swizzle_bytes = 32, element_bits = 8, transposed = false>>
  %5 = tile.permute %4 [1, 0] : tensor<64x32xf8E4M3FN, #tile.shared<swizzle_bytes = 32, element_bits = 8, transposed = false>> -> tensor<32x64xf8E4M3FN, #tile.shared<swizzle_bytes = 32, element_bits = 8, transposed = true>>
  %6 = tile.mma %3, %5, %cst : tensor<64x32xf8E4M3FN, #tile.shared<swizzle_bytes = 32, element_bits = 8, transposed = false>>, tensor<32x64xf8E4M3FN, #tile.shared<swizzle_bytes = 32, element_bits = 8, transposed = true>> into tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>
  %7 = tile.convert_layout %6 : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>> -> tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [2, 16], warps_per_block = [4, 1], order = [1, 0]>>
  tile.store %7, %2[%c0, %c0] : tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [2, 16], warps_per_block = [4, 1], order = [1, 0]>> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// tf32 operands (f32), both K-major in shared memory. Rows of any length:
// 4-byte elements sit at a word boundary, so a chunk is the words from
// the misalignment's word on, selected; no shift.
// CHECK-LABEL: func.func @mm_tf32
// CHECK: memref.alloc() {alignment = 1024 : i64} : memref<2048xf32>
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK-NOT: llvm.intr.fshr
// CHECK: vector.bitcast %{{.*}} : vector<4xi32> to vector<4xf32>
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<2048xf32>, vector<4xf32>
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 8>, D[<f32>, <one>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
func.func @mm_tf32(%arg0: memref<?x?xf32>, %arg1: memref<?x?xf32>, %arg2: memref<?x?xf32>) attributes {tile.block_size = 128 : i64, tile.kernel} {
  %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>
  %c0 = arith.constant 0 : index
  %0 = tile.partition_view %arg0 : memref<?x?xf32> -> !tile.partition_view<64x32xf32>
  %1 = tile.partition_view %arg1 : memref<?x?xf32> -> !tile.partition_view<64x32xf32>
  %2 = tile.partition_view %arg2 : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %3 = tile.load %0[%c0, %c0] : !tile.partition_view<64x32xf32> -> tensor<64x32xf32, #tile.shared<swizzle_bytes = 128, element_bits = 32, transposed = false>>
  %4 = tile.load %1[%c0, %c0] : !tile.partition_view<64x32xf32> -> tensor<64x32xf32, #tile.shared<swizzle_bytes = 128, element_bits = 32, transposed = false>>
  %5 = tile.permute %4 [1, 0] : tensor<64x32xf32, #tile.shared<swizzle_bytes = 128, element_bits = 32, transposed = false>> -> tensor<32x64xf32, #tile.shared<swizzle_bytes = 128, element_bits = 32, transposed = true>>
  %6 = tile.mma %3, %5, %cst : tensor<64x32xf32, #tile.shared<swizzle_bytes = 128, element_bits = 32, transposed = false>>, tensor<32x64xf32, #tile.shared<swizzle_bytes = 128, element_bits = 32, transposed = true>> into tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>
  %7 = tile.convert_layout %6 : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>> -> tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [2, 16], warps_per_block = [4, 1], order = [1, 0]>>
  tile.store %7, %2[%c0, %c0] : tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [2, 16], warps_per_block = [4, 1], order = [1, 0]>> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// tf32 with B loaded N-major, computed transposed, B's layout written by
// hand as wgmma's A fragments of B^T (tile-assign-layouts keeps B in shared
// memory, below): A is copied into its own K-major buffer (the only one),
// B's registers are the fragments, four 32-bit registers a K step
// of 8, and A's buffer is wgmma's B: the register form, .tf32, with no
// transpose operand (16-bit types alone have one).
// CHECK-LABEL: func.func @mm_tf32_swapped
// CHECK: memref.alloc() {alignment = 1024 : i64} : memref<512xf32>
// CHECK-NOT: memref.alloc() {alignment = 1024
// CHECK: llvm.bitcast %{{.*}} : vector<1xf32> to i32
// CHECK: llvm.inline_asm has_side_effects "{{.*}}wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {{.*}}, {$64, $65, $66, $67}, $68, p, 1, 1;\0A}"
// CHECK-NOT: wgmma.mma_async
// CHECK: "wgmma.wait_group.sync.aligned 0;"
func.func @mm_tf32_swapped(%arg0: memref<?x?xf32>, %arg1: memref<?x?xf32>, %arg2: memref<?x?xf32>) attributes {tile.block_size = 128 : i64, tile.kernel} {
  %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #tile.linear<register = [[1, 0], [0, 8], [8, 0], [16, 0], [32, 0]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 16]], warp = [[0, 4], [0, 32]]>>
  %c0 = arith.constant 0 : index
  %0 = tile.partition_view %arg0 : memref<?x?xf32> -> !tile.partition_view<64x8xf32>
  %1 = tile.partition_view %arg1 : memref<?x?xf32> -> !tile.partition_view<8x64xf32>
  %2 = tile.partition_view %arg2 : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %3 = tile.load %0[%c0, %c0] : !tile.partition_view<64x8xf32> -> tensor<64x8xf32, #tile.shared<swizzle_bytes = 32, element_bits = 32, transposed = false>>
  %4 = tile.load %1[%c0, %c0] : !tile.partition_view<8x64xf32> -> tensor<8x64xf32, #tile.linear<register = [[0, 8], [4, 0]], lane = [[1, 0], [2, 0], [0, 1], [0, 2], [0, 16]], warp = [[0, 4], [0, 32]]>>
  %5 = tile.mma %3, %4, %cst : tensor<64x8xf32, #tile.shared<swizzle_bytes = 32, element_bits = 32, transposed = false>>, tensor<8x64xf32, #tile.linear<register = [[0, 8], [4, 0]], lane = [[1, 0], [2, 0], [0, 1], [0, 2], [0, 16]], warp = [[0, 4], [0, 32]]>> into tensor<64x64xf32, #tile.linear<register = [[1, 0], [0, 8], [8, 0], [16, 0], [32, 0]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 16]], warp = [[0, 4], [0, 32]]>>
  %6 = tile.convert_layout %5 : tensor<64x64xf32, #tile.linear<register = [[1, 0], [0, 8], [8, 0], [16, 0], [32, 0]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 16]], warp = [[0, 4], [0, 32]]>> -> tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [2, 16], warps_per_block = [4, 1], order = [1, 0]>>
  tile.store %6, %2[%c0, %c0] : tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [2, 16], warps_per_block = [4, 1], order = [1, 0]>> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// The same in a loop (a ring for A; B's registers carried, the next ones
// loaded at the end of the iteration, as written). wgmma reads
// B^T's registers while it runs, and the loop's copies into them (and
// ptxas, which may give them to later values) must wait for it: the mma
// is waited for at the end of the iteration, after B's loads, by a wait
// that takes the accumulator's 64 registers and the 32 fragment
// registers.
// CHECK-LABEL: func.func @tf32_swapped_loop
// CHECK: scf.for
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: llvm.inline_asm has_side_effects "{{.*}}wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {{.*}}"
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: wgmma.wait
// CHECK: %[[NEXT:.*]] = scf.if {{.*}} -> (vector<32xf32>)
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;", "{{(=f,){64}(=r,){31}=r}},
// CHECK: scf.yield {{.*}}, %[[NEXT]] : vector<64xf32>, index, index, vector<32xf32>, vector<32xf32>
func.func @tf32_swapped_loop(%arg0: memref<?x?xf32>, %arg1: memref<?x?xf32>, %arg2: memref<?x?xf32>) attributes {tile.block_size = 256 : i64, tile.kernel} {
  %c2 = arith.constant 2 : index
  %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #tile.linear<register = [[1, 0], [0, 8], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 16]], warp = [[0, 4], [0, 32], [0, 64]]>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = tile.partition_view %arg0 : memref<?x?xf32> -> !tile.partition_view<128x64xf32>
  %1 = tile.partition_view %arg1 : memref<?x?xf32> -> !tile.partition_view<64x128xf32>
  %2 = tile.partition_view %arg2 : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %3 = tile.num_tiles %0 dim 1 : !tile.partition_view<128x64xf32>
  %4 = tile.load %0[%c0, %c0] {tile.ring = array<i64: 0, 2, 0, 4>} : !tile.partition_view<128x64xf32> -> tensor<128x64xf32, #tile.shared<swizzle_bytes = 128, element_bits = 32, transposed = false>>
  %5 = tile.load %1[%c0, %c0] {tile.ring = array<i64: 1, 2, 0, 4>} : !tile.partition_view<64x128xf32> -> tensor<64x128xf32, #tile.linear<register = [[0, 8], [4, 0], [8, 0], [16, 0], [32, 0]], lane = [[1, 0], [2, 0], [0, 1], [0, 2], [0, 16]], warp = [[0, 4], [0, 32], [0, 64]]>>
  %6 = tile.load %0[%c0, %c1] {tile.ring = array<i64: 0, 2, 1, 4>} : !tile.partition_view<128x64xf32> -> tensor<128x64xf32, #tile.shared<swizzle_bytes = 128, element_bits = 32, transposed = false>>
  %7 = tile.load %1[%c1, %c0] {tile.ring = array<i64: 1, 2, 1, 4>} : !tile.partition_view<64x128xf32> -> tensor<64x128xf32, #tile.linear<register = [[0, 8], [4, 0], [8, 0], [16, 0], [32, 0]], lane = [[1, 0], [2, 0], [0, 1], [0, 2], [0, 16]], warp = [[0, 4], [0, 32], [0, 64]]>>
  %8:5 = scf.for %arg3 = %c0 to %3 step %c1 iter_args(%arg4 = %cst, %arg5 = %4, %arg6 = %6, %arg7 = %5, %arg8 = %7) -> (tensor<128x128xf32, #tile.linear<register = [[1, 0], [0, 8], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 16]], warp = [[0, 4], [0, 32], [0, 64]]>>, tensor<128x64xf32, #tile.shared<swizzle_bytes = 128, element_bits = 32, transposed = false>>, tensor<128x64xf32, #tile.shared<swizzle_bytes = 128, element_bits = 32, transposed = false>>, tensor<64x128xf32, #tile.linear<register = [[0, 8], [4, 0], [8, 0], [16, 0], [32, 0]], lane = [[1, 0], [2, 0], [0, 1], [0, 2], [0, 16]], warp = [[0, 4], [0, 32], [0, 64]]>>, tensor<64x128xf32, #tile.linear<register = [[0, 8], [4, 0], [8, 0], [16, 0], [32, 0]], lane = [[1, 0], [2, 0], [0, 1], [0, 2], [0, 16]], warp = [[0, 4], [0, 32], [0, 64]]>>) {
    %10 = arith.addi %arg3, %c2 : index
    %11 = tile.load %0[%c0, %10] {tile.ring = array<i64: 0, 2, -1, 4>} : !tile.partition_view<128x64xf32> -> tensor<128x64xf32, #tile.shared<swizzle_bytes = 128, element_bits = 32, transposed = false>>
    %12 = tile.mma %arg5, %arg7, %arg4 : tensor<128x64xf32, #tile.shared<swizzle_bytes = 128, element_bits = 32, transposed = false>>, tensor<64x128xf32, #tile.linear<register = [[0, 8], [4, 0], [8, 0], [16, 0], [32, 0]], lane = [[1, 0], [2, 0], [0, 1], [0, 2], [0, 16]], warp = [[0, 4], [0, 32], [0, 64]]>> into tensor<128x128xf32, #tile.linear<register = [[1, 0], [0, 8], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 16]], warp = [[0, 4], [0, 32], [0, 64]]>>
    %13 = tile.load %1[%10, %c0] {tile.ring = array<i64: 1, 2, -1, 4>} : !tile.partition_view<64x128xf32> -> tensor<64x128xf32, #tile.linear<register = [[0, 8], [4, 0], [8, 0], [16, 0], [32, 0]], lane = [[1, 0], [2, 0], [0, 1], [0, 2], [0, 16]], warp = [[0, 4], [0, 32], [0, 64]]>>
    scf.yield %12, %arg6, %11, %arg8, %13 : tensor<128x128xf32, #tile.linear<register = [[1, 0], [0, 8], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 16]], warp = [[0, 4], [0, 32], [0, 64]]>>, tensor<128x64xf32, #tile.shared<swizzle_bytes = 128, element_bits = 32, transposed = false>>, tensor<128x64xf32, #tile.shared<swizzle_bytes = 128, element_bits = 32, transposed = false>>, tensor<64x128xf32, #tile.linear<register = [[0, 8], [4, 0], [8, 0], [16, 0], [32, 0]], lane = [[1, 0], [2, 0], [0, 1], [0, 2], [0, 16]], warp = [[0, 4], [0, 32], [0, 64]]>>, tensor<64x128xf32, #tile.linear<register = [[0, 8], [4, 0], [8, 0], [16, 0], [32, 0]], lane = [[1, 0], [2, 0], [0, 1], [0, 2], [0, 16]], warp = [[0, 4], [0, 32], [0, 64]]>>
  }
  %9 = tile.convert_layout %8#0 : tensor<128x128xf32, #tile.linear<register = [[1, 0], [0, 8], [8, 0], [16, 0], [32, 0], [64, 0]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 16]], warp = [[0, 4], [0, 32], [0, 64]]>> -> tensor<128x128xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [1, 32], warps_per_block = [8, 1], order = [1, 0]>>
  tile.store %9, %2[%c0, %c0] : tensor<128x128xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [1, 32], warps_per_block = [8, 1], order = [1, 0]>> -> !tile.partition_view<128x128xf32>
  return
}

// -----

// tile-assign-layouts' form of the same: B stays in shared memory, N-major
// (rows of 256 bytes, 128-byte swizzle), and the threads read B^T's four
// fragments from it after the copies' wait and barrier, one 4-byte load
// each (the swizzle's XOR applied to the thread's part once a pattern,
// the rest added), before the wgmma fence.
// CHECK-LABEL: func.func @mm_tf32_shared_b
// CHECK-COUNT-2: memref.alloc() {alignment = 1024 : i64} : memref<512xf32>
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: gpu.barrier
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK: vector.from_elements {{.*}} : vector<4xf32>
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32
func.func @mm_tf32_shared_b(%arg0: memref<?x?xf32>, %arg1: memref<?x?xf32>, %arg2: memref<?x?xf32>) attributes {tile.block_size = 128 : i64, tile.kernel} {
  %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #tile.linear<register = [[1, 0], [0, 8], [8, 0], [16, 0], [32, 0]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 16]], warp = [[0, 4], [0, 32]]>>
  %c0 = arith.constant 0 : index
  %0 = tile.partition_view %arg0 : memref<?x?xf32> -> !tile.partition_view<64x8xf32>
  %1 = tile.partition_view %arg1 : memref<?x?xf32> -> !tile.partition_view<8x64xf32>
  %2 = tile.partition_view %arg2 : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %3 = tile.load %0[%c0, %c0] : !tile.partition_view<64x8xf32> -> tensor<64x8xf32, #tile.shared<swizzle_bytes = 32, element_bits = 32, transposed = false>>
  %4 = tile.load %1[%c0, %c0] : !tile.partition_view<8x64xf32> -> tensor<8x64xf32, #tile.shared<swizzle_bytes = 128, element_bits = 32, transposed = false>>
  %5 = tile.mma %3, %4, %cst : tensor<64x8xf32, #tile.shared<swizzle_bytes = 32, element_bits = 32, transposed = false>>, tensor<8x64xf32, #tile.shared<swizzle_bytes = 128, element_bits = 32, transposed = false>> into tensor<64x64xf32, #tile.linear<register = [[1, 0], [0, 8], [8, 0], [16, 0], [32, 0]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 16]], warp = [[0, 4], [0, 32]]>>
  %6 = tile.convert_layout %5 : tensor<64x64xf32, #tile.linear<register = [[1, 0], [0, 8], [8, 0], [16, 0], [32, 0]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 16]], warp = [[0, 4], [0, 32]]>> -> tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [2, 16], warps_per_block = [4, 1], order = [1, 0]>>
  tile.store %6, %2[%c0, %c0] : tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [2, 16], warps_per_block = [4, 1], order = [1, 0]>> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// The same for 8-bit floats (rows of 64 bytes, 64-byte swizzle): wgmma
// rows p and p + 8 of a warp's 16 hold C's columns 2 p and 2 p + 1, so a
// thread's two rows are one b16 of B's tile: B^T's four fragment
// registers of the K step come from one transposed ldmatrix of four 8x8
// b16 matrices, each register a byte permute of two of its registers,
// by a selector computed once per thread; no byte loads.
// CHECK-LABEL: func.func @mm_f8_shared_b
// CHECK: arith.index_cast %{{.*}} : index to i32
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: gpu.barrier
// CHECK-NOT: llvm.load {{.*}}!llvm.ptr<3> -> i8
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK-NOT: nvvm.ldmatrix
// CHECK-COUNT-4: nvvm.prmt <default> %{{.*}}, %{{.*}}, %{{.*}} : i32
// CHECK-NOT: llvm.load {{.*}}!llvm.ptr<3> -> i8
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3
func.func @mm_f8_shared_b(%arg0: memref<?x?xf8E4M3FN>, %arg1: memref<?x?xf8E4M3FN>, %arg2: memref<?x?xf32>) attributes {tile.block_size = 128 : i64, tile.kernel} {
  %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #tile.linear<register = [[1, 0], [0, 1], [8, 0], [16, 0], [32, 0]], lane = [[2, 0], [4, 0], [0, 2], [0, 4], [0, 8]], warp = [[0, 16], [0, 32]]>>
  %c0 = arith.constant 0 : index
  %0 = tile.partition_view %arg0 : memref<?x?xf8E4M3FN> -> !tile.partition_view<64x32xf8E4M3FN>
  %1 = tile.partition_view %arg1 : memref<?x?xf8E4M3FN> -> !tile.partition_view<32x64xf8E4M3FN>
  %2 = tile.partition_view %arg2 : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %3 = tile.load %0[%c0, %c0] : !tile.partition_view<64x32xf8E4M3FN> -> tensor<64x32xf8E4M3FN, #tile.shared<swizzle_bytes = 32, element_bits = 8, transposed = false>>
  %4 = tile.load %1[%c0, %c0] : !tile.partition_view<32x64xf8E4M3FN> -> tensor<32x64xf8E4M3FN, #tile.shared<swizzle_bytes = 64, element_bits = 8, transposed = false>>
  %5 = tile.mma %3, %4, %cst : tensor<64x32xf8E4M3FN, #tile.shared<swizzle_bytes = 32, element_bits = 8, transposed = false>>, tensor<32x64xf8E4M3FN, #tile.shared<swizzle_bytes = 64, element_bits = 8, transposed = false>> into tensor<64x64xf32, #tile.linear<register = [[1, 0], [0, 1], [8, 0], [16, 0], [32, 0]], lane = [[2, 0], [4, 0], [0, 2], [0, 4], [0, 8]], warp = [[0, 16], [0, 32]]>>
  %6 = tile.convert_layout %5 : tensor<64x64xf32, #tile.linear<register = [[1, 0], [0, 1], [8, 0], [16, 0], [32, 0]], lane = [[2, 0], [4, 0], [0, 2], [0, 4], [0, 8]], warp = [[0, 16], [0, 32]]>> -> tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [2, 16], warps_per_block = [4, 1], order = [1, 0]>>
  tile.store %6, %2[%c0, %c0] : tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [2, 16], warps_per_block = [4, 1], order = [1, 0]>> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// An exchange outside loops goes through the memory of a ring whose loop
// is done (A's: four slots of 64x32 f32 hold the 64x64 accumulator),
// behind a barrier; one between a ring's first tiles and its loop gets a
// buffer of its own (those tiles' copies may still be in flight).
// CHECK-LABEL: func.func @exchange_in_done_ring
// CHECK: %[[RING:.*]] = memref.alloc() {alignment = 1024 : i64} : memref<8192xf32>
// CHECK: %[[OWN:.*]] = memref.alloc() : memref<4096xf32>
// CHECK-NOT: memref.alloc
// CHECK: vector.store %{{.*}}, %[[OWN]][%{{.*}}] {alignment = 4 : i64}
// CHECK: scf.for
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: gpu.barrier
// CHECK: vector.store %{{.*}}, %[[RING]][%{{.*}}] {alignment = 4 : i64}
func.func @exchange_in_done_ring(%arg0: memref<?x?xf32>, %arg1: memref<?x?xf32>, %arg2: memref<?x?xf32>) attributes {tile.block_size = 128 : i64, tile.kernel} {
  %c2 = arith.constant 2 : index
  %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #tile.linear<register = [[1, 0], [0, 8], [8, 0], [16, 0], [32, 0]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 16]], warp = [[0, 4], [0, 32]]>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = tile.partition_view %arg0 : memref<?x?xf32> -> !tile.partition_view<64x32xf32>
  %1 = tile.partition_view %arg1 : memref<?x?xf32> -> !tile.partition_view<32x64xf32>
  %2 = tile.partition_view %arg2 : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %3 = tile.num_tiles %0 dim 1 : !tile.partition_view<64x32xf32>
  %4 = tile.load %0[%c0, %c0] {tile.ring = array<i64: 0, 2, 0, 4>} : !tile.partition_view<64x32xf32> -> tensor<64x32xf32, #tile.shared<swizzle_bytes = 128, element_bits = 32, transposed = false>>
  %5 = tile.load %1[%c0, %c0] {tile.ring = array<i64: 1, 2, 0, 4>} : !tile.partition_view<32x64xf32> -> tensor<32x64xf32, #tile.shared<swizzle_bytes = 128, element_bits = 32, transposed = false>>
  %6 = tile.load %0[%c0, %c1] {tile.ring = array<i64: 0, 2, 1, 4>} : !tile.partition_view<64x32xf32> -> tensor<64x32xf32, #tile.shared<swizzle_bytes = 128, element_bits = 32, transposed = false>>
  %7 = tile.load %1[%c1, %c0] {tile.ring = array<i64: 1, 2, 1, 4>} : !tile.partition_view<32x64xf32> -> tensor<32x64xf32, #tile.shared<swizzle_bytes = 128, element_bits = 32, transposed = false>>
  %pre = tile.convert_layout %cst : tensor<64x64xf32, #tile.linear<register = [[1, 0], [0, 8], [8, 0], [16, 0], [32, 0]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 16]], warp = [[0, 4], [0, 32]]>> -> tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [2, 16], warps_per_block = [4, 1], order = [1, 0]>>
  tile.store %pre, %2[%c1, %c0] : tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [2, 16], warps_per_block = [4, 1], order = [1, 0]>> -> !tile.partition_view<64x64xf32>
  %8:5 = scf.for %arg3 = %c0 to %3 step %c1 iter_args(%arg4 = %cst, %arg5 = %4, %arg6 = %6, %arg7 = %5, %arg8 = %7) -> (tensor<64x64xf32, #tile.linear<register = [[1, 0], [0, 8], [8, 0], [16, 0], [32, 0]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 16]], warp = [[0, 4], [0, 32]]>>, tensor<64x32xf32, #tile.shared<swizzle_bytes = 128, element_bits = 32, transposed = false>>, tensor<64x32xf32, #tile.shared<swizzle_bytes = 128, element_bits = 32, transposed = false>>, tensor<32x64xf32, #tile.shared<swizzle_bytes = 128, element_bits = 32, transposed = false>>, tensor<32x64xf32, #tile.shared<swizzle_bytes = 128, element_bits = 32, transposed = false>>) {
    %10 = arith.addi %arg3, %c2 : index
    %11 = tile.load %0[%c0, %10] {tile.ring = array<i64: 0, 2, -1, 4>} : !tile.partition_view<64x32xf32> -> tensor<64x32xf32, #tile.shared<swizzle_bytes = 128, element_bits = 32, transposed = false>>
    %12 = tile.load %1[%10, %c0] {tile.ring = array<i64: 1, 2, -1, 4>} : !tile.partition_view<32x64xf32> -> tensor<32x64xf32, #tile.shared<swizzle_bytes = 128, element_bits = 32, transposed = false>>
    %13 = tile.mma %arg5, %arg7, %arg4 : tensor<64x32xf32, #tile.shared<swizzle_bytes = 128, element_bits = 32, transposed = false>>, tensor<32x64xf32, #tile.shared<swizzle_bytes = 128, element_bits = 32, transposed = false>> into tensor<64x64xf32, #tile.linear<register = [[1, 0], [0, 8], [8, 0], [16, 0], [32, 0]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 16]], warp = [[0, 4], [0, 32]]>>
    scf.yield %13, %arg6, %11, %arg8, %12 : tensor<64x64xf32, #tile.linear<register = [[1, 0], [0, 8], [8, 0], [16, 0], [32, 0]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 16]], warp = [[0, 4], [0, 32]]>>, tensor<64x32xf32, #tile.shared<swizzle_bytes = 128, element_bits = 32, transposed = false>>, tensor<64x32xf32, #tile.shared<swizzle_bytes = 128, element_bits = 32, transposed = false>>, tensor<32x64xf32, #tile.shared<swizzle_bytes = 128, element_bits = 32, transposed = false>>, tensor<32x64xf32, #tile.shared<swizzle_bytes = 128, element_bits = 32, transposed = false>>
  }
  %9 = tile.convert_layout %8#0 : tensor<64x64xf32, #tile.linear<register = [[1, 0], [0, 8], [8, 0], [16, 0], [32, 0]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 16]], warp = [[0, 4], [0, 32]]>> -> tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [2, 16], warps_per_block = [4, 1], order = [1, 0]>>
  tile.store %9, %2[%c0, %c0] : tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [2, 16], warps_per_block = [4, 1], order = [1, 0]>> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// B in registers (8-bit floats loaded N-major, tile-assign-layouts' staging
// layout: 4 registers along N, then 4 along K), written K-major for the
// mma: each write gathers the 4 registers of a K run (register bases 2 and
// 3) into one 4-byte store.
// CHECK-LABEL: func.func @mm_f8_staged
// CHECK: %[[CHUNK:.*]] = vector.shuffle %[[B:.*]], %[[B]] [0, 4, 8, 12] : vector<16xf8E5M2>, vector<16xf8E5M2>
// CHECK: vector.store %[[CHUNK]], %{{.*}}[%{{.*}}] {alignment = 4 : i64} : memref<2048xf8E5M2>, vector<4xf8E5M2>
// CHECK: vector.shuffle %[[B]], %[[B]] [1, 5, 9, 13]
// CHECK: vector.shuffle %[[B]], %[[B]] [2, 6, 10, 14]
// CHECK: vector.shuffle %[[B]], %[[B]] [3, 7, 11, 15]
// CHECK: nvvm.wgmma.mma_async {{.*}} A[<e5m2>, <one>, <row>], B[<e5m2>, <one>, <col>]
func.func @mm_f8_staged(%arg0: memref<?x?xf8E5M2>, %arg1: memref<?x?xf8E5M2>, %arg2: memref<?x?xf32>) attributes {tile.block_size = 128 : i64, tile.kernel} {
  %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>
  %c0 = arith.constant 0 : index
  %0 = tile.partition_view %arg0 : memref<?x?xf8E5M2> -> !tile.partition_view<64x32xf8E5M2>
  %1 = tile.partition_view %arg1 : memref<?x?xf8E5M2> -> !tile.partition_view<32x64xf8E5M2>
  %2 = tile.partition_view %arg2 : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %3 = tile.load %0[%c0, %c0] : !tile.partition_view<64x32xf8E5M2> -> tensor<64x32xf8E5M2, #tile.shared<swizzle_bytes = 32, element_bits = 8, transposed = false>>
  %4 = tile.load %1[%c0, %c0] : !tile.partition_view<32x64xf8E5M2> -> tensor<32x64xf8E5M2, #tile.linear<register = [[0, 1], [0, 2], [1, 0], [2, 0]], lane = [[4, 0], [8, 0], [16, 0], [0, 4], [0, 8]], warp = [[0, 16], [0, 32]]>>
  %5 = tile.mma %3, %4, %cst : tensor<64x32xf8E5M2, #tile.shared<swizzle_bytes = 32, element_bits = 8, transposed = false>>, tensor<32x64xf8E5M2, #tile.linear<register = [[0, 1], [0, 2], [1, 0], [2, 0]], lane = [[4, 0], [8, 0], [16, 0], [0, 4], [0, 8]], warp = [[0, 16], [0, 32]]>> into tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>>
  %6 = tile.convert_layout %5 : tensor<64x64xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 64>> -> tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [2, 16], warps_per_block = [4, 1], order = [1, 0]>>
  tile.store %6, %2[%c0, %c0] : tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [2, 16], warps_per_block = [4, 1], order = [1, 0]>> -> !tile.partition_view<64x64xf32>
  return
}
