// What a kernel's body may hold, checked by the tile.kernel attribute's
// verifier with the error at the offending op: structured control flow
// only (one block per region, no branches), no calls, and every tensor the
// kernel computes within the tile size limits. Without these checks the CPU
// and GPU pipelines gave different verdicts on the same verified program.
// RUN: tile-opt %s -split-input-file -verify-diagnostics

func.func @cond_br(%X: memref<?xf32>, %n: index) attributes {tile.kernel} {
  %px = tile.partition_view %X : memref<?xf32> -> !tile.partition_view<16xf32>
  %r = tile.block_id x : index
  %p = arith.cmpi ult, %r, %n : index
  // expected-error @+1 {{'cf.cond_br' op branches to another block in kernel @cond_br; control flow in a kernel is structured (scf.for, scf.if)}}
  cf.cond_br %p, ^bb1, ^bb2
^bb1:
  %t = tile.iota : tensor<16xi32>
  %f = arith.sitofp %t : tensor<16xi32> to tensor<16xf32>
  tile.store %f, %px[%r] : tensor<16xf32> -> !tile.partition_view<16xf32>
  cf.br ^bb2
^bb2:
  return
}

// -----

func.func @br(%X: memref<?xf32>) attributes {tile.kernel} {
  // expected-error @+1 {{'cf.br' op branches to another block in kernel @br; control flow in a kernel is structured (scf.for, scf.if)}}
  cf.br ^bb1
^bb1:
  return
}

// -----

func.func @switch(%X: memref<?xf32>, %n: i32) attributes {tile.kernel} {
  // expected-error @+1 {{'cf.switch' op branches to another block in kernel @switch; control flow in a kernel is structured (scf.for, scf.if)}}
  cf.switch %n : i32, [
    default: ^bb1,
    0: ^bb2
  ]
^bb1:
  return
^bb2:
  return
}

// -----

// Branches inside a structured op are unstructured too.
func.func @branch_in_region(%X: memref<?xf32>) attributes {tile.kernel} {
  %r = scf.execute_region -> index {
    %b = tile.block_id x : index
    // expected-error @+1 {{'cf.br' op branches to another block in kernel @branch_in_region; control flow in a kernel is structured (scf.for, scf.if)}}
    cf.br ^bb1(%b : index)
  ^bb1(%v: index):
    scf.yield %v : index
  }
  return
}

// -----

// A block that nothing branches to.
func.func @second_block(%X: memref<?xf32>) attributes {tile.kernel} {
  return
^bb1:
  // expected-error @+1 {{kernel @second_block has a region of 2 blocks; control flow in a kernel is structured (scf.for, scf.if), one block per region}}
  %px = tile.partition_view %X : memref<?xf32> -> !tile.partition_view<16xf32>
  return
}

// -----

// Structured control flow, and an scf.execute_region of one block, are fine.
func.func @structured(%X: memref<?xf32>, %n: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %px = tile.partition_view %X : memref<?xf32> -> !tile.partition_view<16xf32>
  %r = scf.execute_region -> index {
    %b = tile.block_id x : index
    scf.yield %b : index
  }
  %p = arith.cmpi ult, %r, %n : index
  scf.if %p {
    %zero = arith.constant dense<0.0> : tensor<16xf32>
    %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<16xf32>) {
      %t = tile.load %px[%i] : !tile.partition_view<16xf32> -> tensor<16xf32>
      %a = arith.addf %acc, %t : tensor<16xf32>
      scf.yield %a : tensor<16xf32>
    }
    tile.store %s, %px[%r] : tensor<16xf32> -> !tile.partition_view<16xf32>
  }
  return
}

// -----

func.func @helper(%x: index) -> index {
  return %x : index
}

func.func @call(%X: memref<?xf32>) attributes {tile.kernel} {
  %b = tile.block_id x : index
  // expected-error @+1 {{'func.call' op calls @helper from kernel @call; kernels call nothing}}
  %r = func.call @helper(%b) : (index) -> index
  return
}

// -----

func.func private @external(index)

func.func @call_external(%X: memref<?xf32>) attributes {tile.kernel} {
  %b = tile.block_id x : index
  // expected-error @+1 {{'func.call' op calls @external from kernel @call_external; kernels call nothing}}
  func.call @external(%b) : (index) -> ()
  return
}

// -----

func.func @other(%X: memref<?xf32>) attributes {tile.kernel} {
  return
}

func.func @call_kernel(%X: memref<?xf32>) attributes {tile.kernel} {
  // expected-error @+1 {{'func.call' op calls @other from kernel @call_kernel; kernels call nothing}}
  func.call @other(%X) : (memref<?xf32>) -> ()
  return
}

// -----

func.func @helper(%x: index) -> index {
  return %x : index
}

func.func @call_indirect(%X: memref<?xf32>) attributes {tile.kernel} {
  %f = func.constant @helper : (index) -> index
  %b = tile.block_id x : index
  // expected-error @+1 {{'func.call_indirect' op calls a function from kernel @call_indirect; kernels call nothing}}
  %r = func.call_indirect %f(%b) : (index) -> index
  return
}

// -----

// Functions beside kernels are fine; only kernels call nothing.
func.func @helper(%x: index) -> index {
  %y = func.call @twice(%x) : (index) -> index
  return %y : index
}
func.func @twice(%x: index) -> index {
  %y = arith.addi %x, %x : index
  return %y : index
}
func.func @kernel(%X: memref<?xf32>) attributes {tile.kernel} {
  return
}

// -----

// expected-error @+1 {{kernel @declared has no body; kernels are defined, not declared}}
func.func private @declared(%X: memref<?xf32>) attributes {tile.kernel}

// -----

// Every tensor a kernel computes is a tile, held in registers or shared
// memory, whether a tile op makes it or not: 512 KiB here.
func.func @constant_too_large(%X: memref<?x?xf32>) attributes {tile.kernel} {
  // expected-error @+1 {{'arith.constant' op result takes 524288 bytes; a tile takes at most 232448 (227 KiB, the shared memory of one Hopper block)}}
  %z = arith.constant dense<1.0> : tensor<256x512xf32>
  %s = arith.addf %z, %z : tensor<256x512xf32>
  return
}

// -----

func.func @constant_too_many(%X: memref<?x?xf32>) attributes {tile.kernel} {
  // expected-error @+1 {{'arith.constant' op result has more than 2^20 (1048576) elements}}
  %z = arith.constant dense<true> : tensor<4294967296x4294967296xi1>
  return
}

// -----

// A tile op in a kernel: the same error as in any function.
func.func @load_too_large(%X: memref<?x?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{partition view tile takes 262144 bytes; a tile takes at most 232448 (227 KiB, the shared memory of one Hopper block)}}
  %px = tile.partition_view %X : memref<?x?xf32> -> !tile.partition_view<256x256xf32>
  return
}
