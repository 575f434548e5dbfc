// RUN: tile-opt %s -split-input-file --convert-tile-to-gpu | FileCheck %s
// RUN: tile-opt %s -split-input-file --convert-tile-to-gpu --remarks-filter=tile -verify-diagnostics -o /dev/null

// A variant whose tiles do not fit in shared memory is dropped (the
// runtime then launches the kernel it is a variant of); the kernel itself
// is converted.
// CHECK:     gpu.module @tile_kernels {
// CHECK:       gpu.func @k(
// CHECK-NOT:   @k__tma
func.func @k(%a: memref<64xf32>) attributes {tile.kernel} {
  %t = memref.alloc() : memref<64xf32>
  return
}
// expected-remark @below {{variant @k__tma of @k is dropped: with the rest of the kernel it needs 262144 bytes of shared memory, and a block has 232448; the kernel runs on the general path}}
func.func @k__tma(%a: memref<64xf32>) attributes {tile.kernel, tile.variant_of = @k} {
  %t = memref.alloc() : memref<65536xf32>
  return
}

// -----

// A kernel too large for shared memory is kept when a variant of it fits
// (the runtime refuses to launch the kernel itself).
// CHECK:       gpu.func @big(
// CHECK-SAME:    tile.shared_memory = 262144
// CHECK:       gpu.func @big__tma(
// CHECK-SAME:    tile.shared_memory = 256
func.func @big(%a: memref<64xf32>) attributes {tile.kernel} {
  %t = memref.alloc() : memref<65536xf32>
  return
}
func.func @big__tma(%a: memref<64xf32>) attributes {tile.kernel, tile.variant_of = @big} {
  %t = memref.alloc() : memref<64xf32>
  return
}
