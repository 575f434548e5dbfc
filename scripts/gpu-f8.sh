#!/usr/bin/env bash
# 8-bit float and tf32 GEMMs on wgmma (issue #21): the f8 and f32 programs against numpy,
# plainly and under compute-sanitizer's memcheck (the TMA variant, the
# general kernel, rows 8-byte aligned), then the suite's f8 and tf32
# cases timed beside torch (_scaled_mm, cuBLAS tf32).
# There:  bash scripts/gpu-f8.sh [SUITE_FILTER [CHECK_FILTER]]  (device tool, carry .carry;
#         build and carry as scripts/gpu-cases.sh says)
#         bash scripts/gpu-f8.sh 64x128x32 small_k   the widened K steps (tile-widen-k)
exec bash "$(dirname "$0")/gpu-cases.sh" "${2:-f8|matmul_f32}" "${1:-f8|tf32}"
