#!/usr/bin/env python3
"""A/B timing of hand-edited PTX variants of the wide GEMM kernels, with no
rebuild of the compiler: loads each PTX with the driver, encodes the TMA
descriptors as tile-runtime does (runtime/src/cuda.rs, tma.rs), launches on
the wide grid, checks C against torch and times the variants interleaved.

usage: python3 ptx_ab.py [--rounds R] [--iters N] [--size M,N,K] [--only SUBSTR] [--profile]
  (run from the folder holding the .ptx files; --profile: 3 launches each,
   no timing, for `ncu -k regex:gemm --launch-skip ... --launch-count ...`)
"""
import ctypes, os, sys, glob
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
args = sys.argv[1:]
def opt(name, default):
    return args[args.index(name) + 1] if name in args else default
rounds = int(opt('--rounds', '5'))
iters = int(opt('--iters', '50'))
M, N, K = map(int, opt('--size', '4096,4096,4096').split(','))
only = opt('--only', None)
profile = '--profile' in args

# entry -> (dynamic shared memory, wide tile (rows, cols)) as the bundles say
SHAPES = {
    'gemm_64x128x32__wide__wgmma': (132096, (128, 128)),
    'gemm_64x128x32__wide__tma': (165928, (128, 128)),
    'gemm_ab__wide__wgmma': (197632, (128, 256)),
    'gemm_ab__wide__tma': (198688, (128, 256)),
    # session 30: the 4-slot variant's own size (NOTES-session30.md)
    'gemm_64x128x32__wide__tma_main30a': (133152, (128, 128)),
    # the compiler's own 4-slot ring (the spare slot given back), its bundle's size
    'gemm_64x128x32__wide__tma_main30e': (133120, (128, 128)),
}

cuda = ctypes.CDLL('libcuda.so.1')
def check(status, what):
    if status != 0:
        msg = ctypes.c_char_p()
        cuda.cuGetErrorString(status, ctypes.byref(msg))
        raise RuntimeError(f'{what}: {status} {msg.value}')

torch.cuda.init()
dev = torch.device('cuda')
torch.zeros(1, device=dev)  # makes the primary context current
ctx = ctypes.c_void_p()
check(cuda.cuCtxGetCurrent(ctypes.byref(ctx)), 'cuCtxGetCurrent')
assert ctx.value, 'no current context'

def tensor_map(t, box_rows, box_cols):
    """2-D row-major f16 tensor `t`, box [box_rows, box_cols] (outermost
    first), 128-byte swizzle, L2 promotion 256 B, zero fill."""
    rows, cols = t.shape
    m = (ctypes.c_uint64 * 16)()
    dims = (ctypes.c_uint64 * 2)(cols, rows)
    strides = (ctypes.c_uint64 * 1)(t.stride(0) * t.element_size())
    box = (ctypes.c_uint32 * 2)(box_cols, box_rows)
    estr = (ctypes.c_uint32 * 2)(1, 1)
    check(cuda.cuTensorMapEncodeTiled(ctypes.byref(m), 6, 2, ctypes.c_void_p(t.data_ptr()), dims, strides, box,
                                      estr, 0, 3, 3, 0), 'cuTensorMapEncodeTiled')
    raw = bytes(m)
    d = torch.frombuffer(bytearray(raw), dtype=torch.uint8).to(dev)  # 512-byte aligned allocation
    return d

def memref(t):
    return [t.data_ptr(), t.data_ptr(), 0, t.shape[0], t.shape[1], t.stride(0), t.stride(1)]

torch.manual_seed(0)
a = (torch.rand(M, K, device=dev, dtype=torch.float16) - 0.5)
b = (torch.rand(K, N, device=dev, dtype=torch.float16) - 0.5)
ref = (a.float() @ b.float())
descs = [tensor_map(a, 128, 64), tensor_map(b, 64, 64)]

kernels = []
for path in sorted(glob.glob(os.path.join(HERE, '*.ptx'))):
    text = open(path).read()
    import re
    entry = re.search(r'\.entry\s+(\w+)\(', text).group(1)
    if only and only not in entry:
        continue
    base = max((k for k in SHAPES if entry == k or entry.startswith(k + '_')), key=len, default=None)
    if base is None:
        continue
    smem, (tr, tc) = SHAPES[base]
    module = ctypes.c_void_p()
    check(cuda.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(text.encode() + b'\0')), f'load {path}')
    fn = ctypes.c_void_p()
    check(cuda.cuModuleGetFunction(ctypes.byref(fn), module, entry.encode()), f'function {entry}')
    check(cuda.cuFuncSetAttribute(fn, 8, smem), 'max dynamic shared memory')
    kernels.append((entry, fn, smem, (M // tr) * (N // tc)))

c = torch.empty(M, N, device=dev, dtype=torch.float16)
cdesc = tensor_map(c, 128, 64)
values = [ctypes.c_uint64(v) for v in memref(a) + memref(b) + memref(c) + [descs[0].data_ptr(), descs[1].data_ptr(), cdesc.data_ptr()]]
params = (ctypes.c_void_p * len(values))(*[ctypes.cast(ctypes.byref(v), ctypes.c_void_p) for v in values])

def launch(fn, smem, grid):
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
    check(cuda.cuLaunchKernel(fn, grid, 1, 1, 256, 1, 1, smem, stream, params, None), 'launch')

for entry, fn, smem, grid in kernels:
    c.fill_(float('nan'))
    launch(fn, smem, grid)
    torch.cuda.synchronize()
    err = (c.float() - ref).abs().max().item()
    print(f'{entry}: grid {grid}, smem {smem}, max |err| {err:.3e}', 'ok' if err < 0.05 else 'WRONG', flush=True)

if profile:
    for _ in range(3):
        for entry, fn, smem, grid in kernels:
            launch(fn, smem, grid)
    torch.cuda.synchronize()
    sys.exit(0)

flop = 2 * M * N * K
results = {e: [] for e, *_ in kernels}
for _ in range(3):
    for entry, fn, smem, grid in kernels:
        launch(fn, smem, grid)
for r in range(rounds):
    order = kernels if r % 2 == 0 else kernels[::-1]
    for entry, fn, smem, grid in order:
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(iters):
            launch(fn, smem, grid)
        end.record()
        end.synchronize()
        results[entry].append(flop * iters / (start.elapsed_time(end) * 1e-3) / 1e12)
for entry, ts in results.items():
    ts = sorted(ts)
    print(f'{entry:40s} TFLOP/s median {ts[len(ts)//2]:.1f}  min {ts[0]:.1f}  max {ts[-1]:.1f}', flush=True)
