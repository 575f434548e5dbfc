#!/usr/bin/env python3
"""Static check of a SASS listing (nvdisasm -c) for writes to the A-operand
registers of an HGMMA/QGMMA that may still be running: walks each loop that
holds a wgmma (as sassloop.py finds them) three times around (the back edge
carries the pending groups), keeps the groups of wgmmas committed but not
yet retired (a wgmma with `gsb0` closes a group; `WARPGROUP.DEPBAR.LE gsb0,
N` retires all but the newest N), and reports any instruction whose
destination registers meet a pending group's A registers. Out-of-line code
(mbarrier retry blocks) is not followed; predicated writes count.

usage: python3 sass_hazard.py FILE.sass
"""
import re
import sys

lines = open(sys.argv[1]).read().splitlines()
ins, labels = [], {}
for line in lines:
    m = re.match(r'\s*(\.L_x_\d+):', line)
    if m:
        labels[m[1]] = len(ins)
        continue
    m = re.match(r'\s*/\*([0-9a-f]+)\*/\s+(.*?)\s*;', line)
    if m:
        ins.append((int(m[1], 16), m[2]))

NO_DEST = re.compile(r'^(ST|STS|STG|STL|RED|BRA|BAR|SYNCS|WARPGROUP|EXIT|BSSY|BSYNC|WARPSYNC|NOP|UTMA|DEPBAR|'
                     r'MEMBAR|FENCE|ELECT|CCTL|ERRBAR|ARRIVES|CALL|RET|YIELD|NANOSLEEP)')


def dests(text):
    """Registers an instruction writes (general registers only)."""
    op = re.sub(r'^@!?U?P[T\d]+\s+', '', text)
    name = op.split()[0]
    if NO_DEST.match(name) or name.startswith('U') or 'GMMA' in name:
        return set()
    m = re.match(r'\S+\s+(R\d+)', op)
    if not m:
        return set()
    first = int(m[1][1:])
    width = 1
    if re.search(r'\.128\b', name):
        width = 4
    elif re.search(r'\.64\b', name) or name.startswith('CS2R') and '.32' not in name or '.WIDE' in name:
        width = 2
    if name.startswith('LDSM'):
        width = int(re.search(r'\.(\d)$', name)[1]) if re.search(r'\.(\d)$', name) else 1
    return {first + i for i in range(width)}


def a_registers(text):
    m = re.search(r'[HQ]GMMA\.\S+\s+R\d+,\s+R(\d+),', text)
    return {int(m[1]) + i for i in range(4)} if m else set()


found = 0
for i, (addr, text) in enumerate(ins):
    m = re.search(r'BRA\s+`\((\.L_x_\d+)\)', text)
    if not m or m[1] not in labels or labels[m[1]] > i:
        continue
    body = ins[labels[m[1]]:i + 1]
    if any('EXIT' in t for _, t in body) or len(body) > 2000 or not any('GMMA' in t for _, t in body):
        continue
    print(f'loop {hex(body[0][0])}-{hex(addr)}')
    pending, current = [], set()
    hazards = set()
    for lap in range(3):
        for a, t in body:
            if 'GMMA' in t:
                current |= a_registers(t)
                if 'gsb0' in t:
                    pending.append(current)
                    current = set()
                continue
            m2 = re.search(r'WARPGROUP\.DEPBAR\.LE\s+gsb0,\s+0x([0-9a-f]+)', t)
            if m2:
                keep = int(m2[1], 16)
                pending = pending[len(pending) - keep:] if keep else []
                continue
            hit = dests(t) & set().union(*pending, current) if pending or current else set()
            if hit:
                hazards.add((a, t, tuple(sorted(hit))))
    for a, t, hit in sorted(hazards):
        print(f'  HAZARD {hex(a)}: {t}  (writes R{", R".join(map(str, hit))} of a running wgmma)')
        found += 1
    if not hazards:
        print('  no write to a running wgmma\'s A registers')
sys.exit(1 if found else 0)
