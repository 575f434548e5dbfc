// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-stream-stores))' | FileCheck %s
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-stream-stores))' --remarks-filter=tile -verify-diagnostics -o /dev/null

// Each streamed store says so (a passed remark), with the registers its
// loads would take.

// Layernorm's end over rows of 32768 f32 (1024 threads): x, W and B would
// take 96 registers a thread, so the store goes out in four chunks of 8192,
// x loaded again chunk by chunk (the whole x still feeds the statistics),
// the broadcast statistics used as they are, the constant re-made at the
// chunk's shape, and the whole-row views of W, B and Y gone.
// CHECK-LABEL: func.func @layernorm_end
// CHECK: %[[X:.*]] = tile.load %{{.*}} -> tensor<1x32768xf32>
// CHECK: tile.reduce add %[[X]] dim 1
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[PX:.*]] = tile.partition_view %arg0 : memref<?x32768xf32> -> !tile.partition_view<1x8192xf32>
// CHECK: %[[PW:.*]] = tile.partition_view %arg1 : memref<32768xf32> -> !tile.partition_view<8192xf32>
// CHECK: %[[PB:.*]] = tile.partition_view %arg2 : memref<32768xf32> -> !tile.partition_view<8192xf32>
// CHECK: %[[PY:.*]] = tile.partition_view %arg3 : memref<?x32768xf32> -> !tile.partition_view<1x8192xf32>
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %[[C4]] step
// CHECK-NEXT: %[[XK:.*]] = tile.load %[[PX]][%{{.*}}, %[[K]]] : !tile.partition_view<1x8192xf32> -> tensor<1x8192xf32>
// CHECK-NEXT: %[[MK:.*]] = tile.broadcast %{{.*}} : tensor<1x1xf32> -> tensor<1x8192xf32>
// CHECK-NEXT: %[[XC:.*]] = arith.subf %[[XK]], %[[MK]] : tensor<1x8192xf32>
// CHECK-NEXT: %[[TWO:.*]] = arith.constant dense<2.000000e+00> : tensor<1x8192xf32>
// CHECK-NEXT: %[[XN:.*]] = arith.mulf %[[XC]], %[[TWO]] : tensor<1x8192xf32>
// CHECK-NEXT: %[[WK:.*]] = tile.load %[[PW]][%[[K]]] : !tile.partition_view<8192xf32> -> tensor<8192xf32>
// CHECK-NEXT: %[[W1:.*]] = tile.reshape %[[WK]] : tensor<8192xf32> -> tensor<1x8192xf32>
// CHECK-NEXT: %[[YW:.*]] = arith.mulf %[[XN]], %[[W1]] : tensor<1x8192xf32>
// CHECK-NEXT: %[[BK:.*]] = tile.load %[[PB]][%[[K]]]
// CHECK-NEXT: %[[B1:.*]] = tile.reshape %[[BK]]
// CHECK-NEXT: %[[Y:.*]] = arith.addf %[[YW]], %[[B1]] : tensor<1x8192xf32>
// CHECK-NEXT: tile.store %[[Y]], %[[PY]][%{{.*}}, %[[K]]] : tensor<1x8192xf32> -> !tile.partition_view<1x8192xf32>
// CHECK-NEXT: }
// CHECK-NOT: tile.store
// CHECK-NOT: !tile.partition_view<32768xf32>
func.func @layernorm_end(%X: memref<?x32768xf32>, %W: memref<32768xf32>, %B: memref<32768xf32>,
                         %Y: memref<?x32768xf32>, %S: memref<?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %px = tile.partition_view %X : memref<?x32768xf32> -> !tile.partition_view<1x32768xf32>
  %pw = tile.partition_view %W : memref<32768xf32> -> !tile.partition_view<32768xf32>
  %pb = tile.partition_view %B : memref<32768xf32> -> !tile.partition_view<32768xf32>
  %py = tile.partition_view %Y : memref<?x32768xf32> -> !tile.partition_view<1x32768xf32>
  %r = tile.block_id x : index
  %x = tile.load %px[%r, %c0] : !tile.partition_view<1x32768xf32> -> tensor<1x32768xf32>
  %sum = tile.reduce add %x dim 1 : tensor<1x32768xf32> -> tensor<1xf32>
  %mean1 = tile.reshape %sum : tensor<1xf32> -> tensor<1x1xf32>
  %meanb = tile.broadcast %mean1 : tensor<1x1xf32> -> tensor<1x32768xf32>
  %xc = arith.subf %x, %meanb : tensor<1x32768xf32>
  %two = arith.constant dense<2.0> : tensor<1x32768xf32>
  %xn = arith.mulf %xc, %two : tensor<1x32768xf32>
  %w = tile.load %pw[%c0] : !tile.partition_view<32768xf32> -> tensor<32768xf32>
  %w1 = tile.reshape %w : tensor<32768xf32> -> tensor<1x32768xf32>
  %yw = arith.mulf %xn, %w1 : tensor<1x32768xf32>
  %b = tile.load %pb[%c0] : !tile.partition_view<32768xf32> -> tensor<32768xf32>
  %b1 = tile.reshape %b : tensor<32768xf32> -> tensor<1x32768xf32>
  %y = arith.addf %yw, %b1 : tensor<1x32768xf32>
  // expected-remark @below {{this store goes out in 4 chunks: its loads would take 96 registers a thread of the 64 there are}}
  tile.store %y, %py[%r, %c0] : tensor<1x32768xf32> -> !tile.partition_view<1x32768xf32>
  return
}

// -----

// A coordinate that is not a constant is clamped (unsigned) before it is
// scaled to chunks, so that a negative or huge one cannot wrap into the
// array.
// CHECK-LABEL: func.func @any_coordinate
// CHECK: %[[LIMIT:.*]] = arith.constant 1152921504606846975 : index
// CHECK: %[[CLAMPED:.*]] = arith.minui %[[J:.*]], %[[LIMIT]] : index
// CHECK: %[[FIRST:.*]] = arith.muli %[[CLAMPED]], %{{.*}} : index
// CHECK: scf.for %[[K:.*]] =
// CHECK: %[[AT:.*]] = arith.addi %[[FIRST]], %[[K]] : index
// CHECK: tile.load %{{.*}}[%[[AT]]] : !tile.partition_view<8192xf32>
// CHECK: tile.store %{{.*}}[%{{.*}}] : tensor<8192xf32> -> !tile.partition_view<8192xf32>
func.func @any_coordinate(%A: memref<?xf32>, %B: memref<?xf32>, %C: memref<?xf32>, %D: memref<?xf32>, %j: index)
    attributes {tile.kernel} {
  %pa = tile.partition_view %A : memref<?xf32> -> !tile.partition_view<32768xf32>
  %pb = tile.partition_view %B : memref<?xf32> -> !tile.partition_view<32768xf32>
  %pc = tile.partition_view %C : memref<?xf32> -> !tile.partition_view<32768xf32>
  %pd = tile.partition_view %D : memref<?xf32> -> !tile.partition_view<32768xf32>
  %a = tile.load %pa[%j] : !tile.partition_view<32768xf32> -> tensor<32768xf32>
  %b = tile.load %pb[%j] : !tile.partition_view<32768xf32> -> tensor<32768xf32>
  %c = tile.load %pc[%j] : !tile.partition_view<32768xf32> -> tensor<32768xf32>
  %ab = arith.mulf %a, %b : tensor<32768xf32>
  %d = arith.addf %ab, %c : tensor<32768xf32>
  // expected-remark @below {{this store goes out in 4 chunks}}
  tile.store %d, %pd[%j] : tensor<32768xf32> -> !tile.partition_view<32768xf32>
  return
}

// -----

// Rows of 8192 fit: x, W and B take 24 registers a thread at 512 threads,
// so the store stays whole.
// CHECK-LABEL: func.func @fits
// CHECK-NOT: scf.for
// CHECK: tile.store %{{.*}} : tensor<1x8192xf32> -> !tile.partition_view<1x8192xf32>
func.func @fits(%X: memref<?x8192xf32>, %W: memref<8192xf32>, %Y: memref<?x8192xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %px = tile.partition_view %X : memref<?x8192xf32> -> !tile.partition_view<1x8192xf32>
  %pw = tile.partition_view %W : memref<8192xf32> -> !tile.partition_view<8192xf32>
  %py = tile.partition_view %Y : memref<?x8192xf32> -> !tile.partition_view<1x8192xf32>
  %r = tile.block_id x : index
  %x = tile.load %px[%r, %c0] : !tile.partition_view<1x8192xf32> -> tensor<1x8192xf32>
  %w = tile.load %pw[%c0] : !tile.partition_view<8192xf32> -> tensor<8192xf32>
  %w1 = tile.reshape %w : tensor<8192xf32> -> tensor<1x8192xf32>
  %y = arith.mulf %x, %w1 : tensor<1x8192xf32>
  tile.store %y, %py[%r, %c0] : tensor<1x8192xf32> -> !tile.partition_view<1x8192xf32>
  return
}

// -----

// A store between x's load and the store: loading x again could read
// what that store wrote, so the store stays whole.
// CHECK-LABEL: func.func @store_between
// CHECK-NOT: scf.for
// CHECK: tile.store %{{.*}} : tensor<32768xf32> -> !tile.partition_view<32768xf32>
// CHECK: tile.store %{{.*}} : tensor<32768xf32> -> !tile.partition_view<32768xf32>
func.func @store_between(%A: memref<32768xf32>, %B: memref<32768xf32>, %C: memref<32768xf32>, %D: memref<32768xf32>)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<32768xf32> -> !tile.partition_view<32768xf32>
  %pb = tile.partition_view %B : memref<32768xf32> -> !tile.partition_view<32768xf32>
  %pc = tile.partition_view %C : memref<32768xf32> -> !tile.partition_view<32768xf32>
  %pd = tile.partition_view %D : memref<32768xf32> -> !tile.partition_view<32768xf32>
  %a = tile.load %pa[%c0] : !tile.partition_view<32768xf32> -> tensor<32768xf32>
  %b = tile.load %pb[%c0] : !tile.partition_view<32768xf32> -> tensor<32768xf32>
  tile.store %b, %pd[%c0] : tensor<32768xf32> -> !tile.partition_view<32768xf32>
  %c = tile.load %pc[%c0] : !tile.partition_view<32768xf32> -> tensor<32768xf32>
  %ab = arith.mulf %a, %b : tensor<32768xf32>
  %d = arith.addf %ab, %c : tensor<32768xf32>
  tile.store %d, %pd[%c0] : tensor<32768xf32> -> !tile.partition_view<32768xf32>
  return
}

// -----

// An iota varies along the row in a way a chunk cannot reuse: left whole.
// CHECK-LABEL: func.func @iota
// CHECK-NOT: scf.for
func.func @iota(%A: memref<32768xi32>, %B: memref<32768xi32>, %C: memref<32768xi32>, %D: memref<32768xi32>)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<32768xi32> -> !tile.partition_view<32768xi32>
  %pb = tile.partition_view %B : memref<32768xi32> -> !tile.partition_view<32768xi32>
  %pc = tile.partition_view %C : memref<32768xi32> -> !tile.partition_view<32768xi32>
  %pd = tile.partition_view %D : memref<32768xi32> -> !tile.partition_view<32768xi32>
  %a = tile.load %pa[%c0] : !tile.partition_view<32768xi32> -> tensor<32768xi32>
  %b = tile.load %pb[%c0] : !tile.partition_view<32768xi32> -> tensor<32768xi32>
  %c = tile.load %pc[%c0] : !tile.partition_view<32768xi32> -> tensor<32768xi32>
  %i = tile.iota : tensor<32768xi32>
  %ab = arith.muli %a, %b : tensor<32768xi32>
  %abc = arith.addi %ab, %c : tensor<32768xi32>
  %d = arith.addi %abc, %i : tensor<32768xi32>
  tile.store %d, %pd[%c0] : tensor<32768xi32> -> !tile.partition_view<32768xi32>
  return
}
