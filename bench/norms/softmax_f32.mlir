// instantiate: 1024 -> ROW
// Row softmax of f32 rows, one row per block:
// Y = exp(X - max) / sum(exp(X - max)).
func.func @softmax(%X: memref<?x1024xf32>, %Y: memref<?x1024xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %px = tile.partition_view %X : memref<?x1024xf32> -> !tile.partition_view<1x1024xf32>
  %py = tile.partition_view %Y : memref<?x1024xf32> -> !tile.partition_view<1x1024xf32>
  %r = tile.block_id x : index
  %x = tile.load %px[%r, %c0] : !tile.partition_view<1x1024xf32> -> tensor<1x1024xf32>
  // subtracting the row max keeps exp from overflowing
  %m = tile.reduce max %x dim 1 : tensor<1x1024xf32> -> tensor<1xf32>
  %m1 = tile.reshape %m : tensor<1xf32> -> tensor<1x1xf32>
  %mb = tile.broadcast %m1 : tensor<1x1xf32> -> tensor<1x1024xf32>
  %xs = arith.subf %x, %mb : tensor<1x1024xf32>
  %e = math.exp %xs : tensor<1x1024xf32>
  %s = tile.reduce add %e dim 1 : tensor<1x1024xf32> -> tensor<1xf32>
  %s1 = tile.reshape %s : tensor<1xf32> -> tensor<1x1xf32>
  %sb = tile.broadcast %s1 : tensor<1x1xf32> -> tensor<1x1024xf32>
  %y = arith.divf %e, %sb : tensor<1x1024xf32>
  tile.store %y, %py[%r, %c0] : tensor<1x1024xf32> -> !tile.partition_view<1x1024xf32>
  return
}
