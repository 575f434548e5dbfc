// RUN: tile-opt %s -split-input-file --convert-tile-to-nvgpu --remarks-filter=tile -verify-diagnostics -o /dev/null

// Each reason a tile.mma gets no wgmma main loop is said at the mma.

func.func @tf32(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf32> -> !tile.partition_view<128x64xf32>
  %pb = tile.partition_view %B : memref<?x?xf32> -> !tile.partition_view<64x128xf32>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x64xf32>
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%c = %z) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<128x64xf32> -> tensor<128x64xf32>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<64x128xf32> -> tensor<64x128xf32>
    // expected-remark @below {{this tile.mma gets no wgmma main loop: its types (f32 x f32 -> f32) are not f16 or bf16 operands}}
    %d = tile.mma %a, %b, %c : tensor<128x64xf32>, tensor<64x128xf32> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}

// -----

// K tiles of 32: the variant takes two at a time (tile-widen-k), which the
// matcher maps.
func.func @small_k(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x32xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<32x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x32xf16>
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  // expected-remark @below {{K steps of 32 widened to 64 in the wgmma variant: 2 of the program's iterations in one}}
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%c = %z) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<128x32xf16> -> tensor<128x32xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<32x128xf16> -> tensor<32x128xf16>
    %d = tile.mma %a, %b, %c : tensor<128x32xf16>, tensor<32x128xf16> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}

// -----

// Not widened (A is padded with NaN past K), so not mapped.
func.func @small_k_nan_padding(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x32xf16, padding = nan>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<32x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x32xf16, padding = nan>
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%c = %z) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<128x32xf16, padding = nan> -> tensor<128x32xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<32x128xf16> -> tensor<32x128xf16>
    // expected-remark @below {{its K tile is 32; the matcher maps only 64}}
    %d = tile.mma %a, %b, %c : tensor<128x32xf16>, tensor<32x128xf16> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}

// -----

func.func @permuted(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x64xf16>
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%c = %z) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %bt = tile.load %pb[%c0, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    %b = tile.permute %bt [1, 0] : tensor<128x64xf16> -> tensor<64x128xf16>
    // expected-remark @below {{operand B is not a tile.load in the loop's body but tile.permute}}
    %d = tile.mma %a, %b, %c : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}

// -----

func.func @nested(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<128x64xf16>
  %nt = tile.num_tiles %pc dim 0 : !tile.partition_view<128x128xf32>
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  scf.for %t = %c0 to %nt step %c1 {
    %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%c = %z) -> (tensor<128x128xf32>) {
      %a = tile.load %pa[%t, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
      %b = tile.load %pb[%k, %c0] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
      // expected-remark @below {{its loop is nested in another loop}}
      %d = tile.mma %a, %b, %c : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
      scf.yield %d : tensor<128x128xf32>
    }
    tile.store %acc, %pc[%t, %c0] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  }
  return
}

// -----

func.func @rescaled(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x64xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %half = arith.constant dense<0.5> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%c = %z) -> (tensor<64x64xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %scaled = arith.mulf %c, %half : tensor<64x64xf32>
    // expected-remark @below {{its accumulator is computed in the loop by arith.mulf}}
    %d = tile.mma %a, %b, %scaled : tensor<64x64xf16>, tensor<64x64xf16> into tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

func.func @fresh(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x64xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  scf.for %k = %c0 to %nk step %c1 {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    // expected-remark @below {{its accumulator is not carried by the loop (arith.constant from outside it}}
    %d = tile.mma %a, %b, %z : tensor<64x64xf16>, tensor<64x64xf16> into tensor<64x64xf32>
    tile.store %d, %pc[%k, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  }
  return
}

// -----

func.func @padding(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x64xf16, padding = nan>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %nk = tile.num_tiles %pb dim 0 : !tile.partition_view<64x64xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%c = %z) -> (tensor<64x64xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<64x64xf16, padding = nan> -> tensor<64x64xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    // expected-remark @below {{operand A is loaded with a padding other than zero}}
    %d = tile.mma %a, %b, %c : tensor<64x64xf16>, tensor<64x64xf16> into tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

func.func @shape(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<32x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<32x64xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<32x64xf16>
  %z = arith.constant dense<0.0> : tensor<32x64xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%c = %z) -> (tensor<32x64xf32>) {
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<32x64xf16> -> tensor<32x64xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    // expected-remark @below {{its 32x64 tile is not 64, 128 or 256 rows}}
    %d = tile.mma %a, %b, %c : tensor<32x64xf16>, tensor<64x64xf16> into tensor<32x64xf32>
    scf.yield %d : tensor<32x64xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<32x64xf32> -> !tile.partition_view<32x64xf32>
  return
}
