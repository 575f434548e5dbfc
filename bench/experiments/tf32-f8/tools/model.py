#!/usr/bin/env python3
"""Per-K-step budget of one 2-consumer-warpgroup block per SM (H100/H200,
cycles at the 1.83 GHz behind the datasheet peaks): tensor cycles, shared-
memory port cycles (128 B/clk shared by LDS wavefronts, wgmma's shared-
operand reads and TMA writes), L2->SM bytes per FMA, and what a measured
rate means in cycles per K step and TB/s of L2->SM traffic.

usage: python3 model.py
"""
CLK = 1.83e9
SMS = 132
FMA = {'tf32': 1024, 'f16': 2048, 'f8': 4096}       # dense FMA / clk / SM
BYTES = {'tf32': 4, 'f16': 2, 'f8': 1}

def case(name, kind, m, n, k, scheme, lds_wavefronts, measured=None, tiles_per_sm=8):
    """m x n x k block tile of C; scheme 'RS-T': C^T = B^T A^T, B^T from
    registers (threads read B), A^T wgmma's shared operand, one m64 block of
    C^T's n rows per instruction; 'SS': A (m rows, 64 per instruction) and B
    (n columns) both from shared memory."""
    e = BYTES[kind]
    fma = m * n * k
    tensor = fma / FMA[kind]
    tma = (m + n) * k * e
    if scheme == 'RS-T':
        wgmma_reads = (n // 64) * m * k * e           # A re-read per 64 rows of C^T
    else:
        wgmma_reads = (m // 64) * (64 * k * e + n * k * e)
    port = (tma + wgmma_reads) / 128 + lds_wavefronts
    line = (f'{name:34s} tensor {tensor:5.0f}  smem port {port:5.0f} (TMA {tma / 128:.0f} + wgmma {wgmma_reads / 128:.0f}'
            f' + LDS {lds_wavefronts})  L2->SM {tma / fma:.4f} B/FMA')
    if measured:
        seconds = 2 * 4096 ** 3 / (measured * 1e12)
        steps = tiles_per_sm * 4096 // k
        cyc = seconds * CLK / steps
        tbs = measured * 1e12 / 2 * tma / fma / 1e12
        line += f'\n{"":34s} at {measured} TFLOP/s: {cyc:.0f} cycles/K step ({seconds / steps * 1e9:.0f} ns), L2->SM {tbs:.1f} TB/s'
    print(line)

case('tf32 128x128x64 (suite)', 'tf32', 128, 128, 64, 'RS-T', 256, 313)
case('tf32 128x128x64, cuBLAS rate', 'tf32', 128, 128, 64, 'RS-T', 256, 379)
case('tf32 128x128x32', 'tf32', 128, 128, 32, 'RS-T', 128, 282)
case('tf32 256x128x32 (C 256 rows)', 'tf32', 256, 128, 32, 'RS-T', 64)
case('f8 128x128x128 (suite, ld.shared.b8)', 'f8', 128, 128, 128, 'RS-T', 1024, 539)
case('f8 128x128x128, ldmatrix.trans', 'f8', 128, 128, 128, 'RS-T', 128)
case('f8_abt 128x128x128 (SS)', 'f8', 128, 128, 128, 'SS', 0, 1170)
case('f16 64x128x32 wide = 128x128x64 (SS)', 'f16', 128, 128, 64, 'SS', 0, 650)
case('f16 ab wide 128x256x64 (SS)', 'f16', 128, 256, 64, 'SS', 0, 723, tiles_per_sm=4)
