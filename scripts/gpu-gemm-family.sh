#!/usr/bin/env bash
# The GEMM family on the device machine after a change to the register
# path's mma or TMA code: gpu_check's cases of the GEMM programs (rows
# not 8-byte aligned, the hand-written persistent loop's several walks a
# block, attention), two unaligned ones under memcheck, then the suite's
# GEMM cases beside cuBLAS (SUITE, a bench-suite.py --only filter).
# Here:   cargo build --release -p tile-run &&
#         strip target/release/tile-run -o .carry/tile-run && xz -6 -T2 -f .carry/tile-run
# There:  [CHECK=filter] [SUITE=filter] bash scripts/gpu-gemm-family.sh  (device tool, carry .carry)
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/carried-tile-run.sh
echo "== gpu_check"
timeout 200 python3 scripts/gpu_check.py /tmp/tile-run \
  --only "${CHECK:-301x203x99|129x65x2047|2047x130x63|77x45x333|odd shapes|small_k.mlir 1999|persistent.mlir|ab_producer_persistent|attention}" \
  | grep -v ': ok' | tail -12
echo "== memcheck"
timeout 70 python3 scripts/gpu_check.py /tmp/tile-run --memcheck --only "ab.mlir 2047x130x63|f8_abt.mlir 77x45x333" | tail -4
echo "== suite"
timeout 330 python3 scripts/bench-suite.py /tmp/tile-run --only "${SUITE:-gemm}"
