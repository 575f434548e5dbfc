// instantiate: f16 -> DTYPE
// C = A B with 64x128 output tiles and K steps of 128 (experiment: small_k.mlir with its K tile four times): a smaller tile for
// small or skinny problems, otherwise the same program as ab.mlir.
func.func @gemm_64x128x128(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<128x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %bid = tile.block_id x : index
  %tiles_n = tile.num_tiles %pc dim 1 : !tile.partition_view<64x128xf16>
  %bm = arith.divui %bid, %tiles_n : index
  %bn = arith.remui %bid, %tiles_n : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x128xf16>
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %zero) -> (tensor<64x128xf32>) {
    %a = tile.load %pa[%bm, %k] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %b = tile.load %pb[%k, %bn] : !tile.partition_view<128x128xf16> -> tensor<128x128xf16>
    %d = tile.mma %a, %b, %acc_in : tensor<64x128xf16>, tensor<128x128xf16> into tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  %out = arith.truncf %acc : tensor<64x128xf32> to tensor<64x128xf16>
  tile.store %out, %pc[%bm, %bn] : tensor<64x128xf16> -> !tile.partition_view<64x128xf16>
  return
}
