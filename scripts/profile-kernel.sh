#!/usr/bin/env bash
# Nsight Compute counters of one launch of a suite GEMM program on the
# register path (issue #21): where its warps stall, its memory and tensor
# throughput, registers. Random bf16 inputs; one block per output tile.
# Here:   cargo build --release -p tile-run &&
#         strip target/release/tile-run -o .carry/tile-run && xz -6 -T4 -f .carry/tile-run
# There:  bash scripts/profile-kernel.sh ab|abt M N K   (device tool, carry .carry)
#         VARIANTS=1 bash scripts/profile-kernel.sh ...   the launch as the runtime chooses
#         it (a variant, such as @k__tma), not the general kernel
#   e.g.  bash scripts/profile-kernel.sh abt 4096 4096 4096
#         PROGRAM=bench/experiments/abt_stages2.mlir bash scripts/profile-kernel.sh abt ...
#         profiles another program of that layout
#         DTYPE=f32 PROGRAM=bench/gemm/tf32.mlir VARIANTS=1 bash scripts/profile-kernel.sh ab 4096 4096 4096
#         GRID=132 PROGRAM=bench/gemm/persistent.mlir VARIANTS=1 bash scripts/profile-kernel.sh ab 16 4096 4096
#         launches that grid instead of one block per output tile
# ncu reads the counters on Firecracker machines only (device KINDS.md); the
# clocks are left alone (--clock-control none), as METHOD.md asks.
set -uo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 4 ] || { echo "usage: $0 ab|abt M N K" >&2; exit 1; }
layout=$1 m=$2 n=$3 k=$4
source scripts/carried-tile-run.sh
work=$(mktemp -d)
# DTYPE=f32 (with PROGRAM=bench/gemm/tf32.mlir) or f8 (f8.mlir, f8_abt.mlir:
# bf16 output) run a program as written on those operands.
dtype=${DTYPE:-bf16}
if [ "$dtype" = bf16 ]; then
  sed 's/f16/bf16/g' "${PROGRAM:-bench/gemm/$layout.mlir}" > "$work/k.mlir"
else
  cp "${PROGRAM:?PROGRAM names the program for DTYPE=$dtype}" "$work/k.mlir"
fi
python3 - "$layout" "$m" "$n" "$k" "$work" "$dtype" <<'PY'
import sys, numpy as np
layout, m, n, k, work, dtype = sys.argv[1], *map(int, sys.argv[2:5]), sys.argv[5], sys.argv[6]
rng = np.random.default_rng(0)
bf16 = lambda shape: (rng.uniform(-1, 1, shape).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
f32 = lambda shape: rng.uniform(-1, 1, shape).astype(np.float32)
f8 = lambda shape: rng.integers(0, 0x7E, shape, dtype=np.uint8)
operand = {'bf16': bf16, 'f32': f32, 'f8': f8}[dtype]
np.save(f'{work}/a.npy', operand((m, k)))
np.save(f'{work}/b.npy', operand((n, k) if layout == 'abt' else (k, n)))
np.save(f'{work}/c.npy', np.zeros((m, n), np.float32 if dtype == 'f32' else np.uint16))
PY
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
metrics=gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed
metrics+=,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,launch__registers_per_thread
metrics+=,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_elapsed,launch__occupancy_limit_registers
metrics+=,smsp__warps_active.avg.per_cycle_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
metrics+=,smsp__inst_executed.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
metrics+=',regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio'
"$ncu" --clock-control none --metrics "$metrics" -c 1 \
  /tmp/tile-run "$work/k.mlir" --target cuda --grid "${GRID:-tiles:2}" $([ -n "${VARIANTS:-}" ] || echo --no-variants) \
  "$work/a.npy" "$work/b.npy" "$work/c.npy" 2>&1 \
  | grep -vE "^==PROF==|^\s*$|Section:|----|Metric Name" | awk '$NF != "0" && $NF != "0.00"' | cut -c1-150
