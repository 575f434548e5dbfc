// RUN: tile-opt %s --convert-tile-to-gpu | FileCheck %s

// A kernel's chosen block size, TMA buffers already in the workgroup space
// (no cast), 1024-byte alignment found at run time (the dynamic shared
// memory follows static mbarriers), and the descriptor arguments and
// variant link carried to the gpu.func.

// CHECK: gpu.func @k__v(%{{.*}}: memref<?xf32>, %{{.*}}: !llvm.ptr {tile.tma = {arg = 0 : i64, box = array<i64: 64>, swizzle = 0 : i64}}) kernel
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK-SAME: tile.shared_memory = 1344 : i64
// CHECK-SAME: tile.variant_of = @k
// CHECK:   %[[SMEM:.*]] = gpu.dynamic_shared_memory
// CHECK:   %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %[[SMEM]]
// CHECK:   %[[MIS:.*]] = arith.remui %[[BASE]], %c1024
// CHECK:   %[[GAP:.*]] = arith.subi %c1024, %[[MIS]]
// CHECK:   %[[PAD:.*]] = arith.remui %[[GAP]], %c1024
// CHECK:   %[[OFF:.*]] = arith.addi %[[PAD]], %c0
// CHECK:   memref.view %[[SMEM]][%[[OFF]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: memref.memory_space_cast
// CHECK:   %[[OFF2:.*]] = arith.addi %[[PAD]], %c256
// CHECK:   memref.view %[[SMEM]][%[[OFF2]]][] : {{.*}} to memref<16xf32, #gpu.address_space<workgroup>>
// CHECK:   memref.memory_space_cast
func.func @k(%X: memref<?xf32>) attributes {tile.kernel} {
  return
}
func.func @k__v(%X: memref<?xf32>, %d: !llvm.ptr {tile.tma = {arg = 0 : i64, box = array<i64: 64>, swizzle = 0 : i64}})
    attributes {tile.kernel, tile.block_size = 128 : i64, tile.variant_of = @k} {
  %t = memref.alloc() {alignment = 1024 : i64} : memref<64xf32, #gpu.address_space<workgroup>>
  %u = memref.alloc() : memref<16xf32>
  %c0 = arith.constant 0 : index
  %v = memref.load %t[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
  memref.store %v, %u[%c0] : memref<16xf32>
  return
}
