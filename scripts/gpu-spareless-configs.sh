#!/usr/bin/env bash
# The register path's TMA variants of the tuned examples' 128x256 and
# 256x128 configurations, whose rings fit only D + 2 slots beside the
# kernel's other shared memory: with the block barrier after
# `wgmma.wait_group 1` their mma stays in flight (registers/groups.rs
# `in_flight_rings`). Each checked against cuBLAS at ragged shapes
# (tile-bench poisons C and compares), the ring under racecheck; then timed
# beside cuBLAS (scripts/gpu-register-configs.sh; BENCHMARKS.md, session 31,
# run 5).
# Here:   cargo build --release -p tile-bench &&
#         strip target/release/tile-bench -o .carry/tile-bench && xz -6 -T2 -f .carry/tile-bench
# There:  bash scripts/gpu-spareless-configs.sh  (device tool, carry .carry; ~5 min)
set -uo pipefail
cd "$(dirname "$0")/.."
CHECK="tile_m=128,tile_n=256,num_stages=3 tile_m=256,tile_n=128,num_stages=3 tile_m=128,tile_n=256,num_stages=4
       tile_m=128,tile_n=256,num_stages=2 tile_m=128,tile_n=256,num_stages=3,persistent=1 tile_m=128,tile_n=256,num_stages=3,split_k=2" \
RACE="tile_m=128,tile_n=256,num_stages=3 tile_m=256,tile_n=128,num_stages=3" \
TIME="tile_m=128,tile_n=256,num_stages=3 tile_m=256,tile_n=128,num_stages=3 tile_m=128,tile_n=256,num_stages=4" \
  exec bash scripts/gpu-register-configs.sh
