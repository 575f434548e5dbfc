#!/usr/bin/env bash
# Nsight Compute counters of one launch of a suite attention case (issue
# #21): duration, registers, occupancy limits, shared-memory bank
# conflicts and where the warps stall. The case runs through
# bench-suite.py; ncu profiles the first launch of the tile kernel.
# Here:   cargo build --release -p tile-run &&
#         strip target/release/tile-run -o .carry/tile-run && xz -6 -T4 -f .carry/tile-run
# There:  bash scripts/profile-attention.sh "CASE"   (device tool, carry .carry)
#   e.g.  bash scripts/profile-attention.sh "attention causal d64 16x32x1024"
set -uo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 1 ] || { echo "usage: $0 CASE" >&2; exit 1; }
source scripts/carried-tile-run.sh
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
metrics=gpu__time_duration.sum,launch__registers_per_thread,smsp__warps_active.avg.per_cycle_active
metrics+=,sm__throughput.avg.pct_of_peak_sustained_elapsed,launch__occupancy_limit_shared_mem,launch__occupancy_limit_registers
metrics+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
metrics+=',regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio'
# How busy each pipe is (tensor cores, MUFU's exponentials, FMA, ALU) and the issue slots.
metrics+=',regex:sm__pipe_(tensor_op_gmma|fma|alu|xu|fmaheavy|shared)_cycles_active\.avg\.pct_of_peak_sustained_active'
metrics+=',regex:sm__inst_executed_pipe_(xu|fma|alu|lsu|uniform)\.avg\.pct_of_peak_sustained_active'
metrics+=,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
"$ncu" --clock-control none --kernel-name regex:^flash -c 1 --metrics "$metrics" \
  python3 scripts/bench-suite.py /tmp/tile-run --only "$1" 2>&1 \
  | grep -vE "^==PROF==|^\s*$|Section:|----|Metric Name" | awk '$NF != "0" && $NF != "0.00"' | cut -c1-150
