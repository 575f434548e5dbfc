#!/usr/bin/env bash
# The last wave of wide blocks run as the program's own blocks
# (tile-split-last-wave, docs/tail-wave.md): the GPU check's cases of it
# and of wide blocks, then the suite's A B and A B^T programs at
# 4000x11008x4096 (1376 wide tiles, 10.42 waves of 132) split and
# whole (TILE_NO_WAVE_SPLIT=1), in alternation, ROUNDS times (3), each
# beside torch's matmul.
# Here:   cargo build --release -p tile-run &&
#         strip target/release/tile-run -o .carry/tile-run && xz -6 -T2 -f .carry/tile-run
# There:  bash scripts/gpu-last-wave.sh  (device tool, carry .carry/tile-run.xz)
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/carried-tile-run.sh
status=0
python3 scripts/gpu_check.py /tmp/tile-run --only 'last wave|wide blocks' || status=1
for round in $(seq "${ROUNDS:-3}"); do
  for layout_program in ab:ab abt:abt; do
    layout=${layout_program%%:*} program=bench/gemm/${layout_program#*:}.mlir
    echo "== round $round, $program split"
    bash scripts/time-programs.sh "$layout" 4000 11008 4096 "$program" || status=1
    echo "== round $round, $program whole"
    TILE_NO_WAVE_SPLIT=1 bash scripts/time-programs.sh "$layout" 4000 11008 4096 "$program" || status=1
  done
done
exit $status
