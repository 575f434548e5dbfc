#!/usr/bin/env bash
# How long tile-run takes to tune a kernel with a large tuning space (the
# 16-bit examples: 288 configurations), checked against numpy by
# gpu_check.py, with the driver's JIT cache off (CUDA_CACHE_DISABLE=1) so
# that every module is JIT-compiled as on a first run.
# Here:   cargo build --release -p tile-run &&
#         strip target/release/tile-run -o .carry/tile-run && xz -6 -T2 -f .carry/tile-run
# There:  bash scripts/gpu-tune-time.sh [FILTER]   (device tool, carry .carry)
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/carried-tile-run.sh
export CUDA_CACHE_DISABLE=1
filter=${1:-matmul_f16_f16 300x200x100|matmul_bf16_bf16 300x200x100}
IFS='|' read -ra cases <<<"$filter"
status=0
for case in "${cases[@]}"; do
  SECONDS=0
  python3 scripts/gpu_check.py /tmp/tile-run --only "$case" || status=1
  echo "$case: tuned and checked in $SECONDS s"
done
exit $status
