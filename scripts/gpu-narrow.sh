#!/usr/bin/env bash
# Narrow blocks (tile-widen-blocks' `@k__narrow`, 64x64 tiles) against the
# program's own blocks and torch's matmul, in the same run: bench/gemm/ab.mlir
# on one block per 128x128 tile and bench/gemm/persistent.mlir on 132
# blocks, each as the runtime chooses (the narrow variant where the
# program's blocks leave SMs idle and the narrow ones take at most two
# waves) and
# with the narrow variant skipped, at the decode step and at shapes of
# few tiles with long K loops (BENCHMARKS.md, session 43).
# Here:   cargo build --release -p tile-run &&
#         strip target/release/tile-run -o .carry/tile-run && xz -6 -T2 -f .carry/tile-run
# There:  bash scripts/gpu-narrow.sh  (device tool, carry .carry; ~2 min)
#         SHAPES="16x4096x4096 ..." bash scripts/gpu-narrow.sh
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/carried-tile-run.sh
export TILE_RUN=/tmp/tile-run
for shape in ${SHAPES:-16x4096x4096 64x4096x4096 128x4096x4096 512x1024x4096 256x2048x2048 16x11008x4096 256x4096x4096}; do
  read -r m n k <<<"${shape//x/ }"
  echo "== $shape"
  bash scripts/time-programs.sh ab "$m" "$n" "$k" bench/gemm/ab.mlir
  FLAGS="--skip-variant __narrow" bash scripts/time-programs.sh ab "$m" "$n" "$k" bench/gemm/ab.mlir | tail -2
  GRID=132 bash scripts/time-programs.sh ab "$m" "$n" "$k" bench/gemm/persistent.mlir | tail -2
  GRID=132 FLAGS="--skip-variant __narrow" bash scripts/time-programs.sh ab "$m" "$n" "$k" bench/gemm/persistent.mlir | tail -2
done
