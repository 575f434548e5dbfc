// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-widen-k))' | FileCheck %s
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-widen-k))' --remarks-filter=tile -verify-diagnostics -o /dev/null

// (On the GPU only `tile-widen-blocks`' instance takes the wider steps:
// the kernel, which runs where the TMA cannot describe the arrays, keeps
// its own; widen-blocks.mlir.)

// K tiles of 32 f16 (64-byte rows of A) go two at a time: wider views, the
// loop bound counts their tiles, the loads and the mma take K = 64.
// CHECK-LABEL: func.func @narrow_k
// CHECK: %[[A:.*]] = tile.partition_view %arg0 : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
// CHECK-DAG: %[[B2:.*]] = tile.partition_view %arg1 : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
// CHECK-DAG: %[[A2:.*]] = tile.partition_view %arg0 : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
// CHECK: %[[NK:.*]] = tile.num_tiles %[[A2]] dim 1 : !tile.partition_view<64x64xf16>
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %[[NK]] step
// CHECK: tile.load %[[A2]][%{{.*}}, %[[K]]] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
// CHECK: tile.load %[[B2]][%[[K]], %{{.*}}] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
// CHECK: tile.mma %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x64xf16>, tensor<64x128xf16> into tensor<64x128xf32>
func.func @narrow_k(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<32x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x128xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x32xf16>
  %z = arith.constant dense<0.0> : tensor<64x128xf32>
  // expected-remark @below {{K steps of 32 widened to 64: 2 of the program's iterations in one}}
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %z) -> (tensor<64x128xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<32x128xf16> -> tensor<32x128xf16>
    %d = tile.mma %a, %b, %acc_in : tensor<64x32xf16>, tensor<32x128xf16> into tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<64x128xf32> -> !tile.partition_view<64x128xf32>
  return
}

// -----

// B stored N x K, loaded as stored and transposed: its view widens along
// dim 1, the permute's result along dim 0. K tiles of 16 go four at a time
// (the most).
// CHECK-LABEL: func.func @transposed_b
// CHECK: tile.load %{{.*}} : !tile.partition_view<128x64xbf16> -> tensor<128x64xbf16>
// CHECK: tile.load %{{.*}} : !tile.partition_view<128x64xbf16> -> tensor<128x64xbf16>
// CHECK: tile.permute %{{.*}} [1, 0] : tensor<128x64xbf16> -> tensor<64x128xbf16>
// CHECK: tile.mma %{{.*}} : tensor<128x64xbf16>, tensor<64x128xbf16> into tensor<128x128xf32>
func.func @transposed_b(%X: memref<?x?xbf16>, %W: memref<?x?xbf16>, %Y: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %px = tile.partition_view %X : memref<?x?xbf16> -> !tile.partition_view<128x16xbf16>
  %pw = tile.partition_view %W : memref<?x?xbf16> -> !tile.partition_view<128x16xbf16>
  %py = tile.partition_view %Y : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %nk = tile.num_tiles %pw dim 1 : !tile.partition_view<128x16xbf16>
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  // expected-remark @below {{K steps of 16 widened to 64: 4 of the program's iterations in one}}
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %z) -> (tensor<128x128xf32>) {
    %x = tile.load %px[%c0, %k] : !tile.partition_view<128x16xbf16> -> tensor<128x16xbf16>
    %w = tile.load %pw[%c0, %k] : !tile.partition_view<128x16xbf16> -> tensor<128x16xbf16>
    %wt = tile.permute %w [1, 0] : tensor<128x16xbf16> -> tensor<16x128xbf16>
    %d = tile.mma %x, %wt, %acc_in : tensor<128x16xbf16>, tensor<16x128xbf16> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %py[%c0, %c0] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}

// -----

// Left alone: rows of 128 bytes already (K = 64 f16); a view padded with
// NaN (a wider tile would add NaN past the end); the index used by an
// arith op; a tile also read by other ops than mmas; a bound that is not
// a tile count; B read from registers (tf32 loaded N-major: f times its
// registers).
// CHECK-LABEL: func.func @wide_already
// CHECK: tile.mma %{{.*}} : tensor<64x64xf16>, tensor<64x128xf16>
func.func @wide_already(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x128xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x64xf16>
  %z = arith.constant dense<0.0> : tensor<64x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %z) -> (tensor<64x128xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %acc_in : tensor<64x64xf16>, tensor<64x128xf16> into tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<64x128xf32> -> !tile.partition_view<64x128xf32>
  return
}

// -----

// CHECK-LABEL: func.func @nan_padding
// CHECK: tile.mma %{{.*}} : tensor<64x32xf16>, tensor<32x128xf16>
func.func @nan_padding(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16, padding = nan>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<32x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x128xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x32xf16, padding = nan>
  %z = arith.constant dense<0.0> : tensor<64x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %z) -> (tensor<64x128xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<64x32xf16, padding = nan> -> tensor<64x32xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<32x128xf16> -> tensor<32x128xf16>
    %d = tile.mma %a, %b, %acc_in : tensor<64x32xf16>, tensor<32x128xf16> into tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<64x128xf32> -> !tile.partition_view<64x128xf32>
  return
}

// -----

// CHECK-LABEL: func.func @index_computed
// CHECK: tile.mma %{{.*}} : tensor<64x32xf16>, tensor<32x128xf16>
func.func @index_computed(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<32x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x128xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x32xf16>
  %z = arith.constant dense<0.0> : tensor<64x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %z) -> (tensor<64x128xf32>) {
    %kb = arith.addi %k, %c0 : index
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
    %b = tile.load %pb[%kb, %c0] : !tile.partition_view<32x128xf16> -> tensor<32x128xf16>
    %d = tile.mma %a, %b, %acc_in : tensor<64x32xf16>, tensor<32x128xf16> into tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<64x128xf32> -> !tile.partition_view<64x128xf32>
  return
}

// -----

// B read at a fixed K tile: the loop's index is A's K coordinate only,
// so widening A alone would leave the mma's K tiles unequal. Left alone.
// CHECK-LABEL: func.func @fixed_k_tile
// CHECK: tile.mma %{{.*}} : tensor<64x32xf16>, tensor<32x128xf16>
func.func @fixed_k_tile(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<32x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x128xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x32xf16>
  %z = arith.constant dense<0.0> : tensor<64x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %z) -> (tensor<64x128xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
    %b = tile.load %pb[%c1, %c0] : !tile.partition_view<32x128xf16> -> tensor<32x128xf16>
    %d = tile.mma %a, %b, %acc_in : tensor<64x32xf16>, tensor<32x128xf16> into tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<64x128xf32> -> !tile.partition_view<64x128xf32>
  return
}

// -----

// CHECK-LABEL: func.func @other_use
// CHECK: tile.mma %{{.*}} : tensor<64x32xf16>, tensor<32x128xf16>
func.func @other_use(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<32x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x128xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x32xf16>
  %z = arith.constant dense<0.0> : tensor<64x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %z) -> (tensor<64x128xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
    %an = arith.negf %a : tensor<64x32xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<32x128xf16> -> tensor<32x128xf16>
    %d = tile.mma %an, %b, %acc_in : tensor<64x32xf16>, tensor<32x128xf16> into tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<64x128xf32> -> !tile.partition_view<64x128xf32>
  return
}

// -----

// CHECK-LABEL: func.func @bound_given
// CHECK: tile.mma %{{.*}} : tensor<64x32xf16>, tensor<32x128xf16>
func.func @bound_given(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>, %nk: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<32x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x128xf32>
  %z = arith.constant dense<0.0> : tensor<64x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %z) -> (tensor<64x128xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<32x128xf16> -> tensor<32x128xf16>
    %d = tile.mma %a, %b, %acc_in : tensor<64x32xf16>, tensor<32x128xf16> into tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<64x128xf32> -> !tile.partition_view<64x128xf32>
  return
}

// -----

// tf32 with B loaded N-major (computed transposed): both operands stay in
// shared memory (the threads read B^T's fragments from B's), so K steps
// of 16 go two at a time (128-byte rows of A).
// CHECK-LABEL: func.func @tf32_swapped
// CHECK: tile.mma %{{.*}} : tensor<64x32xf32>, tensor<32x128xf32>
func.func @tf32_swapped(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf32> -> !tile.partition_view<64x16xf32>
  %pb = tile.partition_view %B : memref<?x?xf32> -> !tile.partition_view<16x128xf32>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x128xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x16xf32>
  %z = arith.constant dense<0.0> : tensor<64x128xf32>
  // expected-remark @below {{K steps of 16 widened to 32: 2 of the program's iterations in one}}
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %z) -> (tensor<64x128xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<64x16xf32> -> tensor<64x16xf32>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<16x128xf32> -> tensor<16x128xf32>
    %d = tile.mma %a, %b, %acc_in : tensor<64x16xf32>, tensor<16x128xf32> into tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<64x128xf32> -> !tile.partition_view<64x128xf32>
  return
}
