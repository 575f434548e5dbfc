// Flash attention, forward, one head of dim 64: O = softmax(Q K^T / 8) V
// for n queries and n keys (Q, K, V: n x 64 f16; O: n x 64 f32). Each
// block takes 64 query rows and walks K and V in tiles of 64 keys with an
// online softmax: the loop carries the running max m, the running sum l
// and the unnormalised output acc, rescaling l and acc by exp(m - m_new)
// whenever the max grows; O = acc / l after the loop. Keys past n (the
// last tile's padding) are masked to -inf through tile.iota, so they get
// no weight.
func.func @attention(%Q: memref<?x64xf16>, %K: memref<?x64xf16>, %V: memref<?x64xf16>,
                     %O: memref<?x64xf32>, %n: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %pq = tile.partition_view %Q : memref<?x64xf16> -> !tile.partition_view<64x64xf16>
  %pk = tile.partition_view %K : memref<?x64xf16> -> !tile.partition_view<64x64xf16>
  %pv = tile.partition_view %V : memref<?x64xf16> -> !tile.partition_view<64x64xf16>
  %po = tile.partition_view %O : memref<?x64xf32> -> !tile.partition_view<64x64xf32>
  %b = tile.block_id x : index
  %q = tile.load %pq[%b, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
  %tiles = tile.num_tiles %pk dim 0 : !tile.partition_view<64x64xf16>
  // 1 / sqrt(64), the softmax scale of a head of dim 64
  %scale = arith.constant dense<0.125> : tensor<64x64xf32>
  %neg_inf = arith.constant dense<0xFF800000> : tensor<64x64xf32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %keys = tile.iota : tensor<64xi32>
  %n32 = arith.index_cast %n : index to i32
  %nt = tile.splat %n32 : i32 -> tensor<64xi32>
  %m0 = arith.constant dense<0xFF800000> : tensor<64xf32>
  %l0 = arith.constant dense<0.0> : tensor<64xf32>
  %m, %l, %acc = scf.for %j = %c0 to %tiles step %c1
      iter_args(%m_in = %m0, %l_in = %l0, %acc_in = %zero) -> (tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>) {
    // s = Q K^T / 8, with the keys past n at -inf
    %k = tile.load %pk[%j, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %kt = tile.permute %k [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
    %qk = tile.mma %q, %kt, %zero : tensor<64x64xf16>, tensor<64x64xf16> into tensor<64x64xf32>
    %scaled = arith.mulf %qk, %scale : tensor<64x64xf32>
    %first = arith.muli %j, %c64 : index
    %first32 = arith.index_cast %first : index to i32
    %firstt = tile.splat %first32 : i32 -> tensor<64xi32>
    %key = arith.addi %keys, %firstt : tensor<64xi32>
    %valid = arith.cmpi slt, %key, %nt : tensor<64xi32>
    %valid1 = tile.reshape %valid : tensor<64xi1> -> tensor<1x64xi1>
    %validb = tile.broadcast %valid1 : tensor<1x64xi1> -> tensor<64x64xi1>
    %s = arith.select %validb, %scaled, %neg_inf : tensor<64x64xi1>, tensor<64x64xf32>
    // the new running max, and how much the old terms shrink
    %row_max = tile.reduce max %s dim 1 : tensor<64x64xf32> -> tensor<64xf32>
    %m_new = arith.maximumf %m_in, %row_max : tensor<64xf32>
    %shift = arith.subf %m_in, %m_new : tensor<64xf32>
    %alpha = math.exp %shift : tensor<64xf32>
    // p = exp(s - m_new); l = l * alpha + sum(p)
    %m_new1 = tile.reshape %m_new : tensor<64xf32> -> tensor<64x1xf32>
    %m_newb = tile.broadcast %m_new1 : tensor<64x1xf32> -> tensor<64x64xf32>
    %sm = arith.subf %s, %m_newb : tensor<64x64xf32>
    %p = math.exp %sm : tensor<64x64xf32>
    %row_sum = tile.reduce add %p dim 1 : tensor<64x64xf32> -> tensor<64xf32>
    %l_scaled = arith.mulf %l_in, %alpha : tensor<64xf32>
    %l_new = arith.addf %l_scaled, %row_sum : tensor<64xf32>
    // acc = acc * alpha + P V
    %alpha1 = tile.reshape %alpha : tensor<64xf32> -> tensor<64x1xf32>
    %alphab = tile.broadcast %alpha1 : tensor<64x1xf32> -> tensor<64x64xf32>
    %acc_scaled = arith.mulf %acc_in, %alphab : tensor<64x64xf32>
    %p16 = arith.truncf %p : tensor<64x64xf32> to tensor<64x64xf16>
    %v = tile.load %pv[%j, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %acc_new = tile.mma %p16, %v, %acc_scaled : tensor<64x64xf16>, tensor<64x64xf16> into tensor<64x64xf32>
    scf.yield %m_new, %l_new, %acc_new : tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>
  }
  %l1 = tile.reshape %l : tensor<64xf32> -> tensor<64x1xf32>
  %lb = tile.broadcast %l1 : tensor<64x1xf32> -> tensor<64x64xf32>
  %o = arith.divf %acc, %lb : tensor<64x64xf32>
  tile.store %o, %po[%b, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}
