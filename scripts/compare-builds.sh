#!/usr/bin/env bash
# Two builds of tile-run side by side on the device machine: the suite's
# cases matching FILTER, each build twice, interleaved (old, new, old,
# new), each beside the vendor's in the same run. For a change to the GPU
# path: "nothing that was fast gets slower".
# Here:   (old build) strip target/release/tile-run -o .carry/old/tile-run && xz -6 -f .carry/old/tile-run
#         (new build) strip target/release/tile-run -o .carry/tile-run && xz -6 -f .carry/tile-run
# There:  bash scripts/compare-builds.sh FILTER [ROUNDS]  (device tool, carry .carry)
set -uo pipefail
cd "$(dirname "$0")/.."
filter=${1:?usage: compare-builds.sh FILTER [ROUNDS]}
rounds=${2:-2}
for build in old new; do
  from=.carry/tile-run.xz
  [ "$build" = old ] && from=.carry/old/tile-run.xz
  python3 -c "import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2],'wb'))" "$from" "/tmp/tile-run-$build"
  chmod +x "/tmp/tile-run-$build"
done
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
status=0
for round in $(seq "$rounds"); do
  for build in old new; do
    echo "== $build, round $round"
    PYTHONUNBUFFERED=1 python3 scripts/bench-suite.py "/tmp/tile-run-$build" --only "$filter" 2>&1 \
      | grep -E "^(gemm|attention|norm|softmax|elementwise|bench-suite)" | cut -c1-125 || status=1
  done
done
exit $status
