// The contract's matmul with f16 output: f16 inputs, an f16 accumulator.
func.func @matmul_f16_f16(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>)
    attributes {tile.kernel,
                // The autotuner's space (tile_lowering::tune): the tile sizes
                // of the mma (and of every tile tied to them), and the hints.
                tile.tune = {tile_m = array<i64: 64, 128>, tile_n = array<i64: 64, 128, 256>,
                             num_stages = array<i64: 3, 4, 8>,
                             persistent = array<i64: 0, 1>, warp_specialize = array<i64: 0, 1>}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<128x128xf16>
  // 1-D grid; blocks walk the output in groups of 8 tile rows for L2 reuse
  %bid = tile.block_id x : index
  %c8 = arith.constant 16 : index
  %nm = tile.num_tiles %pc dim 0 : !tile.partition_view<128x128xf16>
  %nn = tile.num_tiles %pc dim 1 : !tile.partition_view<128x128xf16>
  %per_group = arith.muli %c8, %nn : index
  %group = arith.divui %bid, %per_group : index
  %first_m = arith.muli %group, %c8 : index
  %rows_left = arith.subi %nm, %first_m : index
  %group_m = arith.minui %rows_left, %c8 : index
  %in_group = arith.remui %bid, %per_group : index
  %off_m = arith.remui %in_group, %group_m : index
  %bm = arith.addi %first_m, %off_m : index
  %bn = arith.divui %in_group, %group_m : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x64xf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf16>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %zero) -> (tensor<128x128xf16>) {
    %a = tile.load %pa[%bm, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %b = tile.load %pb[%k, %bn] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %acc_in : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf16>
    scf.yield %d : tensor<128x128xf16>
  }
  tile.store %acc, %pc[%bm, %bn] : tensor<128x128xf16> -> !tile.partition_view<128x128xf16>
  return
}
