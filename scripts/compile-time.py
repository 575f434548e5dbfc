"""Compile time to PTX (issues #5 and #20): the minimum over ten rounds of
`tile-to-ptx` through tile-opt with MLIR's pass timing (wall time), for each kernel;
each round runs every kernel once, so a machine whose speed drifts during
the measurement slows every kernel alike.

usage: python3 scripts/compile-time.py [--deferred] TILE_OPT TOOLKIT|- KERNEL...
  --deferred: `tile-to-ptx{general=deferred}`, a kernel's variants alone where
  it has any (what `tile-run` compiles first to run a kernel)
  KERNEL: an example's name (examples/NAME.mlir), or a .mlir path with
  replacements of its literals, FILE:OLD=NEW:OLD=NEW (the suite's
  instantiation, bench/README.md)
  e.g. python3 scripts/compile-time.py target/release/tile-opt - matmul_bf16_bf16 softmax \\
         bench/norms/layernorm.mlir:1024=32768:f16=bf16 bench/elementwise/add.mlir
TOOLKIT: a CUDA toolkit directory for libdevice, or - for the one tile-opt finds.
"""
import os, re, subprocess, sys, tempfile

args = sys.argv[1:]
deferred = bool(args) and args[0] == '--deferred'
if deferred:
    args = args[1:]
opt, toolkit, kernels = args[0], args[1], args[2:]
options = ([f'toolkit={toolkit}'] if toolkit != '-' else []) + (['general=deferred'] if deferred else [])
pipeline = 'builtin.module(tile-to-ptx' + ('{' + ' '.join(options) + '}' if options else '') + ')'
work = tempfile.mkdtemp()
sources = []
for i, kernel in enumerate(kernels):
    path, *replacements = kernel.split(':')
    if not path.endswith('.mlir'):
        path = f'examples/{path}.mlir'
    text = open(path).read()
    for replacement in replacements:
        old, new = replacement.split('=')
        text = text.replace(old, new)
    source = os.path.join(work, f'{i}.mlir')
    open(source, 'w').write(text)
    sources.append(source)
totals = {k: [] for k in kernels}
binaries = {k: [] for k in kernels}
for _ in range(10):
    for kernel, source in zip(kernels, sources):
        # Verified once at the end, not after each pass, as tile-run and the
        # library compile (`compile::run_pipeline`).
        out = subprocess.run([opt, source, f'--pass-pipeline={pipeline}', '--mlir-timing', '--verify-each=false',
                              '-o', '/dev/null'],
                             capture_output=True, text=True).stderr
        for line in out.splitlines():
            # Wall time: with MLIR's threads the report has a user-time
            # column first, which sums the threads' work.
            f = line.split()
            if line.strip().startswith('Total Execution Time:'):
                totals[kernel].append(float(f[3]))
            if 'GpuModuleToBinaryPass' in line:
                binaries[kernel].append(float(re.findall(r'([\d.]+) \(\s*[\d.]+%\)', line)[-1]))
for kernel in kernels:
    if not totals[kernel]:
        print(f'{kernel}: did not compile')
        continue
    print(f'{kernel}: total {min(totals[kernel])*1000:.0f} ms, '
          f'gpu-module-to-binary {min(binaries[kernel])*1000:.0f} ms (min of 10)')
