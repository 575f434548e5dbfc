#!/usr/bin/env bash
# The decode step (M = 16) of the hand-written persistent program
# (bench/gemm/persistent.mlir) against gemm_ab and cuBLAS: the persistent
# program on grids of 132, 66, 32 and 16 blocks (only 32 of its 128x128
# tiles exist at 16x4096), ab.mlir on one block per tile, then ncu's
# counters of each launch.
# Here:   cargo build --release -p tile-run &&
#         strip target/release/tile-run -o .carry/tile-run && xz -6 -T2 -f .carry/tile-run
# There:  bash scripts/gpu-decode.sh  (device tool, carry .carry; ~2 min)
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/carried-tile-run.sh
export TILE_RUN=/tmp/tile-run
shape=${SHAPE:-16 4096 4096}
for g in 132 66 32 16; do
  echo "== persistent, grid $g"
  GRID=$g bash scripts/time-programs.sh ab $shape bench/gemm/persistent.mlir
done
echo "== ab, one block per tile"
bash scripts/time-programs.sh ab $shape bench/gemm/ab.mlir
[ -n "${NO_NCU:-}" ] && exit 0
for g in 132 32; do
  echo "== ncu: persistent, grid $g"
  GRID=$g PROGRAM=bench/gemm/persistent.mlir VARIANTS=1 bash scripts/profile-kernel.sh ab $shape
done
echo "== ncu: ab"
VARIANTS=1 bash scripts/profile-kernel.sh ab $shape
