func.func @softmax(%X: memref<?x1024xf32>, %Y: memref<?x1024xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %px = tile.partition_view %X : memref<?x1024xf32> -> !tile.partition_view<4x1024xf32, padding = neg_inf>
  %py = tile.partition_view %Y : memref<?x1024xf32> -> !tile.partition_view<4x1024xf32>
  %r = tile.block_id x : index
  %x = tile.load %px[%r, %c0] : !tile.partition_view<4x1024xf32, padding = neg_inf> -> tensor<4x1024xf32>
  %m = tile.reduce max %x dim 1 : tensor<4x1024xf32> -> tensor<4xf32>
  %m1 = tile.reshape %m : tensor<4xf32> -> tensor<4x1xf32>
  %mb = tile.broadcast %m1 : tensor<4x1xf32> -> tensor<4x1024xf32>
  %xs = arith.subf %x, %mb : tensor<4x1024xf32>
  %e = math.exp %xs : tensor<4x1024xf32>
  %s = tile.reduce add %e dim 1 : tensor<4x1024xf32> -> tensor<4xf32>
  %s1 = tile.reshape %s : tensor<4xf32> -> tensor<4x1xf32>
  %sb = tile.broadcast %s1 : tensor<4x1xf32> -> tensor<4x1024xf32>
  %y = arith.divf %e, %sb : tensor<4x1024xf32>
  tile.store %y, %py[%r, %c0] : tensor<4x1024xf32> -> !tile.partition_view<4x1024xf32>
  return
}
