// Layer normalisation of each row of X (n columns, n <= 1024), 4 rows per
// block: y = (x - mean) / sqrt(var + eps) * w + b.
// Columns past n are padding; a mask built from tile.iota keeps them out of
// the variance.
func.func @layernorm(%X: memref<?x?xf32>, %W: memref<?xf32>, %B: memref<?xf32>,
                     %Y: memref<?x?xf32>, %n: index, %eps: f32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %px = tile.partition_view %X : memref<?x?xf32> -> !tile.partition_view<4x1024xf32>
  %pw = tile.partition_view %W : memref<?xf32> -> !tile.partition_view<1024xf32>
  %pb = tile.partition_view %B : memref<?xf32> -> !tile.partition_view<1024xf32>
  %py = tile.partition_view %Y : memref<?x?xf32> -> !tile.partition_view<4x1024xf32>
  %r = tile.block_id x : index
  %x = tile.load %px[%r, %c0] : !tile.partition_view<4x1024xf32> -> tensor<4x1024xf32>
  // 1 / n as a tile
  %n64 = arith.index_cast %n : index to i64
  %nf = arith.sitofp %n64 : i64 to f32
  %one = arith.constant 1.0 : f32
  %inv_n = arith.divf %one, %nf : f32
  %inv = tile.splat %inv_n : f32 -> tensor<4xf32>
  // mean
  %sum = tile.reduce add %x dim 1 : tensor<4x1024xf32> -> tensor<4xf32>
  %mean = arith.mulf %sum, %inv : tensor<4xf32>
  %mean1 = tile.reshape %mean : tensor<4xf32> -> tensor<4x1xf32>
  %meanb = tile.broadcast %mean1 : tensor<4x1xf32> -> tensor<4x1024xf32>
  %xc = arith.subf %x, %meanb : tensor<4x1024xf32>
  // mask of the real columns
  %cols = tile.iota : tensor<1024xi32>
  %n32 = arith.index_cast %n : index to i32
  %nt = tile.splat %n32 : i32 -> tensor<1024xi32>
  %in = arith.cmpi slt, %cols, %nt : tensor<1024xi32>
  %in1 = tile.reshape %in : tensor<1024xi1> -> tensor<1x1024xi1>
  %inb = tile.broadcast %in1 : tensor<1x1024xi1> -> tensor<4x1024xi1>
  %zero = arith.constant dense<0.0> : tensor<4x1024xf32>
  %xm = arith.select %inb, %xc, %zero : tensor<4x1024xi1>, tensor<4x1024xf32>
  // variance and scale
  %sq = arith.mulf %xm, %xm : tensor<4x1024xf32>
  %ss = tile.reduce add %sq dim 1 : tensor<4x1024xf32> -> tensor<4xf32>
  %var = arith.mulf %ss, %inv : tensor<4xf32>
  %epst = tile.splat %eps : f32 -> tensor<4xf32>
  %ve = arith.addf %var, %epst : tensor<4xf32>
  %rstd = math.rsqrt %ve : tensor<4xf32>
  %rstd1 = tile.reshape %rstd : tensor<4xf32> -> tensor<4x1xf32>
  %rstdb = tile.broadcast %rstd1 : tensor<4x1xf32> -> tensor<4x1024xf32>
  %xn = arith.mulf %xm, %rstdb : tensor<4x1024xf32>
  // affine
  %w = tile.load %pw[%c0] : !tile.partition_view<1024xf32> -> tensor<1024xf32>
  %b = tile.load %pb[%c0] : !tile.partition_view<1024xf32> -> tensor<1024xf32>
  %w1 = tile.reshape %w : tensor<1024xf32> -> tensor<1x1024xf32>
  %b1 = tile.reshape %b : tensor<1024xf32> -> tensor<1x1024xf32>
  %wb = tile.broadcast %w1 : tensor<1x1024xf32> -> tensor<4x1024xf32>
  %bb = tile.broadcast %b1 : tensor<1x1024xf32> -> tensor<4x1024xf32>
  %yw = arith.mulf %xn, %wb : tensor<4x1024xf32>
  %y = arith.addf %yw, %bb : tensor<4x1024xf32>
  tile.store %y, %py[%r, %c0] : tensor<4x1024xf32> -> !tile.partition_view<4x1024xf32>
  return
}
