// RUN: tile-opt %s -split-input-file -verify-diagnostics --convert-tile-to-memref

// expected-error @+1 {{this view is not made by tile.partition_view; the memory lowering cannot see its memref}}
func.func @not_from_partition_view(%v: !tile.partition_view<4xf32>, %i: index) -> tensor<4xf32> {
  // expected-error @+1 {{'tile.load' could not be lowered by convert-tile-to-memref}}
  %t = tile.load %v[%i] : !tile.partition_view<4xf32> -> tensor<4xf32>
  return %t : tensor<4xf32>
}
