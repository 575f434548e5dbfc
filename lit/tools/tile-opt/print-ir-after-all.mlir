// Upstream passes run on tile programs through --pass-pipeline; the
// pure tile ops are removed by DCE when unused and kept otherwise.
// RUN: tile-opt %s --pass-pipeline='builtin.module(func.func(canonicalize,cse))' --mlir-print-ir-after-all 2>&1 | FileCheck %s
// CHECK: IR Dump After Canonicalizer
// CHECK: IR Dump After CSE
// CHECK: module
// CHECK: func.func @k
// CHECK-NOT: tile.iota
// CHECK: %[[V:.*]] = tile.partition_view
// CHECK: %[[T:.*]] = tile.load %[[V]]
// CHECK-NEXT: tile.store %[[T]], %[[V]]
func.func @k(%A: memref<?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %unused = tile.iota : tensor<8xi32>
  %v = tile.partition_view %A : memref<?xf32> -> !tile.partition_view<16xf32>
  %w = tile.partition_view %A : memref<?xf32> -> !tile.partition_view<16xf32>
  %t = tile.load %v[%c0] : !tile.partition_view<16xf32> -> tensor<16xf32>
  tile.store %t, %w[%c0] : tensor<16xf32> -> !tile.partition_view<16xf32>
  return
}
