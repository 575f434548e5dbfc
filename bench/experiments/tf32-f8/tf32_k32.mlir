// bench/gemm/tf32.mlir with K tiles of 32 (session 26 run 11): sed -e 's/128x64xf32/128x32xf32/g' -e 's/64x128xf32/32x128xf32/g'
// C = A B on f32 operands: tensor cores in tf32 on the GPU (inputs rounded
// to 10 mantissa bits, f32 accumulation), full f32 on the CPU. The output
// is the f32 accumulator itself, so there is no rounding step.
func.func @gemm_tf32(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf32> -> !tile.partition_view<128x32xf32>
  %pb = tile.partition_view %B : memref<?x?xf32> -> !tile.partition_view<32x128xf32>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %bid = tile.block_id x : index
  %tiles_n = tile.num_tiles %pc dim 1 : !tile.partition_view<128x128xf32>
  %bm = arith.divui %bid, %tiles_n : index
  %bn = arith.remui %bid, %tiles_n : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x32xf32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%bm, %k] : !tile.partition_view<128x32xf32> -> tensor<128x32xf32>
    %b = tile.load %pb[%k, %bn] : !tile.partition_view<32x128xf32> -> tensor<32x128xf32>
    %d = tile.mma %a, %b, %acc_in : tensor<128x32xf32>, tensor<32x128xf32> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %pc[%bm, %bn] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}
