#!/usr/bin/env python3
"""Shared-memory wavefronts of the B^T fragment reads of an mma computed
transposed (C^T = B^T A^T, B N-major in a 128-byte-swizzled TMA slot), per
warp instruction and per K step of a 128-row block (2 warpgroups, 8 warps).

Schemes:
  tf32         LDS.32, wgmma rows -> C columns with bits 2 and 4 swapped (main)
  tf32-noswap  LDS.32, identity (before session 25 run 7)
  f8           LDS.U8 + PRMT, identity (main)
  f8-u16       LDS.U16: rows p and p+8 of a warp's 16 -> columns 2p, 2p+1
  f8-ldsm      ldmatrix.x4.trans.b16 with that mapping, matrix rows chosen so
               that the 8 K rows of each 8x8 matrix have distinct k % 8
  f8-ldsm-naive ldmatrix with rows {4q, 4q+1} / {4q+2, 4q+3} (2-way)
A wavefront: one pass of the 32 banks; a request costs the largest number of
distinct 4-byte words any bank must deliver (per phase: LDS.U8/16/32 one
phase of 32 lanes, ldmatrix one phase per 8x8 matrix).
"""
import sys

def swz(k, n_bytes, rows):
    """Byte offset of (row k, byte column n_bytes) in a tile of 128-byte rows
    cut into boxes of 128 bytes x `rows` rows (Swizzled::offset_of)."""
    block, col = divmod(n_bytes, 128)
    x = k * 128 + col
    return block * rows * 128 + (x ^ ((x >> 3) & 0x70))

def cost(addresses):
    banks = {}
    for a in addresses:
        banks.setdefault((a // 4) % 32, set()).add(a // 4)
    return max(len(v) for v in banks.values())

def swap_bits(v, i, j):
    bi, bj = v >> i & 1, v >> j & 1
    return v & ~((1 << i) | (1 << j)) | (bj << i) | (bi << j)

def tf32(swap, K=64, N=128):
    """8 k8 steps, 4 registers each: a0 (row l/4, k l%4), a1 (row+8), a2 (k+4), a3 (row+8, k+4)."""
    total, per = 0, []
    for wg in range(2):
        for w in range(4):
            for step in range(K // 8):
                for reg in range(4):
                    addrs = []
                    for l in range(32):
                        row = 16 * w + l // 4 + 8 * (reg & 1)
                        n = 64 * wg + (swap_bits(row, 2, 4) if swap else row)
                        k = 8 * step + l % 4 + 4 * (reg >> 1)
                        addrs.append(swz(k, 4 * n, K))
                    c = cost(addrs)
                    per.append(c)
                    total += c
    return total, per

def f8(K=128):
    """4 k32 steps x 4 registers x 4 bytes: byte j of a0 = (row l/4, k 4(l%4)+j)."""
    total, per = 0, []
    for wg in range(2):
        for w in range(4):
            for step in range(K // 32):
                for reg in range(4):
                    for j in range(4):
                        addrs = []
                        for l in range(32):
                            n = 64 * wg + 16 * w + l // 4 + 8 * (reg & 1)
                            k = 32 * step + 4 * (l % 4) + j + 16 * (reg >> 1)
                            addrs.append(swz(k, n, K))
                        c = cost(addrs)
                        per.append(c)
                        total += c
    return total, per

def f8_u16(K=128):
    """Rows p, p+8 -> columns 2p, 2p+1: one LDS.U16 gives both rows' byte at k."""
    total, per = 0, []
    for wg in range(2):
        for w in range(4):
            for step in range(K // 32):
                for half in range(2):           # k 0-15 / 16-31 of the step
                    for j in range(4):
                        addrs = []
                        for l in range(32):
                            n = 64 * wg + 16 * w + 2 * (l // 4)
                            k = 32 * step + 16 * half + 4 * (l % 4) + j
                            a = swz(k, n, K)
                            addrs += [a, a + 1]
                        c = cost(addrs)
                        per.append(c)
                        total += c
    return total, per

def f8_ldsm(K=128, naive=False):
    """ldmatrix.x4.trans: lane L gives row L%8 of matrix L/8; a row is the
    warp's 16 columns (16 bytes) at one k. Thread (p, q) gets rows 2q, 2q+1
    of each matrix at b16 column p (bytes n = 2p, 2p+1)."""
    total, per = 0, []
    for wg in range(2):
        for w in range(4):
            for step in range(K // 32):
                for m in range(4):
                    addrs = []
                    for i in range(8):
                        q, e = divmod(i, 2)
                        off = 2 * (m % 2) if naive else 2 * ((m % 2) ^ (q >= 2))
                        k = 32 * step + 16 * (m // 2) + 4 * q + e + off
                        a = swz(k, 64 * wg + 16 * w, K)
                        addrs += list(range(a, a + 16))
                    c = cost(addrs)
                    per.append(c)
                    total += c
    return total, per

def check_ldsm_fragments(K=128):
    """The ldmatrix scheme delivers each thread exactly the bytes of wgmma's
    8-bit A fragments under the rows p, p+8 -> columns 2p, 2p+1 mapping."""
    for l in range(32):
        p, q = divmod(l, 4)
        for m in range(4):
            off = 2 * ((m % 2) ^ (q >= 2))
            ks = [16 * (m // 2) + 4 * q + e + off for e in range(2)]
            # low b16: (k=ks[0], n=2p), (k=ks[0], n=2p+1); high: ks[1]
            assert all(16 * (m // 2) + 4 * q <= k < 16 * (m // 2) + 4 * q + 4 for k in ks)
        # matrices 0 and 1 together give k 4q..4q+3 for both columns.
        got = set()
        for m in (0, 1):
            off = 2 * ((m % 2) ^ (q >= 2))
            got |= {4 * q + e + off for e in range(2)}
        assert got == {4 * q + e for e in range(4)}
    return True

schemes = {
    'tf32': lambda: tf32(True), 'tf32-noswap': lambda: tf32(False),
    'f8': f8, 'f8-u16': f8_u16, 'f8-ldsm': f8_ldsm, 'f8-ldsm-naive': lambda: f8_ldsm(naive=True),
}
check_ldsm_fragments()
print('scheme          requests/warp/Kstep (ldsm: 8x8 matrices, 4 an instruction)  wavefronts/request  wavefronts per K step (8 warps)  useful bytes')
for name, fn in schemes.items():
    total, per = fn()
    n = len(per) // 8
    useful = 32 * 1024 if name.startswith('tf32') else 16 * 1024
    print(f'{name:15s} {n:58d}  {min(per)}-{max(per)} (mean {sum(per)/len(per):.2f})  {total:30d}  {useful}')
