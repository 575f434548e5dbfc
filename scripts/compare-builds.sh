#!/usr/bin/env bash
# Two builds of tile-run side by side on the device machine: the suite's
# cases matching FILTER, each build twice, interleaved (old, new, old,
# new), each beside the vendor's in the same run. For a change to the GPU
# path: "nothing that was fast gets slower".
# Here:   (old build) strip target/release/tile-run -o .carry/old/tile-run && xz -6 -f .carry/old/tile-run
#         (new build) strip target/release/tile-run -o .carry/tile-run && xz -6 -f .carry/tile-run
#   or, both in one carry (two 180 MB binaries xz to 33 MB each, over the
#   64 MiB limit together; with a dictionary that spans both, the second
#   costs almost nothing; a few minutes on one core):
#         tar cf - tile-run-old tile-run-new | xz -T1 --lzma2=preset=6,dict=384MiB > .carry/pair.tar.xz
# There:  bash scripts/compare-builds.sh FILTER [ROUNDS]  (device tool, carry .carry or .carry/pair.tar.xz)
set -uo pipefail
cd "$(dirname "$0")/.."
filter=${1:?usage: compare-builds.sh FILTER [ROUNDS]}
rounds=${2:-2}
# OLD_ENV="VAR=1 ...": one carried build (.carry/pair.tar.xz holding only
# tile-run-new, or .carry/tile-run.xz) is both: "old" is it under those
# environment switches (an experiment's scratch build).
unxz_to() { python3 -c "import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2],'wb'))" "$1" "$2"; }
if [ -n "${OLD_ENV:-}" ]; then
  if [ -f .carry/pair.tar.xz ]; then tar xJf .carry/pair.tar.xz -C /tmp tile-run-new
  else unxz_to .carry/tile-run.xz /tmp/tile-run-new; fi
  chmod +x /tmp/tile-run-new
  printf '#!/bin/sh\nexec env %s /tmp/tile-run-new "$@"\n' "$OLD_ENV" > /tmp/tile-run-old && chmod +x /tmp/tile-run-old
elif [ -f .carry/pair.tar.xz ]; then
  tar xJf .carry/pair.tar.xz -C /tmp && chmod +x /tmp/tile-run-old /tmp/tile-run-new
else for build in old new; do
  from=.carry/tile-run.xz
  [ "$build" = old ] && from=.carry/old/tile-run.xz
  unxz_to "$from" "/tmp/tile-run-$build"
  chmod +x "/tmp/tile-run-$build"
done; fi
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
