#!/usr/bin/env bash
# `tile-persist-blocks` (lowering/src/persist_blocks.rs): the register
# path's TMA variant of a kernel asked for `persistent = 1` walks the
# program's tile blocks in resident blocks. Checked at ragged shapes, the
# rings and the staging reused from one tile to the next under racecheck,
# then timed beside cuBLAS (scripts/gpu-register-configs.sh; BENCHMARKS.md,
# session 32, run 2).
# Here:   cargo build --release -p tile-bench &&
#         strip target/release/tile-bench -o .carry/tile-bench && xz -6 -T2 -f .carry/tile-bench
# There:  bash scripts/gpu-persist-blocks.sh  (device tool, carry .carry; ~5 min)
set -uo pipefail
cd "$(dirname "$0")/.."
CHECK="tile_m=128,tile_n=128,persistent=1 tile_m=128,tile_n=256,num_stages=3,persistent=1
       tile_m=64,tile_n=64,persistent=1 tile_m=128,tile_n=128,occupancy=2,persistent=1" \
RACE="tile_m=128,tile_n=128,persistent=1 tile_m=128,tile_n=256,num_stages=3,persistent=1" \
TIME="tile_m=128,tile_n=128,persistent=1 tile_m=128,tile_n=256,num_stages=3,persistent=1" \
  exec bash scripts/gpu-register-configs.sh
