// --help is MLIR's own, with the tile dialect registered and the mlir-opt
// flags users know.
// RUN: tile-opt --help | FileCheck %s
// CHECK: tile-opt: the tile compiler's MLIR optimizer driver
// CHECK-DAG: --pass-pipeline
// CHECK-DAG: --split-input-file
// CHECK-DAG: --verify-diagnostics
// CHECK-DAG: --mlir-print-ir-after-all
// CHECK-DAG: --canonicalize
// RUN: tile-opt --show-dialects | FileCheck %s --check-prefix=DIALECTS
// DIALECTS: tile
// Tile passes are registered by name, with their summaries.
// RUN: tile-opt --help | FileCheck %s --check-prefix=PASSES
// PASSES: --tile-simplify {{.*}}- Fold no-op and chained tile.reshape, tile.broadcast and tile.permute
