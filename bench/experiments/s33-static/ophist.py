#!/usr/bin/env python3
"""ophist.py A.sass ENTRY FROM TO B.sass ENTRY FROM TO: opcode histogram
difference of two SASS ranges (B - A), base opcodes."""
import sys, re, collections
sys.path.insert(0, __import__('os').path.dirname(__file__))
from sass import read
def hist(path, fn, a, b):
    ins, _ = read(path, fn)
    c = collections.Counter()
    for t in ins[int(a):int(b) + 1]:
        c[re.sub(r'^@!?U?P\w+\s+', '', t).split()[0].split('.')[0]] += 1
    return c
A = hist(*sys.argv[1:5]); B = hist(*sys.argv[5:9])
for k in sorted(set(A) | set(B), key=lambda k: -(abs(B[k] - A[k]))):
    if A[k] != B[k]:
        print(f'{k:12s} {A[k]:4d} -> {B[k]:4d} ({B[k] - A[k]:+d})')
print('total', sum(A.values()), '->', sum(B.values()))
