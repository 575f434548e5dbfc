#!/usr/bin/env python3
"""GPU check of every kernel in examples/: runs each through `tile-run
--target cuda` on random data (sizes not multiples of the tiles) with
poisoned (NaN / 0x5A5A5A5A) outputs, compares with a numpy reference, and,
with --memcheck, runs each under compute-sanitizer's memcheck (with
--racecheck, its racecheck: shared-memory hazards, such as a ring slot
written while an mma may still read it).

usage: gpu_check.py TILE_RUN [--memcheck | --racecheck] [--large] [--only TEXT] [--all-configs] [--no-matmul]
--all-configs: instead of the cases, every configuration of the 16-bit
matmul examples' tuning spaces (each distinct compiled kernel once) at a
ragged shape whose last tile group mixes tiles that share B with tiles
that do not, for 64- and 128-row tiles alike (2350x1000x200: 37 and 19 tile
rows, groups of 8; ALL_CONFIGS_SHAPE=M,N,K for another), each bounded in
time (CASE_SECONDS); --only TEXT picks the examples.
(on a machine with a GPU and numpy)
CHECK_SECONDS: a budget for the whole check; past it no kernel is run any
more, the cases left are counted as not run, and the last line still
comes (a device call's time limit would cut it).
Prints one line per case, then a count of the checks that passed, failed
and were not run; exits 1 if any case fails, else 2 if any was not run."""
import os, re, subprocess, sys, tempfile, time
import numpy as np

tile_run = os.path.abspath(sys.argv[1])
racecheck = '--racecheck' in sys.argv
memcheck = '--memcheck' in sys.argv or racecheck
# --only TEXT: just the cases whose name contains TEXT (or one of its |-separated parts)
only = sys.argv[sys.argv.index('--only') + 1] if '--only' in sys.argv else None
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
work = tempfile.mkdtemp()
rng = np.random.default_rng(0)
failures = 0
passed = 0
not_run = 0
deadline = None
if 'CHECK_SECONDS' in os.environ:
    try:
        deadline = time.monotonic() + float(os.environ['CHECK_SECONDS'])
    except ValueError:
        sys.exit(f"gpu_check: CHECK_SECONDS='{os.environ['CHECK_SECONDS']}': expected a number of seconds")


class OutOfTime(Exception):
    """CHECK_SECONDS is spent: the case's kernels are not run."""


def run(example, grid, arrays, scalars=(), outputs=(), flags=(), target='cuda'):
    """Saves the arrays, runs the example, returns the saved outputs."""
    if deadline is not None and time.monotonic() > deadline:
        raise OutOfTime()
    # A kernel of examples/, or of tests/kernels/ (by its path there).
    source = os.path.join(root, example if example.endswith('.mlir') else os.path.join('examples', example + '.mlir'))
    example = os.path.basename(example).removesuffix('.mlir')
    paths = []
    for i, a in enumerate(arrays):
        p = os.path.join(work, f'{example}_{i}.npy')
        np.save(p, a)
        paths.append(p)
    grid = grid if isinstance(grid, str) else ','.join(map(str, grid))
    # TILE_RUN_FLAGS="--skip-variant __tma": every GPU run without those variants.
    extra = os.environ.get('TILE_RUN_FLAGS', '').split() if target == 'cuda' else []
    cmd = [tile_run, source, '--target', target, '--grid', grid, *flags, *extra, *paths, *map(str, scalars)]
    for i in outputs:
        cmd += ['--save', f'{i}={paths[i]}.out.npy']
    if memcheck and target == 'cuda':
        tool = 'racecheck' if racecheck else 'memcheck'
        cmd = ['compute-sanitizer', '--tool', tool, '--error-exitcode', '3', *cmd]
    # Tuning (kernels with tile.tune) caches in the scratch directory; under
    # memcheck it is off, and the --config cases cover the configurations.
    env = dict(os.environ, TILE_TUNE_CACHE=os.path.join(work, 'tune'))
    if memcheck:
        env['TILE_TUNE'] = '0'
    try:
        # Bounded: a hung kernel is a failed case, not the end of the check.
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=float(os.environ.get('CASE_SECONDS', 300)))
    except subprocess.TimeoutExpired:
        raise RuntimeError(f'HUNG: no result in {os.environ.get("CASE_SECONDS", 300)} s')
    if p.returncode != 0:
        raise RuntimeError(f'exit {p.returncode}: {p.stdout[-1500:]} {p.stderr[-1500:]}')
    # A first tuning says where its time went (compile, JIT-load, timing).
    for l in p.stderr.splitlines():
        if 'configurations compiled in' in l:
            print(f'  {l}', flush=True)
    # tile-run's last line says which entry ran ("as @k__tma").
    lines = [l for l in p.stderr.splitlines() if l.startswith('tile-run: @')]
    run.entry = lines[-1].split(' as ')[-1].split(',')[0].split(';')[0] if lines and ' as @' in lines[-1] else '@' + example
    # A launch split before its last wave says what ran that wave.
    tail = re.search(r'; the last wave: (@\w+) on (\d+) blocks', lines[-1]) if lines else None
    run.last_wave = (tail[1], int(tail[2])) if tail else None
    return [np.load(paths[i] + '.out.npy') for i in outputs]


def check(name, got, want, atol, rtol):
    global failures, passed
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    # Equal infinities (padding) are equal; a NaN never is.
    bad = ~((got == want) | (np.abs(got - want) <= atol + rtol * np.abs(want)))
    status = 'ok' if not bad.any() else f'FAIL ({bad.sum()} of {bad.size} differ, max error {np.nanmax(np.abs(got - want)):.3g}, nan {np.isnan(got).sum()})'
    print(f'{name}: {status}', flush=True)
    failures += bool(bad.any())
    passed += not bad.any()


def case(name, f):
    global failures, not_run
    if only and not any(part in name for part in only.split('|')):
        return
    try:
        f()
    except OutOfTime:
        print(f'{name}: not run (CHECK_SECONDS spent)', flush=True)
        not_run += 1
    except Exception as e:  # a failed run is a failed case, not the end
        print(f'{name}: FAIL {e}', flush=True)
        failures += 1


def bits_bf16(x):
    """bf16 raw bits (round to nearest even) and their values."""
    u = x.astype(np.float32).view(np.uint32)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return r, (r.astype(np.uint32) << 16).view(np.float32)


def f8e4m3(bits):
    s = np.where(bits & 0x80, -1.0, 1.0)
    e = (bits >> 3) & 0xF
    m = (bits & 7).astype(np.float64)
    return np.where(e == 0, s * m / 8 * 2.0 ** -6, s * (1 + m / 8) * 2.0 ** (e.astype(np.float64) - 7))


def matmul(example, m, n, k, dtype, flags=(), b_nk=False, grid='tiles:2'):
    """C = A B on random operands; with b_nk, B is given N x K (its transpose); `grid`:
    tile-run's, one block per tile of C unless given."""
    def f():
        if dtype == 'f16':
            a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
            b = rng.uniform(-1, 1, (n, k) if b_nk else (k, n)).astype(np.float16)
            av, bv = a.astype(np.float64), b.astype(np.float64)
            if b_nk:
                bv = bv.T
        elif dtype == 'bf16':
            a, av = bits_bf16(rng.uniform(-1, 1, (m, k))); b, bv = bits_bf16(rng.uniform(-1, 1, (k, n)))
        elif dtype == 'f32':
            a = rng.uniform(-1, 1, (m, k)).astype(np.float32); b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
            av, bv = a.astype(np.float64), b.astype(np.float64)
        else:
            a = rng.integers(0, 256, (m, k), dtype=np.uint8)
            b = rng.integers(0, 256, (n, k) if b_nk else (k, n), dtype=np.uint8)
            a[(a & 0x7F) == 0x7F] = 0; b[(b & 0x7F) == 0x7F] = 0
            av, bv = f8e4m3(a), f8e4m3(b)
            if b_nk:
                bv = bv.T
        # The suite's f16 programs (ab, small_k) store f16.
        suite_f16 = example.endswith('.mlir') and os.path.basename(example).startswith(('ab', 'small_k', 'persistent'))
        # The suite's f8 programs round to bf16.
        suite_f8 = example.endswith('.mlir') and os.path.basename(example).startswith('f8')
        out = np.float16 if example == 'matmul_f16_f16' or suite_f16 else \
            np.uint16 if suite_f8 else {'matmul_bf16_bf16': np.uint16}.get(example, np.float32)
        # poisoned: NaN (bf16 as raw bits)
        c = np.full((m, n), 0x7FC1, np.uint16) if out == np.uint16 else np.full((m, n), np.nan, out)
        # One block per tile of C, whatever tile sizes the configuration has.
        (got,) = run(example, grid, [a, b, c], outputs=[2], flags=flags)
        if out == np.uint16:
            got = (got.astype(np.uint32) << 16).view(np.float32)
        want = av @ bv
        mag = np.abs(av) @ np.abs(bv)
        # A sequential f16 accumulator rounds every partial sum.
        # f32 operands multiply as tf32 (the contract): each rounded to 10
        # bits of mantissa.
        # wgmma adds 8-bit float products keeping about 14 bits (the
        # DeepSeek-V3 report measured this on Hopper; torch._scaled_mm does
        # the same): 2^-14 of the magnitude a K step of 32, as tf32's bound.
        rel = 5e-3 if out == np.float16 else 2e-3 if dtype in ('f32', 'f8') else 1e-5
        rtol = {np.float16: 1e-3, np.uint16: 1 / 128}.get(out, 0)
        check(f'{example} {m}x{n}x{k} ({run.entry})', got, want, atol=rel * mag + 1e-6, rtol=rtol)
    grid_name = '' if grid == 'tiles:2' else f' grid {grid}'
    case(f'{example} {m}x{n}x{k}{grid_name}' + ''.join(' ' + x for x in flags if x.startswith('tile_')), f)


def tuning_space(example):
    """Every configuration of the example's tile.tune space."""
    import itertools, re as regex
    text = open(os.path.join(root, 'examples', example + '.mlir')).read()
    space = regex.search(r'tile\.tune = \{(.*?)\}', text, regex.S)[1]
    knobs = [(k, [int(v) for v in vs.split(',')]) for k, vs in regex.findall(r'(\w+) = array<i64: ([^>]*)>', space)]
    return [','.join(f'{k}={v}' for (k, _), v in zip(knobs, values)) for values in itertools.product(*(vs for _, vs in knobs))]


def distinct(example, configs):
    """The configurations that compile to different kernels (one each)."""
    import hashlib
    seen, kept = set(), []
    source = os.path.join(root, 'examples', example + '.mlir')
    for config in configs:
        path = os.path.join(work, 'bundle.json')
        p = subprocess.run([tile_run, source, '--target', 'cuda', '--grid', '1', '--config', config, '--emit-bundle', path],
                           capture_output=True, text=True)
        key = hashlib.sha256(open(path, 'rb').read()).hexdigest() if p.returncode == 0 else config
        if key not in seen:
            seen.add(key)
            kept.append(config)
    return kept


if '--all-configs' in sys.argv:
    # ALL_CONFIGS_SHAPE=M,N,K another shape (such as an unaligned one).
    m, n, k = map(int, os.environ.get('ALL_CONFIGS_SHAPE', '2350,1000,200').split(','))
    for example, dtype in [('matmul_bf16_bf16', 'bf16'), ('matmul_f16_f16', 'f16')]:
        if only and not any(part in example for part in only.split('|')):
            continue
        configs = tuning_space(example)
        kept = distinct(example, configs)
        print(f'{example}: {len(configs)} configurations, {len(kept)} distinct kernels', flush=True)
        for config in kept:
            matmul(example, m, n, k, dtype, flags=['--config', config])
            print(f'  ({config})', flush=True)
    left = f', {not_run} not run: CHECK_SECONDS spent' if not_run else ''
    print(f'gpu_check: {passed} ok, {failures} failures{left} (every configuration at {m}x{n}x{k})')
    sys.exit(1 if failures else 2 if not_run else 0)

# --no-matmul: only the kernels without a tile.mma (the register path).
if '--no-matmul' not in sys.argv:
    for (m, n, k) in [(300, 200, 100), (1000, 1000, 1000)]:
        matmul('matmul', m, n, k, 'f16')
        matmul('matmul_bf16', m, n, k, 'bf16')
    # The 16-bit-output examples have a tuning space (tile.tune):
    # tuned once (every configuration run and compared with the kernel as
    # written by the tuner, the choice with numpy here), then as written at
    # the larger shape; the --config cases below cover each configuration.
    for example, dtype in [('matmul_f16_f16', 'f16'), ('matmul_bf16_bf16', 'bf16')]:
        matmul(example, 300, 200, 100, dtype)
        # Rows of 16-byte multiples: the tuner compiles each configuration's
        # variants alone (the general kernel deferred).
        matmul(example, 520, 264, 72, dtype)
        matmul(example, 1000, 1000, 1000, dtype, flags=['--config', 'tile_m=128,tile_n=128'])
    # TMA-able shapes on the general kernel too, and K not a multiple of 64.
    matmul('matmul', 1000, 1000, 1000, 'f16', flags=['--no-variants'])
    matmul('matmul', 520, 264, 72, 'f16')
    matmul('matmul_f32', 300, 200, 100, 'f32')
    # tf32 is computed transposed (B^T from registers): over many K tiles,
    # in the TMA variant and the general kernel; and with B written K-major
    # instead (swap_operands = 0).
    matmul('matmul_f32', 1000, 1000, 1000, 'f32')
    matmul('matmul_f32', 520, 264, 700, 'f32', flags=['--no-variants'])
    kmajor = ['--config', 'swap_operands=0']
    matmul('matmul_f32', 300, 200, 100, 'f32', flags=kmajor)
    matmul('matmul_f32', 1000, 1000, 1000, 'f32', flags=kmajor)
    matmul('matmul_f32', 300, 200, 100, 'f32', flags=kmajor + ['--no-variants'])
    matmul('matmul_f32', 301, 203, 99, 'f32', flags=kmajor)
    matmul('matmul_f8', 300, 200, 100, 'f8')
    # Configurations of the tuning space (tile.tune) that tile-specialize and
    # the register path's variants must get right: tile sizes, stages, occupancy.
    for config in ['tile_m=64,tile_n=256', 'tile_m=128,tile_n=256,num_stages=3', 'tile_m=64,tile_n=64,num_stages=2',
                   'tile_m=128,tile_n=128,num_stages=2', 'tile_m=128,tile_n=64,num_stages=3',
                   # a producer warp, asked for
                   'tile_m=128,tile_n=256,num_stages=3,warp_specialize=1', 'tile_m=64,tile_n=128,warp_specialize=1',
                   # persistent blocks, also with two resident blocks per multiprocessor (smaller rings)
                   'tile_m=128,tile_n=256,num_stages=3,persistent=1', 'tile_m=64,tile_n=64,persistent=1',
                   'tile_m=128,tile_n=128,occupancy=2,persistent=1',
                   # both: a producer warp feeding consumers that walk the tiles
                   'tile_m=128,tile_n=256,num_stages=4,warp_specialize=1,persistent=1', 'tile_m=64,tile_n=128,warp_specialize=1,persistent=1',
                   # sliced clusters (tile-slice-clusters): each block of the cluster half the
                   # tile's rows, B multicast with a producer warp, not without one; 64-row
                   # blocks here, 128-row ones below
                   'tile_m=128,tile_n=128,num_stages=4,warp_specialize=0,num_ctas=2',
                   'tile_m=256,tile_n=128,num_stages=4,warp_specialize=1,num_ctas=2',
                   # 128 accumulator rows a warpgroup (two wgmma row blocks)
                   'tile_m=256,tile_n=128,num_stages=3', 'tile_m=256,tile_n=64,warp_specialize=1',
                   'tile_m=256,tile_n=128,warp_specialize=1,persistent=1',
                   'tile_m=256,tile_n=128,warp_specialize=1,persistent=1,num_ctas=2',
                   # split K (tile-split-k): each tile in a cluster of two blocks, one K half each
                   'tile_m=128,tile_n=128,split_k=2', 'tile_m=64,tile_n=128,warp_specialize=1,split_k=2',
                   'tile_m=128,tile_n=256,num_stages=3,split_k=2', 'tile_m=256,tile_n=128,warp_specialize=1,split_k=2']:
        for (m, n, k) in [(1000, 1000, 1000), (520, 264, 72)]:
            matmul('matmul_f16_f16', m, n, k, 'f16', flags=['--config', config])
        matmul('matmul_bf16_bf16', 1000, 1000, 1000, 'bf16', flags=['--config', config])
        if 'num_ctas=2' in config:
            # Many clusters, an odd tile count, ragged last tiles in
            # every dimension.
            matmul('matmul_f16_f16', 4040, 1976, 200, 'f16', flags=['--config', config])
            matmul('matmul_bf16_bf16', 2120, 2800, 136, 'bf16', flags=['--config', config])
        if 'split_k=2' in config:
            # One K step (none for rank 1), an odd count, and many.
            matmul('matmul_f16_f16', 300, 200, 40, 'f16', flags=['--config', config])
            matmul('matmul_bf16_bf16', 136, 2104, 200, 'bf16', flags=['--config', config])
            matmul('matmul_f16_f16', 128, 1024, 4096, 'f16', flags=['--config', config])
    # Stream-K (tile-stream-k): a last wave less than half full has its K
    # iterations shared among the resident blocks, a tile's pieces summed
    # through the runtime's workspace. On 132 blocks: 500x11000 is 172
    # tiles of 128x256 (40 shared, K of 16 tiles: each tile split among
    # four or five blocks), 400x11000x200 172 tiles of K 4 (ranges of one
    # or two iterations), 2350x3000 456 of 128x128 (60 shared), 4000x4000
    # 2016 of 64x128 (36 shared); whole waves (1536x2816: 132 tiles of
    # 128x256), a last wave at least half full (2350x3000 of 128x256) and
    # fewer tiles than blocks (520x264) share nothing. Then one whole wave
    # shared too (TILE_STREAM_K_WAVES=1: ranges longer than a tile).
    for config in ['tile_m=128,tile_n=256,num_stages=3,warp_specialize=1,persistent=1,stream_k=1',
                   'tile_m=128,tile_n=128,persistent=1,stream_k=1',
                   'tile_m=64,tile_n=128,warp_specialize=1,persistent=1,stream_k=1']:
        for (m, n, k) in [(500, 11000, 1000), (400, 11000, 200), (2350, 3000, 1000), (1536, 2816, 320),
                          (520, 264, 72), (4000, 4000, 4096)]:
            matmul('matmul_bf16_bf16', m, n, k, 'bf16', flags=['--config', config])
        matmul('matmul_f16_f16', 500, 11000, 1000, 'f16', flags=['--config', config])
    os.environ['TILE_STREAM_K_WAVES'] = '1'
    for (m, n, k) in [(500, 11000, 1000), (400, 11000, 200)]:
        matmul('matmul_bf16_bf16', m, n, k, 'bf16',
               flags=['--config', 'tile_m=128,tile_n=256,num_stages=3,warp_specialize=1,persistent=1,stream_k=1'])
    del os.environ['TILE_STREAM_K_WAVES']
    # A row-major program (bench/gemm/ab.mlir): tile-group-blocks relabels
    # its blocks, also where the TMA variant walks the program's blocks in
    # resident ones (persistent); full groups, a last partial group of
    # rows, and a partial last tile row.
    ab = open(os.path.join(root, 'bench/gemm/ab.mlir')).read()
    for name, hints in [('default', ''), ('group3', 'group_m = 3'), ('persistent', 'persistent = 1'),
                        ('producer_persistent', 'persistent = 1, warp_specialize = 1'), ('rowmajor', 'group_m = 1')]:
        path = os.path.join(work, f'ab_{name}.mlir')
        with open(path, 'w') as f:
            f.write(ab.replace('attributes {tile.kernel}', 'attributes {tile.kernel, tile.hints = {%s}}' % hints) if hints else ab)
        for (m, n, k) in [(1024, 1024, 256), (2120, 2800, 136), (4040, 1976, 200)]:
            matmul(path, m, n, k, 'f16')
    # A hand-written persistent program (bench/gemm/persistent.mlir): its
    # TMA variant's rings continue from one tile to the next
    # (registers/tma.rs `continued`); 7 blocks walk many tiles each, a K
    # loop shorter than the ring's distance, and one tile a block.
    persistent = os.path.join(root, 'bench/gemm/persistent.mlir')
    for (m, n, k), grid in [((1040, 528, 200), '7'), ((2120, 2800, 136), '7'), ((520, 264, 72), '5'),
                            ((1040, 528, 200), 'tiles:2')]:
        matmul(persistent, m, n, k, 'f16', grid=grid)
    # K tiles of 32 taken two at a time (tile-widen-k, bench/gemm/small_k.mlir):
    # an odd count of narrow K tiles (the last wide one half past K), K
    # not a multiple of 32, rows not 16-byte aligned, the general kernel.
    small_k = os.path.join(root, 'bench/gemm/small_k.mlir')
    for (m, n, k) in [(1024, 1024, 96), (520, 264, 200), (301, 203, 99), (1000, 1000, 1000)]:
        matmul(small_k, m, n, k, 'f16')
    matmul(small_k, 520, 264, 200, 'f16', flags=['--no-variants'])
    # Rows the TMA cannot take, on enough 128x128 tiles to fill the GPU:
    # the 128x128x64 instance's own threads' copies (`@gemm_64x128x32__wide`),
    # with an odd count of 64-row tiles (the last wide block half past M),
    # shifted copies (K = 333) and 8-byte ones (K = 4100).
    for (m, n, k) in [(1999, 2100, 333), (4000, 1100, 4100)]:
        matmul(small_k, m, n, k, 'f16')
    # Aligned rows on enough 128x256 tiles: four program tiles a block
    # (`@gemm_64x128x32__wide__wide__*`), an odd count of 128-column tiles
    # (the last block half past N) and of K steps of 64.
    for (m, n, k) in [(2120, 2600, 136), (4040, 1976, 200)]:
        matmul(small_k, m, n, k, 'f16')
    # 8-bit float operands both K-major (bench/gemm/f8_abt.mlir): the TMA
    # variant, the general kernel, and rows not 16-byte aligned; K = 72 and
    # 200 end in a partial K step of 128.
    f8_abt = os.path.join(root, 'bench/gemm/f8_abt.mlir')
    for (m, n, k) in [(1024, 1024, 256), (520, 264, 200), (301, 203, 72)]:
        matmul(f8_abt, m, n, k, 'f8', b_nk=True)
    matmul(f8_abt, 520, 264, 200, 'f8', flags=['--no-variants'], b_nk=True)
    # Rows of an odd number of elements (no cp.async): the general kernel
    # shifts each 16-byte chunk out of two aligned words, and loads the
    # chunks whose words reach past the array element by element. A B,
    # X W^T, A^T B, one ragged tile of each edge, 1-byte elements.
    gemm = lambda name: os.path.join(root, 'bench/gemm', name + '.mlir')
    for (m, n, k) in [(301, 203, 99), (129, 65, 2047), (2047, 130, 63)]:
        matmul(gemm('ab'), m, n, k, 'f16')
        matmul(gemm('abt'), m, n, k, 'f16', b_nk=True)
    matmul(f8_abt, 301, 203, 99, 'f8', b_nk=True)
    matmul(f8_abt, 77, 45, 333, 'f8', b_nk=True)

    def transposed_and_batched():
        # The same copy for A^T B (A stored K x M: tiles K-major rows of
        # 256 bytes) and for a batch of A B (3-D arrays, the batch index
        # a third coordinate).
        def product(name, got, av, bv):
            want, mag = av @ bv, np.abs(av) @ np.abs(bv)
            check(f'{name} ({run.entry})', got, want, atol=5e-3 * mag + 1e-6, rtol=1e-3)
        f16 = lambda *shape: rng.uniform(-1, 1, shape).astype(np.float16)
        for (m, n, k) in [(301, 203, 99), (129, 65, 2047)]:
            a, b = f16(k, m), f16(k, n)
            (got,) = run(gemm('atb'), 'tiles:2', [a, b, np.full((m, n), np.nan, np.float16)], outputs=[2])
            product(f'atb.mlir {m}x{n}x{k}', got, a.astype(np.float64).T, b.astype(np.float64))
        l, m, n, k = 3, 301, 203, 99
        a, b = f16(l, m, k), f16(l, k, n)
        grid = (-(-m // 128) * -(-n // 128), l)
        (got,) = run(gemm('batched'), grid, [a, b, np.full((l, m, n), np.nan, np.float16)], outputs=[2])
        product(f'batched.mlir {l}x{m}x{n}x{k}', got, a.astype(np.float64), b.astype(np.float64))
    case('atb.mlir batched.mlir odd shapes', transposed_and_batched)

    def batched(l, m, n, k, product):
        # batched.mlir on L random f16 problems, one grid row a problem.
        a = rng.uniform(-1, 1, (l, m, k)).astype(np.float16)
        b = rng.uniform(-1, 1, (l, k, n)).astype(np.float16)
        grid = (-(-m // 128) * -(-n // 128), l)
        (got,) = run(gemm('batched'), grid, [a, b, np.full((l, m, n), np.nan, np.float16)], outputs=[2])
        av, bv = a.astype(np.float64), b.astype(np.float64)
        product(f'batched.mlir {l}x{m}x{n}x{k}', got, av @ bv, np.abs(av) @ np.abs(bv))

    def tma_stores():
        # The TMA variants' epilogue (registers staged as swizzled boxes,
        # stored by the TMA, which clips them): 16-byte aligned rows with
        # ragged last tiles along M and N, a batch, a bias epilogue, a
        # persistent loop (the staging reused), tiles of 256 columns.
        def product(name, got, want, mag):
            check(f'{name} ({run.entry})', got, want, atol=5e-3 * mag + 1e-6, rtol=1e-3)
        f16 = lambda *shape: rng.uniform(-1, 1, shape).astype(np.float16)
        nan = lambda *shape: np.full(shape, np.nan, np.float16)
        tiles = 'tiles:2'
        for (m, n, k) in [(520, 264, 200), (1000, 1000, 1000)]:
            a, b, bt, at = f16(m, k), f16(k, n), f16(n, k), f16(k, m)
            av, bv = a.astype(np.float64), b.astype(np.float64)
            want, mag = av @ bv, np.abs(av) @ np.abs(bv)
            # The persistent program on 7 blocks: each walks several tiles.
            for program, grid in [('ab', tiles), ('persistent', '7'), ('small_k', tiles)]:
                (got,) = run(gemm(program), grid, [a, b, nan(m, n)], outputs=[2])
                product(f'{program}.mlir {m}x{n}x{k}', got, want, mag)
            (got,) = run(gemm('ab'), tiles, [a, b, nan(m, n)], outputs=[2], flags=['--config', 'tile_n=256'])
            product(f'ab.mlir tile_n=256 {m}x{n}x{k}', got, want, mag)
            btv = bt.astype(np.float64).T
            for config in ([], ['--config', 'tile_n=256'], ['--config', 'tile_m=256']):
                (got,) = run(gemm('abt'), tiles, [a, bt, nan(m, n)], outputs=[2], flags=config)
                product(f'abt.mlir {" ".join(config[1:])} {m}x{n}x{k}', got, av @ btv, np.abs(av) @ np.abs(btv))
            atv = at.astype(np.float64).T
            (got,) = run(gemm('atb'), tiles, [at, b, nan(m, n)], outputs=[2])
            product(f'atb.mlir {m}x{n}x{k}', got, atv @ bv, np.abs(atv) @ np.abs(bv))
            bias = f16(n)
            pre = want + bias.astype(np.float64)
            (got,) = run(gemm('bias_relu'), 'tiles:3', [a, b, bias, nan(m, n)], outputs=[3])
            product(f'bias_relu.mlir {m}x{n}x{k}', got, np.maximum(pre, 0), mag + 1)
        batched(3, 300, 200, 136, product)
    case('tma stores', tma_stores)

    def tma_stores_unaligned():
        # Output rows not 16-byte aligned (N odd), operands aligned: the
        # store's descriptor cannot be encoded: the TMA variant requires it,
        # so tile-run compiles whole, whose __thread_store copy of it takes
        # a null one, and its threads store the tile.
        f16 = lambda *shape: rng.uniform(-1, 1, shape).astype(np.float16)
        for (m, n, k) in [(520, 263, 200), (1000, 999, 1000)]:
            a, bt = f16(m, k), f16(n, k)
            av, btv = a.astype(np.float64), bt.astype(np.float64).T
            (got,) = run(gemm('abt'), 'tiles:2', [a, bt, np.full((m, n), np.nan, np.float16)], outputs=[2])
            mag = np.abs(av) @ np.abs(btv)
            check(f'abt.mlir {m}x{n}x{k} (output rows unaligned, {run.entry})', got, av @ btv, atol=5e-3 * mag + 1e-6, rtol=1e-3)
            # (520 x 263: 15 program tiles, too few for the GPU: the narrow
            # blocks' variant.)
            if run.entry not in ('@linear__tma__thread_store', '@linear__narrow__tma__thread_store'):
                raise RuntimeError(f'{run.entry} ran, not a TMA variant that stores with the threads')
            # The same program made persistent (the TMA variant walks the
            # program's blocks; its wide variant, not persistent, passed
            # over): its copy stores each tile it walks with the threads.
            path = os.path.join(work, 'abt_persistent.mlir')
            with open(path, 'w') as f:
                f.write(open(gemm('abt')).read().replace(
                    'attributes {tile.kernel}', 'attributes {tile.kernel, tile.hints = {persistent = 1}}'))
            (got,) = run(path, 'tiles:2', [a, bt, np.full((m, n), np.nan, np.float16)], outputs=[2],
                         flags=['--skip-variant', '__wide', '--skip-variant', '__narrow'])
            check(f'abt.mlir persistent {m}x{n}x{k} (output rows unaligned, {run.entry})', got, av @ btv,
                  atol=5e-3 * mag + 1e-6, rtol=1e-3)
            if run.entry != '@linear__tma__thread_store':
                raise RuntimeError(f'{run.entry} ran, not the persistent TMA variant that stores with the threads')
    case('tma stores, output rows unaligned', tma_stores_unaligned)

    def retiled_blocks(marker, shapes, batch, walk=False, tf32=False):
        # The suite's GEMM programs on one block per program tile, each at
        # `shapes` (and batched.mlir at `batch`), must run a variant whose
        # name holds `marker`; with `walk`, also the persistent program on
        # 132 blocks, where its narrow tiles are no more than those; with
        # `tf32`, also tf32.mlir (wide blocks alone).
        def product(name, got, want, mag):
            check(f'{name} ({run.entry})', got, want, atol=5e-3 * mag + 1e-6, rtol=1e-3)
            if marker not in run.entry:
                raise RuntimeError(f'{name}: {run.entry} ran, not a {marker} variant')
        f16 = lambda *shape: rng.uniform(-1, 1, shape).astype(np.float16)
        nan = lambda *shape: np.full(shape, np.nan, np.float16)
        for (m, n, k) in shapes:
            a, b, bt, at = f16(m, k), f16(k, n), f16(n, k), f16(k, m)
            av, bv = a.astype(np.float64), b.astype(np.float64)
            want, mag = av @ bv, np.abs(av) @ np.abs(bv)
            tiles = -(-m // 128) * -(-n // 128)
            programs = [('ab', (tiles,)), ('small_k', (-(-m // 64) * -(-n // 128),))]
            if walk and -(-m // 64) * -(-n // 64) <= 132:
                programs.append(('persistent', (132,)))
            for program, grid in programs:
                (got,) = run(gemm(program), grid, [a, b, nan(m, n)], outputs=[2])
                product(f'{program}.mlir {m}x{n}x{k}', got, want, mag)
            btv, atv = bt.astype(np.float64).T, at.astype(np.float64).T
            (got,) = run(gemm('abt'), (tiles,), [a, bt, nan(m, n)], outputs=[2])
            product(f'abt.mlir {m}x{n}x{k}', got, av @ btv, np.abs(av) @ np.abs(btv))
            (got,) = run(gemm('atb'), (tiles,), [at, b, nan(m, n)], outputs=[2])
            product(f'atb.mlir {m}x{n}x{k}', got, atv @ bv, np.abs(atv) @ np.abs(bv))
            bias = f16(n)
            pre = want + bias.astype(np.float64)
            (got,) = run(gemm('bias_relu'), (tiles,), [a, b, bias, nan(m, n)], outputs=[3])
            product(f'bias_relu.mlir {m}x{n}x{k}', got, np.maximum(pre, 0), mag + 1)
            if tf32:
                # f32 operands multiply as tf32: each rounded to 10 bits.
                a32, b32 = rng.uniform(-1, 1, (m, k)).astype(np.float32), rng.uniform(-1, 1, (k, n)).astype(np.float32)
                av32, bv32 = a32.astype(np.float64), b32.astype(np.float64)
                (got,) = run(gemm('tf32'), (tiles,), [a32, b32, np.full((m, n), np.nan, np.float32)], outputs=[2])
                name, mag32 = f'tf32.mlir {m}x{n}x{k}', np.abs(av32) @ np.abs(bv32)
                check(f'{name} ({run.entry})', got, av32 @ bv32, atol=2e-3 * mag32 + 1e-6, rtol=0)
                if marker not in run.entry:
                    raise RuntimeError(f'{name}: {run.entry} ran, not a {marker} variant')
        batched(*batch, product)

    # Variants whose blocks compute two program tiles (tile-widen-blocks):
    # taken for a grid of one block per output tile with enough wide blocks
    # to fill the GPU. Ragged M, N and K; N's tile count odd, so the last
    # wide tile is half outside the array.
    case('wide blocks', lambda: retiled_blocks('__wide', [(2200, 1800, 520)], (3, 1100, 1800, 200), tf32=True))

    def last_wave_split():
        # A launch of wide blocks whose last wave would be less than half
        # full on 132 SMs ends them at a whole wave, and the program's own
        # blocks run the tiles left (tile-split-last-wave). 4000 x 2536: 32
        # rows of 10 wide tiles, 264 wide blocks then 112 program ones;
        # 1230 x 4280: 10 rows (a last group of 2) of 17, stopped 4 wide
        # blocks short of two waves at a column of the group (128), then
        # 84 program blocks. Ragged M, N and K (rows 16-byte aligned, for the TMA). With TILE_NO_WAVE_SPLIT=1,
        # one launch.
        count = 'import torch; print(torch.cuda.get_device_properties(0).multi_processor_count)'
        sms = subprocess.run([sys.executable, '-c', count], capture_output=True, text=True).stdout.strip()
        sms = int(sms) if sms.isdigit() else 0
        for (m, n, k), tail in [((4000, 2536, 264), 112), ((1230, 4280, 200), 84)]:
            a, b = rng.uniform(-1, 1, (m, k)).astype(np.float16), rng.uniform(-1, 1, (k, n)).astype(np.float16)
            av, bv = a.astype(np.float64), b.astype(np.float64)
            want, mag = av @ bv, np.abs(av) @ np.abs(bv)
            tiles = -(-m // 128) * -(-n // 128)
            for program in ['ab', 'bias_relu']:
                arrays = [a, b, np.full((m, n), np.nan, np.float16)]
                if program == 'bias_relu':
                    bias = rng.uniform(-1, 1, n).astype(np.float16)
                    arrays.insert(2, bias)
                for split in [True, False]:
                    try:
                        if not split:
                            os.environ['TILE_NO_WAVE_SPLIT'] = '1'
                        (got,) = run(gemm(program), (tiles,), arrays, outputs=[len(arrays) - 1])
                    finally:
                        os.environ.pop('TILE_NO_WAVE_SPLIT', None)
                    name = f'{program}.mlir {m}x{n}x{k} ({run.entry}, last wave {run.last_wave})'
                    ref = want if program == 'ab' else np.maximum(want + bias.astype(np.float64), 0)
                    check(name, got, ref, atol=5e-3 * mag + 1e-6, rtol=1e-3)
                    if '__wide' not in run.entry:
                        raise RuntimeError(f'{name}: not a wide variant')
                    # The shapes split as said on 132 SMs (an H100 SXM or
                    # H200); elsewhere only the values are checked.
                    if sms != 132:
                        print(f'  {name}: values checked; where it splits is not ({sms} SMs, not 132)', flush=True)
                        continue
                    expected = (f'@{"gemm_ab" if program == "ab" else "gemm_bias_relu"}__tma', tail) if split else None
                    if run.last_wave != expected:
                        raise RuntimeError(f'{name}: the last wave ran as {run.last_wave}, not {expected}')
    case('wide blocks, the last wave as the program\'s blocks', last_wave_split)
    # Variants whose blocks compute a quarter of a 128x128 program tile
    # (half of a 64x128 one; tile-widen-blocks' narrow instances): taken for
    # a grid of one block per output tile too few to fill the GPU, where
    # the narrow blocks take at most two waves; the persistent walk on 132
    # blocks, one block a narrow tile. The decode step (M = 16), ragged M
    # (a second 64-row tile of 8 rows, 16-byte aligned for A^T B), N and K,
    # and two waves of narrow blocks (264 x 2000: 160).
    case('narrow blocks', lambda: retiled_blocks(
        '__narrow', [(16, 4096, 4096), (72, 2000, 520), (16, 1000, 3000), (264, 2000, 200)], (3, 70, 600, 200),
        walk=True))
    # The general kernel (tiles in registers, wgmma from shared memory):
    # forced, and where the rows are not 16-byte aligned (no TMA variant).
    for example, dtype in [('matmul', 'f16'), ('matmul_bf16', 'bf16'), ('matmul_bf16_bf16', 'bf16'), ('matmul_f32', 'f32')]:
        matmul(example, 300, 200, 100, dtype, flags=['--no-variants'])
        matmul(example, 301, 203, 99, dtype)
    if '--large' in sys.argv:
        matmul('matmul', 4096, 4096, 4096, 'f16')
        matmul('matmul_f16_f16', 4096, 4096, 4096, 'f16')
        matmul('matmul_bf16', 4096, 4096, 4096, 'bf16')


def softmax():
    x = rng.uniform(-4, 4, (1001, 1024)).astype(np.float32)
    y = np.full_like(x, np.nan)
    (got,) = run('softmax', ((1001 + 3) // 4,), [x, y], outputs=[1])
    e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True)); want = e / e.sum(1, keepdims=True)
    check('softmax 1001x1024', got, want, atol=1e-6, rtol=1e-5)


def layernorm():
    rows, n = 37, 1000
    x = rng.uniform(-3, 3, (rows, n)).astype(np.float32)
    w = rng.uniform(-1, 1, n).astype(np.float32); b = rng.uniform(-1, 1, n).astype(np.float32)
    y = np.full_like(x, np.nan)
    (got,) = run('layernorm', ((rows + 3) // 4,), [x, w, b, y], scalars=[n, 1e-5], outputs=[3])
    xd = x.astype(np.float64); mean = xd.mean(1, keepdims=True); var = ((xd - mean) ** 2).mean(1, keepdims=True)
    want = (xd - mean) / np.sqrt(var + 1e-5) * w + b
    check('layernorm 37x1000', got, want, atol=1e-4, rtol=1e-4)


def fused():
    x = rng.uniform(-2, 2, 5000).astype(np.float32); y = rng.uniform(-2, 2, 5000).astype(np.float16)
    z = np.full(5000, np.nan, np.float16)
    (got,) = run('fused_elementwise', (2,), [x, y, z], scalars=[0.7], outputs=[2])
    t = np.float64(np.float32(0.7)) * x + y.astype(np.float64); want = np.where(t > 0, t, 0.01 * t)
    check('fused_elementwise 5000', got, want, atol=1e-6, rtol=1 / 1024)


def fused_ragged():
    # 5003 elements: the last tile's copies end in a scalar tail after
    # their 16-byte vectors.
    x = rng.uniform(-2, 2, 5003).astype(np.float32); y = rng.uniform(-2, 2, 5003).astype(np.float16)
    z = np.full(5003, np.nan, np.float16)
    (got,) = run('fused_elementwise', (3,), [x, y, z], scalars=[-1.3], outputs=[2])
    t = np.float64(np.float32(-1.3)) * x + y.astype(np.float64); want = np.where(t > 0, t, 0.01 * t)
    check('fused_elementwise 5003', got, want, atol=1e-6, rtol=1 / 1024)


def one_element():
    x = rng.uniform(-2, 2, 777).astype(np.float32); y = np.full(777, np.nan, np.float32)
    (got,) = run('tests/kernels/one_element.mlir', (777,), [x, y], outputs=[1])
    xd = x.astype(np.float64)
    check('one_element 777', got, xd + xd * xd, atol=1e-6, rtol=1e-6)


def column_sum():
    x = rng.uniform(-1, 1, (333, 300)).astype(np.float32); s = np.full(300, np.nan, np.float32)
    (got,) = run('column_sum', (3,), [x, s], outputs=[1])
    check('column_sum 333x300', got, x.astype(np.float64).sum(0), atol=1e-4, rtol=0)


def transpose3d():
    x = rng.integers(-1000, 1000, (5, 37, 29), dtype=np.int32)
    y = np.full((5, 29, 37), 0x5A5A5A5A, np.int32); m = np.full((5, 37), 0x5A5A5A5A, np.int32)
    got_y, got_m = run('transpose3d', (3, 1, 3), [x, y, m], outputs=[1, 2])
    check('transpose3d Y', got_y, 2 * x.transpose(0, 2, 1), atol=0, rtol=0)
    check('transpose3d M', got_m, x.max(2), atol=0, rtol=0)


def attention():
    # Flash attention forward at a length that is not a multiple of the key
    # tile: keys past n are masked, their padded rows never weigh in.
    for n in [1000, 64, 1]:
        q, k, v = (rng.uniform(-1, 1, (n, 64)).astype(np.float16) for _ in range(3))
        o = np.full((n, 64), np.nan, np.float32)
        (got,) = run('attention', (-(-n // 64),), [q, k, v, o], scalars=[n], outputs=[3])
        s = q.astype(np.float64) @ k.astype(np.float64).T / 8
        p = np.exp(s - s.max(1, keepdims=True))
        want = (p / p.sum(1, keepdims=True)) @ v.astype(np.float64)
        # P is rounded to f16 before the second mma.
        check(f'attention n={n}', got, want, atol=2e-3, rtol=1e-2)


def both_targets(kernel, name, grid, arrays, scalars, outputs, atol=0):
    # The GPU against the CPU target, which CI checks against plain-Rust
    # references (tests/integration/cpu.rs), on the same random inputs.
    flags = ['--kernel', name]
    cpu = run(kernel, grid, [a.copy() for a in arrays], scalars, outputs, flags, target='cpu')
    gpu = run(kernel, grid, [a.copy() for a in arrays], scalars, outputs, flags)
    for i, (g, c) in enumerate(zip(gpu, cpu)):
        if g.dtype == np.uint16:  # bf16 as raw bits
            g, c = ((x.astype(np.uint32) << 16).view(np.float32) for x in (g, c))
        # Sums are added in another order on the GPU (shuffles, warps):
        # the tolerance scales with the output's magnitude.
        scale = float(np.nanmax(np.abs(c))) if c.dtype.kind == 'f' and np.isfinite(c).any() else 1.0
        check(f'{name} output {outputs[i]} (GPU vs CPU target)', g, c, atol=atol * max(1.0, scale), rtol=atol)


def test_kernels():
    x = rng.uniform(-1, 1, (1000, 300)).astype(np.float32)
    for name in ['commuted_add', 'subtract', 'fresh', 'swap', 'pure_swap', 'twice', 'if_choice', 'select_choice', 'nested']:
        a = np.full(300, np.nan, np.float32); b = np.full(300, np.nan, np.float32)
        both_targets('tests/kernels/loops.mlir', name, (3,), [x, a, b], [], [1, 2], atol=1e-5)
    xd = rng.integers(-2**31, 2**31, 500, dtype=np.int64).astype(np.int32)
    outs = [np.full(500, 0x5A5A5A5A, np.int32) for _ in range(4)] + [np.full(8 * 8, 0x5A5A5A5A, np.int64)]
    for d, k in [(0, 0), (-1, 7), (3, 0)]:
        both_targets('tests/kernels/divide.mlir', 'divide', (8,), [xd, *outs], [d, k], [1, 2, 3, 4, 5])
    xb, _ = bits_bf16(rng.uniform(-2, 2, 300)); yb, _ = bits_bf16(rng.uniform(0, 4, 300))
    outb = [np.full(300, 0x7FC1, np.uint16) for _ in range(4)]
    # exp and sqrt may differ by a bf16 unit between the targets' libraries.
    both_targets('tests/kernels/bf16_elementwise.mlir', 'bf16_elementwise', (5,), [xb, yb, *outb], [], [2, 3, 4, 5], atol=1 / 64)
    # Masks all true in some iterations only (tile-version-masks).
    xm = rng.uniform(-1, 1, (70, 150)).astype(np.float32)
    for lim in [0, 37, 150, -1]:
        outm = [np.full((70, 32), np.nan, np.float32) for _ in range(2)]
        both_targets('tests/kernels/masks.mlir', 'masked_sums', (5,), [xm, *outm], [lim], [1, 2], atol=1e-5)
    # An mma of 32x32 tiles, off the register path (SIMT over shared tiles).
    a16 = rng.uniform(-1, 1, (70, 100)).astype(np.float16); b16 = rng.uniform(-1, 1, (100, 45)).astype(np.float16)
    both_targets('tests/kernels/small_mma.mlir', 'small_mma', (6,), [a16, b16, np.full((70, 45), np.nan, np.float32)],
                 [], [2], atol=1e-3)
    # An mma whose views pad with +inf (the general kernel's copies write
    # the padding; the TMA cannot): all +inf where K is ragged, else A B.
    for m, n, k in [(70, 45, 100), (64, 128, 128), (130, 64, 70)]:
        ap = rng.uniform(-1, 1, (m, k)).astype(np.float16); bp = rng.uniform(-1, 1, (k, n)).astype(np.float16)
        tiles = -(-m // 64) * -(-n // 64)
        (got,) = run('tests/kernels/padded_mma.mlir', (tiles,), [ap, bp, np.full((m, n), np.nan, np.float32)],
                     outputs=[2])
        want = np.full((m, n), np.inf) if k % 64 else ap.astype(np.float64) @ bp.astype(np.float64)
        check(f'padded_mma {m}x{n}x{k}', got, want, atol=1e-3, rtol=1e-3)
        both_targets('tests/kernels/padded_mma.mlir', 'padded_mma', (tiles,),
                     [ap, bp, np.full((m, n), np.nan, np.float32)], [], [2], atol=1e-3)


def far_coordinates():
    # The bounds rule at the edges: coordinates past either end (also where
    # coordinate x 16 wraps in 64 bits) read -inf padding and write nothing.
    x = rng.uniform(-1, 1, 40).astype(np.float32)
    for at in [0, 2, 3, -1, 2**63 - 1, 2**60 + 1, -2**63]:
        y = np.full(16, np.nan, np.float32); z = rng.uniform(-1, 1, 40).astype(np.float32)
        got_y, got_z = run('tests/kernels/far_coordinates.mlir', (1,), [x, y, z], scalars=[at], outputs=[1, 2])
        first = at * 16 if 0 <= at * 16 < 40 else None
        want_y = np.array([x[first + e] if first is not None and first + e < 40 else -np.inf for e in range(16)])
        want_z = z.astype(np.float64).copy()
        if first is not None:
            want_z[first:first + 16] = 7.0
        check(f'far_coordinates {at} Y', got_y, want_y, atol=0, rtol=0)
        check(f'far_coordinates {at} Z', got_z, want_z, atol=0, rtol=0)


def wide_rows():
    # tile-stream-stores: rows of 30000 of a 32768 tile, stored in chunks
    # (the last partly outside); coordinates past either end (also where
    # scaling to chunks would wrap) write nothing.
    rows, n = 5, 30000
    x = rng.uniform(-2, 2, (rows, n)).astype(np.float32)
    w = rng.uniform(-1, 1, n).astype(np.float32); b = rng.uniform(-1, 1, n).astype(np.float32)
    for at in [0, 1, -1, 2**62, 2**63 - 1]:
        y = rng.uniform(-5, 5, (rows, n)).astype(np.float32)
        (got,) = run('tests/kernels/wide_rows.mlir', (rows,), [x, w, b, y], scalars=[at], outputs=[3])
        want = x.astype(np.float64) * w + b if at == 0 else y
        check(f'wide_rows {at}', got, want, atol=1e-6, rtol=1e-6)


def layernorm_wide():
    # The suite's layernorm over f32 rows of 32768 (streamed stores).
    rows, n = 3, 32768
    text = open(os.path.join(root, 'bench/norms/layernorm_f32.mlir')).read().replace('1024', str(n))
    source = os.path.join(work, 'layernorm_wide.mlir')
    open(source, 'w').write(text)
    x = rng.uniform(-3, 3, (rows, n)).astype(np.float32)
    w = rng.uniform(-1, 1, n).astype(np.float32); b = rng.uniform(-1, 1, n).astype(np.float32)
    y = np.full_like(x, np.nan)
    (got,) = run(source, (rows,), [x, w, b, y], scalars=[1e-5], outputs=[3])
    xd = x.astype(np.float64); mean = xd.mean(1, keepdims=True); var = ((xd - mean) ** 2).mean(1, keepdims=True)
    check('layernorm f32 3x32768', got, (xd - mean) / np.sqrt(var + 1e-5) * w + b, atol=1e-4, rtol=1e-4)


for name, f in [('softmax', softmax), ('layernorm', layernorm), ('fused_elementwise', fused),
                ('fused_elementwise ragged', fused_ragged), ('one_element', one_element),
                ('column_sum', column_sum), ('transpose3d', transpose3d), ('far_coordinates', far_coordinates),
                ('attention', attention), ('test kernels', test_kernels),
                ('wide_rows', wide_rows), ('layernorm_wide', layernorm_wide)]:
    case(name, f)
sanitizer = f" (under compute-sanitizer {'racecheck' if racecheck else 'memcheck'})" if memcheck else ''
left = f', {not_run} cases (or the rest of them) not run: CHECK_SECONDS spent' if not_run else ''
print(f'gpu_check: {passed} ok, {failures} failures{left}{sanitizer}')
sys.exit(1 if failures else 2 if not_run else 0)
