// A 3-D tile program: Y[b, j, i] = X[b, i, j] * 2 for a batch of matrices,
// and M[b, i] = the largest X[b, i, j] over j, on a 3-D grid of
// 2x16x32 tiles (x: tiles along i, y: along j, z: along the batch).
// The row maxima are per tile: the kernel expects X's last dim to be at
// most 32, so that grid dim y is 1.
func.func @transpose3d(%X: memref<?x?x?xi32>, %Y: memref<?x?x?xi32>, %M: memref<?x?xi32>)
    attributes {tile.kernel} {
  %px = tile.partition_view %X : memref<?x?x?xi32> -> !tile.partition_view<2x16x32xi32>
  %py = tile.partition_view %Y : memref<?x?x?xi32> -> !tile.partition_view<2x32x16xi32>
  %pm = tile.partition_view %M : memref<?x?xi32> -> !tile.partition_view<2x16xi32>
  %i = tile.block_id x : index
  %j = tile.block_id y : index
  %b = tile.block_id z : index
  %x = tile.load %px[%b, %i, %j] : !tile.partition_view<2x16x32xi32> -> tensor<2x16x32xi32>
  %two = arith.constant dense<2> : tensor<2x16x32xi32>
  %x2 = arith.muli %x, %two : tensor<2x16x32xi32>
  %t = tile.permute %x2 [0, 2, 1] : tensor<2x16x32xi32> -> tensor<2x32x16xi32>
  tile.store %t, %py[%b, %j, %i] : tensor<2x32x16xi32> -> !tile.partition_view<2x32x16xi32>
  %m = tile.reduce max %x dim 2 : tensor<2x16x32xi32> -> tensor<2x16xi32>
  tile.store %m, %pm[%b, %i] : tensor<2x16xi32> -> !tile.partition_view<2x16xi32>
  return
}
