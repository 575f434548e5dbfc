// S = the column sums of X (R x C, f32): block j sums columns
// [128 j, 128 j + 128), walking the rows in tiles of 64; rows past R load as
// zero and add nothing, columns past C are not stored. The partial sums
// of each row tile are accumulated in f32 in the loop.
func.func @column_sum(%X: memref<?x?xf32>, %S: memref<?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %px = tile.partition_view %X : memref<?x?xf32> -> !tile.partition_view<64x128xf32>
  %ps = tile.partition_view %S : memref<?xf32> -> !tile.partition_view<128xf32>
  %j = tile.block_id x : index
  %rows = tile.num_tiles %px dim 0 : !tile.partition_view<64x128xf32>
  %init = arith.constant dense<0.0> : tensor<128xf32>
  %sum = scf.for %i = %c0 to %rows step %c1 iter_args(%acc = %init) -> (tensor<128xf32>) {
    %x = tile.load %px[%i, %j] : !tile.partition_view<64x128xf32> -> tensor<64x128xf32>
    %part = tile.reduce add %x dim 0 : tensor<64x128xf32> -> tensor<128xf32>
    %next = arith.addf %acc, %part : tensor<128xf32>
    scf.yield %next : tensor<128xf32>
  }
  tile.store %sum, %ps[%j] : tensor<128xf32> -> !tile.partition_view<128xf32>
  return
}
