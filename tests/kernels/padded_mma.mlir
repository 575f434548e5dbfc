// An mma whose operands' views pad with +inf: where K is not a multiple
// of the tile, each K step past the array multiplies A's padding by B's
// (+inf * +inf), so every element of C is +inf; where it is, C = A B.
// The TMA fills with zeros, so neither the matcher nor `tile-use-tma`
// takes these loads; the general kernel's copies must write the padding
// (tests/integration/cpu.rs, scripts/gpu_check.py). One block per 64x64
// tile of C.
func.func @padded_mma(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x64xf16, padding = pos_inf>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x64xf16, padding = pos_inf>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %bid = tile.block_id x : index
  %tiles_n = tile.num_tiles %pc dim 1 : !tile.partition_view<64x64xf32>
  %bm = arith.divui %bid, %tiles_n : index
  %bn = arith.remui %bid, %tiles_n : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x64xf16, padding = pos_inf>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %zero) -> (tensor<64x64xf32>) {
    %a = tile.load %pa[%bm, %k] : !tile.partition_view<64x64xf16, padding = pos_inf> -> tensor<64x64xf16>
    %b = tile.load %pb[%k, %bn] : !tile.partition_view<64x64xf16, padding = pos_inf> -> tensor<64x64xf16>
    %d = tile.mma %a, %b, %acc_in : tensor<64x64xf16>, tensor<64x64xf16> into tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %acc, %pc[%bm, %bn] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}
