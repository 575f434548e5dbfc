// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-narrow-divisions))' | FileCheck %s

// A block id divided (and taken modulo) by a run-time value divides in 32
// bits: the dividend truncated, the divisor clamped to 2^32 - 1 (and 1 in
// place of 0), the result zero-extended; a zero divisor keeps the 64-bit
// results (all ones, the dividend).
// CHECK-LABEL: func.func @block_id
// CHECK-SAME: %[[N:[^:]*]]: index
// CHECK: %[[B:.*]] = tile.block_id x : index
// CHECK: %[[Z:.*]] = arith.cmpi eq, %[[N]], %{{.*}} : index
// CHECK: %[[M:.*]] = arith.minui %[[N]], %{{.*}} : index
// CHECK: %[[D:.*]] = arith.select %[[Z]], %{{.*}}, %[[M]] : index
// CHECK: %[[D32:.*]] = arith.index_castui %[[D]] : index to i32
// CHECK: %[[X32:.*]] = arith.index_castui %[[B]] : index to i32
// CHECK: %[[Q32:.*]] = arith.divui %[[X32]], %[[D32]] : i32
// CHECK: %[[Q:.*]] = arith.index_castui %[[Q32]] : i32 to index
// CHECK: %[[ONES:.*]] = arith.constant -1 : index
// CHECK: %[[QS:.*]] = arith.select %[[Z]], %[[ONES]], %[[Q]] : index
// CHECK: %[[R32:.*]] = arith.remui %{{.*}}, %{{.*}} : i32
// CHECK: %[[R:.*]] = arith.index_castui %[[R32]] : i32 to index
// CHECK: arith.select %{{.*}}, %[[B]], %[[R]] : index
// CHECK-NOT: arith.divui {{.*}} : index
// CHECK-NOT: arith.remui {{.*}} : index
// CHECK: return
func.func @block_id(%out: memref<?xi64>, %n: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tile.block_id x : index
  %q = arith.divui %b, %n : index
  %r = arith.remui %b, %n : index
  %q64 = arith.index_cast %q : index to i64
  %r64 = arith.index_cast %r : index to i64
  memref.store %q64, %out[%c0] : memref<?xi64>
  memref.store %r64, %out[%c1] : memref<?xi64>
  return
}

// -----

// Bounds carry through: a remainder is at most its dividend, a minimum at
// most its known side, a narrowed remainder at most its dividend; the
// contract matmul's grouping divides in 32 bits throughout.
// CHECK-LABEL: func.func @grouping
// CHECK-NOT: arith.divui {{.*}} : index
// CHECK-NOT: arith.remui {{.*}} : index
// CHECK: return
func.func @grouping(%out: memref<?xi64>, %nm: index, %nn: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %bid = tile.block_id x : index
  %per_group = arith.muli %c8, %nn : index
  %group = arith.divui %bid, %per_group : index
  %first_m = arith.muli %group, %c8 : index
  %rows_left = arith.subi %nm, %first_m : index
  %group_m = arith.minui %rows_left, %c8 : index
  %in_group = arith.remui %bid, %per_group : index
  %off_m = arith.remui %in_group, %group_m : index
  %bm = arith.addi %first_m, %off_m : index
  %bn = arith.divui %in_group, %group_m : index
  %bm64 = arith.index_cast %bm : index to i64
  %bn64 = arith.index_cast %bn : index to i64
  memref.store %bm64, %out[%c0] : memref<?xi64>
  memref.store %bn64, %out[%c1] : memref<?xi64>
  return
}

// -----

// A loop's induction variable is below its upper bound, and less its lower
// bound at most that: the walk of a persistent kernel over its last
// argument (the program's grid) counts its iterations in 32 bits.
// CHECK-LABEL: func.func @walk
// CHECK: scf.for
// CHECK: arith.divui %{{.*}}, %{{.*}} : i32
// CHECK-NOT: arith.divui {{.*}} : index
func.func @walk(%out: memref<?xi64>, %grid: index) attributes {tile.kernel, tile.persistent} {
  %bid = tile.block_id x : index
  %blocks = tile.num_blocks x : index
  scf.for %i = %bid to %grid step %blocks {
    %from = arith.subi %i, %bid : index
    %walked = arith.divui %from, %blocks : index
    %w64 = arith.index_cast %walked : index to i64
    memref.store %w64, %out[%i] : memref<?xi64>
  }
  return
}

// -----

// A variant that runs a slice of its grid (tile-split-last-wave): its
// last two arguments, the slice's first block and the whole grid, are
// within a CUDA grid, so the block id plus the first, divided by a
// run-time tile count or by the grid, and the grid divided by a tile
// count divide in 32 bits. The same arguments of an unmarked kernel stay
// 64-bit.
// CHECK-LABEL: func.func @slice
// CHECK-NOT: arith.divui {{.*}} : index
// CHECK-NOT: arith.remui {{.*}} : index
// CHECK: return
// CHECK-LABEL: func.func @unmarked
// CHECK: arith.divui %{{.*}}, %{{.*}} : index
// CHECK: arith.remui %{{.*}}, %{{.*}} : index
func.func @slice(%out: memref<?xi64>, %n: index, %first: index, %grid: index) attributes {tile.kernel, tile.grid_slice = 8 : i64} {
  %id = tile.block_id x : index
  %bid = arith.addi %id, %first : index
  %rows = arith.divui %grid, %n : index
  %q = arith.divui %bid, %grid : index
  %r = arith.remui %bid, %n : index
  %part = arith.addi %rows, %r : index
  %sum = arith.addi %part, %q : index
  %s64 = arith.index_cast %sum : index to i64
  memref.store %s64, %out[%bid] : memref<?xi64>
  return
}
func.func @unmarked(%out: memref<?xi64>, %n: index, %first: index, %grid: index) attributes {tile.kernel} {
  %id = tile.block_id x : index
  %bid = arith.addi %id, %first : index
  %rows = arith.divui %grid, %n : index
  %r = arith.remui %bid, %n : index
  %sum = arith.addi %rows, %r : index
  %s64 = arith.index_cast %sum : index to i64
  memref.store %s64, %out[%bid] : memref<?xi64>
  return
}

// -----

// A quotient is at most its dividend only where the divisor is not 0
// (x / 0 is all ones): the remainder of a block id divided by 0 stays
// 64-bit, that of one divided by 3 narrows (both quotients by constants,
// left to LLVM).
// CHECK-LABEL: func.func @quotient
// CHECK: %[[Q:.*]] = arith.divui %{{.*}}, %{{.*}} : index
// CHECK: arith.remui %[[Q]], %{{.*}} : index
// CHECK: arith.divui %{{.*}}, %{{.*}} : index
// CHECK: arith.remui %{{.*}}, %{{.*}} : i32
func.func @quotient(%out: memref<?xi64>, %m: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tile.block_id x : index
  %q = arith.divui %b, %c0 : index
  %r = arith.remui %q, %m : index
  %c3 = arith.constant 3 : index
  %q2 = arith.divui %b, %c3 : index
  %r2 = arith.remui %q2, %m : index
  %r64 = arith.index_cast %r : index to i64
  %r264 = arith.index_cast %r2 : index to i64
  memref.store %r64, %out[%c0] : memref<?xi64>
  memref.store %r264, %out[%c1] : memref<?xi64>
  return
}

// -----

// A loop whose lower bound may be negative (past the signed maximum as an
// unsigned value: scf.for compares signed) gives its variable no bound.
// CHECK-LABEL: func.func @negative_lower
// CHECK: scf.for
// CHECK: arith.divui %{{.*}}, %{{.*}} : index
// CHECK-NOT: i32
func.func @negative_lower(%out: memref<?xi64>, %m: index) attributes {tile.kernel} {
  %half = arith.constant 4611686018427387904 : index
  %lower = arith.addi %half, %half : index
  %c10 = arith.constant 10 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %lower to %c10 step %c1 {
    %q = arith.divui %i, %m : index
    %q64 = arith.index_cast %q : index to i64
    memref.store %q64, %out[%c1] : memref<?xi64>
  }
  return
}

// -----

// Unknown dividends (an argument, a difference) and signed or 64-bit
// integer divisions stay as they are.
// CHECK-LABEL: func.func @unknown
// CHECK: arith.divui %{{.*}}, %{{.*}} : index
// CHECK: arith.remui %{{.*}}, %{{.*}} : index
// CHECK: arith.divsi %{{.*}}, %{{.*}} : index
// CHECK: arith.divui %{{.*}}, %{{.*}} : i64
// CHECK-NOT: i32
func.func @unknown(%x: index, %y: index, %z: i64) -> (index, index, index, i64) {
  %q = arith.divui %x, %y : index
  %d = arith.subi %x, %y : index
  %r = arith.remui %d, %y : index
  %s = arith.divsi %x, %y : index
  %w = arith.divui %z, %z : i64
  return %q, %r, %s, %w : index, index, index, i64
}

// -----

// The values: on constants, MLIR's folder computes the 64-bit divisions of
// the program and the 32-bit ones the pass makes alike. 1000 / 7 and
// 1000 % 7; a divisor past 2^32 (clamped: quotient 0, remainder the
// dividend); a zero divisor (all ones, the dividend, as tile-safe-division
// defines them); and the largest dividend narrowed, 2^32 - 2, and the
// smallest not, 2^32 - 1 (past the clamped divisor, the 32-bit quotient
// would be 1). The divisors are sums, constants only once folded: the
// pass leaves a constant divisor alone (next case).
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-narrow-divisions, canonicalize))' | FileCheck %s --check-prefix=VALUES
// (Without the folding, the first eight are the pass's 32-bit divisions,
// the last two stay 64-bit.)
// CHECK-LABEL: func.func @values
// CHECK-COUNT-8: arith.{{divui|remui}} {{.*}} : i32
// CHECK: arith.divui {{.*}} : index
// CHECK: arith.remui {{.*}} : index
// CHECK-NOT: arith.{{divui|remui}}
// VALUES-LABEL: func.func @values
// VALUES-DAG: %[[Q:.*]] = arith.constant 142 : index
// VALUES-DAG: %[[R:.*]] = arith.constant 6 : index
// VALUES-DAG: %[[ZERO:.*]] = arith.constant 0 : index
// VALUES-DAG: %[[X:.*]] = arith.constant 1000 : index
// VALUES-DAG: %[[ONES:.*]] = arith.constant -1 : index
// VALUES-NOT: arith.divui
// VALUES-NOT: arith.remui
// VALUES-DAG: %[[L:.*]] = arith.constant 4294967294 : index
// VALUES-DAG: %[[P:.*]] = arith.constant 4294967295 : index
// VALUES: return %[[Q]], %[[R]], %[[ZERO]], %[[X]], %[[ONES]], %[[X]], %[[ZERO]], %[[L]], %[[ZERO]], %[[P]]
func.func @values() -> (index, index, index, index, index, index, index, index, index, index) {
  %x = arith.constant 1000 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c7 = arith.addi %c3, %c4 : index
  %c8589934594 = arith.constant 8589934594 : index
  %big = arith.addi %c8589934594, %c3 : index
  %c0 = arith.subi %c3, %c3 : index
  %q = arith.divui %x, %c7 : index
  %r = arith.remui %x, %c7 : index
  %qb = arith.divui %x, %big : index
  %rb = arith.remui %x, %big : index
  %q0 = arith.divui %x, %c0 : index
  %r0 = arith.remui %x, %c0 : index
  %limit = arith.constant 4294967294 : index
  %ql = arith.divui %limit, %big : index
  %rl = arith.remui %limit, %big : index
  %past = arith.constant 4294967295 : index
  %qp = arith.divui %past, %big : index
  %rp = arith.remui %past, %big : index
  return %q, %r, %qb, %rb, %q0, %r0, %ql, %rl, %qp, %rp : index, index, index, index, index, index, index, index, index, index
}

// -----

// A constant divisor stays: LLVM divides by it with shifts and
// multiplications (no division routine), and the 64-bit index arithmetic
// around it keeps its folds.
// CHECK-LABEL: func.func @constant_divisor
// CHECK: arith.divui %{{.*}}, %{{.*}} : index
// CHECK: arith.remui %{{.*}}, %{{.*}} : index
// CHECK-NOT: i32
func.func @constant_divisor() -> (index, index) {
  %c7 = arith.constant 7 : index
  %t = gpu.thread_id x
  %q = arith.divui %t, %c7 : index
  %r = arith.remui %t, %c7 : index
  return %q, %r : index, index
}
