// Z = gelu(a X + Y) on f32 vectors, with GELU in its erf form,
// gelu(t) = t / 2 (1 + erf(t / sqrt 2)); one tile of 1024 elements per
// block (a 1-D grid of ceil(N / 1024) blocks).

func.func @axpy_gelu(%X: memref<?xf32>, %Y: memref<?xf32>, %Z: memref<?xf32>, %a: f32)
    attributes {tile.kernel} {
  %px = tile.partition_view %X : memref<?xf32> -> !tile.partition_view<1024xf32>
  %py = tile.partition_view %Y : memref<?xf32> -> !tile.partition_view<1024xf32>
  %pz = tile.partition_view %Z : memref<?xf32> -> !tile.partition_view<1024xf32>
  %i = tile.block_id x : index
  %x = tile.load %px[%i] : !tile.partition_view<1024xf32> -> tensor<1024xf32>
  %y = tile.load %py[%i] : !tile.partition_view<1024xf32> -> tensor<1024xf32>
  %at = tile.splat %a : f32 -> tensor<1024xf32>
  %ax = arith.mulf %at, %x : tensor<1024xf32>
  %t = arith.addf %ax, %y : tensor<1024xf32>
  // gelu(t) = 0.5 t (1 + erf(t / sqrt 2))
  %half = arith.constant dense<0.5> : tensor<1024xf32>
  %one = arith.constant dense<1.0> : tensor<1024xf32>
  %rsqrt2 = arith.constant dense<0.7071067811865476> : tensor<1024xf32>
  %u = arith.mulf %t, %rsqrt2 : tensor<1024xf32>
  %erf = math.erf %u : tensor<1024xf32>
  %one_erf = arith.addf %one, %erf : tensor<1024xf32>
  %ht = arith.mulf %half, %t : tensor<1024xf32>
  %z = arith.mulf %ht, %one_erf : tensor<1024xf32>
  tile.store %z, %pz[%i] : tensor<1024xf32> -> !tile.partition_view<1024xf32>
  return
}
