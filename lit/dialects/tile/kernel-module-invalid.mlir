// The module around kernels: kernels reach global memory through their
// memref arguments, so a memref.global beside them is what tile constants
// bufferize into, a constant with a value of at most one tile (227 KiB) in
// the default memory space. tile-to-ptx moves every global beside kernels
// into the GPU module; a huge initializer aborted its translation to LLVM
// ("LLVM ERROR: out of memory"). The first kernel of the block reports each
// global once, at the global.
// RUN: tile-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{'memref.global' op @g beside tile kernels holds 'memref<4294967296xf32>'; a constant beside kernels is at most a tile (232448 bytes)}}
memref.global "private" constant @g : memref<4294967296xf32> = dense<0.0>

func.func @softmax(%X: memref<?x1024xf32>, %Y: memref<?x1024xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %px = tile.partition_view %X : memref<?x1024xf32> -> !tile.partition_view<4x1024xf32, padding = neg_inf>
  %py = tile.partition_view %Y : memref<?x1024xf32> -> !tile.partition_view<4x1024xf32>
  %r = tile.block_id x : index
  %x = tile.load %px[%r, %c0] : !tile.partition_view<4x1024xf32, padding = neg_inf> -> tensor<4x1024xf32>
  %m = tile.reduce max %x dim 1 : tensor<4x1024xf32> -> tensor<4xf32>
  %m1 = tile.reshape %m : tensor<4xf32> -> tensor<4x1xf32>
  %mb = tile.broadcast %m1 : tensor<4x1xf32> -> tensor<4x1024xf32>
  %xs = arith.subf %x, %mb : tensor<4x1024xf32>
  %e = math.exp %xs : tensor<4x1024xf32>
  %s = tile.reduce add %e dim 1 : tensor<4x1024xf32> -> tensor<4xf32>
  %s1 = tile.reshape %s : tensor<4xf32> -> tensor<4x1xf32>
  %sb = tile.broadcast %s1 : tensor<4x1xf32> -> tensor<4x1024xf32>
  %y = arith.divf %e, %sb : tensor<4x1024xf32>
  tile.store %y, %py[%r, %c0] : tensor<4x1024xf32> -> !tile.partition_view<4x1024xf32>
  return
}

// -----

// expected-error @+1 {{'memref.global' op @g beside tile kernels is not a constant with a value; kernels reach global memory through their memref arguments}}
memref.global "private" @g : memref<4294967296xf32> = uninitialized

func.func @softmax(%X: memref<?x1024xf32>, %Y: memref<?x1024xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %px = tile.partition_view %X : memref<?x1024xf32> -> !tile.partition_view<4x1024xf32, padding = neg_inf>
  %py = tile.partition_view %Y : memref<?x1024xf32> -> !tile.partition_view<4x1024xf32>
  %r = tile.block_id x : index
  %x = tile.load %px[%r, %c0] : !tile.partition_view<4x1024xf32, padding = neg_inf> -> tensor<4x1024xf32>
  %m = tile.reduce max %x dim 1 : tensor<4x1024xf32> -> tensor<4xf32>
  %m1 = tile.reshape %m : tensor<4xf32> -> tensor<4x1xf32>
  %mb = tile.broadcast %m1 : tensor<4x1xf32> -> tensor<4x1024xf32>
  %xs = arith.subf %x, %mb : tensor<4x1024xf32>
  %e = math.exp %xs : tensor<4x1024xf32>
  %s = tile.reduce add %e dim 1 : tensor<4x1024xf32> -> tensor<4xf32>
  %s1 = tile.reshape %s : tensor<4xf32> -> tensor<4x1xf32>
  %sb = tile.broadcast %s1 : tensor<4x1xf32> -> tensor<4x1024xf32>
  %y = arith.divf %e, %sb : tensor<4x1024xf32>
  tile.store %y, %py[%r, %c0] : tensor<4x1024xf32> -> !tile.partition_view<4x1024xf32>
  return
}

// -----

// A mutable global would let blocks communicate.
// expected-error @+1 {{'memref.global' op @counter beside tile kernels is not a constant with a value; kernels reach global memory through their memref arguments}}
memref.global "private" @counter : memref<16xi32> = dense<0>

func.func @k(%X: memref<?xi32>) attributes {tile.kernel} {
  return
}

// -----

// A declaration: neither target has a definition to link.
// expected-error @+1 {{'memref.global' op @extern beside tile kernels is not a constant with a value; kernels reach global memory through their memref arguments}}
memref.global @extern : memref<16xf32>

func.func @k(%X: memref<?xf32>) attributes {tile.kernel} {
  return
}

// -----

// expected-error @+1 {{'memref.global' op @shared beside tile kernels is in memory space #gpu.address_space<workgroup>; kernels' constants are global}}
memref.global "private" constant @shared : memref<16xf32, #gpu.address_space<workgroup>> = dense<1.0>

func.func @k(%X: memref<?xf32>) attributes {tile.kernel} {
  return
}

// -----

// 256 KiB: more than a tile.
// expected-error @+1 {{'memref.global' op @table beside tile kernels holds 'memref<256x256xf32>'; a constant beside kernels is at most a tile (232448 bytes)}}
memref.global "private" constant @table : memref<256x256xf32> = dense<1.0>

func.func @k(%X: memref<?xf32>) attributes {tile.kernel} {
  return
}

// -----

// A tile-sized constant, read by a kernel, is what bufferization makes of
// a tile constant; with two kernels, the bad global is reported once.
memref.global "private" constant @ok : memref<16xf32> = dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0]>
// expected-error @+1 {{'memref.global' op @bad beside tile kernels is not a constant with a value; kernels reach global memory through their memref arguments}}
memref.global "private" @bad : memref<16xf32> = uninitialized

func.func @a(%Y: memref<?xf32>) attributes {tile.kernel} {
  %g = memref.get_global @ok : memref<16xf32>
  %c0 = arith.constant 0 : index
  %pg = tile.partition_view %g : memref<16xf32> -> !tile.partition_view<16xf32>
  %py = tile.partition_view %Y : memref<?xf32> -> !tile.partition_view<16xf32>
  %r = tile.block_id x : index
  %x = tile.load %pg[%c0] : !tile.partition_view<16xf32> -> tensor<16xf32>
  tile.store %x, %py[%r] : tensor<16xf32> -> !tile.partition_view<16xf32>
  return
}

func.func @b(%Y: memref<?xf32>) attributes {tile.kernel} {
  return
}

// -----

// Globals are free in a module without kernels.
memref.global "private" @free : memref<4294967296xf32> = uninitialized
