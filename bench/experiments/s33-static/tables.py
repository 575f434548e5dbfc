#!/usr/bin/env python3
"""tables.py [PTX...]: for each single-entry PTX (default: ptx/*.ptx and
persistent/*.ptx), ptxas -arch=sm_90a -v (registers, spills), nvdisasm -c,
and the K/KV loops as NOTES.md counts them: the consumer loop is the
smallest backward-branch loop holding the most wgmmas (HGMMA/QGMMA); the
producer loop the smallest one with a TMA load (UTMALDG), no wgmma and
more than 12 instructions. Prints a Markdown table. Cubins and SASS go to
$OUT (default /tmp/s33-static-build).
Tools: ptxas from nvidia.cuda_nvcc (or $PTXAS), nvdisasm $NVDISASM
(default /tmp/ptxdiff/site2/nvidia/cu13/bin/nvdisasm)."""
import glob, os, re, subprocess, sys
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from sass import read, counts

def ptxas():
    if os.environ.get('PTXAS'):
        return os.environ['PTXAS']
    import nvidia.cuda_nvcc as m
    return os.path.join(list(m.__path__)[0], 'bin', 'ptxas')

NVDISASM = os.environ.get('NVDISASM', '/tmp/ptxdiff/site2/nvidia/cu13/bin/nvdisasm')
OUT = os.environ.get('OUT', '/tmp/s33-static-build')
os.makedirs(OUT, exist_ok=True)
files = sys.argv[1:] or sorted(glob.glob(os.path.join(HERE, 'ptx', '*.ptx'))) + sorted(glob.glob(os.path.join(HERE, 'persistent', '*.ptx')))

def loops(ins, labels):
    out = []
    for i, t in enumerate(ins):
        m = re.search(r'BRA (?:`\()?(\.L_x_\d+)', t)
        if m and labels.get(m.group(1), 1e9) <= i:
            s = labels[m.group(1)]
            out.append((s, i, counts(ins[s:i + 1])))
    return out

def fmt(l):
    if l is None:
        return '-', '-'
    s, e, c = l
    k = ', '.join(f'{n} {c[n]}' for n in ('WARPSYNC', 'R2UR', 'BSSY', 'BAR', 'SYNCS', 'UTMALDG') if c[n])
    return f'{e - s + 1} ({s}-{e})', k

print('| file | entry | regs | spill B | consumer loop (SASS instr, range) | its counts | producer loop | its counts |')
print('|---|---|---|---|---|---|---|---|')
for path in files:
    text = open(path).read()
    entry = re.search(r'\.entry\s+(\w+)\(', text).group(1)
    base = os.path.join(OUT, os.path.basename(path)[:-4])
    p = subprocess.run([ptxas(), '-arch=sm_90a', '-v', path, '-o', base + '.cubin'], capture_output=True, text=True)
    if p.returncode:
        print(f'| {os.path.basename(path)} | {entry} | ptxas failed | | | | | |'); continue
    regs = re.search(r'Used (\d+) registers', p.stderr).group(1)
    spill = re.search(r'(\d+) bytes spill stores', p.stderr).group(1)
    sass = subprocess.run([NVDISASM, '-c', base + '.cubin'], capture_output=True, text=True).stdout
    open(base + '.sass', 'w').write(sass)
    ins, labels = read(base + '.sass', entry)
    ls = loops(ins, labels)
    mma = lambda c: c['HGMMA'] + c['QGMMA']
    top = max((mma(c) for _, _, c in ls), default=0)
    cons = min((l for l in ls if top and mma(l[2]) == top), key=lambda l: l[1] - l[0], default=None)
    prod = min((l for l in ls if l[2]['UTMALDG'] and not mma(l[2]) and l[1] - l[0] + 1 > 12), key=lambda l: l[1] - l[0], default=None)
    c1, c2 = fmt(cons); p1, p2 = fmt(prod)
    print(f'| {os.path.basename(path)} | {entry} | {regs} | {spill} | {c1} | {c2} | {p1} | {p2} |')
