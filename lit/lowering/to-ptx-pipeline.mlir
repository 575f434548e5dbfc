// The passes of tile-to-ptx that keep every verified program compiling
// and defined, in order: loops carry tiles in place whatever they yield
// (tile-carry-in-place, right after bufferization, before the tile
// buffers get their places in shared memory), and integer division is
// guarded (tile-safe-division, after arith-expand) so that x / 0 is all
// ones and x % 0 is x, as on the CPU; index divisions with bounded
// dividends divide in 32 bits (tile-narrow-divisions, on the register
// path's output, before it leaves the func dialect). An empty module: only
// the pipeline is checked here (to-ptx.mlir compiles kernels with a
// toolkit).
// RUN: tile-opt %s --pass-pipeline='builtin.module(tile-to-ptx)' --dump-pass-pipeline 2>&1 >/dev/null | FileCheck %s

// CHECK: convert-tile-to-registers
// CHECK-NEXT: tile-narrow-divisions
// CHECK: one-shot-bufferize{allow-return-allocs-from-loops=true
// CHECK: tile-carry-in-place
// CHECK: tile-expand-copies
// CHECK: convert-tile-to-gpu
// CHECK: arith-expand
// CHECK: tile-safe-division
// CHECK: convert-arith-to-llvm
module {
}
