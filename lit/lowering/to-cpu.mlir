// Every example lowers to the LLVM dialect through tile-to-cpu, leaving no
// op of another dialect and no runtime-library call besides malloc/free.
// RUN: for f in %examples/*.mlir; do tile-opt $f --pass-pipeline='builtin.module(tile-to-cpu)' > %t.$(basename $f) || exit 1; done
// RUN: cat %t.*.mlir | FileCheck %s
// RUN: cat %t.*.mlir | FileCheck %s --check-prefix=ONLY-LLVM
// RUN: not tile-opt %examples/softmax.mlir --pass-pipeline='builtin.module(tile-to-cpu{fast=1})' 2>&1 | FileCheck %s --check-prefix=OPTION

// CHECK-DAG: llvm.func @matmul(
// CHECK-DAG: llvm.func @_mlir_ciface_softmax(
// CHECK-DAG: llvm.func @transpose3d.block(

// ONLY-LLVM-NOT: {{ (tile|arith|math|scf|cf|memref|linalg|tensor|bufferization|func)\.}}
// ONLY-LLVM-NOT: llvm.call @memrefCopy

// OPTION: tile-to-cpu: takes no options
