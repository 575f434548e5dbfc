#!/usr/bin/env bash
# Some gpu_check cases against numpy, plainly and under compute-sanitizer's
# memcheck, then some suite cases timed beside the vendor's (issue #21).
# Here:   cargo build --release -p tile-run &&
#         strip target/release/tile-run -o .carry/tile-run && xz -6 -T2 -f .carry/tile-run
# There:  bash scripts/gpu-cases.sh CHECK_FILTER SUITE_FILTER [SUITE_FLAGS...]  (device tool, carry .carry)
#         (SUITE_FLAGS go to bench-suite.py: --memcheck checks the suite cases instead of timing them)
#         bash scripts/gpu-cases.sh "f8|matmul_f32" "f8|tf32"      8-bit and tf32 GEMMs
#         bash scripts/gpu-cases.sh "ab.mlir|abt.mlir|f8_abt|301x203x99" "2047|4100"
#                                               rows of odd lengths (registers/unaligned.rs)
set -uo pipefail
if [ $# -lt 2 ]; then echo "usage: bash scripts/gpu-cases.sh CHECK_FILTER SUITE_FILTER [SUITE_FLAGS...]" >&2; exit 1; fi
cd "$(dirname "$0")/.."
source scripts/carried-tile-run.sh
status=0
for mode in "" --memcheck; do
  echo "== gpu_check $1 $mode"
  python3 scripts/gpu_check.py /tmp/tile-run --only "$1" $mode || status=1
done
check=$1 suite=$2
shift 2
echo "== suite $suite $*"
PYTHONUNBUFFERED=1 python3 scripts/bench-suite.py /tmp/tile-run --only "$suite" "$@" 2>&1 | tail -120 || status=1
exit $status
