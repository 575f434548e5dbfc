// RUN: tile-opt %s -split-input-file --tile-carry-in-place -verify-diagnostics | FileCheck %s

// A loop that yields a fresh buffer gets one buffer for the loop, holding
// the initial value; the body copies the yielded value into it.
// CHECK-LABEL: func.func @fresh
// CHECK-SAME: (%[[INIT:.*]]: memref<4xf32>,
// CHECK: %[[BUF:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
// CHECK-NEXT: memref.copy %[[INIT]], %[[BUF]]
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[BUF]])
// CHECK: %[[NEXT:.*]] = memref.alloc() : memref<4xf32>
// CHECK: memref.copy %[[NEXT]], %[[ACC]]
// CHECK-NEXT: scf.yield %[[ACC]]
func.func @fresh(%init: memref<4xf32>, %n: index) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (memref<4xf32>) {
    %next = memref.alloc() : memref<4xf32>
    memref.copy %acc, %next : memref<4xf32> to memref<4xf32>
    scf.yield %next : memref<4xf32>
  }
  return %r : memref<4xf32>
}

// -----

// Yielded values that may be another iteration argument (a swap) go
// through temporaries, all filled before any argument is overwritten.
// CHECK-LABEL: func.func @swap
// CHECK: scf.for {{.*}} iter_args(%[[A:.*]] = %{{.*}}, %[[B:.*]] = %{{.*}})
// CHECK-NEXT: %[[T0:.*]] = memref.alloc()
// CHECK-NEXT: memref.copy %[[B]], %[[T0]]
// CHECK-NEXT: %[[T1:.*]] = memref.alloc()
// CHECK-NEXT: memref.copy %[[A]], %[[T1]]
// CHECK-NEXT: memref.copy %[[T0]], %[[A]]
// CHECK-NEXT: memref.copy %[[T1]], %[[B]]
// CHECK-NEXT: scf.yield %[[A]], %[[B]]
func.func @swap(%a0: memref<4xf32>, %b0: memref<4xf32>, %n: index) -> (memref<4xf32>, memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %a0, %b = %b0) -> (memref<4xf32>, memref<4xf32>) {
    scf.yield %b, %a : memref<4xf32>, memref<4xf32>
  }
  return %r#0, %r#1 : memref<4xf32>, memref<4xf32>
}

// -----

// A loop already in place is left alone.
// CHECK-LABEL: func.func @in_place
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.copy
// CHECK: scf.yield
func.func @in_place(%init: memref<4xf32>, %n: index) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (memref<4xf32>) {
    scf.yield %acc : memref<4xf32>
  }
  return %r : memref<4xf32>
}

// -----

// A choice between the body's own buffers is copied directly.
// CHECK-LABEL: func.func @select
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK: %[[S:.*]] = arith.select
// CHECK-NEXT: memref.copy %[[S]], %[[ACC]]
// CHECK-NEXT: scf.yield %[[ACC]]
func.func @select(%init: memref<4xf32>, %n: index, %c: i1) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (memref<4xf32>) {
    %x = memref.alloc() : memref<4xf32>
    %y = memref.alloc() : memref<4xf32>
    %s = arith.select %c, %x, %y : memref<4xf32>
    scf.yield %s : memref<4xf32>
  }
  return %r : memref<4xf32>
}

// -----

// A carried type with a layout: a plain allocation, cast to it.
// CHECK-LABEL: func.func @layout
// CHECK: %[[BUF:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
// CHECK-NEXT: %[[CAST:.*]] = memref.cast %[[BUF]] : memref<4xf32> to memref<4xf32, strided<[1], offset: ?>>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[CAST]])
func.func @layout(%init: memref<4xf32, strided<[1], offset: ?>>, %n: index) -> memref<4xf32, strided<[1], offset: ?>> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (memref<4xf32, strided<[1], offset: ?>>) {
    %next = memref.alloc() : memref<4xf32>
    %cast = memref.cast %next : memref<4xf32> to memref<4xf32, strided<[1], offset: ?>>
    scf.yield %cast : memref<4xf32, strided<[1], offset: ?>>
  }
  return %r : memref<4xf32, strided<[1], offset: ?>>
}

// -----

// Tiles are static; a dynamic carried buffer is a located error.
func.func @dynamic(%init: memref<?xf32>, %n: index) -> memref<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{a loop carries a buffer of dynamic shape (memref<?xf32>); tiles are static}}
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (memref<?xf32>) {
    %next = memref.alloc(%n) : memref<?xf32>
    scf.yield %next : memref<?xf32>
  }
  return %r : memref<?xf32>
}
