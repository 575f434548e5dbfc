// Flash attention, forward, head dim 64: O = softmax(Q K^T / sqrt(D)) V for
// each of BH heads (Q, K, V, O: BH x S x 64 f16, row-major). Block (x, y)
// takes query tile x (128 rows) of head y and walks K and V in tiles of 64
// keys with an online softmax: the loop carries the running max m, the
// running sum l and the unnormalised output acc, rescaling l and acc by
// 2^(m - m_new) whenever the max grows (m in base 2); O = acc / l after the loop, rounded
// to f16. The scores, softmax and accumulator are f32; the probabilities are
// rounded to f16 to weight V on the tensor cores. Keys past S (the last
// tile's padding) are masked to -inf through tile.iota, so they get no
// weight; query rows past S are computed on padding and dropped by the
// store. flash_d128.mlir is the same program at head dim 128.
func.func @flash(%Q: memref<?x?x64xf16>, %K: memref<?x?x64xf16>, %V: memref<?x?x64xf16>,
                 %O: memref<?x?x64xf16>, %S: index) attributes {tile.kernel, tile.hints = {num_ctas = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cbm = arith.constant 128 : index
  %cbn = arith.constant 64 : index
  %pq = tile.partition_view %Q : memref<?x?x64xf16> -> !tile.partition_view<1x128x64xf16>
  %pk = tile.partition_view %K : memref<?x?x64xf16> -> !tile.partition_view<1x64x64xf16>
  %pv = tile.partition_view %V : memref<?x?x64xf16> -> !tile.partition_view<1x64x64xf16>
  %po = tile.partition_view %O : memref<?x?x64xf16> -> !tile.partition_view<1x128x64xf16>
  %qt = tile.block_id x : index
  %bh = tile.block_id y : index
  %q3 = tile.load %pq[%bh, %qt, %c0] : !tile.partition_view<1x128x64xf16> -> tensor<1x128x64xf16>
  %q = tile.reshape %q3 : tensor<1x128x64xf16> -> tensor<128x64xf16>
  %tiles = tile.num_tiles %pk dim 1 : !tile.partition_view<1x64x64xf16>
  // 1 / sqrt(D) log2(e): the scores in base 2, so that the exponentials are
  // exp2 (as Triton's tutorial and FlashAttention write the softmax)
  %scale = arith.constant dense<0.18033688011112042> : tensor<128x64xf32>
  %neg_inf = arith.constant dense<0xFF800000> : tensor<128x64xf32>
  %zero_s = arith.constant dense<0.0> : tensor<128x64xf32>
  %zero_o = arith.constant dense<0.0> : tensor<128x64xf32>
  %keys = tile.iota : tensor<64xi32>
  %s32 = arith.index_cast %S : index to i32
  %st = tile.splat %s32 : i32 -> tensor<64xi32>
  %m0 = arith.constant dense<0xFF800000> : tensor<128xf32>
  %l0 = arith.constant dense<0.0> : tensor<128xf32>
  %m, %l, %acc = scf.for %j = %c0 to %tiles step %c1
      iter_args(%m_in = %m0, %l_in = %l0, %acc_in = %zero_o) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>) {
    // s = Q K^T / sqrt(D), with the keys past S at -inf
    %k3 = tile.load %pk[%bh, %j, %c0] : !tile.partition_view<1x64x64xf16> -> tensor<1x64x64xf16>
    %k = tile.reshape %k3 : tensor<1x64x64xf16> -> tensor<64x64xf16>
    %kt = tile.permute %k [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
    %qk = tile.mma %q, %kt, %zero_s : tensor<128x64xf16>, tensor<64x64xf16> into tensor<128x64xf32>
    %scaled = arith.mulf %qk, %scale : tensor<128x64xf32>
    %first = arith.muli %j, %cbn : index
    %first32 = arith.index_cast %first : index to i32
    %firstt = tile.splat %first32 : i32 -> tensor<64xi32>
    %key = arith.addi %keys, %firstt : tensor<64xi32>
    %in_range = arith.cmpi slt, %key, %st : tensor<64xi32>
    %in_range1 = tile.reshape %in_range : tensor<64xi1> -> tensor<1x64xi1>
    %in_rangeb = tile.broadcast %in_range1 : tensor<1x64xi1> -> tensor<128x64xi1>
    %s = arith.select %in_rangeb, %scaled, %neg_inf : tensor<128x64xi1>, tensor<128x64xf32>
    // the new running max, and how much the old terms shrink
    %row_max = tile.reduce max %s dim 1 : tensor<128x64xf32> -> tensor<128xf32>
    %m_new = arith.maximumf %m_in, %row_max : tensor<128xf32>
    %shift = arith.subf %m_in, %m_new : tensor<128xf32>
    %alpha = math.exp2 %shift : tensor<128xf32>
    // p = 2^(s - m_new); l = l * alpha + sum(p)
    %m_new1 = tile.reshape %m_new : tensor<128xf32> -> tensor<128x1xf32>
    %m_newb = tile.broadcast %m_new1 : tensor<128x1xf32> -> tensor<128x64xf32>
    %sm = arith.subf %s, %m_newb : tensor<128x64xf32>
    %p = math.exp2 %sm : tensor<128x64xf32>
    %row_sum = tile.reduce add %p dim 1 : tensor<128x64xf32> -> tensor<128xf32>
    %l_scaled = arith.mulf %l_in, %alpha : tensor<128xf32>
    %l_new = arith.addf %l_scaled, %row_sum : tensor<128xf32>
    // acc = acc * alpha + P V
    %alpha1 = tile.reshape %alpha : tensor<128xf32> -> tensor<128x1xf32>
    %alphab = tile.broadcast %alpha1 : tensor<128x1xf32> -> tensor<128x64xf32>
    %acc_scaled = arith.mulf %acc_in, %alphab : tensor<128x64xf32>
    %p16 = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xf16>
    %v3 = tile.load %pv[%bh, %j, %c0] : !tile.partition_view<1x64x64xf16> -> tensor<1x64x64xf16>
    %v = tile.reshape %v3 : tensor<1x64x64xf16> -> tensor<64x64xf16>
    %acc_new = tile.mma %p16, %v, %acc_scaled : tensor<128x64xf16>, tensor<64x64xf16> into tensor<128x64xf32>
    scf.yield %m_new, %l_new, %acc_new : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
  }
  %l1 = tile.reshape %l : tensor<128xf32> -> tensor<128x1xf32>
  %lb = tile.broadcast %l1 : tensor<128x1xf32> -> tensor<128x64xf32>
  %o = arith.divf %acc, %lb : tensor<128x64xf32>
  %o16 = arith.truncf %o : tensor<128x64xf32> to tensor<128x64xf16>
  %o3 = tile.reshape %o16 : tensor<128x64xf16> -> tensor<1x128x64xf16>
  tile.store %o3, %po[%bh, %qt, %c0] : tensor<1x128x64xf16> -> !tile.partition_view<1x128x64xf16>
  return
}
