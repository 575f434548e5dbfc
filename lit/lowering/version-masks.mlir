// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-version-masks))' | FileCheck %s
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-version-masks))' --remarks-filter=tile -verify-diagnostics -o /dev/null

// Causal attention's mask: keys j*64 + [0, 63] against queries
// q + [0, 127], and keys below S. The select is skipped where the keys'
// greatest is below S and at most the queries' least (and the i32 sums do
// not overflow); the compares, the and and the select move into the else
// branch, the key tile (also read by the loop's store) stays.
// CHECK-LABEL: func.func @causal
// CHECK:         scf.for %[[J:.*]] =
// CHECK:           %[[F:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK:           %[[FT:.*]] = tile.splat %[[F]] : i32 -> tensor<64xi32>
// CHECK:           %[[KEY:.*]] = arith.addi %{{.*}}, %[[FT]] : tensor<64xi32>
// CHECK:           %[[F64:.*]] = arith.extsi %[[F]] : i32 to i64
// CHECK:           %[[C63:.*]] = arith.constant 63 : i64
// CHECK:           %[[KMAX:.*]] = arith.addi %[[C63]], %[[F64]] : i64
// CHECK:           %[[S64:.*]] = arith.extsi %{{.*}} : i32 to i64
// CHECK:           arith.cmpi slt, %[[KMAX]], %[[S64]] : i64
// CHECK:           %[[Q64:.*]] = arith.extsi %{{.*}} : i32 to i64
// CHECK:           arith.cmpi sle, %[[KMAX]], %[[Q64]] : i64
// CHECK:           %[[S:.*]] = scf.if %{{.*}} -> (tensor<128x64xf32>) {
// CHECK-NEXT:        scf.yield %[[X:.*]] : tensor<128x64xf32>
// CHECK-NEXT:      } else {
// CHECK-NEXT:        arith.cmpi slt, %[[KEY]], %{{.*}} : tensor<64xi32>
// CHECK-NEXT:        tile.reshape
// CHECK-NEXT:        tile.broadcast
// CHECK-NEXT:        tile.reshape %[[KEY]]
// CHECK-NEXT:        tile.broadcast
// CHECK-NEXT:        arith.cmpi sle
// CHECK-NEXT:        arith.andi
// CHECK-NEXT:        %[[SEL:.*]] = arith.select %{{.*}}, %[[X]], %{{.*}} : tensor<128x64xi1>, tensor<128x64xf32>
// CHECK-NEXT:        scf.yield %[[SEL]] : tensor<128x64xf32>
// CHECK-NEXT:      }
// CHECK:           arith.addf %{{.*}}, %[[S]] : tensor<128x64xf32>
// CHECK:           tile.reshape %[[KEY]]
// CHECK-NEXT:      tile.store
func.func @causal(%K: memref<?x?xi32>, %S: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %pk = tile.partition_view %K : memref<?x?xi32> -> !tile.partition_view<1x64xi32>
  %qt = tile.block_id x : index
  %q_first = arith.muli %qt, %c128 : index
  %q32 = arith.index_cast %q_first : index to i32
  %qs = tile.splat %q32 : i32 -> tensor<128xi32>
  %rows = tile.iota : tensor<128xi32>
  %query = arith.addi %rows, %qs : tensor<128xi32>
  %query1 = tile.reshape %query : tensor<128xi32> -> tensor<128x1xi32>
  %queryb = tile.broadcast %query1 : tensor<128x1xi32> -> tensor<128x64xi32>
  %keys = tile.iota : tensor<64xi32>
  %s32 = arith.index_cast %S : index to i32
  %st = tile.splat %s32 : i32 -> tensor<64xi32>
  %neg_inf = arith.constant dense<0xFF800000> : tensor<128x64xf32>
  %x = arith.constant dense<1.0> : tensor<128x64xf32>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %sum = scf.for %j = %c0 to %S step %c1 iter_args(%acc = %zero) -> (tensor<128x64xf32>) {
    %first = arith.muli %j, %c64 : index
    %first32 = arith.index_cast %first : index to i32
    %firstt = tile.splat %first32 : i32 -> tensor<64xi32>
    %key = arith.addi %keys, %firstt : tensor<64xi32>
    %in_range = arith.cmpi slt, %key, %st : tensor<64xi32>
    %in_range1 = tile.reshape %in_range : tensor<64xi1> -> tensor<1x64xi1>
    %in_rangeb = tile.broadcast %in_range1 : tensor<1x64xi1> -> tensor<128x64xi1>
    %key1 = tile.reshape %key : tensor<64xi32> -> tensor<1x64xi32>
    %keyb = tile.broadcast %key1 : tensor<1x64xi32> -> tensor<128x64xi32>
    %causal = arith.cmpi sle, %keyb, %queryb : tensor<128x64xi32>
    %valid = arith.andi %in_rangeb, %causal : tensor<128x64xi1>
    // expected-remark @below {{this select's mask is computed only in the iterations where the block cannot prove it all true from its index bounds}}
    %s = arith.select %valid, %x, %neg_inf : tensor<128x64xi1>, tensor<128x64xf32>
    %next = arith.addf %acc, %s : tensor<128x64xf32>
    %key2 = tile.reshape %key : tensor<64xi32> -> tensor<1x64xi32>
    tile.store %key2, %pk[%c0, %j] : tensor<1x64xi32> -> !tile.partition_view<1x64xi32>
    scf.yield %next : tensor<128x64xf32>
  }
  return
}

// -----

// Unsigned compares hold only where both sides are known non-negative; a
// product by a constant scales the bounds; a constant mask is all true.
// CHECK-LABEL: func.func @unsigned
// CHECK:         scf.for
// CHECK:           %[[F64:.*]] = arith.extsi %{{.*}} : i32 to i64
// CHECK:           %[[C15:.*]] = arith.constant 15 : i64
// CHECK:           %[[HI0:.*]] = arith.addi %[[C15]], %[[F64]] : i64
// CHECK:           %[[C4:.*]] = arith.constant 4 : i64
// CHECK:           %[[LO:.*]] = arith.muli %[[F64]], %[[C4]] : i64
// CHECK:           %[[HI:.*]] = arith.muli %[[HI0]], %[[C4]] : i64
// CHECK:           arith.cmpi sle, %[[HI]], %{{.*}} : i64
// CHECK:           %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK:           arith.cmpi sge, %[[LO]], %[[ZERO]] : i64
// CHECK:           arith.cmpi slt, %[[HI]], %{{.*}} : i64
// CHECK:           %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT:      %[[ALL:.*]] = arith.andi %{{.*}}, %[[TRUE]] : i1
// CHECK-NEXT:      scf.if %[[ALL]]
// CHECK:           } else {
// CHECK:             arith.cmpi ult, %{{.*}} : tensor<16xi32>
func.func @unsigned(%n: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant dense<4> : tensor<16xi32>
  %bound = arith.constant dense<1000> : tensor<16xi32>
  %yes = arith.constant dense<true> : tensor<16xi1>
  %iota = tile.iota : tensor<16xi32>
  %x = arith.constant dense<1.0> : tensor<16xf32>
  %y = arith.constant dense<0.0> : tensor<16xf32>
  %sum = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %y) -> (tensor<16xf32>) {
    %j32 = arith.index_cast %j : index to i32
    %jt = tile.splat %j32 : i32 -> tensor<16xi32>
    %i = arith.addi %iota, %jt : tensor<16xi32>
    %scaled = arith.muli %i, %c4 : tensor<16xi32>
    %below = arith.cmpi ult, %scaled, %bound : tensor<16xi32>
    %m = arith.andi %below, %yes : tensor<16xi1>
    // expected-remark @below {{this select's mask is computed only}}
    %s = arith.select %m, %x, %y : tensor<16xi1>, tensor<16xf32>
    %next = arith.addf %acc, %s : tensor<16xf32>
    scf.yield %next : tensor<16xf32>
  }
  return
}

// -----

// Left alone: a select outside every loop, a mask from a division (not
// bounded), a 64-bit mask, and a select on a scalar condition.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     scf.if
// CHECK:         arith.select
// CHECK:         scf.for
// CHECK-NOT:       scf.if
// CHECK-COUNT-3:   arith.select
// CHECK-NOT:       scf.if
// CHECK:           scf.yield
func.func @left_alone(%n: index, %c32: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %zero32 = arith.constant 0 : i32
  %c = arith.cmpi eq, %c32, %zero32 : i32
  %c1 = arith.constant 1 : index
  %iota = tile.iota : tensor<16xi32>
  %iota64 = tile.iota : tensor<16xi64>
  %ten = arith.constant dense<10> : tensor<16xi32>
  %ten64 = arith.constant dense<10> : tensor<16xi64>
  %x = arith.constant dense<1.0> : tensor<16xf32>
  %y = arith.constant dense<0.0> : tensor<16xf32>
  %outside_mask = arith.cmpi slt, %iota, %ten : tensor<16xi32>
  %outside = arith.select %outside_mask, %x, %y : tensor<16xi1>, tensor<16xf32>
  %sum = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %outside) -> (tensor<16xf32>) {
    %half = arith.divsi %iota, %ten : tensor<16xi32>
    %m1 = arith.cmpi slt, %half, %ten : tensor<16xi32>
    %s1 = arith.select %m1, %x, %acc : tensor<16xi1>, tensor<16xf32>
    %m2 = arith.cmpi slt, %iota64, %ten64 : tensor<16xi64>
    %s2 = arith.select %m2, %s1, %y : tensor<16xi1>, tensor<16xf32>
    %s3 = arith.select %c, %s2, %y : tensor<16xf32>
    scf.yield %s3 : tensor<16xf32>
  }
  return
}

// -----

// A mask op the analysis does not understand stays where it is: the load
// (and its compare) is not moved past the store, though the other side of
// the ori is provable and the select is versioned.
// CHECK-LABEL: func.func @load_stays
// CHECK:         scf.for
// CHECK:           %[[V:.*]] = tile.load
// CHECK-NEXT:      %[[Z:.*]] = arith.cmpi eq, %[[V]]
// CHECK-NEXT:      tile.store
// CHECK:           scf.if
// CHECK:           } else {
// CHECK-NOT:         tile.load
// CHECK:             arith.ori %[[Z]]
func.func @load_stays(%A: memref<?xi32>, %n: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?xi32> -> !tile.partition_view<16xi32>
  %zero = arith.constant dense<0> : tensor<16xi32>
  %seven = arith.constant dense<7> : tensor<16xi32>
  %x = arith.constant dense<1.0> : tensor<16xf32>
  %y = arith.constant dense<0.0> : tensor<16xf32>
  %sum = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %y) -> (tensor<16xf32>) {
    %j32 = arith.index_cast %j : index to i32
    %jt = tile.splat %j32 : i32 -> tensor<16xi32>
    %v = tile.load %pa[%c0] : !tile.partition_view<16xi32> -> tensor<16xi32>
    %isz = arith.cmpi eq, %v, %zero : tensor<16xi32>
    tile.store %seven, %pa[%c0] : tensor<16xi32> -> !tile.partition_view<16xi32>
    %neg = arith.cmpi slt, %jt, %zero : tensor<16xi32>
    %m = arith.ori %isz, %neg : tensor<16xi1>
    // expected-remark @below {{this select's mask is computed only}}
    %s = arith.select %m, %x, %acc : tensor<16xi1>, tensor<16xf32>
    scf.yield %s : tensor<16xf32>
  }
  return
}

// -----

// Left alone: two selects sharing one mask (neither could move it, so it
// is computed every iteration anyway), and a mask whose shared values
// would take the analysis past its budget (2^10 visits).
// CHECK-LABEL: func.func @shared_and_budget
// CHECK-NOT:     scf.if
func.func @shared_and_budget(%n: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %iota = tile.iota : tensor<16xi32>
  %x = arith.constant dense<1.0> : tensor<16xf32>
  %y = arith.constant dense<0.0> : tensor<16xf32>
  %sum = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %y) -> (tensor<16xf32>) {
    %j32 = arith.index_cast %j : index to i32
    %jt = tile.splat %j32 : i32 -> tensor<16xi32>
    %m = arith.cmpi slt, %iota, %jt : tensor<16xi32>
    %s1 = arith.select %m, %x, %acc : tensor<16xi1>, tensor<16xf32>
    %s2 = arith.select %m, %s1, %y : tensor<16xi1>, tensor<16xf32>
    %m0 = arith.cmpi sge, %iota, %jt : tensor<16xi32>
    %m1 = arith.andi %m0, %m0 : tensor<16xi1>
    %m2 = arith.andi %m1, %m1 : tensor<16xi1>
    %m3 = arith.andi %m2, %m2 : tensor<16xi1>
    %m4 = arith.andi %m3, %m3 : tensor<16xi1>
    %m5 = arith.andi %m4, %m4 : tensor<16xi1>
    %m6 = arith.andi %m5, %m5 : tensor<16xi1>
    %m7 = arith.andi %m6, %m6 : tensor<16xi1>
    %m8 = arith.andi %m7, %m7 : tensor<16xi1>
    %m9 = arith.andi %m8, %m8 : tensor<16xi1>
    %m10 = arith.andi %m9, %m9 : tensor<16xi1>
    %s3 = arith.select %m10, %s2, %y : tensor<16xi1>, tensor<16xf32>
    scf.yield %s3 : tensor<16xf32>
  }
  return
}
