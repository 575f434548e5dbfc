// Y = X * W + B over the column tile %j (any i64) of each row, rows of up to
// 32768 f32, one row per block. On the GPU x, W and B would take 96
// registers a thread at 1024 threads, so tile-stream-stores stores the tile
// in chunks, loading each chunk of X, W and B again; out-of-bounds elements
// are dropped and a coordinate far past either end writes nothing.
func.func @wide(%X: memref<?x?xf32>, %W: memref<?xf32>, %B: memref<?xf32>, %Y: memref<?x?xf32>, %j: i64)
    attributes {tile.kernel} {
  %r = tile.block_id x : index
  %c = arith.index_cast %j : i64 to index
  %px = tile.partition_view %X : memref<?x?xf32> -> !tile.partition_view<1x32768xf32>
  %pw = tile.partition_view %W : memref<?xf32> -> !tile.partition_view<32768xf32>
  %pb = tile.partition_view %B : memref<?xf32> -> !tile.partition_view<32768xf32>
  %py = tile.partition_view %Y : memref<?x?xf32> -> !tile.partition_view<1x32768xf32>
  %x = tile.load %px[%r, %c] : !tile.partition_view<1x32768xf32> -> tensor<1x32768xf32>
  %w = tile.load %pw[%c] : !tile.partition_view<32768xf32> -> tensor<32768xf32>
  %b = tile.load %pb[%c] : !tile.partition_view<32768xf32> -> tensor<32768xf32>
  %w1 = tile.reshape %w : tensor<32768xf32> -> tensor<1x32768xf32>
  %b1 = tile.reshape %b : tensor<32768xf32> -> tensor<1x32768xf32>
  %xw = arith.mulf %x, %w1 : tensor<1x32768xf32>
  %y = arith.addf %xw, %b1 : tensor<1x32768xf32>
  tile.store %y, %py[%r, %c] : tensor<1x32768xf32> -> !tile.partition_view<1x32768xf32>
  return
}
