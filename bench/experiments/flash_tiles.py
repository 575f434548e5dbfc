#!/usr/bin/env python3
"""Writes bench/attention's flash programs with other tile sizes, for
measuring them before the suite's programs change:
    python3 bench/experiments/flash_tiles.py OUT_DIR BM BN
writes OUT_DIR/flash_d{64,128}.mlir and flash_causal_d{64,128}.mlir: query
tiles of BM rows, key tiles of BN keys (BN divides BM), the softmax in base 2
as the suite's programs write it."""
import math, os, sys

TEMPLATE = """// Flash attention{causal_title}, head dim {D}, query tiles of {BM} rows, key tiles of {BN}
// (written by bench/experiments/flash_tiles.py).
func.func @{name}(%Q: memref<?x?x{D}xf16>, %K: memref<?x?x{D}xf16>, %V: memref<?x?x{D}xf16>,
                 %O: memref<?x?x{D}xf16>, %S: index) attributes {{tile.kernel}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cbm = arith.constant {BM} : index
  %cbn = arith.constant {BN} : index
  %pq = tile.partition_view %Q : memref<?x?x{D}xf16> -> !tile.partition_view<1x{BM}x{D}xf16>
  %pk = tile.partition_view %K : memref<?x?x{D}xf16> -> !tile.partition_view<1x{BN}x{D}xf16>
  %pv = tile.partition_view %V : memref<?x?x{D}xf16> -> !tile.partition_view<1x{BN}x{D}xf16>
  %po = tile.partition_view %O : memref<?x?x{D}xf16> -> !tile.partition_view<1x{BM}x{D}xf16>
  %qt = tile.block_id x : index
  %bh = tile.block_id y : index
  %q3 = tile.load %pq[%bh, %qt, %c0] : !tile.partition_view<1x{BM}x{D}xf16> -> tensor<1x{BM}x{D}xf16>
  %q = tile.reshape %q3 : tensor<1x{BM}x{D}xf16> -> tensor<{BM}x{D}xf16>
  %tiles = tile.num_tiles %pk dim 1 : !tile.partition_view<1x{BN}x{D}xf16>
{bound}  %scale = arith.constant dense<{SCALE}> : tensor<{BM}x{BN}xf32>
  %neg_inf = arith.constant dense<0xFF800000> : tensor<{BM}x{BN}xf32>
  %zero_s = arith.constant dense<0.0> : tensor<{BM}x{BN}xf32>
  %zero_o = arith.constant dense<0.0> : tensor<{BM}x{D}xf32>
{queries}  %keys = tile.iota : tensor<{BN}xi32>
  %s32 = arith.index_cast %S : index to i32
  %st = tile.splat %s32 : i32 -> tensor<{BN}xi32>
  %m0 = arith.constant dense<0xFF800000> : tensor<{BM}xf32>
  %l0 = arith.constant dense<0.0> : tensor<{BM}xf32>
  %m, %l, %acc = scf.for %j = %c0 to {upper} step %c1
      iter_args(%m_in = %m0, %l_in = %l0, %acc_in = %zero_o) -> (tensor<{BM}xf32>, tensor<{BM}xf32>, tensor<{BM}x{D}xf32>) {{
    %k3 = tile.load %pk[%bh, %j, %c0] : !tile.partition_view<1x{BN}x{D}xf16> -> tensor<1x{BN}x{D}xf16>
    %k = tile.reshape %k3 : tensor<1x{BN}x{D}xf16> -> tensor<{BN}x{D}xf16>
    %kt = tile.permute %k [1, 0] : tensor<{BN}x{D}xf16> -> tensor<{D}x{BN}xf16>
    %qk = tile.mma %q, %kt, %zero_s : tensor<{BM}x{D}xf16>, tensor<{D}x{BN}xf16> into tensor<{BM}x{BN}xf32>
    %scaled = arith.mulf %qk, %scale : tensor<{BM}x{BN}xf32>
    %first = arith.muli %j, %cbn : index
    %first32 = arith.index_cast %first : index to i32
    %firstt = tile.splat %first32 : i32 -> tensor<{BN}xi32>
    %key = arith.addi %keys, %firstt : tensor<{BN}xi32>
    %in_range = arith.cmpi slt, %key, %st : tensor<{BN}xi32>
    %in_range1 = tile.reshape %in_range : tensor<{BN}xi1> -> tensor<1x{BN}xi1>
    %in_rangeb = tile.broadcast %in_range1 : tensor<1x{BN}xi1> -> tensor<{BM}x{BN}xi1>
{mask}    %s = arith.select {valid}, %scaled, %neg_inf : tensor<{BM}x{BN}xi1>, tensor<{BM}x{BN}xf32>
    %row_max = tile.reduce max %s dim 1 : tensor<{BM}x{BN}xf32> -> tensor<{BM}xf32>
    %m_new = arith.maximumf %m_in, %row_max : tensor<{BM}xf32>
    %shift = arith.subf %m_in, %m_new : tensor<{BM}xf32>
    %alpha = math.exp2 %shift : tensor<{BM}xf32>
    %m_new1 = tile.reshape %m_new : tensor<{BM}xf32> -> tensor<{BM}x1xf32>
    %m_newb = tile.broadcast %m_new1 : tensor<{BM}x1xf32> -> tensor<{BM}x{BN}xf32>
    %sm = arith.subf %s, %m_newb : tensor<{BM}x{BN}xf32>
    %p = math.exp2 %sm : tensor<{BM}x{BN}xf32>
    %row_sum = tile.reduce add %p dim 1 : tensor<{BM}x{BN}xf32> -> tensor<{BM}xf32>
    %l_scaled = arith.mulf %l_in, %alpha : tensor<{BM}xf32>
    %l_new = arith.addf %l_scaled, %row_sum : tensor<{BM}xf32>
    %alpha1 = tile.reshape %alpha : tensor<{BM}xf32> -> tensor<{BM}x1xf32>
    %alphab = tile.broadcast %alpha1 : tensor<{BM}x1xf32> -> tensor<{BM}x{D}xf32>
    %acc_scaled = arith.mulf %acc_in, %alphab : tensor<{BM}x{D}xf32>
    %p16 = arith.truncf %p : tensor<{BM}x{BN}xf32> to tensor<{BM}x{BN}xf16>
    %v3 = tile.load %pv[%bh, %j, %c0] : !tile.partition_view<1x{BN}x{D}xf16> -> tensor<1x{BN}x{D}xf16>
    %v = tile.reshape %v3 : tensor<1x{BN}x{D}xf16> -> tensor<{BN}x{D}xf16>
    %acc_new = tile.mma %p16, %v, %acc_scaled : tensor<{BM}x{BN}xf16>, tensor<{BN}x{D}xf16> into tensor<{BM}x{D}xf32>
    scf.yield %m_new, %l_new, %acc_new : tensor<{BM}xf32>, tensor<{BM}xf32>, tensor<{BM}x{D}xf32>
  }}
  %l1 = tile.reshape %l : tensor<{BM}xf32> -> tensor<{BM}x1xf32>
  %lb = tile.broadcast %l1 : tensor<{BM}x1xf32> -> tensor<{BM}x{D}xf32>
  %o = arith.divf %acc, %lb : tensor<{BM}x{D}xf32>
  %o16 = arith.truncf %o : tensor<{BM}x{D}xf32> to tensor<{BM}x{D}xf16>
  %o3 = tile.reshape %o16 : tensor<{BM}x{D}xf16> -> tensor<1x{BM}x{D}xf16>
  tile.store %o3, %po[%bh, %qt, %c0] : tensor<1x{BM}x{D}xf16> -> !tile.partition_view<1x{BM}x{D}xf16>
  return
}}
"""

BOUND_CAUSAL = """  %q_next = arith.addi %qt, %c1 : index
  %q_end = arith.muli %q_next, %cbm : index
  %cbn1 = arith.subi %cbn, %c1 : index
  %q_end_up = arith.addi %q_end, %cbn1 : index
  %diagonal = arith.divui %q_end_up, %cbn : index
  %last = arith.minui %tiles, %diagonal : index
"""
QUERIES = """  %rows = tile.iota : tensor<{BM}xi32>
  %q_first = arith.muli %qt, %cbm : index
  %q_first32 = arith.index_cast %q_first : index to i32
  %q_firstt = tile.splat %q_first32 : i32 -> tensor<{BM}xi32>
  %query = arith.addi %rows, %q_firstt : tensor<{BM}xi32>
  %query1 = tile.reshape %query : tensor<{BM}xi32> -> tensor<{BM}x1xi32>
  %queryb = tile.broadcast %query1 : tensor<{BM}x1xi32> -> tensor<{BM}x{BN}xi32>
"""
MASK_CAUSAL = """    %key1 = tile.reshape %key : tensor<{BN}xi32> -> tensor<1x{BN}xi32>
    %keyb = tile.broadcast %key1 : tensor<1x{BN}xi32> -> tensor<{BM}x{BN}xi32>
    %causal = arith.cmpi sle, %keyb, %queryb : tensor<{BM}x{BN}xi32>
    %valid = arith.andi %in_rangeb, %causal : tensor<{BM}x{BN}xi1>
"""
MASK = ""


def program(d, bm, bn, causal):
    p = dict(D=d, BM=bm, BN=bn, SCALE=repr(math.log2(math.e) / math.sqrt(d)))
    return TEMPLATE.format(
        name='flash_causal' if causal else 'flash', causal_title=', causal' if causal else '',
        bound=BOUND_CAUSAL if causal else '', queries=QUERIES.format(**p) if causal else '',
        mask=(MASK_CAUSAL if causal else MASK).format(**p), upper='%last' if causal else '%tiles',
        valid='%valid' if causal else '%in_rangeb', **p)


if __name__ == '__main__':
    out, bm, bn = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    os.makedirs(out, exist_ok=True)
    for d in (64, 128):
        for causal in (False, True):
            name = f'flash{"_causal" if causal else ""}_d{d}.mlir'
            open(os.path.join(out, name), 'w').write(program(d, bm, bn, causal))
