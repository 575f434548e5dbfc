#!/usr/bin/env bash
# A full Nsight Compute report of one launch of an example GEMM under one
# configuration of its tuning space, on the register path's TMA variant,
# for reading here: the details page (every section) and the SASS source
# page with its stall samples, both as text under $OUT. Random f16 inputs.
# Here:   cargo build --release -p tile-run &&
#         strip target/release/tile-run -o .carry/tile-run && xz -6 -T2 -f .carry/tile-run
# There:  [EXAMPLE=matmul_f16_f16] [VARIANT=__tma] bash scripts/ncu-report.sh NAME M N K CONFIG   (device tool, carry .carry)
#         VARIANT: a regex on the name of the kernel to profile (the entry tile-run launches)
# Writes $OUT/NAME.details.txt and $OUT/NAME.sass.csv.
set -uo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 5 ] || { echo "usage: $0 NAME M N K CONFIG" >&2; exit 1; }
name=$1 m=$2 n=$3 k=$4 config=$5
source scripts/carried-tile-run.sh
out=${OUT:-/tmp}
work=$(mktemp -d)
python3 scripts/gemm-operands.py "$m" "$n" "$k" "$work" || exit 1
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
"$ncu" --clock-control none --set full --import-source no -k "regex:${VARIANT:-__tma}" -c 1 -o "$work/report" \
  /tmp/tile-run "examples/${EXAMPLE:-matmul_f16_f16}.mlir" --target cuda --grid tiles:2 --config "$config" \
  "$work/a.npy" "$work/b.npy" "$work/c.npy" > "$work/log" 2>&1 || { tail -20 "$work/log"; exit 1; }
"$ncu" -i "$work/report.ncu-rep" --page details --print-details all > "$out/$name.details.txt" 2>&1
"$ncu" -i "$work/report.ncu-rep" --page source --csv --print-source sass > "$out/$name.sass.csv" 2>&1
grep -E "Duration|Throughput|Registers|Grid Size|Cluster" "$out/$name.details.txt" | head -20
