// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-prefetch-loads))' | FileCheck %s

// The loop's load is issued one iteration ahead: one tile before the
// loop, one per iteration at i + 1; the body uses the carried tile.
// CHECK-LABEL: func.func @columns
// CHECK: %[[T0:.*]] = tile.load %{{.*}}[%{{.*}}, %[[J:[a-z0-9_]+]]]
// CHECK-NOT: tile.load
// CHECK: scf.for %[[I:[a-z0-9]+]] = %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[CUR:.*]] = %[[T0]]) -> (tensor<128xf32>, tensor<64x128xf32>) {
// CHECK:   %[[AHEAD:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK:   %[[NEW:.*]] = tile.load %{{.*}}[%[[AHEAD]], %[[J]]]
// CHECK:   tile.reduce add %[[CUR]] dim 0
// CHECK:   scf.yield %{{.*}}, %[[NEW]] :
func.func @columns(%X: memref<?x?xf32>, %S: memref<?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %px = tile.partition_view %X : memref<?x?xf32> -> !tile.partition_view<64x128xf32>
  %ps = tile.partition_view %S : memref<?xf32> -> !tile.partition_view<128xf32>
  %j = tile.block_id x : index
  %rows = tile.num_tiles %px dim 0 : !tile.partition_view<64x128xf32>
  %init = arith.constant dense<0.0> : tensor<128xf32>
  %sum = scf.for %i = %c0 to %rows step %c1 iter_args(%acc = %init) -> (tensor<128xf32>) {
    %x = tile.load %px[%i, %j] : !tile.partition_view<64x128xf32> -> tensor<64x128xf32>
    %part = tile.reduce add %x dim 0 : tensor<64x128xf32> -> tensor<128xf32>
    %next = arith.addf %acc, %part : tensor<128xf32>
    scf.yield %next : tensor<128xf32>
  }
  tile.store %sum, %ps[%j] : tensor<128xf32> -> !tile.partition_view<128xf32>
  return
}

// -----

// With `num_stages = 3` the load is issued two iterations ahead: two tiles
// before the loop, one per iteration at i + 2.
// CHECK-LABEL: func.func @columns_three
// CHECK: %[[T0:.*]] = tile.load %{{.*}}[%{{.*}}, %[[J:[a-z0-9_]+]]]
// CHECK: %[[T1:.*]] = tile.load %{{.*}}[%{{.*}}, %[[J]]]
// CHECK: scf.for %[[I:[a-z0-9]+]] = %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[CUR:.*]] = %[[T0]], %[[NXT:.*]] = %[[T1]]) -> (tensor<128xf32>, tensor<64x128xf32>, tensor<64x128xf32>) {
// CHECK:   %[[AHEAD:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK:   %[[NEW:.*]] = tile.load %{{.*}}[%[[AHEAD]], %[[J]]]
// CHECK:   tile.reduce add %[[CUR]] dim 0
// CHECK:   scf.yield %{{.*}}, %[[NXT]], %[[NEW]] :
func.func @columns_three(%X: memref<?x?xf32>, %S: memref<?xf32>) attributes {tile.kernel, tile.hints = {num_stages = 3}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %px = tile.partition_view %X : memref<?x?xf32> -> !tile.partition_view<64x128xf32>
  %ps = tile.partition_view %S : memref<?xf32> -> !tile.partition_view<128xf32>
  %j = tile.block_id x : index
  %rows = tile.num_tiles %px dim 0 : !tile.partition_view<64x128xf32>
  %init = arith.constant dense<0.0> : tensor<128xf32>
  %sum = scf.for %i = %c0 to %rows step %c1 iter_args(%acc = %init) -> (tensor<128xf32>) {
    %x = tile.load %px[%i, %j] : !tile.partition_view<64x128xf32> -> tensor<64x128xf32>
    %part = tile.reduce add %x dim 0 : tensor<64x128xf32> -> tensor<128xf32>
    %next = arith.addf %acc, %part : tensor<128xf32>
    scf.yield %next : tensor<128xf32>
  }
  tile.store %sum, %ps[%j] : tensor<128xf32> -> !tile.partition_view<128xf32>
  return
}

// -----

// With `num_stages = 1` nothing is issued ahead.
// CHECK-LABEL: func.func @columns_one
// CHECK-NOT: tile.load
// CHECK: scf.for %{{.*}} -> (tensor<128xf32>) {
// CHECK-NEXT: tile.load
func.func @columns_one(%X: memref<?x?xf32>, %S: memref<?xf32>) attributes {tile.kernel, tile.hints = {num_stages = 1}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %px = tile.partition_view %X : memref<?x?xf32> -> !tile.partition_view<64x128xf32>
  %ps = tile.partition_view %S : memref<?xf32> -> !tile.partition_view<128xf32>
  %j = tile.block_id x : index
  %rows = tile.num_tiles %px dim 0 : !tile.partition_view<64x128xf32>
  %init = arith.constant dense<0.0> : tensor<128xf32>
  %sum = scf.for %i = %c0 to %rows step %c1 iter_args(%acc = %init) -> (tensor<128xf32>) {
    %x = tile.load %px[%i, %j] : !tile.partition_view<64x128xf32> -> tensor<64x128xf32>
    %part = tile.reduce add %x dim 0 : tensor<64x128xf32> -> tensor<128xf32>
    %next = arith.addf %acc, %part : tensor<128xf32>
    scf.yield %next : tensor<128xf32>
  }
  tile.store %sum, %ps[%j] : tensor<128xf32> -> !tile.partition_view<128xf32>
  return
}

// -----

// Coordinates computed from the induction variable are computed again for
// the iteration ahead.
// CHECK-LABEL: func.func @computed
// CHECK: scf.for %[[I:[a-z0-9]+]] = {{.*}} {
// CHECK:   %[[AHEAD:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK:   %[[K:.*]] = arith.muli %[[AHEAD]], %{{.*}} : index
// CHECK:   tile.load %{{.*}}[%[[K]]]
func.func @computed(%X: memref<?xf32>, %n: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %px = tile.partition_view %X : memref<?xf32> -> !tile.partition_view<256xf32>
  %init = arith.constant dense<0.0> : tensor<256xf32>
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<256xf32>) {
    %k = arith.muli %i, %c2 : index
    %x = tile.load %px[%k] : !tile.partition_view<256xf32> -> tensor<256xf32>
    %next = arith.addf %acc, %x : tensor<256xf32>
    scf.yield %next : tensor<256xf32>
  }
  tile.store %sum, %px[%c0] : tensor<256xf32> -> !tile.partition_view<256xf32>
  return
}

// -----

// A loop that stores tiles keeps its loads where they are (a store could
// change what a later load reads); so do kernels with a tile.mma.
// CHECK-LABEL: func.func @stores
// CHECK: scf.for
// CHECK-NEXT: tile.load
// CHECK-NEXT: tile.store
func.func @stores(%X: memref<?xf32>, %n: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %px = tile.partition_view %X : memref<?xf32> -> !tile.partition_view<256xf32>
  scf.for %i = %c0 to %n step %c1 {
    %x = tile.load %px[%i] : !tile.partition_view<256xf32> -> tensor<256xf32>
    tile.store %x, %px[%c0] : tensor<256xf32> -> !tile.partition_view<256xf32>
  }
  return
}

// -----

// Two loads at the top of the body: both are issued ahead, after the
// coordinate they share (neither erased load anchors the other's
// replacement; a crash before).
// CHECK-LABEL: func.func @two_loads
// CHECK: scf.for %[[I:[a-z0-9]+]] = %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[X:.*]] = %{{.*}}, %[[Y:.*]] = %{{.*}}) ->
// CHECK-NEXT: arith.constant
// CHECK-NEXT: arith.muli
// CHECK-NEXT: %[[AHEAD:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK-NEXT: %[[NX:.*]] = tile.load %{{.*}}[%[[AHEAD]], %{{.*}}]
// CHECK-NEXT: %[[NY:.*]] = tile.load %{{.*}}[%[[AHEAD]], %{{.*}}]
// CHECK-NEXT: arith.addf %[[X]], %[[Y]]
// CHECK: scf.yield %{{.*}}, %[[NX]], %[[NY]] :
func.func @two_loads(%X: memref<?x?xf32>, %Y: memref<?x?xf32>, %S: memref<?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %px = tile.partition_view %X : memref<?x?xf32> -> !tile.partition_view<8x128xf32>
  %py = tile.partition_view %Y : memref<?x?xf32> -> !tile.partition_view<8x128xf32>
  %ps = tile.partition_view %S : memref<?xf32> -> !tile.partition_view<128xf32>
  %rows = tile.num_tiles %px dim 0 : !tile.partition_view<8x128xf32>
  %init = arith.constant dense<0.0> : tensor<8x128xf32>
  %sum = scf.for %i = %c0 to %rows step %c1 iter_args(%acc = %init) -> (tensor<8x128xf32>) {
    %x = tile.load %px[%i, %c0] : !tile.partition_view<8x128xf32> -> tensor<8x128xf32>
    %y = tile.load %py[%i, %c0] : !tile.partition_view<8x128xf32> -> tensor<8x128xf32>
    %xy = arith.addf %x, %y : tensor<8x128xf32>
    %next = arith.addf %acc, %xy : tensor<8x128xf32>
    scf.yield %next : tensor<8x128xf32>
  }
  %r = tile.reduce add %sum dim 0 : tensor<8x128xf32> -> tensor<128xf32>
  tile.store %r, %ps[%c0] : tensor<128xf32> -> !tile.partition_view<128xf32>
  return
}

// -----

// An mma loop's operand loads (their tiles wait in shared memory) go two
// iterations ahead by default, the first tiles loaded iteration by
// iteration; each load names its ring: two tiles ahead, which first tile
// (-1: the one in the loop), and 2 + 2 + 1 slots (the mma stays in flight:
// its accumulator is only carried).
// CHECK-LABEL: func.func @mm_ring
// CHECK: tile.load %[[PA:.*]][%{{.*}}] {tile.ring = array<i64: 0, 2, 0, 5>}
// CHECK-NEXT: tile.load %[[PB:.*]][%{{.*}}] {tile.ring = array<i64: 1, 2, 0, 5>}
// CHECK: tile.load %[[PA]][%{{.*}}] {tile.ring = array<i64: 0, 2, 1, 5>}
// CHECK-NEXT: tile.load %[[PB]][%{{.*}}] {tile.ring = array<i64: 1, 2, 1, 5>}
// CHECK: scf.for
// CHECK: tile.load %[[PA]][%{{.*}}] {tile.ring = array<i64: 0, 2, -1, 5>}
// CHECK-NEXT: tile.load %[[PB]][%{{.*}}] {tile.ring = array<i64: 1, 2, -1, 5>}
// CHECK: tile.mma
func.func @mm_ring(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
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

// An accumulator that other ops read (rescaled, as attention's is) keeps
// the mma from staying in flight: 2 + 2 slots.
// CHECK-LABEL: func.func @mm_rescaled
// CHECK: tile.load {{.*}} {tile.ring = array<i64: 0, 2, 0, 4>}
func.func @mm_rescaled(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<32x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x32xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %half = arith.constant dense<0.5> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%in = %z) -> (tensor<64x64xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<32x64xf16> -> tensor<32x64xf16>
    %scaled = arith.mulf %in, %half : tensor<64x64xf32>
    %d = tile.mma %a, %b, %scaled : tensor<64x32xf16>, tensor<32x64xf16> into tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// Operands loaded as 3-D tiles and reshaped for the mma (a batch index)
// are ring tiles all the same: the mma stays in flight, 2 + 2 + 1 slots.
// CHECK-LABEL: func.func @mm_batched
// CHECK: tile.load {{.*}} {tile.ring = array<i64: 0, 2, 0, 5>}
// CHECK: scf.for
// CHECK: tile.load {{.*}} {tile.ring = array<i64: 1, 2, -1, 5>}
func.func @mm_batched(%A: memref<?x?x?xf16>, %B: memref<?x?x?xf16>, %C: memref<?x?x?xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?x?xf16> -> !tile.partition_view<1x64x32xf16>
  %pb = tile.partition_view %B : memref<?x?x?xf16> -> !tile.partition_view<1x32x64xf16>
  %pc = tile.partition_view %C : memref<?x?x?xf16> -> !tile.partition_view<1x64x64xf16>
  %l = tile.block_id y : index
  %nk = tile.num_tiles %pa dim 2 : !tile.partition_view<1x64x32xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%in = %z) -> (tensor<64x64xf32>) {
    %a3 = tile.load %pa[%l, %c0, %k] : !tile.partition_view<1x64x32xf16> -> tensor<1x64x32xf16>
    %b3 = tile.load %pb[%l, %k, %c0] : !tile.partition_view<1x32x64xf16> -> tensor<1x32x64xf16>
    %a = tile.reshape %a3 : tensor<1x64x32xf16> -> tensor<64x32xf16>
    %b = tile.reshape %b3 : tensor<1x32x64xf16> -> tensor<32x64xf16>
    %d = tile.mma %a, %b, %in : tensor<64x32xf16>, tensor<32x64xf16> into tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %out = arith.truncf %acc : tensor<64x64xf32> to tensor<64x64xf16>
  %out3 = tile.reshape %out : tensor<64x64xf16> -> tensor<1x64x64xf16>
  tile.store %out3, %pc[%l, %c0, %c0] : tensor<1x64x64xf16> -> !tile.partition_view<1x64x64xf16>
  return
}

// -----

// The rings share shared memory with the accumulator's exchange for its
// store. After a bias, an activation and a narrowing to f16, that
// exchange holds the stored f16 tile (32 KiB), not the f32 accumulator
// (64 KiB): the 32 KiB a K step of 128x64 and 64x128 f16 tiles leaves
// room for two ahead and a spare slot, 5 slots.
// CHECK-LABEL: func.func @mm_bias_relu
// CHECK: tile.load {{.*}} {tile.ring = array<i64: 0, 2, 0, 5>}
func.func @mm_bias_relu(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %bias: memref<?xf16>, %C: memref<?x?xf16>)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pbias = tile.partition_view %bias : memref<?xf16> -> !tile.partition_view<128xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<128x128xf16>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x64xf16>
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%in = %z) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %in : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %bv = tile.load %pbias[%c0] : !tile.partition_view<128xf16> -> tensor<128xf16>
  %bw = arith.extf %bv : tensor<128xf16> to tensor<128xf32>
  %b1 = tile.reshape %bw : tensor<128xf32> -> tensor<1x128xf32>
  %bb = tile.broadcast %b1 : tensor<1x128xf32> -> tensor<128x128xf32>
  %biased = arith.addf %acc, %bb : tensor<128x128xf32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %relu = arith.maximumf %biased, %zero : tensor<128x128xf32>
  %out = arith.truncf %relu : tensor<128x128xf32> to tensor<128x128xf16>
  tile.store %out, %pc[%c0, %c0] : tensor<128x128xf16> -> !tile.partition_view<128x128xf16>
  return
}

// -----

// An accumulator that is also reduced keeps its whole size for the
// exchange (64 KiB): the rings go one ahead, with the spare slot.
// CHECK-LABEL: func.func @mm_reduced
// CHECK: tile.load {{.*}} {tile.ring = array<i64: 0, 1, 0, 4>}
func.func @mm_reduced(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>, %S: memref<?xf32>)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<128x128xf16>
  %ps = tile.partition_view %S : memref<?xf32> -> !tile.partition_view<128xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x64xf16>
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%in = %z) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %in : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %sums = tile.reduce add %acc dim 1 : tensor<128x128xf32> -> tensor<128xf32>
  tile.store %sums, %ps[%c0] : tensor<128xf32> -> !tile.partition_view<128xf32>
  %out = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xf16>
  tile.store %out, %pc[%c0, %c0] : tensor<128x128xf16> -> !tile.partition_view<128x128xf16>
  return
}

// -----

// 128x256 tiles: a K step of 48 KiB. Beside the 64 KiB of the f16 tile's
// exchange, the rings get 3 slots (one ahead, no spare); in a widened
// instance (tile.wide_of), whose TMA store stages the tile in the rings'
// memory after the loop, 4 (one ahead and the spare slot).
// CHECK-LABEL: func.func @mm_wide_tiles(
// CHECK: tile.load {{.*}} {tile.ring = array<i64: 0, 1, 0, 3>}
// CHECK-LABEL: func.func @mm_wide_tiles__wide(
// CHECK: tile.load {{.*}} {tile.ring = array<i64: 0, 1, 0, 4>}
func.func @mm_wide_tiles(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) attributes {tile.kernel} {
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
  %out = arith.truncf %acc : tensor<128x256xf32> to tensor<128x256xf16>
  tile.store %out, %pc[%c0, %c0] : tensor<128x256xf16> -> !tile.partition_view<128x256xf16>
  return
}
func.func @mm_wide_tiles__wide(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>)
    attributes {tile.kernel, tile.wide_of = @mm_wide_tiles} {
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
  %out = arith.truncf %acc : tensor<128x256xf32> to tensor<128x256xf16>
  tile.store %out, %pc[%c0, %c0] : tensor<128x256xf16> -> !tile.partition_view<128x256xf16>
  return
}

// -----

// tf32 with B loaded N-major: the mma is computed transposed, and the
// threads read B^T's fragments from B's ring, so the mma is waited for in
// its iteration: no spare slot. Both rings are shared memory, 64 KiB a
// slot together: with the accumulator's exchange (64 KiB) they fit only
// one ahead, in 3 slots (the least).
// CHECK-LABEL: func.func @mm_tf32_swapped
// CHECK: scf.for
// CHECK: arith.addi
// CHECK-NEXT: tile.load %{{.*}} {tile.ring = array<i64: {{[0-9]+}}, 1, -1, 3>} : !tile.partition_view<128x64xf32>
// CHECK-NEXT: tile.load %{{.*}} {tile.ring = array<i64: {{[0-9]+}}, 1, -1, 3>} : !tile.partition_view<64x128xf32>
// CHECK-NEXT: tile.mma
// CHECK-NEXT: scf.yield
func.func @mm_tf32_swapped(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf32> -> !tile.partition_view<128x64xf32>
  %pb = tile.partition_view %B : memref<?x?xf32> -> !tile.partition_view<64x128xf32>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x64xf32>
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%in = %z) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<128x64xf32> -> tensor<128x64xf32>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<64x128xf32> -> tensor<64x128xf32>
    %d = tile.mma %a, %b, %in : tensor<128x64xf32>, tensor<64x128xf32> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}

// -----

// `num_stages = 8`: 16 KiB of operands an iteration go 7 ahead in
// 7 + 2 + 1 slots beside the 16 KiB exchange of the result.
// CHECK-LABEL: func.func @mm_occupancy_one
// CHECK: scf.for
// CHECK: tile.load {{.*}} {tile.ring = array<i64: 0, 7, -1, 10>}
func.func @mm_occupancy_one(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel, tile.hints = {num_stages = 8}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x64xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%in = %z) -> (tensor<64x64xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %d = tile.mma %a, %b, %in : tensor<64x64xf16>, tensor<64x64xf16> into tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// With `occupancy = 2` the rings and the exchange share half the
// multiprocessor's 228 KiB (less a kilobyte for the system and 8 for other
// exchanges, 105 KiB): 2 ahead, 5 slots.
// CHECK-LABEL: func.func @mm_occupancy_two
// CHECK: scf.for
// CHECK: tile.load {{.*}} {tile.ring = array<i64: 0, 2, -1, 5>}
func.func @mm_occupancy_two(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel, tile.hints = {num_stages = 8, occupancy = 2}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x64xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%in = %z) -> (tensor<64x64xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %d = tile.mma %a, %b, %in : tensor<64x64xf16>, tensor<64x64xf16> into tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}
