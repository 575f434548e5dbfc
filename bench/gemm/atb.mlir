// instantiate: f16 -> DTYPE
// C = A^T B with A stored K x M (as a weight gradient reads activations):
// each K step loads a 64x128 tile of A as it lies in memory and transposes
// it in the tile with tile.permute for the mma.
func.func @gemm_atb(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<128x128xf16>
  %bid = tile.block_id x : index
  %tiles_n = tile.num_tiles %pc dim 1 : !tile.partition_view<128x128xf16>
  %bm = arith.divui %bid, %tiles_n : index
  %bn = arith.remui %bid, %tiles_n : index
  // K is A's first dim here.
  %nk = tile.num_tiles %pa dim 0 : !tile.partition_view<64x128xf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%k, %bm] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %at = tile.permute %a [1, 0] : tensor<64x128xf16> -> tensor<128x64xf16>
    %b = tile.load %pb[%k, %bn] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %at, %b, %acc_in : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %out = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xf16>
  tile.store %out, %pc[%bm, %bn] : tensor<128x128xf16> -> !tile.partition_view<128x128xf16>
  return
}
