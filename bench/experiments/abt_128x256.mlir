// instantiate: f16 -> DTYPE
// Y = X W^T, a linear layer: W is N x K as stored (one row per output
// feature), so each K step loads a 128x64 tile of W as it lies in memory
// and transposes it in the tile with tile.permute for the mma.
func.func @linear(%X: memref<?x?xf16>, %W: memref<?x?xf16>, %Y: memref<?x?xf16>)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %px = tile.partition_view %X : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pw = tile.partition_view %W : memref<?x?xf16> -> !tile.partition_view<256x64xf16>
  %py = tile.partition_view %Y : memref<?x?xf16> -> !tile.partition_view<128x256xf16>
  %bid = tile.block_id x : index
  %tiles_n = tile.num_tiles %py dim 1 : !tile.partition_view<128x256xf16>
  %bm = arith.divui %bid, %tiles_n : index
  %bn = arith.remui %bid, %tiles_n : index
  %nk = tile.num_tiles %px dim 1 : !tile.partition_view<128x64xf16>
  %zero = arith.constant dense<0.0> : tensor<128x256xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %zero) -> (tensor<128x256xf32>) {
    %x = tile.load %px[%bm, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %w = tile.load %pw[%bn, %k] : !tile.partition_view<256x64xf16> -> tensor<256x64xf16>
    %wt = tile.permute %w [1, 0] : tensor<256x64xf16> -> tensor<64x256xf16>
    %d = tile.mma %x, %wt, %acc_in : tensor<128x64xf16>, tensor<64x256xf16> into tensor<128x256xf32>
    scf.yield %d : tensor<128x256xf32>
  }
  %out = arith.truncf %acc : tensor<128x256xf32> to tensor<128x256xf16>
  tile.store %out, %py[%bm, %bn] : tensor<128x256xf16> -> !tile.partition_view<128x256xf16>
  return
}
