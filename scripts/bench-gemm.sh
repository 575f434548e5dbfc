#!/usr/bin/env bash
# GEMM beside cuBLAS on the device machine (issue #5; see BENCHMARKS.md):
# unpacks the carried tile-bench, runs it for f16 and bf16 over the issue's
# shapes (tile and cuBLAS in one process, on the same device arrays, the
# results checked against each other), and plots TFLOP/s against size.
# Here:   cargo build -p tile-bench &&
#         strip target/debug/tile-bench -o .carry/tile-bench && xz -6 -T4 -f .carry/tile-bench
# There:  bash scripts/bench-gemm.sh [tile-bench flags]   (device tool, carry .carry)
# Writes gemm.csv and gemm.png to $OUT (or /tmp).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp}
source scripts/device-env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
/tmp/tile-bench --csv "$out/gemm.csv" "$@"
status=$?
python3 - "$out/gemm.csv" "$out/gemm.png" <<'PY' || true
import csv, sys
import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt
rows = list(csv.DictReader(open(sys.argv[1])))
fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
for ax, dtype in zip(axes, ('f16', 'bf16')):
    sel = [r for r in rows if r['dtype'] == dtype]
    labels = [f"{r['m']}x{r['n']}x{r['k']}" for r in sel]
    x = range(len(sel))
    ax.bar([i - 0.2 for i in x], [float(r['tile_tflops']) for r in sel], 0.4, label='tile')
    ax.bar([i + 0.2 for i in x], [float(r['cublas_tflops']) for r in sel], 0.4, label='cuBLAS')
    for i, r in zip(x, sel):
        ax.text(i, max(float(r['tile_tflops']), float(r['cublas_tflops'])) + 10, f"{float(r['ratio']):.2f}x", ha='center', fontsize=8)
    ax.set_xticks(list(x)); ax.set_xticklabels(labels, rotation=30, ha='right', fontsize=8)
    ax.set_title(f'{dtype} in and out'); ax.set_ylabel('TFLOP/s'); ax.legend()
fig.suptitle('tile matmul vs cuBLAS, same process, median, L2 flushed')
fig.tight_layout(); fig.savefig(sys.argv[2], dpi=110)
print('plot:', sys.argv[2])
PY
exit $status
