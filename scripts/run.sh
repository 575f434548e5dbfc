#!/usr/bin/env bash
# The main job: installs what is missing, builds tile, then compiles and runs
# the contract's softmax kernel on random data, twice: through the Rust API
# (examples/embed.rs, which checks the result against a reference), and
# through tile-run on .npy files, timed: on the GPU when a CUDA driver and
# device are present (the SIMT path of issue #3), else on the CPU.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
cargo build -p tile-run --bins --examples
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

./target/debug/examples/embed "$dir"
./target/debug/tile-run examples/softmax.mlir --grid 250 \
    "$dir/x.npy" "$dir/y.npy" --save 1="$dir/y_out.npy" --bench 10
echo "tile-run wrote $(stat -c %s "$dir/y_out.npy") bytes of softmax output"
