#!/usr/bin/env python3
"""The benchmark suite (bench/README.md) on the GPU machine: every case of
natural tile programs beside the vendor implementation, in the same run.

For each case: random inputs (never zeros) made with torch on the GPU and
saved as .npy in /dev/shm; `tile-run --target cuda --bench N` runs the tile
program on them (its output poisoned with NaN first) and saves the output;
the same computation runs in torch (cuBLAS through torch.matmul/F.linear,
tf32 enabled for f32, torch._scaled_mm for f8, cuDNN's SDPA, torch.softmax,
F.layer_norm, F.rms_norm, and torch.compile of the same function as a
second peer for the memory-bound cases), timed with CUDA events (median,
no L2 flush on either side); the tile output is checked against torch's.
The timing alternates: ROUNDS rounds (3) of the tile program's launches
(one tile-run process each) then each peer's, and each side's time is the
median of its rounds' medians. One round's reading of cuBLAS moves by
+-5% from round to round in one run where the tile program's moves by 1%
(scripts/timing-noise.py, BENCHMARKS.md session 50), so one round decided
a ratio by its luck.
A device-to-device copy gives the bandwidth ceiling.

Prints one line per case: TFLOP/s (or TB/s), the ratio to the best peer,
which entry ran (the TMA + wgmma variant or the general kernel), registers
(ptxas -v) and shared memory per block, compile time (.mlir to bundle), and
whether the output agreed; then writes suite.csv and suite.png to $OUT.
A case that does not compile for the GPU is a row that says so with the
first line of the error.

usage: bench-suite.py TILE_RUN [--only TEXT] [--skip TEXT] [--rounds R] [--warmup-ms MS] [--memcheck | --racecheck | --synccheck] [--quick]
--only TEXT   the cases whose name contains TEXT (or one of TEXT's `|`-separated parts)
--skip TEXT   not the cases whose name contains TEXT (or one of its `|`-separated parts)
--rounds R    alternating rounds of timing of each side (default 3)
--warmup-ms MS  each side's round first runs its kernel untimed for MS ms
              (default 0): the times of a sustained load, whose clocks the
              power limit sets, rather than of the boost after the GPU
              idled (BENCHMARKS.md, session 50, runs 8-9)
--memcheck    each case at a small size under compute-sanitizer memcheck
              (correctness only, no timing)
--racecheck   the same under compute-sanitizer racecheck (shared-memory hazards)
--synccheck   the same under compute-sanitizer synccheck (barriers used wrongly)
--quick       the smallest shape of each family (a smoke run)"""
import csv, json, math, os, re, subprocess, sys, tempfile, time

import numpy as np
import torch
import torch.nn.functional as F

from peer_timing import events_ms

tile_run = os.path.abspath(sys.argv[1])
only = sys.argv[sys.argv.index('--only') + 1] if '--only' in sys.argv else None
skip = sys.argv[sys.argv.index('--skip') + 1] if '--skip' in sys.argv else None
rounds = int(sys.argv[sys.argv.index('--rounds') + 1]) if '--rounds' in sys.argv else 3
warmup_ms = int(sys.argv[sys.argv.index('--warmup-ms') + 1]) if '--warmup-ms' in sys.argv else 0
if rounds < 1:
    sys.exit('bench-suite.py: --rounds takes a positive count')
racecheck = '--racecheck' in sys.argv
synccheck = '--synccheck' in sys.argv
memcheck = '--memcheck' in sys.argv or racecheck or synccheck
sanitizer = 'racecheck' if racecheck else 'synccheck' if synccheck else 'memcheck'
quick = '--quick' in sys.argv
# Extra tile-run flags for every timed or checked run, such as
# TILE_RUN_FLAGS="--skip-variant __tma" to compare variants of one bundle.
run_flags = os.environ.get('TILE_RUN_FLAGS', '').split()
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
out_dir = os.environ.get('OUT', '/tmp')
work = tempfile.mkdtemp(dir='/dev/shm' if os.path.isdir('/dev/shm') else None)
cuda_home = os.environ.get('CUDA_HOME', '/usr/local/cuda')
ptxas = os.path.join(cuda_home, 'bin', 'ptxas')
torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.allow_tf32 = True
gen = torch.Generator(device='cuda').manual_seed(0)
rows, failures = [], 0
DT = {'f16': torch.float16, 'bf16': torch.bfloat16, 'f32': torch.float32}


def rand(shape, dtype, scale=1.0):
    """Uniform in [-scale, scale), on the GPU."""
    t = (torch.rand(shape, generator=gen, device='cuda', dtype=torch.float32) * 2 - 1) * scale
    return t.to(dtype)


def to_npy(t):
    """A GPU tensor as the .npy tile-run reads: bf16 as raw bits, f8 as bytes."""
    t = t.contiguous().cpu()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(np.uint16)
    if t.dtype == torch.float8_e4m3fn:
        return t.view(torch.uint8).numpy()
    return t.numpy()


def from_npy(a, dtype):
    if dtype == torch.bfloat16:
        return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16).float()
    return torch.from_numpy(a).float()


compiled_info = {}


def compile_info(source, name):
    """Compile time, shared memory and registers of each entry: once per
    program text (they do not depend on the shapes)."""
    key = (source, name)
    if key in compiled_info:
        return compiled_info[key]
    bundle_path = source + '.bundle.json'
    start = time.time()
    p = subprocess.run([tile_run, source, '--target', 'cuda', '--kernel', name, '--grid', '1', '--emit-bundle', bundle_path],
                       capture_output=True, text=True)
    seconds = time.time() - start
    if p.returncode != 0 or not os.path.exists(bundle_path):
        # The first diagnostic, not tile-run's line naming the pipeline.
        lines = [l for l in p.stderr.strip().splitlines() if 'error:' in l and 'tile-run: error:' not in l]
        info = {'error': (lines or p.stderr.strip().splitlines() or ['no bundle'])[0][:200]}
    else:
        bundle = json.load(open(bundle_path))
        kernel = next(k for k in bundle['kernels'] if k['signature']['name'] == name)
        info = {'compile_s': seconds, 'smem': {name: kernel['shared_memory']}, 'regs': {}, 'wgmma': {}}
        # Each entry's PTX runs from its `.entry` to the next one.
        for part in bundle['ptx'].split('.entry ')[1:]:
            info['wgmma'][re.match(r'\w+', part)[0]] = 'wgmma.mma_async' in part
        for v in kernel.get('variants', []):
            info['smem'][v['name']] = v['shared_memory']
        if os.path.exists(ptxas):
            ptx = source + '.ptx'
            open(ptx, 'w').write(bundle['ptx'])
            q = subprocess.run([ptxas, '-v', '-arch=sm_90a', '-o', '/dev/null', ptx], capture_output=True, text=True)
            entry = None
            for line in q.stderr.splitlines():
                m = re.search(r"Compiling entry function '(\w+)'", line)
                if m:
                    entry = m[1]
                m = re.search(r'Used (\d+) registers', line)
                if m and entry:
                    info['regs'][entry] = int(m[1])
    compiled_info[key] = info
    return info


def instantiate(path, subst):
    text = open(os.path.join(root, 'bench', path)).read()
    for a, b in subst.items():
        text = text.replace(a, b)
    tag = re.sub(r'\W+', '_', path + '_' + '_'.join(f'{b}' for b in subst.values()))
    source = os.path.join(work, tag + '.mlir')
    open(source, 'w').write(text)
    return source


def case(name, *args, **kwargs):
    """One case (see `run_case`); an exception is a failed row, not the end."""
    global failures
    if only and not any(part in name for part in only.split('|')):
        return
    if skip and any(part in name for part in skip.split('|')):
        return
    try:
        run_case(name, *args, **kwargs)
    except Exception as e:
        print(f'{name}: FAILED {type(e).__name__}: {str(e)[:200]}', flush=True)
        rows.append({'case': name, 'status': f'failed: {type(e).__name__}: {str(e)[:160]}'})
        failures += 1


def run_case(name, path, kernel, subst, inputs, scalars, grid, output, peers, work_amount, unit, check, runs=10):
    """Runs one case. `inputs`: GPU tensors (the output among them,
    poisoned); `output`: its index; `peers`: name -> (function, result);
    `work_amount`: FLOP or bytes; `check(got, want)`: (ok, error) against
    the first peer's result."""
    global failures
    source = instantiate(path, subst)
    info = compile_info(source, kernel)
    row = {'case': name, 'unit': unit}
    if 'error' in info:
        row.update(status='does not compile: ' + info['error'])
        print(f'{name}: {row["status"]}', flush=True)
        rows.append(row)
        failures += 1
        return
    paths = []
    for i, t in enumerate(inputs):
        p = os.path.join(work, f'arg{i}.npy')
        np.save(p, to_npy(t))
        paths.append(p)
    saved = os.path.join(work, 'out.npy')
    cmd = [tile_run, source, '--target', 'cuda', '--kernel', kernel, '--grid', ','.join(map(str, grid)),
           '--save', f'{output}={saved}', *run_flags, *paths, *map(str, scalars)]
    if memcheck:
        cmd = ['compute-sanitizer', '--tool', sanitizer, '--error-exitcode', '3', *cmd]
    else:
        cmd += ['--bench', str(runs)] + (['--bench-warmup-ms', str(warmup_ms)] if warmup_ms else [])
    p = subprocess.run(cmd, capture_output=True, text=True)
    timed = cmd[:cmd.index('--save')] + cmd[cmd.index('--save') + 2:]  # the later rounds save nothing
    if p.returncode != 0:
        row.update(status='failed: ' + (p.stderr.strip().splitlines() or ['?'])[-1][:200])
        print(f'{name}: {row["status"]}', flush=True)
        if memcheck:
            # The sanitizer's report (on stdout): its first findings.
            report = [l for l in p.stdout.splitlines() if l.startswith('=========')]
            print('\n'.join(report[:40]), flush=True)
        rows.append(row)
        failures += 1
        return
    text = p.stdout + p.stderr
    entry = re.search(r' as @(\w+)', text)
    entry = entry[1] if entry else kernel
    got = from_npy(np.load(saved), inputs[output].dtype).cuda()
    want = next(iter(peers.values()))[1] if peers else None
    tile_rounds, peer_rounds, peer_failed = [], {peer: [] for peer in peers}, set()
    for r in range(0 if memcheck else rounds):
        if r > 0:
            q = subprocess.run(timed, capture_output=True, text=True)
            if q.returncode != 0:
                raise RuntimeError(f'round {r}: ' + (q.stderr.strip().splitlines() or ['?'])[-1][:160])
            text = q.stdout + q.stderr
        tile_rounds.append(float(re.search(r'median of \d+ launches ([\d.]+) ms', text)[1]))
        for peer, (fn, result) in peers.items():
            if peer in peer_failed:
                continue
            try:
                peer_rounds[peer].append(events_ms(fn, runs, warmup_ms))
            except Exception as e:  # torch.compile may not take a case; its rounds so far count
                print(f'  {peer} (round {r}): {str(e).splitlines()[0][:120]}', flush=True)
                peer_failed.add(peer)
    # The median (of an even count, the upper of the middle two).
    median = lambda xs: sorted(xs)[len(xs) // 2]
    peer_ms = {peer: median(times) for peer, times in peer_rounds.items() if times}
    ok, error = check(got, want.float())
    failures += not ok
    row.update(entry=entry, tensor_cores=info.get('wgmma', {}).get(entry), smem=info['smem'].get(entry), regs=info['regs'].get(entry),
               compile_s=round(info['compile_s'], 3), ok=ok, error=f'{error:.2e}')
    if not memcheck:
        ms = median(tile_rounds)
        best = min(peer_ms, key=peer_ms.get) if peer_ms else None
        scale = 1e9  # FLOP or bytes per ms to TFLOP/s or TB/s
        row.update(tile_ms=ms, tile_rate=work_amount / ms / scale,
                   best_peer=best, peer_ms=peer_ms.get(best), peer_rate=work_amount / peer_ms[best] / scale if best else None,
                   ratio=peer_ms[best] / ms if best else None)
        print(f'{name}: {row["tile_rate"]:.3g} {unit} against {best} {row["peer_rate"]:.3g} = {row["ratio"]:.3f}'
              f'  @{entry} regs {row["regs"]} smem {row["smem"]} compile {row["compile_s"]} s'
              f'  {"ok" if ok else "WRONG"} ({row["error"]})', flush=True)
    else:
        print(f'{name}: {sanitizer} clean, {"ok" if ok else "WRONG"} ({row["error"]})', flush=True)
    rows.append(row)


def close(rel):
    """Agreement within `rel` of the reference's scale, element-wise; NaN never agrees."""
    def check(got, want):
        scale = want.abs().max().item() or 1.0
        err = (got - want).abs()
        worst = err.max().item() if err.numel() else 0.0
        ok = bool(torch.isfinite(got).all()) and worst <= rel * scale
        return ok, worst / scale
    return check


def poison(shape, dtype):
    return torch.full(shape, float('nan'), device='cuda', dtype=dtype)


# ---- GEMM ----------------------------------------------------------------
gemm_shapes = [(4096, 4096, 4096), (4000, 11008, 4096), (2047, 2047, 2047), (4096, 4096, 4100), (16, 4096, 4096)]
if quick or memcheck:
    gemm_shapes = [(520, 264, 200)]
tol = {'f16': 2e-2, 'bf16': 3e-2}


def gemm_cases():
    for dt in ['f16', 'bf16']:
        d = DT[dt]
        for (m, n, k) in gemm_shapes:
            a, b = rand((m, k), d), rand((k, n), d)
            flop = 2 * m * n * k
            tiles = -(-m // 128) * -(-n // 128)
            shape = f'{m}x{n}x{k}'
            ab = a @ b
            case(f'gemm ab {dt} {shape}', 'gemm/ab.mlir', 'gemm_ab', {'f16': dt}, [a, b, poison((m, n), d)], [], (tiles,),
                 2, {'cuBLAS': (lambda: a @ b, ab)}, flop, 'TFLOP/s', close(tol[dt]))
            w = b.t().contiguous()
            case(f'gemm abt {dt} {shape}', 'gemm/abt.mlir', 'linear', {'f16': dt}, [a, w, poison((m, n), d)], [], (tiles,),
                 2, {'cuBLAS': (lambda: F.linear(a, w), ab)}, flop, 'TFLOP/s', close(tol[dt]))
            at = a.t().contiguous()
            case(f'gemm atb {dt} {shape}', 'gemm/atb.mlir', 'gemm_atb', {'f16': dt}, [at, b, poison((m, n), d)], [],
                 (tiles,), 2, {'cuBLAS': (lambda: at.t() @ b, ab)}, flop, 'TFLOP/s', close(tol[dt]))
            bias = rand((n,), d)
            want = torch.relu(ab.float() + bias.float())
            case(f'gemm bias+relu {dt} {shape}', 'gemm/bias_relu.mlir', 'gemm_bias_relu', {'f16': dt},
                 [a, b, bias, poison((m, n), d)], [], (tiles,), 3,
                 {'cuBLAS+torch': (lambda: torch.relu(torch.addmm(bias, a, b)), want)}, flop, 'TFLOP/s', close(tol[dt]))
            want = F.gelu(ab.float() + bias.float())
            case(f'gemm bias+gelu {dt} {shape}', 'gemm/bias_gelu.mlir', 'gemm_bias_gelu', {'f16': dt},
                 [a, b, bias, poison((m, n), d)], [], (tiles,), 3,
                 {'cuBLAS+torch': (lambda: F.gelu(torch.addmm(bias, a, b)), want)}, flop, 'TFLOP/s', close(tol[dt]))
            small = -(-m // 64) * -(-n // 128)
            case(f'gemm 64x128x32 {dt} {shape}', 'gemm/small_k.mlir', 'gemm_64x128x32', {'f16': dt},
                 [a, b, poison((m, n), d)], [], (small,), 2, {'cuBLAS': (lambda: a @ b, ab)}, flop, 'TFLOP/s', close(tol[dt]))
            case(f'gemm persistent {dt} {shape}', 'gemm/persistent.mlir', 'gemm_persistent', {'f16': dt},
                 [a, b, poison((m, n), d)], [], (132,), 2, {'cuBLAS': (lambda: a @ b, ab)}, flop, 'TFLOP/s', close(tol[dt]))
        # batched: 16 x 1024^3
        l, m, n, k = (16, 1024, 1024, 1024) if not (quick or memcheck) else (3, 200, 136, 72)
        a, b = rand((l, m, k), d), rand((l, k, n), d)
        case(f'gemm batched {dt} {l}x{m}x{n}x{k}', 'gemm/batched.mlir', 'gemm_batched', {'f16': dt},
             [a, b, poison((l, m, n), d)], [], (-(-m // 128) * -(-n // 128), l), 2,
             {'cuBLAS': (lambda: torch.bmm(a, b), torch.bmm(a, b))}, 2 * l * m * n * k, 'TFLOP/s', close(tol[dt]))
    m, n, k = (4096, 4096, 4096) if not (quick or memcheck) else (520, 264, 200)
    tiles = -(-m // 128) * -(-n // 128)
    a, b = rand((m, k), torch.float32), rand((k, n), torch.float32)
    case(f'gemm tf32 {m}x{n}x{k}', 'gemm/tf32.mlir', 'gemm_tf32', {}, [a, b, poison((m, n), torch.float32)], [],
         (tiles,), 2, {'cuBLAS tf32': (lambda: a @ b, a.double() @ b.double())}, 2 * m * n * k, 'TFLOP/s', close(1e-2))
    a8, b8 = rand((m, k), torch.float32).to(torch.float8_e4m3fn), rand((k, n), torch.float32).to(torch.float8_e4m3fn)
    b8t = b8.t().contiguous().t()  # column-major, as _scaled_mm wants B
    one = torch.ones((), device='cuda')
    want = a8.float() @ b8.float()
    case(f'gemm f8e4m3->bf16 {m}x{n}x{k}', 'gemm/f8.mlir', 'gemm_f8', {}, [a8, b8, poison((m, n), torch.bfloat16)], [],
         (tiles,), 2, {'_scaled_mm': (lambda: torch._scaled_mm(a8, b8t, one, one, out_dtype=torch.bfloat16), want)},
         2 * m * n * k, 'TFLOP/s', close(2e-2))
    # The same with B given as _scaled_mm takes it (N x K, K contiguous).
    case(f'gemm f8e4m3 abt->bf16 {m}x{n}x{k}', 'gemm/f8_abt.mlir', 'gemm_f8_abt', {},
         [a8, b8t.t(), poison((m, n), torch.bfloat16)], [], (tiles,), 2,
         {'_scaled_mm': (lambda: torch._scaled_mm(a8, b8t, one, one, out_dtype=torch.bfloat16), want)},
         2 * m * n * k, 'TFLOP/s', close(2e-2))


# ---- norms -----------------------------------------------------------------
# One compiled peer per function, dynamic in the shapes, so that torch.compile
# compiles once per dtype rather than once per case.
compiled = {
    'softmax': torch.compile(lambda x: torch.softmax(x, -1), dynamic=True),
    'layernorm': torch.compile(lambda x, w, b: F.layer_norm(x, (x.shape[-1],), w, b, 1e-5), dynamic=True),
    'rmsnorm': torch.compile(lambda x, w: F.rms_norm(x, (x.shape[-1],), w, 1e-5), dynamic=True),
    'add': torch.compile(lambda x, y: x + y, dynamic=True),
    'axpy_gelu': torch.compile(lambda x, y: F.gelu(0.5 * x + y), dynamic=True),
    'column_sum': torch.compile(lambda x: x.sum(0), dynamic=True),
}


def norm_cases():
    for row in ([1024, 4096, 8192, 32768] if not (quick or memcheck) else [1024]):
        for dt in ['f16', 'bf16', 'f32']:
            d = DT[dt]
            size = torch.finfo(d).bits // 8
            r = (1 << 28) // (row * size) if not (quick or memcheck) else 7
            x = rand((r, row), d, 4.0)
            by = 2 * r * row * size  # read once, written once
            path, subst = (f'norms/softmax{"_f32" if dt == "f32" else ""}.mlir',
                           {'1024': str(row), **({'f16': dt} if dt != 'f32' else {})})
            soft = lambda: torch.softmax(x, -1)
            case(f'softmax {dt} {r}x{row}', path, 'softmax', subst, [x, poison((r, row), d)], [], (r,), 1,
                 {'torch': (soft, soft()), 'torch.compile': (lambda: compiled['softmax'](x), None)}, by, 'TB/s',
                 close(1e-2))
            w, bias = rand((row,), d), rand((row,), d)
            ln = lambda: F.layer_norm(x, (row,), w, bias, 1e-5)
            case(f'layernorm {dt} {r}x{row}', path.replace('softmax', 'layernorm'), 'layernorm', subst,
                 [x, w, bias, poison((r, row), d)], [1e-5], (r,), 3,
                 {'torch': (ln, ln()), 'torch.compile': (lambda: compiled['layernorm'](x, w, bias), None)}, by, 'TB/s',
                 close(2e-2))
            rms = lambda: F.rms_norm(x, (row,), w, 1e-5)
            case(f'rmsnorm {dt} {r}x{row}', path.replace('softmax', 'rmsnorm'), 'rmsnorm', subst,
                 [x, w, poison((r, row), d)], [1e-5], (r,), 2,
                 {'torch': (rms, rms()), 'torch.compile': (lambda: compiled['rmsnorm'](x, w), None)}, by, 'TB/s',
                 close(2e-2))


# ---- attention -------------------------------------------------------------
def query_rows(source):
    """The query rows of a block: the program's Q view's tile."""
    m = re.search(r'%Q : memref<[^>]*> -> !tile.partition_view<1x(\d+)x', open(source).read())
    return int(m[1]) if m else 64


def attention_cases():
    # ATTENTION_PROGRAMS=DIR takes DIR/flash{,_causal}_d{64,128}.mlir instead
    # of bench/attention's (bench/experiments/flash_tiles.py writes them for
    # other tile sizes); the grid follows the program's query tile.
    programs = os.environ.get('ATTENTION_PROGRAMS')
    for s in ([1024, 4096, 16384] if not (quick or memcheck) else [200]):
        for dh in [64, 128]:
            heads, batch = 2048 // dh, max(16384 // s, 1)
            if quick or memcheck:
                heads, batch = 2, 1
            q, k, v = (rand((batch, heads, s, dh), torch.float16) for _ in range(3))
            for causal in [False, True]:
                flop = 4 * batch * heads * s * s * dh // (2 if causal else 1)
                sdpa = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                path = f'attention/flash{"_causal" if causal else ""}_d{dh}.mlir'
                if programs:
                    path = os.path.join(os.path.abspath(programs), os.path.basename(path))
                subst = {}
                rows_per_block = query_rows(instantiate(path, subst))
                bh = batch * heads
                case(f'attention{" causal" if causal else ""} d{dh} {batch}x{heads}x{s}',
                     path, 'flash_causal' if causal else 'flash', subst,
                     [t.reshape(bh, s, dh) for t in (q, k, v)] + [poison((bh, s, dh), torch.float16)], [s],
                     (-(-s // rows_per_block), bh), 3, {'SDPA': (sdpa, sdpa().reshape(bh, s, dh))}, flop, 'TFLOP/s',
                     close(2e-2), runs=5 if s >= 16384 else 10)


# ---- elementwise -----------------------------------------------------------
def elementwise_cases():
    n = 1 << 27 if not (quick or memcheck) else 5000
    x, y = rand((n,), torch.float32), rand((n,), torch.float32)
    add = lambda: x + y
    case(f'add f32 {n}', 'elementwise/add.mlir', 'add', {}, [x, y, poison((n,), torch.float32)], [],
         (-(-n // 1024),), 2, {'torch': (add, add()), 'torch.compile': (lambda: compiled['add'](x, y), None)},
         3 * 4 * n, 'TB/s', close(1e-6))
    axpy = lambda: F.gelu(0.5 * x + y)
    case(f'axpy+gelu f32 {n}', 'elementwise/axpy_gelu.mlir', 'axpy_gelu', {}, [x, y, poison((n,), torch.float32)],
         [0.5], (-(-n // 1024),), 2, {'torch': (axpy, axpy()), 'torch.compile': (lambda: compiled['axpy_gelu'](x, y), None)},
         3 * 4 * n, 'TB/s', close(1e-5))
    r, c = (16384, 8192) if not (quick or memcheck) else (333, 300)
    xs = rand((r, c), torch.float32)
    colsum = lambda: xs.sum(0)
    case(f'column_sum f32 {r}x{c}', 'elementwise/column_sum.mlir', 'column_sum', {}, [xs, poison((c,), torch.float32)],
         [], (-(-c // 128),), 1, {'torch': (colsum, colsum()), 'torch.compile': (lambda: compiled['column_sum'](xs), None)},
         4 * (r * c + c), 'TB/s', close(1e-4))


def copy_ceiling():
    src = torch.empty(1 << 30, dtype=torch.uint8, device='cuda').random_(generator=gen)
    dst = torch.empty_like(src)
    ms = events_ms(lambda: dst.copy_(src), 20)
    return 2 * src.numel() / ms / 1e9


print(torch.cuda.get_device_name(), f'torch {torch.__version__}', flush=True)
if not memcheck:
    print(f'device-to-device copy: {copy_ceiling():.3f} TB/s (bytes read plus written)', flush=True)
for family in [gemm_cases, norm_cases, attention_cases, elementwise_cases]:
    try:
        family()
    except Exception as e:  # a family's failure is recorded, not the end
        print(f'{family.__name__}: FAILED {e}', flush=True)
        failures += 1
    torch.cuda.empty_cache()

if rows and not memcheck:
    keys = ['case', 'unit', 'tile_rate', 'peer_rate', 'best_peer', 'ratio', 'tile_ms', 'peer_ms', 'entry', 'tensor_cores',
            'regs', 'smem', 'compile_s', 'ok', 'error', 'status']
    with open(os.path.join(out_dir, 'suite.csv'), 'w', newline='') as f:
        w = csv.DictWriter(f, keys)
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k) for k in keys})
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
        ran = [r for r in rows if r.get('ratio')]
        fig, ax = plt.subplots(figsize=(14, max(4, 0.22 * len(ran))))
        ax.barh(range(len(ran)), [r['ratio'] for r in ran], color=['tab:green' if r['ok'] else 'tab:red' for r in ran])
        ax.set_yticks(range(len(ran)))
        ax.set_yticklabels([r['case'] for r in ran], fontsize=6)
        ax.axvline(1.0, color='k', lw=0.5)
        ax.set_xscale('log')
        ax.set_xlabel('tile time / best peer time, inverted (1 = as fast as the vendor; log scale)')
        ax.invert_yaxis()
        fig.tight_layout()
        fig.savefig(os.path.join(out_dir, 'suite.png'), dpi=100)
    except Exception as e:
        print('plot:', e)
print(f'bench-suite: {len(rows)} cases, {failures} failed or wrong' + (f' ({sanitizer})' if memcheck else ''), flush=True)
sys.exit(1 if failures else 0)
