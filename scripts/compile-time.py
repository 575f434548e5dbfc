"""Compile time to PTX (issue #5, item 4): the minimum of ten `tile-to-ptx`
runs of each example through tile-opt, with MLIR's pass timing.

usage: python3 scripts/compile-time.py TILE_OPT TOOLKIT|- EXAMPLE...
  e.g. python3 scripts/compile-time.py target/release/tile-opt - matmul_bf16_bf16 softmax
TOOLKIT: a CUDA toolkit directory for libdevice, or - for the one tile-opt finds.
"""
import subprocess, sys
opt = sys.argv[1]
for ex in sys.argv[3:]:
    totals, binaries = [], []
    for _ in range(10):
        out = subprocess.run([opt, f'examples/{ex}.mlir', '--pass-pipeline=builtin.module(tile-to-ptx' + (('{toolkit=' + sys.argv[2] + '}') if sys.argv[2] != '-' else '') + ')', '--mlir-timing', '-o', '/dev/null'],
                             capture_output=True, text=True).stderr
        for line in out.splitlines():
            f = line.split()
            if f and f[-1] == 'Total' and '(' in line:
                totals.append(float(f[0]))
            if 'GpuModuleToBinaryPass' in line:
                binaries.append(float(f[0]))
    print(f'{ex}: total {min(totals)*1000:.0f} ms, gpu-module-to-binary {min(binaries)*1000:.0f} ms (min of 10)')
