#!/usr/bin/env bash
# The general kernel's copies of rows not 8-byte aligned (registers/
# unaligned.rs) on the device machine: gpu_check's odd shapes (A B, X W^T,
# A^T B, batched, 1-byte f8 elements, the 64x128x32 program's wide
# instance), two of them under memcheck, then the suite's 2047^3 GEMMs
# beside cuBLAS.
# Here:   cargo build --release -p tile-run &&
#         strip target/release/tile-run -o .carry/tile-run && xz -6 -T2 -f .carry/tile-run
# There:  bash scripts/gpu-unaligned.sh [SUITE_FILTER]  (device tool, carry .carry; ~5 min)
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/carried-tile-run.sh
echo "== gpu_check: rows not 8-byte aligned"
timeout 150 python3 scripts/gpu_check.py /tmp/tile-run \
  --only "301x203x99|129x65x2047|2047x130x63|77x45x333|odd shapes|small_k.mlir 1999" | grep -v ': ok' | tail -12
echo "== memcheck"
timeout 70 python3 scripts/gpu_check.py /tmp/tile-run --memcheck --only "ab.mlir 2047x130x63|f8_abt.mlir 77x45x333" | tail -4
echo "== suite"
timeout 150 python3 scripts/bench-suite.py /tmp/tile-run --only "${1:-f16 2047x2047x2047}"
