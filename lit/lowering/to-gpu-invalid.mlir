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
func.func @big__wgmma(%a: memref<64xf32>) attributes {tile.kernel, tile.variant_of = @big} {
  %t = memref.alloc() : memref<65536xf32>
  return
}
