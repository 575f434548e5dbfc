#!/usr/bin/env python3
"""A/B timing of the register path's producer-warp GEMM variant
(`matmul_f16_f16__tma`, examples/matmul_f16_f16.mlir at
tile_m=64,tile_n=128,num_stages=8,warp_specialize=1) against the matcher's
(`__wgmma`) and against hand-edited PTX variants of it (`__tma_<letter>`,
make_variants.py), with no rebuild of the compiler: loads each PTX with the
driver, encodes the TMA descriptors as tile-runtime does
(runtime/src/cuda.rs `encode`, runtime/src/tma.rs `layout`), launches the
kernels as the runtime launches these (not widened, not persistent) variants,
checks C against torch and times the variants interleaved.

usage: python3 ab.py [--size M,N,K] [--rounds R] [--iters N] [--only SUBSTR]
                     [--wide] [--check-only] [--profile] [--flush]
  --size M,N,K  the problem (default 128,8192,8192)
  --wide        the 128x256x4 config's kernels (wide/: matcher, register path
                and wide/_w) instead of the 64x128x8 ones
  --only S      only entries whose name holds S (both baselines always run)
  --check-only  correctness only, no timing
  --profile     after the check, 3 launches of each, no timing (for
                `ncu -k regex:matmul --launch-skip ... --launch-count ...`)
  --flush       time each launch alone after writing a 512 MiB buffer (L2
                flushed), instead of back-to-back launches
  --smem E=B,.. dynamic shared memory B bytes for entry E instead of its
                bundle variant's (session 33)
  A persistent bundle variant also gets the program's grid (the tiles of
  C, from --wide's tile) as its last parameter (session 34); launch it
  with --grid (the resident blocks).

Each kernel takes, as the bundle's signature says, A, B, C as memref
descriptors (allocated, aligned, offset, 2 sizes, 2 strides: 7 u64 each),
then one pointer per TMA descriptor of the bundle variant's `tma` list (A,
B, C), each a 128-byte CUtensorMap in device memory. Grid: one block per
tile_m x tile_n tile of C (1-D; the kernel orders the tiles itself). Block:
the PTX's .maxntid (for the baselines checked against the bundle); dynamic
shared memory: the bundle variant's.

A wrong result (NaN, or off torch's f32 product by more than
1e-2 + 4e-3 |ref|) or a launch that does not finish in 30 s stops the
script with a non-zero status before any timing.
"""
import ctypes
import glob
import json
import os
import re
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
args = sys.argv[1:]


def opt(name, default):
    return args[args.index(name) + 1] if name in args else default


rounds = int(opt('--rounds', '7'))
iters = int(opt('--iters', '50'))
M, N, K = map(int, opt('--size', '128,8192,8192').split(','))
only = opt('--only', None)
wide = '--wide' in args
check_only = '--check-only' in args
profile = '--profile' in args
flush = '--flush' in args

# Where the kernels are, and the config's tile of C (tile_m, tile_n).
FOLDER = os.path.join(HERE, 'wide') if wide else HERE
TILE = (128, 256) if wide else (64, 128)
BASELINE = 'matmul_f16_f16__tma'
# Session 33: any folder of one program's f16 A B kernels (a bundle.json
# without its ptx, one entry a .ptx file), its baseline entry, and a fixed
# grid (a persistent program's blocks).
FOLDER = os.path.abspath(opt('--folder', FOLDER))
BASELINE = opt('--base', BASELINE)
FIXED_GRID = opt('--grid', None)
# Always run, whatever --only says.
BASELINES = (BASELINE, 'matmul_f16_f16__wgmma')
# Dynamic shared memory of a variant that needs other than its base's.
SMEM_OVERRIDE = {}
# Session 33 (s33-static/persistent): --smem ENTRY=BYTES[,ENTRY=BYTES...]
# adds to it from the command line.
for item in filter(None, opt('--smem', '').split(',')):
    name, size = item.split('=')
    SMEM_OVERRIDE[name] = int(size)
ATOL, RTOL = 1e-2, 4e-3
HANG_S = 30.0

bundle = json.load(open(os.path.join(FOLDER, 'bundle.json')))
(kernel,) = bundle['kernels']
signature = kernel['signature']['params']
variants = {v['name']: v for v in kernel['variants']}
assert all('Memref' in p and p['Memref']['dtype'] == 'F16' for p in signature) and len(signature) == 3, signature

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
cuda.cuLaunchKernel.argtypes = [P, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint,
                                ctypes.c_uint, ctypes.c_uint, P, ctypes.POINTER(P), ctypes.POINTER(P)]
cuda.cuTensorMapEncodeTiled.argtypes = [P, ctypes.c_int, ctypes.c_uint, P, ctypes.POINTER(ctypes.c_uint64),
                                        ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint32),
                                        ctypes.POINTER(ctypes.c_uint32), ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                        ctypes.c_int]


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

SWIZZLE = {0: 0, 32: 1, 64: 2, 128: 3}  # CUtensorMapSwizzle


def tensor_map(t, box_shape, swizzle):
    """A CUtensorMap of the 2-D row-major f16 tensor `t` as the runtime
    encodes it: dims and box innermost first, the row stride in bytes,
    element strides 1, no interleave, L2 promotion 256 B, no OOB fill
    (zeros); a device copy (torch allocations are 512-byte aligned; the
    driver wants 64)."""
    rows, cols = t.shape
    assert t.stride(1) == 1 and (t.stride(0) * t.element_size()) % 16 == 0 and t.data_ptr() % 16 == 0
    box_rows, box_cols = box_shape
    assert box_cols * t.element_size() <= swizzle
    # The host map 64-byte aligned, as CUtensorMap is declared in cuda.h.
    host = ctypes.create_string_buffer(128 + 64)
    address = (ctypes.addressof(host) + 63) & ~63
    dims = (ctypes.c_uint64 * 2)(cols, rows)
    strides = (ctypes.c_uint64 * 1)(t.stride(0) * t.element_size())
    box = (ctypes.c_uint32 * 2)(box_cols, box_rows)
    elem = (ctypes.c_uint32 * 2)(1, 1)
    # CU_TENSOR_MAP_DATA_TYPE_FLOAT16 (6), rank 2, ..., INTERLEAVE_NONE (0),
    # the swizzle, L2_PROMOTION_L2_256B (3), FLOAT_OOB_FILL_NONE (0).
    check(cuda.cuTensorMapEncodeTiled(P(address), 6, 2, P(t.data_ptr()), dims, strides, box, elem, 0,
                                      SWIZZLE[swizzle], 3, 0), 'cuTensorMapEncodeTiled')
    d = torch.frombuffer(bytearray(ctypes.string_at(address, 128)), dtype=torch.uint8).to(dev)
    assert d.data_ptr() % 64 == 0
    return d


def memref(t):
    """A memref descriptor's slots (abi/src/signature.rs memref_slots)."""
    return [t.data_ptr(), t.data_ptr(), 0, t.shape[0], t.shape[1], t.stride(0), t.stride(1)]


torch.manual_seed(0)
a = torch.rand(M, K, device=dev, dtype=torch.float16) - 0.5
b = torch.rand(K, N, device=dev, dtype=torch.float16) - 0.5
c = torch.empty(M, N, device=dev, dtype=torch.float16)
ref = a.float() @ b.float()
arrays = [a, b, c]
stream = P(torch.cuda.current_stream().cuda_stream)
grid = int(FIXED_GRID) if FIXED_GRID else -(-M // TILE[0]) * -(-N // TILE[1])
scrub = torch.empty(512 << 20, dtype=torch.uint8, device=dev) if flush else None


class Kernel:
    pass


def load(path):
    text = open(path).read()
    entry = re.search(r'\.entry\s+(\w+)\(', text).group(1)
    base = max((v for v in variants if entry == v or entry.startswith(v + '_')), key=len, default=None)
    if base is None:
        print(f'{os.path.basename(path)}: entry {entry} is no variant of the bundle, skipped')
        return None
    if only and only not in entry and entry not in BASELINES:
        return None
    k = Kernel()
    k.entry, k.base, k.path = entry, base, path
    v = variants[base]
    k.block = int(re.search(r'\.maxntid\s+(\d+),\s*1,\s*1', text).group(1))
    if entry == base and k.block != v['block'][0]:
        raise SystemExit(f'{entry}: .maxntid {k.block} but the bundle says block {v["block"]}')
    k.smem = SMEM_OVERRIDE.get(entry, v['shared_memory'])
    # Its parameters: the memrefs', then one pointer per TMA descriptor.
    k.descriptors = [tensor_map(arrays[d['arg']], d['box_shape'], d['swizzle']) for d in v['tma']]
    values = sum((memref(t) for t in arrays), []) + [d.data_ptr() for d in k.descriptors]
    # Session 34: a persistent variant's last parameter is the program's
    # grid, which its blocks share out (runtime/src/cuda.rs `prepare`).
    if v.get('persistent'):
        values.append(-(-M // TILE[0]) * -(-N // TILE[1]))
    declared = len(re.findall(rf'\.param\s+\.u64\s+(?:\.ptr\s+\.align\s+\d+\s+)?{entry}_param_\d+', text))
    if declared != len(values):
        raise SystemExit(f'{entry}: {declared} parameters declared, {len(values)} passed')
    k.values = [ctypes.c_uint64(x) for x in values]
    k.params = (P * len(values))(*[ctypes.cast(ctypes.byref(x), P) for x in k.values])
    module = P()
    log = ctypes.create_string_buffer(1 << 14)
    options = (ctypes.c_int * 2)(5, 6)  # CU_JIT_ERROR_LOG_BUFFER, its size
    option_values = (P * 2)(ctypes.cast(log, P), P(len(log)))
    status = cuda.cuModuleLoadDataEx(ctypes.byref(module), text.encode() + b'\0', 2, options, option_values)
    if status != 0:
        print(log.value.decode(errors='replace'), file=sys.stderr)
    check(status, f'load {path}')
    k.module = module
    k.fn = P()
    check(cuda.cuModuleGetFunction(ctypes.byref(k.fn), module, entry.encode()), f'function {entry}')
    check(cuda.cuFuncSetAttribute(k.fn, 8, k.smem), f'{entry}: max dynamic shared memory {k.smem}')
    regs, resident = ctypes.c_int(), ctypes.c_int()
    check(cuda.cuFuncGetAttribute(ctypes.byref(regs), 4, k.fn), 'registers')
    check(cuda.cuOccupancyMaxActiveBlocksPerMultiprocessor(ctypes.byref(resident), k.fn, k.block, k.smem),
          'occupancy')
    if resident.value < 1:
        raise SystemExit(f'{entry}: no block of {k.block} threads and {k.smem} bytes fits on a multiprocessor')
    k.regs, k.resident = regs.value, resident.value
    return k


def launch(k):
    check(cuda.cuLaunchKernel(k.fn, grid, 1, 1, k.block, 1, 1, k.smem, stream, k.params, None), f'launch {k.entry}')


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


paths = sorted(glob.glob(os.path.join(FOLDER, '*.ptx')))
kernels = [k for k in map(load, paths) if k is not None]
names = [k.entry for k in kernels]
if BASELINE not in names:
    raise SystemExit(f'no {BASELINE} among {names}')
print(f'{torch.cuda.get_device_name()}, M,N,K = {M},{N},{K}, tile {TILE[0]}x{TILE[1]}, grid {grid}, '
      f'{len(kernels)} kernels from {FOLDER}', flush=True)

# --- correctness ----------------------------------------------------------------
results, wrong = {}, []
for k in kernels:
    c.fill_(float('nan'))
    launch(k)
    finish(k.entry)
    out = c.clone()
    bad = torch.isnan(out).sum().item()
    err = (out.float() - ref).abs()
    over = (err > ATOL + RTOL * ref.abs()).sum().item()
    results[k.entry] = out
    k.err = err.max().item() if bad == 0 else float('nan')
    k.ok = bad == 0 and over == 0
    if not k.ok:
        wrong.append(f'{k.entry}: {bad} NaN, {over} elements off by more than {ATOL} + {RTOL} |ref|, '
                     f'max |err| {err.nan_to_num(float("inf")).max().item():.3e}')
for k in kernels:
    k.same = torch.equal(results[k.entry], results[BASELINE])
    print(f'{k.entry:28s} block {k.block:4d} smem {k.smem:6d} regs {k.regs:3d} blocks/SM {k.resident}  '
          f'max |err| {k.err:.3e}  {"ok" if k.ok else "WRONG"}  '
          f'{"same bits as " + BASELINE if k.same else "bits differ from " + BASELINE}', flush=True)
if wrong:
    print('\nMISMATCH (no timing):\n  ' + '\n  '.join(wrong), file=sys.stderr, flush=True)
    sys.exit(1)
if check_only:
    sys.exit(0)
if profile:
    for _ in range(3):
        for k in kernels:
            launch(k)
    finish('profile launches')
    sys.exit(0)

# --- timing (interleaved, the order reversed every other round) -------------------
times = {k.entry: [] for k in kernels}
for _ in range(3):
    for k in kernels:
        launch(k)
finish('warm-up')
for r in range(rounds):
    for k in (kernels if r % 2 == 0 else kernels[::-1]):
        if flush:
            for _ in range(iters):
                scrub.zero_()
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                launch(k)
                end.record()
                finish(k.entry)
                times[k.entry].append(start.elapsed_time(end) * 1e3)
        else:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(iters):
                launch(k)
            end.record()
            finish(k.entry)
            times[k.entry].append(start.elapsed_time(end) * 1e3 / iters)


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


flop = 2 * M * N * K
base = median(times[BASELINE])
print(f'\nM,N,K = {M},{N},{K}: {rounds} rounds of {iters} launches'
      f'{" (each after an L2 flush)" if flush else ""}; ratio = median time / {BASELINE}\'s (< 1 faster)')
print(f'| kernel | us median | us min | us max | TFLOP/s | ratio to {BASELINE} | correct |')
print('|---|---|---|---|---|---|---|')
for k in kernels:
    ts = times[k.entry]
    t = median(ts)
    print(f'| {k.entry} | {t:.2f} | {min(ts):.2f} | {max(ts):.2f} | {flop / (t * 1e-6) / 1e12:.0f} | '
          f'{t / base:.3f} | {"ok" if k.ok else "WRONG"} (max err {k.err:.2e}) |', flush=True)
