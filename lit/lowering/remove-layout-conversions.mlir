// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile-remove-layout-conversions)' | FileCheck %s

#a = #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [1, 32], warps_per_block = [2, 1], order = [1, 0]>
#b = #tile.blocked<size_per_thread = [4, 1], threads_per_warp = [32, 1], warps_per_block = [1, 2], order = [0, 1]>

// A conversion to the operand's own layout is the operand; two in a row
// are one, and back to the start is none.
// CHECK-LABEL: func.func @chains
// CHECK-SAME: (%[[X:.*]]: tensor<2x128xf32, #tile.blocked<size_per_thread = [1, 4]
// CHECK-NOT: tile.convert_layout
// CHECK: return %[[X]], %[[X]]
func.func @chains(%x: tensor<2x128xf32, #a>) -> (tensor<2x128xf32, #a>, tensor<2x128xf32, #a>) {
  %same = tile.convert_layout %x : tensor<2x128xf32, #a> -> tensor<2x128xf32, #a>
  %there = tile.convert_layout %x : tensor<2x128xf32, #a> -> tensor<2x128xf32, #b>
  %back = tile.convert_layout %there : tensor<2x128xf32, #b> -> tensor<2x128xf32, #a>
  return %same, %back : tensor<2x128xf32, #a>, tensor<2x128xf32, #a>
}

// -----

#a = #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [1, 32], warps_per_block = [2, 1], order = [1, 0]>
#b = #tile.blocked<size_per_thread = [4, 1], threads_per_warp = [32, 1], warps_per_block = [1, 2], order = [0, 1]>

// Tiles that cost nothing to make are made in the wanted layout.
// CHECK-LABEL: func.func @remat
// CHECK-DAG: tile.splat %{{.*}} : f32 -> tensor<2x128xf32, #tile.blocked<size_per_thread = [4, 1]
// CHECK-DAG: arith.constant dense<1.000000e+00> : tensor<2x128xf32, #tile.blocked<size_per_thread = [4, 1]
// CHECK-DAG: tile.iota : tensor<128xi32, #tile.blocked<size_per_thread = [1]
// CHECK-NOT: tile.convert_layout
func.func @remat(%s: f32) -> (tensor<2x128xf32, #b>, tensor<2x128xf32, #b>, tensor<128xi32, #tile.blocked<size_per_thread = [1], threads_per_warp = [32], warps_per_block = [2], order = [0]>>) {
  %t = tile.splat %s : f32 -> tensor<2x128xf32, #a>
  %c = arith.constant dense<1.0> : tensor<2x128xf32, #a>
  %i = tile.iota : tensor<128xi32, #tile.blocked<size_per_thread = [4], threads_per_warp = [32], warps_per_block = [2], order = [0]>>
  %tb = tile.convert_layout %t : tensor<2x128xf32, #a> -> tensor<2x128xf32, #b>
  %cb = tile.convert_layout %c : tensor<2x128xf32, #a> -> tensor<2x128xf32, #b>
  %ib = tile.convert_layout %i : tensor<128xi32, #tile.blocked<size_per_thread = [4], threads_per_warp = [32], warps_per_block = [2], order = [0]>> -> tensor<128xi32, #tile.blocked<size_per_thread = [1], threads_per_warp = [32], warps_per_block = [2], order = [0]>>
  return %tb, %cb, %ib : tensor<2x128xf32, #b>, tensor<2x128xf32, #b>, tensor<128xi32, #tile.blocked<size_per_thread = [1], threads_per_warp = [32], warps_per_block = [2], order = [0]>>
}

// -----

#a = #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [1, 32], warps_per_block = [2, 1], order = [1, 0]>
#b = #tile.blocked<size_per_thread = [4, 1], threads_per_warp = [32, 1], warps_per_block = [1, 2], order = [0, 1]>

// A conversion of a computed tile stays.
// CHECK-LABEL: func.func @computed
// CHECK: arith.addf
// CHECK: tile.convert_layout
func.func @computed(%x: tensor<2x128xf32, #a>) -> tensor<2x128xf32, #b> {
  %y = arith.addf %x, %x : tensor<2x128xf32, #a>
  %z = tile.convert_layout %y : tensor<2x128xf32, #a> -> tensor<2x128xf32, #b>
  return %z : tensor<2x128xf32, #b>
}
