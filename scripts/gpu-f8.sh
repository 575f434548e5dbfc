#!/usr/bin/env bash
# 8-bit float and tf32 GEMMs on wgmma (issue #21): the f8 and f32 programs against numpy,
# plainly and under compute-sanitizer's memcheck (the TMA variant, the
# general kernel, rows 8-byte aligned), then the suite's f8 and tf32
# cases timed beside torch (_scaled_mm, cuBLAS tf32).
# Here:   cargo build --release -p tile-run &&
#         strip target/release/tile-run -o .carry/tile-run && xz -6 -T2 -f .carry/tile-run
# There:  bash scripts/gpu-f8.sh [SUITE_FILTER [CHECK_FILTER]]  (device tool, carry .carry)
#         bash scripts/gpu-f8.sh 64x128x32 small_k   the widened K steps (tile-widen-k)
set -uo pipefail
cd "$(dirname "$0")/.."
python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('.carry/tile-run.xz'), open('/tmp/tile-run','wb'))"
chmod +x /tmp/tile-run
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
status=0
for mode in "" --memcheck; do
  echo "== gpu_check ${2:-f8|matmul_f32} $mode"
  python3 scripts/gpu_check.py /tmp/tile-run --only "${2:-f8|matmul_f32}" $mode || status=1
done
echo "== suite ${1:-f8|tf32}"
PYTHONUNBUFFERED=1 python3 scripts/bench-suite.py /tmp/tile-run --only "${1:-f8|tf32}" 2>&1 | tail -20 || status=1
exit $status
