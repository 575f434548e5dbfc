// A hand-written variant of a bench/norms program (not a suite case),
// measured in BENCHMARKS.md, session 13, with scripts/compare-programs.sh.
func.func @rmsnorm(%X: memref<?x32768xf32>, %W: memref<32768xf32>, %Y: memref<?x32768xf32>, %eps: f32)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %px = tile.partition_view %X : memref<?x32768xf32> -> !tile.partition_view<1x32768xf32>
  %pxc = tile.partition_view %X : memref<?x32768xf32> -> !tile.partition_view<1x8192xf32>
  %pw = tile.partition_view %W : memref<32768xf32> -> !tile.partition_view<8192xf32>
  %py = tile.partition_view %Y : memref<?x32768xf32> -> !tile.partition_view<1x8192xf32>
  %r = tile.block_id x : index
  %x = tile.load %px[%r, %c0] : !tile.partition_view<1x32768xf32> -> tensor<1x32768xf32>
  %n = arith.constant dense<32768.0> : tensor<1xf32>
  %sq = arith.mulf %x, %x : tensor<1x32768xf32>
  %ss = tile.reduce add %sq dim 1 : tensor<1x32768xf32> -> tensor<1xf32>
  %ms = arith.divf %ss, %n : tensor<1xf32>
  %epst = tile.splat %eps : f32 -> tensor<1xf32>
  %me = arith.addf %ms, %epst : tensor<1xf32>
  %rrms = math.rsqrt %me : tensor<1xf32>
  %rrms1 = tile.reshape %rrms : tensor<1xf32> -> tensor<1x1xf32>
  %rrmsb = tile.broadcast %rrms1 : tensor<1x1xf32> -> tensor<1x8192xf32>
  scf.for %k = %c0 to %c4 step %c1 {
    %xk = tile.load %pxc[%r, %k] : !tile.partition_view<1x8192xf32> -> tensor<1x8192xf32>
    %xn = arith.mulf %xk, %rrmsb : tensor<1x8192xf32>
    %w = tile.load %pw[%k] : !tile.partition_view<8192xf32> -> tensor<8192xf32>
    %w1 = tile.reshape %w : tensor<8192xf32> -> tensor<1x8192xf32>
    %y = arith.mulf %xn, %w1 : tensor<1x8192xf32>
    tile.store %y, %py[%r, %k] : tensor<1x8192xf32> -> !tile.partition_view<1x8192xf32>
  }
  return
}
