// Loops that carry tiles in every shape the language allows, each on the
// column sums of X's row tiles: block j takes 128 columns, iteration i the
// sum p_i of rows [64 i, 64 i + 64) (rows past the end load as zero), and
// two carried tiles a, b (zero at first, but b = 1 where noted) end in A
// and B. The recurrences, which tests/src/reference.rs computes in plain
// Rust:
//
//   @commuted_add   a = p + a                      b = 0 (not carried)
//   @subtract       a = p - a                      b = 0 (not carried)
//   @fresh          a = p (a fresh tile)           b = b + a
//   @swap           a = b                          b = a + p
//   @pure_swap      a = b                          b = a      (b starts at 1)
//   @twice          a = b = a + b + p, one value yielded twice (b starts at
//                   1: equal initial values would let canonicalization
//                   merge the two)
//   @if_choice      i even: a = a + p, b = b       i odd: a = b, b = a - p
//   @select_choice  a = max(a, p) per element      b = i even ? b + p : a
//   @nested         per pair of row tiles, s = p_2k + p_2k+1 (an inner loop
//                   with a commuted add): a = b, b = s - b
//
// Every one of them failed to bufferize ("Yield operand #0 is not
// equivalent to the corresponding iter bbArg") before tile-carry-in-place.

func.func @commuted_add(%X: memref<?x?xf32>, %A: memref<?xf32>, %B: memref<?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %px = tile.partition_view %X : memref<?x?xf32> -> !tile.partition_view<64x128xf32>
  %pa = tile.partition_view %A : memref<?xf32> -> !tile.partition_view<128xf32>
  %pb = tile.partition_view %B : memref<?xf32> -> !tile.partition_view<128xf32>
  %j = tile.block_id x : index
  %rows = tile.num_tiles %px dim 0 : !tile.partition_view<64x128xf32>
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  %a = scf.for %i = %c0 to %rows step %c1 iter_args(%acc = %zero) -> (tensor<128xf32>) {
    %x = tile.load %px[%i, %j] : !tile.partition_view<64x128xf32> -> tensor<64x128xf32>
    %p = tile.reduce add %x dim 0 : tensor<64x128xf32> -> tensor<128xf32>
    %next = arith.addf %p, %acc : tensor<128xf32>
    scf.yield %next : tensor<128xf32>
  }
  tile.store %a, %pa[%j] : tensor<128xf32> -> !tile.partition_view<128xf32>
  tile.store %zero, %pb[%j] : tensor<128xf32> -> !tile.partition_view<128xf32>
  return
}

func.func @subtract(%X: memref<?x?xf32>, %A: memref<?xf32>, %B: memref<?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %px = tile.partition_view %X : memref<?x?xf32> -> !tile.partition_view<64x128xf32>
  %pa = tile.partition_view %A : memref<?xf32> -> !tile.partition_view<128xf32>
  %pb = tile.partition_view %B : memref<?xf32> -> !tile.partition_view<128xf32>
  %j = tile.block_id x : index
  %rows = tile.num_tiles %px dim 0 : !tile.partition_view<64x128xf32>
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  %a = scf.for %i = %c0 to %rows step %c1 iter_args(%acc = %zero) -> (tensor<128xf32>) {
    %x = tile.load %px[%i, %j] : !tile.partition_view<64x128xf32> -> tensor<64x128xf32>
    %p = tile.reduce add %x dim 0 : tensor<64x128xf32> -> tensor<128xf32>
    %next = arith.subf %p, %acc : tensor<128xf32>
    scf.yield %next : tensor<128xf32>
  }
  tile.store %a, %pa[%j] : tensor<128xf32> -> !tile.partition_view<128xf32>
  tile.store %zero, %pb[%j] : tensor<128xf32> -> !tile.partition_view<128xf32>
  return
}

func.func @fresh(%X: memref<?x?xf32>, %A: memref<?xf32>, %B: memref<?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %px = tile.partition_view %X : memref<?x?xf32> -> !tile.partition_view<64x128xf32>
  %pa = tile.partition_view %A : memref<?xf32> -> !tile.partition_view<128xf32>
  %pb = tile.partition_view %B : memref<?xf32> -> !tile.partition_view<128xf32>
  %j = tile.block_id x : index
  %rows = tile.num_tiles %px dim 0 : !tile.partition_view<64x128xf32>
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  %r:2 = scf.for %i = %c0 to %rows step %c1 iter_args(%a = %zero, %b = %zero) -> (tensor<128xf32>, tensor<128xf32>) {
    %x = tile.load %px[%i, %j] : !tile.partition_view<64x128xf32> -> tensor<64x128xf32>
    %p = tile.reduce add %x dim 0 : tensor<64x128xf32> -> tensor<128xf32>
    %b_next = arith.addf %b, %a : tensor<128xf32>
    scf.yield %p, %b_next : tensor<128xf32>, tensor<128xf32>
  }
  tile.store %r#0, %pa[%j] : tensor<128xf32> -> !tile.partition_view<128xf32>
  tile.store %r#1, %pb[%j] : tensor<128xf32> -> !tile.partition_view<128xf32>
  return
}

func.func @swap(%X: memref<?x?xf32>, %A: memref<?xf32>, %B: memref<?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %px = tile.partition_view %X : memref<?x?xf32> -> !tile.partition_view<64x128xf32>
  %pa = tile.partition_view %A : memref<?xf32> -> !tile.partition_view<128xf32>
  %pb = tile.partition_view %B : memref<?xf32> -> !tile.partition_view<128xf32>
  %j = tile.block_id x : index
  %rows = tile.num_tiles %px dim 0 : !tile.partition_view<64x128xf32>
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  %r:2 = scf.for %i = %c0 to %rows step %c1 iter_args(%a = %zero, %b = %zero) -> (tensor<128xf32>, tensor<128xf32>) {
    %x = tile.load %px[%i, %j] : !tile.partition_view<64x128xf32> -> tensor<64x128xf32>
    %p = tile.reduce add %x dim 0 : tensor<64x128xf32> -> tensor<128xf32>
    %sum = arith.addf %a, %p : tensor<128xf32>
    scf.yield %b, %sum : tensor<128xf32>, tensor<128xf32>
  }
  tile.store %r#0, %pa[%j] : tensor<128xf32> -> !tile.partition_view<128xf32>
  tile.store %r#1, %pb[%j] : tensor<128xf32> -> !tile.partition_view<128xf32>
  return
}

func.func @pure_swap(%X: memref<?x?xf32>, %A: memref<?xf32>, %B: memref<?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %px = tile.partition_view %X : memref<?x?xf32> -> !tile.partition_view<64x128xf32>
  %pa = tile.partition_view %A : memref<?xf32> -> !tile.partition_view<128xf32>
  %pb = tile.partition_view %B : memref<?xf32> -> !tile.partition_view<128xf32>
  %j = tile.block_id x : index
  %rows = tile.num_tiles %px dim 0 : !tile.partition_view<64x128xf32>
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  %one = arith.constant dense<1.0> : tensor<128xf32>
  %r:2 = scf.for %i = %c0 to %rows step %c1 iter_args(%a = %zero, %b = %one) -> (tensor<128xf32>, tensor<128xf32>) {
    scf.yield %b, %a : tensor<128xf32>, tensor<128xf32>
  }
  tile.store %r#0, %pa[%j] : tensor<128xf32> -> !tile.partition_view<128xf32>
  tile.store %r#1, %pb[%j] : tensor<128xf32> -> !tile.partition_view<128xf32>
  return
}

func.func @twice(%X: memref<?x?xf32>, %A: memref<?xf32>, %B: memref<?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %px = tile.partition_view %X : memref<?x?xf32> -> !tile.partition_view<64x128xf32>
  %pa = tile.partition_view %A : memref<?xf32> -> !tile.partition_view<128xf32>
  %pb = tile.partition_view %B : memref<?xf32> -> !tile.partition_view<128xf32>
  %j = tile.block_id x : index
  %rows = tile.num_tiles %px dim 0 : !tile.partition_view<64x128xf32>
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  %one = arith.constant dense<1.0> : tensor<128xf32>
  %r:2 = scf.for %i = %c0 to %rows step %c1 iter_args(%a = %zero, %b = %one) -> (tensor<128xf32>, tensor<128xf32>) {
    %x = tile.load %px[%i, %j] : !tile.partition_view<64x128xf32> -> tensor<64x128xf32>
    %p = tile.reduce add %x dim 0 : tensor<64x128xf32> -> tensor<128xf32>
    %ab = arith.addf %a, %b : tensor<128xf32>
    %next = arith.addf %ab, %p : tensor<128xf32>
    scf.yield %next, %next : tensor<128xf32>, tensor<128xf32>
  }
  tile.store %r#0, %pa[%j] : tensor<128xf32> -> !tile.partition_view<128xf32>
  tile.store %r#1, %pb[%j] : tensor<128xf32> -> !tile.partition_view<128xf32>
  return
}

func.func @if_choice(%X: memref<?x?xf32>, %A: memref<?xf32>, %B: memref<?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %px = tile.partition_view %X : memref<?x?xf32> -> !tile.partition_view<64x128xf32>
  %pa = tile.partition_view %A : memref<?xf32> -> !tile.partition_view<128xf32>
  %pb = tile.partition_view %B : memref<?xf32> -> !tile.partition_view<128xf32>
  %j = tile.block_id x : index
  %rows = tile.num_tiles %px dim 0 : !tile.partition_view<64x128xf32>
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  %r:2 = scf.for %i = %c0 to %rows step %c1 iter_args(%a = %zero, %b = %zero) -> (tensor<128xf32>, tensor<128xf32>) {
    %x = tile.load %px[%i, %j] : !tile.partition_view<64x128xf32> -> tensor<64x128xf32>
    %p = tile.reduce add %x dim 0 : tensor<64x128xf32> -> tensor<128xf32>
    %parity = arith.remui %i, %c2 : index
    %even = arith.cmpi eq, %parity, %c0 : index
    %next:2 = scf.if %even -> (tensor<128xf32>, tensor<128xf32>) {
      %sum = arith.addf %a, %p : tensor<128xf32>
      scf.yield %sum, %b : tensor<128xf32>, tensor<128xf32>
    } else {
      %difference = arith.subf %a, %p : tensor<128xf32>
      scf.yield %b, %difference : tensor<128xf32>, tensor<128xf32>
    }
    scf.yield %next#0, %next#1 : tensor<128xf32>, tensor<128xf32>
  }
  tile.store %r#0, %pa[%j] : tensor<128xf32> -> !tile.partition_view<128xf32>
  tile.store %r#1, %pb[%j] : tensor<128xf32> -> !tile.partition_view<128xf32>
  return
}

func.func @select_choice(%X: memref<?x?xf32>, %A: memref<?xf32>, %B: memref<?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %px = tile.partition_view %X : memref<?x?xf32> -> !tile.partition_view<64x128xf32>
  %pa = tile.partition_view %A : memref<?xf32> -> !tile.partition_view<128xf32>
  %pb = tile.partition_view %B : memref<?xf32> -> !tile.partition_view<128xf32>
  %j = tile.block_id x : index
  %rows = tile.num_tiles %px dim 0 : !tile.partition_view<64x128xf32>
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  %r:2 = scf.for %i = %c0 to %rows step %c1 iter_args(%a = %zero, %b = %zero) -> (tensor<128xf32>, tensor<128xf32>) {
    %x = tile.load %px[%i, %j] : !tile.partition_view<64x128xf32> -> tensor<64x128xf32>
    %p = tile.reduce add %x dim 0 : tensor<64x128xf32> -> tensor<128xf32>
    %greater = arith.cmpf ogt, %p, %a : tensor<128xf32>
    %a_next = arith.select %greater, %p, %a : tensor<128xi1>, tensor<128xf32>
    %parity = arith.remui %i, %c2 : index
    %even = arith.cmpi eq, %parity, %c0 : index
    %sum = arith.addf %b, %p : tensor<128xf32>
    %b_next = arith.select %even, %sum, %a : tensor<128xf32>
    scf.yield %a_next, %b_next : tensor<128xf32>, tensor<128xf32>
  }
  tile.store %r#0, %pa[%j] : tensor<128xf32> -> !tile.partition_view<128xf32>
  tile.store %r#1, %pb[%j] : tensor<128xf32> -> !tile.partition_view<128xf32>
  return
}

func.func @nested(%X: memref<?x?xf32>, %A: memref<?xf32>, %B: memref<?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %px = tile.partition_view %X : memref<?x?xf32> -> !tile.partition_view<64x128xf32>
  %pa = tile.partition_view %A : memref<?xf32> -> !tile.partition_view<128xf32>
  %pb = tile.partition_view %B : memref<?xf32> -> !tile.partition_view<128xf32>
  %j = tile.block_id x : index
  %rows = tile.num_tiles %px dim 0 : !tile.partition_view<64x128xf32>
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  %r:2 = scf.for %i = %c0 to %rows step %c2 iter_args(%a = %zero, %b = %zero) -> (tensor<128xf32>, tensor<128xf32>) {
    %s = scf.for %t = %c0 to %c2 step %c1 iter_args(%acc = %zero) -> (tensor<128xf32>) {
      %row = arith.addi %i, %t : index
      %x = tile.load %px[%row, %j] : !tile.partition_view<64x128xf32> -> tensor<64x128xf32>
      %p = tile.reduce add %x dim 0 : tensor<64x128xf32> -> tensor<128xf32>
      %next = arith.addf %p, %acc : tensor<128xf32>
      scf.yield %next : tensor<128xf32>
    }
    %difference = arith.subf %s, %b : tensor<128xf32>
    scf.yield %b, %difference : tensor<128xf32>, tensor<128xf32>
  }
  tile.store %r#0, %pa[%j] : tensor<128xf32> -> !tile.partition_view<128xf32>
  tile.store %r#1, %pb[%j] : tensor<128xf32> -> !tile.partition_view<128xf32>
  return
}
