// Z = X + Y on f32 vectors, one tile of 1024 elements per block (a 1-D grid
// of ceil(N / 1024) blocks). The last tile's elements past N load as zero
// and are not stored.
func.func @add(%X: memref<?xf32>, %Y: memref<?xf32>, %Z: memref<?xf32>) attributes {tile.kernel} {
  %px = tile.partition_view %X : memref<?xf32> -> !tile.partition_view<1024xf32>
  %py = tile.partition_view %Y : memref<?xf32> -> !tile.partition_view<1024xf32>
  %pz = tile.partition_view %Z : memref<?xf32> -> !tile.partition_view<1024xf32>
  %i = tile.block_id x : index
  %x = tile.load %px[%i] : !tile.partition_view<1024xf32> -> tensor<1024xf32>
  %y = tile.load %py[%i] : !tile.partition_view<1024xf32> -> tensor<1024xf32>
  %z = arith.addf %x, %y : tensor<1024xf32>
  tile.store %z, %pz[%i] : tensor<1024xf32> -> !tile.partition_view<1024xf32>
  return
}
