#!/usr/bin/env python3
"""The static part of producer-gap/ab.py's `load`, without a GPU: for each
.ptx here, the entry, its bundle variant (the longest variant name that is
the entry or a prefix of it followed by '_'), .maxntid against the bundle
for a variant's own entry, the dynamic shared memory (bundle, or --smem as
ab.py takes it), and the declared parameters against the 21 memref slots
plus one per TMA descriptor.
usage: python3 check_folder.py [--smem E=B,...]"""
import glob, json, os, re, sys
HERE = os.path.dirname(os.path.abspath(__file__))
args = sys.argv[1:]
smem = dict((k, int(v)) for k, v in (i.split('=') for i in filter(None, (args[args.index('--smem') + 1] if '--smem' in args else '').split(','))))
(kernel,) = json.load(open(os.path.join(HERE, 'bundle.json')))['kernels']
variants = {v['name']: v for v in kernel['variants']}
bad = 0
for path in sorted(glob.glob(os.path.join(HERE, '*.ptx'))):
    text = open(path).read()
    entry = re.search(r'\.entry\s+(\w+)\(', text).group(1)
    base = max((v for v in variants if entry == v or entry.startswith(v + '_')), key=len, default=None)
    block = int(re.search(r'\.maxntid\s+(\d+),\s*1,\s*1', text).group(1))
    v = variants[base]
    declared = len(re.findall(rf'\.param\s+\.u64\s+(?:\.ptr\s+\.align\s+\d+\s+)?{entry}_param_\d+', text))
    want = 3 * 7 + len(v['tma'])
    ok = base is not None and declared == want and (entry != base or block == v['block'][0]) \
        and len(re.findall(r'\.entry', text)) == 1
    bad += not ok
    print(f'{entry:36s} variant {base:24s} block {block} smem {smem.get(entry, v["shared_memory"])} '
          f'params {declared}/{want} {"ok" if ok else "BAD"}')
sys.exit(1 if bad else 0)
