// tile-to-ptx takes a kernel to a gpu.binary holding sm_90a PTX.
// RUN: tile-opt %examples/matmul.mlir --pass-pipeline='builtin.module(tile-to-ptx{chip=sm_90a})' | FileCheck %s
// RUN: not tile-opt %examples/matmul.mlir --pass-pipeline='builtin.module(tile-to-ptx{cores=2})' 2>&1 | FileCheck %s --check-prefix=OPTION

// CHECK: gpu.binary @tile_kernels
// CHECK-SAME: chip = "sm_90a"
// CHECK-SAME: .visible .entry matmul(
// The general kernel copies its operand tiles into shared memory 16 bytes a
// cp.async (after its check), and its result out as 16-byte vectors.
// CHECK-SAME: cp.async.cg.shared.global
// CHECK-SAME: st.shared.v4.b32
// CHECK-SAME: st.global.v4.b32
// The TMA variant: TMA loads, an mbarrier wait, warpgroup mma, and the
// result stored by the TMA.
// CHECK-SAME: .visible .entry matmul__tma(
// CHECK-SAME: cp.async.bulk.tensor.2d.shared::cluster.global
// CHECK-SAME: mbarrier.try_wait.parity
// CHECK-SAME: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// CHECK-SAME: cp.async.bulk.tensor.2d.global.shared::cta

// RUN: not tile-opt %examples/matmul.mlir --pass-pipeline='builtin.module(tile-to-ptx{chip=})' 2>&1 | FileCheck %s --check-prefix=CHIP

// OPTION: tile-to-ptx: unknown option 'cores' (known: chip, toolkit, general)
// CHIP: tile-to-ptx: '' is not an NVIDIA chip name such as sm_90a

// general=deferred: the TMA variant alone; the general kernel is left out
// (tile-defer-general-kernels).
// RUN: tile-opt %examples/matmul.mlir --pass-pipeline='builtin.module(tile-to-ptx{general=deferred})' | FileCheck %s --check-prefix=DEFERRED
// RUN: not tile-opt %examples/matmul.mlir --pass-pipeline='builtin.module(tile-to-ptx{general=later})' 2>&1 | FileCheck %s --check-prefix=GENERAL

// DEFERRED: gpu.binary @tile_kernels
// DEFERRED-NOT: .entry matmul(
// DEFERRED-SAME: .visible .entry matmul__tma(
// DEFERRED-SAME: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// DEFERRED-SAME: cp.async.bulk.tensor.2d.global.shared::cta
// DEFERRED-NOT: .entry matmul(
// GENERAL: tile-to-ptx: general='later': expected compiled or deferred
