// RUN: tile-opt %s -split-input-file -allow-unregistered-dialect --convert-tile-to-scf | FileCheck %s

// The body moves to a private per-block function whose last six arguments
// replace the grid queries; the kernel becomes a loop over a range of
// linear block ids, x fastest.
// CHECK-LABEL: func.func private @k.block
// CHECK-SAME: (%[[A:.*]]: memref<?xf32>, %[[N:.*]]: index, %[[BX:.*]]: index, %[[BY:.*]]: index, %[[BZ:.*]]: index, %[[GX:.*]]: index, %[[GY:.*]]: index, %[[GZ:.*]]: index)
// CHECK-NOT: tile.kernel
// CHECK: "use"(%[[BX]], %[[BY]], %[[BZ]], %[[GX]], %[[GY]], %[[GZ]], %[[N]])
// CHECK: func.func @k(%[[A2:.*]]: memref<?xf32>, %[[N2:.*]]: index, %[[GX2:.*]]: index, %[[GY2:.*]]: index, %[[GZ2:.*]]: index, %[[FIRST:.*]]: index, %[[LAST:.*]]: index) attributes {llvm.emit_c_interface}
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[PLANE:.*]] = arith.muli %[[GX2]], %[[GY2]]
// CHECK: scf.for %[[B:.*]] = %[[FIRST]] to %[[LAST]] step %[[C1]] {
// CHECK:   %[[X:.*]] = arith.remui %[[B]], %[[GX2]]
// CHECK:   %[[ROW:.*]] = arith.divui %[[B]], %[[GX2]]
// CHECK:   %[[Y:.*]] = arith.remui %[[ROW]], %[[GY2]]
// CHECK:   %[[Z:.*]] = arith.divui %[[B]], %[[PLANE]]
// CHECK:   func.call @k.block(%[[A2]], %[[N2]], %[[X]], %[[Y]], %[[Z]], %[[GX2]], %[[GY2]], %[[GZ2]])
func.func @k(%A: memref<?xf32>, %n: index) attributes {tile.kernel, tile.hints = {num_stages = 3 : i64}} {
  %bx = tile.block_id x : index
  %by = tile.block_id y : index
  %bz = tile.block_id z : index
  %gx = tile.num_blocks x : index
  %gy = tile.num_blocks y : index
  %gz = tile.num_blocks z : index
  "use"(%bx, %by, %bz, %gx, %gy, %gz, %n) : (index, index, index, index, index, index, index) -> ()
  return
}

// -----

// Functions without tile.kernel are left alone.
// CHECK-LABEL: func.func @helper
// CHECK-NOT: scf.for
func.func @helper(%x: index) -> index {
  return %x : index
}
