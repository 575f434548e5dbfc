#!/usr/bin/env python3
"""Whether cuBLAS's reading of one call depends on the arrays it is given
(BENCHMARKS.md, session 50: the same A B call read 687-776 TFLOP/s in three
suite cases of one run): SEEDS pairs of random bf16 operands of one shape,
each timed in ROUNDS rounds as the suite times a peer (peer_timing.py),
the pairs interleaved round by round. Then the same with the operands
copied to fresh allocations, which tells the values from the addresses.

usage: peer-spread.py M N K [SEEDS [ROUNDS]]   (device tool)"""
import sys

import torch

from peer_timing import events_ms

m, n, k = map(int, sys.argv[1:4])
seeds = int(sys.argv[4]) if len(sys.argv) > 4 else 4
rounds = int(sys.argv[5]) if len(sys.argv) > 5 else 4
flop = 2 * m * n * k


def operands(seed):
    gen = torch.Generator(device='cuda').manual_seed(seed)
    rand = lambda *s: torch.rand(*s, device='cuda', generator=gen).mul(2).sub(1).to(torch.bfloat16)
    return rand(m, k), rand(k, n)


pairs = [operands(s) for s in range(seeds)]
for label, arrays in [('seed', pairs), ('seed 0 copied', [(a.clone(), b.clone()) for a, b in [pairs[0]] * seeds])]:
    rates = [[] for _ in arrays]
    for _ in range(rounds):
        for i, (a, b) in enumerate(arrays):
            rates[i].append(flop / events_ms(lambda: a @ b, 10) / 1e9)
    for i, r in enumerate(rates):
        print(f'{label} {i}: ' + ' '.join(f'{x:.0f}' for x in r) + ' TFLOP/s', flush=True)
