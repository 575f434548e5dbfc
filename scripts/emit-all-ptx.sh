#!/usr/bin/env bash
# The PTX of every program (examples/, bench/*/, tests/kernels/, loops.mlir
# left out) as a build emits it with no configuration, f16 for the
# programs written over DTYPE, into DIR: for `cmp -r` against another
# build's, to tell which programs a compiler change touches.
# Here:   bash scripts/emit-all-ptx.sh target/release/tile-run DIR [CONFIG]
#         CONFIG: a --config for every program that has a tile.tune space
set -uo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: $0 TILE_RUN DIR [CONFIG]" >&2; exit 1; }
run=$1 dir=$2 config=${3:-}
mkdir -p "$dir"
work=$(mktemp -d)
for f in examples/*.mlir bench/*/*.mlir tests/kernels/*.mlir; do
  [ "$(basename "$f")" = loops.mlir ] && continue
  name=$(echo "$f" | tr / _)
  sed 's/DTYPE/f16/g' "$f" > "$work/$name"
  flags=()
  [ -n "$config" ] && grep -q "tile.tune" "$f" && flags=(--config "$config")
  "$run" "$work/$name" --target cuda --grid 1 "${flags[@]}" --emit-ptx "$dir/$name.ptx" > /dev/null 2>&1 \
    || echo "$f: no PTX" >&2
done
ls "$dir" | wc -l
