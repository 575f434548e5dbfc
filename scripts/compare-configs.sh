#!/usr/bin/env bash
# Configurations of the tile matmul side by side, each beside cuBLAS in the
# same process (issue #5): which knob helps, on the device machine.
# Here:   as for bench-gemm.sh (carry .carry with tile-bench.xz)
# There:  bash scripts/compare-configs.sh DTYPES SHAPES CONFIG...
#         e.g. bash scripts/compare-configs.sh bf16 4096x4096x4096 \
#              tile_m=128,tile_n=256,num_stages=4 tile_m=128,tile_n=256,num_stages=3,persistent=1
# RUNS (default 30) timed launches of each.
set -uo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 3 ]; then echo "usage: bash scripts/compare-configs.sh DTYPES SHAPES CONFIG..." >&2; exit 1; fi
source scripts/device-env.sh
dtypes=$1 shapes=$2
shift 2
status=0
for config in "$@"; do
  echo "== $config"
  /tmp/tile-bench --dtypes "$dtypes" --shapes "$shapes" --config "$config" --runs "${RUNS:-30}" || status=1
done
exit $status
