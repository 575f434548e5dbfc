#!/usr/bin/env bash
# One hint of tile.hints, value by value, on suite cases, in one device
# session: the cases as the compiler chooses, then with `HINT = V` written
# into the programs FILES (bench/-relative globs) for each V.
# Here:   cargo build --release -p tile-run &&
#         strip target/release/tile-run -o .carry/tile-run && xz -6 -T4 -f .carry/tile-run
# There:  bash scripts/compare-hints.sh CASES FILES HINT V...   (device tool, carry .carry)
#   e.g.  bash scripts/compare-hints.sh 32768 'norms/*.mlir' num_ctas 1 2
#         bash scripts/compare-hints.sh column 'elementwise/column_sum.mlir' num_stages 1 2 3 4
#         SUITE_FLAGS=--racecheck bash scripts/compare-hints.sh ...   (each value under a sanitizer instead)
set -uo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 4 ] || { echo "usage: $0 CASES FILES HINT V..." >&2; exit 1; }
only=$1 files=$2 hint=$3
shift 3
source scripts/carried-tile-run.sh
quiet() { grep -v -i "warn\|online softmax\|split the reduction\|important use case\|^$\|^softmax\.$"; }
status=0
echo "== as chosen"
PYTHONUNBUFFERED=1 python3 scripts/bench-suite.py /tmp/tile-run --only "$only" ${SUITE_FLAGS:-} 2>&1 | quiet || status=1
rm -rf /tmp/bench.orig && cp -r bench /tmp/bench.orig
for value in "$@"; do
  rm -rf bench && cp -r /tmp/bench.orig bench
  (cd bench && sed -i "s/attributes {tile.kernel}/attributes {tile.kernel, tile.hints = {$hint = $value}}/" $files)
  echo "== $hint = $value"
  PYTHONUNBUFFERED=1 python3 scripts/bench-suite.py /tmp/tile-run --only "$only" ${SUITE_FLAGS:-} 2>&1 | quiet || status=1
done
rm -rf bench && cp -r /tmp/bench.orig bench
exit $status
