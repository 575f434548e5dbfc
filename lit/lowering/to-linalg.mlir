// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(convert-tile-to-linalg)' | FileCheck %s

// CHECK-DAG: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK: func.func @reduce
// CHECK: %[[INIT:.*]] = arith.constant dense<0xFF800000> : tensor<4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID2]], #[[ROW]]], iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<4x8xf32>) outs(%[[INIT]] : tensor<4xf32>)
// CHECK: arith.maximumf
// CHECK-NOT: tile.
func.func @reduce(%t: tensor<4x8xf32>) -> tensor<4xf32> {
  %r = tile.reduce max %t dim 1 : tensor<4x8xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// CHECK: func.func @reduce_int
// CHECK-DAG: arith.constant dense<0xFF80> : tensor<4xbf16>
// CHECK-DAG: arith.constant dense<0x7C00> : tensor<4xf16>
// CHECK-DAG: %[[MAX:.*]] = arith.constant dense<2147483647> : tensor<8xi32>
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0> : tensor<4xi32>
// CHECK: outs(%[[MAX]] : tensor<8xi32>)
// CHECK: arith.minsi
// CHECK: outs(%[[ZERO]] : tensor<4xi32>)
// CHECK: arith.addi
func.func @reduce_int(%t: tensor<4x8xi32>, %h: tensor<4x8xbf16>, %g: tensor<4x8xf16>)
    -> (tensor<8xi32>, tensor<4xi32>, tensor<4xbf16>, tensor<4xf16>) {
  %a = tile.reduce min %t dim 0 : tensor<4x8xi32> -> tensor<8xi32>
  %b = tile.reduce add %t dim 1 : tensor<4x8xi32> -> tensor<4xi32>
  %c = tile.reduce max %h dim 1 : tensor<4x8xbf16> -> tensor<4xbf16>
  %d = tile.reduce min %g dim 1 : tensor<4x8xf16> -> tensor<4xf16>
  return %a, %b, %c, %d : tensor<8xi32>, tensor<4xi32>, tensor<4xbf16>, tensor<4xf16>
}

// -----

// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK: func.func @mma
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @mma(%a: tensor<16x8xf16>, %b: tensor<8x16xf16>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %d = tile.mma %a, %b, %c : tensor<16x8xf16>, tensor<8x16xf16> into tensor<16x16xf32>
  return %d : tensor<16x16xf32>
}

// -----

// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[T:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK: func.func @shapes
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : tensor<4x1xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[T]], #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : tensor<8x4xf32>)
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<4x8xf32> into tensor<32xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [2, 16] : tensor<32xf32> into tensor<2x16xf32>
// CHECK: tensor.splat %{{.*}} : tensor<4x8xf32>
func.func @shapes(%c: tensor<4x1xf32>, %p: tensor<8x4xf32>, %t: tensor<4x8xf32>, %s: f32)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<2x16xf32>, tensor<4x8xf32>) {
  %b = tile.broadcast %c : tensor<4x1xf32> -> tensor<4x8xf32>
  %q = tile.permute %p [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
  %r = tile.reshape %t : tensor<4x8xf32> -> tensor<2x16xf32>
  %f = tile.splat %s : f32 -> tensor<4x8xf32>
  return %b, %q, %r, %f : tensor<4x8xf32>, tensor<4x8xf32>, tensor<2x16xf32>, tensor<4x8xf32>
}

// -----

// CHECK: func.func @iota
// CHECK: linalg.index 0 : index
// CHECK: arith.index_castui %{{.*}} : index to i32
// CHECK: linalg.index 0 : index
// CHECK: arith.uitofp %{{.*}} : i64 to f32
func.func @iota() -> (tensor<16xi32>, tensor<8xf32>) {
  %i = tile.iota : tensor<16xi32>
  %f = tile.iota : tensor<8xf32>
  return %i, %f : tensor<16xi32>, tensor<8xf32>
}

// -----

// Memory ops and grid queries are left to later stages of the CPU pipeline.
// CHECK: func.func @softmax
// CHECK: tile.partition_view
// CHECK: tile.load
// CHECK-NOT: tile.reduce
// CHECK-NOT: tile.broadcast
// CHECK: tile.store
func.func @softmax(%X: memref<?x1024xf32>, %Y: memref<?x1024xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %px = tile.partition_view %X : memref<?x1024xf32> -> !tile.partition_view<4x1024xf32, padding = neg_inf>
  %py = tile.partition_view %Y : memref<?x1024xf32> -> !tile.partition_view<4x1024xf32>
  %r = tile.block_id x : index
  %x = tile.load %px[%r, %c0] : !tile.partition_view<4x1024xf32, padding = neg_inf> -> tensor<4x1024xf32>
  %m = tile.reduce max %x dim 1 : tensor<4x1024xf32> -> tensor<4xf32>
  %m1 = tile.reshape %m : tensor<4xf32> -> tensor<4x1xf32>
  %mb = tile.broadcast %m1 : tensor<4x1xf32> -> tensor<4x1024xf32>
  %xs = arith.subf %x, %mb : tensor<4x1024xf32>
  %e = math.exp %xs : tensor<4x1024xf32>
  %s = tile.reduce add %e dim 1 : tensor<4x1024xf32> -> tensor<4xf32>
  %s1 = tile.reshape %s : tensor<4xf32> -> tensor<4x1xf32>
  %sb = tile.broadcast %s1 : tensor<4x1xf32> -> tensor<4x1024xf32>
  %y = arith.divf %e, %sb : tensor<4x1024xf32>
  tile.store %y, %py[%r, %c0] : tensor<4x1024xf32> -> !tile.partition_view<4x1024xf32>
  return
}
