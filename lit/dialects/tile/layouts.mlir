// The tile layouts as tensor encodings: each attribute prints as it parses
// (a second round trip gives the same text), and tile ops accept operands
// and results that carry them, in equal or different layouts.
// RUN: tile-opt %s -split-input-file | FileCheck %s
// RUN: tile-opt %s -split-input-file | tile-opt -split-input-file | FileCheck %s

#blocked = #tile.blocked<size_per_thread = [1, 8], threads_per_warp = [1, 32], warps_per_block = [1, 4], order = [1, 0]>

// CHECK-LABEL: func.func @load_add_store
// CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}] : !tile.partition_view<1x1024xf16> -> tensor<1x1024xf16, #tile.blocked<size_per_thread = [1, 8], threads_per_warp = [1, 32], warps_per_block = [1, 4], order = [1, 0]>>
// CHECK: arith.addf %{{.*}}, %{{.*}} : tensor<1x1024xf16, #tile.blocked<size_per_thread = [1, 8], threads_per_warp = [1, 32], warps_per_block = [1, 4], order = [1, 0]>>
// CHECK: tile.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : tensor<1x1024xf16, #tile.blocked<size_per_thread = [1, 8], threads_per_warp = [1, 32], warps_per_block = [1, 4], order = [1, 0]>> -> !tile.partition_view<1x1024xf16>
func.func @load_add_store(%X: memref<?x1024xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %v = tile.partition_view %X : memref<?x1024xf16> -> !tile.partition_view<1x1024xf16>
  %t = tile.load %v[%c0, %c0] : !tile.partition_view<1x1024xf16> -> tensor<1x1024xf16, #blocked>
  %s = arith.addf %t, %t : tensor<1x1024xf16, #blocked>
  tile.store %s, %v[%c0, %c0] : tensor<1x1024xf16, #blocked> -> !tile.partition_view<1x1024xf16>
  return
}

// -----

#blocked = #tile.blocked<size_per_thread = [1, 8], threads_per_warp = [1, 32], warps_per_block = [1, 4], order = [1, 0]>
#blocked3 = #tile.blocked<size_per_thread = [1, 1, 4], threads_per_warp = [2, 2, 8], warps_per_block = [2, 1, 1], order = [2, 1, 0]>

// A reduction's result in the slice of its input's layout, a reduction of
// that (a slice of a slice), and the shape ops between layouts.
// CHECK-LABEL: func.func @slices
// CHECK: tile.reduce max %{{.*}} dim 1 : tensor<4x1024xf32, #tile.blocked<size_per_thread = [1, 8], threads_per_warp = [1, 32], warps_per_block = [1, 4], order = [1, 0]>> -> tensor<4xf32, #tile.slice<dim = 1, parent = #tile.blocked<size_per_thread = [1, 8], threads_per_warp = [1, 32], warps_per_block = [1, 4], order = [1, 0]>>>
// CHECK: tile.reshape %{{.*}} : tensor<4xf32, #tile.slice<dim = 1, parent = #tile.blocked<{{.*}}>>> -> tensor<4x1xf32, #tile.blocked<{{.*}}>>
// CHECK: tile.broadcast %{{.*}} : tensor<4x1xf32, #tile.blocked<{{.*}}>> -> tensor<4x1024xf32, #tile.blocked<{{.*}}>>
// CHECK: tile.reduce add %{{.*}} dim 2 : tensor<2x4x32xi32, #tile.blocked<size_per_thread = [1, 1, 4], threads_per_warp = [2, 2, 8], warps_per_block = [2, 1, 1], order = [2, 1, 0]>> -> tensor<2x4xi32, #tile.slice<dim = 2, parent = #tile.blocked<{{.*}}>>>
// CHECK: tile.reduce add %{{.*}} dim 0 : tensor<2x4xi32, #tile.slice<dim = 2, parent = #tile.blocked<{{.*}}>>> -> tensor<4xi32, #tile.slice<dim = 0, parent = #tile.slice<dim = 2, parent = #tile.blocked<size_per_thread = [1, 1, 4], threads_per_warp = [2, 2, 8], warps_per_block = [2, 1, 1], order = [2, 1, 0]>>>>
func.func @slices(%t: tensor<4x1024xf32, #blocked>, %u: tensor<2x4x32xi32, #blocked3>) {
  %m = tile.reduce max %t dim 1 : tensor<4x1024xf32, #blocked> -> tensor<4xf32, #tile.slice<dim = 1, parent = #blocked>>
  %r = tile.reshape %m : tensor<4xf32, #tile.slice<dim = 1, parent = #blocked>> -> tensor<4x1xf32, #blocked>
  %b = tile.broadcast %r : tensor<4x1xf32, #blocked> -> tensor<4x1024xf32, #blocked>
  %s = tile.reduce add %u dim 2 : tensor<2x4x32xi32, #blocked3> -> tensor<2x4xi32, #tile.slice<dim = 2, parent = #blocked3>>
  %s2 = tile.reduce add %s dim 0 : tensor<2x4xi32, #tile.slice<dim = 2, parent = #blocked3>> -> tensor<4xi32, #tile.slice<dim = 0, parent = #tile.slice<dim = 2, parent = #blocked3>>>
  return
}

// -----

// Linear layouts, with empty register and warp lists too; tile ops between
// a linear layout, a blocked one and no layout at all.
// CHECK-LABEL: func.func @linear
// CHECK: tile.permute %{{.*}} [1, 0] : tensor<4x64xf32, #tile.linear<register = {{\[\[}}0, 1], [0, 2]], lane = {{\[\[}}0, 4], [0, 8], [0, 16], [1, 0], [2, 0]], warp = {{\[\[}}0, 32], [0, 0]]>> -> tensor<64x4xf32>
// CHECK: tile.splat %{{.*}} : f32 -> tensor<4x8xf32, #tile.linear<register = [], lane = {{\[\[}}0, 1], [0, 2], [0, 4], [1, 0], [2, 0]], warp = []>>
// CHECK: tile.iota : tensor<32xi32, #tile.linear<register = [], lane = {{\[\[}}1], [2], [4], [8], [16]], warp = []>>
// CHECK: tile.convert_layout %{{.*}} : tensor<4x8xf32, #tile.linear<{{.*}}>> -> tensor<4x8xf32, #tile.blocked<size_per_thread = [1, 1], threads_per_warp = [4, 8], warps_per_block = [1, 1], order = [1, 0]>>
func.func @linear(%t: tensor<4x64xf32, #tile.linear<register = [[0, 1], [0, 2]], lane = [[0, 4], [0, 8], [0, 16], [1, 0], [2, 0]], warp = [[0, 32], [0, 0]]>>, %x: f32) {
  %p = tile.permute %t [1, 0] : tensor<4x64xf32, #tile.linear<register = [[0, 1], [0, 2]], lane = [[0, 4], [0, 8], [0, 16], [1, 0], [2, 0]], warp = [[0, 32], [0, 0]]>> -> tensor<64x4xf32>
  %s = tile.splat %x : f32 -> tensor<4x8xf32, #tile.linear<register = [], lane = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0]], warp = []>>
  %i = tile.iota : tensor<32xi32, #tile.linear<register = [], lane = [[1], [2], [4], [8], [16]], warp = []>>
  %c = tile.convert_layout %s : tensor<4x8xf32, #tile.linear<register = [], lane = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0]], warp = []>> -> tensor<4x8xf32, #tile.blocked<size_per_thread = [1, 1], threads_per_warp = [4, 8], warps_per_block = [1, 1], order = [1, 0]>>
  return
}

// -----

#acc = #tile.wgmma<warps_per_block = [4, 1], instr_n = 128>

// The tensor-core layouts: the wgmma accumulator, an A operand in registers,
// B in swizzled shared memory.
// CHECK-LABEL: func.func @wgmma
// CHECK-SAME: tensor<128x256xf32, #tile.wgmma<warps_per_block = [2, 4], instr_n = 256>>
// CHECK-SAME: tensor<64x32xf8E4M3FN, #tile.wgmma_operand<index = 0, parent = #tile.wgmma<warps_per_block = [8, 1], instr_n = 8>, k_width = 8>>
// CHECK-SAME: tensor<64x64xf32, #tile.shared<swizzle_bytes = 32, element_bits = 32, transposed = false>>
// CHECK: tile.mma %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x16xf16, #tile.wgmma_operand<index = 0, parent = #tile.wgmma<warps_per_block = [4, 1], instr_n = 128>, k_width = 2>>, tensor<16x128xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = true>> into tensor<64x128xf32, #tile.wgmma<warps_per_block = [4, 1], instr_n = 128>>
// CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}] : !tile.partition_view<64x64xbf16> -> tensor<64x64xbf16, #tile.shared<swizzle_bytes = 0, element_bits = 16, transposed = false>>
func.func @wgmma(%a: tensor<64x16xf16, #tile.wgmma_operand<index = 0, parent = #acc, k_width = 2>>,
                 %b: tensor<16x128xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = true>>,
                 %c: tensor<64x128xf32, #acc>, %v: !tile.partition_view<64x64xbf16>,
                 %big: tensor<128x256xf32, #tile.wgmma<warps_per_block = [2, 4], instr_n = 256>>,
                 %f8: tensor<64x32xf8E4M3FN, #tile.wgmma_operand<index = 0, parent = #tile.wgmma<warps_per_block = [8, 1], instr_n = 8>, k_width = 8>>,
                 %s32: tensor<64x64xf32, #tile.shared<swizzle_bytes = 32, element_bits = 32, transposed = false>>) {
  %d = tile.mma %a, %b, %c : tensor<64x16xf16, #tile.wgmma_operand<index = 0, parent = #acc, k_width = 2>>, tensor<16x128xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = true>> into tensor<64x128xf32, #acc>
  %c0 = arith.constant 0 : index
  %l = tile.load %v[%c0, %c0] : !tile.partition_view<64x64xbf16> -> tensor<64x64xbf16, #tile.shared<swizzle_bytes = 0, element_bits = 16, transposed = false>>
  return
}
