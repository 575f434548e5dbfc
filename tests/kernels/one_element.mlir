// One-element tiles: y[i] = x[i] + x[i] * x[i], a block per element. Their
// loops fold away, so every thread would run the stores; tile-distribute
// leaves them to thread 0, between barriers (scripts/gpu_check.py runs it).
func.func @one_element(%X: memref<?xf32>, %Y: memref<?xf32>) attributes {tile.kernel} {
  %px = tile.partition_view %X : memref<?xf32> -> !tile.partition_view<1xf32>
  %py = tile.partition_view %Y : memref<?xf32> -> !tile.partition_view<1xf32>
  %i = tile.block_id x : index
  %x = tile.load %px[%i] : !tile.partition_view<1xf32> -> tensor<1xf32>
  %s = arith.mulf %x, %x : tensor<1xf32>
  %t = arith.addf %x, %s : tensor<1xf32>
  tile.store %t, %py[%i] : tensor<1xf32> -> !tile.partition_view<1xf32>
  return
}
