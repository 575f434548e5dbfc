#!/usr/bin/env python3
"""A/B timing of hand-edited PTX variants of the tf32 and f8 TMA variants
(`gemm_tf32__tma`, `gemm_f8__tma`, with `gemm_f8_abt__tma` as the K-major
reference), with no rebuild of the compiler: loads each PTX with the driver,
encodes the TMA descriptors as tile-runtime does (runtime/src/cuda.rs,
tma.rs), launches one block per 128x128 tile, checks C against a reference
and times the variants interleaved, beside torch's tf32 matmul and
torch._scaled_mm in the same process. (Style of ../../ptx-ab/ptx_ab.py.)

usage: python3 ptx_ab.py [--rounds R] [--iters N] [--size M,N,K] [--only S1|S2] [--profile] [--no-peers]
  (run from anywhere; the .ptx files beside this script. --profile: 3
   launches each, no timing, for `ncu -k regex:^gemm_ ...`)

Variants (tools/make_variants.py; NOTES.md says why):
  gemm_tf32__tma        as tile-run emits it (3 slots of 128x64 + 64x128 f32)
  _v1                   wgmma kept in flight: body unrolled x2, two fragment
                        register sets, wait_group 1, slot t-1 given back
  _v1r                  _v1 with .maxnreg 176 (no spill; 168 otherwise)
  _v2                   _v1r without the duplicate full-barrier wait
  gemm_tf32k32__tma     tf32.mlir with K tiles of 32 (4 slots), as emitted
  gemm_tf32k32__tma_v1  that, in flight (.maxnreg 176)
  gemm_f8__tma          as emitted (64 ld.shared.b8 + 48 prmt a K step)
  _v1                   in flight (.maxnreg 176)
  _v2                   B^T fragments by ldmatrix.x4.trans (4 + 16 prmt);
                        output columns permuted within 16 (undone here)
  _v3                   _v2 in flight;  _v4: _v3 without the duplicate wait
  gemm_f8_abt__tma      the B^T-given program (both operands K-major, SS)
  gemm_f8__tma_v30      the compiler's own ldmatrix scheme (session 30's
                        build, f8-ldmatrix.patch landed): columns in order
"""
import ctypes
import glob
import os
import re
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
args = sys.argv[1:]


def opt(name, default):
    return args[args.index(name) + 1] if name in args else default


rounds = int(opt('--rounds', '5'))
iters = int(opt('--iters', '30'))
M, N, K = map(int, opt('--size', '4096,4096,4096').split(','))
only = opt('--only', None)
profile = '--profile' in args
peers = '--no-peers' not in args

# entry -> (dynamic shared memory, kind, B box rows (K) of tf32, output columns permuted)
SHAPES = {
    'gemm_tf32__tma': (198656, 'tf32', 64),
    'gemm_tf32k32__tma': (133120, 'tf32', 32),
    'gemm_f8__tma': (165888, 'f8', None),
    'gemm_f8_abt__tma': (199680, 'f8_abt', None),
}
PERMUTED = ('gemm_f8__tma_v2', 'gemm_f8__tma_v3', 'gemm_f8__tma_v4')

cuda = ctypes.CDLL('libcuda.so.1')


def check(status, what):
    if status != 0:
        msg = ctypes.c_char_p()
        cuda.cuGetErrorString(status, ctypes.byref(msg))
        raise RuntimeError(f'{what}: {status} {msg.value}')


torch.backends.cuda.matmul.allow_tf32 = True
torch.cuda.init()
dev = torch.device('cuda')
torch.zeros(1, device=dev)  # makes the primary context current
ctx = ctypes.c_void_p()
check(cuda.cuCtxGetCurrent(ctypes.byref(ctx)), 'cuCtxGetCurrent')
assert ctx.value, 'no current context'

DTYPE_CODE = {torch.float32: 7, torch.bfloat16: 9, torch.float16: 6, torch.uint8: 0, torch.float8_e4m3fn: 0}


def tensor_map(t, box_rows, box_cols):
    """2-D row-major tensor `t`, box [box_rows, box_cols] elements (outermost
    first), 128-byte swizzle, L2 promotion 256 B, no OOB fill: as
    runtime/src/cuda.rs encodes it."""
    rows, cols = t.shape
    m = (ctypes.c_uint64 * 16)()
    dims = (ctypes.c_uint64 * 2)(cols, rows)
    strides = (ctypes.c_uint64 * 1)(t.stride(0) * t.element_size())
    box = (ctypes.c_uint32 * 2)(box_cols, box_rows)
    estr = (ctypes.c_uint32 * 2)(1, 1)
    check(cuda.cuTensorMapEncodeTiled(ctypes.byref(m), DTYPE_CODE[t.dtype], 2, ctypes.c_void_p(t.data_ptr()), dims,
                                      strides, box, estr, 0, 3, 3, 0), 'cuTensorMapEncodeTiled')
    return torch.frombuffer(bytearray(bytes(m)), dtype=torch.uint8).to(dev)


def memref(t):
    return [t.data_ptr(), t.data_ptr(), 0, t.shape[0], t.shape[1], t.stride(0), t.stride(1)]


torch.manual_seed(0)
# tf32: f32 operands; f8: e4m3 operands, bf16 output.
a32 = torch.rand(M, K, device=dev) - 0.5
b32 = torch.rand(K, N, device=dev) - 0.5
a8 = (torch.randn(M, K, device=dev) * 0.5).to(torch.float8_e4m3fn)
b8 = (torch.randn(K, N, device=dev) * 0.5).to(torch.float8_e4m3fn)
b8t = b8.t().contiguous()  # N x K, K contiguous: f8_abt's B and _scaled_mm's column-major B
ref32 = (a32.double() @ b32.double()).float()
ref8 = a8.float() @ b8.float()
c32 = torch.empty(M, N, device=dev, dtype=torch.float32)
c16 = torch.empty(M, N, device=dev, dtype=torch.bfloat16)


def params_for(kind, b_rows):
    keep = []
    if kind == 'tf32':
        descs = [tensor_map(a32, 128, 32), tensor_map(b32, b_rows, 32), tensor_map(c32, 128, 32)]
        arrays = [a32, b32, c32]
    elif kind == 'f8':
        descs = [tensor_map(a8, 128, 128), tensor_map(b8, 128, 128), tensor_map(c16, 128, 64)]
        arrays = [a8, b8, c16]
    else:
        descs = [tensor_map(a8, 128, 128), tensor_map(b8t, 128, 128), tensor_map(c16, 128, 64)]
        arrays = [a8, b8t, c16]
    keep += descs
    words = []
    for t in arrays:
        words += memref(t)
    words += [d.data_ptr() for d in descs]
    values = [ctypes.c_uint64(v) for v in words]
    keep += values
    params = (ctypes.c_void_p * len(values))(*[ctypes.cast(ctypes.byref(v), ctypes.c_void_p) for v in values])
    return params, keep


kernels = []
for path in sorted(glob.glob(os.path.join(HERE, '*.ptx'))):
    text = open(path).read()
    entry = re.search(r'\.entry\s+(\w+)\(', text).group(1)
    if only and not any(part in entry for part in only.split('|')):
        continue
    base = next((k for k in SHAPES if entry == k or entry.startswith(k + '_v')), None)
    if base is None:
        continue
    smem, kind, b_rows = SHAPES[base]
    threads = int(re.search(r'\.maxntid\s+(\d+)', text).group(1))
    module = ctypes.c_void_p()
    try:
        check(cuda.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(text.encode() + b'\0')), f'load {path}')
    except RuntimeError as e:
        print(f'{entry}: NOT LOADED ({e})', flush=True)
        continue
    fn = ctypes.c_void_p()
    check(cuda.cuModuleGetFunction(ctypes.byref(fn), module, entry.encode()), f'function {entry}')
    check(cuda.cuFuncSetAttribute(fn, 8, smem), 'max dynamic shared memory')
    regs = ctypes.c_int()
    cuda.cuFuncGetAttribute(ctypes.byref(regs), 4, fn)  # CU_FUNC_ATTRIBUTE_NUM_REGS
    params, keep = params_for(kind, b_rows)
    kernels.append(dict(entry=entry, fn=fn, smem=smem, kind=kind, threads=threads, regs=regs.value,
                        grid=(M // 128) * (N // 128), params=params, keep=keep, module=module))


def launch(k):
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
    check(cuda.cuLaunchKernel(k['fn'], k['grid'], 1, 1, k['threads'], 1, 1, k['smem'], stream, k['params'], None),
          f'launch {k["entry"]}')


# out[:, 16g + r] holds C[:, 16g + PERM[r]] in the ldmatrix variants (tools/check_ldsm.py)
PERM = [0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15]
unpermute = torch.tensor([16 * (j // 16) + PERM[j % 16] for j in range(N)], device=dev)

good = []
for k in kernels:
    out = c32 if k['kind'] == 'tf32' else c16
    out.fill_(float('nan'))
    try:
        launch(k)
        torch.cuda.synchronize()
    except RuntimeError as e:
        print(f'{k["entry"]}: FAILED ({e})', flush=True)
        continue
    got = out.float()
    ref = ref32 if k['kind'] == 'tf32' else ref8
    if k['entry'] in PERMUTED:
        fixed = torch.empty_like(got)
        fixed[:, unpermute] = got  # C column 16g + PERM[r] is out column 16g + r
        got = fixed
    err = ((got - ref).abs().max() / ref.abs().max()).item()
    ok = err < 1e-2
    print(f'{k["entry"]:28s} grid {k["grid"]} x {k["threads"]}, smem {k["smem"]}, regs {k["regs"]}, '
          f'max |err| / max |C| {err:.2e}', 'ok' if ok else 'WRONG', flush=True)
    if ok:
        good.append(k)
kernels = good

if profile:
    for _ in range(3):
        for k in kernels:
            launch(k)
    torch.cuda.synchronize()
    sys.exit(0)

timed = [(k['entry'], (lambda k=k: launch(k))) for k in kernels]
if peers:
    one = torch.tensor(1.0, device=dev)
    if not only or 'tf32' in only:
        timed.append(('torch tf32 (cuBLAS)', lambda: torch.matmul(a32, b32, out=c32)))
    if not only or 'f8' in only:
        scaled = lambda: torch._scaled_mm(a8, b8t.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
        try:
            scaled()
            timed.append(('torch._scaled_mm (B col-major)', scaled))
        except Exception as e:  # another torch's signature: time without the peer
            print(f'_scaled_mm not timed: {e}', flush=True)

flop = 2 * M * N * K
results = {name: [] for name, _ in timed}
for _ in range(3):
    for _, fn in timed:
        fn()
torch.cuda.synchronize()
for r in range(rounds):
    order = timed if r % 2 == 0 else timed[::-1]
    for name, fn in order:
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(iters):
            fn()
        end.record()
        end.synchronize()
        results[name].append(flop * iters / (start.elapsed_time(end) * 1e-3) / 1e12)
for name, ts in results.items():
    ts = sorted(ts)
    print(f'{name:32s} TFLOP/s median {ts[len(ts) // 2]:.1f}  min {ts[0]:.1f}  max {ts[-1]:.1f}', flush=True)
