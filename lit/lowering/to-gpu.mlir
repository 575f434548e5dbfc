// RUN: tile-opt %s --convert-tile-to-gpu | FileCheck %s

// CHECK: module attributes {gpu.container_module}
// CHECK: gpu.module @tile_kernels {
// CHECK:   memref.global "private" constant @pad
// CHECK:   gpu.func @k(%{{.*}}: memref<?xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, tile.shared_memory = 4128 : i64}
// CHECK:     %[[SMEM:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK:     gpu.block_id  x
// CHECK:     gpu.grid_dim  y
// CHECK:     memref.view %[[SMEM]][%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK:     memref.memory_space_cast
// CHECK:     memref.view %[[SMEM]]
// CHECK-SAME: to memref<16xf16, #gpu.address_space<workgroup>>
// CHECK:     gpu.return
// CHECK-NOT: func.func @k
memref.global "private" constant @pad : memref<4xf32> = dense<0.0>
func.func @k(%X: memref<?xf32>) attributes {tile.kernel} {
  %b = tile.block_id x : index
  %g = tile.num_blocks y : index
  %t = memref.alloc() : memref<1024xf32>
  %u = memref.alloc() : memref<16xf16>
  %c0 = arith.constant 0 : index
  %v = memref.load %t[%b] : memref<1024xf32>
  memref.store %v, %X[%g] : memref<?xf32>
  return
}
