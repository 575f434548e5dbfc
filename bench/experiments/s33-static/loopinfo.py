#!/usr/bin/env python3
"""loopinfo.py X.sass ENTRY FROM TO: opcode counts of the loop [FROM, TO]
and its forward conditional branches (skipped block sizes)."""
import sys
sys.path.insert(0, __import__('os').path.dirname(__file__))
from sass import read, counts, forward_branches
ins, labels = read(sys.argv[1], sys.argv[2])
a, b = int(sys.argv[3]), int(sys.argv[4])
print(f'{sys.argv[1]} {sys.argv[2]} loop {a}-{b}: {b - a + 1} instructions', dict(counts(ins[a:b + 1])))
for i, t, tgt, n in forward_branches(ins, labels, a, b):
    print(f'  {i}: {t}  -> {tgt} (skips {n}:', dict(counts(ins[i + 1:tgt])), ')')
