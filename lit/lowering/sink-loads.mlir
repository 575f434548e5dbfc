// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-sink-loads))' | FileCheck %s

// Each load moves, with its reshape, down to the op that uses it: W next
// to the multiply, B next to the add.
// CHECK-LABEL: func.func @affine
// CHECK: math.exp
// CHECK-NEXT: %[[W:.*]] = tile.load %{{.*}}[%{{.*}}] : !tile.partition_view<1024xf32>
// CHECK-NEXT: %[[W1:.*]] = tile.reshape %[[W]]
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %{{.*}}, %[[W1]]
// CHECK-NEXT: %[[B:.*]] = tile.load
// CHECK-NEXT: %[[B1:.*]] = tile.reshape %[[B]]
// CHECK-NEXT: arith.addf %[[Y]], %[[B1]]
func.func @affine(%X: memref<?x1024xf32>, %W: memref<1024xf32>, %B: memref<1024xf32>, %Y: memref<?x1024xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %px = tile.partition_view %X : memref<?x1024xf32> -> !tile.partition_view<1x1024xf32>
  %pw = tile.partition_view %W : memref<1024xf32> -> !tile.partition_view<1024xf32>
  %pb = tile.partition_view %B : memref<1024xf32> -> !tile.partition_view<1024xf32>
  %py = tile.partition_view %Y : memref<?x1024xf32> -> !tile.partition_view<1x1024xf32>
  %r = tile.block_id x : index
  %w = tile.load %pw[%c0] : !tile.partition_view<1024xf32> -> tensor<1024xf32>
  %b = tile.load %pb[%c0] : !tile.partition_view<1024xf32> -> tensor<1024xf32>
  %x = tile.load %px[%r, %c0] : !tile.partition_view<1x1024xf32> -> tensor<1x1024xf32>
  %e = math.exp %x : tensor<1x1024xf32>
  %w1 = tile.reshape %w : tensor<1024xf32> -> tensor<1x1024xf32>
  %b1 = tile.reshape %b : tensor<1024xf32> -> tensor<1x1024xf32>
  %yw = arith.mulf %e, %w1 : tensor<1x1024xf32>
  %y = arith.addf %yw, %b1 : tensor<1x1024xf32>
  tile.store %y, %py[%r, %c0] : tensor<1x1024xf32> -> !tile.partition_view<1x1024xf32>
  return
}

// -----

// A load never moves past a store (which may write what it reads).
// CHECK-LABEL: func.func @store_between
// CHECK: tile.load
// CHECK-NEXT: tile.store
// CHECK-NEXT: arith.addf
func.func @store_between(%X: memref<?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %px = tile.partition_view %X : memref<?xf32> -> !tile.partition_view<256xf32>
  %a = tile.load %px[%c0] : !tile.partition_view<256xf32> -> tensor<256xf32>
  tile.store %a, %px[%c1] : tensor<256xf32> -> !tile.partition_view<256xf32>
  %s = arith.addf %a, %a : tensor<256xf32>
  tile.store %s, %px[%c0] : tensor<256xf32> -> !tile.partition_view<256xf32>
  return
}

// -----

// CHECK-LABEL: func.func @past_store
// CHECK: tile.load %{{.*}}[%c0]
// CHECK-NEXT: arith.constant
// CHECK-NEXT: tile.store
func.func @past_store(%X: memref<?xf32>, %Y: memref<?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %px = tile.partition_view %X : memref<?xf32> -> !tile.partition_view<256xf32>
  %py = tile.partition_view %Y : memref<?xf32> -> !tile.partition_view<256xf32>
  %a = tile.load %px[%c0] : !tile.partition_view<256xf32> -> tensor<256xf32>
  %z = arith.constant dense<0.0> : tensor<256xf32>
  tile.store %z, %py[%c0] : tensor<256xf32> -> !tile.partition_view<256xf32>
  %s = arith.addf %a, %a : tensor<256xf32>
  tile.store %s, %px[%c1] : tensor<256xf32> -> !tile.partition_view<256xf32>
  return
}
