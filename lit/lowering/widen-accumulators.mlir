// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-widen-accumulators))' | FileCheck %s
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-widen-accumulators))' --remarks-filter=tile -verify-diagnostics -o /dev/null

// An f16 GEMM's K loop: the accumulator is carried in f32 and rounded
// once after the loop; the store reads the rounded tile.
// CHECK-LABEL: func.func @k_loop
// CHECK:         %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xf16>
// CHECK:         %[[INIT:.*]] = arith.extf %[[ZERO]] : tensor<64x64xf16> to tensor<64x64xf32>
// CHECK:         %[[ACC:.*]] = scf.for %{{.*}} iter_args(%[[C:.*]] = %[[INIT]]) -> (tensor<64x64xf32>) {
// CHECK-NOT:       arith.extf
// CHECK-NOT:       arith.truncf
// CHECK:           %[[D:.*]] = tile.mma %{{.*}}, %{{.*}}, %[[C]] : tensor<64x32xf16>, tensor<32x64xf16> into tensor<64x64xf32>
// CHECK-NEXT:      scf.yield %[[D]] : tensor<64x64xf32>
// CHECK:         %[[OUT:.*]] = arith.truncf %[[ACC]] : tensor<64x64xf32> to tensor<64x64xf16>
// CHECK:         tile.store %[[OUT]]
func.func @k_loop(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<32x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x32xf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf16>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%c = %zero) -> (tensor<64x64xf16>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<32x64xf16> -> tensor<32x64xf16>
    // expected-remark @+1 {{this f16 accumulator is carried in f32 across the loop and rounded once after it}}
    %d = tile.mma %a, %b, %c : tensor<64x32xf16>, tensor<32x64xf16> into tensor<64x64xf16>
    scf.yield %d : tensor<64x64xf16>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<64x64xf16> -> !tile.partition_view<64x64xf16>
  return
}

// -----

// One mma, no loop: it computes in f32 and rounds its result, one rounding
// as written; nothing is said.
// CHECK-LABEL: func.func @single
// CHECK:         %[[W:.*]] = arith.extf %{{.*}} : tensor<64x64xf16> to tensor<64x64xf32>
// CHECK-NEXT:    %[[D:.*]] = tile.mma %{{.*}}, %{{.*}}, %[[W]] : tensor<64x32xf16>, tensor<32x64xf16> into tensor<64x64xf32>
// CHECK-NEXT:    %[[R:.*]] = arith.truncf %[[D]] : tensor<64x64xf32> to tensor<64x64xf16>
// CHECK-NEXT:    tile.store %[[R]]
func.func @single(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<32x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
  %b = tile.load %pb[%c0, %c0] : !tile.partition_view<32x64xf16> -> tensor<32x64xf16>
  %c = tile.load %pc[%c0, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
  %d = tile.mma %a, %b, %c : tensor<64x32xf16>, tensor<32x64xf16> into tensor<64x64xf16>
  tile.store %d, %pc[%c0, %c0] : tensor<64x64xf16> -> !tile.partition_view<64x64xf16>
  return
}

// -----

// The loop's value is also read as it is (an f16 copy stored each
// iteration): that read takes the carried f32 tile rounded, the value it
// had; the mma takes it unrounded. A persistent loop around the K loop
// carries nothing, so only the K loop widens.
// CHECK-LABEL: func.func @also_read
// CHECK:         scf.for %{{.*}} {
// CHECK:           %[[INIT:.*]] = arith.extf %{{.*}} : tensor<64x64xf16> to tensor<64x64xf32>
// CHECK:           %[[ACC:.*]] = scf.for %{{.*}} iter_args(%[[C:.*]] = %[[INIT]]) -> (tensor<64x64xf32>) {
// CHECK-NEXT:        %[[R:.*]] = arith.truncf %[[C]] : tensor<64x64xf32> to tensor<64x64xf16>
// CHECK:             tile.store %[[R]]
// CHECK:             %[[D:.*]] = tile.mma %{{.*}}, %{{.*}}, %[[C]] : {{.*}} into tensor<64x64xf32>
// CHECK-NEXT:        scf.yield %[[D]] : tensor<64x64xf32>
// CHECK:           arith.truncf %[[ACC]] : tensor<64x64xf32> to tensor<64x64xf16>
func.func @also_read(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>, %n: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<32x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x32xf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf16>
  scf.for %t = %c0 to %n step %c1 {
    %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%c = %zero) -> (tensor<64x64xf16>) {
      tile.store %c, %pc[%t, %k] : tensor<64x64xf16> -> !tile.partition_view<64x64xf16>
      %a = tile.load %pa[%t, %k] : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
      %b = tile.load %pb[%k, %c0] : !tile.partition_view<32x64xf16> -> tensor<32x64xf16>
      // expected-remark @+1 {{carried in f32}}
      %d = tile.mma %a, %b, %c : tensor<64x32xf16>, tensor<32x64xf16> into tensor<64x64xf16>
      scf.yield %d : tensor<64x64xf16>
    }
    tile.store %acc, %pc[%t, %c0] : tensor<64x64xf16> -> !tile.partition_view<64x64xf16>
  }
  return
}

// -----

// An f32 accumulator, and a loop whose f16 value is not rounded from f32
// each iteration: nothing changes.
// CHECK-LABEL: func.func @left_alone
// CHECK:         scf.for %{{.*}} -> (tensor<64x64xf32>, tensor<64x64xf16>)
// CHECK-NOT:     arith.extf
// CHECK:         tile.mma {{.*}} into tensor<64x64xf32>
// CHECK-NOT:     arith.truncf
// CHECK:         arith.addf {{.*}} : tensor<64x64xf16>
func.func @left_alone(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<32x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x32xf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %h = arith.constant dense<1.0> : tensor<64x64xf16>
  %acc:2 = scf.for %k = %c0 to %nk step %c1 iter_args(%c = %zero, %s = %h) -> (tensor<64x64xf32>, tensor<64x64xf16>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<32x64xf16> -> tensor<32x64xf16>
    %d = tile.mma %a, %b, %c : tensor<64x32xf16>, tensor<32x64xf16> into tensor<64x64xf32>
    %s2 = arith.addf %s, %s : tensor<64x64xf16>
    scf.yield %d, %s2 : tensor<64x64xf32>, tensor<64x64xf16>
  }
  tile.store %acc#0, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// The mma first in the body (its widening becomes the body's first op),
// and the accumulator also carried on unchanged as a second value: that
// one reads the f32 tile rounded, made at the body's start.
// CHECK-LABEL: func.func @first_in_body
// CHECK:         scf.for %{{.*}} iter_args(%[[C:.*]] = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<64x64xf32>, tensor<64x64xf16>) {
// CHECK-NEXT:      %[[R:.*]] = arith.truncf %[[C]] : tensor<64x64xf32> to tensor<64x64xf16>
// CHECK-NEXT:      %[[D:.*]] = tile.mma %{{.*}}, %{{.*}}, %[[C]] : {{.*}} into tensor<64x64xf32>
// CHECK-NEXT:      scf.yield %[[D]], %[[R]] : tensor<64x64xf32>, tensor<64x64xf16>
func.func @first_in_body(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<32x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x32xf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf16>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
  %b = tile.load %pb[%c0, %c0] : !tile.partition_view<32x64xf16> -> tensor<32x64xf16>
  %o:2 = scf.for %k = %c0 to %nk step %c1 iter_args(%c = %zero, %e = %zero) -> (tensor<64x64xf16>, tensor<64x64xf16>) {
    // expected-remark @+1 {{carried in f32}}
    %d = tile.mma %a, %b, %c : tensor<64x32xf16>, tensor<32x64xf16> into tensor<64x64xf16>
    scf.yield %d, %c : tensor<64x64xf16>, tensor<64x64xf16>
  }
  tile.store %o#1, %pc[%c0, %c0] : tensor<64x64xf16> -> !tile.partition_view<64x64xf16>
  return
}

// -----

// The yield rounds a widening of the argument itself (the rounding's input
// is the widening the pass erases): the loop carries the argument as it is.
// CHECK-LABEL: func.func @yield_of_widening
// CHECK:         scf.for %{{.*}} iter_args(%[[C:.*]] = %{{.*}}) -> (tensor<64x64xf32>) {
// CHECK:           tile.mma %{{.*}}, %{{.*}}, %[[C]] : {{.*}} into tensor<64x64xf32>
// CHECK-NOT:       arith.extf
// CHECK:           scf.yield %[[C]] : tensor<64x64xf32>
func.func @yield_of_widening(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<32x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x32xf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf16>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%c = %zero) -> (tensor<64x64xf16>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<32x64xf16> -> tensor<32x64xf16>
    // expected-remark @+1 {{carried in f32}}
    %d = tile.mma %a, %b, %c : tensor<64x32xf16>, tensor<32x64xf16> into tensor<64x64xf16>
    tile.store %d, %pc[%k, %c0] : tensor<64x64xf16> -> !tile.partition_view<64x64xf16>
    %w = arith.extf %c : tensor<64x64xf16> to tensor<64x64xf32>
    %t = arith.truncf %w : tensor<64x64xf32> to tensor<64x64xf16>
    scf.yield %t : tensor<64x64xf16>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<64x64xf16> -> !tile.partition_view<64x64xf16>
  return
}

// -----

// An mma that wgmma cannot take from registers (N = 1024) keeps its f16
// accumulator (on the shared-memory path an f32 one would only double the
// memory), and so does an element-wise loop that rounds from f32 each
// iteration: it is no accumulator.
// A 64x64 mma beside them is widened.
// CHECK-LABEL: func.func @not_register_path
// CHECK-NOT:     arith.extf %{{.*}} : tensor<64x1024xf16>
// CHECK:         tile.mma {{.*}} into tensor<64x1024xf16>
// CHECK:         arith.extf %{{.*}} : tensor<64x64xf16> to tensor<64x64xf32>
// CHECK-NEXT:    tile.mma {{.*}} into tensor<64x64xf32>
// CHECK:         scf.for {{.*}} -> (tensor<64x64xf16>)
// CHECK:           arith.extf %{{.*}} : tensor<64x64xf16> to tensor<64x64xf32>
func.func @not_register_path(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>, %n: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x16xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<16x1024xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<64x1024xf16>
  %ps = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %a = tile.load %pa[%c0, %c0] : !tile.partition_view<64x16xf16> -> tensor<64x16xf16>
  %b = tile.load %pb[%c0, %c0] : !tile.partition_view<16x1024xf16> -> tensor<16x1024xf16>
  %c = tile.load %pc[%c0, %c0] : !tile.partition_view<64x1024xf16> -> tensor<64x1024xf16>
  %d = tile.mma %a, %b, %c : tensor<64x16xf16>, tensor<16x1024xf16> into tensor<64x1024xf16>
  tile.store %d, %pc[%c0, %c0] : tensor<64x1024xf16> -> !tile.partition_view<64x1024xf16>
  %x = tile.load %ps[%c0, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
  %pb64 = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<16x64xf16>
  %b64 = tile.load %pb64[%c0, %c0] : !tile.partition_view<16x64xf16> -> tensor<16x64xf16>
  %e = tile.mma %a, %b64, %x : tensor<64x16xf16>, tensor<16x64xf16> into tensor<64x64xf16>
  tile.store %e, %ps[%c0, %c0] : tensor<64x64xf16> -> !tile.partition_view<64x64xf16>
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<64x64xf16>) {
    %w = arith.extf %acc : tensor<64x64xf16> to tensor<64x64xf32>
    %sum = arith.addf %w, %w : tensor<64x64xf32>
    %t = arith.truncf %sum : tensor<64x64xf32> to tensor<64x64xf16>
    scf.yield %t : tensor<64x64xf16>
  }
  tile.store %s, %ps[%c0, %c0] : tensor<64x64xf16> -> !tile.partition_view<64x64xf16>
  return
}

// -----

// A 256x256 accumulator: in f32 it would take 256 KiB, more than a tile
// may, so it stays f16 (and says so) rather than leaving IR that fails the
// verifier after the pass (the fuzzer's finding).
// CHECK-LABEL: func.func @too_wide
// CHECK-NOT:     arith.extf
// CHECK:         tile.mma {{.*}} into tensor<256x256xf16>
func.func @too_wide(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<256x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x256xf16>
  %pc = tile.partition_view %C : memref<?x?xf16> -> !tile.partition_view<256x256xf16>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<256x64xf16>
  %zero = arith.constant dense<0.0> : tensor<256x256xf16>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc_in = %zero) -> (tensor<256x256xf16>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<256x64xf16> -> tensor<256x64xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<64x256xf16> -> tensor<64x256xf16>
    // expected-remark @+1 {{this f16 accumulator is summed in f16: in f32 it would take 262144 bytes, more than a tile takes (232448)}}
    %d = tile.mma %a, %b, %acc_in : tensor<256x64xf16>, tensor<64x256xf16> into tensor<256x256xf16>
    scf.yield %d : tensor<256x256xf16>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<256x256xf16> -> !tile.partition_view<256x256xf16>
  return
}
