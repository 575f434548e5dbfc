#!/usr/bin/env python3
"""Instruction mix of the loops of a SASS listing (nvdisasm -c output) that
hold HGMMA: each backward branch `BRA label` whose target lies before it and
whose range holds an HGMMA/QGMMA is a loop; its straight-line body (the out-of-line
mbarrier retry blocks are not counted) is classified by opcode family.

usage: python3 sassloop.py FILE.sass [--all]   (--all: every backward loop)
"""
import re, sys, collections

path = sys.argv[1]
every = '--all' in sys.argv
lines = open(path).read().splitlines()
ins = []  # (address, text)
labels = {}
for line in lines:
    m = re.match(r'\s*(\.L_x_\d+):', line)
    if m:
        labels[m[1]] = len(ins)
        continue
    m = re.match(r'\s*/\*([0-9a-f]+)\*/\s+(.*?)\s*;', line)
    if m:
        ins.append((int(m[1], 16), m[2]))

FAMILIES = [
    ('HGMMA/QGMMA', r'^[HQ]GMMA'), ('WARPGROUP', r'^WARPGROUP'), ('LDSM', r'^LDSM'), ('LDS', r'^LDS'),
    ('STS', r'^STS'), ('LDG/STG', r'^(LDG|STG|LDGSTS)'), ('UTMA', r'^UTMA'),
    ('SYNCS (mbarrier)', r'^SYNCS'), ('BAR', r'^BAR'), ('PRMT', r'^PRMT'), ('SHFL', r'^SHFL'),
    ('F2F/conv', r'^(F2F|F2I|I2F|F2FP)'), ('uniform (U*, R2UR)', r'^(U[A-Z]|R2UR|S2UR)'),
    ('branch/sync', r'^(BRA|BSSY|BSYNC|WARPSYNC|ELECT|EXIT|NOP)'),
    ('integer/move', r'^(IMAD|IADD|LEA|LOP|SHF|SEL|ISETP|MOV|CS2R|SGXT|VIADD|PLOP|P2R|R2P|IABS|BMSK|FLO|POPC)'),
]

def family(text):
    op = re.sub(r'^@!?U?P\w+\s+', '', text)
    for name, pat in FAMILIES:
        if re.match(pat, op):
            return name
    return 'other:' + op.split()[0]

for i, (addr, text) in enumerate(ins):
    m = re.search(r'BRA\s+`\((\.L_x_\d+)\)', text)
    if not m or m[1] not in labels or labels[m[1]] > i:
        continue
    start = labels[m[1]]
    body = ins[start:i + 1]
    if any(t.startswith('EXIT') or ' EXIT' in t for _, t in body) or len(body) > 2000:
        continue  # the out-of-line retry blocks at the end jump back across the kernel
    if not every and not any('GMMA' in t for _, t in body):
        continue
    counts = collections.Counter(family(t) for _, t in body)
    print(f'loop {hex(body[0][0])}-{hex(addr)}: {len(body)} instructions')
    for name, n in counts.most_common():
        print(f'  {name:22s} {n}')
    shapes = collections.Counter(re.search(r'[HQ]GMMA\.\S+', t)[0] for _, t in body if 'GMMA' in t)
    for s, n in shapes.items():
        print(f'  {n} x {s}')
