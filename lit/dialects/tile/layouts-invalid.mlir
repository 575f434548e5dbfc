// Every rule of the tile layouts (td/Tile.td, cpp/Layouts.cpp), each with its
// located error, and the tile rule on tensor encodings.
// RUN: tile-opt %s -split-input-file -verify-diagnostics

// blocked: rank 1 to 3
// expected-error @+1 {{size_per_thread has 0 entries; blocked layouts have rank 1 to 3}}
func.func @f(%t: tensor<4xf32, #tile.blocked<size_per_thread = [], threads_per_warp = [], warps_per_block = [], order = []>>) {
  return
}

// -----

// expected-error @+1 {{size_per_thread has 4 entries; blocked layouts have rank 1 to 3}}
func.func @f(%t: tensor<2x2x2x2xf32, #tile.blocked<size_per_thread = [1, 1, 1, 1], threads_per_warp = [1, 1, 1, 32], warps_per_block = [1, 1, 1, 1], order = [3, 2, 1, 0]>>) {
  return
}

// -----

// blocked: one entry per dim in every list
// expected-error @+1 {{warps_per_block has 1 entries but size_per_thread has 2; the lists have one entry per dim}}
func.func @f(%t: tensor<4x1024xf32, #tile.blocked<size_per_thread = [1, 8], threads_per_warp = [1, 32], warps_per_block = [4], order = [1, 0]>>) {
  return
}

// -----

// blocked: powers of two
// expected-error @+1 {{size_per_thread[1] is 3, which is not a power of two}}
func.func @f(%t: tensor<4x1024xf32, #tile.blocked<size_per_thread = [1, 3], threads_per_warp = [1, 32], warps_per_block = [1, 4], order = [1, 0]>>) {
  return
}

// -----

// expected-error @+1 {{warps_per_block[0] is 0, which is not a power of two}}
func.func @f(%t: tensor<4x1024xf32, #tile.blocked<size_per_thread = [1, 8], threads_per_warp = [1, 32], warps_per_block = [0, 4], order = [1, 0]>>) {
  return
}

// -----

// blocked: a warp has 32 threads
// expected-error @+1 {{threads_per_warp multiplies to 64; a warp has 32 threads}}
func.func @f(%t: tensor<4x1024xf32, #tile.blocked<size_per_thread = [1, 8], threads_per_warp = [2, 32], warps_per_block = [1, 4], order = [1, 0]>>) {
  return
}

// -----

// blocked: at most 256 warps (a cluster of 8 blocks)
// expected-error @+1 {{warps_per_block multiplies to 512; a tile block has at most 256 warps (a cluster of 8 blocks of 32)}}
func.func @f(%t: tensor<4x1024xf32, #tile.blocked<size_per_thread = [1, 8], threads_per_warp = [1, 32], warps_per_block = [4, 128], order = [1, 0]>>) {
  return
}

// -----

// blocked: order is a permutation
// expected-error @+1 {{order [1, 1] is not a permutation of 0 .. 1}}
func.func @f(%t: tensor<4x1024xf32, #tile.blocked<size_per_thread = [1, 8], threads_per_warp = [1, 32], warps_per_block = [1, 4], order = [1, 1]>>) {
  return
}

// -----

// expected-error @+1 {{order [0, 2] is not a permutation of 0 .. 1}}
func.func @f(%t: tensor<4x1024xf32, #tile.blocked<size_per_thread = [1, 8], threads_per_warp = [1, 32], warps_per_block = [1, 4], order = [0, 2]>>) {
  return
}

// -----

// slice: the parent is a register layout
// expected-error @+1 {{parent #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false> is not a tile register layout (blocked, slice, linear, wgmma or wgmma_operand)}}
func.func @f(%t: tensor<64xf16, #tile.slice<dim = 0, parent = #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>>>) {
  return
}

// -----

// expected-error @+1 {{parent "foo" is not a tile register layout}}
func.func @f(%t: tensor<64xf16, #tile.slice<dim = 0, parent = "foo">>) {
  return
}

// -----

// slice: a slice of a rank-1 layout would have rank 0
// expected-error @+1 {{parent has rank 1, so the slice would have rank 0; tiles have rank 1 to 3}}
func.func @f(%t: tensor<4xf32, #tile.slice<dim = 0, parent = #tile.blocked<size_per_thread = [4], threads_per_warp = [32], warps_per_block = [4], order = [0]>>>) {
  return
}

// -----

// slice: dim within the parent's rank
// expected-error @+1 {{dim 2 is out of range for a parent of rank 2}}
func.func @f(%t: tensor<4xf32, #tile.slice<dim = 2, parent = #tile.blocked<size_per_thread = [1, 8], threads_per_warp = [1, 32], warps_per_block = [1, 4], order = [1, 0]>>>) {
  return
}

// -----

// expected-error @+1 {{dim -1 is out of range for a parent of rank 2}}
func.func @f(%t: tensor<4xf32, #tile.slice<dim = -1, parent = #tile.blocked<size_per_thread = [1, 8], threads_per_warp = [1, 32], warps_per_block = [1, 4], order = [1, 0]>>>) {
  return
}

// -----

// linear: every basis has one entry per dim
// expected-error @+1 {{basis has 1 entries but the first has 2; every basis has one entry per dim}}
func.func @f(%t: tensor<4x64xf32, #tile.linear<register = [[0, 1]], lane = [[0, 4], [8], [0, 16], [1, 0], [2, 0]], warp = []>>) {
  return
}

// -----

// linear: a rank, from the bases
// expected-error @+1 {{a linear layout needs exactly 5 lane bases of 1 to 3 entries each; these bases have no entries}}
func.func @f(%t: tensor<4xf32, #tile.linear<register = [], lane = [], warp = []>>) {
  return
}

// -----

// linear: rank 1 to 3
// expected-error @+1 {{bases have 4 entries; linear layouts have rank 1 to 3}}
func.func @f(%t: tensor<2x2x2x2xf32, #tile.linear<register = [], lane = [[0, 0, 0, 1], [0, 0, 1, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0]], warp = []>>) {
  return
}

// -----

// linear: exactly 5 lane bases
// expected-error @+1 {{lane has 4 bases; a warp's 32 lanes take exactly 5}}
func.func @f(%t: tensor<4x64xf32, #tile.linear<register = [], lane = [[0, 4], [0, 8], [0, 16], [1, 0]], warp = []>>) {
  return
}

// -----

// linear: at most 8 warp bases
// expected-error @+1 {{warp has 9 bases; a tile block has at most 256 warps (8 bases)}}
func.func @f(%t: tensor<4x64xf32, #tile.linear<register = [], lane = [[0, 4], [0, 8], [0, 16], [1, 0], [2, 0]], warp = [[0, 0], [0, 0], [0, 0], [0, 0], [0, 0], [0, 0], [0, 0], [0, 0], [0, 0]]>>) {
  return
}

// -----

// linear: at most 20 register bases
// expected-error @+1 {{register has 21 bases; at most 20 (2^20 elements, the largest tile)}}
func.func @f(%t: tensor<1024xf32, #tile.linear<register = [[1], [1], [1], [1], [1], [1], [1], [1], [1], [1], [1], [1], [1], [1], [1], [1], [1], [1], [1], [1], [1]], lane = [[1], [2], [4], [8], [16]], warp = []>>) {
  return
}

// -----

// linear: entries >= 0
// expected-error @+1 {{lane basis 3 has entry -1; basis entries are >= 0}}
func.func @f(%t: tensor<4x64xf32, #tile.linear<register = [], lane = [[0, 4], [0, 8], [0, 16], [-1, 0], [2, 0]], warp = []>>) {
  return
}

// -----

// wgmma: rank 2
// expected-error @+1 {{warps_per_block has 1 entries; wgmma layouts have rank 2}}
func.func @f(%t: tensor<64x128xf32, #tile.wgmma<warps_per_block = [4], instr_n = 128>>) {
  return
}

// -----

// wgmma: powers of two
// expected-error @+1 {{warps_per_block[1] is 3, which is not a power of two}}
func.func @f(%t: tensor<64x128xf32, #tile.wgmma<warps_per_block = [4, 3], instr_n = 128>>) {
  return
}

// -----

// wgmma: whole warpgroups
// expected-error @+1 {{warps_per_block multiplies to 2; a wgmma layout takes whole warpgroups (a multiple of 4 warps), at most 32 warps}}
func.func @f(%t: tensor<64x128xf32, #tile.wgmma<warps_per_block = [2, 1], instr_n = 128>>) {
  return
}

// -----

// wgmma: at most 32 warps
// expected-error @+1 {{warps_per_block multiplies to 64; a wgmma layout takes whole warpgroups (a multiple of 4 warps), at most 32 warps}}
func.func @f(%t: tensor<64x128xf32, #tile.wgmma<warps_per_block = [16, 4], instr_n = 128>>) {
  return
}

// -----

// wgmma: instr_n a multiple of 8 from 8 to 256
// expected-error @+1 {{instr_n is 100; wgmma's N is a multiple of 8 from 8 to 256}}
func.func @f(%t: tensor<64x128xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 100>>) {
  return
}

// -----

// expected-error @+1 {{instr_n is 264; wgmma's N is a multiple of 8 from 8 to 256}}
func.func @f(%t: tensor<64x128xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 264>>) {
  return
}

// -----

// wgmma_operand: only A comes from registers
// expected-error @+1 {{index is 1; wgmma takes only its A operand (index 0) from registers}}
func.func @f(%t: tensor<64x16xf16, #tile.wgmma_operand<index = 1, parent = #tile.wgmma<warps_per_block = [4, 1], instr_n = 128>, k_width = 2>>) {
  return
}

// -----

// wgmma_operand: the parent is a wgmma layout
// expected-error @+1 {{is not a #tile.wgmma layout}}
func.func @f(%t: tensor<64x16xf16, #tile.wgmma_operand<index = 0, parent = #tile.blocked<size_per_thread = [1, 8], threads_per_warp = [1, 32], warps_per_block = [1, 4], order = [1, 0]>, k_width = 2>>) {
  return
}

// -----

// wgmma_operand: k_width 1, 2, 4 or 8
// expected-error @+1 {{k_width is 3; expected 1, 2, 4 or 8}}
func.func @f(%t: tensor<64x16xf16, #tile.wgmma_operand<index = 0, parent = #tile.wgmma<warps_per_block = [4, 1], instr_n = 128>, k_width = 3>>) {
  return
}

// -----

// shared: swizzle_bytes
// expected-error @+1 {{swizzle_bytes is 16; expected 0, 32, 64 or 128}}
func.func @f(%t: tensor<64x64xf16, #tile.shared<swizzle_bytes = 16, element_bits = 16, transposed = false>>) {
  return
}

// -----

// shared: element_bits
// expected-error @+1 {{element_bits is 64; expected 8, 16 or 32}}
func.func @f(%t: tensor<64x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 64, transposed = false>>) {
  return
}

// -----

// shared: transposed is true or false
// expected-error @+1 {{expected 'true' or 'false'}}
func.func @f(%t: tensor<64x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = 1>>) {
  return
}

// -----

// A register layout's rank is its tensor's
// expected-error @+1 {{tensor of rank 1 has a layout of rank 2: #tile.blocked<size_per_thread = [1, 8], threads_per_warp = [1, 32], warps_per_block = [1, 4], order = [1, 0]>}}
func.func @f(%t: tensor<4xf32, #tile.blocked<size_per_thread = [1, 8], threads_per_warp = [1, 32], warps_per_block = [1, 4], order = [1, 0]>>) {
  return
}

// -----

// tile ops take tensors whose encoding, if any, is a tile layout
func.func @foreign_encoding(%t: tensor<4xf32, "foo">) {
  // expected-error @+1 {{'tile.reshape' op operand #0 has encoding "foo"; a tile's encoding is a tile layout (#tile.blocked, #tile.slice, #tile.linear, #tile.wgmma, #tile.wgmma_operand or #tile.shared)}}
  %0 = tile.reshape %t : tensor<4xf32, "foo"> -> tensor<4x1xf32>
  return
}

// -----

func.func @foreign_result(%s: f32) {
  // expected-error @+1 {{'tile.splat' op result has encoding 42 : i64; a tile's encoding is a tile layout}}
  %0 = tile.splat %s : f32 -> tensor<4xf32, 42>
  return
}
