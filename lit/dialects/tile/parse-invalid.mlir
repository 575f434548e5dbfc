// Malformed tile syntax: every case is a located error, never a crash.
// RUN: tile-opt %s -split-input-file -verify-diagnostics

func.func @unknown_padding(%A: memref<?xf32>) {
  // expected-error @+1 {{unknown padding 'minus_inf'; expected zero, neg_inf, pos_inf or nan}}
  %v = tile.partition_view %A : memref<?xf32> -> !tile.partition_view<16xf32, padding = minus_inf>
  return
}

// -----

func.func @dynamic_view(%A: memref<?xf32>) {
  // expected-error @+1 {{expected static shape}}
  %v = tile.partition_view %A : memref<?xf32> -> !tile.partition_view<?xf32>
  return
}

// -----

func.func @no_element_type(%A: memref<?xf32>) {
  // expected-error @+1 {{expected non-function type}}
  %v = tile.partition_view %A : memref<?xf32> -> !tile.partition_view<16x>
  return
}

// -----

func.func @zero_dim(%A: memref<?xf32>) {
  // expected-error @+1 {{partition view tile dim 0 is 0, which is not a power of two}}
  %v = tile.partition_view %A : memref<?xf32> -> !tile.partition_view<0xf32>
  return
}

// -----

func.func @unclosed(%A: memref<?xf32>) {
  // expected-error @+1 {{unbalanced '<' character in pretty dialect name}}
  %v = tile.partition_view %A : memref<?xf32> -> !tile.partition_view<16xf32, padding = nan
  return
}

// -----

func.func @padding_no_value(%A: memref<?xf32>) {
  // expected-error @+1 {{expected valid keyword}}
  %v = tile.partition_view %A : memref<?xf32> -> !tile.partition_view<16xf32, padding = >
  return
}

// -----

func.func @padding_misspelled(%A: memref<?xf32>) {
  // expected-error @+1 {{expected 'padding'}}
  %v = tile.partition_view %A : memref<?xf32> -> !tile.partition_view<16xf32, pad = nan>
  return
}

// -----

func.func @huge_dim(%A: memref<?xf32>) {
  // expected-error @+1 {{partition view tile dim 0 is 9223372036854775807, which is not a power of two}}
  %v = tile.partition_view %A : memref<?xf32> -> !tile.partition_view<9223372036854775807xf32>
  return
}

// -----

// expected-error @+1 {{unknown  type `unknown_type` in dialect `tile`}}
func.func private @unknown_type() -> !tile.unknown_type

// -----

func.func @unknown_op() {
  // expected-error @+1 {{custom op 'tile.gather' is unknown}}
  %0 = tile.gather : index
  return
}

// -----

func.func @missing_operand(%t: tensor<128x64xf16>) {
  // expected-error @+1 {{expected SSA operand}}
  %d = tile.mma %t, %t, : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
  return
}

// -----

func.func @missing_dim(%t: tensor<4x8xf32>) {
  // expected-error @+1 {{expected 'dim'}}
  %r = tile.reduce add %t : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @permute_not_list(%t: tensor<4x8xf32>) {
  // expected-error @+1 {{expected '['}}
  %r = tile.permute %t : tensor<4x8xf32> -> tensor<8x4xf32>
  return
}

// -----

func.func @negative_dim(%A: memref<?x?xf16>) {
  %v = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  // expected-error @+1 {{'tile.num_tiles' op dim -1 is out of range for a view of rank 2}}
  %n = tile.num_tiles %v dim -1 : !tile.partition_view<128x64xf16>
  return
}

// -----

func.func @generic_form_bad(%A: memref<?x?xf16>) {
  // expected-error @+1 {{'tile.partition_view' op result #0 must be}}
  %v = "tile.partition_view"(%A) : (memref<?x?xf16>) -> tensor<4xf16>
  return
}

// -----

func.func @generic_missing_attr() attributes {tile.kernel} {
  // expected-error @+1 {{'tile.block_id' op requires attribute 'axis'}}
  %0 = "tile.block_id"() : () -> index
  return
}

// -----

func.func @generic_wrong_attr() attributes {tile.kernel} {
  // expected-error @+1 {{'tile.block_id' op attribute 'axis' failed to satisfy constraint}}
  %0 = "tile.block_id"() {axis = 3 : i32} : () -> index
  return
}

// -----

func.func @generic_mma_arity(%t: tensor<16x16xf16>) {
  // expected-error @+1 {{'tile.mma' op expected 3 operands, but found 2}}
  %0 = "tile.mma"(%t, %t) : (tensor<16x16xf16>, tensor<16x16xf16>) -> tensor<16x16xf32>
  return
}
