#!/usr/bin/env python3
"""A/B timing of the general (no TMA) GEMM kernels `gemm_atb` (bench/gemm/atb.mlir,
C = A^T B with A stored K x M) and `gemm_ab` (bench/gemm/ab.mlir, C = A B) as
built at 6603124 (`_old`), at main (`_new`, a8446c3) and with this folder's
patches on main (`_patchA`: patch-a-elements-first.diff; `_patchB`:
patch-b-interior-branch.diff, the one proposed), with no rebuild of the
compiler: loads each PTX (module header plus
the one entry) with the driver, launches it as tile-runtime launches a kernel
with no variant (runtime/src/cuda.rs `try_prepare`: the memref descriptors'
slots, no TMA descriptor, one block per tile of C), checks C against torch and
times the kernels interleaved.

usage: python3 bench/experiments/atb-2047-s32/ab_general.py
           [--sizes M,N,K[;M,N,K...]] [--rounds R] [--iters N] [--only SUBSTR]
           [--check-only] [--profile] [--flush] [--jit]
  --sizes    problems, ';'-separated (default 2047,2047,2047;4096,4096,4100)
  --only S   only kernels whose file name holds S
  --check-only  correctness only
  --profile  after the check, 3 launches of each kernel at each size, no timing
             (for `ncu -k regex:gemm --launch-skip ... --launch-count ...`)
  --flush    time each launch alone after writing a 512 MiB buffer (L2 flushed)
  --jit      load the PTX through the driver's JIT, not a ptxas cubin

Assembly: as tile-runtime does (runtime/src/ptxas.rs), each PTX is assembled by
a `ptxas` process (-arch=sm_90a, -O3) and the cubin loaded, so that the SASS
is what the benchmarks ran and what NOTES.md read (ptxas 12.9 here); the
ptxas is $TILE_PTXAS, else $CUDA_HOME/bin/ptxas, else the pip package
nvidia-cuda-nvcc's, else `ptxas` on PATH, else /usr/local/cuda/bin/ptxas.
Without one (or with --jit) the driver compiles the PTX, whose ptxas may
schedule differently: the route and version are printed.

The kernels (kernels.json, written from the bundles of `tile-run --emit-bundle`):
each takes A, B, C as memref descriptors, 7 u64 slots each (allocated pointer,
aligned pointer, offset 0, 2 sizes, 2 strides in elements: abi/src/signature.rs
`memref_slots`), 21 parameters in all. Grid: one block per 128x128 tile of C
(`--grid tiles:2`), 1-D; block and dynamic shared memory as the bundle says
(256 threads, 164864 bytes for all of them; the `_old` PTX also declares one
byte of static shared memory, as 6603124 emitted it).

Shapes: gemm_atb: A is K x M, B is K x N, C is M x N; gemm_ab: A is M x K,
B is K x N, C is M x N. At 2047 every row is 2-byte aligned only: the K loop
runs its shifted-copy version (the code this experiment is about). At
4096x4096x4100 the same entry runs its cp.async version (atb: rows of 4096 or
4100 elements, 16- and 8-byte aligned; ab: A's rows of 4100, 8-byte): a
control the patch should not move.

Exits non-zero before any timing if a kernel's C is wrong (a NaN left from the
poisoned C, or an element off torch's f32 product by more than
1e-2 + 4e-3 |ref|), or if a launch does not finish within 30 s.
"""
import atexit
import ctypes
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
args = sys.argv[1:]


def opt(name, default):
    return args[args.index(name) + 1] if name in args else default


rounds = int(opt('--rounds', '15'))
iters = int(opt('--iters', '50'))
sizes = [tuple(map(int, s.split(','))) for s in opt('--sizes', '2047,2047,2047;4096,4096,4100').split(';') if s]
only = opt('--only', None)
check_only = '--check-only' in args
jit = '--jit' in args
profile = '--profile' in args
flush = '--flush' in args
ATOL, RTOL = 1e-2, 4e-3
HANG_S = 30.0
TILE = (128, 128)  # the program's tile of C (bench/gemm/{atb,ab}.mlir, %pc)

meta = json.load(open(os.path.join(HERE, 'kernels.json')))

# --- the driver ---------------------------------------------------------------
cuda = ctypes.CDLL('libcuda.so.1')
P = ctypes.c_void_p
cuda.cuGetErrorString.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
cuda.cuCtxGetCurrent.argtypes = [ctypes.POINTER(P)]
cuda.cuModuleLoadDataEx.argtypes = [ctypes.POINTER(P), ctypes.c_char_p, ctypes.c_uint, ctypes.POINTER(ctypes.c_int),
                                    ctypes.POINTER(P)]
cuda.cuModuleGetFunction.argtypes = [ctypes.POINTER(P), P, ctypes.c_char_p]
cuda.cuFuncSetAttribute.argtypes = [P, ctypes.c_int, ctypes.c_int]
cuda.cuFuncGetAttribute.argtypes = [ctypes.POINTER(ctypes.c_int), ctypes.c_int, P]
cuda.cuOccupancyMaxActiveBlocksPerMultiprocessor.argtypes = [ctypes.POINTER(ctypes.c_int), P, ctypes.c_int,
                                                             ctypes.c_size_t]
cuda.cuModuleLoadData.argtypes = [ctypes.POINTER(P), ctypes.c_char_p]
cuda.cuLaunchKernel.argtypes = [P, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint,
                                ctypes.c_uint, ctypes.c_uint, P, ctypes.POINTER(P), ctypes.POINTER(P)]


def check(status, what):
    if status != 0:
        msg = ctypes.c_char_p()
        cuda.cuGetErrorString(status, ctypes.byref(msg))
        raise RuntimeError(f'{what}: CUDA error {status} {msg.value}')


torch.backends.cuda.matmul.allow_tf32 = False
torch.cuda.init()
dev = torch.device('cuda')
torch.zeros(1, device=dev)  # makes the primary context current
ctx = P()
check(cuda.cuCtxGetCurrent(ctypes.byref(ctx)), 'cuCtxGetCurrent')
assert ctx.value, 'no current context'
stream = P(torch.cuda.current_stream().cuda_stream)

CU_FUNC_ATTRIBUTE_NUM_REGS = 4
CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3
CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1
CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8


class Kernel:
    pass


def find_ptxas():
    """The ptxas tile-runtime would use (runtime/src/ptxas.rs `Ptxas::find`),
    with the pip package nvidia-cuda-nvcc's before PATH's: the first that
    answers --version; None if none does."""
    candidates = []
    if os.environ.get('TILE_PTXAS'):
        candidates = [os.environ['TILE_PTXAS']]
    else:
        if os.environ.get('CUDA_HOME'):
            candidates.append(os.path.join(os.environ['CUDA_HOME'], 'bin', 'ptxas'))
        try:
            import nvidia.cuda_nvcc as nvcc
            candidates.append(os.path.join(list(nvcc.__path__)[0], 'bin', 'ptxas'))
        except ImportError:
            pass
        candidates += [shutil.which('ptxas') or 'ptxas', '/usr/local/cuda/bin/ptxas']
    for path in candidates:
        try:
            out = subprocess.run([path, '--version'], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if out.returncode == 0:
            return path, out.stdout.strip().splitlines()[-1]
    return None


PTXAS = None if jit else find_ptxas()
WORK = tempfile.mkdtemp(prefix='ab_general_')
atexit.register(shutil.rmtree, WORK, True)
print(f'assembly: {"ptxas " + PTXAS[0] + " (" + PTXAS[1] + ")" if PTXAS else "the driver JIT"}', flush=True)


def load(name, m):
    path = os.path.join(HERE, m['ptx'])
    text = open(path).read()
    entries = re.findall(r'\.entry\s+(\w+)\(', text)
    if entries != [m['entry']]:
        raise SystemExit(f'{path}: entries {entries}, expected [{m["entry"]}]')
    k = Kernel()
    k.name, k.entry, k.program, k.path = name, m['entry'], m['program'], path
    k.block, k.smem = m['block'][0], m['shared_memory']
    maxntid = int(re.search(r'\.maxntid\s+(\d+),\s*1,\s*1', text).group(1))
    if maxntid != k.block or m['block'][1:] != [1, 1]:
        raise SystemExit(f'{name}: .maxntid {maxntid} but the bundle says block {m["block"]}')
    params = m['params']
    if not (len(params) == 3 and all('Memref' in p and p['Memref']['dtype'] == 'F16'
                                      and p['Memref']['strides'][-1] == 1 for p in params)):
        raise SystemExit(f'{name}: signature {params}, expected three f16 memrefs')
    declared = len(re.findall(rf'\.param\s+\.u64\s+(?:\.ptr\s+\.align\s+\d+\s+)?{k.entry}_param_\d+', text))
    if declared != 21:
        raise SystemExit(f'{name}: {declared} parameters declared, 21 (3 memrefs x 7 slots) expected')
    module = P()
    k.route = 'jit'
    if PTXAS:
        cubin = os.path.join(WORK, name + '.cubin')
        out = subprocess.run([PTXAS[0], '-arch=sm_90a', '-O3', path, '-o', cubin], capture_output=True, text=True)
        if out.returncode != 0:
            raise SystemExit(f'{name}: ptxas failed:\n{out.stderr}')
        k.image = open(cubin, 'rb').read()  # kept alive while the module loads
        check(cuda.cuModuleLoadData(ctypes.byref(module), k.image), f'load {cubin}')
        k.route = 'ptxas'
    else:
        log = ctypes.create_string_buffer(1 << 14)
        options = (ctypes.c_int * 2)(5, 6)  # CU_JIT_ERROR_LOG_BUFFER, its size
        option_values = (P * 2)(ctypes.cast(log, P), P(len(log)))
        status = cuda.cuModuleLoadDataEx(ctypes.byref(module), text.encode() + b'\0', 2, options, option_values)
        if status != 0:
            print(log.value.decode(errors='replace'), file=sys.stderr)
        check(status, f'load {path}')
    k.module = module
    k.fn = P()
    check(cuda.cuModuleGetFunction(ctypes.byref(k.fn), module, k.entry.encode()), f'function {k.entry}')
    check(cuda.cuFuncSetAttribute(k.fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, k.smem),
          f'{name}: max dynamic shared memory {k.smem}')
    regs, local, static, resident = ctypes.c_int(), ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
    check(cuda.cuFuncGetAttribute(ctypes.byref(regs), CU_FUNC_ATTRIBUTE_NUM_REGS, k.fn), 'registers')
    check(cuda.cuFuncGetAttribute(ctypes.byref(local), CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, k.fn), 'local memory')
    check(cuda.cuFuncGetAttribute(ctypes.byref(static), CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k.fn), 'static shared')
    check(cuda.cuOccupancyMaxActiveBlocksPerMultiprocessor(ctypes.byref(resident), k.fn, k.block, k.smem),
          'occupancy')
    if resident.value < 1:
        raise SystemExit(f'{name}: no block of {k.block} threads and {k.smem} bytes fits on a multiprocessor')
    k.regs, k.local, k.static, k.resident = regs.value, local.value, static.value, resident.value
    return k


kernels = []
for name, m in sorted(meta.items()):
    if only and only not in name:
        continue
    if not os.path.exists(os.path.join(HERE, m['ptx'])):
        print(f'{name}: {m["ptx"]} not here, skipped', flush=True)
        continue
    kernels.append(load(name, m))
if not kernels:
    raise SystemExit('no kernel to run')
print(f'{torch.cuda.get_device_name()}; {len(kernels)} kernels:', flush=True)
for k in kernels:
    print(f'  {k.name:18s} {os.path.basename(k.path):22s} ({k.route}) block {k.block} dynamic smem {k.smem} '
          f'static smem {k.static} regs {k.regs} local {k.local} blocks/SM {k.resident}', flush=True)


def memref(t):
    """A memref descriptor's slots (abi/src/signature.rs memref_slots)."""
    return [t.data_ptr(), t.data_ptr(), 0, t.shape[0], t.shape[1], t.stride(0), t.stride(1)]


def finish(what):
    """Waits for the stream, at most HANG_S seconds (a hung kernel would
    block a plain synchronize for ever)."""
    event = torch.cuda.Event()
    event.record()
    start = time.time()
    while not event.query():
        if time.time() - start > HANG_S:
            print(f'HANG: {what} did not finish within {HANG_S:.0f} s', file=sys.stderr, flush=True)
            os._exit(3)
        time.sleep(0.0002)


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


scrub = torch.empty(512 << 20, dtype=torch.uint8, device=dev) if flush else None


def problem(M, N, K):
    """The operands of both programs at M, N, K (A as K x M and as M x K, B,
    C) and the grid; sets each kernel's parameters to them."""
    torch.manual_seed(0)
    # A^T B reads A as K x M; A B reads it as M x K. Values in [-0.5, 0.5).
    a_km = torch.rand(K, M, device=dev, dtype=torch.float16) - 0.5
    a_mk = torch.rand(M, K, device=dev, dtype=torch.float16) - 0.5
    b = torch.rand(K, N, device=dev, dtype=torch.float16) - 0.5
    c = torch.empty(M, N, device=dev, dtype=torch.float16)
    operands = {'gemm_atb': (a_km, b, c), 'gemm_ab': (a_mk, b, c)}
    for k in kernels:
        values = sum((memref(t) for t in operands[k.entry]), [])
        k.values = [ctypes.c_uint64(x) for x in values]
        k.params = (P * len(values))(*[ctypes.cast(ctypes.byref(x), P) for x in k.values])
    grid = -(-M // TILE[0]) * -(-N // TILE[1])
    return (a_km, a_mk, b, c), grid


def launch(k, grid):
    check(cuda.cuLaunchKernel(k.fn, grid, 1, 1, k.block, 1, 1, k.smem, stream, k.params, None), f'launch {k.name}')


# --- correctness, every size first --------------------------------------------------
failed = []
for (M, N, K) in sizes:
    (a_km, a_mk, b, c), grid = problem(M, N, K)
    refs = {'gemm_atb': a_km.float().t() @ b.float(), 'gemm_ab': a_mk.float() @ b.float()}
    print(f'\n=== M,N,K = {M},{N},{K}: grid {grid} (tiles of C, {TILE[0]}x{TILE[1]})', flush=True)
    outputs = {}
    for k in kernels:
        c.fill_(float('nan'))
        launch(k, grid)
        finish(f'{k.name} at {M},{N},{K}')
        out = c.clone()
        ref = refs[k.entry]
        bad = torch.isnan(out).sum().item()
        err = (out.float() - ref).abs()
        over = (err > ATOL + RTOL * ref.abs()).sum().item()
        worst = err.nan_to_num(float('inf')).max().item()
        ok = bad == 0 and over == 0
        outputs[k.name] = out
        print(f'{k.name:18s} max |err| {worst:.3e}  {"ok" if ok else "WRONG"}', flush=True)
        if not ok:
            failed.append(f'{k.name} at {M},{N},{K}: {bad} NaN, {over} elements off by more than '
                          f'{ATOL} + {RTOL} |ref|, max |err| {worst:.3e}')
    # The same products in the same order: the variants of a program should
    # agree bit for bit (reported, not required).
    for k in kernels:
        base = k.entry + '_old'
        if k.name != base and base in outputs:
            same = torch.equal(outputs[k.name], outputs[base])
            print(f'{k.name:18s} {"same bits as" if same else "bits differ from"} {base}', flush=True)
    del refs, outputs
if failed:
    print('\nMISMATCH (no timing):\n  ' + '\n  '.join(failed), file=sys.stderr, flush=True)
    sys.exit(1)
if check_only:
    sys.exit(0)

# --- timing (interleaved, the order reversed every other round) -------------------
tables = []
for (M, N, K) in sizes:
    # The operands stay referenced while their addresses are in the kernels'
    # parameters.
    operands, grid = problem(M, N, K)
    if profile:
        for _ in range(3):
            for k in kernels:
                launch(k, grid)
        finish('profile launches')
        continue
    times = {k.name: [] for k in kernels}
    for _ in range(3):
        for k in kernels:
            launch(k, grid)
    finish('warm-up')
    for r in range(rounds):
        for k in (kernels if r % 2 == 0 else kernels[::-1]):
            if flush:
                for _ in range(iters):
                    scrub.zero_()
                    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                    start.record()
                    launch(k, grid)
                    end.record()
                    finish(k.name)
                    times[k.name].append(start.elapsed_time(end) * 1e3)
            else:
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                for _ in range(iters):
                    launch(k, grid)
                end.record()
                finish(k.name)
                times[k.name].append(start.elapsed_time(end) * 1e3 / iters)
    flop = 2 * M * N * K
    lines = [f'\nM,N,K = {M},{N},{K}: {rounds} rounds of {iters} launches'
             f'{" (each after an L2 flush)" if flush else ""}; ratio = median time / the same program\'s _old',
             '| kernel | us median | us min | us max | TFLOP/s | ratio to _old |', '|---|---|---|---|---|---|']
    for k in kernels:
        ts = times[k.name]
        t = median(ts)
        base = k.entry + '_old'
        ratio = f'{t / median(times[base]):.3f}' if base in times else '-'
        lines.append(f'| {k.name} | {t:.2f} | {min(ts):.2f} | {max(ts):.2f} | {flop / (t * 1e-6) / 1e12:.1f} | '
                     f'{ratio} |')
    print('\n'.join(lines), flush=True)
    tables.append('\n'.join(lines))
if tables:
    print('\n=== summary' + ''.join(tables), flush=True)
