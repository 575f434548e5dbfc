// The kernel attributes tile.kernel and tile.hints (kernel-attrs.mlir tries
// every key and attribute).
// RUN: tile-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{kernel argument #0 has type 'tensor<4xf32>'; kernel arguments are memrefs or index, i32, i64, f32 scalars}}
func.func @tensor_arg(%t: tensor<4xf32>) attributes {tile.kernel} {
  return
}

// -----

// expected-error @+1 {{kernel argument #1 has type 'f64'; kernel arguments are memrefs or index, i32, i64, f32 scalars}}
func.func @f64_arg(%A: memref<?xf32>, %x: f64) attributes {tile.kernel} {
  return
}

// -----

// expected-error @+1 {{kernel argument #0 has type 'memref<?x?x?x?xf32>'; memref arguments have rank 1 to 3 and a tile element type}}
func.func @rank4_arg(%A: memref<?x?x?x?xf32>) attributes {tile.kernel} {
  return
}

// -----

// expected-error @+1 {{kernel @returns returns 1 values; kernels return nothing}}
func.func @returns() -> index attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  return %c0 : index
}

// -----

// expected-error @+1 {{'tile.kernel' is a unit attribute}}
func.func @not_unit() attributes {tile.kernel = 1 : i32} {
  return
}

// -----

// expected-error @+1 {{'tile.kernel' belongs on a func.func}}
module attributes {tile.kernel} {
}

// -----

// expected-error @+1 {{'tile.hints' must be a dictionary}}
func.func @hints_array() attributes {tile.kernel, tile.hints = [1, 2]} {
  return
}

// -----

// expected-error @+1 {{hint 'num_stages' must be a positive integer up to 8, not 0 : i64}}
func.func @hints_zero() attributes {tile.kernel, tile.hints = {num_stages = 0 : i64}} {
  return
}

// -----

// expected-error @+1 {{hint 'num_ctas' must be a positive integer up to 8, not "two"}}
func.func @hints_string() attributes {tile.kernel, tile.hints = {num_ctas = "two"}} {
  return
}

// -----

// Unknown hints are ignored.
func.func @hints_unknown() attributes {tile.kernel, tile.hints = {num_warps = 4 : i64}} {
  return
}

// -----

// expected-error @+1 {{unknown tile attribute 'tile.kernal'}}
func.func @typo() attributes {tile.kernal} {
  return
}

// -----

// The attributes tile-use-tma writes on a kernel variant.
// expected-error @+1 {{kernel argument #1 has type '!llvm.ptr'; kernel arguments are memrefs or index, i32, i64, f32 scalars}}
func.func @ptr_without_tma(%A: memref<?x?xf16>, %d: !llvm.ptr) attributes {tile.kernel} {
  return
}

// -----

// expected-error @+1 {{'tile.tma' names argument #1, which is not a memref}}
func.func @tma_of_pointer(%A: memref<?x?xf16>, %d: !llvm.ptr {tile.tma = {arg = 1 : i64, box = array<i64: 64, 64>, swizzle = 128 : i64}}) {
  return
}

// -----

// expected-error @+1 {{'tile.tma' box must have one extent from 1 to 256 per dim of argument #0}}
func.func @tma_box_rank(%A: memref<?x?xf16>, %d: !llvm.ptr {tile.tma = {arg = 0 : i64, box = array<i64: 64>, swizzle = 128 : i64}}) {
  return
}

// -----

// expected-error @+1 {{'tile.tma' box must have one extent from 1 to 256 per dim of argument #0}}
func.func @tma_box_extent(%A: memref<?x?xf16>, %d: !llvm.ptr {tile.tma = {arg = 0 : i64, box = array<i64: 512, 64>, swizzle = 128 : i64}}) {
  return
}

// -----

// expected-error @+1 {{'tile.tma' swizzle must be 0, 32, 64 or 128}}
func.func @tma_swizzle(%A: memref<?x?xf16>, %d: !llvm.ptr {tile.tma = {arg = 0 : i64, box = array<i64: 64, 64>, swizzle = 16 : i64}}) {
  return
}

// -----

// expected-error @+1 {{'tile.tma' must be {arg = N : i64, box = array<i64: ...>, swizzle = N : i64}}}
func.func @tma_shape(%A: memref<?x?xf16>, %d: !llvm.ptr {tile.tma = {arg = 0 : i64}}) {
  return
}

// -----

// expected-error @+1 {{'tile.tma' argument #0 must be an !llvm.ptr}}
func.func @tma_on_memref(%A: memref<?x?xf16> {tile.tma = {arg = 0 : i64, box = array<i64: 64, 64>, swizzle = 128 : i64}}) {
  return
}

// -----

// expected-error @+1 {{unknown tile argument attribute 'tile.tmaa'}}
func.func @unknown_arg_attr(%A: memref<?x?xf16> {tile.tmaa}) {
  return
}

// -----

// expected-error @+1 {{'tile.block_size' must be an integer from 1 to 1024}}
func.func @block_size(%A: memref<?xf32>) attributes {tile.kernel, tile.block_size = 2048 : i64} {
  return
}

// -----

// expected-error @+1 {{'tile.variant_of' must be a symbol reference}}
func.func @variant_of(%A: memref<?xf32>) attributes {tile.kernel, tile.variant_of = "k"} {
  return
}

// -----

// expected-error @+1 {{'tile.cluster' is an integer from 2 to 8 on a kernel}}
func.func @cluster_one(%A: memref<?xf32>) attributes {tile.kernel, tile.cluster = 1 : i64} {
  return
}

// -----

// expected-error @+1 {{'tile.cluster' is an integer from 2 to 8 on a kernel}}
func.func @cluster_large(%A: memref<?xf32>) attributes {tile.kernel, tile.cluster = 16 : i64} {
  return
}

// -----

// tile.sliced (written by tile-slice-clusters) comes with tile.cluster.
// expected-error @+1 {{'tile.sliced' is a unit attribute of a kernel with 'tile.cluster'}}
func.func @sliced_without_cluster(%A: memref<?xf32>) attributes {tile.kernel, tile.sliced} {
  return
}

// -----

// tile.tma_multicast (written by tile-use-tma) is for a TMA ring load of
// a sliced cluster's kernel: here the kernel is not sliced.
func.func @multicast_not_sliced(%A: memref<?x?xf16>, %d: !llvm.ptr {tile.tma = {arg = 0 : i64, box = array<i64: 32, 32>, swizzle = 64 : i64}})
    attributes {tile.kernel, tile.cluster = 2 : i64} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  // expected-error @+1 {{'tile.tma_multicast' is a unit attribute of a tile.load with 'tile.tma_load' in a kernel with 'tile.sliced'}}
  %a = tile.load %pa[%c0, %c0] {tile.ring = array<i64: 0, 2, 0, 4>, tile.tma_load = 1 : i64, tile.tma_multicast} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
  return
}

// -----

// expected-error @+1 {{'tile.persistent' is a unit attribute of a kernel whose last argument is an index}}
func.func @persistent_without_grid(%A: memref<?xf32>) attributes {tile.kernel, tile.persistent} {
  return
}

// -----

// expected-error @+1 {{hint 'persistent' must be 0 or 1, not 2 : i64}}
func.func @persistent_hint(%A: memref<?xf32>) attributes {tile.kernel, tile.hints = {persistent = 2 : i64}} {
  return
}

// -----

// expected-error @+1 {{hint 'pingpong' must be 0 or 1, not 2 : i64}}
func.func @pingpong_hint(%A: memref<?xf32>) attributes {tile.kernel, tile.hints = {pingpong = 2 : i64}} {
  return
}


// -----

// The kernel attributes are verified before func.func's own verifier: a
// function without its type or name is func.func's error, not a crash.
// expected-error @+1 {{'func.func' op requires attribute 'function_type'}}
"func.func"() <{sym_name = "k"}> ({
  "func.return"() : () -> ()
}) {tile.kernel} : () -> ()

// -----

// expected-error @+1 {{'func.func' op requires attribute 'sym_name'}}
"func.func"() <{function_type = () -> ()}> ({
  "func.return"() : () -> ()
}) {tile.kernel} : () -> ()

// -----

// expected-error @+1 {{'func.func' op requires one region}}
"func.func"() <{sym_name = "k", function_type = () -> ()}> {tile.kernel} : () -> ()

// -----

// expected-error @+1 {{'func.func' op requires attribute 'function_type'}}
"func.func"() <{sym_name = "k"}> ({
  "func.return"() : () -> ()
}) {tile.persistent} : () -> ()

// -----

// tile.ring (written by tile-prefetch-loads): four integers on a tile.load.
func.func @ring_short(%A: memref<?x?xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  // expected-error @+1 {{'tile.ring' is array<i64: ring, distance, index, slots> on a tile.load, with ring >= 0, distance >= 1, -1 <= index < distance and distance < slots <= 64}}
  %a = tile.load %pa[%c0, %c0] {tile.ring = array<i64: 0, 2, 0>} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
  return
}

// -----

// Slots no more than the distance: a load would overwrite a tile in flight.
func.func @ring_slots(%A: memref<?x?xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  // expected-error @+1 {{'tile.ring' is array<i64: ring, distance, index, slots> on a tile.load}}
  %a = tile.load %pa[%c0, %c0] {tile.ring = array<i64: 0, 2, 0, 2>} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
  return
}

// -----

func.func @ring_not_a_load(%A: memref<?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.ring' is array<i64: ring, distance, index, slots> on a tile.load}}
  %v = memref.load %A[%c0] {tile.ring = array<i64: 0, 1, 0, 3>} : memref<?xf32>
  return
}

// -----

// tile.tma_load (written by tile-use-tma) names an !llvm.ptr argument of
// the kernel: here argument 0 is the memref.
func.func @tma_load_not_a_pointer(%A: memref<?x?xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  // expected-error @+1 {{'tile.tma_load' is the index of an !llvm.ptr argument of the kernel, on a tile.load with 'tile.ring'}}
  %a = tile.load %pa[%c0, %c0] {tile.ring = array<i64: 0, 2, 0, 4>, tile.tma_load = 0 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
  return
}

// -----

// Past the kernel's arguments.
func.func @tma_load_out_of_range(%A: memref<?x?xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  // expected-error @+1 {{'tile.tma_load' is the index of an !llvm.ptr argument of the kernel}}
  %a = tile.load %pa[%c0, %c0] {tile.ring = array<i64: 0, 2, 0, 4>, tile.tma_load = 5 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
  return
}

// -----

// Only a ring load is filled by the TMA.
func.func @tma_load_without_ring(%A: memref<?x?xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
  // expected-error @+1 {{'tile.tma_load' is the index of an !llvm.ptr argument of the kernel, on a tile.load with 'tile.ring'}}
  %a = tile.load %pa[%c0, %c0] {tile.tma_load = 0 : i64} : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
  return
}

// -----

// tile.tma_store (written by tile-use-tma) names an !llvm.ptr argument of
// the kernel: here argument 0 is the memref.
func.func @tma_store_not_a_pointer(%A: memref<?x?xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  %z = arith.constant dense<1.0> : tensor<64x64xf16>
  // expected-error @+1 {{'tile.tma_store' is the index of an !llvm.ptr argument of the kernel, on a tile.store}}
  tile.store %z, %pa[%c0, %c0] {tile.tma_store = 0 : i64} : tensor<64x64xf16> -> !tile.partition_view<64x64xf16>
  return
}

// -----

// Only a store is written out by the TMA through tile.tma_store.
func.func @tma_store_on_a_load(%A: memref<?x?xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
  // expected-error @+1 {{'tile.tma_store' is the index of an !llvm.ptr argument of the kernel, on a tile.store}}
  %a = tile.load %pa[%c0, %c0] {tile.tma_store = 0 : i64} : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
  return
}
