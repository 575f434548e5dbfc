// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-pipeline-mma))' | FileCheck %s
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-pipeline-mma, tile-prefetch-loads, tile-assign-layouts), tile-remove-layout-conversions, tile-use-tma, func.func(convert-tile-to-registers))' | FileCheck %s --check-prefix=REG

// Attention's loop: the second mma (P V into the rescaled output) runs one
// iteration late, right after the first: the loop carries P and the
// rescaled output, loads V at j - 1 (the view's zero padding at j = 0,
// times the zero P it starts with), and one mma after the loop finishes
// the last iteration's with V at n - 1, loaded before the loop.
// CHECK-LABEL: func.func @attention
// CHECK:         %[[LAST:.*]] = arith.subi %[[N:.*]], %{{.*}} : index
// CHECK-NEXT:    %[[VLAST:.*]] = tile.load %{{.*}}[%[[LAST]], %{{.*}}] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
// CHECK-NEXT:    %[[ZP:.*]] = arith.constant dense<0.000000e+00> : tensor<128x64xf16>
// CHECK-NEXT:    %[[R:.*]]:2 = scf.for %[[J:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[C:.*]] = %{{.*}}, %[[P:.*]] = %[[ZP]]) -> (tensor<128x64xf32>, tensor<128x64xf16>) {
// CHECK:           %[[S:.*]] = tile.mma
// CHECK:           %[[J1:.*]] = arith.subi %[[J]], %{{.*}} : index
// CHECK-NEXT:      %[[V:.*]] = tile.load %{{.*}}[%[[J1]], %{{.*}}] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
// CHECK-NEXT:      %[[ACC:.*]] = tile.mma %[[P]], %[[V]], %[[C]] : tensor<128x64xf16>, tensor<64x64xf16> into tensor<128x64xf32>
// CHECK-NEXT:      %[[E:.*]] = math.exp %[[S]]
// CHECK-NEXT:      %[[SCALED:.*]] = arith.mulf %[[ACC]], %{{.*}} : tensor<128x64xf32>
// CHECK-NEXT:      %[[P16:.*]] = arith.truncf %[[E]]
// CHECK-NOT:       tile.mma
// CHECK:           scf.yield %[[SCALED]], %[[P16]] : tensor<128x64xf32>, tensor<128x64xf16>
// CHECK:         %[[OUT:.*]] = tile.mma %[[R]]#1, %[[VLAST]], %[[R]]#0 : tensor<128x64xf16>, tensor<64x64xf16> into tensor<128x64xf32>
// CHECK:         tile.store %[[OUT]]
//
// In registers, the deferred mma (P from registers, wgmma's register
// form) is issued after the first one's wait and waited for only where
// its product is read, after the exponentials between: the wait ties P's
// fragment registers with the accumulator's.
// REG-LABEL: func.func @attention__tma(
// REG:         scf.for
// REG:           nvvm.wgmma.mma_async
// REG:           nvvm.wgmma.commit.group.sync.aligned
// REG-NEXT:      llvm.extract
// REG:           llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;"
// REG:           llvm.inline_asm has_side_effects "{{.*}}wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}"
// REG:           nvvm.wgmma.commit.group.sync.aligned
// REG-NOT:       wgmma.wait_group
// REG:           llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
// REG:           llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;", "{{(=f,){32}(=r,){8}.*}}"
// REG:           scf.yield
// REG:         llvm.inline_asm has_side_effects "{{.*}}wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}"
func.func @attention(%Q: memref<?x64xf16>, %K: memref<?x64xf16>, %V: memref<?x64xf16>, %O: memref<?x64xf32>)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pq = tile.partition_view %Q : memref<?x64xf16> -> !tile.partition_view<128x64xf16>
  %pk = tile.partition_view %K : memref<?x64xf16> -> !tile.partition_view<64x64xf16>
  %pv = tile.partition_view %V : memref<?x64xf16> -> !tile.partition_view<64x64xf16>
  %po = tile.partition_view %O : memref<?x64xf32> -> !tile.partition_view<128x64xf32>
  %i = tile.block_id x : index
  %q = tile.load %pq[%i, %c0] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
  %n = tile.num_tiles %pk dim 0 : !tile.partition_view<64x64xf16>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %half = arith.constant dense<0.5> : tensor<128x64xf32>
  %acc = scf.for %j = %c0 to %n step %c1 iter_args(%acc_in = %zero) -> (tensor<128x64xf32>) {
    %k = tile.load %pk[%j, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %kt = tile.permute %k [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
    %s = tile.mma %q, %kt, %zero : tensor<128x64xf16>, tensor<64x64xf16> into tensor<128x64xf32>
    %p = math.exp %s : tensor<128x64xf32>
    %scaled = arith.mulf %acc_in, %half : tensor<128x64xf32>
    %p16 = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xf16>
    %v = tile.load %pv[%j, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %acc_new = tile.mma %p16, %v, %scaled : tensor<128x64xf16>, tensor<64x64xf16> into tensor<128x64xf32>
    scf.yield %acc_new : tensor<128x64xf32>
  }
  tile.store %acc, %po[%i, %c0] : tensor<128x64xf32> -> !tile.partition_view<128x64xf32>
  return
}

// -----

// A loop that does not start at 0 keeps its order (B at the first index
// minus one would be a real tile, not padding).
// CHECK-LABEL: func.func @from_one
// CHECK:         scf.for
// CHECK:           tile.mma
// CHECK:           tile.mma
// CHECK-NEXT:      scf.yield
func.func @from_one(%Q: memref<?x64xf16>, %K: memref<?x64xf16>, %V: memref<?x64xf16>, %O: memref<?x64xf32>)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pq = tile.partition_view %Q : memref<?x64xf16> -> !tile.partition_view<128x64xf16>
  %pk = tile.partition_view %K : memref<?x64xf16> -> !tile.partition_view<64x64xf16>
  %pv = tile.partition_view %V : memref<?x64xf16> -> !tile.partition_view<64x64xf16>
  %po = tile.partition_view %O : memref<?x64xf32> -> !tile.partition_view<128x64xf32>
  %q = tile.load %pq[%c0, %c0] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
  %n = tile.num_tiles %pk dim 0 : !tile.partition_view<64x64xf16>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %half = arith.constant dense<0.5> : tensor<128x64xf32>
  %acc = scf.for %j = %c1 to %n step %c1 iter_args(%acc_in = %zero) -> (tensor<128x64xf32>) {
    %k = tile.load %pk[%j, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %kt = tile.permute %k [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
    %s = tile.mma %q, %kt, %zero : tensor<128x64xf16>, tensor<64x64xf16> into tensor<128x64xf32>
    %scaled = arith.mulf %acc_in, %half : tensor<128x64xf32>
    %p16 = arith.truncf %s : tensor<128x64xf32> to tensor<128x64xf16>
    %v = tile.load %pv[%j, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %acc_new = tile.mma %p16, %v, %scaled : tensor<128x64xf16>, tensor<64x64xf16> into tensor<128x64xf32>
    scf.yield %acc_new : tensor<128x64xf32>
  }
  tile.store %acc, %po[%c0, %c0] : tensor<128x64xf32> -> !tile.partition_view<128x64xf32>
  return
}

// -----

// B from a view padded with -inf: index -1 would not load zeros.
// CHECK-LABEL: func.func @padded_b
// CHECK:         scf.for
// CHECK:           tile.mma
// CHECK:           tile.mma
// CHECK-NEXT:      scf.yield
func.func @padded_b(%Q: memref<?x64xf16>, %K: memref<?x64xf16>, %V: memref<?x64xf16>, %O: memref<?x64xf32>)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pq = tile.partition_view %Q : memref<?x64xf16> -> !tile.partition_view<128x64xf16>
  %pk = tile.partition_view %K : memref<?x64xf16> -> !tile.partition_view<64x64xf16>
  %pv = tile.partition_view %V : memref<?x64xf16> -> !tile.partition_view<64x64xf16, padding = neg_inf>
  %po = tile.partition_view %O : memref<?x64xf32> -> !tile.partition_view<128x64xf32>
  %q = tile.load %pq[%c0, %c0] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
  %n = tile.num_tiles %pk dim 0 : !tile.partition_view<64x64xf16>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %half = arith.constant dense<0.5> : tensor<128x64xf32>
  %acc = scf.for %j = %c0 to %n step %c1 iter_args(%acc_in = %zero) -> (tensor<128x64xf32>) {
    %k = tile.load %pk[%j, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %kt = tile.permute %k [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
    %s = tile.mma %q, %kt, %zero : tensor<128x64xf16>, tensor<64x64xf16> into tensor<128x64xf32>
    %scaled = arith.mulf %acc_in, %half : tensor<128x64xf32>
    %p16 = arith.truncf %s : tensor<128x64xf32> to tensor<128x64xf16>
    %v = tile.load %pv[%j, %c0] : !tile.partition_view<64x64xf16, padding = neg_inf> -> tensor<64x64xf16>
    %acc_new = tile.mma %p16, %v, %scaled : tensor<128x64xf16>, tensor<64x64xf16> into tensor<128x64xf32>
    scf.yield %acc_new : tensor<128x64xf32>
  }
  tile.store %acc, %po[%c0, %c0] : tensor<128x64xf32> -> !tile.partition_view<128x64xf32>
  return
}

// -----

// A loop that stores leaves its order (B at n - 1 would be loaded before
// stores of the loop that may change it).
// CHECK-LABEL: func.func @stores
// CHECK:         scf.for
// CHECK:           tile.mma
// CHECK:           tile.mma
// CHECK-NEXT:      scf.yield
func.func @stores(%Q: memref<?x64xf16>, %K: memref<?x64xf16>, %V: memref<?x64xf16>, %O: memref<?x64xf32>)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pq = tile.partition_view %Q : memref<?x64xf16> -> !tile.partition_view<128x64xf16>
  %pk = tile.partition_view %K : memref<?x64xf16> -> !tile.partition_view<64x64xf16>
  %pv = tile.partition_view %V : memref<?x64xf16> -> !tile.partition_view<64x64xf16>
  %po = tile.partition_view %O : memref<?x64xf32> -> !tile.partition_view<128x64xf32>
  %q = tile.load %pq[%c0, %c0] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
  %n = tile.num_tiles %pk dim 0 : !tile.partition_view<64x64xf16>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %half = arith.constant dense<0.5> : tensor<128x64xf32>
  %acc = scf.for %j = %c0 to %n step %c1 iter_args(%acc_in = %zero) -> (tensor<128x64xf32>) {
    %k = tile.load %pk[%j, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %kt = tile.permute %k [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
    %s = tile.mma %q, %kt, %zero : tensor<128x64xf16>, tensor<64x64xf16> into tensor<128x64xf32>
    tile.store %s, %po[%j, %c0] : tensor<128x64xf32> -> !tile.partition_view<128x64xf32>
    %scaled = arith.mulf %acc_in, %half : tensor<128x64xf32>
    %p16 = arith.truncf %s : tensor<128x64xf32> to tensor<128x64xf16>
    %v = tile.load %pv[%j, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %acc_new = tile.mma %p16, %v, %scaled : tensor<128x64xf16>, tensor<64x64xf16> into tensor<128x64xf32>
    scf.yield %acc_new : tensor<128x64xf32>
  }
  tile.store %acc, %po[%c0, %c0] : tensor<128x64xf32> -> !tile.partition_view<128x64xf32>
  return
}

// -----

// One mma a loop (a GEMM main loop): nothing to overlap.
// CHECK-LABEL: func.func @gemm
// CHECK:         scf.for
// CHECK:           tile.mma
// CHECK-NEXT:      scf.yield
// CHECK-NOT:     tile.mma
func.func @gemm(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x64xf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%c = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
    %d = tile.mma %a, %b, %c : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}

// -----

// B at a loop-invariant tile: at -1 it would be that tile, not padding,
// so the loop keeps its order.
// CHECK-LABEL: func.func @invariant_b
// CHECK:         scf.for
// CHECK:           tile.mma
// CHECK:           tile.mma
// CHECK-NEXT:      scf.yield
func.func @invariant_b(%Q: memref<?x64xf16>, %K: memref<?x64xf16>, %V: memref<?x64xf16>, %O: memref<?x64xf32>)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pq = tile.partition_view %Q : memref<?x64xf16> -> !tile.partition_view<128x64xf16>
  %pk = tile.partition_view %K : memref<?x64xf16> -> !tile.partition_view<64x64xf16>
  %pv = tile.partition_view %V : memref<?x64xf16> -> !tile.partition_view<64x64xf16>
  %po = tile.partition_view %O : memref<?x64xf32> -> !tile.partition_view<128x64xf32>
  %q = tile.load %pq[%c0, %c0] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
  %n = tile.num_tiles %pk dim 0 : !tile.partition_view<64x64xf16>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %half = arith.constant dense<0.5> : tensor<128x64xf32>
  %acc = scf.for %j = %c0 to %n step %c1 iter_args(%acc_in = %zero) -> (tensor<128x64xf32>) {
    %k = tile.load %pk[%j, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %kt = tile.permute %k [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
    %s = tile.mma %q, %kt, %zero : tensor<128x64xf16>, tensor<64x64xf16> into tensor<128x64xf32>
    %scaled = arith.mulf %acc_in, %half : tensor<128x64xf32>
    %p16 = arith.truncf %s : tensor<128x64xf32> to tensor<128x64xf16>
    %v = tile.load %pv[%c0, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %acc_new = tile.mma %p16, %v, %scaled : tensor<128x64xf16>, tensor<64x64xf16> into tensor<128x64xf32>
    scf.yield %acc_new : tensor<128x64xf32>
  }
  tile.store %acc, %po[%c0, %c0] : tensor<128x64xf32> -> !tile.partition_view<128x64xf32>
  return
}
