// bf16 arithmetic, which x86 has no instructions for: S = x + y,
// P = x * y, E = exp(x), R = sqrt(y), in tiles of 64. The CPU target
// computes each op in f32 and rounds it to bf16 (nearest even), as the GPU
// does; LLVM would otherwise call compiler-rt's __truncsfbf2, which the
// JIT cannot find.
func.func @bf16_elementwise(%X: memref<?xbf16>, %Y: memref<?xbf16>, %S: memref<?xbf16>, %P: memref<?xbf16>,
                            %E: memref<?xbf16>, %R: memref<?xbf16>) attributes {tile.kernel} {
  %px = tile.partition_view %X : memref<?xbf16> -> !tile.partition_view<64xbf16>
  %py = tile.partition_view %Y : memref<?xbf16> -> !tile.partition_view<64xbf16>
  %ps = tile.partition_view %S : memref<?xbf16> -> !tile.partition_view<64xbf16>
  %pp = tile.partition_view %P : memref<?xbf16> -> !tile.partition_view<64xbf16>
  %pe = tile.partition_view %E : memref<?xbf16> -> !tile.partition_view<64xbf16>
  %pr = tile.partition_view %R : memref<?xbf16> -> !tile.partition_view<64xbf16>
  %i = tile.block_id x : index
  %x = tile.load %px[%i] : !tile.partition_view<64xbf16> -> tensor<64xbf16>
  %y = tile.load %py[%i] : !tile.partition_view<64xbf16> -> tensor<64xbf16>
  %s = arith.addf %x, %y : tensor<64xbf16>
  %p = arith.mulf %x, %y : tensor<64xbf16>
  %e = math.exp %x : tensor<64xbf16>
  %r = math.sqrt %y : tensor<64xbf16>
  tile.store %s, %ps[%i] : tensor<64xbf16> -> !tile.partition_view<64xbf16>
  tile.store %p, %pp[%i] : tensor<64xbf16> -> !tile.partition_view<64xbf16>
  tile.store %e, %pe[%i] : tensor<64xbf16> -> !tile.partition_view<64xbf16>
  tile.store %r, %pr[%i] : tensor<64xbf16> -> !tile.partition_view<64xbf16>
  return
}
