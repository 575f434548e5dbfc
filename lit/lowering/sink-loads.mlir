// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-sink-loads))' | FileCheck %s

// Each load of a large tile (here 128 KiB) moves, with its reshape, down
// to the op that uses it: W next to the multiply, B next to the add.
// CHECK-LABEL: func.func @affine
// CHECK: math.exp
// CHECK-NEXT: %[[W:.*]] = tile.load %{{.*}}[%{{.*}}] : !tile.partition_view<32768xf32>
// CHECK-NEXT: %[[W1:.*]] = tile.reshape %[[W]]
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %{{.*}}, %[[W1]]
// CHECK-NEXT: %[[B:.*]] = tile.load
// CHECK-NEXT: %[[B1:.*]] = tile.reshape %[[B]]
// CHECK-NEXT: arith.addf %[[Y]], %[[B1]]
func.func @affine(%X: memref<?x32768xf32>, %W: memref<32768xf32>, %B: memref<32768xf32>, %Y: memref<?x32768xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %px = tile.partition_view %X : memref<?x32768xf32> -> !tile.partition_view<1x32768xf32>
  %pw = tile.partition_view %W : memref<32768xf32> -> !tile.partition_view<32768xf32>
  %pb = tile.partition_view %B : memref<32768xf32> -> !tile.partition_view<32768xf32>
  %py = tile.partition_view %Y : memref<?x32768xf32> -> !tile.partition_view<1x32768xf32>
  %r = tile.block_id x : index
  %w = tile.load %pw[%c0] : !tile.partition_view<32768xf32> -> tensor<32768xf32>
  %b = tile.load %pb[%c0] : !tile.partition_view<32768xf32> -> tensor<32768xf32>
  %x = tile.load %px[%r, %c0] : !tile.partition_view<1x32768xf32> -> tensor<1x32768xf32>
  %e = math.exp %x : tensor<1x32768xf32>
  %w1 = tile.reshape %w : tensor<32768xf32> -> tensor<1x32768xf32>
  %b1 = tile.reshape %b : tensor<32768xf32> -> tensor<1x32768xf32>
  %yw = arith.mulf %e, %w1 : tensor<1x32768xf32>
  %y = arith.addf %yw, %b1 : tensor<1x32768xf32>
  tile.store %y, %py[%r, %c0] : tensor<1x32768xf32> -> !tile.partition_view<1x32768xf32>
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
  %px = tile.partition_view %X : memref<?xf32> -> !tile.partition_view<16384xf32>
  %a = tile.load %px[%c0] : !tile.partition_view<16384xf32> -> tensor<16384xf32>
  tile.store %a, %px[%c1] : tensor<16384xf32> -> !tile.partition_view<16384xf32>
  %s = arith.addf %a, %a : tensor<16384xf32>
  tile.store %s, %px[%c0] : tensor<16384xf32> -> !tile.partition_view<16384xf32>
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
  %px = tile.partition_view %X : memref<?xf32> -> !tile.partition_view<16384xf32>
  %py = tile.partition_view %Y : memref<?xf32> -> !tile.partition_view<16384xf32>
  %a = tile.load %px[%c0] : !tile.partition_view<16384xf32> -> tensor<16384xf32>
  %z = arith.constant dense<0.0> : tensor<16384xf32>
  tile.store %z, %py[%c0] : tensor<16384xf32> -> !tile.partition_view<16384xf32>
  %s = arith.addf %a, %a : tensor<16384xf32>
  tile.store %s, %px[%c1] : tensor<16384xf32> -> !tile.partition_view<16384xf32>
  return
}
// -----

// Small tiles (here 16 KiB) stay where the program put them, and so does
// a tile a loop carries.
// CHECK-LABEL: func.func @small
// CHECK: %[[A:.*]] = tile.load
// CHECK-NEXT: %[[B:.*]] = tile.load
// CHECK-NEXT: math.exp %[[B]]
// CHECK: scf.for
// CHECK-NEXT: tile.load
// CHECK-NEXT: arith.mulf
func.func @small(%X: memref<?xf32>, %n: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %px = tile.partition_view %X : memref<?xf32> -> !tile.partition_view<4096xf32>
  %pb = tile.partition_view %X : memref<?xf32> -> !tile.partition_view<16384xf32>
  %a = tile.load %px[%c0] : !tile.partition_view<4096xf32> -> tensor<4096xf32>
  %b = tile.load %px[%c1] : !tile.partition_view<4096xf32> -> tensor<4096xf32>
  %e = math.exp %b : tensor<4096xf32>
  %s = arith.addf %a, %e : tensor<4096xf32>
  tile.store %s, %px[%c0] : tensor<4096xf32> -> !tile.partition_view<4096xf32>
  %z = arith.constant dense<0.0> : tensor<16384xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<16384xf32>) {
    %x = tile.load %pb[%i] : !tile.partition_view<16384xf32> -> tensor<16384xf32>
    %m = arith.mulf %acc, %acc : tensor<16384xf32>
    scf.yield %x : tensor<16384xf32>
  }
  tile.store %r, %pb[%c0] : tensor<16384xf32> -> !tile.partition_view<16384xf32>
  return
}
