// RUN: tile-opt %s -split-input-file -verify-diagnostics --tile-specialize

// expected-error @+1 {{tile-specialize: tile.config: unknown key 'block_m' (known: tile_m, tile_n, tile_k, num_stages, occupancy, num_ctas, warp_specialize, persistent, stream_k, split_k, pingpong, group_m, swap_operands)}}
func.func @unknown(%A: memref<?x?xf16>) attributes {tile.kernel, tile.config = {block_m = 64 : i64}} {
  return
}

// -----

// The verifier checks the tile sizes' ranges first (tile-specialize checks
// them again for configurations that tune::apply sets after parsing).
// expected-error @+1 {{'tile.config': 'tile_n' must be a power of two tile extent up to 1048576, not 96 : i64}}
func.func @not_power(%A: memref<?x?xf16>) attributes {tile.kernel, tile.config = {tile_n = 96 : i64}} {
  return
}

// -----

// expected-error @+1 {{'tile.config' must be a dictionary}}
func.func @not_dict(%A: memref<?x?xf16>) attributes {tile.kernel, tile.config = 3 : i64} {
  return
}

// -----

// expected-error @+1 {{'tile.tune': 'tile_m' must be a non-empty array<i64: ...>}}
func.func @bad_space(%A: memref<?x?xf16>) attributes {tile.kernel, tile.tune = {tile_m = 64 : i64}} {
  return
}

// -----

// The flags take 0 or 1; the other knobs count.
// expected-error @+1 {{'tile.tune': 'persistent' values must be 0 or 1}}
func.func @bad_flag(%A: memref<?x?xf16>) attributes {tile.kernel, tile.tune = {persistent = array<i64: 0, 2>}} {
  return
}

// -----

// expected-error @+1 {{'tile.tune': 'num_stages' values must be positive}}
func.func @bad_count(%A: memref<?x?xf16>) attributes {tile.kernel, tile.tune = {num_stages = array<i64: 0, 2>}} {
  return
}

// -----

// expected-error @+1 {{tile-specialize: the kernel has no tile.mma whose tiles the configuration could size}}
func.func @no_mma(%A: memref<?x?xf16>) attributes {tile.kernel, tile.config = {tile_m = 64 : i64}} {
  return
}

// -----

// A transpose added to the product ties M to N.
// expected-error @+1 {{tile-specialize: 'tile_n' = 64 and 'tile_m' = 128 size the same tile dim (the program ties them)}}
func.func @tied(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>)
    attributes {tile.kernel, tile.config = {tile_m = 128 : i64, tile_n = 64 : i64}} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
  %b = tile.load %pb[%c0, %c0] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
  %d = tile.mma %a, %b, %zero : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
  %t = tile.permute %d [1, 0] : tensor<128x128xf32> -> tensor<128x128xf32>
  %s = arith.addf %d, %t : tensor<128x128xf32>
  tile.store %s, %pc[%c0, %c0] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}

// -----

func.func @reshaped(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?xf32>)
    attributes {tile.kernel, tile.config = {tile_n = 64 : i64}} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?xf32> -> !tile.partition_view<16384xf32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
  %b = tile.load %pb[%c0, %c0] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
  %d = tile.mma %a, %b, %zero : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
  // expected-error @+1 {{tile-specialize: cannot resize the tiles of 'tile.reshape' for 'tile_n' = 64}}
  %flat = tile.reshape %d : tensor<128x128xf32> -> tensor<16384xf32>
  tile.store %flat, %pc[%c0] : tensor<16384xf32> -> !tile.partition_view<16384xf32>
  return
}

// -----

func.func @not_splat(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>)
    attributes {tile.kernel, tile.config = {tile_m = 1 : i64, tile_n = 2 : i64, tile_k = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<2x2xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<2x2xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<2x2xf32>
  // expected-error @+1 {{tile-specialize: cannot resize a constant tile that is not a splat}}
  %init = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<2x2xf16> -> tensor<2x2xf16>
  %b = tile.load %pb[%c0, %c0] : !tile.partition_view<2x2xf16> -> tensor<2x2xf16>
  %d = tile.mma %a, %b, %init : tensor<2x2xf16>, tensor<2x2xf16> into tensor<2x2xf32>
  tile.store %d, %pc[%c0, %c0] : tensor<2x2xf32> -> !tile.partition_view<2x2xf32>
  return
}
