// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-slice-clusters))' | FileCheck %s
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-slice-clusters))' --remarks-filter=tile -verify-diagnostics -o /dev/null

// A GEMM with a row-index epilogue, two blocks a cluster: A, the
// accumulator and everything along the rows is half as tall; block r
// loads and stores tile 2 i + r of views with half-height tiles; B stays
// whole; the iota counts from r * 128.
// CHECK-LABEL: func.func @gemm
// CHECK-SAME:    tile.cluster = 2 : i64
// CHECK-SAME:    tile.sliced
// CHECK:         %[[R:.*]] = gpu.cluster_block_id x
// CHECK:         %[[PA:.*]] = tile.partition_view %{{.*}} -> !tile.partition_view<256x64xf16>
// CHECK-NEXT:    %[[PA2:.*]] = tile.partition_view %{{.*}} -> !tile.partition_view<128x64xf16>
// CHECK:         %[[PB:.*]] = tile.partition_view %{{.*}} -> !tile.partition_view<64x128xf16>
// CHECK:         %[[PC2:.*]] = tile.partition_view %{{.*}} -> !tile.partition_view<128x128xf32>
// CHECK:         %[[BM:.*]] = tile.block_id x
// CHECK:         tile.num_tiles %[[PA]] dim 1 : !tile.partition_view<256x64xf16>
// CHECK:         arith.constant dense<0.000000e+00> : tensor<128x128xf32>
// CHECK:         scf.for {{.*}} -> (tensor<128x128xf32>)
// CHECK:           %[[M:.*]] = arith.muli %[[BM]], %{{.*}} : index
// CHECK-NEXT:      %[[I:.*]] = arith.addi %[[M]], %[[R]] : index
// CHECK-NEXT:      tile.load %[[PA2]][%[[I]], %{{.*}}] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
// CHECK-NEXT:      tile.load %[[PB]][%{{.*}}, %{{.*}}] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
// CHECK-NEXT:      tile.mma {{.*}} : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
// CHECK:         %[[IOTA:.*]] = tile.iota : tensor<128xi32>
// CHECK-NEXT:    %[[C128:.*]] = arith.constant 128 : index
// CHECK-NEXT:    %[[FIRST:.*]] = arith.muli %[[R]], %[[C128]] : index
// CHECK-NEXT:    %[[F32:.*]] = arith.index_cast %[[FIRST]] : index to i32
// CHECK-NEXT:    %[[SPLAT:.*]] = tile.splat %[[F32]] : i32 -> tensor<128xi32>
// CHECK-NEXT:    %[[ROWS:.*]] = arith.addi %[[IOTA]], %[[SPLAT]] : tensor<128xi32>
// CHECK-NEXT:    arith.sitofp %[[ROWS]] : tensor<128xi32> to tensor<128xf32>
// CHECK:         tile.broadcast %{{.*}} : tensor<128x1xf32> -> tensor<128x128xf32>
// CHECK:         tile.store %{{.*}}, %[[PC2]][%{{.*}}, %{{.*}}] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
// expected-remark@+1 {{each program block runs as a cluster of 2 blocks, each computing 1/2 of the rows of its mma tiles}}
func.func @gemm(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>)
    attributes {tile.kernel, tile.hints = {num_ctas = 2 : i64}} {
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
  %i = tile.iota : tensor<256xi32>
  %f = arith.sitofp %i : tensor<256xi32> to tensor<256xf32>
  %r = tile.reshape %f : tensor<256xf32> -> tensor<256x1xf32>
  %rb = tile.broadcast %r : tensor<256x1xf32> -> tensor<256x128xf32>
  %o = arith.addf %acc, %rb : tensor<256x128xf32>
  tile.store %o, %pc[%bm, %bn] : tensor<256x128xf32> -> !tile.partition_view<256x128xf32>
  return
}

// -----

// Attention's shape: Q (A of the first mma) and everything along its rows
// is cut, the row reductions along the keys stay in each block, K and V
// (B operands) are whole; A^T read through a permute is cut along the
// loaded tile's columns.
// CHECK-LABEL: func.func @attention
// CHECK-SAME:    tile.cluster = 4 : i64
// CHECK:         %[[QT:.*]] = tile.load %{{.*}} : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
// CHECK-NEXT:    tile.permute %[[QT]] [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
// CHECK:         scf.for {{.*}} -> (tensor<64x64xf32>, tensor<64xf32>)
// CHECK:           tile.load %{{.*}} : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
// CHECK:           tile.mma %{{.*}} : tensor<64x64xf16>, tensor<64x64xf16> into tensor<64x64xf32>
// CHECK:           tile.reduce max %{{.*}} dim 1 : tensor<64x64xf32> -> tensor<64xf32>
// CHECK:           tile.broadcast %{{.*}} : tensor<64x1xf32> -> tensor<64x64xf32>
// CHECK:           tile.load %{{.*}} : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
// CHECK:           tile.mma %{{.*}} : tensor<64x64xf16>, tensor<64x64xf16> into tensor<64x64xf32>
// CHECK:         tile.store %{{.*}} : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
// expected-remark@+1 {{each program block runs as a cluster of 4 blocks}}
func.func @attention(%Qt: memref<?x?xf16>, %K: memref<?x?xf16>, %V: memref<?x?xf16>, %O: memref<?x?xf32>)
    attributes {tile.kernel, tile.hints = {num_ctas = 4 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pq = tile.partition_view %Qt : memref<?x?xf16> -> !tile.partition_view<64x256xf16>
  %pk = tile.partition_view %K : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %pv = tile.partition_view %V : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %po = tile.partition_view %O : memref<?x?xf32> -> !tile.partition_view<256x64xf32>
  %bm = tile.block_id x : index
  %nk = tile.num_tiles %pk dim 1 : !tile.partition_view<64x64xf16>
  %qt = tile.load %pq[%c0, %bm] : !tile.partition_view<64x256xf16> -> tensor<64x256xf16>
  %q = tile.permute %qt [1, 0] : tensor<64x256xf16> -> tensor<256x64xf16>
  %zero = arith.constant dense<0.0> : tensor<256x64xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<256xf32>
  %o, %m = scf.for %j = %c0 to %nk step %c1 iter_args(%acc = %zero, %m_in = %ninf) -> (tensor<256x64xf32>, tensor<256xf32>) {
    %k = tile.load %pk[%c0, %j] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %s = tile.mma %q, %k, %zero : tensor<256x64xf16>, tensor<64x64xf16> into tensor<256x64xf32>
    %mx = tile.reduce max %s dim 1 : tensor<256x64xf32> -> tensor<256xf32>
    %m_new = arith.maximumf %m_in, %mx : tensor<256xf32>
    %m2 = tile.reshape %m_new : tensor<256xf32> -> tensor<256x1xf32>
    %mb = tile.broadcast %m2 : tensor<256x1xf32> -> tensor<256x64xf32>
    %sh = arith.subf %s, %mb : tensor<256x64xf32>
    %p = math.exp %sh : tensor<256x64xf32>
    %p16 = arith.truncf %p : tensor<256x64xf32> to tensor<256x64xf16>
    %v = tile.load %pv[%j, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %acc2 = tile.mma %p16, %v, %acc : tensor<256x64xf16>, tensor<64x64xf16> into tensor<256x64xf32>
    scf.yield %acc2, %m_new : tensor<256x64xf32>, tensor<256xf32>
  }
  tile.store %o, %po[%bm, %c0] : tensor<256x64xf32> -> !tile.partition_view<256x64xf32>
  return
}

// -----

// A sum down the columns would add rows of several blocks: the kernel
// stays whole, and says why at the reduction.
// CHECK-LABEL: func.func @column_sum
// CHECK-NOT:     tile.sliced
// CHECK:         tile.mma {{.*}} into tensor<128x128xf32>
func.func @column_sum(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>)
    attributes {tile.kernel, tile.hints = {num_ctas = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<1x128xf32>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
  %b = tile.load %pb[%c0, %c0] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %d = tile.mma %a, %b, %zero : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
  // expected-remark@+1 {{num_ctas = 2 is not applied: this reduction runs along the mma's rows, across the blocks}}
  %s = tile.reduce add %d dim 0 : tensor<128x128xf32> -> tensor<128xf32>
  %s2 = tile.reshape %s : tensor<128xf32> -> tensor<1x128xf32>
  tile.store %s2, %pc[%c0, %c0] : tensor<1x128xf32> -> !tile.partition_view<1x128xf32>
  return
}

// -----

// 64 rows in two blocks would leave each 32, under wgmma's 64 rows.
// CHECK-LABEL: func.func @short
// CHECK-NOT:     tile.sliced
func.func @short(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>)
    attributes {tile.kernel, tile.hints = {num_ctas = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x128xf32>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
  %b = tile.load %pb[%c0, %c0] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  // expected-remark@+1 {{num_ctas = 2 is not applied: a block's share of this mma's 64 rows, 32, would be under wgmma's 64}}
  %d = tile.mma %a, %b, %zero : tensor<64x64xf16>, tensor<64x128xf16> into tensor<64x128xf32>
  tile.store %d, %pc[%c0, %c0] : tensor<64x128xf32> -> !tile.partition_view<64x128xf32>
  return
}

// -----

// B computed from the rows of another mma's result (a tile both cut and
// whole): the kernel stays whole.
// CHECK-LABEL: func.func @chained
// CHECK-NOT:     tile.sliced
func.func @chained(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>)
    attributes {tile.kernel, tile.hints = {num_ctas = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<128x128xf16> -> tensor<128x128xf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  // expected-remark@+1 {{num_ctas = 2 is not applied: this 'tile.mma' needs a tile both cut along the mma's rows and whole}}
  %d = tile.mma %a, %a, %zero : tensor<128x128xf16>, tensor<128x128xf16> into tensor<128x128xf32>
  tile.store %d, %pc[%c0, %c0] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}

// -----

// No num_ctas, or no mma (tile-assign-layouts' clusters): unchanged.
// CHECK-LABEL: func.func @no_hint
// CHECK-NOT:     tile.cluster
// CHECK-LABEL: func.func @no_mma
// CHECK-NOT:     tile.cluster
// CHECK:         return
func.func @no_hint(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
  %b = tile.load %pb[%c0, %c0] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %d = tile.mma %a, %b, %zero : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
  tile.store %d, %pc[%c0, %c0] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}
func.func @no_mma(%X: memref<?x?xf32>) attributes {tile.kernel, tile.hints = {num_ctas = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %px = tile.partition_view %X : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %x = tile.load %px[%c0, %c0] : !tile.partition_view<128x128xf32> -> tensor<128x128xf32>
  %y = arith.addf %x, %x : tensor<128x128xf32>
  tile.store %y, %px[%c0, %c0] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}

// -----

// A kernel off the register path (a constant tile that is not a splat)
// is not sliced: its cluster would have no one to run it.
// CHECK-LABEL: func.func @off_the_register_path
// CHECK-NOT:     tile.sliced
func.func @off_the_register_path(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>)
    attributes {tile.kernel, tile.hints = {num_ctas = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x2xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x2xf32>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
  %b = tile.load %pb[%c0, %c0] : !tile.partition_view<64x2xf16> -> tensor<64x2xf16>
  // expected-remark@+1 {{num_ctas = 2 is not applied: the kernel is not on the register path (it has a constant tile that is not a splat)}}
  %init = arith.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32>
  %ib = tile.broadcast %init : tensor<1x2xf32> -> tensor<128x2xf32>
  %d = tile.mma %a, %b, %ib : tensor<128x64xf16>, tensor<64x2xf16> into tensor<128x2xf32>
  tile.store %d, %pc[%c0, %c0] : tensor<128x2xf32> -> !tile.partition_view<128x2xf32>
  return
}

// -----

// The whole tile of an array the kernel also stores to, read in every
// block of the cluster, would race with another block's rows.
// CHECK-LABEL: func.func @read_whole_write_part
// CHECK-NOT:     tile.sliced
func.func @read_whole_write_part(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>)
    attributes {tile.kernel, tile.hints = {num_ctas = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %pr = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<1x128xf32>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
  %b = tile.load %pb[%c0, %c0] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
  // expected-remark@+1 {{num_ctas = 2 is not applied: every block of the cluster would access this whole tile of an array the kernel stores to}}
  %row = tile.load %pr[%c0, %c0] : !tile.partition_view<1x128xf32> -> tensor<1x128xf32>
  %init = tile.broadcast %row : tensor<1x128xf32> -> tensor<128x128xf32>
  %d = tile.mma %a, %b, %init : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
  tile.store %d, %pc[%c0, %c0] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}
