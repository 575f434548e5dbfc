// instantiate: 1024 -> ROW, f16 -> DTYPE
// RMS normalisation, one row per block: Y = X / sqrt(mean(X^2) + eps) * W.
// The row and W are read in their IO type and everything is computed in
// f32; Y is rounded back once on the store.
func.func @rmsnorm(%X: memref<?x1024xf16>, %W: memref<1024xf16>, %Y: memref<?x1024xf16>, %eps: f32)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %px = tile.partition_view %X : memref<?x1024xf16> -> !tile.partition_view<1x1024xf16>
  %pw = tile.partition_view %W : memref<1024xf16> -> !tile.partition_view<1024xf16>
  %py = tile.partition_view %Y : memref<?x1024xf16> -> !tile.partition_view<1x1024xf16>
  %r = tile.block_id x : index
  %xio = tile.load %px[%r, %c0] : !tile.partition_view<1x1024xf16> -> tensor<1x1024xf16>
  %x = arith.extf %xio : tensor<1x1024xf16> to tensor<1x1024xf32>
  // the row length, for the mean
  %n = arith.constant dense<1024.0> : tensor<1xf32>
  // 1 / sqrt(mean(x^2) + eps)
  %sq = arith.mulf %x, %x : tensor<1x1024xf32>
  %ss = tile.reduce add %sq dim 1 : tensor<1x1024xf32> -> tensor<1xf32>
  %ms = arith.divf %ss, %n : tensor<1xf32>
  %epst = tile.splat %eps : f32 -> tensor<1xf32>
  %me = arith.addf %ms, %epst : tensor<1xf32>
  %rrms = math.rsqrt %me : tensor<1xf32>
  %rrms1 = tile.reshape %rrms : tensor<1xf32> -> tensor<1x1xf32>
  %rrmsb = tile.broadcast %rrms1 : tensor<1x1xf32> -> tensor<1x1024xf32>
  %xn = arith.mulf %x, %rrmsb : tensor<1x1024xf32>
  // the weight, as a row
  %wio = tile.load %pw[%c0] : !tile.partition_view<1024xf16> -> tensor<1024xf16>
  %w = arith.extf %wio : tensor<1024xf16> to tensor<1024xf32>
  %w1 = tile.reshape %w : tensor<1024xf32> -> tensor<1x1024xf32>
  %y = arith.mulf %xn, %w1 : tensor<1x1024xf32>
  %yio = arith.truncf %y : tensor<1x1024xf32> to tensor<1x1024xf16>
  tile.store %yio, %py[%r, %c0] : tensor<1x1024xf16> -> !tile.partition_view<1x1024xf16>
  return
}
