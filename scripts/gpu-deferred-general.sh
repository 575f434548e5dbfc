#!/usr/bin/env bash
# The general kernel deferred (tile-run compiles a kernel's variants alone,
# then the kernel whole where no variant takes the arguments), and in
# session 38 the TMA variants' compact fallback store (a null store
# descriptor: the threads copy the staged tile out in a rolled loop; measured
# and reverted, BENCHMARKS.md session 38), on the device:
#   1. gpu_check (plain) of the TMA stores (with the output rows unaligned),
#      the wide variants, and unaligned shapes that no variant takes (the
#      retry), with the new build;
#   2. the suite's GEMMs whose variants' code changed, old and new builds
#      interleaved (compare-builds.sh, one round);
#   PASSES=memcheck: instead, memcheck of the null store descriptor's store
#   and of occupancy = 2 at 128x128; PASSES=tuning: the tuner on deferred
#   bundles (aligned and unaligned arguments) and the examples'
#   configurations.
# Here:   strip both builds to /tmp/pair/tile-run-{old,new}, then
#         (cd /tmp/pair && tar cf - tile-run-old tile-run-new | xz -T1 --lzma2=preset=6,dict=384MiB > $PWD/.carry/pair.tar.xz)
# There:  [PASSES=plain|memcheck|tuning] bash scripts/gpu-deferred-general.sh  (device tool, carry .carry/pair.tar.xz)
set -uo pipefail
cd "$(dirname "$0")/.."
if [ -f .carry/pair.tar.xz ]; then
  tar xJf .carry/pair.tar.xz -C /tmp && chmod +x /tmp/tile-run-old /tmp/tile-run-new
else  # the new build alone (PASSES=memcheck|tuning): .carry/tile-run.xz
  xz -dc .carry/tile-run.xz > /tmp/tile-run-new && chmod +x /tmp/tile-run-new
fi
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
case "${PASSES:-plain}" in
  plain)
    status=0
    echo "== gpu_check, new build"
    python3 scripts/gpu_check.py /tmp/tile-run-new \
      --only "tma stores|wide blocks|301x203x99|129x65x2047|odd shapes" || status=1
    echo "== suite, old and new"
    bash scripts/compare-builds.sh "${SUITE_FILTER:-f16 4096x4096x4096|f16 16x4096x4096|gemm f8|tf32}" 1 || status=1
    exit $status ;;
  memcheck)
    echo "== memcheck, new build: the null store descriptor, occupancy = 2"
    CASE_SECONDS=200 python3 scripts/gpu_check.py /tmp/tile-run-new --memcheck --only "output rows unaligned|occupancy=2" ;;
  tuning)
    # The tuner on deferred bundles: aligned arguments (the variants
    # alone), unaligned ones (every configuration compiled whole), and the
    # configurations of the examples' space at an aligned shape.
    echo "== tuning and configurations, new build"
    python3 scripts/gpu_check.py /tmp/tile-run-new --only "matmul_bf16_bf16 301x203x99|520x264x72" ;;
  *) echo "PASSES=$PASSES: expected plain, memcheck or tuning" >&2; exit 1 ;;
esac
