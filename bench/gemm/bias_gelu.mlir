// instantiate: f16 -> DTYPE
// C = gelu(A B + bias) in the exact (erf) form, x/2 (1 + erf(x/sqrt 2)),
// computed in f32 after the K loop: the block's 128 bias values are loaded
// once, widened and broadcast over the tile's rows; the result is rounded
// to the output type once.
// KNOWN COMPILER REJECTION (the program verifies and runs on the CPU):
// * GPU: tile-to-ptx{chip=sm_90a} fails:
//     error: kernel @gemm_bias_gelu needs 262912 bytes of shared memory
//     for its tiles; a Hopper block has 232448
// The general kernel keeps every 128x128 tile of the epilogue in its own
// shared-memory buffer (element-wise ops are not fused, buffers are not
// reused): the accumulator (64 KiB), the A and B tiles (16 + 16), the
// broadcast bias (64), the erf chain (64) and the rounded output (32). The
// wgmma variant (a 128 KiB ring plus the same epilogue buffers, over 350
// KiB) does not fit either and is dropped, so nothing is left.
func.func @gemm_bias_gelu(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %bias: memref<?xf16>,
                          %C: memref<?x?xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pbias = tile.partition_view %bias : memref<?xf16> -> !tile.partition_view<128xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<128x128xf16>
  %bid = tile.block_id x : index
  %tiles_n = tile.num_tiles %pc dim 1 : !tile.partition_view<128x128xf16>
  %bm = arith.divui %bid, %tiles_n : index
  %bn = arith.remui %bid, %tiles_n : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x64xf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%bm, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %b = tile.load %pb[%k, %bn] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %acc_in : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %bias_io = tile.load %pbias[%bn] : !tile.partition_view<128xf16> -> tensor<128xf16>
  %bias_f32 = arith.extf %bias_io : tensor<128xf16> to tensor<128xf32>
  %bias_row = tile.reshape %bias_f32 : tensor<128xf32> -> tensor<1x128xf32>
  %bias_tile = tile.broadcast %bias_row : tensor<1x128xf32> -> tensor<128x128xf32>
  %x = arith.addf %acc, %bias_tile : tensor<128x128xf32>
  // 1/sqrt(2), 1 and 1/2
  %rsqrt2 = arith.constant dense<0.70710678118654752> : tensor<128x128xf32>
  %one = arith.constant dense<1.0> : tensor<128x128xf32>
  %half = arith.constant dense<0.5> : tensor<128x128xf32>
  %scaled = arith.mulf %x, %rsqrt2 : tensor<128x128xf32>
  %erf = math.erf %scaled : tensor<128x128xf32>
  %one_plus = arith.addf %one, %erf : tensor<128x128xf32>
  %half_x = arith.mulf %x, %half : tensor<128x128xf32>
  %gelu = arith.mulf %half_x, %one_plus : tensor<128x128xf32>
  %out = arith.truncf %gelu : tensor<128x128xf32> to tensor<128x128xf16>
  tile.store %out, %pc[%bm, %bn] : tensor<128x128xf16> -> !tile.partition_view<128x128xf16>
  return
}
