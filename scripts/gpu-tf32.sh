#!/usr/bin/env bash
# tf32 (bench/gemm/tf32.mlir) in several configurations beside torch's tf32
# matmul, interleaved over ROUNDS rounds, each configuration's output
# checked against a float64 product of the same random data (its output
# array poisoned with NaN first). A configuration is CONFIG or
# VAR=1+CONFIG (an environment variable the compiler reads, then the
# configuration; `-` for none).
# Here:   cargo build --release -p tile-run &&
#         strip target/release/tile-run -o .carry/tile-run && xz -6 -T2 -f .carry/tile-run
# There:  [SHAPE=4096x4096x4096] [ROUNDS=2] bash scripts/gpu-tf32.sh CONFIG...  (device tool, carry .carry)
#   e.g.  bash scripts/gpu-tf32.sh - tile_k=32,num_stages=5 TILE_EXP_X=1+tile_n=256,tile_k=32
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/carried-tile-run.sh
read -r m n k <<<"${SHAPE:-4096x4096x4096}"; read -r m n k <<<"${m//x/ }"
work=$(mktemp -d)
python3 - "$m" "$n" "$k" "$work" <<'PY'
import sys, numpy as np, torch
m, n, k, work = *map(int, sys.argv[1:4]), sys.argv[4]
rng = np.random.default_rng(0)
a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
np.save(f'{work}/a.npy', a); np.save(f'{work}/b.npy', b)
np.save(f'{work}/c.npy', np.full((m, n), np.nan, np.float32))
np.save(f'{work}/want.npy', (torch.tensor(a, dtype=torch.float64, device='cuda') @ torch.tensor(b, dtype=torch.float64, device='cuda')).float().cpu().numpy())
PY
torch_time() {
  python3 - "$m" "$n" "$k" <<'PY'
import sys, torch
m, n, k = map(int, sys.argv[1:4])
torch.backends.cuda.matmul.allow_tf32 = True
a, b = torch.rand(m, k, device='cuda') * 2 - 1, torch.rand(k, n, device='cuda') * 2 - 1
for _ in range(10): a @ b
s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
t = []
for _ in range(20):
    s.record(); a @ b; e.record(); torch.cuda.synchronize(); t.append(s.elapsed_time(e))
ms = sorted(t)[10]
print(f'torch tf32 {m}x{n}x{k}: {ms:.4f} ms, {2*m*n*k/ms/1e9:.0f} TFLOP/s')
PY
}
for round in $(seq "${ROUNDS:-2}"); do
  torch_time
  for case in "$@"; do
    vars=() config=$case
    if [[ $case == *+* ]]; then IFS=, read -ra vars <<<"${case%%+*}"; config=${case#*+}; fi
    args=()
    [ "$config" != "-" ] && args=(--config "$config")
    out=$(env "${vars[@]}" /tmp/tile-run bench/gemm/tf32.mlir "${args[@]}" --grid tiles:2 --bench 20 \
      --save "2=$work/got.npy" "$work/a.npy" "$work/b.npy" "$work/c.npy" 2>&1 | tail -1)
    ms=$(echo "$out" | grep -oE '[0-9.]+ ms' | head -1 | cut -d' ' -f1)
    check=$(python3 -c "
import numpy as np
got, want = np.load('$work/got.npy'), np.load('$work/want.npy')
err = float(np.abs(got - want).max()) / float(np.abs(want).max())
print(('ok' if np.isfinite(got).all() and err <= 1e-2 else 'WRONG') + f' ({err:.2e})')" 2>&1)
    rate=$([ -n "$ms" ] && python3 -c "print(f'{2*$m*$n*$k/$ms/1e9:.0f} TFLOP/s')")
    echo "round $round $case: ${rate:-no time} $check | $(echo "$out" | cut -c1-150)"
    rm -f "$work/got.npy"
  done
done
