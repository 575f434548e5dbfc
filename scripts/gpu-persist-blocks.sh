#!/usr/bin/env bash
# `tile-persist-blocks` (lowering/src/persist_blocks.rs): the register
# path's TMA variant of a kernel asked for `persistent = 1` walks the
# program's tile blocks in resident blocks. With the matcher's variant
# skipped: each configuration checked against cuBLAS at ragged shapes
# (tile-bench poisons C and compares), one under racecheck (the rings and
# the staging reused from one tile to the next); then timed beside the
# matcher's persistent variant and cuBLAS.
# Here:   cargo build --release -p tile-bench &&
#         strip target/release/tile-bench -o .carry/tile-bench && xz -6 -T2 -f .carry/tile-bench
# There:  bash scripts/gpu-persist-blocks.sh  (device tool, carry .carry; ~5 min)
set -uo pipefail
cd "$(dirname "$0")/.."
if [ -n "${OUT:-}" ] && [ -d "$OUT" ]; then exec > >(tee -a "$OUT/log.txt") 2>&1; fi
source scripts/device-env.sh
configs="tile_m=128,tile_n=128,persistent=1 tile_m=128,tile_n=256,num_stages=3,persistent=1
         tile_m=64,tile_n=64,persistent=1 tile_m=128,tile_n=128,occupancy=2,persistent=1"
echo "== correctness, register path (ragged shapes)"
for config in $configs; do
  echo "-- $config"
  timeout 40 /tmp/tile-bench --dtypes f16,bf16 --shapes 1000x1000x1000,520x264x72,4040x1976x200 --config "$config" \
    --runs 1 --warmup 0 --skip-variant __wgmma 2>&1 | grep -E "^(f16|bf16)" | awk '{print $1, $2, $(NF-1), $NF}'
done
echo "== racecheck: a block's second tile reuses the rings and the staging"
for config in tile_m=128,tile_n=128,persistent=1 tile_m=128,tile_n=256,num_stages=3,persistent=1; do
  timeout 60 /usr/local/cuda/bin/compute-sanitizer --tool racecheck /tmp/tile-bench --dtypes f16 --shapes 1040x528x200 \
    --config "$config" --runs 1 --warmup 0 --skip-variant __wgmma 2>&1 | grep -E "^f16|ERROR SUMMARY|RACECHECK SUMMARY"
done
echo "== timing: register path beside the matcher"
for config in tile_m=128,tile_n=128,persistent=1 tile_m=128,tile_n=256,num_stages=3,persistent=1; do
  for skip in "" "--skip-variant __wgmma"; do
    echo "-- $config ${skip:-(matcher first)}"
    timeout 60 /tmp/tile-bench --dtypes f16,bf16 --shapes 4096x4096x4096,8192x8192x8192 --config "$config" --runs 20 $skip 2>&1 | grep -E "^(f16|bf16)"
  done
done
