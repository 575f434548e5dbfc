#!/usr/bin/env bash
# Where a single launch's time goes, for two builds of tile-run: the
# suite's way (tile-run --bench: each launch between two events, then a
# synchronize, so the host's launch latency is inside) against the kernel's
# own duration (ncu gpu__time_duration, caches flushed and not). For a
# variant that is slower in the suite than back to back (session 34: the
# persistent program's producer warp at M = 16).
# Here:   the pair of builds as scripts/compare-builds.sh makes it (.carry/pair.tar.xz)
# There:  bash scripts/gpu-launch-anatomy.sh PROGRAM KERNEL GRID M N K [DTYPE]  (carry .carry/pair.tar.xz)
#   e.g.  bash scripts/gpu-launch-anatomy.sh bench/gemm/persistent.mlir gemm_persistent 132 16 4096 4096
set -uo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 6 ] || { echo "usage: $0 PROGRAM KERNEL GRID M N K [f16|bf16]" >&2; exit 1; }
program=$1 kernel=$2 grid=$3 m=$4 n=$5 k=$6 dtype=${7:-f16}
tar xJf .carry/pair.tar.xz -C /tmp && chmod +x /tmp/tile-run-old /tmp/tile-run-new
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
work=$(mktemp -d)
sed "s/DTYPE/$dtype/g" "$program" > "$work/k.mlir"
python3 - "$m" "$n" "$k" "$work" <<'PY'
import sys, numpy as np
m, n, k, work = *map(int, sys.argv[1:4]), sys.argv[4]
rng = np.random.default_rng(0)
np.save(f'{work}/a.npy', rng.uniform(-1, 1, (m, k)).astype(np.float16))
np.save(f'{work}/b.npy', rng.uniform(-1, 1, (k, n)).astype(np.float16))
np.save(f'{work}/c.npy', np.full((m, n), np.nan, np.float16))
PY
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
run() { "$1" "$work/k.mlir" --target cuda --kernel "$kernel" --grid "$grid" "${@:2}" "$work/a.npy" "$work/b.npy" "$work/c.npy"; }
for round in 1 2; do
  for build in old new; do
    echo "== $build, round $round: tile-run --bench 50 (events around each launch)"
    run /tmp/tile-run-$build --bench 50 2>&1 | tail -1
  done
done
for build in old new; do
  for cache in all none; do
    echo "== $build: ncu gpu__time_duration, launches 5-9, --cache-control $cache"
    "$ncu" --clock-control none --cache-control $cache --metrics gpu__time_duration.sum,sm__cycles_elapsed.max \
      --launch-skip 5 --launch-count 5 /tmp/tile-run-$build "$work/k.mlir" --target cuda --kernel "$kernel" \
      --grid "$grid" --bench 10 "$work/a.npy" "$work/b.npy" "$work/c.npy" 2>&1 | grep -E "gpu__time_duration|sm__cycles" | tr -s ' '
  done
done
