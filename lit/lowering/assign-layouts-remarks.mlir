// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-assign-layouts))' --remarks-filter=tile -verify-diagnostics -o /dev/null

// Each reason a kernel stays off the register path is said at the op that
// gives it; a kernel on the register path says nothing.

func.func @mma_f16(%A: memref<?x?xf16>, %C: memref<?x?xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf16>
  // expected-remark @below {{this kernel keeps its tiles in shared memory (the general path): its tile.mma cannot take wgmma from registers: its types (f16 x f16 -> f16) are not}}
  %d = tile.mma %a, %a, %z : tensor<64x64xf16>, tensor<64x64xf16> into tensor<64x64xf16>
  tile.store %d, %pc[%c0, %c0] : tensor<64x64xf16> -> !tile.partition_view<64x64xf16>
  return
}

// -----

func.func @mma_shape(%A: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<32x32xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<32x32xf32>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<32x32xf16> -> tensor<32x32xf16>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  // expected-remark @below {{its 32x32x32 shape is not a multiple of 64 rows}}
  %d = tile.mma %a, %a, %z : tensor<32x32xf16>, tensor<32x32xf16> into tensor<32x32xf32>
  tile.store %d, %pc[%c0, %c0] : tensor<32x32xf32> -> !tile.partition_view<32x32xf32>
  return
}

// -----

func.func @bools(%A: memref<?xi1>, %B: memref<?xi1>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?xi1> -> !tile.partition_view<128xi1>
  %pb = tile.partition_view %B : memref<?xi1> -> !tile.partition_view<128xi1>
  // expected-remark @below {{it loads or stores i1 tiles}}
  %a = tile.load %pa[%c0] : !tile.partition_view<128xi1> -> tensor<128xi1>
  tile.store %a, %pb[%c0] : tensor<128xi1> -> !tile.partition_view<128xi1>
  return
}

// -----

func.func @constant(%B: memref<?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pb = tile.partition_view %B : memref<?xf32> -> !tile.partition_view<4xf32>
  // expected-remark @below {{it has a constant tile that is not a splat}}
  %a = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  tile.store %a, %pb[%c0] : tensor<4xf32> -> !tile.partition_view<4xf32>
  return
}

// -----

func.func @while(%A: memref<?xf32>, %n: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?xf32> -> !tile.partition_view<128xf32>
  %z = arith.constant dense<0.0> : tensor<128xf32>
  // expected-remark @below {{an scf.while carries tiles}}
  %r:2 = scf.while (%i = %c0, %acc = %z) : (index, tensor<128xf32>) -> (index, tensor<128xf32>) {
    %go = arith.cmpi ult, %i, %n : index
    scf.condition(%go) %i, %acc : index, tensor<128xf32>
  } do {
  ^bb0(%j: index, %t: tensor<128xf32>):
    %x = tile.load %pa[%j] : !tile.partition_view<128xf32> -> tensor<128xf32>
    %s = arith.addf %t, %x : tensor<128xf32>
    %k = arith.addi %j, %c1 : index
    scf.yield %k, %s : index, tensor<128xf32>
  }
  tile.store %r#1, %pa[%c0] : tensor<128xf32> -> !tile.partition_view<128xf32>
  return
}

// -----

func.func @registers(%A: memref<?xf32>, %B: memref<?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?xf32> -> !tile.partition_view<128xf32>
  %pb = tile.partition_view %B : memref<?xf32> -> !tile.partition_view<128xf32>
  %a = tile.load %pa[%c0] : !tile.partition_view<128xf32> -> tensor<128xf32>
  %b = arith.mulf %a, %a : tensor<128xf32>
  tile.store %b, %pb[%c0] : tensor<128xf32> -> !tile.partition_view<128xf32>
  return
}

// -----

// An mma operand that does not stay in shared memory says why, at the mma:
// a computed tile, a tile used by other ops too, an f32 (tf32) operand
// loaded N-major.
func.func @operand_computed(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x16xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<16x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %x = tile.load %pa[%c0, %c0] : !tile.partition_view<64x16xf16> -> tensor<64x16xf16>
  %a = arith.negf %x : tensor<64x16xf16>
  %b = tile.load %pb[%c0, %c0] : !tile.partition_view<16x64xf16> -> tensor<16x64xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-remark @below {{operand A of this tile.mma is written to shared memory from registers at every mma, not loaded there: it is computed (by 'arith.negf'), not loaded}}
  %d = tile.mma %a, %b, %z : tensor<64x16xf16>, tensor<16x64xf16> into tensor<64x64xf32>
  tile.store %d, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

func.func @operand_shared_use(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>, %D: memref<?x?xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x16xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<16x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %pd = tile.partition_view %D : memref<?x?xf16> -> !tile.partition_view<16x64xf16>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<64x16xf16> -> tensor<64x16xf16>
  %b = tile.load %pb[%c0, %c0] : !tile.partition_view<16x64xf16> -> tensor<16x64xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-remark @below {{operand B of this tile.mma is written to shared memory from registers at every mma, not loaded there: its tile is also used by 'tile.store'}}
  %d = tile.mma %a, %b, %z : tensor<64x16xf16>, tensor<16x64xf16> into tensor<64x64xf32>
  tile.store %b, %pd[%c0, %c0] : tensor<16x64xf16> -> !tile.partition_view<16x64xf16>
  tile.store %d, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// With swap_operands = 0, B loaded N-major is written K-major.
func.func @operand_tf32_n_major(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) attributes {tile.kernel, tile.hints = {swap_operands = 0}} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf32> -> !tile.partition_view<64x8xf32>
  %pb = tile.partition_view %B : memref<?x?xf32> -> !tile.partition_view<8x64xf32>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<64x8xf32> -> tensor<64x8xf32>
  %b = tile.load %pb[%c0, %c0] : !tile.partition_view<8x64xf32> -> tensor<8x64xf32>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-remark @below {{operand B of this tile.mma is written to shared memory from registers at every mma, not loaded there: it is f32 (tf32), which wgmma reads only K-major, and its loaded rows run along N}}
  %d = tile.mma %a, %b, %z : tensor<64x8xf32>, tensor<8x64xf32> into tensor<64x64xf32>
  tile.store %d, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// Both tf32 operands loaded the wrong way round (A^T B): A cannot be read
// K-major from shared memory, so the mma cannot be computed transposed
// either, and each is written K-major from registers.
func.func @operands_tf32_both_wrong(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf32> -> !tile.partition_view<8x64xf32>
  %pb = tile.partition_view %B : memref<?x?xf32> -> !tile.partition_view<8x64xf32>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %at = tile.load %pa[%c0, %c0] : !tile.partition_view<8x64xf32> -> tensor<8x64xf32>
  %a = tile.permute %at [1, 0] : tensor<8x64xf32> -> tensor<64x8xf32>
  %b = tile.load %pb[%c0, %c0] : !tile.partition_view<8x64xf32> -> tensor<8x64xf32>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-remark @below {{operand A of this tile.mma is written to shared memory from registers at every mma, not loaded there: it is f32 (tf32), which wgmma reads only K-major, and its loaded rows run along M}}
  // expected-remark @below {{operand B of this tile.mma is written to shared memory from registers at every mma, not loaded there: it is f32 (tf32), which wgmma reads only K-major, and its loaded rows run along N}}
  %d = tile.mma %a, %b, %z : tensor<64x8xf32>, tensor<8x64xf32> into tensor<64x64xf32>
  tile.store %d, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// B N-major with 64 columns: the mma is computed transposed, B^T read by
// wgmma from registers; nothing is said.
func.func @operand_tf32_swapped(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf32> -> !tile.partition_view<64x8xf32>
  %pb = tile.partition_view %B : memref<?x?xf32> -> !tile.partition_view<8x64xf32>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<64x8xf32> -> tensor<64x8xf32>
  %b = tile.load %pb[%c0, %c0] : !tile.partition_view<8x64xf32> -> tensor<8x64xf32>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.mma %a, %b, %z : tensor<64x8xf32>, tensor<8x64xf32> into tensor<64x64xf32>
  tile.store %d, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// With swap_operands = 0 (else the mma is computed transposed and B stays
// in shared memory: no remark).
func.func @operand_f8_n_major(%A: memref<?x?xf8E4M3FN>, %B: memref<?x?xf8E4M3FN>, %C: memref<?x?xf32>) attributes {tile.kernel, tile.hints = {swap_operands = 0}} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf8E4M3FN> -> !tile.partition_view<64x32xf8E4M3FN>
  %pb = tile.partition_view %B : memref<?x?xf8E4M3FN> -> !tile.partition_view<32x64xf8E4M3FN>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<64x32xf8E4M3FN> -> tensor<64x32xf8E4M3FN>
  %b = tile.load %pb[%c0, %c0] : !tile.partition_view<32x64xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-remark @below {{operand B of this tile.mma is written to shared memory from registers at every mma, not loaded there: it is f8E4M3FN, which wgmma reads only K-major, and its loaded rows run along N}}
  %d = tile.mma %a, %b, %z : tensor<64x32xf8E4M3FN>, tensor<32x64xf8E4M3FN> into tensor<64x64xf32>
  tile.store %d, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// Without the hint: computed transposed, B stays in shared memory (the
// threads read B^T's fragments from it), and nothing is said.
func.func @operand_f8_n_major_swapped(%A: memref<?x?xf8E4M3FN>, %B: memref<?x?xf8E4M3FN>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf8E4M3FN> -> !tile.partition_view<64x32xf8E4M3FN>
  %pb = tile.partition_view %B : memref<?x?xf8E4M3FN> -> !tile.partition_view<32x64xf8E4M3FN>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<64x32xf8E4M3FN> -> tensor<64x32xf8E4M3FN>
  %b = tile.load %pb[%c0, %c0] : !tile.partition_view<32x64xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.mma %a, %b, %z : tensor<64x32xf8E4M3FN>, tensor<32x64xf8E4M3FN> into tensor<64x64xf32>
  tile.store %d, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// An 8-bit float tile that is not only an mma operand: no arithmetic on
// them is lowered in registers.
func.func @f8_widened(%A: memref<?xf8E4M3FN>, %B: memref<?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?xf8E4M3FN> -> !tile.partition_view<128xf8E4M3FN>
  %pb = tile.partition_view %B : memref<?xf32> -> !tile.partition_view<128xf32>
  // expected-remark @below {{this kernel keeps its tiles in shared memory (the general path): it loads or stores f8E4M3FN tiles for other uses than a tile.mma's operands}}
  %a = tile.load %pa[%c0] : !tile.partition_view<128xf8E4M3FN> -> tensor<128xf8E4M3FN>
  %w = arith.extf %a : tensor<128xf8E4M3FN> to tensor<128xf32>
  tile.store %w, %pb[%c0] : tensor<128xf32> -> !tile.partition_view<128xf32>
  return
}

// -----

// B N-major with 64 columns but 256 rows of A: computed transposed, the
// block would have one warpgroup (from N) instead of two (from M), so B
// is written K-major instead.
func.func @operand_tf32_not_swapped_fewer_warps(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf32> -> !tile.partition_view<256x16xf32>
  %pb = tile.partition_view %B : memref<?x?xf32> -> !tile.partition_view<16x64xf32>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<256x64xf32>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<256x16xf32> -> tensor<256x16xf32>
  %b = tile.load %pb[%c0, %c0] : !tile.partition_view<16x64xf32> -> tensor<16x64xf32>
  %z = arith.constant dense<0.0> : tensor<256x64xf32>
  // expected-remark @below {{operand B of this tile.mma is written to shared memory from registers at every mma, not loaded there: it is f32 (tf32), which wgmma reads only K-major, and its loaded rows run along N}}
  %d = tile.mma %a, %b, %z : tensor<256x16xf32>, tensor<16x64xf32> into tensor<256x64xf32>
  tile.store %d, %pc[%c0, %c0] : tensor<256x64xf32> -> !tile.partition_view<256x64xf32>
  return
}
