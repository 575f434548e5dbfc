#!/usr/bin/env bash
# The block order of `tile-group-blocks` on the device: each GEMM program
# as written (grouped, group_m = 8 by default) beside the same program with
# `group_m = 1` (the program's row-major order), and torch, in one run.
# Here:   cargo build --release -p tile-run &&
#         strip target/release/tile-run -o .carry/tile-run && xz -6 -T2 -f .carry/tile-run
# There:  bash scripts/group-order.sh [M N K]...   (device tool, carry .carry)
set -uo pipefail
cd "$(dirname "$0")/.."
shapes=("$@")
[ ${#shapes[@]} -gt 0 ] || shapes=(4000 11008 4096 4096 4096 4096)
variants=$(mktemp -d)
for p in ab abt atb small_k persistent; do
  cp bench/gemm/$p.mlir "$variants/$p.mlir"
  sed 's/attributes {tile.kernel}/attributes {tile.kernel, tile.hints = {group_m = 1}}/' \
    bench/gemm/$p.mlir >"$variants/${p}_rowmajor.mlir"
done
for ((i = 0; i < ${#shapes[@]}; i += 3)); do
  m=${shapes[i]} n=${shapes[i + 1]} k=${shapes[i + 2]}
  v=$variants
  bash scripts/time-programs.sh ab "$m" "$n" "$k" $v/ab.mlir $v/ab_rowmajor.mlir $v/small_k.mlir \
    $v/small_k_rowmajor.mlir $v/persistent.mlir $v/persistent_rowmajor.mlir
  bash scripts/time-programs.sh abt "$m" "$n" "$k" $v/abt.mlir $v/abt_rowmajor.mlir
  bash scripts/time-programs.sh atb "$m" "$n" "$k" $v/atb.mlir $v/atb_rowmajor.mlir
done
