// Every verifier rule of the contract, each with its located error.
// RUN: tile-opt %s -split-input-file -verify-diagnostics

// ---- tile dims: static powers of two, rank 1 to 3, at most 2^20 elements
// and 227 KiB (232448 bytes, one Hopper block's shared memory)

func.func @not_pow2(%t: tensor<100x64xf32>) {
  // expected-error @+1 {{'tile.reshape' op operand #0 dim 0 is 100, which is not a power of two}}
  %0 = tile.reshape %t : tensor<100x64xf32> -> tensor<6400xf32>
  return
}

// -----

func.func @rank4(%t: tensor<2x2x2x2xf32>) {
  // expected-error @+1 {{'tile.reshape' op operand #0 has rank 4; tiles have rank 1 to 3}}
  %0 = tile.reshape %t : tensor<2x2x2x2xf32> -> tensor<16xf32>
  return
}

// -----

func.func @rank0(%s: f32) {
  // expected-error @+1 {{'tile.splat' op result has rank 0; tiles have rank 1 to 3}}
  %0 = tile.splat %s : f32 -> tensor<f32>
  return
}

// -----

func.func @too_big(%s: f32) {
  // expected-error @+1 {{'tile.splat' op result has more than 2^20 (1048576) elements}}
  %0 = tile.splat %s : f32 -> tensor<2048x1024xf32>
  return
}

// -----

// 256 KiB: within 2^20 elements, but no GPU block keeps it.
func.func @too_many_bytes(%s: f32) {
  // expected-error @+1 {{'tile.splat' op result takes 262144 bytes; a tile takes at most 232448 (227 KiB, the shared memory of one Hopper block)}}
  %0 = tile.splat %s : f32 -> tensor<256x256xf32>
  return
}

// -----

// An i1 element takes a byte.
func.func @too_many_bytes_i1(%t: tensor<512x512xi1>) {
  // expected-error @+1 {{'tile.permute' op operand #0 takes 262144 bytes; a tile takes at most 232448 (227 KiB, the shared memory of one Hopper block)}}
  %0 = tile.permute %t [1, 0] : tensor<512x512xi1> -> tensor<512x512xi1>
  return
}

// -----

// The largest power-of-two tiles, 128 KiB, are tiles.
func.func @largest(%s: f32, %h: f16, %b: i8) {
  %0 = tile.splat %s : f32 -> tensor<128x256xf32>
  %1 = tile.splat %h : f16 -> tensor<256x256xf16>
  %2 = tile.splat %b : i8 -> tensor<2x256x256xi8>
  return
}

// -----

func.func @dynamic(%t: tensor<?x64xf32>) {
  // expected-error @+1 {{'tile.reshape' op operand #0 must be static ranked tensor (a tile), but got 'tensor<?x64xf32>'}}
  %0 = tile.reshape %t : tensor<?x64xf32> -> tensor<64xf32>
  return
}

// -----

func.func @bad_element(%s: f64) {
  // expected-error @+1 {{'tile.splat' op result has element type 'f64'; tiles hold f16, bf16, f32, f8E4M3FN, f8E5M2, i1, i8, i16, i32 or i64}}
  %0 = tile.splat %s : f64 -> tensor<4xf64>
  return
}

// -----

func.func @view_not_pow2(%A: memref<?x?xf16>) {
  // expected-error @+1 {{partition view tile dim 1 is 48, which is not a power of two}}
  %v = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x48xf16>
  return
}

// -----

func.func @view_rank(%A: memref<?x?x?x?xf16>) {
  // expected-error @+1 {{partition view tile has rank 4; tiles have rank 1 to 3}}
  %v = tile.partition_view %A : memref<?x?x?x?xf16> -> !tile.partition_view<2x2x2x2xf16>
  return
}

// -----

func.func @view_too_big(%A: memref<?x?xf32>) {
  // expected-error @+1 {{partition view tile has more than 2^20 (1048576) elements}}
  %v = tile.partition_view %A : memref<?x?xf32> -> !tile.partition_view<2048x1024xf32>
  return
}

// -----

func.func @view_padding_int(%A: memref<?xi32>) {
  // expected-error @+1 {{padding 'neg_inf' needs a floating-point element type, not 'i32'}}
  %v = tile.partition_view %A : memref<?xi32> -> !tile.partition_view<16xi32, padding = neg_inf>
  return
}

// -----

func.func @view_too_many_bytes(%A: memref<?x?xf16>) {
  // expected-error @+1 {{partition view tile takes 262144 bytes; a tile takes at most 232448 (227 KiB, the shared memory of one Hopper block)}}
  %v = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<512x256xf16>
  return
}

// -----

// f8E4M3FN has NaN but no infinities: the padding must be a value of the
// element type.
func.func @view_padding_f8_neg_inf(%A: memref<?x?xf8E4M3FN>) {
  // expected-error @+1 {{padding 'neg_inf' needs an element type with infinities; 'f8E4M3FN' has none}}
  %v = tile.partition_view %A : memref<?x?xf8E4M3FN> -> !tile.partition_view<64x64xf8E4M3FN, padding = neg_inf>
  return
}

// -----

func.func @view_padding_f8_pos_inf(%A: memref<?x?xf8E4M3FN>) {
  // expected-error @+1 {{padding 'pos_inf' needs an element type with infinities; 'f8E4M3FN' has none}}
  %v = tile.partition_view %A : memref<?x?xf8E4M3FN> -> !tile.partition_view<64x64xf8E4M3FN, padding = pos_inf>
  return
}

// -----

// f8E4M3FN pads with NaN or zero; f8E5M2 has both infinities and NaN.
func.func @view_padding_f8(%A: memref<?x?xf8E4M3FN>, %B: memref<?x?xf8E5M2>) {
  %a0 = tile.partition_view %A : memref<?x?xf8E4M3FN> -> !tile.partition_view<64x64xf8E4M3FN, padding = nan>
  %a1 = tile.partition_view %A : memref<?x?xf8E4M3FN> -> !tile.partition_view<64x64xf8E4M3FN>
  %b0 = tile.partition_view %B : memref<?x?xf8E5M2> -> !tile.partition_view<64x64xf8E5M2, padding = neg_inf>
  %b1 = tile.partition_view %B : memref<?x?xf8E5M2> -> !tile.partition_view<64x64xf8E5M2, padding = pos_inf>
  %b2 = tile.partition_view %B : memref<?x?xf8E5M2> -> !tile.partition_view<64x64xf8E5M2, padding = nan>
  return
}

// ---- partition_view: rank and element type match the memref

// -----

func.func @view_rank_mismatch(%A: memref<?x?xf16>) {
  // expected-error @+1 {{'tile.partition_view' op memref has rank 2 but the view has rank 1}}
  %v = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128xf16>
  return
}

// -----

func.func @view_type_mismatch(%A: memref<?x?xf16>) {
  // expected-error @+1 {{'tile.partition_view' op memref element type 'f16' differs from the view's 'f32'}}
  %v = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf32>
  return
}

// -----

func.func @view_column_major(%A: memref<?x?xf16, strided<[1, ?]>>) {
  // expected-error @+1 {{'tile.partition_view' op memref 'memref<?x?xf16, strided<[1, ?]>>' is not row-major with unit innermost stride}}
  %v = tile.partition_view %A : memref<?x?xf16, strided<[1, ?]>> -> !tile.partition_view<128x64xf16>
  return
}

// -----

func.func @num_tiles_dim(%A: memref<?x?xf16>) {
  %v = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  // expected-error @+1 {{'tile.num_tiles' op dim 2 is out of range for a view of rank 2}}
  %n = tile.num_tiles %v dim 2 : !tile.partition_view<128x64xf16>
  return
}

// ---- load/store: one index per dim, all index; tile and view agree

// -----

func.func @load_indices(%A: memref<?x?xf16>, %i: index) {
  %v = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  // expected-error @+1 {{'tile.load' op has 1 indices but the view has rank 2}}
  %t = tile.load %v[%i] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
  return
}

// -----

func.func @load_index_type(%A: memref<?x?xf16>,
    %i: i32) {
  // expected-note @-1 {{prior use here}}
  %v = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  // expected-error @+1 {{use of value '%i' expects different type than prior uses: 'index' vs 'i32'}}
  %t = tile.load %v[%i, %i] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
  return
}

// -----

func.func @load_shape(%A: memref<?x?xf16>, %i: index) {
  %v = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  // expected-error @+1 {{'tile.load' op result shape 64x128 differs from the view's tile shape 128x64}}
  %t = tile.load %v[%i, %i] : !tile.partition_view<128x64xf16> -> tensor<64x128xf16>
  return
}

// -----

func.func @load_element(%A: memref<?x?xf16>, %i: index) {
  %v = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  // expected-error @+1 {{'tile.load' op result element type 'f32' differs from the view's 'f16'}}
  %t = tile.load %v[%i, %i] : !tile.partition_view<128x64xf16> -> tensor<128x64xf32>
  return
}

// -----

func.func @store_indices(%A: memref<?x?xf32>, %t: tensor<128x64xf32>, %i: index) {
  %v = tile.partition_view %A : memref<?x?xf32> -> !tile.partition_view<128x64xf32>
  // expected-error @+1 {{'tile.store' op has 3 indices but the view has rank 2}}
  tile.store %t, %v[%i, %i, %i] : tensor<128x64xf32> -> !tile.partition_view<128x64xf32>
  return
}

// -----

func.func @store_shape(%A: memref<?x?xf32>, %t: tensor<128x32xf32>, %i: index) {
  %v = tile.partition_view %A : memref<?x?xf32> -> !tile.partition_view<128x64xf32>
  // expected-error @+1 {{'tile.store' op stored tile shape 128x32 differs from the view's tile shape 128x64}}
  tile.store %t, %v[%i, %i] : tensor<128x32xf32> -> !tile.partition_view<128x64xf32>
  return
}

// -----

func.func @store_element(%A: memref<?x?xf32>, %t: tensor<128x64xf16>, %i: index) {
  %v = tile.partition_view %A : memref<?x?xf32> -> !tile.partition_view<128x64xf32>
  // expected-error @+1 {{'tile.store' op stored tile element type 'f16' differs from the view's 'f32'}}
  tile.store %t, %v[%i, %i] : tensor<128x64xf16> -> !tile.partition_view<128x64xf32>
  return
}

// ---- mma: rank 2, a: MxK, b: KxN, c and result MxN, supported types

// -----

func.func @mma_rank(%a: tensor<2x8x16xf16>, %b: tensor<16x8xf16>, %c: tensor<8x8xf32>) {
  // expected-error @+1 {{'tile.mma' op operand 'a' has rank 3; mma operands have rank 2}}
  %d = tile.mma %a, %b, %c : tensor<2x8x16xf16>, tensor<16x8xf16> into tensor<8x8xf32>
  return
}

// -----

func.func @mma_k(%a: tensor<128x64xf16>, %b: tensor<32x128xf16>, %c: tensor<128x128xf32>) {
  // expected-error @+1 {{'tile.mma' op operand 'a' is 128x64 so 'b' must have 64 rows, but it is 32x128}}
  %d = tile.mma %a, %b, %c : tensor<128x64xf16>, tensor<32x128xf16> into tensor<128x128xf32>
  return
}

// -----

func.func @mma_c(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>, %c: tensor<128x64xf32>) {
  // expected-error @+1 {{'tile.mma' op accumulator 'c' is 128x64 but a x b is 128x128}}
  %d = tile.mma %a, %b, %c : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x64xf32>
  return
}

// -----

func.func @mma_types(%a: tensor<64x32xbf16>, %b: tensor<32x64xbf16>, %c: tensor<64x64xbf16>) {
  // expected-error @+1 {{'tile.mma' op unsupported element types ('bf16', 'bf16') -> 'bf16'; supported: (f16, f16) -> f32 or f16, (bf16, bf16) -> f32, (f32, f32) -> f32, (f8, f8) -> f32}}
  %d = tile.mma %a, %b, %c : tensor<64x32xbf16>, tensor<32x64xbf16> into tensor<64x64xbf16>
  return
}

// -----

func.func @mma_mixed(%a: tensor<64x32xf16>, %b: tensor<32x64xbf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.mma' op unsupported element types ('f16', 'bf16') -> 'f32'}}
  %d = tile.mma %a, %b, %c : tensor<64x32xf16>, tensor<32x64xbf16> into tensor<64x64xf32>
  return
}

// -----

func.func @mma_int(%a: tensor<64x32xi8>, %b: tensor<32x64xi8>, %c: tensor<64x64xi32>) {
  // expected-error @+1 {{'tile.mma' op unsupported element types ('i8', 'i8') -> 'i32'}}
  %d = tile.mma %a, %b, %c : tensor<64x32xi8>, tensor<32x64xi8> into tensor<64x64xi32>
  return
}

// ---- reduce: dim in range, kind valid for the element type

// -----

func.func @reduce_dim(%t: tensor<128x256xf32>) {
  // expected-error @+1 {{'tile.reduce' op dim 2 is out of range for an input of rank 2}}
  %r = tile.reduce add %t dim 2 : tensor<128x256xf32> -> tensor<128xf32>
  return
}

// -----

func.func @reduce_kind_i1(%t: tensor<4x8xi1>) {
  // expected-error @+1 {{'tile.reduce' op reduction 'add' is not defined for element type 'i1'}}
  %r = tile.reduce add %t dim 1 : tensor<4x8xi1> -> tensor<4xi1>
  return
}

// -----

func.func @reduce_kind_f8(%t: tensor<4x8xf8E4M3FN>) {
  // expected-error @+1 {{'tile.reduce' op reduction 'max' is not defined for element type 'f8E4M3FN'}}
  %r = tile.reduce max %t dim 1 : tensor<4x8xf8E4M3FN> -> tensor<4xf8E4M3FN>
  return
}

// -----

func.func @reduce_unknown_kind(%t: tensor<4x8xf32>) {
  // expected-error @+2 {{expected ::mlir::tile::ReduceKind to be one of: add, mul, max, min}}
  // expected-error @+1 {{failed to parse Tile_ReduceKindAttr parameter 'value'}}
  %r = tile.reduce avg %t dim 1 : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_shape(%t: tensor<128x256xf32>) {
  // expected-error @+1 {{'tile.reduce' op result shape 256 should be 128 (input 128x256 with dim 1 removed)}}
  %r = tile.reduce add %t dim 1 : tensor<128x256xf32> -> tensor<256xf32>
  return
}

// -----

func.func @reduce_rank1(%t: tensor<128xf32>) {
  // expected-error @+1 {{'tile.reduce' op result has rank 0; tiles have rank 1 to 3}}
  %r = tile.reduce add %t dim 0 : tensor<128xf32> -> tensor<f32>
  return
}

// -----

func.func @reduce_element(%t: tensor<4x8xf32>) {
  // expected-error @+1 {{'tile.reduce' op result element type 'f16' differs from the input's 'f32'}}
  %r = tile.reduce add %t dim 1 : tensor<4x8xf32> -> tensor<4xf16>
  return
}

// ---- broadcast: only size-1 dims change

// -----

func.func @broadcast_non_unit(%t: tensor<128x2xf32>) {
  // expected-error @+1 {{'tile.broadcast' op dim 1 changes from 2 to 256; only size-1 dims may be broadcast}}
  %r = tile.broadcast %t : tensor<128x2xf32> -> tensor<128x256xf32>
  return
}

// -----

func.func @broadcast_rank(%t: tensor<128xf32>) {
  // expected-error @+1 {{'tile.broadcast' op input has rank 1 but the result has rank 2; use tile.reshape to change the rank}}
  %r = tile.broadcast %t : tensor<128xf32> -> tensor<128x256xf32>
  return
}

// -----

func.func @broadcast_element(%t: tensor<128x1xf32>) {
  // expected-error @+1 {{'tile.broadcast' op result element type 'f16' differs from the input's 'f32'}}
  %r = tile.broadcast %t : tensor<128x1xf32> -> tensor<128x256xf16>
  return
}

// ---- reshape: element counts equal

// -----

func.func @reshape_count(%t: tensor<128xf32>) {
  // expected-error @+1 {{'tile.reshape' op input has 128 elements but the result has 256}}
  %r = tile.reshape %t : tensor<128xf32> -> tensor<128x2xf32>
  return
}

// -----

func.func @reshape_element(%t: tensor<128xf32>) {
  // expected-error @+1 {{'tile.reshape' op result element type 'i32' differs from the input's 'f32'}}
  %r = tile.reshape %t : tensor<128xf32> -> tensor<128x1xi32>
  return
}

// ---- permute: a permutation of the dims

// -----

func.func @permute_repeat(%t: tensor<64x128xf16>) {
  // expected-error @+1 {{'tile.permute' op permutation repeats 0}}
  %r = tile.permute %t [0, 0] : tensor<64x128xf16> -> tensor<64x64xf16>
  return
}

// -----

func.func @permute_range(%t: tensor<64x128xf16>) {
  // expected-error @+1 {{'tile.permute' op permutation entry 2 is out of range for rank 2}}
  %r = tile.permute %t [2, 0] : tensor<64x128xf16> -> tensor<128x64xf16>
  return
}

// -----

func.func @permute_length(%t: tensor<64x128xf16>) {
  // expected-error @+1 {{'tile.permute' op permutation has 3 entries but the input has rank 2}}
  %r = tile.permute %t [1, 0, 2] : tensor<64x128xf16> -> tensor<128x64xf16>
  return
}

// -----

func.func @permute_shape(%t: tensor<64x128xf16>) {
  // expected-error @+1 {{'tile.permute' op result dim 0 is 64 but input dim 1 is 128}}
  %r = tile.permute %t [1, 0] : tensor<64x128xf16> -> tensor<64x128xf16>
  return
}

// ---- splat and iota

// -----

func.func @splat_type(%s: f16) {
  // expected-error @+1 {{'tile.splat' op scalar type 'f16' differs from the result element type 'f32'}}
  %r = tile.splat %s : f16 -> tensor<16xf32>
  return
}

// -----

func.func @iota_rank() {
  // expected-error @+1 {{'tile.iota' op result has rank 2; iota produces a rank-1 tile}}
  %r = tile.iota : tensor<4x4xi32>
  return
}

// -----

func.func @iota_overflow() {
  // expected-error @+1 {{'tile.iota' op the last element 255 is not exactly representable in 'i8'}}
  %r = tile.iota : tensor<256xi8>
  return
}

// -----

func.func @iota_i1() {
  // expected-error @+1 {{'tile.iota' op element type i1 cannot count}}
  %r = tile.iota : tensor<2xi1>
  return
}

// ---- block_id / num_blocks only inside a tile.kernel function

// -----

func.func @not_kernel() {
  // expected-error @+1 {{'tile.block_id' op may only appear inside a function with the 'tile.kernel' attribute}}
  %0 = tile.block_id x : index
  return
}

// -----

func.func @not_kernel_num_blocks() {
  // expected-error @+1 {{'tile.num_blocks' op may only appear inside a function with the 'tile.kernel' attribute}}
  %0 = tile.num_blocks y : index
  return
}

// -----

// expected-error @+1 {{'tile.block_id' op may only appear inside a function with the 'tile.kernel' attribute}}
%0 = tile.block_id x : index

// -----

func.func @bad_axis() attributes {tile.kernel} {
  // expected-error @+2 {{expected ::mlir::tile::Axis to be one of: x, y, z}}
  // expected-error @+1 {{failed to parse Tile_AxisAttr parameter 'value'}}
  %0 = tile.block_id w : index
  return
}

// -----

func.func @grid_type() attributes {tile.kernel} {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.index, but found 'i32'}}
  %0 = tile.block_id x : i32
  return
}

// -----

func.func @cluster_sum_of_masks(%a: tensor<64xi1>) {
  // expected-error @+1 {{sums floats or i32, not 'i1'}}
  %0 = tile.cluster_sum %a : tensor<64xi1>
  return
}

// -----

func.func @partial_store_of_integers(%a: tensor<64xi32>, %ws: memref<?xf32>, %flags: memref<?xi32>, %b: index) {
  // expected-error @+1 {{moves float accumulators, not 'i32'}}
  tile.partial_store %a, %ws[%b], %flags : tensor<64xi32>, memref<?xf32>, memref<?xi32>
  return
}

// -----

func.func @partial_sum_of_another_type(%a: tensor<64xf32>, %ws: memref<?xf16>, %flags: memref<?xi32>, %b: index) {
  // expected-error @+1 {{workspace holds 'f16', the tile 'f32'}}
  %s = tile.partial_sum %a, %ws[%b to %b], %flags : tensor<64xf32>, memref<?xf16>, memref<?xi32>
  return
}
