#!/usr/bin/env bash
# The register path's TMA variants of the tuned examples' 128x256 and
# 256x128 configurations, whose rings fit only D + 2 slots beside the
# kernel's other shared memory: with the block barrier after
# `wgmma.wait_group 1` their mma stays in flight (registers/groups.rs
# `in_flight_rings`). With the matcher's variant skipped: each checked
# against cuBLAS at ragged shapes (tile-bench poisons C and compares), the
# ring under racecheck; then timed beside the matcher and cuBLAS.
# Here:   cargo build --release -p tile-bench &&
#         strip target/release/tile-bench -o .carry/tile-bench && xz -6 -T2 -f .carry/tile-bench
# There:  bash scripts/gpu-spareless-configs.sh  (device tool, carry .carry; ~5 min)
set -uo pipefail
cd "$(dirname "$0")/.."
if [ -n "${OUT:-}" ] && [ -d "$OUT" ]; then exec > >(tee -a "$OUT/log.txt") 2>&1; fi
source scripts/device-env.sh
configs="tile_m=128,tile_n=256,num_stages=3 tile_m=256,tile_n=128,num_stages=3 tile_m=128,tile_n=256,num_stages=4
         tile_m=128,tile_n=256,num_stages=2 tile_m=128,tile_n=256,num_stages=3,persistent=1 tile_m=128,tile_n=256,num_stages=3,split_k=2"
echo "== correctness, register path (ragged shapes)"
for config in $configs; do
  echo "-- $config"
  timeout 40 /tmp/tile-bench --dtypes f16,bf16 --shapes 1000x1000x1000,520x264x72,4040x1976x200 --config "$config" \
    --runs 1 --warmup 0 --skip-variant __wgmma 2>&1 | grep -E "^(f16|bf16)" | awk '{print $1, $2, $(NF-1), $NF}'
done
echo "== racecheck: the 3-slot rings in flight"
for config in tile_m=128,tile_n=256,num_stages=3 tile_m=256,tile_n=128,num_stages=3; do
  timeout 60 /usr/local/cuda/bin/compute-sanitizer --tool racecheck /tmp/tile-bench --dtypes f16 --shapes 520x264x200 \
    --config "$config" --runs 1 --warmup 0 --skip-variant __wgmma 2>&1 | grep -E "^f16|ERROR SUMMARY|RACECHECK SUMMARY"
done
echo "== timing: register path beside the matcher"
for config in tile_m=128,tile_n=256,num_stages=3 tile_m=256,tile_n=128,num_stages=3 tile_m=128,tile_n=256,num_stages=4; do
  for skip in "" "--skip-variant __wgmma"; do
    echo "-- $config ${skip:-(matcher first)}"
    timeout 60 /tmp/tile-bench --dtypes f16,bf16 --shapes 4096x4096x4096,8192x8192x8192 --config "$config" --runs 20 $skip 2>&1 | grep -E "^(f16|bf16)"
  done
done
