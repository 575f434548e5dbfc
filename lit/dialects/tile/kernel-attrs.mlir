// Every kernel attribute, and every key of tile.hints, tile.tune and
// tile.config, with values it takes and values it does not: the ranges are
// dialects/src/attrs.rs's (docs/kernel-attributes.md). tile-specialize runs
// too, for the tile sizes of tile.config, which it checks (with a located
// error); the verifier checks everything else as the file is parsed.
// RUN: tile-opt %s -split-input-file -verify-diagnostics --tile-specialize

// tile.kernel is a unit attribute of a func.func.
func.func @kernel(%A: memref<?xf32>, %n: index, %x: f32) attributes {tile.kernel} {
  return
}

// -----

// expected-error @+1 {{'tile.kernel' is a unit attribute}}
func.func @kernel_not_unit() attributes {tile.kernel = true} {
  return
}

// -----

// tile.cluster: a tile block that runs as a cluster of blocks.
func.func @cluster(%A: memref<?xf32>) attributes {tile.kernel, tile.block_size = 512 : i64, tile.cluster = 4 : i64} {
  return
}

// -----

// tile.sliced: each block of the cluster runs its own rows of the
// program block; tile.tma_multicast on its TMA ring loads read alike.
func.func @sliced(%A: memref<?x?xf16>, %d: !llvm.ptr {tile.tma = {arg = 0 : i64, box = array<i64: 32, 32>, swizzle = 64 : i64}})
    attributes {tile.kernel, tile.cluster = 2 : i64, tile.sliced} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %a = tile.load %pa[%c0, %c0] {tile.ring = array<i64: 0, 2, 0, 4>, tile.tma_load = 1 : i64, tile.tma_multicast} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
  return
}

// -----

// tile.hints: every hint at its least and at its largest value.
func.func @hints_least() attributes {tile.kernel, tile.hints = {num_stages = 1 : i64, occupancy = 1 : i64, num_ctas = 1 : i64, warp_specialize = 0 : i64, persistent = 0 : i64, split_k = 1 : i64, pingpong = 0 : i64, group_m = 1 : i64, swap_operands = 0 : i64}} {
  return
}
func.func @hints_largest() attributes {tile.kernel, tile.hints = {num_stages = 8 : i64, occupancy = 32 : i64, num_ctas = 8 : i64, warp_specialize = 1 : i64, persistent = 1 : i64, split_k = 8 : i64, pingpong = 1 : i64, group_m = 1024 : i64, swap_operands = 1 : i64}} {
  return
}

// -----

// Unknown hints are ignored, whatever their value.
func.func @hints_unknown() attributes {tile.kernel, tile.hints = {num_warps = 0 : i64, tile_m = "big"}} {
  return
}

// -----

// expected-error @+1 {{'tile.hints' must be a dictionary}}
func.func @hints_not_dict() attributes {tile.kernel, tile.hints = 4 : i64} {
  return
}

// -----

// expected-error @+1 {{hint 'num_stages' must be a positive integer up to 8, not 2 : index}}
func.func @hints_index() attributes {tile.kernel, tile.hints = {num_stages = 2 : index}} {
  return
}

// -----

// expected-error @+1 {{hint 'num_stages' must be a positive integer up to 8, not 0 : i64}}
func.func @hint_num_stages_low() attributes {tile.kernel, tile.hints = {num_stages = 0 : i64}} {
  return
}

// -----

// expected-error @+1 {{hint 'num_stages' must be a positive integer up to 8, not 9 : i64}}
func.func @hint_num_stages_high() attributes {tile.kernel, tile.hints = {num_stages = 9 : i64}} {
  return
}

// -----

// expected-error @+1 {{hint 'occupancy' must be a positive integer up to 32, not 0 : i64}}
func.func @hint_occupancy_low() attributes {tile.kernel, tile.hints = {occupancy = 0 : i64}} {
  return
}

// -----

// expected-error @+1 {{hint 'occupancy' must be a positive integer up to 32, not 33 : i64}}
func.func @hint_occupancy_high() attributes {tile.kernel, tile.hints = {occupancy = 33 : i64}} {
  return
}

// -----

// expected-error @+1 {{hint 'num_ctas' must be a positive integer up to 8, not 0 : i64}}
func.func @hint_num_ctas_low() attributes {tile.kernel, tile.hints = {num_ctas = 0 : i64}} {
  return
}

// -----

// expected-error @+1 {{hint 'num_ctas' must be a positive integer up to 8, not 9 : i64}}
func.func @hint_num_ctas_high() attributes {tile.kernel, tile.hints = {num_ctas = 9 : i64}} {
  return
}

// -----

// expected-error @+1 {{hint 'warp_specialize' must be 0 or 1, not -1 : i64}}
func.func @hint_warp_specialize_low() attributes {tile.kernel, tile.hints = {warp_specialize = -1 : i64}} {
  return
}

// -----

// expected-error @+1 {{hint 'warp_specialize' must be 0 or 1, not 2 : i64}}
func.func @hint_warp_specialize_high() attributes {tile.kernel, tile.hints = {warp_specialize = 2 : i64}} {
  return
}

// -----

// expected-error @+1 {{hint 'persistent' must be 0 or 1, not -1 : i64}}
func.func @hint_persistent_low() attributes {tile.kernel, tile.hints = {persistent = -1 : i64}} {
  return
}

// -----

// expected-error @+1 {{hint 'persistent' must be 0 or 1, not 2 : i64}}
func.func @hint_persistent_high() attributes {tile.kernel, tile.hints = {persistent = 2 : i64}} {
  return
}

// -----

// expected-error @+1 {{hint 'split_k' must be a positive integer up to 8, not 0 : i64}}
func.func @hint_split_k_low() attributes {tile.kernel, tile.hints = {split_k = 0 : i64}} {
  return
}

// -----

// expected-error @+1 {{hint 'split_k' must be a positive integer up to 8, not 9 : i64}}
func.func @hint_split_k_high() attributes {tile.kernel, tile.hints = {split_k = 9 : i64}} {
  return
}

// -----

// expected-error @+1 {{hint 'pingpong' must be 0 or 1, not -1 : i64}}
func.func @hint_pingpong_low() attributes {tile.kernel, tile.hints = {pingpong = -1 : i64}} {
  return
}

// -----

// expected-error @+1 {{hint 'pingpong' must be 0 or 1, not 2 : i64}}
func.func @hint_pingpong_high() attributes {tile.kernel, tile.hints = {pingpong = 2 : i64}} {
  return
}

// -----

// expected-error @+1 {{hint 'swap_operands' must be 0 or 1, not 2 : i64}}
func.func @hint_swap_operands_high() attributes {tile.kernel, tile.hints = {swap_operands = 2 : i64}} {
  return
}

// -----

// expected-error @+1 {{hint 'group_m' must be a positive integer up to 1024, not 0 : i64}}
func.func @hint_group_m_low() attributes {tile.kernel, tile.hints = {group_m = 0 : i64}} {
  return
}

// -----

// tile.tune: every knob with its least and largest values.
func.func @tune_all() attributes {tile.kernel, tile.tune = {tile_m = array<i64: 1, 64, 1048576>, tile_n = array<i64: 1, 64, 1048576>, tile_k = array<i64: 1, 64, 1048576>, num_stages = array<i64: 1, 8>, occupancy = array<i64: 1, 32>, num_ctas = array<i64: 1, 8>, warp_specialize = array<i64: 0, 1>, persistent = array<i64: 0, 1>, split_k = array<i64: 1, 8>, pingpong = array<i64: 0, 1>, group_m = array<i64: 1, 1024>, swap_operands = array<i64: 0, 1>}} {
  return
}

// -----

// The tuner rejects unknown knobs; the verifier only asks that they count.
func.func @tune_unknown() attributes {tile.kernel, tile.tune = {num_warps = array<i64: 4, 8>}} {
  return
}

// -----

// expected-error @+1 {{'tile.tune': 'num_warps' values must be positive integers, not 0}}
func.func @tune_unknown_zero() attributes {tile.kernel, tile.tune = {num_warps = array<i64: 0>}} {
  return
}

// -----

// expected-error @+1 {{'tile.tune': 'num_stages' must be a non-empty array<i64: ...>, not array<i64>}}
func.func @tune_empty() attributes {tile.kernel, tile.tune = {num_stages = array<i64>}} {
  return
}

// -----

// expected-error @+1 {{'tile.tune': 'tile_m' values must be powers of two up to 1048576, not 96}}
func.func @tune_tile_m() attributes {tile.kernel, tile.tune = {tile_m = array<i64: 64, 96>}} {
  return
}

// -----

// expected-error @+1 {{'tile.tune': 'tile_n' values must be powers of two up to 1048576, not 0}}
func.func @tune_tile_n() attributes {tile.kernel, tile.tune = {tile_n = array<i64: 0, 64>}} {
  return
}

// -----

// expected-error @+1 {{'tile.tune': 'tile_k' values must be powers of two up to 1048576, not 2097152}}
func.func @tune_tile_k() attributes {tile.kernel, tile.tune = {tile_k = array<i64: 64, 2097152>}} {
  return
}

// -----

// expected-error @+1 {{'tile.tune': 'num_stages' values must be positive integers up to 8, not 0}}
func.func @tune_num_stages_low() attributes {tile.kernel, tile.tune = {num_stages = array<i64: 1, 0>}} {
  return
}

// -----

// expected-error @+1 {{'tile.tune': 'num_stages' values must be positive integers up to 8, not 9}}
func.func @tune_num_stages_high() attributes {tile.kernel, tile.tune = {num_stages = array<i64: 1, 9>}} {
  return
}

// -----

// expected-error @+1 {{'tile.tune': 'occupancy' values must be positive integers up to 32, not 0}}
func.func @tune_occupancy_low() attributes {tile.kernel, tile.tune = {occupancy = array<i64: 1, 0>}} {
  return
}

// -----

// expected-error @+1 {{'tile.tune': 'occupancy' values must be positive integers up to 32, not 33}}
func.func @tune_occupancy_high() attributes {tile.kernel, tile.tune = {occupancy = array<i64: 1, 33>}} {
  return
}

// -----

// expected-error @+1 {{'tile.tune': 'num_ctas' values must be positive integers up to 8, not 0}}
func.func @tune_num_ctas_low() attributes {tile.kernel, tile.tune = {num_ctas = array<i64: 1, 0>}} {
  return
}

// -----

// expected-error @+1 {{'tile.tune': 'num_ctas' values must be positive integers up to 8, not 9}}
func.func @tune_num_ctas_high() attributes {tile.kernel, tile.tune = {num_ctas = array<i64: 1, 9>}} {
  return
}

// -----

// expected-error @+1 {{'tile.tune': 'warp_specialize' values must be 0 or 1, not -1}}
func.func @tune_warp_specialize_low() attributes {tile.kernel, tile.tune = {warp_specialize = array<i64: 0, -1>}} {
  return
}

// -----

// expected-error @+1 {{'tile.tune': 'warp_specialize' values must be 0 or 1, not 2}}
func.func @tune_warp_specialize_high() attributes {tile.kernel, tile.tune = {warp_specialize = array<i64: 0, 2>}} {
  return
}

// -----

// expected-error @+1 {{'tile.tune': 'persistent' values must be 0 or 1, not -1}}
func.func @tune_persistent_low() attributes {tile.kernel, tile.tune = {persistent = array<i64: 0, -1>}} {
  return
}

// -----

// expected-error @+1 {{'tile.tune': 'persistent' values must be 0 or 1, not 2}}
func.func @tune_persistent_high() attributes {tile.kernel, tile.tune = {persistent = array<i64: 0, 2>}} {
  return
}

// -----

// expected-error @+1 {{'tile.tune': 'split_k' values must be positive integers up to 8, not 0}}
func.func @tune_split_k_low() attributes {tile.kernel, tile.tune = {split_k = array<i64: 1, 0>}} {
  return
}

// -----

// expected-error @+1 {{'tile.tune': 'split_k' values must be positive integers up to 8, not 9}}
func.func @tune_split_k_high() attributes {tile.kernel, tile.tune = {split_k = array<i64: 1, 9>}} {
  return
}

// -----

// expected-error @+1 {{'tile.tune': 'pingpong' values must be 0 or 1, not -1}}
func.func @tune_pingpong_low() attributes {tile.kernel, tile.tune = {pingpong = array<i64: 0, -1>}} {
  return
}

// -----

// expected-error @+1 {{'tile.tune': 'pingpong' values must be 0 or 1, not 2}}
func.func @tune_pingpong_high() attributes {tile.kernel, tile.tune = {pingpong = array<i64: 0, 2>}} {
  return
}

// -----

// tile.config: every hint at its largest value (tile-specialize moves them
// into tile.hints).
func.func @config_hints() attributes {tile.kernel, tile.config = {num_stages = 8 : i64, occupancy = 32 : i64, num_ctas = 8 : i64, warp_specialize = 1 : i64, persistent = 1 : i64, split_k = 8 : i64, pingpong = 1 : i64}} {
  return
}

// -----

// The tile sizes, which tile-specialize applies.
func.func @config_tiles(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>)
    attributes {tile.kernel, tile.config = {tile_m = 64 : i64, tile_n = 256 : i64, tile_k = 32 : i64}} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
  %b = tile.load %pb[%c0, %c0] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
  %d = tile.mma %a, %b, %zero : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
  tile.store %d, %pc[%c0, %c0] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}

// -----

// The tile sizes' ranges are the verifier's, as in tile.tune: a value out
// of range never reaches tile-specialize, the first pass of both pipelines.
// expected-error @+1 {{'tile.config': 'tile_m' must be a power of two tile extent up to 1048576, not 96 : i64}}
func.func @config_tile_m(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>)
    attributes {tile.kernel, tile.config = {tile_m = 96 : i64}} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
  %b = tile.load %pb[%c0, %c0] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
  %d = tile.mma %a, %b, %zero : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
  tile.store %d, %pc[%c0, %c0] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}

// -----

// expected-error @+1 {{'tile.config': 'tile_n' must be a power of two tile extent up to 1048576, not 0 : i64}}
func.func @config_tile_n(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>)
    attributes {tile.kernel, tile.config = {tile_n = 0 : i64}} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
  %b = tile.load %pb[%c0, %c0] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
  %d = tile.mma %a, %b, %zero : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
  tile.store %d, %pc[%c0, %c0] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}

// -----

// expected-error @+1 {{'tile.config': 'tile_k' must be a power of two tile extent up to 1048576, not 2097152 : i64}}
func.func @config_tile_k(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>)
    attributes {tile.kernel, tile.config = {tile_k = 2097152 : i64}} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
  %b = tile.load %pb[%c0, %c0] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
  %d = tile.mma %a, %b, %zero : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
  tile.store %d, %pc[%c0, %c0] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}

// -----

// expected-error @+1 {{'tile.config': 'tile_k' must be a power of two tile extent up to 1048576, not 0 : i64}}
func.func @config_tile_k_zero() attributes {tile.kernel, tile.config = {tile_k = 0 : i64}} {
  return
}

// -----

// expected-error @+1 {{'tile.config': 'tile_m' must be a power of two tile extent up to 1048576, not -64 : i64}}
func.func @config_tile_m_negative() attributes {tile.kernel, tile.config = {tile_m = -64 : i64}} {
  return
}

// -----

// A value wider than 64 bits is out of range, not read truncated.
// expected-error @+1 {{'tile.config': 'tile_n' must be a power of two tile extent up to 1048576, not 18446744073709551680 : i128}}
func.func @config_tile_n_wide() attributes {tile.kernel, tile.config = {tile_n = 18446744073709551680 : i128}} {
  return
}

// -----

// expected-error @+1 {{'tile.config': 'num_stages' must be a positive integer up to 8, not -3 : i64}}
func.func @config_num_stages_negative() attributes {tile.kernel, tile.config = {num_stages = -3 : i64}} {
  return
}

// -----

// expected-error @+1 {{hint 'warp_specialize' must be 0 or 1, not 512 : i64}}
func.func @hint_warp_specialize_512() attributes {tile.kernel, tile.hints = {warp_specialize = 512 : i64}} {
  return
}

// -----

// expected-error @+1 {{'tile.config': 'warp_specialize' must be 0 or 1, not 512 : i64}}
func.func @config_warp_specialize_512() attributes {tile.kernel, tile.config = {warp_specialize = 512 : i64}} {
  return
}

// -----

// expected-error @+1 {{'tile.tune': 'warp_specialize' values must be 0 or 1, not 512}}
func.func @tune_warp_specialize_512() attributes {tile.kernel, tile.tune = {warp_specialize = array<i64: 0, 512>}} {
  return
}

// -----

// expected-error @+1 {{'tile.config': 'num_stages' must be an integer, not "four"}}
func.func @config_not_integer() attributes {tile.kernel, tile.config = {num_stages = "four"}} {
  return
}

// -----

// expected-error @+1 {{'tile.config': 'num_stages' must be a positive integer up to 8, not 0 : i64}}
func.func @config_num_stages_low() attributes {tile.kernel, tile.config = {num_stages = 0 : i64}} {
  return
}

// -----

// expected-error @+1 {{'tile.config': 'num_stages' must be a positive integer up to 8, not 9 : i64}}
func.func @config_num_stages_high() attributes {tile.kernel, tile.config = {num_stages = 9 : i64}} {
  return
}

// -----

// expected-error @+1 {{'tile.config': 'occupancy' must be a positive integer up to 32, not 0 : i64}}
func.func @config_occupancy_low() attributes {tile.kernel, tile.config = {occupancy = 0 : i64}} {
  return
}

// -----

// expected-error @+1 {{'tile.config': 'occupancy' must be a positive integer up to 32, not 33 : i64}}
func.func @config_occupancy_high() attributes {tile.kernel, tile.config = {occupancy = 33 : i64}} {
  return
}

// -----

// expected-error @+1 {{'tile.config': 'num_ctas' must be a positive integer up to 8, not 0 : i64}}
func.func @config_num_ctas_low() attributes {tile.kernel, tile.config = {num_ctas = 0 : i64}} {
  return
}

// -----

// expected-error @+1 {{'tile.config': 'num_ctas' must be a positive integer up to 8, not 9 : i64}}
func.func @config_num_ctas_high() attributes {tile.kernel, tile.config = {num_ctas = 9 : i64}} {
  return
}

// -----

// expected-error @+1 {{'tile.config': 'warp_specialize' must be 0 or 1, not -1 : i64}}
func.func @config_warp_specialize_low() attributes {tile.kernel, tile.config = {warp_specialize = -1 : i64}} {
  return
}

// -----

// expected-error @+1 {{'tile.config': 'warp_specialize' must be 0 or 1, not 2 : i64}}
func.func @config_warp_specialize_high() attributes {tile.kernel, tile.config = {warp_specialize = 2 : i64}} {
  return
}

// -----

// expected-error @+1 {{'tile.config': 'persistent' must be 0 or 1, not -1 : i64}}
func.func @config_persistent_low() attributes {tile.kernel, tile.config = {persistent = -1 : i64}} {
  return
}

// -----

// expected-error @+1 {{'tile.config': 'persistent' must be 0 or 1, not 2 : i64}}
func.func @config_persistent_high() attributes {tile.kernel, tile.config = {persistent = 2 : i64}} {
  return
}

// -----

// expected-error @+1 {{'tile.config': 'split_k' must be a positive integer up to 8, not 0 : i64}}
func.func @config_split_k_low() attributes {tile.kernel, tile.config = {split_k = 0 : i64}} {
  return
}

// -----

// expected-error @+1 {{'tile.config': 'split_k' must be a positive integer up to 8, not 9 : i64}}
func.func @config_split_k_high() attributes {tile.kernel, tile.config = {split_k = 9 : i64}} {
  return
}

// -----

// expected-error @+1 {{'tile.config': 'pingpong' must be 0 or 1, not -1 : i64}}
func.func @config_pingpong_low() attributes {tile.kernel, tile.config = {pingpong = -1 : i64}} {
  return
}

// -----

// expected-error @+1 {{'tile.config': 'pingpong' must be 0 or 1, not 2 : i64}}
func.func @config_pingpong_high() attributes {tile.kernel, tile.config = {pingpong = 2 : i64}} {
  return
}

// -----

// The attributes the passes write, as they write them.
func.func @variant(%A: memref<?x?xf16>, %d: !llvm.ptr {tile.tma = {arg = 0 : i64, box = array<i64: 64, 256>, swizzle = 128 : i64}}, %grid: index)
    attributes {tile.kernel, tile.variant_of = @k, tile.block_size = 1024 : i64, tile.shared_memory = 0 : i64,
                tile.persistent, tile.cluster = 8 : i64, tile.sliced} {
  %c0 = arith.constant 0 : index
  %x = arith.constant 0.0 : f16
  memref.store %x, %A[%c0, %c0] : memref<?x?xf16>
  return
}
// A store's descriptor, which the variant can run without.
func.func @variant_optional(%C: memref<?x?xf16>, %d: !llvm.ptr {tile.tma = {arg = 0 : i64, box = array<i64: 128, 64>, optional, swizzle = 128 : i64}})
    attributes {tile.kernel, tile.variant_of = @k} {
  return
}
func.func @variant_least(%A: memref<?xf32>) attributes {tile.kernel, tile.block_size = 1 : i64, tile.cluster = 2 : i64} {
  return
}

// -----

// expected-error @+1 {{'tile.block_size' must be an integer from 1 to 1024}}
func.func @block_size_0(%A: memref<?xf32>, %grid: index) attributes {tile.kernel, tile.block_size = 0 : i64} {
  return
}

// -----

// expected-error @+1 {{'tile.block_size' must be an integer from 1 to 1024}}
func.func @block_size_1025(%A: memref<?xf32>, %grid: index) attributes {tile.kernel, tile.block_size = 1025 : i64} {
  return
}

// -----

// The matcher's attributes, gone with it (tile-split-k writes tile.cluster,
// tile.sliced and tile.cluster_sum).
// expected-error @+1 {{unknown tile attribute 'tile.split_k'}}
func.func @split_k_2(%A: memref<?xf32>, %grid: index) attributes {tile.kernel, tile.split_k = 2 : i64} {
  return
}

// -----

// expected-error @+1 {{'tile.shared_memory' must be a non-negative integer}}
func.func @shared_memory_1(%A: memref<?xf32>, %grid: index) attributes {tile.kernel, tile.shared_memory = -1 : i64} {
  return
}

// -----

// expected-error @+1 {{'tile.variant_of' must be a symbol reference}}
func.func @variant_of_k(%A: memref<?xf32>, %grid: index) attributes {tile.kernel, tile.variant_of = "k"} {
  return
}

// -----

// expected-error @+1 {{'tile.persistent' is a unit attribute of a kernel whose last argument is an index}}
func.func @persistent_1(%A: memref<?xf32>, %grid: index) attributes {tile.kernel, tile.persistent = 1 : i64} {
  return
}

// -----

// expected-error @+1 {{'tile.persistent' is a unit attribute of a kernel whose last argument is an index}}
func.func @persistent_f32_last(%A: memref<?xf32>, %x: f32) attributes {tile.kernel, tile.persistent} {
  return
}

// -----

func.func @distributed(%A: memref<?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %x = arith.constant 0.0 : f32
  // expected-error @+1 {{unknown tile attribute 'tile.distributed'}}
  memref.store %x, %A[%c0] {tile.distributed} : memref<?xf32>
  return
}

// -----

// expected-error @+1 {{'tile.tma' box must have one extent from 1 to 256 per dim of argument #0}}
func.func @tma_box_257(%A: memref<?x?xf16>, %d: !llvm.ptr {tile.tma = {arg = 0 : i64, box = array<i64: 64, 257>, swizzle = 128 : i64}}) {
  return
}

// -----

// expected-error @+1 {{'tile.tma' swizzle must be 0, 32, 64 or 128}}
func.func @tma_swizzle_256(%A: memref<?x?xf16>, %d: !llvm.ptr {tile.tma = {arg = 0 : i64, box = array<i64: 64, 64>, swizzle = 256 : i64}}) {
  return
}

// -----

// expected-error @+1 {{'tile.tma' must be {arg = N : i64, box = array<i64: ...>, swizzle = N : i64}}}
func.func @tma_extra_key(%A: memref<?x?xf16>, %d: !llvm.ptr {tile.tma = {arg = 0 : i64, box = array<i64: 64, 64>, swizzle = 128 : i64, mode = 1 : i64}}) {
  return
}

// -----

// `optional` is a unit attribute.
// expected-error @+1 {{'tile.tma' must be {arg = N : i64, box = array<i64: ...>, swizzle = N : i64} with an optional unit 'optional'}}
func.func @tma_optional_value(%A: memref<?x?xf16>, %d: !llvm.ptr {tile.tma = {arg = 0 : i64, box = array<i64: 64, 64>, optional = 1 : i64, swizzle = 128 : i64}}) {
  return
}

// -----

// tile.wide_of and tile.retiled (tile-widen-blocks): a symbol and seven
// integers.
func.func @retiled() attributes {tile.kernel, tile.wide_of = @k, tile.retiled = array<i64: 2, 0, 1, 128, 128, 128, 256>} {
  return
}

// -----

// An eighth integer, 1: a narrow instance of a kernel that walks its tiles.
func.func @retiled_walk() attributes {tile.kernel, tile.wide_of = @k, tile.retiled = array<i64: 2, 0, 1, 128, 128, 64, 64, 1>} {
  return
}

// -----

// expected-error @+1 {{'tile.retiled' is an array<i64: arg, row_dim, column_dim, program_rows, program_columns, rows, columns[, 1 for a walk]> (dims distinct and >= 0, sizes >= 1) on a function}}
func.func @retiled_walk_flag() attributes {tile.kernel, tile.retiled = array<i64: 2, 0, 1, 128, 128, 64, 64, 2>} {
  return
}

// -----

// expected-error @+1 {{'tile.retiled' is an array<i64: arg, row_dim, column_dim, program_rows, program_columns, rows, columns[, 1 for a walk]> (dims distinct and >= 0, sizes >= 1) on a function}}
func.func @retiled_short() attributes {tile.kernel, tile.retiled = array<i64: 2, 0, 1, 128, 128, 128>} {
  return
}

// -----

// expected-error @+1 {{'tile.retiled' is an array<i64: arg, row_dim, column_dim, program_rows, program_columns, rows, columns[, 1 for a walk]> (dims distinct and >= 0, sizes >= 1) on a function}}
func.func @retiled_same_dims() attributes {tile.kernel, tile.retiled = array<i64: 2, 1, 1, 128, 128, 128, 256>} {
  return
}

// -----

// expected-error @+1 {{'tile.wide_of' is a symbol reference on a function}}
func.func @wide_of_string() attributes {tile.kernel, tile.wide_of = "k"} {
  return
}

// -----

// The block order tile-group-blocks marks, and a variant that may run a
// slice of its grid (tile-split-last-wave), as they write them.
func.func @grouped(%A: memref<?xf32>) attributes {tile.kernel, tile.grouped = 8 : i64} {
  return
}
func.func @grouped__tma(%A: memref<?xf32>, %first: index, %grid: index)
    attributes {tile.kernel, tile.grouped = 8 : i64, tile.grid_slice = 8 : i64, tile.variant_of = @grouped} {
  return
}

// -----

// expected-error @+1 {{'tile.grouped' is a non-negative integer on a kernel}}
func.func @grouped_negative(%A: memref<?xf32>) attributes {tile.kernel, tile.grouped = -1 : i64} {
  return
}

// -----

// expected-error @+1 {{'tile.grid_slice' is a positive integer on a kernel whose last two arguments are indexes}}
func.func @slice_one_index(%A: memref<?xf32>, %grid: index) attributes {tile.kernel, tile.grid_slice = 1 : i64} {
  return
}

// -----

// expected-error @+1 {{'tile.grid_slice' is a positive integer on a kernel whose last two arguments are indexes}}
func.func @slice_zero(%A: memref<?xf32>, %first: index, %grid: index) attributes {tile.kernel, tile.grid_slice = 0 : i64} {
  return
}

// -----

// expected-error @+1 {{'tile.grid_slice' is a positive integer on a kernel whose last two arguments are indexes}}
func.func @slice_f32(%A: memref<?xf32>, %first: index, %x: f32) attributes {tile.kernel, tile.grid_slice = 1 : i64} {
  return
}

// -----

// expected-error @+1 {{'tile.grid_slice' is a positive integer on a kernel whose last two arguments are indexes}}
func.func @slice_text(%A: memref<?xf32>, %first: index, %grid: index) attributes {tile.kernel, tile.grid_slice = "8"} {
  return
}

// -----

// expected-error @+1 {{'tile.grid_slice' is not for a kernel with 'tile.persistent'}}
func.func @slice_persistent(%A: memref<?xf32>, %first: index, %grid: index) attributes {tile.kernel, tile.persistent, tile.grid_slice = 1 : i64} {
  return
}

// -----

func.func @slice_on_an_op(%A: memref<?xf32>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.grid_slice' is a positive integer on a kernel whose last two arguments are indexes}}
  %c0 = arith.constant {tile.grid_slice = 1 : i64} 0 : index
  return
}

// -----

func.func @grouped_on_an_op(%A: memref<?xf32>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.grouped' is a non-negative integer on a kernel}}
  %c0 = arith.constant {tile.grouped = 8 : i64} 0 : index
  return
}

// -----

// expected-error @+1 {{'tile.grouped' is a non-negative integer on a kernel}}
func.func @grouped_text(%A: memref<?xf32>) attributes {tile.kernel, tile.grouped = "8"} {
  return
}
