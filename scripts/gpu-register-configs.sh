#!/usr/bin/env bash
# Configurations of the examples' tuning space on the register path's TMA
# variant, on the device machine: each checked against cuBLAS at ragged
# shapes (tile-bench poisons C and compares), the first RACE configurations
# under racecheck, then each of TIME's timed beside cuBLAS.
# Here:   cargo build --release -p tile-bench &&
#         strip target/release/tile-bench -o .carry/tile-bench && xz -6 -T2 -f .carry/tile-bench
# There:  CHECK="c1 c2 ..." RACE="c1 ..." TIME="c1 ..." [SHAPES=MxNxK,...] [RACE_SHAPE=MxNxK] \
#           bash scripts/gpu-register-configs.sh  (device tool, carry .carry)
set -uo pipefail
cd "$(dirname "$0")/.."
if [ -n "${OUT:-}" ] && [ -d "$OUT" ] && [ -z "${TILE_LOGGING:-}" ]; then
  export TILE_LOGGING=1
  exec > >(tee -a "$OUT/log.txt") 2>&1
fi
source scripts/device-env.sh
echo "== correctness, register path (ragged shapes)"
for config in ${CHECK:-}; do
  echo "-- $config"
  timeout 40 /tmp/tile-bench --dtypes f16,bf16 --shapes 1000x1000x1000,520x264x72,4040x1976x200,136x200x40 --config "$config" \
    --runs 1 --warmup 0 2>&1 | grep -E "^(f16|bf16)" | awk '{print $1, $2, $(NF-1), $NF}'
done
echo "== racecheck"
for config in ${RACE:-}; do
  timeout 60 /usr/local/cuda/bin/compute-sanitizer --tool racecheck /tmp/tile-bench --dtypes f16 --shapes "${RACE_SHAPE:-1040x528x200}" \
    --config "$config" --runs 1 --warmup 0 2>&1 | grep -E "^f16|ERROR SUMMARY|RACECHECK SUMMARY"
done
echo "== timing"
for config in ${TIME:-}; do
  echo "-- $config"
  timeout 60 /tmp/tile-bench --dtypes f16,bf16 --shapes "${SHAPES:-4096x4096x4096,8192x8192x8192}" --config "$config" \
    --runs "${RUNS:-20}" 2>&1 | grep -E "^(f16|bf16)"
done
