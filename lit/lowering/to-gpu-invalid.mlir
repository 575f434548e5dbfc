// RUN: tile-opt %s -split-input-file -verify-diagnostics --convert-tile-to-gpu

// expected-error @+1 {{kernel @big needs 262144 bytes of shared memory for its tiles; a Hopper block has 232448}}
func.func @big(%X: memref<?xf32>) attributes {tile.kernel} {
  %t = memref.alloc() : memref<256x256xf32>
  return
}

// -----

// Too large, and so is its only variant (which is dropped).
// expected-error @+1 {{kernel @big needs 262144 bytes of shared memory for its tiles; a Hopper block has 232448}}
func.func @big(%a: memref<64xf32>) attributes {tile.kernel} {
  %t = memref.alloc() : memref<65536xf32>
  return
}
func.func @big__tma(%a: memref<64xf32>) attributes {tile.kernel, tile.variant_of = @big} {
  %t = memref.alloc() : memref<65536xf32>
  return
}

// -----

// A hand-written tile.cluster on a kernel whose tiles are not in registers
// (the general path would run each program block that many times over).
// expected-error @+1 {{'tile.cluster' is for kernels on the register path}}
func.func @cluster(%A: memref<?xf32>) attributes {tile.kernel, tile.cluster = 2 : i64} {
  %i = tile.block_id x : index
  return
}
