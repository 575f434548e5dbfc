#!/usr/bin/env python3
"""Hand-edited PTX variants of the tf32 and f8 TMA variants (`gemm_tf32__tma`,
`gemm_f8__tma`) as `tile-run --emit-ptx` makes them (one entry a file, the
module header kept). Transformations of the consumers' main loop:

  inflight  the mma stays in flight across iterations: the loop body twice
            (even / odd iterations), the odd copy's B^T fragment registers
            renamed (two sets), `wgmma.wait_group 1` instead of 0 after the
            commit, the slot of the previous iteration given back (its
            `empty` arrival) after that wait, `wait_group 0` and the last
            arrival after the loop. Needs an even or odd trip count alike.
  ldsm      (f8 only) B^T's fragments by `ldmatrix.x4.trans.b16` (4 a K
            step instead of 64 `ld.shared.b8`): wgmma rows p, p + 8 of a
            warp's 16 hold C columns 2p, 2p + 1 (not p, p + 8), the 8 K rows
            of each 8x8 matrix chosen with distinct k % 8 (no bank conflict,
            tools/banks.py), a per-thread `prmt` selector. The epilogue is
            unchanged, so the output's columns come out permuted within
            each group of 16: out[:, 16g + p + 8i] = C[:, 16g + 2p + i]
            (the harness undoes it).
  fakeuse   (with inflight) after the wait that retires an iteration's
            wgmmas, a never-taken predicated store of its fragment
            registers, so that ptxas keeps them live (and unshared) until
            then, whatever it assumes about wgmma's register reads.

usage: python3 make_variants.py SRC_DIR OUT_DIR [--hazard-demo]
  SRC_DIR holds gemm_tf32__tma.ptx, gemm_f8__tma.ptx, k32_gemm_tf32__tma.ptx
  (tf32.mlir with K tiles of 32), gemm_f8_abt__tma.ptx.
"""
import os
import re
import sys


def loop_bounds(lines):
    """(first, last) line indexes of the consumers' main loop: the label
    before the first wgmma.mma_async and the back branch to it."""
    first_mma = next(i for i, l in enumerate(lines) if 'wgmma.mma_async' in l)
    label_at = max(i for i in range(first_mma) if re.match(r'^\$L__BB\d+_\d+:', lines[i]))
    label = lines[label_at].rstrip(':\n')
    back = next(i for i in range(first_mma, len(lines)) if re.search(r'bra\s+' + re.escape(label) + ';', lines[i]))
    return label_at, back, label


def fragment_registers(body):
    """The A-fragment registers of the loop's wgmmas, in order."""
    regs = []
    for l in body:
        for m in re.finditer(r'\}, \{(%r\d+), (%r\d+), (%r\d+), (%r\d+)\}, %rd\d+', l):
            regs += list(m.groups())
    return regs


def declarations_end(lines):
    """Index past the entry's own .reg declarations (the run of `.reg`
    lines after its opening brace; inline assembly declares more inside)."""
    entry = next(i for i, l in enumerate(lines) if '.entry ' in l)
    first = next(i for i in range(entry, len(lines)) if lines[i].strip().startswith('.reg '))
    end = first
    while lines[end].strip().startswith('.reg '):
        end += 1
    return end


def add_declarations(lines, decls):
    """New .reg declarations after the entry's existing ones."""
    at = declarations_end(lines)
    return lines[:at] + decls + lines[at:]


def kernel_start(lines):
    """Index of the first instruction after the declarations."""
    return declarations_end(lines)


def inflight(text, fakeuse=False):
    lines = text.splitlines(keepends=True)
    first, back, label = loop_bounds(lines)
    body = lines[first + 1:back + 1]          # without the label, with the back branch
    frags = fragment_registers(body)
    # The release of the iteration's slot and its barrier register.
    rel_i = next(i for i, l in enumerate(body) if 'mbarrier.arrive.shared.b64' in l)
    m = re.search(r'mbarrier\.arrive\.shared\.b64\s+(%rd\d+), \[(%rd\d+)\+(\d+)\];', body[rel_i])
    _, bar, off = m.groups()
    wait_i = next(i for i, l in enumerate(body) if 'wgmma.wait_group.sync.aligned 0' in l)
    cond = re.search(r'@(%p\d+) bra', body[-1])[1]
    exit_label = '$Lx_exit'
    odd_label = '$Lx_odd'

    def copy(rename, last):
        out = []
        for i, l in enumerate(body):
            if rename:
                l = re.sub(r'%r(\d+)\b', lambda mm: rename.get('%r' + mm[1], '%r' + mm[1]), l)
            if i == wait_i:
                out.append('\twgmma.wait_group.sync.aligned 1;\n')
                # The previous iteration's wgmmas are done: its slot goes back.
                out.append('\tsetp.ne.b64 \t%xp0, %xprev, 0;\n')
                out.append(f'\t@%xp0 mbarrier.arrive.shared.b64 \t%xst, [%xprev+{off}];\n')
                if fakeuse:
                    other = frags if rename else [renames[r] for r in frags]
                    for j in range(0, len(other), 4):
                        out.append(f'\t@%xnever st.shared.v4.b32 \t[%xprev+{j * 4}], {{{", ".join(other[j:j + 4])}}};\n')
                out.append(f'\tmov.b64 \t%xprev, {bar};\n')
                continue
            if i == rel_i:
                continue
            if i == len(body) - 1:
                if last:
                    out.append(l)
                    out.append(f'{exit_label}:\n')
                    out.append('\twgmma.wait_group.sync.aligned 0;\n')
                    out.append('\tsetp.ne.b64 \t%xp0, %xprev, 0;\n')
                    out.append(f'\t@%xp0 mbarrier.arrive.shared.b64 \t%xst, [%xprev+{off}];\n')
                else:
                    out.append(f'\t@!{cond} bra \t{exit_label};\n')
                    out.append(f'{odd_label}:\n')
                continue
            out.append(l)
        return out

    renames = {r: f'%xf{j}' for j, r in enumerate(frags)}
    new = lines[:first + 1] + copy(None, False) + copy(renames, True) + lines[back + 1:]
    decls = ['\t.reg .b64 \t%xprev;\n', '\t.reg .b64 \t%xst;\n', '\t.reg .pred \t%xp0;\n',
             '\t.reg .pred \t%xnever;\n', f'\t.reg .b32 \t%xf<{len(frags)}>;\n']
    new = add_declarations(new, decls)
    start = kernel_start(new)
    init = ['\tmov.b64 \t%xprev, 0;\n']
    if fakeuse:
        # A never-true predicate ptxas cannot fold: A's row count (param_3) is no 1234567.
        entry = re.search(r'\.entry\s+(\w+)\(', text)[1]
        init += [f'\tld.param.b64 \t%xst, [{entry}_param_3];\n', '\tsetp.eq.u64 \t%xnever, %xst, 1234567;\n']
    return ''.join(new[:start] + init + new[start:])


def ldsm(text):
    """f8: B^T's fragments by ldmatrix.x4.trans (see the module doc)."""
    lines = text.splitlines(keepends=True)
    first, back, label = loop_bounds(lines)
    body = lines[first + 1:back + 1]
    frags = fragment_registers(body)
    assert len(frags) == 16, frags
    loads = [i for i, l in enumerate(body) if 'ld.shared.b8' in l]
    lo, hi = loads[0], max(i for i, l in enumerate(body) if l.strip().startswith('prmt.b32') and frags[-1] + ',' in l)
    # The B slot's base: the first operand of the add that makes the first
    # byte load's address (`add.s64 %rdA, SLOT, THREAD_OFFSET`).
    address = re.search(r'ld\.shared\.b8\s+%r\d+, \[(%rd\d+)[+\]]', body[lo])[1]
    define = next(l for l in body[:lo] if re.match(r'\s*add\.s64\s+' + address + r', ', l))
    slot = re.search(r'add\.s64\s+%rd\d+, (%rd\d+), %rd\d+;', define)[1]
    new_body = [f'\tadd.s64 \t%xb, {slot}, %xoff;\n']
    for s in range(4):
        new_body.append(f'\tldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 \t{{%xm0, %xm1, %xm2, %xm3}}, [%xb+{4096 * s}];\n')
        r = frags[4 * s:4 * s + 4]
        new_body += [f'\tprmt.b32 \t{r[0]}, %xm0, %xm1, %xsel0;\n', f'\tprmt.b32 \t{r[1]}, %xm0, %xm1, %xsel1;\n',
                     f'\tprmt.b32 \t{r[2]}, %xm2, %xm3, %xsel0;\n', f'\tprmt.b32 \t{r[3]}, %xm2, %xm3, %xsel1;\n']
    body = body[:lo] + new_body + body[hi + 1:]
    new = lines[:first + 1] + body + lines[back + 1:]
    regs32 = ['xt', 'xlane', 'xwarp', 'xm', 'xi', 'xq', 'xe', 'xhi', 'xmodd', 'xo', 'xmh', 'xk', 'xq4', 'xk7', 'xc',
              'xkr', 'xoffs', 'xqq', 'xh2', 'xsel0', 'xsel1', 'xm0', 'xm1', 'xm2', 'xm3']
    decls = [f'\t.reg .b32 \t%{r};\n' for r in regs32] + ['\t.reg .b64 \t%xoff;\n', '\t.reg .b64 \t%xb;\n',
                                                          '\t.reg .pred \t%xps;\n']
    new = add_declarations(new, decls)
    start = kernel_start(new)
    # Lane L gives row L % 8 of matrix L / 8 (m): q = i / 2, e = i % 2,
    # k = 16 (m / 2) + 4 q + e + 2 ((m % 2) ^ (q >= 2)); the row's 16 bytes
    # are the warp's 16 columns, chunk `warp` of the 128-byte row, swizzled
    # by k % 8. Thread t receives rows 2 (t % 4), +1 at b16 column t / 4.
    init = """	mov.u32 	%xt, %tid.x;
	and.b32 	%xlane, %xt, 31;
	shr.u32 	%xwarp, %xt, 5;
	and.b32 	%xwarp, %xwarp, 7;
	shr.u32 	%xm, %xlane, 3;
	and.b32 	%xi, %xlane, 7;
	shr.u32 	%xq, %xi, 1;
	and.b32 	%xe, %xi, 1;
	shr.u32 	%xhi, %xq, 1;
	and.b32 	%xmodd, %xm, 1;
	xor.b32 	%xo, %xmodd, %xhi;
	shl.b32 	%xo, %xo, 1;
	shr.u32 	%xmh, %xm, 1;
	shl.b32 	%xk, %xmh, 4;
	shl.b32 	%xq4, %xq, 2;
	add.s32 	%xk, %xk, %xq4;
	add.s32 	%xk, %xk, %xe;
	add.s32 	%xk, %xk, %xo;
	and.b32 	%xk7, %xk, 7;
	xor.b32 	%xc, %xwarp, %xk7;
	shl.b32 	%xc, %xc, 4;
	shl.b32 	%xkr, %xk, 7;
	add.s32 	%xoffs, %xkr, %xc;
	cvt.u64.u32 	%xoff, %xoffs;
	and.b32 	%xqq, %xlane, 3;
	shr.u32 	%xh2, %xqq, 1;
	setp.ne.u32 	%xps, %xh2, 0;
	selp.b32 	%xsel0, 0x2064, 0x6420, %xps;
	selp.b32 	%xsel1, 0x3175, 0x7531, %xps;
"""
    return ''.join(new[:start] + [init] + new[start:])


def onewait(text):
    """The consumers' loop waits twice on the same full barrier (A's ring and
    B's share one with a producer warp): the second inline-asm wait block
    (identical to the first) goes."""
    lines = text.splitlines(keepends=True)
    first, back, _ = loop_bounds(lines)
    starts = [i for i in range(first, back) if 'mbarrier.try_wait.parity' in lines[i]]
    # each wait is `// begin inline asm` ... `// end inline asm` around it
    blocks = []
    for i in starts:
        b = max(j for j in range(first, i) if 'begin inline asm' in lines[j])
        e = next(j for j in range(i, back) if 'end inline asm' in lines[j])
        blocks.append((b, e, ''.join(lines[b + 1:e])))
    drop = set()
    for (b1, e1, t1), (b2, e2, t2) in zip(blocks, blocks[1:]):
        if t1 == t2 and all(not lines[j].strip() or 'inline asm' in lines[j] for j in range(e1 + 1, b2)):
            drop |= set(range(b2, e2 + 1))
    return ''.join(l for i, l in enumerate(lines) if i not in drop)


def maxnreg(text, n):
    """`.maxnreg n` beside `.maxntid`: ptxas caps a 288-thread block at 168
    registers (65536 / 384) unless told; 9 warps x 32 x 176 = 50688 fit."""
    return re.sub(r'^(\.maxntid [^\n]*)$', r'\1\n.maxnreg %d' % n, text, count=1, flags=re.M)


def wait1_only(text):
    """The naive in-flight form (NOT a variant to run): wait_group 1 in the
    loop as it is, no second register set, wait_group 0 after it. ptxas
    then lets the next iteration's fragment loads overwrite the registers
    of the wgmma still running (tools/sass_hazard.py reports the 32 LDS):
    the session-23 failure."""
    lines = text.splitlines(keepends=True)
    first, back, _ = loop_bounds(lines)
    out = []
    for i, l in enumerate(lines):
        if first < i <= back and 'wgmma.wait_group.sync.aligned 0' in l:
            l = '\twgmma.wait_group.sync.aligned 1;\n'
        out.append(l)
        if i == back:
            out.append('\twgmma.wait_group.sync.aligned 0;\n')
    return ''.join(out)


def rename_entry(text, suffix):
    entry = re.search(r'\.entry\s+(\w+)\(', text)[1]
    return re.sub(r'\b' + entry + r'\b', entry + suffix, text)


def main():
    src, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    read = lambda name: open(os.path.join(src, name)).read()
    tf32, f8, k32 = read('gemm_tf32__tma.ptx'), read('gemm_f8__tma.ptx'), read('k32_gemm_tf32__tma.ptx')
    k32 = re.sub(r'\bgemm_tf32__tma\b', 'gemm_tf32k32__tma', k32)
    variants = {
        'gemm_tf32__tma.ptx': tf32,
        'gemm_tf32__tma_v1.ptx': rename_entry(inflight(tf32), '_v1'),
        'gemm_tf32__tma_v1r.ptx': rename_entry(maxnreg(inflight(tf32), 176), '_v1r'),
        'gemm_tf32__tma_v2.ptx': rename_entry(maxnreg(inflight(onewait(tf32)), 176), '_v2'),
        'gemm_tf32k32__tma.ptx': k32,
        'gemm_tf32k32__tma_v1.ptx': rename_entry(maxnreg(inflight(k32), 176), '_v1'),
        'gemm_f8__tma.ptx': f8,
        'gemm_f8__tma_v1.ptx': rename_entry(maxnreg(inflight(f8), 176), '_v1'),
        'gemm_f8__tma_v2.ptx': rename_entry(ldsm(f8), '_v2'),
        'gemm_f8__tma_v3.ptx': rename_entry(maxnreg(inflight(ldsm(f8)), 176), '_v3'),
        'gemm_f8__tma_v4.ptx': rename_entry(maxnreg(inflight(onewait(ldsm(f8))), 176), '_v4'),
        'gemm_f8_abt__tma.ptx': read('gemm_f8_abt__tma.ptx'),
    }
    if '--hazard-demo' in sys.argv:
        variants = {'hazard_demo_tf32.ptx': rename_entry(wait1_only(tf32), '_hazard')}
    for name, text in variants.items():
        open(os.path.join(out, name), 'w').write(text)
        print(name)


if __name__ == '__main__':
    main()
