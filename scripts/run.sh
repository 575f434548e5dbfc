#!/usr/bin/env bash
# The main job: installs what is missing, builds tile, then verifies and
# prints the contract's matmul kernel with tile-opt. (Compiling and running it
# on the GPU or CPU comes with the lowerings.)
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
cargo build -p tile-opt
./target/debug/tile-opt examples/matmul.mlir
