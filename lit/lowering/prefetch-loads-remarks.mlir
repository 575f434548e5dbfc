// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-prefetch-loads))' --remarks-filter=tile -verify-diagnostics -o /dev/null

// Each reason a loop's load is not issued ahead is said at the load; a
// load that is prefetched says nothing.

func.func @stores(%X: memref<?x?xf32>, %Y: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %px = tile.partition_view %X : memref<?x?xf32> -> !tile.partition_view<1x128xf32>
  %py = tile.partition_view %Y : memref<?x?xf32> -> !tile.partition_view<1x128xf32>
  %n = tile.num_tiles %px dim 0 : !tile.partition_view<1x128xf32>
  scf.for %i = %c0 to %n step %c1 {
    // expected-remark @below {{this load is not issued ahead of its iteration: the loop stores tiles}}
    %x = tile.load %px[%i, %c0] : !tile.partition_view<1x128xf32> -> tensor<1x128xf32>
    tile.store %x, %py[%i, %c0] : tensor<1x128xf32> -> !tile.partition_view<1x128xf32>
  }
  return
}

// -----

func.func @nested(%X: memref<?x?xf32>, %S: memref<?xf32>, %k: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i32
  %flag = arith.cmpi ne, %k, %zero : i32
  %c1 = arith.constant 1 : index
  %px = tile.partition_view %X : memref<?x?xf32> -> !tile.partition_view<8x128xf32>
  %ps = tile.partition_view %S : memref<?xf32> -> !tile.partition_view<128xf32>
  %n = tile.num_tiles %px dim 0 : !tile.partition_view<8x128xf32>
  %z = arith.constant dense<0.0> : tensor<8x128xf32>
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<8x128xf32>) {
    %next = scf.if %flag -> (tensor<8x128xf32>) {
      // expected-remark @below {{it is inside a region nested in the loop}}
      %x = tile.load %px[%i, %c0] : !tile.partition_view<8x128xf32> -> tensor<8x128xf32>
      %s = arith.addf %acc, %x : tensor<8x128xf32>
      scf.yield %s : tensor<8x128xf32>
    } else {
      scf.yield %acc : tensor<8x128xf32>
    }
    scf.yield %next : tensor<8x128xf32>
  }
  %r = tile.reduce add %sum dim 0 : tensor<8x128xf32> -> tensor<128xf32>
  tile.store %r, %ps[%c0] : tensor<128xf32> -> !tile.partition_view<128xf32>
  return
}

// -----

func.func @coordinates(%X: memref<?x?xf32>, %S: memref<?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %px = tile.partition_view %X : memref<?x?xf32> -> !tile.partition_view<8x128xf32>
  %ps = tile.partition_view %S : memref<?xf32> -> !tile.partition_view<128xf32>
  %n = tile.num_tiles %px dim 0 : !tile.partition_view<8x128xf32>
  %z = arith.constant dense<0.0> : tensor<8x128xf32>
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<8x128xf32>) {
    %m = tile.num_tiles %px dim 1 : !tile.partition_view<8x128xf32>
    %j = arith.remui %i, %m : index
    // expected-remark @below {{its coordinates are not computable ahead}}
    %x = tile.load %px[%i, %j] : !tile.partition_view<8x128xf32> -> tensor<8x128xf32>
    %s = arith.addf %acc, %x : tensor<8x128xf32>
    scf.yield %s : tensor<8x128xf32>
  }
  %r = tile.reduce add %sum dim 0 : tensor<8x128xf32> -> tensor<128xf32>
  tile.store %r, %ps[%c0] : tensor<128xf32> -> !tile.partition_view<128xf32>
  return
}

// -----

func.func @large(%X: memref<?x?xf32>, %S: memref<?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %px = tile.partition_view %X : memref<?x?xf32> -> !tile.partition_view<64x256xf32>
  %ps = tile.partition_view %S : memref<?xf32> -> !tile.partition_view<256xf32>
  %n = tile.num_tiles %px dim 0 : !tile.partition_view<64x256xf32>
  %z = arith.constant dense<0.0> : tensor<64x256xf32>
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x256xf32>) {
    // expected-remark @below {{its tile (65536 bytes) is over 32768: two copies of it would not fit in registers}}
    %x = tile.load %px[%i, %c0] : !tile.partition_view<64x256xf32> -> tensor<64x256xf32>
    %s = arith.addf %acc, %x : tensor<64x256xf32>
    scf.yield %s : tensor<64x256xf32>
  }
  %r = tile.reduce add %sum dim 0 : tensor<64x256xf32> -> tensor<256xf32>
  tile.store %r, %ps[%c0] : tensor<256xf32> -> !tile.partition_view<256xf32>
  return
}

// -----

func.func @prefetched(%X: memref<?x?xf32>, %S: memref<?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %px = tile.partition_view %X : memref<?x?xf32> -> !tile.partition_view<8x128xf32>
  %ps = tile.partition_view %S : memref<?xf32> -> !tile.partition_view<128xf32>
  %n = tile.num_tiles %px dim 0 : !tile.partition_view<8x128xf32>
  %z = arith.constant dense<0.0> : tensor<8x128xf32>
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<8x128xf32>) {
    %x = tile.load %px[%i, %c0] : !tile.partition_view<8x128xf32> -> tensor<8x128xf32>
    %s = arith.addf %acc, %x : tensor<8x128xf32>
    scf.yield %s : tensor<8x128xf32>
  }
  %r = tile.reduce add %sum dim 0 : tensor<8x128xf32> -> tensor<128xf32>
  tile.store %r, %ps[%c0] : tensor<128xf32> -> !tile.partition_view<128xf32>
  return
}

// -----

// An mma loop's rings cut short of what num_stages asks for say so at the
// first operand load: here three resident blocks leave each 68608 bytes.
func.func @ring_shortened(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel, tile.hints = {num_stages = 8, occupancy = 3}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x64xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%in = %z) -> (tensor<64x64xf32>) {
    // expected-remark @+1 {{this loop's mma operand tiles go 1 iteration(s) ahead, not 7: 3 ring slots of 16384 bytes beside the kernel's other 16384 bytes of shared memory is what fits in 68608 (a block's share under the occupancy hint)}}
    %a = tile.load %pa[%c0, %k] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
    %d = tile.mma %a, %b, %in : tensor<64x64xf16>, tensor<64x64xf16> into tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %acc, %pc[%c0, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}
