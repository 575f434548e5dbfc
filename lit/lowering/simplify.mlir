// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile-simplify)' | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-simplify | FileCheck %s

// CHECK-LABEL: func.func @noops
// CHECK-SAME: (%[[T:.*]]: tensor<4x8xf32>, %[[P:.*]]: tensor<64x128xf16>)
// CHECK-NOT: tile.
// CHECK: return %[[T]], %[[T]], %[[P]]
func.func @noops(%t: tensor<4x8xf32>, %p: tensor<64x128xf16>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<64x128xf16>) {
  %0 = tile.reshape %t : tensor<4x8xf32> -> tensor<4x8xf32>
  %1 = tile.broadcast %0 : tensor<4x8xf32> -> tensor<4x8xf32>
  %2 = tile.permute %p [0, 1] : tensor<64x128xf16> -> tensor<64x128xf16>
  return %0, %1, %2 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<64x128xf16>
}

// -----

// CHECK-LABEL: func.func @reshape_chain
// CHECK-SAME: (%[[T:.*]]: tensor<128xf32>)
// CHECK-NEXT: %[[R:.*]] = tile.reshape %[[T]] : tensor<128xf32> -> tensor<1x128xf32>
// CHECK-NEXT: return %[[R]], %[[T]]
func.func @reshape_chain(%t: tensor<128xf32>) -> (tensor<1x128xf32>, tensor<128xf32>) {
  %a = tile.reshape %t : tensor<128xf32> -> tensor<128x1xf32>
  %b = tile.reshape %a : tensor<128x1xf32> -> tensor<1x128xf32>
  %c = tile.reshape %b : tensor<1x128xf32> -> tensor<128xf32>
  return %b, %c : tensor<1x128xf32>, tensor<128xf32>
}

// -----

// Transposing twice is the identity; three rotations of a rank-3 tile too.
// CHECK-LABEL: func.func @permute_chain
// CHECK-SAME: (%[[X:.*]]: tensor<64x128xf16>, %[[Y:.*]]: tensor<2x4x8xf16>)
// CHECK-NEXT: %[[Q:.*]] = tile.permute %[[Y]] [2, 0, 1] : tensor<2x4x8xf16> -> tensor<8x2x4xf16>
// CHECK-NEXT: %[[R:.*]] = tile.permute %[[Y]] [1, 2, 0] : tensor<2x4x8xf16> -> tensor<4x8x2xf16>
// CHECK-NEXT: return %[[X]], %[[Q]], %[[R]], %[[Y]]
func.func @permute_chain(%x: tensor<64x128xf16>, %y: tensor<2x4x8xf16>)
    -> (tensor<64x128xf16>, tensor<8x2x4xf16>, tensor<4x8x2xf16>, tensor<2x4x8xf16>) {
  %c = tile.permute %x [1, 0] : tensor<64x128xf16> -> tensor<128x64xf16>
  %d = tile.permute %c [1, 0] : tensor<128x64xf16> -> tensor<64x128xf16>
  %q = tile.permute %y [2, 0, 1] : tensor<2x4x8xf16> -> tensor<8x2x4xf16>
  %r = tile.permute %q [2, 0, 1] : tensor<8x2x4xf16> -> tensor<4x8x2xf16>
  %s = tile.permute %r [2, 0, 1] : tensor<4x8x2xf16> -> tensor<2x4x8xf16>
  return %d, %q, %r, %s : tensor<64x128xf16>, tensor<8x2x4xf16>, tensor<4x8x2xf16>, tensor<2x4x8xf16>
}

// -----

// CHECK-LABEL: func.func @broadcast_chain
// CHECK-SAME: (%[[T:.*]]: tensor<1x1xf32>)
// CHECK-NEXT: %[[B:.*]] = tile.broadcast %[[T]] : tensor<1x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT: return %[[B]]
func.func @broadcast_chain(%t: tensor<1x1xf32>) -> tensor<4x8xf32> {
  %a = tile.broadcast %t : tensor<1x1xf32> -> tensor<4x1xf32>
  %b = tile.broadcast %a : tensor<4x1xf32> -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}

// -----

// Ops that change something stay.
// CHECK-LABEL: func.func @keeps
// CHECK: tile.reshape
// CHECK: tile.broadcast
// CHECK: tile.permute
func.func @keeps(%t: tensor<128xf32>, %p: tensor<64x128xf16>) -> (tensor<128x256xf32>, tensor<128x64xf16>) {
  %a = tile.reshape %t : tensor<128xf32> -> tensor<128x1xf32>
  %b = tile.broadcast %a : tensor<128x1xf32> -> tensor<128x256xf32>
  %c = tile.permute %p [1, 0] : tensor<64x128xf16> -> tensor<128x64xf16>
  return %b, %c : tensor<128x256xf32>, tensor<128x64xf16>
}
