// A fused elementwise kernel: z = f16(leaky_relu(alpha * x + f32(y))), in
// tiles of 1024 elements. Blocks walk the tiles with a grid-stride loop, so
// any grid size covers the whole array.
func.func @fused_elementwise(%X: memref<?xf32>, %Y: memref<?xf16>, %Z: memref<?xf16>, %alpha: f32)
    attributes {tile.kernel} {
  %px = tile.partition_view %X : memref<?xf32> -> !tile.partition_view<1024xf32>
  %py = tile.partition_view %Y : memref<?xf16> -> !tile.partition_view<1024xf16>
  %pz = tile.partition_view %Z : memref<?xf16> -> !tile.partition_view<1024xf16>
  %first = tile.block_id x : index
  %step = tile.num_blocks x : index
  %count = tile.num_tiles %pz dim 0 : !tile.partition_view<1024xf16>
  %a = tile.splat %alpha : f32 -> tensor<1024xf32>
  %zero = arith.constant dense<0.0> : tensor<1024xf32>
  %slope = arith.constant dense<0.01> : tensor<1024xf32>
  scf.for %i = %first to %count step %step {
    %x = tile.load %px[%i] : !tile.partition_view<1024xf32> -> tensor<1024xf32>
    %y = tile.load %py[%i] : !tile.partition_view<1024xf16> -> tensor<1024xf16>
    %yf = arith.extf %y : tensor<1024xf16> to tensor<1024xf32>
    %ax = arith.mulf %a, %x : tensor<1024xf32>
    %t = arith.addf %ax, %yf : tensor<1024xf32>
    %pos = arith.cmpf ogt, %t, %zero : tensor<1024xf32>
    %leak = arith.mulf %t, %slope : tensor<1024xf32>
    %r = arith.select %pos, %t, %leak : tensor<1024xi1>, tensor<1024xf32>
    %z = arith.truncf %r : tensor<1024xf32> to tensor<1024xf16>
    tile.store %z, %pz[%i] : tensor<1024xf16> -> !tile.partition_view<1024xf16>
  }
  return
}
