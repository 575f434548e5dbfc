#!/usr/bin/env bash
# Compiler experiments behind environment variables, on the device
# machine: one tile-bench binary times each case (a configuration of the
# examples' space, run under a set of environment variables the compiler
# reads) beside cuBLAS, the cases interleaved over ROUNDS rounds so that
# the device's drift falls on all alike.
# Here:   cargo build --release -p tile-bench &&
#         strip target/release/tile-bench -o .carry/tile-bench && xz -6 -T2 -f .carry/tile-bench
# There:  CASES="name:CONFIG:VAR=1,VAR2=1[:PATTERN] ..." [SHAPES=MxNxK,...] [ROUNDS=3] [RUNS=30] \
#           bash scripts/compare-envs.sh   (device tool, carry .carry)
#         (an empty VAR list: `name:CONFIG:`; PATTERN, a program to time in
#         place of the examples, `%s` standing for f16_f16 or bf16_bf16)
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/device-env.sh
for round in $(seq "${ROUNDS:-3}"); do
  for case in ${CASES:?}; do
    IFS=: read -r name config vars pattern <<<"$case"
    kernels=()
    if [ -n "${pattern:-}" ]; then
      for t in f16 bf16; do kernels+=(--kernel "$t=$(printf "$pattern" "${t}_$t")"); done
    fi
    env_args=()
    IFS=, read -ra pairs <<<"$vars"
    for p in "${pairs[@]}"; do [ -n "$p" ] && env_args+=("$p"); done
    env "${env_args[@]}" timeout 90 /tmp/tile-bench --dtypes "${DTYPES:-f16,bf16}" --shapes "${SHAPES:-4096x4096x4096}" \
      --config "$config" "${kernels[@]}" --runs "${RUNS:-30}" 2>&1 | grep -E "^(f16|bf16)" | sed "s/^/round $round $name /"
  done
done
