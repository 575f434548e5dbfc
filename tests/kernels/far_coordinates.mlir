// Loads the tile of %X at tile coordinate %i (any i64) into tile 0 of %Y,
// and stores a tile of 7s at the same coordinate of %Z. Out-of-bounds
// elements take the padding (-inf) and are never written: a coordinate far
// past either end reads only padding and writes nothing.
func.func @far(%X: memref<?xf32>, %Y: memref<?xf32>, %Z: memref<?xf32>, %i: i64) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %at = arith.index_cast %i : i64 to index
  %px = tile.partition_view %X : memref<?xf32> -> !tile.partition_view<16xf32, padding = neg_inf>
  %py = tile.partition_view %Y : memref<?xf32> -> !tile.partition_view<16xf32>
  %pz = tile.partition_view %Z : memref<?xf32> -> !tile.partition_view<16xf32>
  %t = tile.load %px[%at] : !tile.partition_view<16xf32, padding = neg_inf> -> tensor<16xf32>
  tile.store %t, %py[%c0] : tensor<16xf32> -> !tile.partition_view<16xf32>
  %seven = arith.constant 7.0 : f32
  %s = tile.splat %seven : f32 -> tensor<16xf32>
  tile.store %s, %pz[%at] : tensor<16xf32> -> !tile.partition_view<16xf32>
  return
}
