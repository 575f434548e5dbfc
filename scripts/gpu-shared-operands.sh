#!/usr/bin/env bash
# The register path's mma operands in shared memory (issue #21: cp.async
# rings, wgmma kept in flight) on the device machine: the general GEMM
# kernels and attention against numpy, plainly, under compute-sanitizer's
# memcheck and under its racecheck (a ring slot overwritten while an mma
# may read it would show there), then the suite's GEMM and attention cases
# under memcheck (correctness only).
# Here:   cargo build --release -p tile-run &&
#         strip target/release/tile-run -o .carry/tile-run && xz -6 -T4 -f .carry/tile-run
# There:  bash scripts/gpu-shared-operands.sh   (device tool, carry .carry)
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/carried-tile-run.sh
cases="matmul 300x200x100|matmul 301x203x99|matmul_bf16 300|matmul_bf16 301|matmul_f32|attention"
status=0
for mode in "" --memcheck --racecheck; do
  echo "== gpu_check $mode"
  python3 scripts/gpu_check.py /tmp/tile-run --only "$cases" $mode || status=1
done
echo "== suite under memcheck"
PYTHONUNBUFFERED=1 python3 scripts/bench-suite.py /tmp/tile-run --only "gemm|attention" --memcheck 2>&1 | tail -4 || status=1
exit $status
