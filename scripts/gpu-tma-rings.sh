#!/usr/bin/env bash
# The register path's TMA variant (issue #21: `tile-use-tma`, rings filled
# by the TMA with an mbarrier a slot) on the device machine: the general
# GEMM kernels and attention against numpy, plainly and under
# compute-sanitizer's memcheck (aligned sizes take the variant, unaligned
# ones the kernel's cp.async rings), then the suite's GEMM and attention
# cases timed beside the vendor's (pass --memcheck to check them instead).
# Here:   cargo build --release -p tile-run &&
#         strip target/release/tile-run -o .carry/tile-run && xz -6 -T4 -f .carry/tile-run
# There:  bash scripts/gpu-tma-rings.sh [SUITE_FILTER] [--memcheck]  (device tool, carry .carry)
set -uo pipefail
filter=${1:-gemm|attention}
shift || true
cases="matmul 300x200x100|matmul 301x203x99|matmul_bf16 300|matmul_bf16 301|matmul_f32|attention"
exec bash "$(dirname "$0")/gpu-cases.sh" "$cases" "$filter" "$@"
