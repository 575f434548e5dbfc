#!/usr/bin/env bash
# The suite's attention cases with the programs as they are, then with the
# flash programs rewritten for other tile sizes (bench/experiments/flash_tiles.py).
# Here:   cargo build --release -p tile-run &&
#         strip target/release/tile-run -o .carry/tile-run && xz -6 -T2 -f .carry/tile-run
# There:  bash scripts/attention-tiles.sh CASES BMxBN...   (device tool, carry .carry)
#   e.g.  bash scripts/attention-tiles.sh "d64 4x32x4096|d128 4x16x4096" 128x64 128x128
set -uo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: $0 CASES [BMxBN...]" >&2; exit 1; }
only=$1
shift
source scripts/carried-tile-run.sh
status=0
echo "== bench/attention"
PYTHONUNBUFFERED=1 python3 scripts/bench-suite.py /tmp/tile-run --only "$only" 2>&1 | grep -E "^attention|FAILED" || status=1
for tiles in "$@"; do
  dir=/tmp/flash-$tiles
  python3 bench/experiments/flash_tiles.py "$dir" "${tiles%x*}" "${tiles#*x}"
  echo "== $tiles"
  ATTENTION_PROGRAMS=$dir PYTHONUNBUFFERED=1 python3 scripts/bench-suite.py /tmp/tile-run --only "$only" 2>&1 | grep -E "^attention|FAILED" || status=1
done
exit $status
