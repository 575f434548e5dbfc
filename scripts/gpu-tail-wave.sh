#!/usr/bin/env bash
# What a last wave of half tiles would save (docs/tail-wave.md, "Measure
# first"), before building it: the suite's `ab` program at 4000x11008x4096
# (1376 wide tiles, 10.42 waves of 132) and at 3840x11264x4096 (1320, ten
# waves exactly), then that launch's last wave alone (896x2048x4096: 56
# wide 128x256 tiles) as wide blocks and as the program's own 128x128
# blocks (112 of them, `--skip-variant __wide`), each beside torch's
# matmul. If the 112 half tiles take about half the 56 wide ones' time,
# the plan's estimate (+4% at 4000x11008) holds.
# Here:   cargo build --release -p tile-run &&
#         strip target/release/tile-run -o .carry/tile-run && xz -6 -T2 -f .carry/tile-run
# There:  bash scripts/gpu-tail-wave.sh  (device tool, carry .carry/tile-run.xz; about 2 min)
set -uo pipefail
cd "$(dirname "$0")/.."
p=bench/gemm/ab.mlir
status=0
echo "== 4000x11008x4096 (10.42 waves of wide tiles), then 3840x11264x4096 (10 waves)"
bash scripts/time-programs.sh ab 4000 11008 4096 "$p" || status=1
bash scripts/time-programs.sh ab 3840 11264 4096 "$p" || status=1
echo "== the last wave alone: 56 wide tiles, then the same as 112 tiles of 128x128"
bash scripts/time-programs.sh ab 896 2048 4096 "$p" || status=1
FLAGS="--skip-variant __wide --skip-variant __narrow" bash scripts/time-programs.sh ab 896 2048 4096 "$p" || status=1
echo "== the program's 128x128 blocks at the whole shape"
FLAGS="--skip-variant __wide --skip-variant __narrow" bash scripts/time-programs.sh ab 4000 11008 4096 "$p" || status=1
exit $status
