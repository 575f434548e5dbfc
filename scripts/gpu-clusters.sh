#!/usr/bin/env bash
# Sliced clusters on the register path (`tile-slice-clusters`, B multicast
# by the TMA), on the device machine: the num_ctas = 2 configurations of
# gpu_check on the TMA variant and on the general kernel, then some under
# racecheck, each case bounded in time (a hang is a failed case).
# Here:   cargo build --release -p tile-run &&
#         strip target/release/tile-run -o .carry/tile-run && xz -6 -T2 -f .carry/tile-run
# There:  [ONLY=pattern] [SANITIZE="case|case"] bash scripts/gpu-clusters.sh   (device tool, carry .carry)
#         ONLY picks gpu_check's cases (default "num_ctas=2"; "split_k=2" for
#         tile-split-k's clusters, each block a share of the K loop)
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/carried-tile-run.sh
only=${ONLY:-num_ctas=2}
export CASE_SECONDS=${CASE_SECONDS:-60}
status=0
echo "== TMA variant"
TILE_RUN_FLAGS= python3 scripts/gpu_check.py /tmp/tile-run --only "$only" || status=1
echo "== general kernel"
TILE_RUN_FLAGS="--no-variants" python3 scripts/gpu_check.py /tmp/tile-run --only "$only" || status=1
sanitize=${SANITIZE:-"matmul_f16_f16 520x264x72 tile_m=256,tile_n=128,num_stages=4,warp_specialize=1,num_ctas=2|matmul_f16_f16 520x264x72 tile_m=256,tile_n=128,warp_specialize=1,persistent=1,num_ctas=2"}
echo "== racecheck"
TILE_RUN_FLAGS= CASE_SECONDS=200 python3 scripts/gpu_check.py /tmp/tile-run --racecheck --only "$sanitize" || status=1
exit $status
