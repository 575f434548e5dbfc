#!/usr/bin/env python3
"""Session 30: builds the hand-edited variants of the register path's
128x128x64 wide kernel (`gemm_64x128x32__wide__tma_main30.ptx`, the
compiler's own PTX) that NOTES-session30.md describes, each changing one
thing of its main loop:

  _main30a  4 slots, slot/parity by `& 3` / bit 2 (the matcher's ring: 4
            stages, 2 tiles ahead at the top); 133152 bytes of shared memory
  _main30b  5 slots, the request moved after the iteration's block barrier
            (tile t+3 at the end of iteration t, the matcher's place), its
            slot (still mod 5) computed before the wgmmas, off the path
            from the barrier to the copy
  _main30c  5 slots, 3 tiles ahead (tile t+3 at the top of iteration t, into
            the slot of t-2: the spare slot used for distance)
  _main30d  5 slots, 2 ahead as main30, slot/parity as loop-carried
            counters (no mul.hi): main30's ring with no division

usage: python3 make_main30_variants.py   (writes the .ptx beside it)
"""
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, 'gemm_64x128x32__wide__tma_main30.ptx')
ENTRY = 'gemm_64x128x32__wide__tma_main30'

text = open(SRC).read()
lines = text.split('\n')


def find(pattern, start=0):
    for i in range(start, len(lines)):
        if re.search(pattern, lines[i]):
            return i
    raise ValueError(pattern)


# The loop: from the preheader's `bra.uni $L__BB2_19` to the last request's
# `bra.uni $L__BB2_23` before `$L__BB2_24:` (the code after the loop).
loop_start = find(r'^\s*bra\.uni\s+\$L__BB2_19;')
loop_end = find(r'^\$L__BB2_24:')
# The wgmmas, fence to the last one's inline asm end, as the compiler emits
# them (A's slot in %rd277, B's in %rd275).
fence = find(r'wgmma\.fence\.sync\.aligned', loop_start)
commit = find(r'wgmma\.commit_group\.sync\.aligned', fence)
WGMMAS = '\n'.join(lines[fence:commit])
assert WGMMAS.count('wgmma.mma_async') == 4

# Loop-variable initialisations of the preheader, replaced by the new loop's.
PREHEADER_DROP = [
    r'^\s*mov\.b64\s+%rd278, 0;', r'^\s*mov\.b32\s+%r159, 2;', r'^\s*mov\.b64\s+%rd276, %rd24;',
    r'^\s*mov\.b64\s+%rd277, %rd27;'
]

TILE_BYTES_A = 16384  # A slot: 128 x 64 f16
TILE_BYTES = 32768  # A + B tile of one iteration


def position(x, slots, prefix):
    """(code, slot, parity) of tile index x (a u32 register)."""
    if slots & (slots - 1) == 0:
        bits = slots.bit_length() - 1
        return (f'\tand.b32 \t{prefix}s, {x}, {slots - 1};\n'
                f'\tbfe.u32 \t{prefix}p, {x}, {bits}, 1;\n', f'{prefix}s', f'{prefix}p')
    assert slots == 5
    return (f'\tmul.hi.u32 \t{prefix}h, {x}, -858993459;\n'
            f'\tshr.u32 \t{prefix}q, {prefix}h, 2;\n'
            f'\tmul.lo.s32 \t{prefix}m, {prefix}q, 5;\n'
            f'\tsub.s32 \t{prefix}s, {x}, {prefix}m;\n'
            f'\tand.b32 \t{prefix}p, {prefix}q, 1;\n', f'{prefix}s', f'{prefix}p')


def request_addresses(slot, b_offset, prefix):
    """Slot addresses of a request into `slot` (u32): A, B's two boxes, barrier."""
    return (f'\tmul.wide.u32 \t{prefix}o, {slot}, {TILE_BYTES_A};\n'
            f'\tadd.s64 \t{prefix}A, %rd27, {prefix}o;\n'
            f'\tadd.s64 \t{prefix}B, {prefix}A, {b_offset};\n'
            f'\tadd.s64 \t{prefix}C, {prefix}A, {b_offset + 8192};\n'
            f'\tmul.wide.u32 \t{prefix}w, {slot}, 8;\n'
            f'\tadd.s64 \t{prefix}M, %rd4, {prefix}w;\n')


def request_issue(u, prefix, skip):
    """Thread 0 asks for tile u (u64) where u < n (u <= %rd18 = n - 1)."""
    return (f'\tsetp.ge.u64 \t{prefix}in, %rd18, {u};\n'
            f'\tand.pred \t{prefix}go, %p11, {prefix}in;\n'
            f'\t@!{prefix}go bra \t{skip};\n'
            f'\tmin.s64 \t{prefix}ka, {u}, %rd20;\n'
            f'\tcvt.u32.u64 \t{prefix}ka32, {prefix}ka;\n'
            f'\tshl.b32 \t{prefix}ka32, {prefix}ka32, 6;\n'
            f'\tmin.s64 \t{prefix}kb, {u}, %rd21;\n'
            f'\tcvt.u32.u64 \t{prefix}kb32, {prefix}kb;\n'
            f'\tshl.b32 \t{prefix}kb32, {prefix}kb32, 6;\n'
            f'\tmov.b32 \t{prefix}bytes, {TILE_BYTES};\n'
            f'\tmbarrier.arrive.expect_tx.shared.b64 {prefix}state, [{prefix}M], {prefix}bytes;\n'
            f'\tcp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes '
            f'[{prefix}A], [%rd81, {{{prefix}ka32, %r1}}], [{prefix}M];\n'
            f'\tcp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes '
            f'[{prefix}B], [%rd82, {{%r2, {prefix}kb32}}], [{prefix}M];\n'
            f'\tcp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes '
            f'[{prefix}C], [%rd82, {{%r3, {prefix}kb32}}], [{prefix}M];\n'
            f'{skip}:\n')


def regs(prefix):
    names64 = ['o', 'A', 'B', 'C', 'w', 'M', 'ka', 'kb', 'state', 'u']
    names32 = ['h', 'q', 'm', 's', 'p', 'ka32', 'kb32', 'bytes', 'x', 'mw', 'n']
    preds = ['in', 'go', 'wrap']
    return (''.join(f'\t.reg .b64 \t{prefix}{n};\n' for n in names64) +
            ''.join(f'\t.reg .b32 \t{prefix}{n};\n' for n in names32) +
            ''.join(f'\t.reg .pred \t{prefix}{n};\n' for n in preds))


def make(suffix, slots, ahead, where, math):
    """slots: ring slots; ahead: D, the tiles requested beyond the one
    waited for at the top of an iteration (the prologue asks for tiles 0
    to D - 1 if where == 'top', else 0 to D); where: 'top' (tile t + D at
    the top of iteration t) or 'bottom' (tile t + D + 1 after iteration
    t's block barrier); math: 'div' (the compiler's `% slots`, `/ slots`
    in 32 bits) or 'counter' (slot and parity carried)."""
    b_offset = slots * TILE_BYTES_A + 1024  # the barriers' KiB between the rings
    out = list(lines)
    # New loop.
    L = []
    L.append('\tmov.b64 \t%vt, 0;')
    if math == 'counter':
        L.append('\tmov.b32 \t%vws, 0;')
        L.append('\tmov.b32 \t%vwp, 0;')
        L.append(f'\tmov.b32 \t%vrs, {ahead % slots};')
    L.append('$V_LOOP:')
    body = ''
    if where == 'top':
        body += f'\tadd.s64 \t%Ru, %vt, {ahead};\n'
        if math == 'counter':
            body += request_addresses('%vrs', b_offset, '%R')
        else:
            body += '\tcvt.u32.u64 \t%Rx, %Ru;\n'
            code, slot, _ = position('%Rx', slots, '%R')
            body += code + request_addresses(slot, b_offset, '%R')
        body += request_issue('%Ru', '%R', '$V_REQUESTED')
    # The wait for tile t.
    if math == 'counter':
        wslot, wpar = '%vws', '%vwp'
    else:
        body += '\tcvt.u32.u64 \t%Wx, %vt;\n'
        code, wslot, wpar = position('%Wx', slots, '%W')
        body += code
    body += (f'\tmul.wide.u32 \t%Ww, {wslot}, 8;\n'
             f'\tadd.s64 \t%WM, %rd4, %Ww;\n'
             f'\tcvt.u32.u64 \t%Wmw, %WM;\n'
             f'\tmov.b32 \t%Wn, 10000000;\n'
             '\t{\n\t.reg .pred       P1; \n\tLAB_WAIT: \n'
             f'\tmbarrier.try_wait.parity.shared.b64 P1, [%Wmw], {wpar}, %Wn; \n'
             '\t@P1 bra.uni DONE; \n\tbra.uni     LAB_WAIT; \n\tDONE: \n\t}\n'
             f'\tmul.wide.u32 \t%Wo, {wslot}, {TILE_BYTES_A};\n'
             f'\tadd.s64 \t%rd277, %rd27, %Wo;\n'
             f'\tadd.s64 \t%rd275, %rd277, {b_offset};\n')
    if where == 'bottom':
        # Slot and addresses of tile t + D + 1, before the wgmmas.
        body += f'\tadd.s64 \t%Ru, %vt, {ahead + 1};\n'
        body += '\tcvt.u32.u64 \t%Rx, %Ru;\n'
        code, slot, _ = position('%Rx', slots, '%R')
        body += code + request_addresses(slot, b_offset, '%R')
    body += WGMMAS + '\n'
    body += ('\twgmma.commit_group.sync.aligned;\n'
             '\twgmma.wait_group.sync.aligned \t1;\n'
             '\tbar.sync \t0;\n')
    if where == 'bottom':
        body += request_issue('%Ru', '%R', '$V_REQUESTED')
    if math == 'counter':
        body += ('\tadd.s32 \t%vws, %vws, 1;\n'
                 f'\tsetp.eq.u32 \t%vwrap, %vws, {slots};\n'
                 '\tselp.b32 \t%vws, 0, %vws, %vwrap;\n'
                 '\tselp.b32 \t%vflip, 1, 0, %vwrap;\n'
                 '\txor.b32 \t%vwp, %vwp, %vflip;\n'
                 '\tadd.s32 \t%vrs, %vrs, 1;\n'
                 f'\tsetp.eq.u32 \t%vrwrap, %vrs, {slots};\n'
                 '\tselp.b32 \t%vrs, 0, %vrs, %vrwrap;\n')
    body += ('\tadd.s64 \t%vt, %vt, 1;\n'
             '\tsetp.ne.b64 \t%vmore, %rd28, %vt;\n'
             '\t@%vmore bra \t$V_LOOP;\n')
    L.append(body.rstrip('\n'))
    new_loop = '\n'.join(L)

    decls = (regs('%R') + regs('%W') + '\t.reg .b64 \t%vt;\n\t.reg .b32 \t%vws;\n\t.reg .b32 \t%vwp;\n'
             '\t.reg .b32 \t%vrs;\n\t.reg .b32 \t%vflip;\n\t.reg .pred \t%vwrap;\n\t.reg .pred \t%vrwrap;\n'
             '\t.reg .pred \t%vmore;\n\t.reg .b64 \t%P2A;\n\t.reg .b64 \t%P2B;\n\t.reg .b64 \t%P2C;\n'
             '\t.reg .b64 \t%P2M;\n\t.reg .b64 \t%P2state;\n\t.reg .pred \t%P2in;\n\t.reg .pred \t%P2go;\n'
             '\t.reg .b32 \t%P2bytes;\n\t.reg .b32 \t%P2k;')

    # Replace the loop (and the loop's preheader initialisations).
    out[loop_start:loop_end] = [new_loop]
    drop = [i for i, l in enumerate(out) if any(re.search(p, l) for p in PREHEADER_DROP)]
    assert len(drop) == 4, drop
    for i in reversed(drop):
        del out[i]

    # The ring layout: barriers after the A slots, B's ring a KiB later.
    def sub(old, new, count=1):
        nonlocal out
        s = '\n'.join(out)
        assert s.count(old) == count, (old, s.count(old))
        out = s.replace(old, new).split('\n')

    sub('add.s64 \t%rd4, %rd27, 81920;', f'add.s64 \t%rd4, %rd27, {slots * TILE_BYTES_A};')
    sub('add.s64 \t%rd275, %rd27, 82944;', f'add.s64 \t%rd275, %rd27, {b_offset};')
    if slots == 4:
        sub('\tmbarrier.init.shared.b64 \t[%rd4+32], %r39;\n', '')
    else:
        assert slots == 5

    # A prologue request of tile 2 (where the loop no longer asks for it),
    # only where the loop runs that far (K > 128: no wait after the loop needed).
    first = 3 if where == 'bottom' else ahead
    if first == 3:
        s = '\n'.join(out)
        anchor = '$L__BB2_17:\n'
        assert s.count(anchor) == 1
        p2 = ('\tsetp.gt.u64 \t%P2in, %rd74, 128;\n'
              '\tand.pred \t%P2go, %P2in, %p11;\n'
              '\tadd.s64 \t%P2A, %rd27, 32768;\n'
              f'\tadd.s64 \t%P2B, %rd27, {b_offset + 32768};\n'
              f'\tadd.s64 \t%P2C, %rd27, {b_offset + 32768 + 8192};\n'
              '\tadd.s64 \t%P2M, %rd4, 16;\n'
              '\t@!%P2go bra \t$V_P2;\n'
              '\tmov.b32 \t%P2bytes, 32768;\n'
              '\tmov.b32 \t%P2k, 128;\n'
              '\tmbarrier.arrive.expect_tx.shared.b64 %P2state, [%P2M], %P2bytes;\n'
              '\tcp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes '
              '[%P2A], [%rd81, {%P2k, %r1}], [%P2M];\n'
              '\tcp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes '
              '[%P2B], [%rd82, {%r2, %P2k}], [%P2M];\n'
              '\tcp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes '
              '[%P2C], [%rd82, {%r3, %P2k}], [%P2M];\n'
              '$V_P2:\n')
        # After $L__BB2_17's first lines: %rd18 (n - 1) is defined there.
        i = s.index(anchor) + len(anchor)
        j = s.index('\tsetp.eq.b64 \t%p10, %rd74, 0;\n', i)
        j = j + len('\tsetp.eq.b64 \t%p10, %rd74, 0;\n')
        # %p11 (thread 0) is defined in the loop in main30; define it here.
        p11 = '\tsetp.eq.b32 \t%p11, %r57, 0;\n'
        s = s[:j] + p11 + p2 + s[j:]
        out = s.split('\n')
    else:
        s = '\n'.join(out)
        anchor = '\tsetp.eq.b64 \t%p10, %rd74, 0;\n'
        assert s.count(anchor) == 1
        s = s.replace(anchor, anchor + '\tsetp.eq.b32 \t%p11, %r57, 0;\n')
        out = s.split('\n')

    s = '\n'.join(out)
    # Declarations after the function's own.
    anchor = '\t.reg .b64 \t%rd<279>;\n'
    assert s.count(anchor) == 1
    s = s.replace(anchor, anchor + decls + '\n')
    name = ENTRY + suffix
    s = s.replace(f'.entry {ENTRY}(', f'.entry {name}(')
    header = (f'// {name}: hand-edited from {ENTRY}.ptx by make_main30_variants.py: '
              f'{slots} slots, {ahead} ahead, request at the {where}, slot math {math}\n')
    open(os.path.join(HERE, name + '.ptx'), 'w').write(header + s)
    return name


if __name__ == '__main__':
    for args in [('a', 4, 2, 'top', 'div'), ('b', 5, 2, 'bottom', 'div'), ('c', 5, 3, 'top', 'div'),
                 ('d', 5, 2, 'top', 'counter')]:
        print(make(*args))
