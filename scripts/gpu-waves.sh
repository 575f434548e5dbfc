#!/usr/bin/env bash
# What the last partial wave costs (docs/stream-k.md, "First measurement"):
# the examples' GEMM in the configuration the tuner picks at 4096^3
# (128x256 tiles, persistent, a producer warpgroup), beside cuBLAS, at
# shapes of a partial last wave and at the nearest shapes of whole waves
# (132 SMs): 4096^3 is 512 tiles (3.88 waves), 4224x4096x4096 528 (4);
# 4000x11008x4096 is 1376 (10.42), 4224x11264x4096 1452 (11). Where the
# whole-wave shape runs at a higher rate by about the idle fraction, the
# tail is what stream-K would win. Rounds interleaved (compare-envs.sh).
# Here:   cargo build --release -p tile-bench &&
#         strip target/release/tile-bench -o .carry/tile-bench && xz -6 -T2 -f .carry/tile-bench
# There:  [ROUNDS=3] bash scripts/gpu-waves.sh   (device tool, carry .carry/tile-bench.xz)
set -uo pipefail
cd "$(dirname "$0")/.."
pick=num_stages=3,persistent=1,tile_m=128,tile_n=256,warp_specialize=1
CASES="pick:$pick:" SHAPES=${SHAPES:-4096x4096x4096,4224x4096x4096,4224x3072x4096,4000x11008x4096,4224x11264x4096} \
  ROUNDS=${ROUNDS:-3} RUNS=${RUNS:-30} bash scripts/compare-envs.sh
