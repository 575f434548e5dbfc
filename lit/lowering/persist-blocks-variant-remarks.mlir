// RUN: tile-opt %s --pass-pipeline='builtin.module(func.func(tile-persist-blocks))' --remarks-filter=tile -verify-diagnostics -o /dev/null

// A variant given as input whose loads the TMA fills none of: it keeps one
// tile a block, and says why.
func.func @k(%A: memref<?xf32>) attributes {tile.kernel} {
  return
}
// expected-remark@+1 {{variant @k__tma keeps one tile a block (persistent = 1 not applied): the TMA fills none of its loads' rings}}
func.func @k__tma(%A: memref<?xf32>) attributes {tile.kernel, tile.variant_of = @k, tile.hints = {persistent = 1}} {
  %bid = tile.block_id x : index
  %pa = tile.partition_view %A : memref<?xf32> -> !tile.partition_view<128xf32>
  %a = tile.load %pa[%bid] : !tile.partition_view<128xf32> -> tensor<128xf32>
  tile.store %a, %pa[%bid] : tensor<128xf32> -> !tile.partition_view<128xf32>
  return
}
