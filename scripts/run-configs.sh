#!/usr/bin/env bash
# Each configuration (one a line of CONFIGS, as `--config` takes it) of an
# example once at M N K on random data, bounded in time: which one hangs
# or fails. Here: as for gpu-tma-rings.sh (carry .carry).
# There:  bash scripts/run-configs.sh EXAMPLE DTYPE M N K CONFIGS [SECONDS]
set -uo pipefail
cd "$(dirname "$0")/.."
example=$1 dtype=$2 m=$3 n=$4 k=$5 configs=$6 seconds=${7:-20}
source scripts/carried-tile-run.sh
work=$(mktemp -d)
python3 - "$dtype" "$m" "$n" "$k" "$work" <<'PY'
import sys, numpy as np
dtype, m, n, k, work = sys.argv[1], *map(int, sys.argv[2:5]), sys.argv[5]
rng = np.random.default_rng(0)
t = {'f16': np.float16, 'bf16': np.float32}[dtype]
def operand(shape):
    x = rng.uniform(-1, 1, shape).astype(np.float32)
    return (x.view(np.uint32) >> 16).astype(np.uint16) if dtype == 'bf16' else x.astype(np.float16)
np.save(f'{work}/a.npy', operand((m, k))); np.save(f'{work}/b.npy', operand((k, n)))
out = {'matmul_bf16_bf16': np.uint16, 'matmul_f16_f16': np.float16}
np.save(f'{work}/c.npy', np.zeros((m, n), np.uint16 if dtype == 'bf16' else np.float16))
PY
while read -r config; do
  [ -n "$config" ] || continue
  TILE_TUNE=0 timeout "$seconds" /tmp/tile-run "examples/$example.mlir" --config "$config" --grid tiles:2 \
    "$work/a.npy" "$work/b.npy" "$work/c.npy" >"$work/log" 2>&1
  status=$?
  echo "[$status] $config: $(tail -1 "$work/log" | cut -c1-140)"
done <"$configs"
