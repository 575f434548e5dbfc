// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(convert-tile-to-linalg)' -verify-diagnostics

// The compiler-internal ops of tile-stream-k and tile-split-k lower only on
// the register path of the kernels those passes rewrite: written by hand
// (or left on another path), a located error, not bufferization's.
func.func @partial(%t: tensor<128xf32>, %w: memref<?xf32>, %f: memref<?xi32>, %i: index) -> tensor<128xf32> {
  // expected-error @+1 {{tile.partial_sum is compiler-internal (tile-split-k, tile-stream-k): only the register path of a kernel those passes rewrote lowers it}}
  %s = tile.partial_sum %t, %w[%i to %i], %f : tensor<128xf32>, memref<?xf32>, memref<?xi32>
  // expected-error @+1 {{tile.partial_store is compiler-internal}}
  tile.partial_store %s, %w[%i], %f : tensor<128xf32>, memref<?xf32>, memref<?xi32>
  return %s : tensor<128xf32>
}

// -----

func.func @cluster_sum(%t: tensor<128xf32>) -> tensor<128xf32> {
  // expected-error @+1 {{tile.cluster_sum is compiler-internal}}
  %s = tile.cluster_sum %t : tensor<128xf32>
  return %s : tensor<128xf32>
}
