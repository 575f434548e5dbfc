// The committed dialect reference is what Tile.td generates today
// (scripts/gen-docs.sh regenerates it).
// RUN: mlir-tblgen -gen-dialect-doc -dialect=tile -I /usr/lib/llvm-22/include %S/../../../dialects/td/Tile.td | diff - %S/../../../docs/tile-dialect.md
