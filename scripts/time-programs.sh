#!/usr/bin/env bash
# One-off timings of GEMM programs (bench/gemm or bench/experiments) on the
# device machine, each beside torch's matmul of the same shape in the same
# run: tile-run --bench 20 on random f16 data (DTYPE=f32: f32 data, torch
# in tf32, for bench/gemm/tf32.mlir).
# Here:   cargo build --release -p tile-run &&
#         strip target/release/tile-run -o .carry/tile-run && xz -6 -T4 -f .carry/tile-run
# There:  bash scripts/time-programs.sh ab|abt|atb M N K PROGRAM.mlir[@CONFIG]...  (device tool, carry .carry)
#   e.g.  DTYPE=f32 bash scripts/time-programs.sh ab 4096 4096 4096 bench/gemm/tf32.mlir bench/gemm/tf32.mlir@swap_operands=1
# A program written PROGRAM.mlir@tile_n=256,num_stages=3 is instantiated
# for that configuration (tile-run --config), as the tuner would.
# FLAGS="..." passes more flags to tile-run (such as --skip-variant __narrow).
# GRID=X[,Y] launches every program on that grid instead of one block per
# output tile (tiles:2), as the suite launches the persistent program (132).
# TILE_RUN=PATH times that tile-run instead of the carried one (such as
# /tmp/tile-run-old or /tmp/tile-run-new of compare-builds.sh's pair).
set -uo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 5 ] || { echo "usage: $0 ab|abt|atb M N K PROGRAM.mlir[@CONFIG]..." >&2; exit 1; }
layout=$1 m=$2 n=$3 k=$4
shift 4
case "${DTYPE:-f16}" in f16|f32) ;; *) echo "$0: DTYPE must be f16 or f32, not '$DTYPE'" >&2; exit 1 ;; esac
if [ -n "${TILE_RUN:-}" ]; then
  export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
else
  source scripts/carried-tile-run.sh
fi
tile_run=${TILE_RUN:-/tmp/tile-run}
work=$(mktemp -d)
python3 - "$layout" "$m" "$n" "$k" "$work" "${DTYPE:-f16}" <<'PY'
import sys, numpy as np, torch
layout, m, n, k, work, dtype = sys.argv[1], *map(int, sys.argv[2:5]), sys.argv[5], sys.argv[6]
torch.backends.cuda.matmul.allow_tf32 = True
np_dtype = {'f16': np.float16, 'f32': np.float32}[dtype]
rng = np.random.default_rng(0)
a = rng.uniform(-1, 1, (k, m) if layout == 'atb' else (m, k)).astype(np_dtype)
b = rng.uniform(-1, 1, (n, k) if layout == 'abt' else (k, n)).astype(np_dtype)
np.save(f'{work}/a.npy', a); np.save(f'{work}/b.npy', b); np.save(f'{work}/c.npy', np.zeros((m, n), np_dtype))
ta, tb = torch.tensor(a, device='cuda'), torch.tensor(b, device='cuda')
f = {'ab': lambda: ta @ tb, 'abt': lambda: ta @ tb.T, 'atb': lambda: ta.T @ tb}[layout]
for _ in range(5): f()
start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
times = []
for _ in range(20):
    start.record(); f(); end.record(); torch.cuda.synchronize(); times.append(start.elapsed_time(end))
ms = sorted(times)[10]
print(f'torch {layout} {m}x{n}x{k}: {ms:.4f} ms, {2*m*n*k/ms/1e9:.0f} TFLOP/s')
PY
for case in "$@"; do
  program=${case%%@*} config=()
  [ "$program" != "$case" ] && config=(--config "${case#*@}")
  # shellcheck disable=SC2086 # FLAGS is a list of words
  out=$("$tile_run" "$program" "${config[@]}" ${FLAGS:-} --grid "${GRID:-tiles:2}" --bench 20 "$work/a.npy" "$work/b.npy" "$work/c.npy" 2>&1 | tail -1)
  ms=$(echo "$out" | grep -oE '[0-9.]+ ms' | head -1 | cut -d' ' -f1)
  echo "$case: $out" | cut -c1-160
  [ -n "$ms" ] && python3 -c "print(f'  {2*$m*$n*$k/$ms/1e9:.0f} TFLOP/s')"
done
