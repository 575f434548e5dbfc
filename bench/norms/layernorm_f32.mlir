// instantiate: 1024 -> ROW
// Layer normalisation of f32 rows, one row per block:
// Y = (X - mean) / sqrt(var + eps) * W + B, with the mean and the (biased)
// variance over the row. The row is whole in its tile, so the variance is
// taken in a second pass over the centred values.
func.func @layernorm(%X: memref<?x1024xf32>, %W: memref<1024xf32>, %B: memref<1024xf32>,
                     %Y: memref<?x1024xf32>, %eps: f32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %px = tile.partition_view %X : memref<?x1024xf32> -> !tile.partition_view<1x1024xf32>
  %pw = tile.partition_view %W : memref<1024xf32> -> !tile.partition_view<1024xf32>
  %pb = tile.partition_view %B : memref<1024xf32> -> !tile.partition_view<1024xf32>
  %py = tile.partition_view %Y : memref<?x1024xf32> -> !tile.partition_view<1x1024xf32>
  %r = tile.block_id x : index
  %x = tile.load %px[%r, %c0] : !tile.partition_view<1x1024xf32> -> tensor<1x1024xf32>
  // the row length, for the means
  %n = arith.constant dense<1024.0> : tensor<1xf32>
  // mean
  %sum = tile.reduce add %x dim 1 : tensor<1x1024xf32> -> tensor<1xf32>
  %mean = arith.divf %sum, %n : tensor<1xf32>
  %mean1 = tile.reshape %mean : tensor<1xf32> -> tensor<1x1xf32>
  %meanb = tile.broadcast %mean1 : tensor<1x1xf32> -> tensor<1x1024xf32>
  %xc = arith.subf %x, %meanb : tensor<1x1024xf32>
  // variance, and 1 / sqrt(var + eps)
  %sq = arith.mulf %xc, %xc : tensor<1x1024xf32>
  %ss = tile.reduce add %sq dim 1 : tensor<1x1024xf32> -> tensor<1xf32>
  %var = arith.divf %ss, %n : tensor<1xf32>
  %epst = tile.splat %eps : f32 -> tensor<1xf32>
  %ve = arith.addf %var, %epst : tensor<1xf32>
  %rstd = math.rsqrt %ve : tensor<1xf32>
  %rstd1 = tile.reshape %rstd : tensor<1xf32> -> tensor<1x1xf32>
  %rstdb = tile.broadcast %rstd1 : tensor<1x1xf32> -> tensor<1x1024xf32>
  %xn = arith.mulf %xc, %rstdb : tensor<1x1024xf32>
  // the affine part, W and B as a row each
  %w = tile.load %pw[%c0] : !tile.partition_view<1024xf32> -> tensor<1024xf32>
  %b = tile.load %pb[%c0] : !tile.partition_view<1024xf32> -> tensor<1024xf32>
  %w1 = tile.reshape %w : tensor<1024xf32> -> tensor<1x1024xf32>
  %b1 = tile.reshape %b : tensor<1024xf32> -> tensor<1x1024xf32>
  %yw = arith.mulf %xn, %w1 : tensor<1x1024xf32>
  %y = arith.addf %yw, %b1 : tensor<1x1024xf32>
  tile.store %y, %py[%r, %c0] : tensor<1x1024xf32> -> !tile.partition_view<1x1024xf32>
  return
}
