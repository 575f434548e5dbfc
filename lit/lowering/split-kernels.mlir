// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile-split-kernels)' | FileCheck %s

// Each kernel in a copy of the gpu.module of its own, wrapped in a module
// named after it and the kernel's place; every global and device
// function stays in each copy.
// CHECK-LABEL: module @tile_kernels__tile_part0 attributes {gpu.container_module}
// CHECK: gpu.module @tile_kernels
// CHECK: llvm.mlir.global private @__mbarrier()
// CHECK: llvm.func @helper()
// CHECK: llvm.func @k()
// CHECK-NOT: llvm.func @j()
// CHECK-LABEL: module @tile_kernels__tile_part1 attributes {gpu.container_module}
// CHECK: llvm.mlir.global private @__mbarrier()
// CHECK: llvm.func @helper()
// CHECK-NOT: llvm.func @k()
// CHECK: llvm.func @j()
module attributes {gpu.container_module} {
  gpu.module @tile_kernels {
    llvm.mlir.global private @__mbarrier() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<4 x i64>
    llvm.func @helper() {
      llvm.return
    }
    llvm.func @k() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
    llvm.func @j() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}
