#!/usr/bin/env bash
# What a split-K tail would save (BENCHMARKS.md, session 44): a launch of
# wide blocks (128x256 tiles) whose last wave is partly full, timed whole,
# beside that last wave alone as the same blocks and as blocks split along
# K in clusters of two (split_k = 2), each beside torch's matmul.
# Here:   cargo build --release -p tile-run &&
#         strip target/release/tile-run -o .carry/tile-run && xz -6 -T2 -f .carry/tile-run
# There:  bash scripts/gpu-tail.sh  (device tool, carry .carry; ~2 min)
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/carried-tile-run.sh
export TILE_RUN=/tmp/tile-run
p=bench/gemm/ab.mlir
echo "== whole: 4000x11008x4096 (1376 wide tiles, 10.42 waves of 132)"
bash scripts/time-programs.sh ab 4000 11008 4096 "$p" "$p@tile_n=256"
# 56 wide tiles (7 rows of 8): the 4000x11008 launch's last wave.
echo "== last wave: 896x2048x4096 (56 wide tiles)"
bash scripts/time-programs.sh ab 896 2048 4096 "$p@tile_n=256" "$p@tile_n=256,split_k=2" "$p@split_k=2" "$p"
echo "== ten waves: 3840x11008x4096 (1290 wide tiles)"
bash scripts/time-programs.sh ab 3840 11008 4096 "$p@tile_n=256" | tail -2
