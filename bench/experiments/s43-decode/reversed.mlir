// instantiate: f16 -> DTYPE
// C = A B on any 1-D grid: each block walks the output tiles bid,
// bid + num_blocks, ... (row-major tile order), so a grid of one block per
// SM covers any problem size; per tile, the same K loop and epilogue as
// ab.mlir.
func.func @gemm_persistent(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<128x128xf16>
  %bid = tile.block_id x : index
  %num_blocks = tile.num_blocks x : index
  %tiles_m = tile.num_tiles %pc dim 0 : !tile.partition_view<128x128xf16>
  %tiles_n = tile.num_tiles %pc dim 1 : !tile.partition_view<128x128xf16>
  %tiles = arith.muli %tiles_m, %tiles_n : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x64xf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  // Experiment: the last blocks launched take the first tiles.
  %c1b = arith.constant 1 : index
  %last = arith.subi %num_blocks, %c1b : index
  %vbid = arith.subi %last, %bid : index
  scf.for %t = %vbid to %tiles step %num_blocks {
    %bm = arith.divui %t, %tiles_n : index
    %bn = arith.remui %t, %tiles_n : index
    %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %zero) -> (tensor<128x128xf32>) {
      %a = tile.load %pa[%bm, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
      %b = tile.load %pb[%k, %bn] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
      %d = tile.mma %a, %b, %acc_in : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
      scf.yield %d : tensor<128x128xf32>
    }
    %out = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xf16>
    tile.store %out, %pc[%bm, %bn] : tensor<128x128xf16> -> !tile.partition_view<128x128xf16>
  }
  return
}
