#!/usr/bin/env bash
# Regenerates the generated references in docs/:
# * docs/tile-dialect.md, the dialect reference, from Tile.td (mlir-tblgen);
#   lit/dialects/tile/docs.mlir fails when the committed file is stale;
# * docs/kernel-attributes.md, the kernel attributes and their keys, from
#   dialects/src/attrs.rs (tile_dialect::attrs::markdown); the integration
#   test `docs` fails when the committed file is stale.
set -euo pipefail
cd "$(dirname "$0")/.."
/usr/lib/llvm-22/bin/mlir-tblgen -gen-dialect-doc -dialect=tile \
  -I /usr/lib/llvm-22/include dialects/td/Tile.td -o docs/tile-dialect.md

# attrs.rs depends on nothing, so a two-line program renders it in seconds,
# where the test (TILE_UPDATE_DOCS=1) would first build all of MLIR's users.
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/main.rs" <<EOF
#[allow(dead_code)]
#[path = "$PWD/dialects/src/attrs.rs"]
mod attrs;
fn main() {
    print!("{}", attrs::markdown());
}
EOF
rustc --edition 2024 -o "$tmp/gen-docs" "$tmp/main.rs"
"$tmp/gen-docs" >docs/kernel-attributes.md
