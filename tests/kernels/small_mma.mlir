// An mma of 32x32 tiles, fewer rows than a wgmma's 64: the kernel stays
// off the register path, and `tile-run -v` says why at the tile.mma
// (tests/integration/tile_run.rs). One block per 32x32 tile of C.
func.func @small_mma(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<32x32xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<32x32xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<32x32xf32>
  %bid = tile.block_id x : index
  %tiles_n = tile.num_tiles %pc dim 1 : !tile.partition_view<32x32xf32>
  %bm = arith.divui %bid, %tiles_n : index
  %bn = arith.remui %bid, %tiles_n : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<32x32xf16>
  %zero = arith.constant dense<0.0> : tensor<32x32xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %zero) -> (tensor<32x32xf32>) {
    %a = tile.load %pa[%bm, %k] : !tile.partition_view<32x32xf16> -> tensor<32x32xf16>
    %b = tile.load %pb[%k, %bn] : !tile.partition_view<32x32xf16> -> tensor<32x32xf16>
    %d = tile.mma %a, %b, %acc_in : tensor<32x32xf16>, tensor<32x32xf16> into tensor<32x32xf32>
    scf.yield %d : tensor<32x32xf32>
  }
  tile.store %acc, %pc[%bm, %bn] : tensor<32x32xf32> -> !tile.partition_view<32x32xf32>
  return
}
