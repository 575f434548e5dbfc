// RUN: tile-opt %s --tile-expand-copies | FileCheck %s

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @copy
// CHECK-SAME: (%[[A:.*]]: memref<?x?xf32, strided<[?, 1], offset: ?>>, %[[B:.*]]: memref<?x?xf32, strided<[8, 1], offset: ?>>)
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]] : {{.*}}) outs(%[[B]] : {{.*}}) {
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK:   linalg.yield %[[IN]] : f32
// CHECK-NOT: memref.copy
func.func @copy(%a: memref<?x?xf32, strided<[?, 1], offset: ?>>, %b: memref<?x?xf32, strided<[8, 1], offset: ?>>) {
  memref.copy %a, %b : memref<?x?xf32, strided<[?, 1], offset: ?>> to memref<?x?xf32, strided<[8, 1], offset: ?>>
  return
}
