// RUN: tile-opt %s -split-input-file --tile-specialize | FileCheck %s

// The mma's M, N and K follow the configuration through views, loads,
// the loop, element-wise ops and the store; the grid arithmetic reads the
// new views; the hints take num_stages and occupancy; the config is spent.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME:  tile.hints = {num_ctas = 1 : i64, num_stages = 3 : i64, occupancy = 2 : i64}
// CHECK-NOT:   tile.config
// CHECK:       tile.partition_view %{{.*}} -> !tile.partition_view<64x32xf16>
// CHECK:       tile.partition_view %{{.*}} -> !tile.partition_view<32x256xf16>
// CHECK:       tile.partition_view %{{.*}} -> !tile.partition_view<64x256xf32>
// CHECK:       tile.num_tiles %{{.*}} dim 1 : !tile.partition_view<64x256xf32>
// CHECK:       arith.constant dense<0.000000e+00> : tensor<64x256xf32>
// CHECK:       scf.for {{.*}} -> (tensor<64x256xf32>)
// CHECK:         tile.mma %{{.*}} : tensor<64x32xf16>, tensor<32x256xf16> into tensor<64x256xf32>
// CHECK:       arith.maximumf %{{.*}} : tensor<64x256xf32>
// CHECK:       tile.store %{{.*}} : tensor<64x256xf32> -> !tile.partition_view<64x256xf32>
func.func @matmul(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>)
    attributes {tile.kernel, tile.hints = {num_ctas = 1 : i64, num_stages = 2 : i64},
                tile.config = {tile_m = 64 : i64, tile_n = 256 : i64, tile_k = 32 : i64, num_stages = 3 : i64, occupancy = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %bid = tile.block_id x : index
  %nn = tile.num_tiles %pc dim 1 : !tile.partition_view<128x128xf32>
  %bm = arith.divui %bid, %nn : index
  %bn = arith.remui %bid, %nn : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x64xf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%bm, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %b = tile.load %pb[%k, %bn] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %acc_in : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %relu = arith.maximumf %acc, %zero : tensor<128x128xf32>
  tile.store %relu, %pc[%bm, %bn] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}

// -----

// A bias row broadcast over the tile follows N; a tile the mma never
// reaches keeps its size even when its extent is the same number.
// CHECK-LABEL: func.func @bias
// CHECK:       tile.partition_view %{{.*}} -> !tile.partition_view<1x64xf32>
// CHECK:       tile.partition_view %{{.*}} -> !tile.partition_view<32x64xf32>
// CHECK:       tile.partition_view %{{.*}} -> !tile.partition_view<128x128xf32>
// CHECK:       tile.broadcast %{{.*}} : tensor<1x64xf32> -> tensor<32x64xf32>
// CHECK:       tile.store %{{.*}} : tensor<32x64xf32> -> !tile.partition_view<32x64xf32>
// CHECK:       tile.store %{{.*}} : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
func.func @bias(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %bias: memref<1x?xf32>, %C: memref<?x?xf32>, %D: memref<?x?xf32>)
    attributes {tile.kernel, tile.config = {tile_m = 32 : i64, tile_n = 64 : i64}} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pbias = tile.partition_view %bias : memref<1x?xf32> -> !tile.partition_view<1x128xf32>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %pd = tile.partition_view %D : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
  %b = tile.load %pb[%c0, %c0] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
  %d = tile.mma %a, %b, %zero : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
  %r = tile.load %pbias[%c0, %c0] : !tile.partition_view<1x128xf32> -> tensor<1x128xf32>
  %rb = tile.broadcast %r : tensor<1x128xf32> -> tensor<128x128xf32>
  %e = arith.addf %d, %rb : tensor<128x128xf32>
  tile.store %e, %pc[%c0, %c0] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  %other = tile.load %pd[%c0, %c0] : !tile.partition_view<128x128xf32> -> tensor<128x128xf32>
  tile.store %other, %pd[%c0, %c0] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}

// -----

// Without tile.config the kernel is left as written; its space is dropped.
// CHECK-LABEL: func.func @plain
// CHECK-NOT:   tile.tune
// CHECK:       tile.mma %{{.*}} : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
func.func @plain(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>)
    attributes {tile.kernel, tile.tune = {tile_m = array<i64: 64, 128>}} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
  %b = tile.load %pb[%c0, %c0] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
  %d = tile.mma %a, %b, %zero : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
  tile.store %d, %pc[%c0, %c0] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}
