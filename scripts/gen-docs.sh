#!/usr/bin/env bash
# Regenerates docs/tile-dialect.md, the dialect reference, from Tile.td.
# lit/dialects/tile/docs.mlir fails when the committed file is stale.
set -euo pipefail
cd "$(dirname "$0")/.."
/usr/lib/llvm-22/bin/mlir-tblgen -gen-dialect-doc -dialect=tile \
  -I /usr/lib/llvm-22/include dialects/td/Tile.td -o docs/tile-dialect.md
