#!/usr/bin/env python3
"""Session 32 (producer gap): builds hand-edited variants of the register
path's `matmul_f16_f16__tma` (examples/matmul_f16_f16.mlir, config
tile_m=64,tile_n=128,num_stages=8,warp_specialize=1, as emitted beside this
script) that each move ONE thing toward the matcher's `__wgmma` (NOTES.md
says why each is correct):

  _a  release per warp: the `empty` barriers count 4 arrivals (the consumer
      warps), and only lane 0 of each consumer warp arrives, predicated,
      after the warp's `wgmma.wait_group 1` (the matcher's protocol; the
      compiler's has every consumer thread arrive, count 128)
  _b  producer predicated, not branched: the whole producer warp runs the
      requests' waits on `empty`; only thread 128 issues the expect_tx and
      the copies, each predicated (the compiler branches lane 0 into them)
  _c  consumer slot arithmetic as the matcher's: slot, parity and the
      slots' addresses computed from k in 32 bits at the top of each
      iteration (the compiler carries five-deep rotated 64-bit pointers)
  _d  8 tiles requested before the loop (the compiler: 5, its distance),
      the loop's requests from tile 8; the drain after the loop waits for
      first tiles 5-7 too (a control: the loop's tiles 5-7 do not wait)
  _g  the consumer/producer split on a warp-uniform value (`shfl.sync` of
      tid / 128, as the matcher), so that ptxas knows the consumers'
      region is warp-uniform
  _e  a + b + c + g
  _f  e with a producer warpgroup: block 256 (`.maxntid 256`), warps 4-7
      all wait on `empty`, thread 128 issues (the matcher's launch shape)

And for the 128x256x4 config (wide/, the compiler's 3-slot ring whose mma
is waited for every iteration):

  wide/_w  the consumers keep the mma in flight (`wgmma.wait_group 1`)
           and release the previous tile's slot, `wgmma.wait_group 0`
           after the loop, as the matcher

usage: python3 make_variants.py     (writes the .ptx beside it and in wide/;
       each is checked with ptxas -arch=sm_90a when ptxas is found)
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = 'matmul_f16_f16__tma'


def once(text, old, new, what):
    n = text.count(old)
    if n != 1:
        raise SystemExit(f'{what}: expected one match of {old!r}, found {n}')
    return text.replace(old, new)


def count(text, old, n, what):
    got = text.count(old)
    if got != n:
        raise SystemExit(f'{what}: expected {n} of {old!r}, found {got}')


# Registers of the edits (names the compiler never uses).
EXTRA_REGS = '\t.reg .pred \t%pv<16>;\n\t.reg .b32 \t%rv<64>;\n\t.reg .b64 \t%rdv<64>;\n'


def add_registers(text):
    if '%pv<16>' in text:
        return text
    return once(text, '\t.reg .b64 \t%rd<301>;\n', '\t.reg .b64 \t%rd<301>;\n' + EXTRA_REGS, 'registers')


def wait_asm(barrier, parity, ticks):
    """The compiler's try_wait loop (a scope of its own, so labels repeat)."""
    return ('\t// begin inline asm\n\t{\n\t.reg .pred       P1; \n\tLAB_WAIT: \n'
            f'\tmbarrier.try_wait.parity.shared.b64 P1, [{barrier}], {parity}, {ticks}; \n'
            '\t@P1 bra.uni DONE; \n\tbra.uni     LAB_WAIT; \n\tDONE: \n\t}\n\t// end inline asm\n')


def producer_region(text):
    """(start, end) of the producer warp's code: after the role branch to
    the consumers ($L__BB0_14) up to that label."""
    start = text.index('\t@%p5 bra \t$L__BB0_14;\n')
    end = text.index('$L__BB0_14:\n')
    return start, end


# --- a: release per warp ---------------------------------------------------
def edit_a(text):
    text = add_registers(text)
    # The `empty` barriers (the 8 after the `full` ones) count 4 arrivals.
    text = once(text, '\tmov.b32 \t%r37, 128;\n', '\tmov.b32 \t%r37, 4;\n', 'a: empty count')
    count(text, 'mbarrier.init.shared.b64 \t[%rd4+', 15, 'a: inits')
    # Only lane 0 of each consumer warp arrives, after the warp's wait_group 1
    # (its lane computed once, where the consumers start, from the thread
    # index %r42 the role branch reads).
    text = once(text, '$L__BB0_14:\n', '$L__BB0_14:\n\tand.b32 \t%rv0, %r42, 31;\n'
                '\tsetp.eq.b32 \t%pv0, %rv0, 0;\n', 'a: lane')
    # One predicate (k > 0 and lane 0) in place of the branch on k > 0, so
    # that ptxas if-converts the arrival as it does the compiler's (a branch
    # around the predicated arrival made it a BSSY region and moved the
    # wgmmas' descriptors out of the uniform registers).
    text = once(text, '\tsetp.eq.b64 \t%p7, %rd299, 0;\n\t@%p7 bra \t$L__BB0_18;\n',
                '\tsetp.ne.b64 \t%pv2, %rd299, 0;\n\tand.pred \t%pv3, %pv2, %pv0;\n', 'a: k > 0')
    text = once(text, '\tmbarrier.arrive.shared.b64 \t%rd123, [%rd29];\n',
                '\t@%pv3 mbarrier.arrive.shared.b64 \t%rd123, [%rd29];\n', 'a: release')
    return text


# --- b: producer predicated ------------------------------------------------
def edit_b(text):
    start, end = producer_region(text)
    region = text[start:end]
    # The two branches that send lanes other than thread 128 around the
    # first tiles' requests go; their ops are predicated instead.
    region = once(region, '\t@%p121 bra \t$L__BB0_7;\n', '', 'b: first branch')
    region = once(region, '\t@%p121 bra \t$L__BB0_9;\n', '', 'b: second branch')
    # The loop's request: the branch keeps its uniform part (the loop's end).
    region = once(region, '\tor.pred \t%p123, %p121, %p122;\n\t@%p123 bra \t$L__BB0_13;\n',
                  '\t@%p122 bra \t$L__BB0_13;\n', 'b: loop branch')
    lines = region.split('\n')
    expect, copies = 0, 0
    for i, line in enumerate(lines):
        if line.startswith('\tmbarrier.arrive.expect_tx'):
            lines[i] = '\t@!%p121 ' + line[1:]
            expect += 1
        elif line.startswith('\tcp.async.bulk.tensor'):
            lines[i] = '\t@!%p121 ' + line[1:]
            copies += 1
    if (expect, copies) != (6, 18):
        raise SystemExit(f'b: predicated {expect} expect_tx and {copies} copies, expected 6 and 18')
    return text[:start] + '\n'.join(lines) + text[end:]


# --- c: consumer slot arithmetic -------------------------------------------
def edit_c(text):
    text = add_registers(text)
    # The preheader's rotated pointers go (the accumulators' zeros stay).
    for line in ['\tadd.s64 \t%rd289, %rd23, 32768;\n', '\tadd.s64 \t%rd290, %rd22, 65536;\n',
                 '\tadd.s64 \t%rd291, %rd22, 49152;\n', '\tadd.s64 \t%rd295, %rd23, 24576;\n',
                 '\tadd.s64 \t%rd292, %rd22, 32768;\n', '\tadd.s64 \t%rd296, %rd23, 16384;\n',
                 '\tadd.s64 \t%rd293, %rd22, 16384;\n', '\tmov.b64 \t%rd288, 56;\n',
                 '\tmov.b64 \t%rd294, %rd22;\n', '\tmov.b64 \t%rd297, %rd21;\n', '\tmov.b64 \t%rd298, %rd23;\n']:
        text = once(text, line, '', 'c: preheader')
    # The latch: only the counter.
    text = once(
        text, '$L__BB0_18:\n\tadd.s64 \t%rd299, %rd299, 1;\n\tadd.s64 \t%rd290, %rd28, %rd22;\n'
        '\tadd.s64 \t%rd289, %rd27, %rd23;\n\tadd.s64 \t%rd288, %rd288, 8;\n'
        '\tsetp.ne.b64 \t%p8, %rd300, %rd299;\n\tmov.b64 \t%rd294, %rd25;\n\tmov.b64 \t%rd298, %rd26;\n',
        '$L__BB0_18:\n\tadd.s64 \t%rd299, %rd299, 1;\n\tsetp.ne.b64 \t%p8, %rd300, %rd299;\n', 'c: latch')
    # The body's top: slot (k & 7), parity (bit 3 of k), the full barrier,
    # A's slot (8 KiB each from %rd23) and B's (16 KiB each from %rd22).
    old_top = ('$L__BB0_16:\n\tmov.b64 \t%rd26, %rd297;\n\tmov.b64 \t%rd297, %rd296;\n'
               '\tmov.b64 \t%rd296, %rd295;\n\tmov.b64 \t%rd25, %rd293;\n\tmov.b64 \t%rd293, %rd292;\n'
               '\tmov.b64 \t%rd292, %rd291;\n\tmov.b64 \t%rd291, %rd290;\n\tmov.b64 \t%rd295, %rd289;\n'
               '\tadd.s64 \t%rd115, %rd299, 5;\n\tand.b64 \t%rd116, %rd115, 7;\n\tshl.b64 \t%rd27, %rd116, 13;\n'
               '\tshl.b64 \t%rd28, %rd116, 14;\n\tadd.s64 \t%rd117, %rd288, -56;\n\tand.b64 \t%rd118, %rd117, 56;\n'
               '\tadd.s64 \t%rd119, %rd118, %rd4;\n\tcvt.u32.u64 \t%r52, %rd299;\n\tbfe.u32 \t%r50, %r52, 3, 1;\n'
               '\tcvt.u32.u64 \t%r49, %rd119;\n')
    new_top = ('$L__BB0_16:\n\tcvt.u32.u64 \t%rv1, %rd299;\n\tand.b32 \t%rv2, %rv1, 7;\n'
               '\tbfe.u32 \t%r50, %rv1, 3, 1;\n\tshl.b32 \t%rv3, %rv2, 3;\n\tcvt.u32.u64 \t%rv4, %rd4;\n'
               '\tadd.s32 \t%r49, %rv4, %rv3;\n'
               '\tmul.wide.u32 \t%rdv1, %rv2, 8192;\n\tadd.s64 \t%rdv2, %rd23, %rdv1;\n'
               '\tmul.wide.u32 \t%rdv3, %rv2, 16384;\n\tadd.s64 \t%rdv4, %rd22, %rdv3;\n')
    text = once(text, old_top, new_top, 'c: body top')
    text = once(text, '\tbfe.u64 \t%rd120, %rd298, 4, 14;\n', '\tbfe.u64 \t%rd120, %rdv2, 4, 14;\n', 'c: A desc')
    text = once(text, '\tbfe.u64 \t%rd121, %rd294, 4, 14;\n', '\tbfe.u64 \t%rd121, %rdv4, 4, 14;\n', 'c: B desc')
    # The release of tile k - 1: empty[(k + 7) & 7] (8 bytes each from %rd24).
    text = once(text, '\tand.b64 \t%rd122, %rd288, 56;\n\tadd.s64 \t%rd29, %rd24, %rd122;\n',
                '\tadd.s32 \t%rv5, %rv1, 7;\n\tand.b32 \t%rv6, %rv5, 7;\n\tmul.wide.u32 \t%rdv5, %rv6, 8;\n'
                '\tadd.s64 \t%rd29, %rd24, %rdv5;\n', 'c: release address')
    for reg in ['%rd288', '%rd289', '%rd290', '%rd291', '%rd292', '%rd293', '%rd294', '%rd295', '%rd296',
                '%rd297', '%rd298', '%rd25,', '%rd26,', '%rd27,', '%rd28,']:
        if re.search(re.escape(reg) + r'(?!\d)', text):
            raise SystemExit(f'c: {reg} still used')
    return text


# --- d: 8 tiles before the loop ----------------------------------------------
def edit_d(text):
    text = add_registers(text)
    # First tiles 5-7 after tile 4, in the same region (thread 128 only, or
    # predicated where b applied), each as the compiler writes tile 4's.
    pred = '@!%p121 ' if '@!%p121 cp.async' in text else ''
    extra = ''
    for s in (5, 6, 7):
        v = 10 + 6 * (s - 5)
        extra += (f'\tmin.u64 \t%rdv{v}, %rd15, {s};\n'
                  f'\tadd.s32 \t%rv{v}, %r151, {64 + 8 * s};\n' + wait_asm(f'%rv{v}', '%r144', '%r145') +
                  f'\t{pred}mbarrier.arrive.expect_tx.shared.b64 %rdv{v + 1}, [%rd4+{8 * s}], %r152;\n'
                  f'\tcvt.u32.u64 \t%rv{v + 1}, %rdv{v};\n\tshl.b32 \t%rv{v + 2}, %rv{v + 1}, 6;\n'
                  f'\t{pred}cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes '
                  f'[%rd23+{8192 * s}], [%rd81, {{%rv{v + 2}, %r1}}], [%rd4+{8 * s}];\n'
                  f'\tmin.u64 \t%rdv{v + 2}, %rd17, {s};\n\tcvt.u32.u64 \t%rv{v + 3}, %rdv{v + 2};\n'
                  f'\tshl.b32 \t%rv{v + 4}, %rv{v + 3}, 6;\n'
                  f'\t{pred}cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes '
                  f'[%rd22+{16384 * s}], [%rd82, {{%r176, %rv{v + 4}}}], [%rd4+{8 * s}];\n'
                  f'\t{pred}cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes '
                  f'[%rd22+{16384 * s + 8192}], [%rd82, {{%r150, %rv{v + 4}}}], [%rd4+{8 * s}];\n')
    last = ('[%rd22+73728], [%rd82, {%r150, %r165}], [%rd4+32];\n$L__BB0_9:\n')
    text = once(text, last, last.replace('$L__BB0_9:\n', extra + '$L__BB0_9:\n'), 'd: first tiles')
    # The loop's requests from tile 8; it ends where it ended (after tile
    # n + 4, n the trip count), or at once if that is behind it (n < 4).
    text = once(text, '\tmov.b64 \t%rd287, 5;\n', '\tmov.b64 \t%rd287, 8;\n', 'd: loop start')
    text = once(text, '\tsetp.eq.b64 \t%p124, %rd284, 6;\n', '\tsetp.ge.s64 \t%p124, %rd284, 6;\n', 'd: loop end')
    # The drain: first tiles 5-7 that lie past the loop's end (n <= d).
    drain = ''
    for s in (5, 6, 7):
        p, v = s - 4, 40 + 3 * (s - 5)
        drain += (f'\tsetp.gt.u64 \t%pv{p}, %rd300, {s};\n\t@%pv{p} bra \t$L__PG_DRAIN{s};\n'
                  f'\tadd.s64 \t%rdv{v}, %rd4, {8 * s};\n\tcvt.u32.u64 \t%rv{v}, %rdv{v};\n'
                  f'\tmov.b32 \t%rv{v + 1}, 0;\n\tmov.b32 \t%rv{v + 2}, 10000000;\n' +
                  wait_asm(f'%rv{v}', f'%rv{v + 1}', f'%rv{v + 2}') + f'$L__PG_DRAIN{s}:\n')
    text = once(text, '$L__BB0_29:\n', '$L__BB0_29:\n' + drain, 'd: drain')
    return text


# --- g: the role from a warp-uniform value -----------------------------------
def edit_g(text):
    text = add_registers(text)
    return once(text, '\tsetp.lt.u32 \t%p5, %r42, 128;\n',
                '\tshr.u32 \t%rv50, %r42, 7;\n\tshfl.sync.idx.b32 \t%rv51, %rv50, 0, 31, -1;\n'
                '\tsetp.eq.b32 \t%p5, %rv51, 0;\n', 'g: role')


# --- f: a producer warpgroup -------------------------------------------------
def edit_f(text):
    return once(text, '.maxntid 160, 1, 1\n', '.maxntid 256, 1, 1\n', 'f: block')


# --- wide/_w: the mma kept in flight -----------------------------------------
def edit_w(text):
    # In the loop: wait_group 1, then the release of the previous tile's
    # slot (%rd456 is k; the release address is that of k - 1, only k > 0).
    old = ('\twgmma.commit_group.sync.aligned;\n\t// begin inline asm\n\twgmma.wait_group.sync.aligned 0;\n'
           '\t// end inline asm\n\tmbarrier.arrive.shared.b64 \t%rd149, [%rd145+24];\n')
    # (%r94 is tile k's slot, k mod 3, computed above for its wait; the
    # previous tile's is 2 where that is 0, else one less. The arrival is
    # predicated, not branched around, as the compiler's release is.)
    count(text, '\tsub.s32 \t%r94, %r90, %r93;\n', 1, 'w: slot')
    new = ('\twgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 1;\n'
           '\tsetp.ne.b64 \t%pv0, %rd456, 0;\n'
           '\tsetp.eq.b32 \t%pv1, %r94, 0;\n\tadd.s32 \t%rv0, %r94, -1;\n\tselp.b32 \t%rv1, 2, %rv0, %pv1;\n'
           '\tmul.wide.u32 \t%rdv0, %rv1, 8;\n\tadd.s64 \t%rdv1, %rd4, %rdv0;\n'
           '\t@%pv0 mbarrier.arrive.shared.b64 \t%rdv2, [%rdv1+24];\n')
    text = once(text, old, new, 'w: loop wait')
    # After the loop (before the accumulators are read): wait for all.
    text = once(text, '\t@%p7 bra \t$L__BB0_16;\n\tcvt.rn.f16x2.f32 \t%r5, %r133, %r132;\n',
                '\t@%p7 bra \t$L__BB0_16;\n\twgmma.wait_group.sync.aligned 0;\n'
                '\tcvt.rn.f16x2.f32 \t%r5, %r133, %r132;\n', 'w: after loop')
    return text.replace('\t.reg .b64 \t%rd<459>;\n', '\t.reg .b64 \t%rd<459>;\n' + EXTRA_REGS)


VARIANTS = {
    'a': [edit_a],
    'b': [edit_b],
    'c': [edit_c],
    'd': [edit_d],
    'g': [edit_g],
    'e': [edit_c, edit_a, edit_b, edit_g],
    'f': [edit_c, edit_a, edit_b, edit_g, edit_f],
    # Session 33: b (the best single change, run 1) with each other.
    'bc': [edit_c, edit_b],
    'ab': [edit_a, edit_b],
    'bg': [edit_b, edit_g],
    'bcg': [edit_c, edit_b, edit_g],
    'abc': [edit_c, edit_a, edit_b],
}


def rename(text, name):
    text = text.replace(BASE + '(', name + '(').replace(BASE + '_param_', name + '_param_')
    assert f'.entry {name}(' in text
    return text


def ptxas_check(path):
    try:
        import nvidia.cuda_nvcc as m
        ptxas = os.path.join(list(m.__path__)[0], 'bin', 'ptxas')
    except ImportError:
        ptxas = 'ptxas'
    try:
        out = subprocess.run([ptxas, '-arch=sm_90a', '-v', path, '-o', os.devnull], capture_output=True, text=True)
    except FileNotFoundError:
        print(f'  (no ptxas: {path} not checked)')
        return
    if out.returncode != 0:
        raise SystemExit(f'ptxas refused {path}:\n{out.stderr}')
    info = [l for l in out.stderr.splitlines() if 'Used' in l or 'spill' in l or 'C75' in l]
    print('  ' + ' | '.join(s.split('info    : ')[-1].strip() for s in info))


def main():
    base = open(os.path.join(HERE, BASE + '.ptx')).read()
    for letter, edits in VARIANTS.items():
        text = base
        for edit in edits:
            text = edit(text)
        name = f'{BASE}_{letter}'
        path = os.path.join(HERE, name + '.ptx')
        open(path, 'w').write(rename(text, name))
        print(path)
        ptxas_check(path)
    wide = open(os.path.join(HERE, 'wide', BASE + '.ptx')).read()
    path = os.path.join(HERE, 'wide', BASE + '_w.ptx')
    open(path, 'w').write(rename(edit_w(wide), BASE + '_w'))
    print(path)
    ptxas_check(path)


if __name__ == '__main__':
    sys.exit(main())
