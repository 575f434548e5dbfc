#!/usr/bin/env python3
"""Simulates the f8 `ldsm` variant's fragment reads (make_variants.py's
PTX, transcribed) for all 256 consumer threads on a random swizzled B slot
and checks that each thread's 16 registers hold the bytes of wgmma's 8-bit A
fragments of B^T with wgmma rows p, p + 8 of each warp's 16 holding C columns
2p, 2p + 1; prints the output-column permutation the harness undoes.

ldmatrix.x4.trans.b16: lane 8m + i gives the address of row i of matrix m
(16 bytes, 8 b16); thread t receives, per matrix, b16 (row 2(t%4), column
t/4) in its low half and (row 2(t%4)+1, column t/4) in its high half.
prmt.b32 d, a, b, sel: byte j of d is byte sel[4j+2:4j] of {b, a} (a bytes 0-3)."""
import random

K, N = 128, 128
random.seed(1)
B = [[random.randrange(256) for _ in range(N)] for _ in range(K)]   # B[k][n], N-major
slot = bytearray(K * 128)
for k in range(K):
    for n in range(N):
        x = k * 128 + n
        slot[x ^ ((x >> 3) & 0x70)] = B[k][n]

def offset(tid):          # the PTX prologue of make_variants.ldsm
    lane, warp = tid & 31, (tid >> 5) & 7
    m, i = lane >> 3, lane & 7
    q, e = i >> 1, i & 1
    off = ((m & 1) ^ (q >> 1)) << 1
    k = ((m >> 1) << 4) + (q << 2) + e + off
    return (k << 7) + ((warp ^ (k & 7)) << 4)

def selectors(tid):
    hi = (tid & 3) >> 1
    return (0x2064, 0x3175) if hi else (0x6420, 0x7531)

def prmt(a, b, sel):
    src = a.to_bytes(4, 'little') + b.to_bytes(4, 'little')
    return int.from_bytes(bytes(src[(sel >> (4 * j)) & 7] for j in range(4)), 'little')

perm = {}
for warp in range(8):
    tids = [32 * warp + l for l in range(32)]
    for s in range(4):
        # each lane's row address -> the 16 bytes of its row
        rows = {t: slot[offset(t) + 4096 * s: offset(t) + 4096 * s + 16] for t in tids}
        for t in tids:
            l = t & 31
            p, q = l >> 2, l & 3
            x = []
            for m in range(4):
                lo = rows[32 * warp + 8 * m + 2 * q]
                hi = rows[32 * warp + 8 * m + 2 * q + 1]
                x.append(int.from_bytes(bytes(lo[2 * p:2 * p + 2] + hi[2 * p:2 * p + 2]), 'little'))
            s0, s1 = selectors(t)
            regs = [prmt(x[0], x[1], s0), prmt(x[0], x[1], s1), prmt(x[2], x[3], s0), prmt(x[2], x[3], s1)]
            # wgmma 8-bit A fragment: a0 (row p, k 4q..4q+3), a1 (row p+8), a2 (k+16), a3 (row p+8, k+16)
            for r, reg in enumerate(regs):
                row = p + 8 * (r & 1)
                n = 16 * warp + 2 * (row % 8) + row // 8     # the new mapping
                perm[16 * warp + row] = n
                for j in range(4):
                    k = 32 * s + 4 * q + j + 16 * (r >> 1)
                    assert (reg >> (8 * j)) & 255 == B[k][n], (t, s, r, j)
print('ok: all 256 threads x 16 registers match; output column 16g + r holds C column', [perm[r] for r in range(16)])
