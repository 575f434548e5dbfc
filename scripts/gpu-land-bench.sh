#!/usr/bin/env bash
# Speed of a build's GPU-path changes beside what they replace, in one run
# (session 30: the TMA rings on one mbarrier a slot, f8's ldmatrix
# fragments): the ptx-ab harnesses (the compiler's own `_main30`/`_v30`
# kernels beside main's and the hand-edited variants, interleaved), then the
# suite's affected cases.
# Here:   as scripts/gpu-land-checks.sh
# There:  bash scripts/gpu-land-bench.sh  (device tool, carry .carry; ~9 min)
#         (the two harnesses need no carry: ptx-ab's .ptx files are in the tree)
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/carried-tile-run.sh
echo "== ptx-ab: TMA ring orders, 4096^3"
(cd bench/experiments/ptx-ab && timeout 120 python3 ptx_ab.py --rounds 9 --iters 40)
echo "== tf32/f8 ptx-ab, 4096^3"
timeout 150 python3 bench/experiments/tf32-f8/ab/ptx_ab.py --rounds 7 --iters 30
echo "== suite"
timeout 150 python3 scripts/bench-suite.py /tmp/tile-run \
  --only "gemm ab f16 4096x4096x4096|gemm 64x128x32 f16 4096x4096x4096|gemm tf32|gemm f8|attention d128"
echo "== suite: unaligned and persistent"
timeout 120 python3 scripts/bench-suite.py /tmp/tile-run --only "f16 2047x2047x2047|persistent f16 4096"
