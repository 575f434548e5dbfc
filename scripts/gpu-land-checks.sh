#!/usr/bin/env bash
# Correctness of a build before its GPU-path changes land (session 30: the
# TMA rings on one mbarrier a slot, f8's ldmatrix fragments, the persistent
# general kernel's stores after the wgmmas), in two device calls of under
# ten minutes: `all` runs every gpu_check.py case; `sanitizers` the
# racecheck, memcheck and synccheck cases those changes touch, with
# `--only FILTER` for gpu_check cases the first call did not reach;
# `only FILTER` just those; `register-path [FILTER]` the TMA GEMMs, and
# racecheck on their rings.
# Here:   cargo build --release -p tile-run &&
#         strip target/release/tile-run -o .carry/tile-run && xz -6 -T2 -f .carry/tile-run
# There:  bash scripts/gpu-land-checks.sh all|only FILTER|register-path [FILTER]|sanitizers [FILTER]  (device tool, carry .carry)
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/carried-tile-run.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
case "${1:-all}" in
all)
  echo "== gpu_check (all cases)"
  timeout 550 python3 scripts/gpu_check.py /tmp/tile-run > /tmp/gpu_check.txt 2>&1
  echo "rc $?: $(grep -c ': ok' /tmp/gpu_check.txt) cases ok; last: $(grep ': ok' /tmp/gpu_check.txt | tail -1)"
  grep -v ': ok' /tmp/gpu_check.txt | tail -40
  ;;
only)
  # the gpu_check cases `all` did not reach in its bound
  echo "== gpu_check --only '$2'"
  timeout "${BOUND:-200}" python3 scripts/gpu_check.py /tmp/tile-run --only "$2" > /tmp/gpu_check.txt 2>&1
  echo "rc $?: $(grep -c ': ok' /tmp/gpu_check.txt) cases ok; last: $(grep ': ok' /tmp/gpu_check.txt | tail -1)"
  grep -v ': ok' /tmp/gpu_check.txt | tail -30
  ;;
register-path)
  echo "== gpu_check, register path: ${2:-the TMA GEMMs}"
  timeout "${BOUND:-200}" python3 scripts/gpu_check.py /tmp/tile-run \
    --only "${2:-ab_default|ab_persistent|small_k|f8_abt.mlir 1024|tma stores|wide blocks|matmul 1000|matmul_bf16 1000}" > /tmp/gpu_check.txt 2>&1
  echo "rc $?: $(grep -c ': ok' /tmp/gpu_check.txt) cases ok; last: $(grep ': ok' /tmp/gpu_check.txt | tail -1)"
  grep -v ': ok' /tmp/gpu_check.txt | tail -30
  echo "== racecheck, register path: a TMA ring of 128x128x64 tiles (not widened again), a TMA GEMM at 520x264x200"
  TILE_RUN_FLAGS="--skip-variant __wide__wide" timeout 90 python3 scripts/gpu_check.py /tmp/tile-run \
    --racecheck --only "small_k.mlir 1024x1024x96|ab_default.mlir 1024x1024x256" | tail -6
  timeout 60 python3 scripts/gpu_check.py /tmp/tile-run --racecheck --only "small_k.mlir 520x264x200" | tail -4
  ;;
sanitizers)
  if [ -n "${2:-}" ]; then
    echo "== gpu_check --only '$2'"
    timeout 200 python3 scripts/gpu_check.py /tmp/tile-run --only "$2" > /tmp/gpu_check.txt 2>&1
    echo "rc $?: $(grep -c ': ok' /tmp/gpu_check.txt) cases ok"
    grep -v ': ok' /tmp/gpu_check.txt | tail -30
  fi
  echo "== racecheck: a TMA GEMM (no barrier before iteration 0's wgmmas), f8"
  timeout 80 python3 scripts/gpu_check.py /tmp/tile-run --racecheck --only "520x264x200|matmul_f8 300" | tail -8
  echo "== memcheck: f8, persistent, odd shapes"
  timeout 100 python3 scripts/gpu_check.py /tmp/tile-run --memcheck --only "matmul_f8 300|matmul_f8 301|f8_abt.mlir 301|persistent.mlir|matmul 301x203x99" | tail -8
  echo "== synccheck: the TMA rings"
  timeout 100 python3 scripts/bench-suite.py /tmp/tile-run --synccheck --only "gemm ab f16|gemm 64x128x32 f16|attention d128" | tail -12
  ;;
esac
