// RUN: tile-opt %s -split-input-file -verify-diagnostics --convert-tile-to-gpu

// expected-error @+1 {{kernel @big needs 262144 bytes of shared memory for its tiles; a Hopper block has 232448}}
func.func @big(%X: memref<?xf32>) attributes {tile.kernel} {
  %t = memref.alloc() : memref<256x256xf32>
  return
}
