// Every example, and every kernel of tests/kernels (loops carrying tiles in
// every shape, bf16 arithmetic, division by a run-time divisor), lowers to
// the LLVM dialect through tile-to-cpu, leaving no op of another dialect,
// no runtime-library call besides malloc/free and no bf16 arithmetic (x86
// has none: LLVM would call __truncsfbf2, which the JIT does not have).
// RUN: for f in %examples/*.mlir %S/../../tests/kernels/*.mlir; do tile-opt $f --pass-pipeline='builtin.module(tile-to-cpu)' > %t.$(basename $f) || exit 1; done
// RUN: cat %t.*.mlir | FileCheck %s
// RUN: cat %t.*.mlir | FileCheck %s --check-prefix=ONLY-LLVM
// RUN: FileCheck %s --input-file=%t.bf16_elementwise.mlir --check-prefix=BF16
// RUN: tile-opt %examples/softmax.mlir --pass-pipeline='builtin.module(tile-to-cpu)' --dump-pass-pipeline 2>&1 >/dev/null | FileCheck %s --check-prefix=PIPELINE
// RUN: not tile-opt %examples/softmax.mlir --pass-pipeline='builtin.module(tile-to-cpu{fast=1})' 2>&1 | FileCheck %s --check-prefix=OPTION

// CHECK-DAG: llvm.func @matmul(
// CHECK-DAG: llvm.func @_mlir_ciface_softmax(
// CHECK-DAG: llvm.func @transpose3d.block(
// CHECK-DAG: llvm.func @attention.block(
// CHECK-DAG: llvm.func @select_choice.block(

// ONLY-LLVM-NOT: {{ (tile|arith|math|scf|cf|memref|linalg|tensor|bufferization|func)\.}}
// ONLY-LLVM-NOT: llvm.call @memrefCopy

// bf16 is computed in f32: loads, stores and bit casts of bf16 only.
// BF16: llvm.func @bf16_elementwise.block(
// BF16-NOT: {{llvm\.(fadd|fsub|fmul|fdiv|fneg|fcmp|fptrunc|fpext|intr\.[a-z]+).*bf16}}
// BF16: llvm.intr.exp({{.*}}) : (f32) -> f32
// BF16-NOT: {{llvm\.(fadd|fsub|fmul|fdiv|fneg|fcmp|fptrunc|fpext|intr\.[a-z]+).*bf16}}

// Loops carry tiles in place whatever they yield (tile-carry-in-place,
// before deallocation); bf16 arithmetic is emulated in f32 before
// arith-expand lowers the conversions to integer code; integer division
// is guarded (tile-safe-division) after arith-expand, which makes
// divisions of ceildiv and floordiv.
// PIPELINE: one-shot-bufferize{allow-return-allocs-from-loops=true
// PIPELINE: tile-carry-in-place
// PIPELINE: ownership-based-buffer-deallocation
// PIPELINE: math-extend-to-supported-types{extra-types={f16} target-type=f32}
// PIPELINE: arith-emulate-unsupported-floats{source-types={bf16} target-type=f32}
// PIPELINE: arith-expand{include-bf16=true
// PIPELINE: tile-safe-division
// PIPELINE: convert-to-llvm

// OPTION: tile-to-cpu: takes no options
