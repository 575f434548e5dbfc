#!/usr/bin/env bash
# Suite cases with a suite program replaced by other text, in one device
# session: the cases as they are, then with bench/FILE replaced by each
# REPLACEMENT in turn (a way to measure a transformation written by hand
# before the compiler makes it).
# Here:   cargo build --release -p tile-run &&
#         strip target/release/tile-run -o .carry/tile-run && xz -6 -T4 -f .carry/tile-run
# There:  bash scripts/compare-programs.sh CASES FILE REPLACEMENT...   (device tool, carry .carry)
#   e.g.  bash scripts/compare-programs.sh "layernorm f32 2048x32768" norms/layernorm_f32.mlir bench/experiments/ln_stream8192.mlir
set -uo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 3 ] || { echo "usage: $0 CASES FILE REPLACEMENT..." >&2; exit 1; }
only=$1 file=$2
shift 2
source scripts/carried-tile-run.sh
quiet() { grep -v -i "warn\|online softmax\|split the reduction\|important use case\|^$\|^softmax\.$"; }
status=0
echo "== bench/$file"
PYTHONUNBUFFERED=1 python3 scripts/bench-suite.py /tmp/tile-run --only "$only" 2>&1 | quiet || status=1
cp "bench/$file" /tmp/original.mlir
for replacement in "$@"; do
  cp "$replacement" "bench/$file"
  echo "== $replacement"
  PYTHONUNBUFFERED=1 python3 scripts/bench-suite.py /tmp/tile-run --only "$only" 2>&1 | quiet || status=1
done
cp /tmp/original.mlir "bench/$file"
exit $status
