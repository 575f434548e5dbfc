#!/usr/bin/env bash
# Two builds' narrow blocks (tile-widen-blocks' `@k__narrow`) at the decode
# step and other shapes of few tiles: bench/gemm/ab.mlir (one block per
# 128x128 tile) and bench/gemm/persistent.mlir (132 blocks), each as the
# runtime chooses, old and new interleaved ROUNDS times, each beside
# torch's matmul in the same run (scripts/time-programs.sh).
# Here:   tar cf - tile-run-old tile-run-new | xz -T1 --lzma2=preset=6,dict=384MiB > .carry/pair.tar.xz
#         (see scripts/compare-builds.sh)
# There:  [SHAPES="16x4096x4096 ..."] [ROUNDS=2] bash scripts/compare-narrow-builds.sh
#         (device tool, carry .carry/pair.tar.xz)
set -uo pipefail
cd "$(dirname "$0")/.."
tar xJf .carry/pair.tar.xz -C /tmp && chmod +x /tmp/tile-run-old /tmp/tile-run-new
for shape in ${SHAPES:-16x4096x4096 16x11008x4096 64x11008x4096 64x4096x4096 128x4096x4096}; do
  read -r m n k <<<"${shape//x/ }"
  for round in $(seq "${ROUNDS:-2}"); do
    for build in old new; do
      TILE_RUN=/tmp/tile-run-$build bash scripts/time-programs.sh ab "$m" "$n" "$k" bench/gemm/ab.mlir 2>&1 \
        | sed "s/^/$shape r$round $build ab: /"
      TILE_RUN=/tmp/tile-run-$build GRID=132 bash scripts/time-programs.sh ab "$m" "$n" "$k" bench/gemm/persistent.mlir 2>&1 \
        | tail -2 | sed "s/^/$shape r$round $build persistent: /"
    done
  done
done
