// A hand-written variant of a bench/norms program (not a suite case),
// measured in BENCHMARKS.md, session 13, with scripts/compare-programs.sh.
func.func @layernorm(%X: memref<?x32768xf32>, %W: memref<32768xf32>, %B: memref<32768xf32>,
                     %Y: memref<?x32768xf32>, %eps: f32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 4 : index
  %px = tile.partition_view %X : memref<?x32768xf32> -> !tile.partition_view<1x32768xf32>
  %pxc = tile.partition_view %X : memref<?x32768xf32> -> !tile.partition_view<1x8192xf32>
  %pw = tile.partition_view %W : memref<32768xf32> -> !tile.partition_view<8192xf32>
  %pb = tile.partition_view %B : memref<32768xf32> -> !tile.partition_view<8192xf32>
  %py = tile.partition_view %Y : memref<?x32768xf32> -> !tile.partition_view<1x8192xf32>
  %r = tile.block_id x : index
  %x = tile.load %px[%r, %c0] : !tile.partition_view<1x32768xf32> -> tensor<1x32768xf32>
  %n = arith.constant dense<32768.0> : tensor<1xf32>
  %sum = tile.reduce add %x dim 1 : tensor<1x32768xf32> -> tensor<1xf32>
  %mean = arith.divf %sum, %n : tensor<1xf32>
  %mean1 = tile.reshape %mean : tensor<1xf32> -> tensor<1x1xf32>
  %meanb = tile.broadcast %mean1 : tensor<1x1xf32> -> tensor<1x32768xf32>
  %xc = arith.subf %x, %meanb : tensor<1x32768xf32>
  %sq = arith.mulf %xc, %xc : tensor<1x32768xf32>
  %ss = tile.reduce add %sq dim 1 : tensor<1x32768xf32> -> tensor<1xf32>
  %var = arith.divf %ss, %n : tensor<1xf32>
  %epst = tile.splat %eps : f32 -> tensor<1xf32>
  %ve = arith.addf %var, %epst : tensor<1xf32>
  %rstd = math.rsqrt %ve : tensor<1xf32>
  %rstd1 = tile.reshape %rstd : tensor<1xf32> -> tensor<1x1xf32>
  %rstdc = tile.broadcast %rstd1 : tensor<1x1xf32> -> tensor<1x8192xf32>
  %meanc = tile.broadcast %mean1 : tensor<1x1xf32> -> tensor<1x8192xf32>
  %x0 = tile.load %pxc[%r, %c0] : !tile.partition_view<1x8192xf32> -> tensor<1x8192xf32>
  %w0 = tile.load %pw[%c0] : !tile.partition_view<8192xf32> -> tensor<8192xf32>
  %b0 = tile.load %pb[%c0] : !tile.partition_view<8192xf32> -> tensor<8192xf32>
  %fin:3 = scf.for %k = %c0 to %c8 step %c1 iter_args(%xk = %x0, %w = %w0, %b = %b0) -> (tensor<1x8192xf32>, tensor<8192xf32>, tensor<8192xf32>) {
    %k1 = arith.addi %k, %c1 : index
    %xn1 = tile.load %pxc[%r, %k1] : !tile.partition_view<1x8192xf32> -> tensor<1x8192xf32>
    %wn1 = tile.load %pw[%k1] : !tile.partition_view<8192xf32> -> tensor<8192xf32>
    %bn1 = tile.load %pb[%k1] : !tile.partition_view<8192xf32> -> tensor<8192xf32>
    %w1 = tile.reshape %w : tensor<8192xf32> -> tensor<1x8192xf32>
    %b1 = tile.reshape %b : tensor<8192xf32> -> tensor<1x8192xf32>
    %xck = arith.subf %xk, %meanc : tensor<1x8192xf32>
    %xn = arith.mulf %xck, %rstdc : tensor<1x8192xf32>
    %yw = arith.mulf %xn, %w1 : tensor<1x8192xf32>
    %y = arith.addf %yw, %b1 : tensor<1x8192xf32>
    tile.store %y, %py[%r, %k] : tensor<1x8192xf32> -> !tile.partition_view<1x8192xf32>
    scf.yield %xn1, %wn1, %bn1 : tensor<1x8192xf32>, tensor<8192xf32>, tensor<8192xf32>
  }
  return
}
