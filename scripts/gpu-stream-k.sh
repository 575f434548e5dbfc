#!/usr/bin/env bash
# Stream-K (`tile-stream-k`, docs/stream-k.md) against the data-parallel
# persistent walk: the examples' GEMM in the configuration the tuner picks
# at 4096^3 (128x256 tiles, persistent, a producer warpgroup), with and
# without `stream_k=1`, beside cuBLAS, at shapes of a partial last wave
# (4096^3: 3.88 waves of 132; 4000x11008x4096: 10.42) and of whole waves
# (4224x4096x4096: 4; 4224x11264x4096: 11), where stream-K changes
# nothing but its bookkeeping. Rounds interleaved (compare-envs.sh).
# Here:   cargo build --release -p tile-bench &&
#         strip target/release/tile-bench -o .carry/tile-bench && xz -6 -T2 -f .carry/tile-bench
# There:  [ROUNDS=3] [SHAPES=...] bash scripts/gpu-stream-k.sh   (device tool, carry .carry/tile-bench.xz)
set -uo pipefail
cd "$(dirname "$0")/.."
pick=num_stages=3,persistent=1,tile_m=128,tile_n=256,warp_specialize=1
CASES="dp:$pick: sk:$pick,stream_k=1:" \
  SHAPES=${SHAPES:-4096x4096x4096,4224x4096x4096,4000x11008x4096,4224x11264x4096,8192x8192x8192} \
  ROUNDS=${ROUNDS:-3} RUNS=${RUNS:-30} bash scripts/compare-envs.sh
