#!/usr/bin/env python3
"""sass.py X.sass ENTRY [FROM TO]: the entry's SASS as numbered
instructions (labels shown), or the loops (backward branches) with
opcode counts when no range is given. X.sass: `nvdisasm -c X.cubin`."""
import re, sys, collections
KEYS = ['HGMMA', 'QGMMA', 'WARPGROUP', 'WARPSYNC', 'R2UR', 'BSSY', 'BSYNC', 'BAR', 'SYNCS', 'UTMALDG', 'UTMASTG',
        'SHFL', 'MUFU', 'MOV', 'IMAD', 'LDS', 'STS', 'LDL', 'STL', 'BRA', 'VOTE', 'ELECT']
def read(path, fn):
    ins, labels, inside = [], {}, False
    for line in open(path):
        if line.startswith('//---'):
            inside = ('.text.' + fn + ' ') in line + ' '
        if not inside:
            continue
        m = re.match(r'\s*(\.L_x_\d+):', line)
        if m:
            labels[m.group(1)] = len(ins); continue
        m = re.search(r'/\*([0-9a-f]{4,})\*/\s+(.*?);', line)
        if m:
            ins.append(m.group(2).strip())
    return ins, labels
def counts(body):
    c = collections.Counter()
    for b in body:
        op = re.sub(r'^@!?U?P\w+\s+', '', b).split()[0]
        for k in KEYS:
            if op.split('.')[0] == k or (k in ('SYNCS', 'WARPGROUP', 'BAR') and op.startswith(k)):
                c[k] += 1
    return c
if __name__ == '__main__':
    ins, labels = read(sys.argv[1], sys.argv[2])
    at = {v: k for k, v in labels.items()}
    if len(sys.argv) > 3:
        a, b = int(sys.argv[3]), int(sys.argv[4])
        for i in range(a, b + 1):
            if i in at: print(f'        {at[i]}:')
            print(f'{i:5d}  {ins[i]}')
        print(dict(counts(ins[a:b + 1])))
    else:
        for i, t in enumerate(ins):
            m = re.search(r'BRA (?:`\()?(\.L_x_\d+)', t)
            if m and labels.get(m.group(1), 1e9) <= i:
                s = labels[m.group(1)]
                body = ins[s:i + 1]
                print(f'loop {s}-{i}: {len(body)}', dict(counts(body)))
        print('total', len(ins))

def forward_branches(ins, labels, a, b):
    """Forward conditional branches inside [a, b] whose target is inside
    too: (index, text, target index, skipped instructions)."""
    out = []
    for i in range(a, b + 1):
        m = re.search(r'BRA (?:`\()?(\.L_x_\d+)', ins[i])
        if m and ins[i].startswith('@') and 'BRA.U.ANY' not in ins[i]:
            t = labels.get(m.group(1))
            if t is not None and i < t <= b + 1:
                out.append((i, ins[i], t, t - i - 1))
    return out
