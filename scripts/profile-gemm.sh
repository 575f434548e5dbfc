#!/usr/bin/env bash
# Nsight Compute counters of the tile matmul beside cuBLAS's, on the device
# machine (issue #5): one shape, one configuration, one launch of each.
# Here:   as for bench-gemm.sh (carry .carry with tile-bench.xz)
# There:  bash scripts/profile-gemm.sh [DTYPE] [SHAPE] [CONFIG]
#         e.g. bash scripts/profile-gemm.sh bf16 4096x4096x4096 tile_m=128,tile_n=256,num_stages=4
#         (EXTRA: more tile-bench flags, such as EXTRA=--no-variants for the general kernel;
#         METRICS: more ncu metrics, comma-separated)
# ncu reads the counters on Firecracker machines only (device KINDS.md); the
# clocks are left alone (--clock-control none), as METHOD.md asks.
set -uo pipefail
cd "$(dirname "$0")/.."
dtype=${1:-bf16}
shape=${2:-4096x4096x4096}
config=${3:-tile_m=128,tile_n=256,num_stages=4}
source scripts/device-env.sh
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
metrics=sm__cycles_elapsed.avg.per_second,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum
metrics+=,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,launch__grid_size,launch__registers_per_thread
metrics+=,smsp__inst_executed.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
metrics+=',regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio'
# METRICS: more, comma-separated (such as dram__bytes_read.sum).
[ -n "${METRICS:-}" ] && metrics+=",$METRICS"
"$ncu" --clock-control none --metrics "$metrics" -c ${NCU_COUNT:-2} \
  /tmp/tile-bench --dtypes "$dtype" --shapes "$shape" --config "$config" --warmup 0 --runs 1 ${EXTRA:-} 2>&1 \
  | grep -vE "^==PROF==|^\s*$|Section:|----|Metric Name" | cut -c1-150
