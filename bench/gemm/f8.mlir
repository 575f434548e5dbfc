// C = A B on f8E4M3FN operands with an f32 accumulator, rounded to bf16
// once at the end (the usual output of an f8 GEMM; scales, if any, are the
// caller's). 128 x 128 tiles with K steps of 128 bytes, as f8_abt.mlir.
func.func @gemm_f8(%A: memref<?x?xf8E4M3FN>, %B: memref<?x?xf8E4M3FN>, %C: memref<?x?xbf16>)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf8E4M3FN> -> !tile.partition_view<128x128xf8E4M3FN>
  %pb = tile.partition_view %B : memref<?x?xf8E4M3FN> -> !tile.partition_view<128x128xf8E4M3FN>
  %pc = tile.partition_view %C : memref<?x?xbf16> -> !tile.partition_view<128x128xbf16>
  %bid = tile.block_id x : index
  %tiles_n = tile.num_tiles %pc dim 1 : !tile.partition_view<128x128xbf16>
  %bm = arith.divui %bid, %tiles_n : index
  %bn = arith.remui %bid, %tiles_n : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x128xf8E4M3FN>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%bm, %k] : !tile.partition_view<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
    %b = tile.load %pb[%k, %bn] : !tile.partition_view<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
    %d = tile.mma %a, %b, %acc_in : tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %out = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %out, %pc[%bm, %bn] : tensor<128x128xbf16> -> !tile.partition_view<128x128xbf16>
  return
}
