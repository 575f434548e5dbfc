#!/usr/bin/env bash
# The 64x128x32 program (bench/gemm/small_k.mlir) on the device machine
# (session 30): its cases in gpu_check.py (the wide 128x128x64 instance's
# own threads'-copies variant on rows the TMA cannot take, plainly and one
# under memcheck), the suite's unaligned and K = 4100 cases beside cuBLAS,
# then the ptx-ab harness's 64x128x32 ring variants (NOTES-session30.md).
# Here:   cargo build --release -p tile-run &&
#         strip target/release/tile-run -o .carry/tile-run && xz -6 -T2 -f .carry/tile-run
# There:  bash scripts/gpu-small-k.sh  (device tool, carry .carry; ~6 min)
#         SUITE=FILTER: other suite cases; MEMCHECK=FILTER: other gpu_check
#         cases under memcheck; NO_PTX_AB=1: no ptx-ab
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/carried-tile-run.sh
echo "== gpu_check small_k"
timeout 150 python3 scripts/gpu_check.py /tmp/tile-run --only "small_k" | tail -12
echo "== memcheck: the wide instance's shifted copies"
timeout 60 python3 scripts/gpu_check.py /tmp/tile-run --memcheck --only "${MEMCHECK:-small_k.mlir 1999}" | tail -3
echo "== suite: 64x128x32 at 2047^3 and K = 4100"
timeout 200 python3 scripts/bench-suite.py /tmp/tile-run --only "${SUITE:-gemm 64x128x32 f16 2047|gemm 64x128x32 bf16 2047|gemm 64x128x32 f16 4096x4096x4100|gemm 64x128x32 bf16 4096x4096x4100|gemm ab f16 2047}"
if [ -z "${NO_PTX_AB:-}" ]; then
  echo "== ptx-ab: 64x128x32 ring variants, 4096^3"
  (cd bench/experiments/ptx-ab && timeout 100 python3 ptx_ab.py --rounds 9 --iters 40 --only 64x128x32)
fi
