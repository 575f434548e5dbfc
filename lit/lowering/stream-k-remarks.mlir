// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-prefetch-loads, tile-assign-layouts), tile-remove-layout-conversions, tile-use-tma, func.func(tile-persist-blocks, tile-stream-k))' --remarks-filter=tile -verify-diagnostics -o /dev/null

// C += A B: the accumulator starts at the loaded C tile, which a piece
// that does not start the tile must not add again, so the variant keeps
// whole tiles a block, and says so.
// expected-remark@+1 {{variant @accumulate__tma keeps whole tiles a block (stream_k = 1 not applied): its accumulator does not start at zero}}
func.func @accumulate(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel, tile.hints = {persistent = 1, stream_k = 1}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<32x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %bid = tile.block_id x : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x32xf16>
  %c = tile.load %pc[%bid, %c0] : !tile.partition_view<64x64xf32> -> tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%in = %c) -> (tensor<64x64xf32>) {
    %a = tile.load %pa[%bid, %k] : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<32x64xf16> -> tensor<32x64xf16>
    %d = tile.mma %a, %b, %in : tensor<64x32xf16>, tensor<32x64xf16> into tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %acc, %pc[%bid, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// A K loop over a constant count: the runtime computes the schedule from
// an argument's tile count, so the variant keeps whole tiles a block.
// expected-remark@+1 {{variant @constant_trips__tma keeps whole tiles a block (stream_k = 1 not applied): its K loop's trip count is not a view's tile count}}
func.func @constant_trips(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel, tile.hints = {persistent = 1, stream_k = 1}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<32x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %bid = tile.block_id x : index
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %c8 step %c1 iter_args(%in = %z) -> (tensor<64x64xf32>) {
    %a = tile.load %pa[%bid, %k] : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<32x64xf16> -> tensor<32x64xf16>
    %d = tile.mma %a, %b, %in : tensor<64x32xf16>, tensor<32x64xf16> into tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %acc, %pc[%bid, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}

// -----

// stream_k = 1 without persistent = 1: the variant's blocks take a tile
// each, so there is no walk to share the last wave's iterations in.
// expected-remark@+1 {{variant @not_persistent__tma keeps whole tiles a block (stream_k = 1 not applied): its blocks do not walk the tiles (persistent = 1, tile-persist-blocks)}}
func.func @not_persistent(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) attributes {tile.kernel, tile.hints = {stream_k = 1}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<32x64xf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x64xf32>
  %bid = tile.block_id x : index
  %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x32xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%in = %z) -> (tensor<64x64xf32>) {
    %a = tile.load %pa[%bid, %k] : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
    %b = tile.load %pb[%k, %c0] : !tile.partition_view<32x64xf16> -> tensor<32x64xf16>
    %d = tile.mma %a, %b, %in : tensor<64x32xf16>, tensor<32x64xf16> into tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %acc, %pc[%bid, %c0] : tensor<64x64xf32> -> !tile.partition_view<64x64xf32>
  return
}
