// Round trip of every tile op in the contract's syntax: the printed form is
// the contract's, and printing it again parses to the same text.
// RUN: tile-opt %s -split-input-file | FileCheck %s
// RUN: tile-opt %s -split-input-file | tile-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @grid
// CHECK: tile.block_id x : index
// CHECK: tile.block_id y : index
// CHECK: tile.block_id z : index
// CHECK: tile.num_blocks x : index
// CHECK: tile.num_blocks z : index
func.func @grid() attributes {tile.kernel} {
  %0 = tile.block_id x : index
  %1 = tile.block_id y : index
  %2 = tile.block_id z : index
  %3 = tile.num_blocks x : index
  %4 = tile.num_blocks z : index
  return
}

// -----

// CHECK-LABEL: func.func @views
// CHECK: tile.partition_view %{{.*}} : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
// CHECK: tile.partition_view %{{.*}} : memref<?x1024xf32> -> !tile.partition_view<4x1024xf32, padding = neg_inf>
// CHECK: tile.partition_view %{{.*}} : memref<8x16x32xbf16, strided<[?, ?, 1]>> -> !tile.partition_view<2x4x8xbf16, padding = nan>
// CHECK: tile.partition_view %{{.*}} : memref<?xi32> -> !tile.partition_view<256xi32>
// CHECK: %{{.*}} = tile.num_tiles %{{.*}} dim 1 : !tile.partition_view<128x64xf16>
func.func @views(%A: memref<?x?xf16>, %X: memref<?x1024xf32>,
                 %S: memref<8x16x32xbf16, strided<[?, ?, 1]>>, %I: memref<?xi32>) {
  %a = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %x = tile.partition_view %X : memref<?x1024xf32> -> !tile.partition_view<4x1024xf32, padding = neg_inf>
  %s = tile.partition_view %S : memref<8x16x32xbf16, strided<[?, ?, 1]>> -> !tile.partition_view<2x4x8xbf16, padding = nan>
  %i = tile.partition_view %I : memref<?xi32> -> !tile.partition_view<256xi32>
  %k = tile.num_tiles %a dim 1 : !tile.partition_view<128x64xf16>
  return
}

// -----

// The default padding is not printed.
// CHECK-LABEL: func.func @default_padding
// CHECK: -> !tile.partition_view<16xf32>
// CHECK: -> !tile.partition_view<16xf32, padding = pos_inf>
func.func @default_padding(%X: memref<?xf32>) {
  %a = tile.partition_view %X : memref<?xf32> -> !tile.partition_view<16xf32, padding = zero>
  %b = tile.partition_view %X : memref<?xf32> -> !tile.partition_view<16xf32, padding = pos_inf>
  return
}

// -----

// CHECK-LABEL: func.func @load_store
// CHECK: %[[T:.*]] = tile.load %{{.*}}[%{{.*}}, %{{.*}}] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
// CHECK: tile.store %[[T]], %{{.*}}[%{{.*}}, %{{.*}}] : tensor<128x64xf16> -> !tile.partition_view<128x64xf16>
func.func @load_store(%A: memref<?x?xf16>, %i: index, %j: index) {
  %v = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %t = tile.load %v[%i, %j] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
  tile.store %t, %v[%i, %j] : tensor<128x64xf16> -> !tile.partition_view<128x64xf16>
  return
}

// -----

// CHECK-LABEL: func.func @mma
// CHECK: tile.mma %{{.*}}, %{{.*}}, %{{.*}} : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
// CHECK: tile.mma %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x32xf16>, tensor<32x64xf16> into tensor<64x64xf16>
// CHECK: tile.mma %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x32xbf16>, tensor<32x64xbf16> into tensor<64x64xf32>
// CHECK: tile.mma %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x8xf32>, tensor<8x64xf32> into tensor<64x64xf32>
// CHECK: tile.mma %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x32xf8E4M3FN>, tensor<32x64xf8E5M2> into tensor<64x64xf32>
func.func @mma(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>, %c: tensor<128x128xf32>,
               %a2: tensor<64x32xf16>, %b2: tensor<32x64xf16>, %c2: tensor<64x64xf16>,
               %a3: tensor<64x32xbf16>, %b3: tensor<32x64xbf16>, %c3: tensor<64x64xf32>,
               %a4: tensor<64x8xf32>, %b4: tensor<8x64xf32>,
               %a5: tensor<64x32xf8E4M3FN>, %b5: tensor<32x64xf8E5M2>) {
  %0 = tile.mma %a, %b, %c : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
  %1 = tile.mma %a2, %b2, %c2 : tensor<64x32xf16>, tensor<32x64xf16> into tensor<64x64xf16>
  %2 = tile.mma %a3, %b3, %c3 : tensor<64x32xbf16>, tensor<32x64xbf16> into tensor<64x64xf32>
  %3 = tile.mma %a4, %b4, %c3 : tensor<64x8xf32>, tensor<8x64xf32> into tensor<64x64xf32>
  %4 = tile.mma %a5, %b5, %c3 : tensor<64x32xf8E4M3FN>, tensor<32x64xf8E5M2> into tensor<64x64xf32>
  return
}

// -----

// CHECK-LABEL: func.func @reduce
// CHECK: tile.reduce add %{{.*}} dim 1 : tensor<128x256xf32> -> tensor<128xf32>
// CHECK: tile.reduce mul %{{.*}} dim 0 : tensor<128x256xf32> -> tensor<256xf32>
// CHECK: tile.reduce max %{{.*}} dim 2 : tensor<2x4x8xi32> -> tensor<2x4xi32>
// CHECK: tile.reduce min %{{.*}} dim 1 : tensor<2x4x8xi32> -> tensor<2x8xi32>
func.func @reduce(%t: tensor<128x256xf32>, %u: tensor<2x4x8xi32>) {
  %0 = tile.reduce add %t dim 1 : tensor<128x256xf32> -> tensor<128xf32>
  %1 = tile.reduce mul %t dim 0 : tensor<128x256xf32> -> tensor<256xf32>
  %2 = tile.reduce max %u dim 2 : tensor<2x4x8xi32> -> tensor<2x4xi32>
  %3 = tile.reduce min %u dim 1 : tensor<2x4x8xi32> -> tensor<2x8xi32>
  return
}

// -----

// CHECK-LABEL: func.func @shapes
// CHECK: tile.broadcast %{{.*}} : tensor<128x1xf32> -> tensor<128x256xf32>
// CHECK: tile.broadcast %{{.*}} : tensor<1x1x4xf32> -> tensor<2x8x4xf32>
// CHECK: tile.reshape %{{.*}} : tensor<128xf32> -> tensor<128x1xf32>
// CHECK: tile.reshape %{{.*}} : tensor<4x8xf32> -> tensor<2x2x8xf32>
// CHECK: tile.permute %{{.*}} [1, 0] : tensor<64x128xf16> -> tensor<128x64xf16>
// CHECK: tile.permute %{{.*}} [2, 0, 1] : tensor<2x4x8xf16> -> tensor<8x2x4xf16>
func.func @shapes(%b: tensor<128x1xf32>, %b3: tensor<1x1x4xf32>, %r: tensor<128xf32>,
                  %r2: tensor<4x8xf32>, %p: tensor<64x128xf16>, %p3: tensor<2x4x8xf16>) {
  %0 = tile.broadcast %b : tensor<128x1xf32> -> tensor<128x256xf32>
  %1 = tile.broadcast %b3 : tensor<1x1x4xf32> -> tensor<2x8x4xf32>
  %2 = tile.reshape %r : tensor<128xf32> -> tensor<128x1xf32>
  %3 = tile.reshape %r2 : tensor<4x8xf32> -> tensor<2x2x8xf32>
  %4 = tile.permute %p [1, 0] : tensor<64x128xf16> -> tensor<128x64xf16>
  %5 = tile.permute %p3 [2, 0, 1] : tensor<2x4x8xf16> -> tensor<8x2x4xf16>
  return
}

// -----

// CHECK-LABEL: func.func @fill
// CHECK: tile.splat %{{.*}} : f32 -> tensor<128x128xf32>
// CHECK: tile.splat %{{.*}} : i1 -> tensor<16xi1>
// CHECK: tile.iota : tensor<128xi32>
// CHECK: tile.iota : tensor<256xi16>
// CHECK: tile.iota : tensor<1024xf32>
func.func @fill(%s: f32, %p: i1) {
  %0 = tile.splat %s : f32 -> tensor<128x128xf32>
  %1 = tile.splat %p : i1 -> tensor<16xi1>
  %2 = tile.iota : tensor<128xi32>
  %3 = tile.iota : tensor<256xi16>
  %4 = tile.iota : tensor<1024xf32>
  return
}

// -----

// Hints are optional, each of them.
// CHECK-LABEL: func.func @hints
// CHECK-SAME: tile.hints = {num_ctas = 2 : i64, num_stages = 3 : i64, occupancy = 1 : i64}
func.func @hints(%A: memref<?x?xf16>, %n: index, %m: i32, %l: i64, %f: f32)
    attributes {tile.kernel, tile.hints = {num_ctas = 2 : i64, occupancy = 1 : i64, num_stages = 3 : i64}} {
  return
}

// -----

// Compiler-internal (tile-split-k): a tile summed over a cluster's blocks.
// CHECK-LABEL: func.func @cluster_sum
// CHECK: tile.cluster_sum %{{.*}} : tensor<128x128xf32>
// CHECK: tile.cluster_sum %{{.*}} : tensor<64xi32>
func.func @cluster_sum(%a: tensor<128x128xf32>, %b: tensor<64xi32>) {
  %0 = tile.cluster_sum %a : tensor<128x128xf32>
  %1 = tile.cluster_sum %b : tensor<64xi32>
  return
}

// -----

// Compiler-internal (tile-stream-k): a block's partial tile published
// through a workspace, and the owner's sum of the published ones.
// CHECK-LABEL: func.func @partial_tiles
// CHECK: tile.partial_store %{{.*}}, %{{.*}}[%{{.*}}], %{{.*}} : tensor<128x256xf32>, memref<?xf32>, memref<?xi32>
// CHECK: tile.partial_sum %{{.*}}, %{{.*}}[%{{.*}} to %{{.*}}], %{{.*}} : tensor<128x256xf32>, memref<?xf32>, memref<?xi32>
func.func @partial_tiles(%acc: tensor<128x256xf32>, %ws: memref<?xf32>, %flags: memref<?xi32>, %b: index, %e: index) {
  tile.partial_store %acc, %ws[%b], %flags : tensor<128x256xf32>, memref<?xf32>, memref<?xi32>
  %s = tile.partial_sum %acc, %ws[%b to %e], %flags : tensor<128x256xf32>, memref<?xf32>, memref<?xi32>
  return
}
