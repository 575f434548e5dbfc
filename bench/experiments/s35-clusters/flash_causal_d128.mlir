// Causal flash attention, forward, head dim 128: O = softmax(Q K^T / sqrt(D)
// + mask) V for each of BH heads (Q, K, V, O: BH x S x 128 f16, row-major),
// where the mask is -inf for a key j after the query i (j > i) and for keys
// past S. Block (x, y) takes query tile x (128 rows) of head y and walks K
// and V in tiles of 128 keys with an online softmax, as in flash_d128.mlir.
// Key tiles wholly above the diagonal would be masked out entirely, so the
// loop stops after the last key tile that holds a key of the query tile's
// last row: min(tiles, ceil(128 (x + 1) / 128)). The first key tile always
// holds key 0 <= i, so every row has a finite max from the first iteration
// on (no exp2(-inf - -inf)). flash_causal_d64.mlir is the same program at head
// dim 64, with key tiles of 64.
func.func @flash_causal(%Q: memref<?x?x128xf16>, %K: memref<?x?x128xf16>, %V: memref<?x?x128xf16>,
                        %O: memref<?x?x128xf16>, %S: index) attributes {tile.kernel, tile.hints = {num_ctas = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cbm = arith.constant 128 : index
  %cbn = arith.constant 128 : index
  %pq = tile.partition_view %Q : memref<?x?x128xf16> -> !tile.partition_view<1x128x128xf16>
  %pk = tile.partition_view %K : memref<?x?x128xf16> -> !tile.partition_view<1x128x128xf16>
  %pv = tile.partition_view %V : memref<?x?x128xf16> -> !tile.partition_view<1x128x128xf16>
  %po = tile.partition_view %O : memref<?x?x128xf16> -> !tile.partition_view<1x128x128xf16>
  %qt = tile.block_id x : index
  %bh = tile.block_id y : index
  %q3 = tile.load %pq[%bh, %qt, %c0] : !tile.partition_view<1x128x128xf16> -> tensor<1x128x128xf16>
  %q = tile.reshape %q3 : tensor<1x128x128xf16> -> tensor<128x128xf16>
  // key tiles up to the last one the diagonal reaches
  %tiles = tile.num_tiles %pk dim 1 : !tile.partition_view<1x128x128xf16>
  %q_next = arith.addi %qt, %c1 : index
  %q_end = arith.muli %q_next, %cbm : index
  %cbn1 = arith.subi %cbn, %c1 : index
  %q_end_up = arith.addi %q_end, %cbn1 : index
  %diagonal = arith.divui %q_end_up, %cbn : index
  %last = arith.minui %tiles, %diagonal : index
  // 1 / sqrt(D) log2(e): the scores in base 2, so that the exponentials are
  // exp2 (as Triton's tutorial and FlashAttention write the softmax)
  %scale = arith.constant dense<0.12751743082459868> : tensor<128x128xf32>
  %neg_inf = arith.constant dense<0xFF800000> : tensor<128x128xf32>
  %zero_s = arith.constant dense<0.0> : tensor<128x128xf32>
  %zero_o = arith.constant dense<0.0> : tensor<128x128xf32>
  // the query index of each row, as a 128 x 128 tile
  %rows = tile.iota : tensor<128xi32>
  %q_first = arith.muli %qt, %cbm : index
  %q_first32 = arith.index_cast %q_first : index to i32
  %q_firstt = tile.splat %q_first32 : i32 -> tensor<128xi32>
  %query = arith.addi %rows, %q_firstt : tensor<128xi32>
  %query1 = tile.reshape %query : tensor<128xi32> -> tensor<128x1xi32>
  %queryb = tile.broadcast %query1 : tensor<128x1xi32> -> tensor<128x128xi32>
  %keys = tile.iota : tensor<128xi32>
  %s32 = arith.index_cast %S : index to i32
  %st = tile.splat %s32 : i32 -> tensor<128xi32>
  %m0 = arith.constant dense<0xFF800000> : tensor<128xf32>
  %l0 = arith.constant dense<0.0> : tensor<128xf32>
  %m, %l, %acc = scf.for %j = %c0 to %last step %c1
      iter_args(%m_in = %m0, %l_in = %l0, %acc_in = %zero_o) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>) {
    // s = Q K^T / sqrt(D), with the keys past S or after the query at -inf
    %k3 = tile.load %pk[%bh, %j, %c0] : !tile.partition_view<1x128x128xf16> -> tensor<1x128x128xf16>
    %k = tile.reshape %k3 : tensor<1x128x128xf16> -> tensor<128x128xf16>
    %kt = tile.permute %k [1, 0] : tensor<128x128xf16> -> tensor<128x128xf16>
    %qk = tile.mma %q, %kt, %zero_s : tensor<128x128xf16>, tensor<128x128xf16> into tensor<128x128xf32>
    %scaled = arith.mulf %qk, %scale : tensor<128x128xf32>
    %first = arith.muli %j, %cbn : index
    %first32 = arith.index_cast %first : index to i32
    %firstt = tile.splat %first32 : i32 -> tensor<128xi32>
    %key = arith.addi %keys, %firstt : tensor<128xi32>
    %in_range = arith.cmpi slt, %key, %st : tensor<128xi32>
    %in_range1 = tile.reshape %in_range : tensor<128xi1> -> tensor<1x128xi1>
    %in_rangeb = tile.broadcast %in_range1 : tensor<1x128xi1> -> tensor<128x128xi1>
    %key1 = tile.reshape %key : tensor<128xi32> -> tensor<1x128xi32>
    %keyb = tile.broadcast %key1 : tensor<1x128xi32> -> tensor<128x128xi32>
    %causal = arith.cmpi sle, %keyb, %queryb : tensor<128x128xi32>
    %valid = arith.andi %in_rangeb, %causal : tensor<128x128xi1>
    %s = arith.select %valid, %scaled, %neg_inf : tensor<128x128xi1>, tensor<128x128xf32>
    // the new running max, and how much the old terms shrink
    %row_max = tile.reduce max %s dim 1 : tensor<128x128xf32> -> tensor<128xf32>
    %m_new = arith.maximumf %m_in, %row_max : tensor<128xf32>
    %shift = arith.subf %m_in, %m_new : tensor<128xf32>
    %alpha = math.exp2 %shift : tensor<128xf32>
    // p = 2^(s - m_new); l = l * alpha + sum(p)
    %m_new1 = tile.reshape %m_new : tensor<128xf32> -> tensor<128x1xf32>
    %m_newb = tile.broadcast %m_new1 : tensor<128x1xf32> -> tensor<128x128xf32>
    %sm = arith.subf %s, %m_newb : tensor<128x128xf32>
    %p = math.exp2 %sm : tensor<128x128xf32>
    %row_sum = tile.reduce add %p dim 1 : tensor<128x128xf32> -> tensor<128xf32>
    %l_scaled = arith.mulf %l_in, %alpha : tensor<128xf32>
    %l_new = arith.addf %l_scaled, %row_sum : tensor<128xf32>
    // acc = acc * alpha + P V
    %alpha1 = tile.reshape %alpha : tensor<128xf32> -> tensor<128x1xf32>
    %alphab = tile.broadcast %alpha1 : tensor<128x1xf32> -> tensor<128x128xf32>
    %acc_scaled = arith.mulf %acc_in, %alphab : tensor<128x128xf32>
    %p16 = arith.truncf %p : tensor<128x128xf32> to tensor<128x128xf16>
    %v3 = tile.load %pv[%bh, %j, %c0] : !tile.partition_view<1x128x128xf16> -> tensor<1x128x128xf16>
    %v = tile.reshape %v3 : tensor<1x128x128xf16> -> tensor<128x128xf16>
    %acc_new = tile.mma %p16, %v, %acc_scaled : tensor<128x128xf16>, tensor<128x128xf16> into tensor<128x128xf32>
    scf.yield %m_new, %l_new, %acc_new : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>
  }
  %l1 = tile.reshape %l : tensor<128xf32> -> tensor<128x1xf32>
  %lb = tile.broadcast %l1 : tensor<128x1xf32> -> tensor<128x128xf32>
  %o = arith.divf %acc, %lb : tensor<128x128xf32>
  %o16 = arith.truncf %o : tensor<128x128xf32> to tensor<128x128xf16>
  %o3 = tile.reshape %o16 : tensor<128x128xf16> -> tensor<1x128x128xf16>
  tile.store %o3, %po[%bh, %qt, %c0] : tensor<1x128x128xf16> -> !tile.partition_view<1x128x128xf16>
  return
}
