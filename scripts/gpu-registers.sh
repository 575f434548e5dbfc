#!/usr/bin/env bash
# The register path (issue #20) on the device machine: every kernel without
# a tile.mma checked against numpy, plainly (large shapes too) and under
# compute-sanitizer memcheck, then the suite's memory-bound cases beside
# torch (ratios and TB/s in one run).
# Here:   cargo build --release -p tile-run &&
#         strip target/release/tile-run -o .carry/tile-run && xz -6 -T4 -f .carry/tile-run
# There:  bash scripts/gpu-registers.sh [--no-check] [--only TEXT]   (device tool, carry .carry)
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/carried-tile-run.sh
only="softmax|layernorm|rmsnorm|add|axpy|column_sum"
check=1
while [ $# -gt 0 ]; do
  case "$1" in
    --no-check) check=0 ;;
    --only) only="$2"; shift ;;
  esac
  shift
done
status=0
if [ $check = 1 ]; then
  python3 scripts/gpu_check.py /tmp/tile-run --no-matmul --large || status=1
  python3 scripts/gpu_check.py /tmp/tile-run --no-matmul --memcheck || status=1
fi
PYTHONUNBUFFERED=1 python3 scripts/bench-suite.py /tmp/tile-run --only "$only" || status=1
exit $status
