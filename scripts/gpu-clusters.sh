#!/usr/bin/env bash
# Sliced clusters on the register path (`tile-slice-clusters`, B multicast
# by the TMA), on the device machine: the num_ctas = 2 configurations of
# gpu_check on the TMA variant and on the general kernel (the matcher's
# variant skipped), then some under racecheck and synccheck, each case
# bounded in time (a hang is a failed case).
# Here:   cargo build --release -p tile-run &&
#         strip target/release/tile-run -o .carry/tile-run && xz -6 -T2 -f .carry/tile-run
# There:  [SANITIZE="case|case"] bash scripts/gpu-clusters.sh   (device tool, carry .carry)
set -uo pipefail
cd "$(dirname "$0")/.."
python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('.carry/tile-run.xz'), open('/tmp/tile-run','wb'))"
chmod +x /tmp/tile-run
export CASE_SECONDS=${CASE_SECONDS:-60}
status=0
echo "== TMA variant (matcher skipped)"
TILE_RUN_FLAGS="--skip-variant __wgmma" python3 scripts/gpu_check.py /tmp/tile-run --only "num_ctas=2" || status=1
echo "== general kernel"
TILE_RUN_FLAGS="--no-variants" python3 scripts/gpu_check.py /tmp/tile-run --only "num_ctas=2" || status=1
sanitize=${SANITIZE:-"matmul_f16_f16 520x264x72 tile_m=256,tile_n=128,num_stages=4,warp_specialize=1,num_ctas=2|matmul_f16_f16 520x264x72 tile_m=256,tile_n=256,num_stages=4,warp_specialize=1,persistent=1,num_ctas=2"}
echo "== racecheck"
TILE_RUN_FLAGS="--skip-variant __wgmma" CASE_SECONDS=200 python3 scripts/gpu_check.py /tmp/tile-run --racecheck --only "$sanitize" || status=1
exit $status
