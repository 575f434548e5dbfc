#!/usr/bin/env bash
# Nsight Compute counters of one launch of an example GEMM under each of
# several configurations of its tuning space (issue #21), on the register
# path's TMA variant, in one run so that the configurations compare: launch
# shape, time, tensor-pipe activity, stalls.
# Random f16 inputs.
# Here:   cargo build --release -p tile-run &&
#         strip target/release/tile-run -o .carry/tile-run && xz -6 -T2 -f .carry/tile-run
# There:  [EXAMPLE=matmul_f16_f16] bash scripts/profile-configs.sh M N K config...   (device tool, carry .carry)
#   e.g.  bash scripts/profile-configs.sh 4096 4096 4096 \
#           tile_m=128,tile_n=128,num_stages=4,persistent=1,warp_specialize=1 \
#           tile_m=256,tile_n=128,num_stages=4,persistent=1,warp_specialize=1,num_ctas=2
# ncu reads the counters on Firecracker machines only (device KINDS.md); the
# clocks are left alone (--clock-control none), as METHOD.md asks.
set -uo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 4 ] || { echo "usage: $0 M N K config..." >&2; exit 1; }
m=$1 n=$2 k=$3; shift 3
source scripts/carried-tile-run.sh
work=$(mktemp -d)
python3 scripts/gemm-operands.py "$m" "$n" "$k" "$work" || exit 1
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
metrics=gpu__time_duration.sum,launch__grid_size,launch__cluster_dim_x,launch__registers_per_thread
metrics+=,launch__shared_mem_per_block_dynamic,sm__cycles_active.avg,sm__throughput.avg.pct_of_peak_sustained_elapsed
metrics+=,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_elapsed
metrics+=,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,lts__t_bytes.sum
metrics+=,smsp__warps_active.avg.per_cycle_active,smsp__inst_executed.sum
metrics+=',regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio'
for config in "$@"; do
  echo "== $config"
  "$ncu" --clock-control none --metrics "$metrics" -c 1 \
    /tmp/tile-run "examples/${EXAMPLE:-matmul_f16_f16}.mlir" --target cuda --grid tiles:2 --config "$config" \
    "$work/a.npy" "$work/b.npy" "$work/c.npy" 2>&1 \
    | grep -vE "^==PROF==|^\s*$|Section:|----|Metric Name" | awk '$NF != "0" && $NF != "0.00"' | cut -c1-150
done
