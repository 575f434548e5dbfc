#!/usr/bin/env bash
# The machine code of one configuration (the kernel and its variants), on the device
# machine (issue #5): the carried tile-run emits the PTX, the machine's
# ptxas (the driver's generation) compiles it with -v (registers, spills,
# and its warnings, such as wgmma serialisation), cuobjdump dumps the SASS.
# Here:   as for gpu-check.sh (carry .carry with tile-run.xz)
# There:  bash scripts/sass.sh KERNEL CONFIG
#         e.g. bash scripts/sass.sh examples/matmul_bf16_bf16.mlir tile_m=128,tile_n=256,num_stages=4
#         CONFIG - : the program as written (bash scripts/sass.sh bench/attention/flash_d128.mlir -)
# Writes kernel.ptx, ptxas.txt and kernel.sass to $OUT (or /tmp).
set -uo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then echo "usage: bash scripts/sass.sh KERNEL.mlir CONFIG" >&2; exit 1; fi
out=${OUT:-/tmp}
source scripts/carried-tile-run.sh
cuda=${CUDA_HOME:-/usr/local/cuda}
config=(--config "$2")
[ "$2" = - ] && config=()
/tmp/tile-run "$1" "${config[@]}" --target cuda --grid 1 --emit-ptx "$out/kernel.ptx" || exit 1
"$cuda/bin/ptxas" -arch=sm_90a -v "$out/kernel.ptx" -o /tmp/kernel.cubin > "$out/ptxas.txt" 2>&1
status=$?
grep -vE "^\s*$" "$out/ptxas.txt"
"$cuda/bin/cuobjdump" --dump-sass /tmp/kernel.cubin > "$out/kernel.sass" || status=1
# The main loop at a glance: matrix, barrier and copy instructions.
grep -cE "HGMMA" "$out/kernel.sass" | sed 's/^/HGMMA: /'
grep -cE "WARPGROUP.(DEPBAR|ARRIVE)" "$out/kernel.sass" | sed 's/^/WARPGROUP sync: /'
exit $status
