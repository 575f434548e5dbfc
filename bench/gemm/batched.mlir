// instantiate: f16 -> DTYPE
// C[l] = A[l] B[l] for a batch of L matrices stored back to back: grid x
// walks the tiles of one C matrix (row-major order), grid y is the batch
// index. The 3-D views have a batch extent of 1, so each loaded tile is
// reshaped to 2-D for the mma and the result back to 3-D for the store.
func.func @gemm_batched(%A: memref<?x?x?xf16>, %B: memref<?x?x?xf16>, %C: memref<?x?x?xf16>)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?x?xf16> -> !tile.partition_view<1x128x64xf16>
  %pb = tile.partition_view %B : memref<?x?x?xf16> -> !tile.partition_view<1x64x128xf16>
  %pc = tile.partition_view %C : memref<?x?x?xf16> -> !tile.partition_view<1x128x128xf16>
  %bid = tile.block_id x : index
  %l = tile.block_id y : index
  %tiles_n = tile.num_tiles %pc dim 2 : !tile.partition_view<1x128x128xf16>
  %bm = arith.divui %bid, %tiles_n : index
  %bn = arith.remui %bid, %tiles_n : index
  %nk = tile.num_tiles %pa dim 2 : !tile.partition_view<1x128x64xf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %zero) -> (tensor<128x128xf32>) {
    %a3 = tile.load %pa[%l, %bm, %k] : !tile.partition_view<1x128x64xf16> -> tensor<1x128x64xf16>
    %b3 = tile.load %pb[%l, %k, %bn] : !tile.partition_view<1x64x128xf16> -> tensor<1x64x128xf16>
    %a = tile.reshape %a3 : tensor<1x128x64xf16> -> tensor<128x64xf16>
    %b = tile.reshape %b3 : tensor<1x64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %acc_in : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %out = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xf16>
  %out3 = tile.reshape %out : tensor<128x128xf16> -> tensor<1x128x128xf16>
  tile.store %out3, %pc[%l, %bm, %bn] : tensor<1x128x128xf16> -> !tile.partition_view<1x128x128xf16>
  return
}
