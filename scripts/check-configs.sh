#!/usr/bin/env bash
# Configurations of the tile matmul at one shape, each beside cuBLAS in the
# same process (results checked against each other and an f64 sample), each
# bounded in time, so that a hang is a line of the table, not the end of the
# run (issue #18: clustered configurations at ragged shapes).
# Here:   as for bench-gemm.sh (carry .carry with tile-bench.xz)
# There:  bash scripts/check-configs.sh DTYPES SHAPES CONFIG...
# SECONDS_EACH (default 60) bounds each configuration; RUNS (default 5).
set -uo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 3 ]; then echo "usage: bash scripts/check-configs.sh DTYPES SHAPES CONFIG..." >&2; exit 1; fi
source scripts/device-env.sh
dtypes=$1 shapes=$2
shift 2
status=0
for config in "$@"; do
  timeout "${SECONDS_EACH:-60}" /tmp/tile-bench --dtypes "$dtypes" --shapes "$shapes" --config "$config" \
    --runs "${RUNS:-5}" --warmup 1 2>&1 | grep -E "^(f16|bf16) |rror|disagree" | sed "s/^/$config: /"
  code=${PIPESTATUS[0]}
  case $code in
    0) ;;
    124) echo "$config: HUNG (no result in ${SECONDS_EACH:-60} s)"; status=1 ;;
    *) echo "$config: FAILED (exit $code)"; status=1 ;;
  esac
done
exit $status
