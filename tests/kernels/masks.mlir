// Masked sums in a loop, for tile-version-masks: block x takes rows
// [16 x, 16 x + 16) of X (R x N), iteration j the columns [32 j, 32 j + 32)
// (columns past N load as zero), and each of the block's 16 x 32 outputs
// sums, over the iterations, one element a column slot t:
//
//   A[r, t] = sum_j X[r, c] where c <= r + 8 and c < lim (unsigned)
//   B[r, t] = sum_j X[r, c] where c >= 40 or X[r, c] > 0.5
//
// with c = 32 j + t. A's mask is all true in the first iterations of the
// lower blocks' rows and not in the last, so both versions run; B's mask
// has a side the pass cannot bound (a compare of loaded values), which
// stays where it is. tests/integration/cpu.rs computes both in plain Rust.
func.func @masked_sums(%X: memref<?x?xf32>, %A: memref<?x?xf32>, %B: memref<?x?xf32>, %lim: i32)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %px = tile.partition_view %X : memref<?x?xf32> -> !tile.partition_view<16x32xf32>
  %pa = tile.partition_view %A : memref<?x?xf32> -> !tile.partition_view<16x32xf32>
  %pb = tile.partition_view %B : memref<?x?xf32> -> !tile.partition_view<16x32xf32>
  %x = tile.block_id x : index
  %tiles = tile.num_tiles %px dim 1 : !tile.partition_view<16x32xf32>
  %first_row = arith.muli %x, %c16 : index
  %first_row32 = arith.index_cast %first_row : index to i32
  %row0 = tile.splat %first_row32 : i32 -> tensor<16xi32>
  %rows_iota = tile.iota : tensor<16xi32>
  %rows = arith.addi %rows_iota, %row0 : tensor<16xi32>
  %eight = arith.constant dense<8> : tensor<16xi32>
  %reach = arith.addi %rows, %eight : tensor<16xi32>
  %reach1 = tile.reshape %reach : tensor<16xi32> -> tensor<16x1xi32>
  %reachb = tile.broadcast %reach1 : tensor<16x1xi32> -> tensor<16x32xi32>
  %cols_iota = tile.iota : tensor<32xi32>
  %limt = tile.splat %lim : i32 -> tensor<32xi32>
  %forty = arith.constant dense<40> : tensor<16x32xi32>
  %half = arith.constant dense<0.5> : tensor<16x32xf32>
  %zero = arith.constant dense<0.0> : tensor<16x32xf32>
  %sa, %sb = scf.for %j = %c0 to %tiles step %c1 iter_args(%a = %zero, %b = %zero)
      -> (tensor<16x32xf32>, tensor<16x32xf32>) {
    %t = tile.load %px[%x, %j] : !tile.partition_view<16x32xf32> -> tensor<16x32xf32>
    %first = arith.muli %j, %c32 : index
    %first32 = arith.index_cast %first : index to i32
    %firstt = tile.splat %first32 : i32 -> tensor<32xi32>
    %cols = arith.addi %cols_iota, %firstt : tensor<32xi32>
    %below = arith.cmpi ult, %cols, %limt : tensor<32xi32>
    %below1 = tile.reshape %below : tensor<32xi1> -> tensor<1x32xi1>
    %belowb = tile.broadcast %below1 : tensor<1x32xi1> -> tensor<16x32xi1>
    %cols1 = tile.reshape %cols : tensor<32xi32> -> tensor<1x32xi32>
    %colsb = tile.broadcast %cols1 : tensor<1x32xi32> -> tensor<16x32xi32>
    %near = arith.cmpi sle, %colsb, %reachb : tensor<16x32xi32>
    %ma = arith.andi %near, %belowb : tensor<16x32xi1>
    %xa = arith.select %ma, %t, %zero : tensor<16x32xi1>, tensor<16x32xf32>
    %a_next = arith.addf %a, %xa : tensor<16x32xf32>
    %cols2 = tile.reshape %cols : tensor<32xi32> -> tensor<1x32xi32>
    %colsb2 = tile.broadcast %cols2 : tensor<1x32xi32> -> tensor<16x32xi32>
    %far = arith.cmpi sge, %colsb2, %forty : tensor<16x32xi32>
    %big = arith.cmpf ogt, %t, %half : tensor<16x32xf32>
    %mb = arith.ori %far, %big : tensor<16x32xi1>
    %xb = arith.select %mb, %t, %zero : tensor<16x32xi1>, tensor<16x32xf32>
    %b_next = arith.addf %b, %xb : tensor<16x32xf32>
    scf.yield %a_next, %b_next : tensor<16x32xf32>, tensor<16x32xf32>
  }
  tile.store %sa, %pa[%x, %c0] : tensor<16x32xf32> -> !tile.partition_view<16x32xf32>
  tile.store %sb, %pb[%x, %c0] : tensor<16x32xf32> -> !tile.partition_view<16x32xf32>
  return
}
