#!/usr/bin/env bash
# Tile blocks as clusters (tile.cluster) on the device machine: the suite's
# rows of 32768 as the compiler chooses, then with each `num_ctas` hint
# (1: one block a row) written into the norm programs, in one session.
# Here:   cargo build --release -p tile-run &&
#         strip target/release/tile-run -o .carry/tile-run && xz -6 -T4 -f .carry/tile-run
# There:  bash scripts/compare-clusters.sh [N ...]   (device tool, carry .carry; default N: 1 2)
set -uo pipefail
cd "$(dirname "$0")/.."
python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('.carry/tile-run.xz'), open('/tmp/tile-run','wb'))"
chmod +x /tmp/tile-run
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
only="${ONLY:-32768}"
status=0
echo "== as chosen"
PYTHONUNBUFFERED=1 python3 scripts/bench-suite.py /tmp/tile-run --only "$only" 2>&1 | grep -v -i "warn\|online softmax\|split the reduction\|important use case\|^$" || status=1
cp -r bench /tmp/bench.orig
for n in "${@:-1 2}"; do
  for n1 in $n; do
    rm -rf bench && cp -r /tmp/bench.orig bench
    sed -i "s/attributes {tile.kernel}/attributes {tile.kernel, tile.hints = {num_ctas = $n1}}/" bench/norms/*.mlir
    echo "== num_ctas = $n1"
    PYTHONUNBUFFERED=1 python3 scripts/bench-suite.py /tmp/tile-run --only "$only" 2>&1 | grep -v -i "warn\|online softmax\|split the reduction\|important use case\|^$" || status=1
  done
done
rm -rf bench && cp -r /tmp/bench.orig bench
exit $status
