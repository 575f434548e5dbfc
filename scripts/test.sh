#!/usr/bin/env bash
# The test command: installs what is missing, builds, and runs every test tier
# that needs no GPU (rustfmt and clippy, cargo tests with insta snapshots, the
# lit suite, and the tile-opt crash check). CI runs exactly this through .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
# ptxas and libdevice from the nvidia-cuda-nvcc-cu12 package: the GPU tests
# compile every example to PTX and check it with ptxas (no GPU needed).
if [ -z "${CUDA_HOME:-}" ]; then
  CUDA_HOME=$(python3 -c "import nvidia.cuda_nvcc as m; print(list(m.__path__)[0])" 2>/dev/null || true)
  export CUDA_HOME
fi
echo "CUDA_HOME=${CUDA_HOME:-(none: PTX checks will be skipped)}"

echo "== cargo fmt --check"
cargo fmt --all -- --check

echo "== cargo build"
cargo build --workspace --all-targets

echo "== cargo clippy"
cargo clippy --workspace --all-targets -- -D warnings

echo "== cargo test"
cargo test --workspace

# The GPU tests (and the runtime's ptxas ones) again, with their output:
# without a GPU (or ptxas) they say what they skipped and why (libtest
# hides the output of passing tests).
echo "== GPU tests, with what they skipped"
cargo test -q -p tile-tests --test integration gpu:: -- --show-output
cargo test -q -p tile-runtime --lib ptxas -- --show-output

# Again optimised: undefined behaviour in unsafe code (a reference to a
# dropped temporary, say) can pass in a debug build and crash in release,
# which is how users build.
echo "== cargo test --release"
cargo build --release --workspace --all-targets
cargo test --release --workspace

echo "== lit"
/usr/lib/llvm-22/bin/lit -sv lit/

# The bar checker on two recorded suite runs: one meets every bar, one
# misses the GEMM family's (BENCHMARKS.md, sessions 46 and 49).
echo "== suite-bars.py"
python3 scripts/suite-bars.py docs/bench/suite-s46.csv > /dev/null
# The second must fail for the missed bar, not for a crash: its report names
# the two cases under 0.95.
if bars=$(python3 scripts/suite-bars.py docs/bench/suite-s49.csv) \
   || ! grep -q "GEMM family (>= 0.95): MISSED by 2 of 72" <<<"$bars"; then
  echo "suite-bars.py: docs/bench/suite-s49.csv should miss the GEMM family's bar by 2 cases; it printed:" >&2
  echo "$bars" >&2
  exit 1
fi

echo "== tile-opt crash check"
python3 scripts/fuzz-tile-opt.py target/debug/tile-opt 0
