#!/usr/bin/env bash
# One build of tile-run, the suite's cases matching FILTER timed with and
# without extra LLVM options (TILE_LLVM_OPTIONS, which tile_dialect's
# registry sets after its own), interleaved (with, without, with,
# without), each beside the vendor's in the same run.
# Here:   strip target/release/tile-run -o .carry/tile-run && xz -6 -T2 -f .carry/tile-run
# There:  bash scripts/compare-llvm-options.sh FILTER "OPTIONS" [ROUNDS]  (device tool, carry .carry)
set -uo pipefail
cd "$(dirname "$0")/.."
filter=${1:?usage: compare-llvm-options.sh FILTER OPTIONS [ROUNDS]}
options=${2:?usage: compare-llvm-options.sh FILTER OPTIONS [ROUNDS]}
rounds=${3:-2}
source scripts/carried-tile-run.sh
status=0
for round in $(seq "$rounds"); do
  for with in "$options" ""; do
    echo "== TILE_LLVM_OPTIONS='$with', round $round"
    TILE_LLVM_OPTIONS="$with" PYTHONUNBUFFERED=1 python3 scripts/bench-suite.py /tmp/tile-run --only "$filter" 2>&1 \
      | grep -E "^(gemm|attention|norm|softmax|layernorm|rmsnorm|elementwise|bench-suite)" | cut -c1-125 || status=1
  done
done
exit $status
