#!/usr/bin/env bash
# The test command: installs what is missing, builds, and runs every test tier
# that needs no GPU (cargo tests with insta snapshots, the lit suite, and the
# tile-opt crash check). CI runs exactly this through .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh

echo "== cargo build"
cargo build --workspace --all-targets

echo "== cargo test"
cargo test --workspace

echo "== lit"
/usr/lib/llvm-22/bin/lit -sv lit/

echo "== tile-opt crash check"
python3 scripts/fuzz-tile-opt.py target/debug/tile-opt 0
