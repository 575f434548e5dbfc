#!/usr/bin/env python3
"""Writes the A/B variants of bench/gemm/persistent.mlir's `__tma` kernel
(session 33 static analysis, ../NOTES.md section 3) into this folder, each
a module header plus one entry, from the two extracts in ../ptx/:

- persistent_head__tma.ptx: head's `gemm_persistent__tma` (256 threads,
  the consumers ask for their own tiles, 4 slots, 165888 B shared memory);
- persistent_walks__tma.ptx: the trial build's (288 threads, a producer
  warp, 5 slots, 198656 B).

Every edit is an exact text match that must occur the number of times
given (else the script stops), and every output is checked with ptxas
(sm_90a). The walks variants get the bundle variant `gemm_persistent__walks`
(block 288, 198656 B); head's get `gemm_persistent__tma`.

usage: python3 make_variants.py   (needs ptxas: nvidia.cuda_nvcc, or PTXAS=...)
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PTX = os.path.join(HERE, '..', 'ptx')
HEAD = open(os.path.join(PTX, 'persistent_head__tma.ptx')).read()
WALKS = open(os.path.join(PTX, 'persistent_walks__tma.ptx')).read()


def ptxas():
    if os.environ.get('PTXAS'):
        return os.environ['PTXAS']
    import nvidia.cuda_nvcc as m
    return os.path.join(list(m.__path__)[0], 'bin', 'ptxas')


def edit(text, old, new, count=1):
    n = text.count(old)
    if n != count:
        sys.exit(f'edit: {n} matches (want {count}) of:\n{old}')
    return text.replace(old, new)


def rename(text, entry):
    return text.replace('gemm_persistent__tma', entry)


# The producer's three `empty` waits in walks (tile 0 and tile 1 of a walk
# before its loop, tile k + 2 in the loop): (hint register, address, parity,
# the global tile index g of the request, a 32-bit register).
PRODUCER_WAITS = [('%r163', '%r161', '%r162', '%r2'),
                  ('%r173', '%r171', '%r172', '%r178'),
                  ('%r188', '%r186', '%r187', '%r198')]
CONSUMER_WAIT_WALKS = ('%r64', '%r62', '%r63')
CONSUMER_WAIT_HEAD = ('%r72', '%r70', '%r71')


def wait_line(hint, address, parity):
    return f'mbarrier.try_wait.parity.shared.b64 P1, [{address}], {parity}, {hint}; '


def no_hint(text, waits):
    """try_wait without the suspend-time hint (SASS: a TRYWAIT loop, no
    NANOSLEEP.SYNCS)."""
    for hint, address, parity, *_ in waits:
        text = edit(text, wait_line(hint, address, parity),
                    f'mbarrier.try_wait.parity.shared.b64 P1, [{address}], {parity}; ')
    return text


def spin(text, waits):
    """test_wait polling (SASS: a PHASECHK loop, never suspended)."""
    for hint, address, parity, *_ in waits:
        text = edit(text, wait_line(hint, address, parity),
                    f'mbarrier.test_wait.parity.shared.b64 P1, [{address}], {parity}; ')
    return text


def lookahead3(text):
    """Before the producer asks for global tile g (g = walk * nk + k, the
    index the ring's slot and phase come from), it waits until tile g - 3
    has arrived: its `full` barrier, slot (g - 3) mod 5, phase parity
    ((g - 3) / 5) & 1, the parity the consumers wait with. So at most 3
    tiles are in flight when a request is made, as in head (request of
    k + 2 at the top of iteration k, after iteration k - 1 waited for tile
    k - 1). Safe: the producer asks in order of g, so tile g + 2 (the next
    one in that slot) is not asked for yet and the barrier is in the phase
    of g - 3 or the one after it; the wait changes no barrier state."""
    for hint, address, parity, g in PRODUCER_WAITS:
        gate = f'''	// s33 lookahead 3: wait for tile {g} - 3 (its full barrier)
	{{
	.reg .pred %la3p, %la3w;
	.reg .b32 %la3h, %la3s, %la3r, %la3a, %la3t;
	setp.lt.u32 %la3p, {g}, 3;
	@%la3p bra.uni LA3_DONE;
	sub.s32 %la3h, {g}, 3;
	div.u32 %la3r, %la3h, 5;
	mul.lo.s32 %la3s, %la3r, 5;
	sub.s32 %la3s, %la3h, %la3s;
	and.b32 %la3r, %la3r, 1;
	cvt.u32.u64 %la3a, %rd5;
	mad.lo.s32 %la3a, %la3s, 8, %la3a;
	mov.b32 %la3t, 10000000;
	LA3_WAIT:
	mbarrier.try_wait.parity.shared.b64 %la3w, [%la3a], %la3r, %la3t;
	@!%la3w bra.uni LA3_WAIT;
	LA3_DONE:
	}}
'''
        anchor = f'\tmov.b32 \t{hint}, 10000000;\n'
        text = edit(text, anchor, gate + anchor)
    return text


# %rd5 in walks is the first `full` barrier (81920 bytes into the 1 KiB
# aligned dynamic shared memory; the `empty` ones follow at +40).
assert '\tadd.s64 \t%rd5, %rd4, 81920;\n' in WALKS
# The producer's waits are the three in the producer's branch (before
# $L__BB0_32, the consumers' start).
producer_part = WALKS[:WALKS.index('$L__BB0_32:\n\t@%p134')]
for hint, address, parity, g in PRODUCER_WAITS:
    assert wait_line(hint, address, parity) in producer_part, hint
assert wait_line(*CONSUMER_WAIT_WALKS) in WALKS[WALKS.index('$L__BB0_32:\n\t@%p134'):]

variants = {
    # the two builds as they are
    'gemm_persistent__tma': HEAD,
    'gemm_persistent__walks': WALKS,
    # head with walks' dynamic shared memory (ab.py --smem, a control for
    # the carveout: same code)
    'gemm_persistent__tma_smem': HEAD,
    # head, the consumers' full wait without the suspend hint (control)
    'gemm_persistent__tma_nohint': no_hint(HEAD, [CONSUMER_WAIT_HEAD]),
    # walks, the producer's empty waits without the suspend hint
    'gemm_persistent__walks_nohint': no_hint(WALKS, PRODUCER_WAITS),
    # walks, every wait (producer and consumers) without the hint
    'gemm_persistent__walks_nohintall': no_hint(no_hint(WALKS, PRODUCER_WAITS), [CONSUMER_WAIT_WALKS]),
    # walks, the producer polls its empty barriers (test_wait)
    'gemm_persistent__walks_spin': spin(WALKS, PRODUCER_WAITS),
    # walks, at most 3 tiles in flight at a request (head's depth)
    'gemm_persistent__walks_la3': lookahead3(WALKS),
}

PTXAS = ptxas()
for name, text in variants.items():
    out = os.path.join(HERE, name + '.ptx')
    text = rename(text, name)
    assert len(re.findall(r'^\.visible \.entry', text, re.M)) == 1
    open(out, 'w').write(text)
    cubin = f'/tmp/{name}.cubin'
    p = subprocess.run([PTXAS, '-arch=sm_90a', '-v', out, '-o', cubin], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f'{name}: ptxas failed\n{p.stderr}')
    regs = re.search(r'Used (\d+) registers', p.stderr).group(1)
    spill = re.search(r'(\d+) bytes spill stores', p.stderr).group(1)
    params = len(re.findall(rf'\.param\s+\.u64\s+(?:\.ptr\s+\.align\s+\d+\s+)?{name}_param_\d+', text))
    block = re.search(r'\.maxntid\s+(\d+)', text).group(1)
    print(f'{name:36s} ptxas ok, {regs} registers, {spill} B spilled, {params} parameters, .maxntid {block}')
