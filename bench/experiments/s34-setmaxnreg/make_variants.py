#!/usr/bin/env python3
"""Session 34: the register path's persistent 128x256 producer variant
(examples/matmul_f16_f16.mlir at num_ctas=1,num_stages=4,occupancy=1,
persistent=1,tile_m=128,tile_n=256,warp_specialize=1; `matmul_f16_f16__tma`,
288 threads, capped at 168 registers, 84 bytes of spills) with a producer
warpgroup and `setmaxnreg`, as the matcher's `__wgmma` has (384 threads,
40 registers for the producer's warpgroup, 232 for the consumers'):

- `_wg40`: block 384 (`.maxntid 384` + `.minnctapersm 1`, so that ptxas caps
  the entry at 65536 / 384); the producer's warpgroup (warps 8-11) gives up
  registers to 40 (`setmaxnreg.dec`) and warps 9-11 leave; the consumers
  take 232 (`setmaxnreg.inc`) before anything else;
- `_wg56`: the same with 56 / 224 (the producer's code keeps more 64-bit
  values than the matcher's);
(Block 288 gets no more registers than 384: ptxas caps both at 168, a
multiprocessor quarter holding three of the nine warps.)

Every edit is an exact text match that must occur once; every output is
assembled with ptxas (sm_90a) and its spills printed.
usage: python3 make_variants.py   (ptxas: nvidia.cuda_nvcc, or PTXAS=...)"""
import os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = open(os.path.join(HERE, 'matmul_f16_f16__tma.ptx')).read()


def ptxas():
    if os.environ.get('PTXAS'):
        return os.environ['PTXAS']
    import nvidia.cuda_nvcc as m
    return os.path.join(list(m.__path__)[0], 'bin', 'ptxas')


def edit(text, old, new):
    n = text.count(old)
    if n != 1:
        sys.exit(f'edit: {n} matches (want 1) of:\n{old}')
    return text.replace(old, new)


def warpgroup(text, low, high):
    text = edit(text, '.maxntid 288, 1, 1\n', '.maxntid 384, 1, 1\n.minnctapersm 1\n')
    text = edit(text, '\t.reg .pred \t%p<227>;\n', '\t.reg .pred \t%p<227>;\n\t.reg .pred \t%px<2>;\n\t.reg .b32 \t%rx<2>;\n')
    # The role branch: warpgroups 0 and 1 consume; the producer's side
    # follows the branch.
    text = edit(text, '\t@%p2 bra \t$L__BB0_23;\n\t@%p226 bra \t$L__BB0_304;\n',
                '\t@%p2 bra \t$L__BB0_23;\n'
                f'\tsetmaxnreg.dec.sync.aligned.u32 \t{low};\n'
                '\tshr.u32 \t%rx0, %r70, 5;\n\tsetp.ne.u32 \t%px0, %rx0, 8;\n\t@%px0 bra \t$L__BB0_304;\n'
                '\t@%p226 bra \t$L__BB0_304;\n')
    text = edit(text, '$L__BB0_23:\n\t@%p226 bra \t$L__BB0_302;\n',
                f'$L__BB0_23:\n\tsetmaxnreg.inc.sync.aligned.u32 \t{high};\n\t@%p226 bra \t$L__BB0_302;\n')
    return text


variants = {
    'matmul_f16_f16__tma_wg40': warpgroup(BASE, 40, 232),
    'matmul_f16_f16__tma_wg56': warpgroup(BASE, 56, 224),
}
for name, text in variants.items():
    text = text.replace('matmul_f16_f16__tma', name)
    path = os.path.join(HERE, name + '.ptx')
    open(path, 'w').write(text)
    out = subprocess.run([ptxas(), '-arch=sm_90a', '-v', path, '-o', '/dev/null'], capture_output=True, text=True)
    if out.returncode:
        sys.exit(out.stderr)
    print(name, ' '.join(l.strip() for l in out.stderr.splitlines() if 'spill' in l or 'Used' in l))
