// Integer division and remainder by a run-time divisor that may be zero
// (or -1, with MIN / -1 overflowing): each has a defined result on both
// targets (tile-safe-division): x / 0 is all ones, x % 0 is x, MIN / -1
// wraps to MIN and MIN % -1 is 0.
//
// Q, R, QU, RU: X divided by d, signed and unsigned, in tiles of 64. I:
// index arithmetic by k, as blocks compute tile coordinates, with
// m = 1000 + block id: [m / k, m % k, -m / k (signed), -m % k (signed),
// ceildivui(m, k), floordivsi(-m, k), ceildivsi(-m, k),
// (m / 0) % (k + 7)], 8 per block. The last divides a quotient by zero,
// all ones, whose dividend's bound does not hold for it
// (tile-narrow-divisions must leave the remainder 64-bit).
func.func @divide(%X: memref<?xi32>, %Q: memref<?xi32>, %R: memref<?xi32>, %QU: memref<?xi32>,
                  %RU: memref<?xi32>, %I: memref<?xi64>, %d: i32, %k: index) attributes {tile.kernel} {
  %px = tile.partition_view %X : memref<?xi32> -> !tile.partition_view<64xi32>
  %pq = tile.partition_view %Q : memref<?xi32> -> !tile.partition_view<64xi32>
  %pr = tile.partition_view %R : memref<?xi32> -> !tile.partition_view<64xi32>
  %pqu = tile.partition_view %QU : memref<?xi32> -> !tile.partition_view<64xi32>
  %pru = tile.partition_view %RU : memref<?xi32> -> !tile.partition_view<64xi32>
  %pi = tile.partition_view %I : memref<?xi64> -> !tile.partition_view<8xi64>
  %b = tile.block_id x : index
  %x = tile.load %px[%b] : !tile.partition_view<64xi32> -> tensor<64xi32>
  %dt = tile.splat %d : i32 -> tensor<64xi32>
  %q = arith.divsi %x, %dt : tensor<64xi32>
  %r = arith.remsi %x, %dt : tensor<64xi32>
  %qu = arith.divui %x, %dt : tensor<64xi32>
  %ru = arith.remui %x, %dt : tensor<64xi32>
  tile.store %q, %pq[%b] : tensor<64xi32> -> !tile.partition_view<64xi32>
  tile.store %r, %pr[%b] : tensor<64xi32> -> !tile.partition_view<64xi32>
  tile.store %qu, %pqu[%b] : tensor<64xi32> -> !tile.partition_view<64xi32>
  tile.store %ru, %pru[%b] : tensor<64xi32> -> !tile.partition_view<64xi32>

  %c0 = arith.constant 0 : index
  %c1000 = arith.constant 1000 : index
  %m = arith.addi %b, %c1000 : index
  %neg = arith.subi %c0, %m : index
  %v0 = arith.divui %m, %k : index
  %v1 = arith.remui %m, %k : index
  %v2 = arith.divsi %neg, %k : index
  %v3 = arith.remsi %neg, %k : index
  %v4 = arith.ceildivui %m, %k : index
  %v5 = arith.floordivsi %neg, %k : index
  %v6 = arith.ceildivsi %neg, %k : index
  %c7 = arith.constant 7 : index
  %k7 = arith.addi %k, %c7 : index
  %by_zero = arith.divui %m, %c0 : index
  %v7 = arith.remui %by_zero, %k7 : index
  // The values as one tile: lane i takes v_i.
  %lanes = tile.iota : tensor<8xi32>
  %acc0 = arith.constant dense<0> : tensor<8xi64>
  %w0 = arith.index_cast %v0 : index to i64
  %s0 = tile.splat %w0 : i64 -> tensor<8xi64>
  %l0 = arith.constant dense<0> : tensor<8xi32>
  %is0 = arith.cmpi eq, %lanes, %l0 : tensor<8xi32>
  %acc1 = arith.select %is0, %s0, %acc0 : tensor<8xi1>, tensor<8xi64>
  %w1 = arith.index_cast %v1 : index to i64
  %s1 = tile.splat %w1 : i64 -> tensor<8xi64>
  %l1 = arith.constant dense<1> : tensor<8xi32>
  %is1 = arith.cmpi eq, %lanes, %l1 : tensor<8xi32>
  %acc2 = arith.select %is1, %s1, %acc1 : tensor<8xi1>, tensor<8xi64>
  %w2 = arith.index_cast %v2 : index to i64
  %s2 = tile.splat %w2 : i64 -> tensor<8xi64>
  %l2 = arith.constant dense<2> : tensor<8xi32>
  %is2 = arith.cmpi eq, %lanes, %l2 : tensor<8xi32>
  %acc3 = arith.select %is2, %s2, %acc2 : tensor<8xi1>, tensor<8xi64>
  %w3 = arith.index_cast %v3 : index to i64
  %s3 = tile.splat %w3 : i64 -> tensor<8xi64>
  %l3 = arith.constant dense<3> : tensor<8xi32>
  %is3 = arith.cmpi eq, %lanes, %l3 : tensor<8xi32>
  %acc4 = arith.select %is3, %s3, %acc3 : tensor<8xi1>, tensor<8xi64>
  %w4 = arith.index_cast %v4 : index to i64
  %s4 = tile.splat %w4 : i64 -> tensor<8xi64>
  %l4 = arith.constant dense<4> : tensor<8xi32>
  %is4 = arith.cmpi eq, %lanes, %l4 : tensor<8xi32>
  %acc5 = arith.select %is4, %s4, %acc4 : tensor<8xi1>, tensor<8xi64>
  %w5 = arith.index_cast %v5 : index to i64
  %s5 = tile.splat %w5 : i64 -> tensor<8xi64>
  %l5 = arith.constant dense<5> : tensor<8xi32>
  %is5 = arith.cmpi eq, %lanes, %l5 : tensor<8xi32>
  %acc6 = arith.select %is5, %s5, %acc5 : tensor<8xi1>, tensor<8xi64>
  %w6 = arith.index_cast %v6 : index to i64
  %s6 = tile.splat %w6 : i64 -> tensor<8xi64>
  %l6 = arith.constant dense<6> : tensor<8xi32>
  %is6 = arith.cmpi eq, %lanes, %l6 : tensor<8xi32>
  %acc7 = arith.select %is6, %s6, %acc6 : tensor<8xi1>, tensor<8xi64>
  %w7 = arith.index_cast %v7 : index to i64
  %s7 = tile.splat %w7 : i64 -> tensor<8xi64>
  %l7 = arith.constant dense<7> : tensor<8xi32>
  %is7 = arith.cmpi eq, %lanes, %l7 : tensor<8xi32>
  %acc8 = arith.select %is7, %s7, %acc7 : tensor<8xi1>, tensor<8xi64>
  tile.store %acc8, %pi[%b] : tensor<8xi64> -> !tile.partition_view<8xi64>
  return
}
