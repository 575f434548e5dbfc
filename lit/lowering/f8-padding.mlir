// f8 views padded with the values f8 has: NaN for f8E4M3FN (which has no
// infinities; the verifier rejects neg_inf and pos_inf there), and both
// infinities and NaN for f8E5M2. The padding tile is a constant of the
// element type's bit pattern on both targets: 0x7F (f8E4M3FN NaN), 0xFC
// and 0x7C (f8E5M2 -inf, +inf), 0x7E (f8E5M2 NaN).
//
// RUN: tile-opt %s --pass-pipeline='builtin.module(tile-to-cpu)' | FileCheck %s --check-prefix=CPU
// RUN: tile-opt %s --pass-pipeline='builtin.module(tile-to-ptx{chip=sm_90a})' | FileCheck %s --check-prefix=PTX

// CPU-DAG: dense<0x7F> : tensor<16x16xf8E4M3FN>
// CPU-DAG: dense<0xFC> : tensor<16x16xf8E5M2>
// CPU-DAG: dense<0x7C> : tensor<16x16xf8E5M2>
// CPU-DAG: dense<0x7E> : tensor<16x16xf8E5M2>

// PTX: gpu.binary @tile_kernels
// PTX-SAME: .entry e4m3_nan(
// PTX-SAME: st.shared.b8 {{[^;]*}}, 127;
// PTX-SAME: .entry e5m2_neg_inf(
// PTX-SAME: st.shared.b8 {{[^;]*}}, 252;
// PTX-SAME: .entry e5m2_pos_inf(
// PTX-SAME: st.shared.b8 {{[^;]*}}, 124;
// PTX-SAME: .entry e5m2_nan(
// PTX-SAME: st.shared.b8 {{[^;]*}}, 126;

func.func @e4m3_nan(%A: memref<?x?xf8E4M3FN>, %B: memref<?x?xf8E4M3FN>) attributes {tile.kernel} {
  %pa = tile.partition_view %A : memref<?x?xf8E4M3FN> -> !tile.partition_view<16x16xf8E4M3FN, padding = nan>
  %pb = tile.partition_view %B : memref<?x?xf8E4M3FN> -> !tile.partition_view<16x16xf8E4M3FN>
  %i = tile.block_id x : index
  %c0 = arith.constant 0 : index
  %t = tile.load %pa[%i, %c0] : !tile.partition_view<16x16xf8E4M3FN, padding = nan> -> tensor<16x16xf8E4M3FN>
  tile.store %t, %pb[%i, %c0] : tensor<16x16xf8E4M3FN> -> !tile.partition_view<16x16xf8E4M3FN>
  return
}

func.func @e5m2_neg_inf(%A: memref<?x?xf8E5M2>, %B: memref<?x?xf8E5M2>) attributes {tile.kernel} {
  %pa = tile.partition_view %A : memref<?x?xf8E5M2> -> !tile.partition_view<16x16xf8E5M2, padding = neg_inf>
  %pb = tile.partition_view %B : memref<?x?xf8E5M2> -> !tile.partition_view<16x16xf8E5M2>
  %i = tile.block_id x : index
  %c0 = arith.constant 0 : index
  %t = tile.load %pa[%i, %c0] : !tile.partition_view<16x16xf8E5M2, padding = neg_inf> -> tensor<16x16xf8E5M2>
  tile.store %t, %pb[%i, %c0] : tensor<16x16xf8E5M2> -> !tile.partition_view<16x16xf8E5M2>
  return
}

func.func @e5m2_pos_inf(%A: memref<?x?xf8E5M2>, %B: memref<?x?xf8E5M2>) attributes {tile.kernel} {
  %pa = tile.partition_view %A : memref<?x?xf8E5M2> -> !tile.partition_view<16x16xf8E5M2, padding = pos_inf>
  %pb = tile.partition_view %B : memref<?x?xf8E5M2> -> !tile.partition_view<16x16xf8E5M2>
  %i = tile.block_id x : index
  %c0 = arith.constant 0 : index
  %t = tile.load %pa[%i, %c0] : !tile.partition_view<16x16xf8E5M2, padding = pos_inf> -> tensor<16x16xf8E5M2>
  tile.store %t, %pb[%i, %c0] : tensor<16x16xf8E5M2> -> !tile.partition_view<16x16xf8E5M2>
  return
}

func.func @e5m2_nan(%A: memref<?x?xf8E5M2>, %B: memref<?x?xf8E5M2>) attributes {tile.kernel} {
  %pa = tile.partition_view %A : memref<?x?xf8E5M2> -> !tile.partition_view<16x16xf8E5M2, padding = nan>
  %pb = tile.partition_view %B : memref<?x?xf8E5M2> -> !tile.partition_view<16x16xf8E5M2>
  %i = tile.block_id x : index
  %c0 = arith.constant 0 : index
  %t = tile.load %pa[%i, %c0] : !tile.partition_view<16x16xf8E5M2, padding = nan> -> tensor<16x16xf8E5M2>
  tile.store %t, %pb[%i, %c0] : tensor<16x16xf8E5M2> -> !tile.partition_view<16x16xf8E5M2>
  return
}
