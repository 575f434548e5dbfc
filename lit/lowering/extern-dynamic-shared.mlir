// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile-extern-dynamic-shared)' | FileCheck %s

// The base of dynamic shared memory becomes an external declaration (the
// dynamic window's start in PTX); other globals stay as they are: a static
// shared array, and a zero-length global of another address space.
// CHECK-LABEL: gpu.module @tile_kernels
// CHECK: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK: llvm.mlir.global private @__mbarrier() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<4 x i64>
// CHECK: llvm.mlir.global internal @__dynamic_shmem__other() {addr_space = 1 : i32
module attributes {gpu.container_module} {
  gpu.module @tile_kernels {
    llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
    llvm.mlir.global private @__mbarrier() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<4 x i64>
    llvm.mlir.global internal @__dynamic_shmem__other() {addr_space = 1 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
    llvm.func @k() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}
